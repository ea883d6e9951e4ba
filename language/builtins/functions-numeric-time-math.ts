/**
 * Mathematical scalar functions, including the set functions over dynamic arrays.
 *
 * Semantics (KQL unless noted):
 * - null in, null out (`strict`), except `set_has_element`'s value, which may look for a null.
 * - Out-of-domain inputs of `acos`, `asin`, `log*` and `sqrt` give null, as KQL documents; the other
 *   real functions follow IEEE 754 (NaN, ±Infinity), e.g. `cot(0)` is +Infinity.
 * - Results typed long wrap to 64 bits (`wrapLong`). None of these functions divide longs, so the
 *   "long division by zero" rule (an error in KQL; null here) belongs to the `/` and `%` operators.
 * - `round` rounds half away from zero (KQL and Go's `math.Round` agree on this).
 */
import { Datetime, Timespan, formatDatetime, wrapLong, type AplValue, type JsonValue } from '../values.js';
import type { AplType } from '../types/apl-types.js';
import type { ScalarFunction } from './catalogue-types.js';
import { asArray, canonicalKey, categoryBuilder, commonType, isLongResult, num, p, sameAs, sig, strict, toInt, toJson } from './functions-numeric-time-helpers.js';

const math = categoryBuilder('math');

/** A function of one real: `f(x)`, null when `f` reports the input outside its domain (returns undefined). */
function real1(f: (x: number) => number | undefined) {
    return strict(args => {
        const x = num(args[0]);
        if (x === undefined) return null;
        const r = f(x);
        return r === undefined ? null : r;
    });
}

const LANCZOS_G = 7;
const LANCZOS = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** Γ(x) by the Lanczos approximation with reflection; poles: Γ(0) = +Infinity, Γ(-n) = NaN (as C's tgamma). */
export function gamma(x: number): number {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity) return Infinity;
    if (x === 0) return Infinity;
    if (x < 0 && Number.isInteger(x)) return NaN;
    if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
    if (x > 171.7) return Infinity;
    const z = x - 1;
    let a = LANCZOS[0];
    const t = z + LANCZOS_G + 0.5;
    for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i] / (z + i);
    const r = Math.sqrt(2 * Math.PI) * Math.pow(t, z + 0.5) * Math.exp(-t) * a;
    // Integers up to 170 have exact factorials; snap the approximation to them.
    return Number.isInteger(x) && x <= 23 ? Math.round(r) : r;
}

/** ln|Γ(x)|; +Infinity at the poles (0 and negative integers). */
export function logGamma(x: number): number {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity || x === -Infinity) return Infinity;
    if (x <= 0 && Number.isInteger(x)) return Infinity;
    if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    const z = x - 1;
    let a = LANCZOS[0];
    const t = z + LANCZOS_G + 0.5;
    for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i] / (z + i);
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Rounds half away from zero to `digits` decimal places (negative digits round to tens, hundreds...). */
export function roundHalfAwayFromZero(x: number, digits: number): number {
    if (!Number.isFinite(x)) return x;
    const sign = x < 0 ? -1 : 1;
    const ax = Math.abs(x);
    if (digits >= 0) {
        const f = Math.pow(10, digits);
        const scaled = ax * f;
        if (!Number.isFinite(scaled) || scaled >= 2 ** 52) return x; // already exact at this precision
        // Correct a product like 2.675 * 100 = 267.49999999999997 by going through the shortest decimal text.
        const fixed = Number((ax * f).toPrecision(15));
        return (sign * Math.floor(fixed + 0.5)) / f;
    }
    const f = Math.pow(10, -digits);
    return sign * Math.floor(ax / f + 0.5) * f;
}

/** Orders two non-null scalars of a common type; undefined when incomparable. */
function compareScalars(a: AplValue, b: AplValue): number | undefined {
    if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
    if (a instanceof Datetime && b instanceof Datetime) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
    if (a instanceof Timespan && b instanceof Timespan) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
    if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    return undefined;
}

/** max_of / min_of: nulls are skipped; all null gives null. */
function extremeOf(direction: 1 | -1) {
    return (args: AplValue[]): AplValue => {
        let best: AplValue = null;
        for (const v of args) {
            if (v === null || v === undefined) continue;
            if (typeof v === 'number' && Number.isNaN(v)) continue;
            if (best === null) {
                best = v;
                continue;
            }
            const c = compareScalars(v, best);
            if (c !== undefined && c * direction > 0) best = v;
        }
        return best;
    };
}

/** The largest number of elements `range` produces (KQL's limit). */
export const RANGE_MAX_ELEMENTS = 1_048_576;

function rangeOf(args: AplValue[]): AplValue {
    const [start, stop, step] = args;
    const out: JsonValue[] = [];
    if (typeof start === 'number' && typeof stop === 'number') {
        const s = step === undefined ? 1 : num(step);
        if (s === undefined || s === 0 || !Number.isFinite(s) || !Number.isFinite(start) || !Number.isFinite(stop)) return null;
        for (let i = 0; out.length < RANGE_MAX_ELEMENTS; i++) {
            const v = start + i * s;
            if (s > 0 ? v > stop : v < stop) break;
            out.push(v);
        }
        return out;
    }
    const isTime = (start instanceof Datetime && stop instanceof Datetime) || (start instanceof Timespan && stop instanceof Timespan);
    if (!isTime) return null;
    // Datetime and timespan ranges need an explicit timespan step.
    if (!(step instanceof Timespan) || step.ns === 0n) return null;
    const a = (start as Datetime | Timespan).ns;
    const b = (stop as Datetime | Timespan).ns;
    const make = (ns: bigint) => (start instanceof Datetime ? formatDatetime(ns) : new Timespan(ns).toJSON());
    for (let v = a; out.length < RANGE_MAX_ELEMENTS && (step.ns > 0n ? v <= b : v >= b); v += step.ns) out.push(make(v));
    return out;
}

/** Distinct elements, first occurrence kept. */
function distinct(values: JsonValue[]): JsonValue[] {
    const seen = new Set<string>();
    const out: JsonValue[] = [];
    for (const v of values) {
        const k = canonicalKey(v);
        if (!seen.has(k)) {
            seen.add(k);
            out.push(v);
        }
    }
    return out;
}

function arraysOf(args: AplValue[]): JsonValue[][] | undefined {
    const arrays: JsonValue[][] = [];
    for (const a of args) {
        const arr = asArray(a);
        if (!arr) return undefined;
        arrays.push(arr);
    }
    return arrays;
}

const returnReal = 'real' as const;
const numberReturn = (argTypes: readonly AplType[]): AplType => {
    const t = argTypes[0] ?? 'unknown';
    return t === 'long' || t === 'real' || t === 'timespan' ? t : t === 'unknown' ? 'unknown' : 'real';
};

const setArrays = [p('array1', 'array'), p('array2', 'array'), p('arrays', 'array', { variadic: true })];

export const MATH_FUNCTIONS: ScalarFunction[] = [
    math({
        name: 'abs',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'number')), sig(p('x', 'timespan'))],
        returns: numberReturn,
        description: 'The absolute value of a number or timespan; the type is kept.',
        example: 'print a = abs(-42), b = abs(-1.5), c = abs(-1h)',
        evaluate: strict((args, ctx) => {
            const x = args[0];
            if (x instanceof Timespan) return new Timespan(x.ns < 0n ? -x.ns : x.ns);
            if (typeof x !== 'number') return null;
            return isLongResult(ctx) ? wrapLong(Math.abs(x)) : Math.abs(x);
        }),
    }),
    math({
        name: 'acos',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The arc cosine of `x` in radians; null when `x` is outside [-1, 1].',
        example: 'print a = acos(0.5)',
        evaluate: real1(x => (x < -1 || x > 1 ? undefined : Math.acos(x))),
    }),
    math({
        name: 'asin',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The arc sine of `x` in radians; null when `x` is outside [-1, 1].',
        example: 'print a = asin(0.5)',
        evaluate: real1(x => (x < -1 || x > 1 ? undefined : Math.asin(x))),
    }),
    math({
        name: 'atan',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The arc tangent of `x` in radians.',
        example: 'print a = atan(1)',
        evaluate: real1(Math.atan),
    }),
    math({
        name: 'atan2',
        resultName: 'firstArgument',
        signatures: [sig(p('y', 'real'), p('x', 'real'))],
        returns: returnReal,
        description: 'The angle in radians between the positive x axis and the point (`x`, `y`).',
        example: 'print a = atan2(1, 1)',
        evaluate: strict(args => {
            const y = num(args[0]);
            const x = num(args[1]);
            return y === undefined || x === undefined ? null : Math.atan2(y, x);
        }),
    }),
    math({
        name: 'cos',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The cosine of an angle given in radians.',
        example: 'print a = cos(pi())',
        evaluate: real1(Math.cos),
    }),
    math({
        name: 'cot',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The cotangent (1 / tan) of an angle given in radians.',
        example: 'print a = cot(pi() / 4)',
        evaluate: real1(x => 1 / Math.tan(x)),
    }),
    math({
        name: 'degrees',
        signatures: [sig(p('radians', 'real'))],
        returns: returnReal,
        description: 'Converts an angle from radians to degrees.',
        example: 'print a = degrees(pi())',
        evaluate: real1(x => (x * 180) / Math.PI),
    }),
    math({
        name: 'exp',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'e raised to the power `x`.',
        example: 'print a = exp(1)',
        evaluate: real1(Math.exp),
    }),
    math({
        name: 'exp10',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: '10 raised to the power `x`.',
        example: 'print a = exp10(3)',
        evaluate: real1(x => Math.pow(10, x)),
    }),
    math({
        name: 'exp2',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: '2 raised to the power `x`.',
        example: 'print a = exp2(10)',
        evaluate: real1(x => Math.pow(2, x)),
    }),
    math({
        name: 'gamma',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The gamma function; for a positive integer n, `gamma(n)` is (n-1)!.',
        example: 'print a = gamma(5)',
        evaluate: real1(gamma),
    }),
    math({
        name: 'isfinite',
        signatures: [sig(p('x', 'real'))],
        returns: 'bool',
        description: 'True when the number is neither infinite nor NaN.',
        example: 'print a = isfinite(1.0 / 3), b = isfinite(1.0 / 0)',
        evaluate: strict(args => (typeof args[0] === 'number' ? Number.isFinite(args[0]) : null)),
    }),
    math({
        name: 'isinf',
        signatures: [sig(p('x', 'real'))],
        returns: 'bool',
        description: 'True when the number is positive or negative infinity.',
        example: 'print a = isinf(1.0 / 0)',
        evaluate: strict(args => (typeof args[0] === 'number' ? args[0] === Infinity || args[0] === -Infinity : null)),
    }),
    math({
        name: 'isint',
        signatures: [sig(p('expression', 'real'))],
        returns: 'bool',
        axiomOnly: true,
        description: 'True when the number has no fractional part; false for fractions, NaN and infinities.',
        example: 'print a = isint(42), b = isint(4.2)',
        evaluate: strict(args => (typeof args[0] === 'number' ? Number.isInteger(args[0]) : false)),
    }),
    math({
        name: 'isnan',
        signatures: [sig(p('x', 'real'))],
        returns: 'bool',
        description: 'True when the number is NaN (not a number).',
        example: 'print a = isnan(0.0 / 0), b = isnan(1.0)',
        evaluate: strict(args => (typeof args[0] === 'number' ? Number.isNaN(args[0]) : null)),
    }),
    math({
        name: 'log',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The natural logarithm; null when `x` is zero or negative.',
        example: 'print a = log(exp(2))',
        evaluate: real1(x => (x > 0 ? Math.log(x) : undefined)),
    }),
    math({
        name: 'log10',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The base-10 logarithm; null when `x` is zero or negative.',
        example: 'print a = log10(1000)',
        evaluate: real1(x => (x > 0 ? Math.log10(x) : undefined)),
    }),
    math({
        name: 'log2',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The base-2 logarithm; null when `x` is zero or negative.',
        example: 'print a = log2(1024)',
        evaluate: real1(x => (x > 0 ? Math.log2(x) : undefined)),
    }),
    math({
        name: 'loggamma',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The natural logarithm of the absolute value of the gamma function.',
        example: 'print a = loggamma(10)',
        evaluate: real1(logGamma),
    }),
    math({
        name: 'max_of',
        signatures: [sig(p('value', 'scalar'), p('values', 'scalar', { variadic: true }))],
        returns: commonType,
        description: 'The largest of its arguments, ignoring nulls (null if all are null). Arguments should share a type; longs mix with reals.',
        example: "['sample-http-logs'] | extend biggest = max_of(resp_header_size_bytes, resp_body_size_bytes)",
        evaluate: extremeOf(1),
    }),
    math({
        name: 'min_of',
        signatures: [sig(p('value', 'scalar'), p('values', 'scalar', { variadic: true }))],
        returns: commonType,
        description: 'The smallest of its arguments, ignoring nulls (null if all are null). Arguments should share a type; longs mix with reals.',
        example: "['sample-http-logs'] | extend smallest = min_of(resp_header_size_bytes, resp_body_size_bytes)",
        evaluate: extremeOf(-1),
    }),
    math({
        name: 'not',
        signatures: [sig(p('expr', 'bool'))],
        returns: 'bool',
        description: 'Logical negation of a boolean.',
        example: "['sample-http-logs'] | where not(method == 'GET')",
        evaluate: strict(args => (typeof args[0] === 'boolean' ? !args[0] : null)),
    }),
    math({
        name: 'pi',
        signatures: [sig()],
        returns: returnReal,
        description: 'The constant π.',
        example: 'print a = pi()',
        evaluate: () => Math.PI,
    }),
    math({
        name: 'pow',
        resultName: 'firstArgument',
        signatures: [sig(p('base', 'real'), p('exponent', 'real'))],
        returns: returnReal,
        description: '`base` raised to `exponent`, always as a real.',
        example: 'print a = pow(2, 10)',
        evaluate: strict(args => {
            const b = num(args[0]);
            const e = num(args[1]);
            return b === undefined || e === undefined ? null : Math.pow(b, e);
        }),
    }),
    math({
        name: 'radians',
        signatures: [sig(p('degrees', 'real'))],
        returns: returnReal,
        description: 'Converts an angle from degrees to radians.',
        example: 'print a = radians(180)',
        evaluate: real1(x => (x * Math.PI) / 180),
    }),
    math({
        name: 'rand',
        resultName: 'firstArgument',
        signatures: [sig(p('range', 'long', { optional: true }))],
        returns: argTypes => (argTypes.length > 0 ? 'long' : 'real'),
        volatile: true,
        description: 'A random real in [0, 1), or with an argument `n` a random long in [0, n). Null when `n` is not positive.',
        example: 'print a = rand(), b = rand(100)',
        evaluate: args => {
            if (args.length === 0 || args[0] === undefined) return Math.random();
            const n = toInt(args[0]);
            if (n === undefined || n <= 0) return null;
            return Math.floor(Math.random() * n);
        },
    }),
    math({
        name: 'range',
        signatures: [
            sig(p('start', 'number'), p('stop', 'number'), p('step', 'number', { optional: true })),
            sig(p('start', 'datetime'), p('stop', 'datetime'), p('step', 'timespan')),
            sig(p('start', 'timespan'), p('stop', 'timespan'), p('step', 'timespan')),
        ],
        returns: 'dynamic',
        description:
            'A dynamic array of the values from `start` to `stop` (inclusive) in steps of `step` (default 1 for numbers; datetimes and timespans need a timespan step). At most 1,048,576 elements; a zero step gives null.',
        example: 'print r = range(100, 500, 100)',
        evaluate: strict(rangeOf),
    }),
    math({
        name: 'round',
        resultName: 'firstArgument',
        signatures: [sig(p('source', 'number'), p('precision', 'long', { optional: true }))],
        returns: sameAs(0),
        description: 'Rounds to `precision` decimal places (default 0; negative rounds to tens, hundreds...), halves away from zero. Longs stay longs.',
        example: 'print a = round(2.15, 1), b = round(1250, -2)',
        evaluate: strict((args, ctx) => {
            const x = num(args[0]);
            const digits = args[1] === undefined ? 0 : toInt(args[1]);
            if (x === undefined || digits === undefined) return null;
            const r = roundHalfAwayFromZero(x, digits);
            return isLongResult(ctx) ? wrapLong(Math.round(r)) : r;
        }),
    }),
    math({
        name: 'set_difference',
        signatures: [sig(...setArrays)],
        returns: 'dynamic',
        description: 'The distinct elements of the first array that are in none of the others, in first-seen order.',
        example: 'print d = set_difference(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))',
        evaluate: strict(args => {
            const arrays = arraysOf(args);
            if (!arrays) return null;
            const exclude = new Set(arrays.slice(1).flatMap(a => a.map(canonicalKey)));
            return distinct(arrays[0]).filter(v => !exclude.has(canonicalKey(v)));
        }),
    }),
    math({
        name: 'set_has_element',
        signatures: [sig(p('set', 'array'), p('value', 'scalar'))],
        returns: 'bool',
        description: 'True when the dynamic array contains the value.',
        example: 'print a = set_has_element(dynamic([1, 2, 3]), 2)',
        evaluate: args => {
            if (args[0] === null) return null;
            const arr = asArray(args[0]);
            if (!arr) return null;
            const key = canonicalKey(toJson(args[1] ?? null));
            return arr.some(v => canonicalKey(v) === key);
        },
    }),
    math({
        name: 'set_intersect',
        signatures: [sig(...setArrays)],
        returns: 'dynamic',
        description: 'The distinct elements present in every array, in the order of the first array.',
        example: 'print i = set_intersect(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))',
        evaluate: strict(args => {
            const arrays = arraysOf(args);
            if (!arrays) return null;
            const others = arrays.slice(1).map(a => new Set(a.map(canonicalKey)));
            return distinct(arrays[0]).filter(v => others.every(s => s.has(canonicalKey(v))));
        }),
    }),
    math({
        name: 'set_union',
        signatures: [sig(...setArrays)],
        returns: 'dynamic',
        description: 'The distinct elements of all the arrays, in first-seen order.',
        example: 'print u = set_union(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))',
        evaluate: strict(args => {
            const arrays = arraysOf(args);
            return arrays ? distinct(arrays.flat()) : null;
        }),
    }),
    math({
        name: 'sign',
        signatures: [sig(p('x', 'number'))],
        returns: sameAs(0),
        description: 'The sign of a number: -1, 0 or 1 (NaN stays NaN).',
        example: 'print a = sign(-42), b = sign(0), c = sign(3.5)',
        evaluate: strict(args => (typeof args[0] === 'number' ? Math.sign(args[0]) + 0 : null)),
    }),
    math({
        name: 'sin',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The sine of an angle given in radians.',
        example: 'print a = sin(pi() / 2)',
        evaluate: real1(Math.sin),
    }),
    math({
        name: 'sqrt',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        // APL's documentation (sqrt.mdx) differs from KQL's null on purpose: `isnan(sqrt(-200.0))` is true.
        description: 'The square root; NaN when `x` is negative (as APL documents; KQL gives null).',
        example: 'print a = sqrt(16)',
        evaluate: real1(Math.sqrt),
    }),
    math({
        name: 'tan',
        resultName: 'firstArgument',
        signatures: [sig(p('x', 'real'))],
        returns: returnReal,
        description: 'The tangent of an angle given in radians.',
        example: 'print a = tan(pi() / 4)',
        evaluate: real1(Math.tan),
    }),
];
