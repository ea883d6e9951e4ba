import { describe, expect, it } from 'vitest';
import type { AplType } from '../../../language/types/apl-types.js';
import { Datetime, Timespan, formatDatetime, parseDatetime, parseTimespanLiteral, type AplValue, type JsonValue } from '../../../language/values.js';
import type { ReturnRule, ScalarFunction } from '../../../language/builtins/catalogue-types.js';
import {
    FUNCTIONS,
    autoBinSize,
    autoBinSizeFor,
    lookupModelPricing,
    parseIpv4,
    parseIpv6,
} from '../../../language/builtins/functions-numeric-time.js';
import { gamma, logGamma } from '../../../language/builtins/functions-numeric-time-math.js';
import { addMonths, civilFromDays, daysFromCivil, isoWeek } from '../../../language/builtins/time-parts.js';

// ---------------------------------------------------------------------------------------------
// Helpers: build argument values, infer their static types, run an entry's evaluate and render
// datetimes/timespans as text so expectations read like APL output.

const NOW = parseDatetime('2025-01-15T12:00:00Z')!;

function dt(text: string): Datetime {
    const ns = parseDatetime(text);
    if (ns === undefined) throw new Error(`bad datetime ${text}`);
    return new Datetime(ns);
}

function ts(text: string): Timespan {
    const neg = text.startsWith('-');
    const ns = parseTimespanLiteral(neg ? text.slice(1) : text);
    if (ns === undefined) throw new Error(`bad timespan ${text}`);
    return new Timespan(neg ? -ns : ns);
}

/** Marks a number as a real even when it is integral (e.g. `2.0`). */
class Real {
    constructor(readonly value: number) {}
}
const real = (v: number) => new Real(v);

type Arg = AplValue | Real | undefined;

function typeOf(v: Arg): AplType {
    if (v instanceof Real) return 'real';
    if (v === null || v === undefined) return 'unknown';
    if (typeof v === 'number') return Number.isInteger(v) ? 'long' : 'real';
    if (typeof v === 'string') return 'string';
    if (typeof v === 'boolean') return 'bool';
    if (v instanceof Datetime) return 'datetime';
    if (v instanceof Timespan) return 'timespan';
    return 'dynamic';
}

function fn(name: string): ScalarFunction {
    const f = FUNCTIONS.find(x => x.name === name || x.aliases?.includes(name));
    if (!f) throw new Error(`no function ${name}`);
    return f;
}

function resultTypeOf(rule: ReturnRule, argTypes: AplType[]): AplType {
    return typeof rule === 'function' ? rule(argTypes) : rule;
}

interface RunOptions {
    types?: AplType[];
    startTime?: bigint;
    endTime?: bigint;
}

function run(name: string, args: Arg[], opts: RunOptions = {}): AplValue {
    const f = fn(name);
    if (!f.evaluate) throw new Error(`${name} has no evaluate`);
    const argTypes = opts.types ?? args.map(typeOf);
    const values = args.map(a => (a instanceof Real ? a.value : a)) as AplValue[];
    // Trailing undefined means "argument omitted".
    while (values.length > 0 && values[values.length - 1] === undefined) values.pop();
    return f.evaluate(values, {
        argTypes: argTypes.slice(0, values.length),
        resultType: resultTypeOf(f.returns, argTypes.slice(0, values.length)),
        now: NOW,
        startTime: opts.startTime,
        endTime: opts.endTime,
    });
}

/** Datetimes print as RFC 3339, timespans as `timespan(<ns>)`. */
function show(v: AplValue): unknown {
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (v instanceof Timespan) return `timespan(${v.ns})`;
    return v;
}

const span = (text: string) => `timespan(${ts(text).ns})`;

/** One golden case: the APL call text, the function, its arguments and the expected (shown) result. */
type Case = [apl: string, name: string, args: Arg[], expected: unknown, opts?: RunOptions];

function cases(title: string, list: Case[]): void {
    describe(title, () => {
        for (const [apl, name, args, expected, opts] of list) {
            it(apl, () => {
                const got = show(run(name, args, opts));
                if (typeof expected === 'number' && Number.isFinite(expected) && typeof got === 'number') {
                    expect(got).toBeCloseTo(expected, 9);
                } else {
                    expect(got).toEqual(expected);
                }
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------

describe('catalogue entries', () => {
    it('has the 103 functions of the five categories, each once', () => {
        expect(FUNCTIONS).toHaveLength(103);
        expect(new Set(FUNCTIONS.map(f => f.name)).size).toBe(103);
        const count = (c: string) => FUNCTIONS.filter(f => f.category === c).length;
        expect([count('math'), count('rounding'), count('datetime'), count('ip'), count('genai')]).toEqual([37, 4, 25, 19, 18]);
    });

    for (const f of FUNCTIONS) {
        it(`${f.name} has description, example, signatures and an evaluator or a reason`, () => {
            expect(f.kind).toBe('scalar');
            expect(f.description.length).toBeGreaterThan(10);
            expect(f.example).toContain(`${f.name}(`);
            expect(f.signatures.length).toBeGreaterThan(0);
            for (const s of f.signatures) {
                const variadicAt = s.params.findIndex(p => p.variadic);
                if (variadicAt >= 0) expect(variadicAt).toBe(s.params.length - 1);
                // Optional parameters only at the end.
                const firstOptional = s.params.findIndex(p => p.optional);
                if (firstOptional >= 0) expect(s.params.slice(firstOptional).every(p => p.optional || p.variadic)).toBe(true);
            }
            expect(Boolean(f.evaluate) || Boolean(f.unsupported)).toBe(true);
        });
    }

    it('marks the GenAI functions and isint as Axiom-only, and only those', () => {
        const axiomOnly = FUNCTIONS.filter(f => f.axiomOnly).map(f => f.name);
        expect(axiomOnly).toContain('isint');
        expect(axiomOnly.filter(n => n.startsWith('genai_'))).toHaveLength(18);
        expect(axiomOnly).toHaveLength(19);
    });

    it('marks rand, now and ago as volatile', () => {
        expect(FUNCTIONS.filter(f => f.volatile).map(f => f.name).sort()).toEqual(['ago', 'now', 'rand']);
    });

    it('geo_info_from_ip_address is unsupported with a reason', () => {
        expect(fn('geo_info_from_ip_address').evaluate).toBeUndefined();
        expect(fn('geo_info_from_ip_address').unsupported).toMatch(/GeoIP/);
    });

    it('return rules', () => {
        const r = (name: string, types: AplType[]) => resultTypeOf(fn(name).returns, types);
        expect(r('abs', ['long'])).toBe('long');
        expect(r('abs', ['real'])).toBe('real');
        expect(r('abs', ['timespan'])).toBe('timespan');
        expect(r('bin', ['long', 'long'])).toBe('long');
        expect(r('bin', ['long', 'real'])).toBe('real');
        expect(r('bin', ['datetime', 'timespan'])).toBe('datetime');
        expect(r('bin', ['timespan', 'timespan'])).toBe('timespan');
        expect(r('floor', ['long'])).toBe('long');
        expect(r('ceiling', ['real'])).toBe('real');
        expect(r('round', ['long', 'long'])).toBe('long');
        expect(r('round', ['real'])).toBe('real');
        expect(r('pow', ['long', 'long'])).toBe('real');
        expect(r('max_of', ['long', 'real'])).toBe('real');
        expect(r('min_of', ['long', 'long'])).toBe('long');
        expect(r('max_of', ['datetime', 'datetime'])).toBe('datetime');
        expect(r('rand', [])).toBe('real');
        expect(r('rand', ['long'])).toBe('long');
        expect(r('dayofweek', ['datetime'])).toBe('timespan');
        expect(r('datetime_diff', ['string', 'datetime', 'datetime'])).toBe('long');
    });
});

// ---------------------------------------------------------------------------------------------

cases('mathematical functions', [
    ['abs(-5)', 'abs', [-5], 5],
    ['abs(-1.5)', 'abs', [-1.5], 1.5],
    ['abs(-1h)', 'abs', [ts('-1h')], span('1h')],
    ['abs(long(null))', 'abs', [null], null, { types: ['long'] }],
    ['acos(0.5)', 'acos', [0.5], Math.acos(0.5)],
    ['acos(2.0)', 'acos', [real(2)], null],
    ['asin(1.0)', 'asin', [real(1)], Math.PI / 2],
    ['asin(-1.5)', 'asin', [-1.5], null],
    ['atan(1)', 'atan', [1], Math.PI / 4],
    ['atan2(1, 1)', 'atan2', [1, 1], Math.PI / 4],
    ['atan2(real(null), 1)', 'atan2', [null, 1], null],
    ['cos(0)', 'cos', [0], 1],
    ['cot(pi() / 4)', 'cot', [Math.PI / 4], 1],
    ['cot(0.0)', 'cot', [real(0)], Infinity],
    ['degrees(pi())', 'degrees', [Math.PI], 180],
    ['exp(1)', 'exp', [1], Math.E],
    ['exp10(3)', 'exp10', [3], 1000],
    ['exp2(10)', 'exp2', [10], 1024],
    ['gamma(5)', 'gamma', [5], 24],
    ['gamma(0.5)', 'gamma', [0.5], Math.sqrt(Math.PI)],
    ['gamma(0.0)', 'gamma', [real(0)], Infinity],
    ['isfinite(1.5)', 'isfinite', [1.5], true],
    ['isfinite(1.0 / 0)', 'isfinite', [Infinity], false],
    ['isfinite(real(null))', 'isfinite', [null], null, { types: ['real'] }],
    ['isinf(-1.0 / 0)', 'isinf', [-Infinity], true],
    ['isinf(5)', 'isinf', [5], false],
    ['isint(42)', 'isint', [42], true],
    ['isint(4.2)', 'isint', [4.2], false],
    ['isint(2.0)', 'isint', [real(2)], true],
    ['isint(0.0 / 0)', 'isint', [NaN], false],
    ['isnan(0.0 / 0)', 'isnan', [NaN], true],
    ['isnan(1.0)', 'isnan', [real(1)], false],
    ['log(exp(2))', 'log', [Math.exp(2)], 2],
    ['log(0)', 'log', [0], null],
    ['log(-1)', 'log', [-1], null],
    ['log10(1000)', 'log10', [1000], 3],
    ['log2(1024)', 'log2', [1024], 10],
    ['loggamma(10)', 'loggamma', [10], Math.log(362880)],
    ['max_of(10, 1, 7)', 'max_of', [10, 1, 7], 10],
    ['max_of(1, 2.5)', 'max_of', [1, 2.5], 2.5],
    ['max_of(long(null), 3)', 'max_of', [null, 3], 3, { types: ['long', 'long'] }],
    ['max_of(long(null), long(null))', 'max_of', [null, null], null, { types: ['long', 'long'] }],
    ['max_of(datetime(2024-01-01), datetime(2025-01-01))', 'max_of', [dt('2024-01-01'), dt('2025-01-01')], '2025-01-01T00:00:00Z'],
    ["max_of('apple', 'banana')", 'max_of', ['apple', 'banana'], 'banana'],
    ['min_of(10, 1, 7)', 'min_of', [10, 1, 7], 1],
    ['min_of(2h, 30m)', 'min_of', [ts('2h'), ts('30m')], span('30m')],
    ['not(true)', 'not', [true], false],
    ['not(bool(null))', 'not', [null], null, { types: ['bool'] }],
    ['pi()', 'pi', [], Math.PI],
    ['pow(2, 10)', 'pow', [2, 10], 1024],
    ['pow(2, -1)', 'pow', [2, -1], 0.5],
    ['pow(0, -1)', 'pow', [0, -1], Infinity],
    ['radians(180)', 'radians', [180], Math.PI],
    ['range(100, 500, 100)', 'range', [100, 500, 100], [100, 200, 300, 400, 500]],
    ['range(1, 3)', 'range', [1, 3], [1, 2, 3]],
    ['range(5, 1, -2)', 'range', [5, 1, -2], [5, 3, 1]],
    ['range(1, 5, -1)', 'range', [1, 5, -1], []],
    ['range(1, 5, 0)', 'range', [1, 5, 0], null],
    ['range(0, 1, 0.25)', 'range', [0, 1, 0.25], [0, 0.25, 0.5, 0.75, 1]],
    [
        'range(datetime(2025-07-29T12:00:00Z), datetime(2025-07-29T13:00:00Z), 15m)',
        'range',
        [dt('2025-07-29T12:00:00Z'), dt('2025-07-29T13:00:00Z'), ts('15m')],
        ['2025-07-29T12:00:00Z', '2025-07-29T12:15:00Z', '2025-07-29T12:30:00Z', '2025-07-29T12:45:00Z', '2025-07-29T13:00:00Z'],
    ],
    ['range(1h, 3h, 1h)', 'range', [ts('1h'), ts('3h'), ts('1h')], ['1h0m0s', '2h0m0s', '3h0m0s']],
    ['round(2.15, 1)', 'round', [2.15, 1], 2.2],
    ['round(2.5)', 'round', [2.5], 3],
    ['round(-2.5)', 'round', [-2.5], -3],
    ['round(2.98765, 3)', 'round', [2.98765, 3], 2.988],
    ['round(-50.55, -2)', 'round', [-50.55, -2], -100],
    ['round(21.5, -1)', 'round', [21.5, -1], 20],
    ['round(1250, -2)', 'round', [1250, -2], 1300],
    ['round(7)', 'round', [7], 7],
    ['round(1.005, 2)', 'round', [1.005, 2], 1.01],
    ['round(real(null), 2)', 'round', [null, 2], null, { types: ['real', 'long'] }],
    ['set_difference(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', 'set_difference', [[1, 2, 3], [2, 3, 4, 5]], [1]],
    ['set_difference(dynamic([1, 1, 2, 3, 4]), dynamic([2]), dynamic([4]))', 'set_difference', [[1, 1, 2, 3, 4], [2], [4]], [1, 3]],
    ['set_difference(dynamic(null), dynamic([1]))', 'set_difference', [null, [1]], null, { types: ['dynamic', 'dynamic'] }],
    ['set_has_element(dynamic([1, 2, 3]), 2)', 'set_has_element', [[1, 2, 3], 2], true],
    ["set_has_element(dynamic(['a', 'b']), 'c')", 'set_has_element', [['a', 'b'], 'c'], false],
    ['set_has_element(dynamic([{"a":1,"b":2}]), dynamic({"b":2,"a":1}))', 'set_has_element', [[{ a: 1, b: 2 }], { b: 2, a: 1 }], true],
    ['set_intersect(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', 'set_intersect', [[1, 2, 3], [2, 3, 4, 5]], [2, 3]],
    ['set_intersect(dynamic([3, 2, 2, 1]), dynamic([1, 2]), dynamic([2]))', 'set_intersect', [[3, 2, 2, 1], [1, 2], [2]], [2]],
    ['set_union(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', 'set_union', [[1, 2, 3], [2, 3, 4, 5]], [1, 2, 3, 4, 5]],
    ["set_union(dynamic(['b', 'a']), dynamic(['a', 'c']), dynamic([['x']]))", 'set_union', [['b', 'a'], ['a', 'c'], [['x']]], ['b', 'a', 'c', ['x']]],
    ['sign(-42)', 'sign', [-42], -1],
    ['sign(0)', 'sign', [0], 0],
    ['sign(3.5)', 'sign', [3.5], 1],
    ['sin(pi() / 2)', 'sin', [Math.PI / 2], 1],
    ['sqrt(16)', 'sqrt', [16], 4],
    ['sqrt(-1)', 'sqrt', [-1], NaN],
    ['tan(pi() / 4)', 'tan', [Math.PI / 4], 1],
]);

describe('rand', () => {
    it('rand()', () => {
        for (let i = 0; i < 100; i++) {
            const v = run('rand', []) as number;
            expect(v).toBeGreaterThanOrEqual(0);
            expect(v).toBeLessThan(1);
        }
    });
    it('rand(10)', () => {
        const seen = new Set<number>();
        for (let i = 0; i < 500; i++) {
            const v = run('rand', [10]) as number;
            expect(Number.isInteger(v) && v >= 0 && v < 10).toBe(true);
            seen.add(v);
        }
        expect(seen.size).toBe(10);
    });
    it('rand(0)', () => expect(run('rand', [0])).toBeNull());
});

describe('gamma helpers', () => {
    it('gamma matches factorials and the reflection formula', () => {
        for (let n = 1; n <= 20; n++) {
            let fact = 1;
            for (let k = 2; k < n; k++) fact *= k;
            expect(Math.abs(gamma(n) - fact) / fact).toBeLessThan(1e-12);
        }
        expect(gamma(-0.5)).toBeCloseTo(-2 * Math.sqrt(Math.PI), 10);
        expect(Number.isNaN(gamma(-2))).toBe(true);
        expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 10);
        expect(logGamma(-0.5)).toBeCloseTo(Math.log(2 * Math.sqrt(Math.PI)), 10);
        expect(logGamma(0)).toBe(Infinity);
    });
});

describe('long overflow wraps to 64 bits', () => {
    it('bin(9223372036854775807, 10)', () => {
        // 2^63 - 1 is not exact in a double; the bin still stays within the long range.
        const v = run('bin', [Number.MAX_SAFE_INTEGER * 1024, 10], { types: ['long', 'long'] }) as number;
        expect(Number.isFinite(v)).toBe(true);
        expect(Math.abs(v)).toBeLessThanOrEqual(2 ** 63);
    });
    it('abs(-9223372036854775808)', () => {
        expect(run('abs', [-(2 ** 63)], { types: ['long'] })).toBe(-(2 ** 63));
    });
    it("datetime_diff('nanosecond', datetime(2200-01-01), datetime(2000-01-01))", () => {
        // 200 years of nanoseconds (6.3e18) still fits in a long.
        const v = run('datetime_diff', ['nanosecond', dt('2200-01-01'), dt('2000-01-01')]) as number;
        expect(v).toBe(Number(parseDatetime('2200-01-01')! - parseDatetime('2000-01-01')!));
    });
    it("datetime_diff('nanosecond', datetime(2200-01-01), datetime(1700-01-01))", () => {
        // 500 years of nanoseconds (1.6e19) overflows a long and wraps, as KQL's long arithmetic does.
        const v = run('datetime_diff', ['nanosecond', dt('2200-01-01'), dt('1700-01-01')]) as number;
        expect(v).toBe(Number(BigInt.asIntN(64, parseDatetime('2200-01-01')! - parseDatetime('1700-01-01')!)));
        expect(v).toBeLessThan(0);
    });
});

// ---------------------------------------------------------------------------------------------

cases('rounding functions', [
    ['bin(datetime(2024-01-01T10:59:59Z), 1h)', 'bin', [dt('2024-01-01T10:59:59Z'), ts('1h')], '2024-01-01T10:00:00Z'],
    ['bin(datetime(2024-01-01T11:00:00Z), 1h)', 'bin', [dt('2024-01-01T11:00:00Z'), ts('1h')], '2024-01-01T11:00:00Z'],
    ['bin(datetime(2024-01-01T10:59:59.999999999Z), 1h)', 'bin', [dt('2024-01-01T10:59:59.999999999Z'), ts('1h')], '2024-01-01T10:00:00Z'],
    ['bin(datetime(1969-12-31T23:30:00Z), 1h)', 'bin', [dt('1969-12-31T23:30:00Z'), ts('1h')], '1969-12-31T23:00:00Z'],
    ['bin(datetime(2024-01-04T10:00:00Z), 7d)', 'bin', [dt('2024-01-04T10:00:00Z'), ts('7d')], '2024-01-04T00:00:00Z'],
    ['bin(datetime(2024-01-01), 0s)', 'bin', [dt('2024-01-01'), ts('0s')], null],
    ['bin(datetime(2024-01-01), -1h)', 'bin', [dt('2024-01-01'), ts('-1h')], null],
    ['bin(datetime(null), 1h)', 'bin', [null, ts('1h')], null, { types: ['datetime', 'timespan'] }],
    ['bin(90m, 1h)', 'bin', [ts('90m'), ts('1h')], span('1h')],
    ['bin(-90m, 1h)', 'bin', [ts('-90m'), ts('1h')], span('-2h')],
    ['bin(4.5, 1)', 'bin', [4.5, 1], 4],
    ['bin(7, 5)', 'bin', [7, 5], 5],
    ['bin(-7, 5)', 'bin', [-7, 5], -10],
    ['bin(10, 5)', 'bin', [10, 5], 10],
    ['bin(7, 2.5)', 'bin', [7, 2.5], 5],
    ['bin(-0.5, 0.25)', 'bin', [-0.5, 0.25], -0.5],
    ['bin(7, 0)', 'bin', [7, 0], null],
    ['bin(7, -5)', 'bin', [7, -5], null],
    ['bin(long(null), 5)', 'bin', [null, 5], null, { types: ['long', 'long'] }],
    [
        'bin_auto(datetime(2024-01-01T10:59:59Z)) over a 1h range',
        'bin_auto',
        [dt('2024-01-01T10:59:59Z')],
        '2024-01-01T10:59:00Z',
        { startTime: parseDatetime('2024-01-01T10:00:00Z'), endTime: parseDatetime('2024-01-01T11:00:00Z') },
    ],
    [
        'bin_auto(datetime(2024-01-01T10:59:59Z)) over a 7d range',
        'bin_auto',
        [dt('2024-01-01T10:59:59Z')],
        '2024-01-01T10:00:00Z',
        { startTime: parseDatetime('2023-12-26T00:00:00Z'), endTime: parseDatetime('2024-01-02T00:00:00Z') },
    ],
    ['bin_auto(datetime(2025-01-15T11:52:00Z)) without a range', 'bin_auto', [dt('2025-01-15T11:52:00Z')], '2025-01-15T11:45:00Z'],
    ['bin_auto(datetime(null))', 'bin_auto', [null], null, { types: ['datetime'] }],
    ['ceiling(4.2)', 'ceiling', [4.2], 5],
    ['ceiling(-4.2)', 'ceiling', [-4.2], -4],
    ['ceiling(7)', 'ceiling', [7], 7],
    ['ceiling(real(null))', 'ceiling', [null], null, { types: ['real'] }],
    ['floor(4.8)', 'floor', [4.8], 4],
    ['floor(-4.2)', 'floor', [-4.2], -5],
    ['floor(7)', 'floor', [7], 7],
]);

describe('bin_auto rule', () => {
    const H = 3_600_000_000_000n;
    const cases: Array<[string, bigint, string]> = [
        ['1m', 60_000_000_000n, '1s'],
        ['1h', H, '1m'],
        ['6h', 6n * H, '5m'],
        ['1d', 24n * H, '15m'],
        ['7d', 7n * 24n * H, '2h'],
        ['30d', 30n * 24n * H, '12h'],
        ['90d', 90n * 24n * H, '1d'],
        ['10y', 3650n * 24n * H, '60d'],
    ];
    for (const [label, width, expected] of cases) {
        it(`autoBinSize over ${label} is ${expected}`, () => {
            expect(autoBinSize(0n, width)).toBe(ts(expected).ns);
        });
    }
    it('an empty range gives the smallest size', () => expect(autoBinSize(5n, 5n)).toBe(1_000_000n));
    it('autoBinSizeFor falls back to the day before now', () => expect(autoBinSizeFor({ now: NOW })).toBe(ts('15m').ns));
});

// ---------------------------------------------------------------------------------------------

cases('datetime functions', [
    ['ago(1h)', 'ago', [ts('1h')], '2025-01-15T11:00:00Z'],
    ['ago(-1d)', 'ago', [ts('-1d')], '2025-01-16T12:00:00Z'],
    ['ago(timespan(null))', 'ago', [null], null, { types: ['timespan'] }],
    ['now()', 'now', [], '2025-01-15T12:00:00Z'],
    ['now(-2h)', 'now', [ts('-2h')], '2025-01-15T10:00:00Z'],
    ["datetime_add('month', 1, datetime(2024-01-31))", 'datetime_add', ['month', 1, dt('2024-01-31')], '2024-02-29T00:00:00Z'],
    ["datetime_add('month', 1, datetime(2023-01-31))", 'datetime_add', ['month', 1, dt('2023-01-31')], '2023-02-28T00:00:00Z'],
    ["datetime_add('month', -1, datetime(2024-03-31T10:00:00Z))", 'datetime_add', ['month', -1, dt('2024-03-31T10:00:00Z')], '2024-02-29T10:00:00Z'],
    ["datetime_add('year', 1, datetime(2024-02-29))", 'datetime_add', ['year', 1, dt('2024-02-29')], '2025-02-28T00:00:00Z'],
    ["datetime_add('quarter', 1, datetime(2024-11-30))", 'datetime_add', ['quarter', 1, dt('2024-11-30')], '2025-02-28T00:00:00Z'],
    ["datetime_add('week', 2, datetime(2024-12-25))", 'datetime_add', ['week', 2, dt('2024-12-25')], '2025-01-08T00:00:00Z'],
    ["datetime_add('day', -1, datetime(2024-03-01))", 'datetime_add', ['day', -1, dt('2024-03-01')], '2024-02-29T00:00:00Z'],
    ["datetime_add('hour', 25, datetime(2024-12-31T00:00:00Z))", 'datetime_add', ['hour', 25, dt('2024-12-31T00:00:00Z')], '2025-01-01T01:00:00Z'],
    ["datetime_add('Minute', 90, datetime(2024-01-01))", 'datetime_add', ['Minute', 90, dt('2024-01-01')], '2024-01-01T01:30:00Z'],
    ["datetime_add('second', 1, datetime(2024-01-01))", 'datetime_add', ['second', 1, dt('2024-01-01')], '2024-01-01T00:00:01Z'],
    ["datetime_add('millisecond', 5, datetime(2024-01-01))", 'datetime_add', ['millisecond', 5, dt('2024-01-01')], '2024-01-01T00:00:00.005Z'],
    ["datetime_add('microsecond', 7, datetime(2024-01-01))", 'datetime_add', ['microsecond', 7, dt('2024-01-01')], '2024-01-01T00:00:00.000007Z'],
    ["datetime_add('nanosecond', 1, datetime(2024-01-01))", 'datetime_add', ['nanosecond', 1, dt('2024-01-01')], '2024-01-01T00:00:00.000000001Z'],
    ["datetime_add('fortnight', 1, datetime(2024-01-01))", 'datetime_add', ['fortnight', 1, dt('2024-01-01')], null],
    ["datetime_add('day', long(null), datetime(2024-01-01))", 'datetime_add', ['day', null, dt('2024-01-01')], null, { types: ['string', 'long', 'datetime'] }],
    ["datetime_diff('year', datetime(2017-01-01), datetime(2000-12-31))", 'datetime_diff', ['year', dt('2017-01-01'), dt('2000-12-31')], 17],
    ["datetime_diff('quarter', datetime(2017-07-01), datetime(2017-03-30))", 'datetime_diff', ['quarter', dt('2017-07-01'), dt('2017-03-30')], 2],
    ["datetime_diff('month', datetime(2017-01-01), datetime(2015-12-30))", 'datetime_diff', ['month', dt('2017-01-01'), dt('2015-12-30')], 13],
    ["datetime_diff('week', datetime(2017-10-29 00:00), datetime(2017-09-30 23:59))", 'datetime_diff', ['week', dt('2017-10-29 00:00'), dt('2017-09-30 23:59')], 5],
    ["datetime_diff('day', datetime(2017-10-29 00:00), datetime(2017-09-30 23:59))", 'datetime_diff', ['day', dt('2017-10-29 00:00'), dt('2017-09-30 23:59')], 29],
    ["datetime_diff('hour', datetime(2017-10-31 01:00), datetime(2017-10-30 23:59))", 'datetime_diff', ['hour', dt('2017-10-31 01:00'), dt('2017-10-30 23:59')], 2],
    ["datetime_diff('minute', datetime(2017-10-30 23:05:01), datetime(2017-10-30 23:00:59))", 'datetime_diff', ['minute', dt('2017-10-30 23:05:01'), dt('2017-10-30 23:00:59')], 5],
    ["datetime_diff('second', datetime(2017-10-30 23:00:10.100), datetime(2017-10-30 23:00:00.900))", 'datetime_diff', ['second', dt('2017-10-30 23:00:10.100'), dt('2017-10-30 23:00:00.900')], 10],
    ["datetime_diff('millisecond', datetime(2017-10-30 23:00:00.200100), datetime(2017-10-30 23:00:00.100900))", 'datetime_diff', ['millisecond', dt('2017-10-30 23:00:00.200100'), dt('2017-10-30 23:00:00.100900')], 100],
    ["datetime_diff('microsecond', datetime(2017-10-30 23:00:00.1009001), datetime(2017-10-30 23:00:00.1008009))", 'datetime_diff', ['microsecond', dt('2017-10-30 23:00:00.1009001'), dt('2017-10-30 23:00:00.1008009')], 100],
    ["datetime_diff('nanosecond', datetime(2017-10-30 23:00:00.0000000), datetime(2017-10-30 23:00:00.0000007))", 'datetime_diff', ['nanosecond', dt('2017-10-30 23:00:00.0000000'), dt('2017-10-30 23:00:00.0000007')], -700],
    ["datetime_diff('Microsecond', datetime(1970-01-01T00:00:01Z), datetime(1970-01-01))", 'datetime_diff', ['Microsecond', dt('1970-01-01T00:00:01Z'), dt('1970-01-01')], 1_000_000],
    ["datetime_diff('day', datetime(1969-12-31T23:00:00Z), datetime(1970-01-01T01:00:00Z))", 'datetime_diff', ['day', dt('1969-12-31T23:00:00Z'), dt('1970-01-01T01:00:00Z')], -1],
    ["datetime_part('year', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['year', dt('2017-10-30 01:02:03.7654321')], 2017],
    ["datetime_part('quarter', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['quarter', dt('2017-10-30 01:02:03.7654321')], 4],
    ["datetime_part('month', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['month', dt('2017-10-30 01:02:03.7654321')], 10],
    ["datetime_part('week_of_year', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['week_of_year', dt('2017-10-30 01:02:03.7654321')], 44],
    ["datetime_part('day', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['day', dt('2017-10-30 01:02:03.7654321')], 30],
    ["datetime_part('dayOfYear', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['dayOfYear', dt('2017-10-30 01:02:03.7654321')], 303],
    ["datetime_part('hour', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['hour', dt('2017-10-30 01:02:03.7654321')], 1],
    ["datetime_part('minute', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['minute', dt('2017-10-30 01:02:03.7654321')], 2],
    ["datetime_part('second', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['second', dt('2017-10-30 01:02:03.7654321')], 3],
    ["datetime_part('millisecond', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['millisecond', dt('2017-10-30 01:02:03.7654321')], 765],
    ["datetime_part('microsecond', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['microsecond', dt('2017-10-30 01:02:03.7654321')], 765432],
    ["datetime_part('nanosecond', datetime(2017-10-30 01:02:03.7654321))", 'datetime_part', ['nanosecond', dt('2017-10-30 01:02:03.7654321')], 765432100],
    ["datetime_part('decade', datetime(2017-10-30))", 'datetime_part', ['decade', dt('2017-10-30')], null],
    ["datetime_part('hour', datetime(1969-12-31T22:15:00Z))", 'datetime_part', ['hour', dt('1969-12-31T22:15:00Z')], 22],
    ['dayofmonth(datetime(2024-02-29))', 'dayofmonth', [dt('2024-02-29')], 29],
    ['dayofweek(datetime(2025-01-12))', 'dayofweek', [dt('2025-01-12')], span('0d')],
    ['dayofweek(datetime(2025-01-15T23:59:59Z))', 'dayofweek', [dt('2025-01-15T23:59:59Z')], span('3d')],
    ['dayofweek(datetime(1969-12-27))', 'dayofweek', [dt('1969-12-27')], span('6d')],
    ['dayofyear(datetime(2024-12-31))', 'dayofyear', [dt('2024-12-31')], 366],
    ['dayofyear(datetime(2023-12-31))', 'dayofyear', [dt('2023-12-31')], 365],
    ['dayofyear(datetime(2024-03-01))', 'dayofyear', [dt('2024-03-01')], 61],
    ['endofday(datetime(2024-11-14T10:22:31Z))', 'endofday', [dt('2024-11-14T10:22:31Z')], '2024-11-14T23:59:59.9999999Z'],
    ['endofday(datetime(2024-11-14T10:22:31Z), -1)', 'endofday', [dt('2024-11-14T10:22:31Z'), -1], '2024-11-13T23:59:59.9999999Z'],
    ['endofmonth(datetime(2024-02-10))', 'endofmonth', [dt('2024-02-10')], '2024-02-29T23:59:59.9999999Z'],
    ['endofmonth(datetime(2023-02-10))', 'endofmonth', [dt('2023-02-10')], '2023-02-28T23:59:59.9999999Z'],
    ['endofmonth(datetime(2024-12-10), 1)', 'endofmonth', [dt('2024-12-10'), 1], '2025-01-31T23:59:59.9999999Z'],
    ['endofweek(datetime(2024-11-14T10:22:31Z))', 'endofweek', [dt('2024-11-14T10:22:31Z')], '2024-11-16T23:59:59.9999999Z'],
    ['endofweek(datetime(2024-11-16T23:59:59.99999999Z))', 'endofweek', [dt('2024-11-16T23:59:59.99999999Z')], '2024-11-16T23:59:59.9999999Z'],
    ['endofyear(datetime(2024-06-01))', 'endofyear', [dt('2024-06-01')], '2024-12-31T23:59:59.9999999Z'],
    ['endofyear(datetime(2024-06-01), -2)', 'endofyear', [dt('2024-06-01'), -2], '2022-12-31T23:59:59.9999999Z'],
    ['getmonth(datetime(2025-07-04))', 'getmonth', [dt('2025-07-04')], 7],
    ['getyear(datetime(1999-12-31T23:59:59Z))', 'getyear', [dt('1999-12-31T23:59:59Z')], 1999],
    ['getyear(datetime(1969-06-01))', 'getyear', [dt('1969-06-01')], 1969],
    ['hourofday(datetime(2025-07-04T18:30:00Z))', 'hourofday', [dt('2025-07-04T18:30:00Z')], 18],
    ['monthofyear(datetime(2025-12-31T23:59:59Z))', 'monthofyear', [dt('2025-12-31T23:59:59Z')], 12],
    ['startofday(datetime(2025-01-15T14:30:00Z))', 'startofday', [dt('2025-01-15T14:30:00Z')], '2025-01-15T00:00:00Z'],
    ['startofday(datetime(2025-01-15T14:30:00Z), 2)', 'startofday', [dt('2025-01-15T14:30:00Z'), 2], '2025-01-17T00:00:00Z'],
    ['startofday(datetime(1969-12-31T14:30:00Z))', 'startofday', [dt('1969-12-31T14:30:00Z')], '1969-12-31T00:00:00Z'],
    ['startofmonth(datetime(2024-02-29T14:30:00Z))', 'startofmonth', [dt('2024-02-29T14:30:00Z')], '2024-02-01T00:00:00Z'],
    ['startofmonth(datetime(2024-01-15), -1)', 'startofmonth', [dt('2024-01-15'), -1], '2023-12-01T00:00:00Z'],
    ['startofmonth(datetime(2024-01-15), 14)', 'startofmonth', [dt('2024-01-15'), 14], '2025-03-01T00:00:00Z'],
    ['startofweek(datetime(2025-01-15T10:22:31Z))', 'startofweek', [dt('2025-01-15T10:22:31Z')], '2025-01-12T00:00:00Z'],
    ['startofweek(datetime(2025-01-12T00:00:00Z))', 'startofweek', [dt('2025-01-12T00:00:00Z')], '2025-01-12T00:00:00Z'],
    ['startofweek(datetime(2025-01-11T23:59:59Z))', 'startofweek', [dt('2025-01-11T23:59:59Z')], '2025-01-05T00:00:00Z'],
    ['startofweek(datetime(2025-01-15), -1)', 'startofweek', [dt('2025-01-15'), -1], '2025-01-05T00:00:00Z'],
    ['startofyear(datetime(2024-06-01))', 'startofyear', [dt('2024-06-01')], '2024-01-01T00:00:00Z'],
    ['startofyear(datetime(2024-06-01), 1)', 'startofyear', [dt('2024-06-01'), 1], '2025-01-01T00:00:00Z'],
    ['startofyear(datetime(null))', 'startofyear', [null], null, { types: ['datetime'] }],
    ['unixtime_microseconds_todatetime(1747303762000000)', 'unixtime_microseconds_todatetime', [1747303762000000], '2025-05-15T10:09:22Z'],
    ['unixtime_milliseconds_todatetime(1747303762123)', 'unixtime_milliseconds_todatetime', [1747303762123], '2025-05-15T10:09:22.123Z'],
    ['unixtime_milliseconds_todatetime(-1)', 'unixtime_milliseconds_todatetime', [-1], '1969-12-31T23:59:59.999Z'],
    // eslint-disable-next-line no-loss-of-precision -- the number a JSON client would send, rounded as JS rounds it
    ['unixtime_nanoseconds_todatetime(1747303762000000001)', 'unixtime_nanoseconds_todatetime', [1747303762000000001], formatDatetime(BigInt(1747303762000000001))],
    ['unixtime_seconds_todatetime(1747303762)', 'unixtime_seconds_todatetime', [1747303762], '2025-05-15T10:09:22Z'],
    ['unixtime_seconds_todatetime(1.5)', 'unixtime_seconds_todatetime', [1.5], '1970-01-01T00:00:01.5Z'],
    ['unixtime_seconds_todatetime(-1.5)', 'unixtime_seconds_todatetime', [-1.5], '1969-12-31T23:59:58.5Z'],
    ['unixtime_seconds_todatetime(long(null))', 'unixtime_seconds_todatetime', [null], null, { types: ['long'] }],
    ['week_of_year(datetime(2015-12-14))', 'week_of_year', [dt('2015-12-14')], 51],
    ['week_of_year(datetime(2000-01-01))', 'week_of_year', [dt('2000-01-01')], 52],
    ['week_of_year(datetime(2018-12-31))', 'week_of_year', [dt('2018-12-31')], 1],
    ['week_of_year(datetime(2020-12-31))', 'week_of_year', [dt('2020-12-31')], 53],
    ['week_of_year(datetime(2021-01-03))', 'week_of_year', [dt('2021-01-03')], 53],
    ['week_of_year(datetime(2021-01-04))', 'week_of_year', [dt('2021-01-04')], 1],
]);

describe('calendar helpers', () => {
    it('civil dates round-trip across four centuries', () => {
        for (let d = daysFromCivil(1600, 1, 1); d < daysFromCivil(2400, 12, 31); d += 37) {
            const c = civilFromDays(d);
            expect(daysFromCivil(c.year, c.month, c.day)).toBe(d);
        }
        expect(civilFromDays(0)).toEqual({ year: 1970, month: 1, day: 1 });
        expect(civilFromDays(daysFromCivil(2000, 2, 29))).toEqual({ year: 2000, month: 2, day: 29 });
        expect(civilFromDays(daysFromCivil(1900, 3, 1) - 1)).toEqual({ year: 1900, month: 2, day: 28 });
    });
    it('agrees with Date.UTC for whole days', () => {
        for (const [y, m, d] of [[1970, 1, 1], [2024, 2, 29], [1969, 7, 20], [2100, 12, 31], [1601, 1, 1]]) {
            expect(daysFromCivil(y, m, d)).toBe(Date.UTC(y, m - 1, d) / 86_400_000);
        }
    });
    it('addMonths clamps to month ends', () => {
        expect(formatDatetime(addMonths(parseDatetime('2024-08-31T05:06:07.123456789Z')!, 1))).toBe('2024-09-30T05:06:07.123456789Z');
        expect(formatDatetime(addMonths(parseDatetime('2024-02-29')!, -12))).toBe('2023-02-28T00:00:00Z');
    });
    it('isoWeek gives the ISO year at year edges', () => {
        expect(isoWeek(parseDatetime('2024-12-30')!)).toEqual({ isoYear: 2025, week: 1 });
        expect(isoWeek(parseDatetime('2027-01-01')!)).toEqual({ isoYear: 2026, week: 53 });
    });
});

// ---------------------------------------------------------------------------------------------

cases('IP functions', [
    ["format_ipv4('192.168.1.255', 24)", 'format_ipv4', ['192.168.1.255', 24], '192.168.1.0'],
    ["format_ipv4('192.168.1.1')", 'format_ipv4', ['192.168.1.1'], '192.168.1.1'],
    ['format_ipv4(3232236031)', 'format_ipv4', [3232236031], '192.168.1.255'],
    ["format_ipv4('192.168.1.256')", 'format_ipv4', ['192.168.1.256'], ''],
    ['format_ipv4(-1)', 'format_ipv4', [-1], ''],
    ["format_ipv4_mask('192.168.1.54', 24)", 'format_ipv4_mask', ['192.168.1.54', 24], '192.168.1.0/24'],
    ["format_ipv4_mask('10.1.2.3/8', 24)", 'format_ipv4_mask', ['10.1.2.3/8', 24], '10.0.0.0/8'],
    ["format_ipv4_mask('192.168.1.54', 33)", 'format_ipv4_mask', ['192.168.1.54', 33], ''],
    ["has_any_ipv4('Client 10.0.0.5 connected', dynamic(['10.0.0.5', '192.168.1.1']))", 'has_any_ipv4', ['Client 10.0.0.5 connected', ['10.0.0.5', '192.168.1.1']], true],
    ["has_any_ipv4('192.168.1.1', dynamic(['192.168.1.1', '192.168.0.0/16']))", 'has_any_ipv4', ['192.168.1.1', ['192.168.1.1', '192.168.0.0/16']], true],
    ["has_any_ipv4('from 192.168.9.9', dynamic(['192.168.0.0/16']))", 'has_any_ipv4', ['from 192.168.9.9', ['192.168.0.0/16']], true],
    ["has_any_ipv4('Client 10.0.0.55', '10.0.0.5', '10.0.0.6')", 'has_any_ipv4', ['Client 10.0.0.55', '10.0.0.5', '10.0.0.6'], false],
    ["has_any_ipv4_prefix('from 10.1.2.3', dynamic(['10.', '172.16.']))", 'has_any_ipv4_prefix', ['from 10.1.2.3', ['10.', '172.16.']], true],
    ["has_any_ipv4_prefix('from 110.1.2.3', dynamic(['10.']))", 'has_any_ipv4_prefix', ['from 110.1.2.3', ['10.']], false],
    ["has_ipv4('Requests from: 192.168.1.1, 10.1.1.115.', '192.168.1.1')", 'has_ipv4', ['Requests from: 192.168.1.1, 10.1.1.115.', '192.168.1.1'], true],
    ["has_ipv4('Requests from: 192.168.1.1, 10.1.1.115.', '10.1.1.115')", 'has_ipv4', ['Requests from: 192.168.1.1, 10.1.1.115.', '10.1.1.115'], true],
    ["has_ipv4('05:04:54 127.0.0.1 GET /favicon.ico 404', '127.0.0.1')", 'has_ipv4', ['05:04:54 127.0.0.1 GET /favicon.ico 404', '127.0.0.1'], true],
    ["has_ipv4('05:04:54127.0.0.1 GET', '127.0.0.1')", 'has_ipv4', ['05:04:54127.0.0.1 GET', '127.0.0.1'], false],
    ["has_ipv4('ip=127.0.0.1.1', '127.0.0.1')", 'has_ipv4', ['ip=127.0.0.1.1', '127.0.0.1'], false],
    ["has_ipv4('host_127.0.0.1_x', '127.0.0.1')", 'has_ipv4', ['host_127.0.0.1_x', '127.0.0.1'], true],
    ["has_ipv4('abc127.0.0.1', '127.0.0.1')", 'has_ipv4', ['abc127.0.0.1', '127.0.0.1'], false],
    ["has_ipv4('05:04:54 127.0.0.256 GET', '127.0.0.256')", 'has_ipv4', ['05:04:54 127.0.0.256 GET', '127.0.0.256'], false],
    ["has_ipv4_prefix('from 192.168.0.1', '192.168.')", 'has_ipv4_prefix', ['from 192.168.0.1', '192.168.'], true],
    ["has_ipv4_prefix('192.168.0.1', '192.168.')", 'has_ipv4_prefix', ['192.168.0.1', '192.168.'], true],
    ["has_ipv4_prefix('from 192.168.0.1', '192.16')", 'has_ipv4_prefix', ['from 192.168.0.1', '192.16'], false],
    ["has_ipv4_prefix('from 192.168.0.1', '192.168.0.1')", 'has_ipv4_prefix', ['from 192.168.0.1', '192.168.0.1'], true],
    ["ipv4_compare('192.168.1.1', '192.168.1.255')", 'ipv4_compare', ['192.168.1.1', '192.168.1.255'], -1],
    ["ipv4_compare('192.168.1.255', '192.168.1.1')", 'ipv4_compare', ['192.168.1.255', '192.168.1.1'], 1],
    ["ipv4_compare('192.168.1.1', '192.168.1.255', 24)", 'ipv4_compare', ['192.168.1.1', '192.168.1.255', 24], 0],
    ["ipv4_compare('192.168.1.1/24', '192.168.1.255')", 'ipv4_compare', ['192.168.1.1/24', '192.168.1.255'], 0],
    ["ipv4_compare('192.168.1.1', 'banana')", 'ipv4_compare', ['192.168.1.1', 'banana'], null],
    ["ipv4_is_in_any_range('10.1.2.3', dynamic(['10.0.0.0/8', '192.168.0.0/16']))", 'ipv4_is_in_any_range', ['10.1.2.3', ['10.0.0.0/8', '192.168.0.0/16']], true],
    ["ipv4_is_in_any_range('8.8.8.8', '10.0.0.0/8', '192.168.0.0/16')", 'ipv4_is_in_any_range', ['8.8.8.8', '10.0.0.0/8', '192.168.0.0/16'], false],
    ["ipv4_is_in_any_range('8.8.8.8', dynamic(['10.0.0.0/99']))", 'ipv4_is_in_any_range', ['8.8.8.8', ['10.0.0.0/99']], null],
    ["ipv4_is_in_range('192.168.1.6', '192.168.1.0/24')", 'ipv4_is_in_range', ['192.168.1.6', '192.168.1.0/24'], true],
    ["ipv4_is_in_range('192.168.2.6', '192.168.1.0/24')", 'ipv4_is_in_range', ['192.168.2.6', '192.168.1.0/24'], false],
    ["ipv4_is_in_range('10.0.0.1', '10.0.0.1')", 'ipv4_is_in_range', ['10.0.0.1', '10.0.0.1'], true],
    ["ipv4_is_in_range('0.0.0.1', '0.0.0.0/0')", 'ipv4_is_in_range', ['0.0.0.1', '0.0.0.0/0'], true],
    ["ipv4_is_in_range('10.0.0', '10.0.0.0/8')", 'ipv4_is_in_range', ['10.0.0', '10.0.0.0/8'], null],
    ["ipv4_is_match('203.0.113.112', '203.0.113.112')", 'ipv4_is_match', ['203.0.113.112', '203.0.113.112'], true],
    ["ipv4_is_match('192.168.1.1', '192.168.1.255', 24)", 'ipv4_is_match', ['192.168.1.1', '192.168.1.255', 24], true],
    ["ipv4_is_match('192.168.1.1', '192.168.1.255')", 'ipv4_is_match', ['192.168.1.1', '192.168.1.255'], false],
    ["ipv4_is_private('192.168.0.1')", 'ipv4_is_private', ['192.168.0.1'], true],
    ["ipv4_is_private('172.31.255.255')", 'ipv4_is_private', ['172.31.255.255'], true],
    ["ipv4_is_private('172.32.0.1')", 'ipv4_is_private', ['172.32.0.1'], false],
    ["ipv4_is_private('10.1.2.3/24')", 'ipv4_is_private', ['10.1.2.3/24'], true],
    ["ipv4_is_private('10.1.2.3/7')", 'ipv4_is_private', ['10.1.2.3/7'], false],
    ["ipv4_is_private('8.8.8.8')", 'ipv4_is_private', ['8.8.8.8'], false],
    ["ipv4_is_private('not an ip')", 'ipv4_is_private', ['not an ip'], null],
    ["ipv4_netmask_suffix('192.168.1.1/24')", 'ipv4_netmask_suffix', ['192.168.1.1/24'], 24],
    ["ipv4_netmask_suffix('192.168.1.1')", 'ipv4_netmask_suffix', ['192.168.1.1'], 32],
    ["ipv4_netmask_suffix('192.168.1.1/33')", 'ipv4_netmask_suffix', ['192.168.1.1/33'], null],
    ["ipv6_compare('2001:db8::1', '2001:db8::abcd')", 'ipv6_compare', ['2001:db8::1', '2001:db8::abcd'], -1],
    ["ipv6_compare('2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001')", 'ipv6_compare', ['2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001'], 0],
    ["ipv6_compare('2001:db8::1', '2001:db8::ffff', 112)", 'ipv6_compare', ['2001:db8::1', '2001:db8::ffff', 112], 0],
    ["ipv6_compare('::ffff:192.168.1.1', '192.168.1.1')", 'ipv6_compare', ['::ffff:192.168.1.1', '192.168.1.1'], 0],
    ["ipv6_compare('2001:db8::1', '2001:db8:::1')", 'ipv6_compare', ['2001:db8::1', '2001:db8:::1'], null],
    ["ipv6_is_in_any_range('2001:db8:1::5', dynamic(['2001:db8::/32', 'fd00::/8']))", 'ipv6_is_in_any_range', ['2001:db8:1::5', ['2001:db8::/32', 'fd00::/8']], true],
    ["ipv6_is_in_any_range('2001:db9::5', '2001:db8::/32', 'fd00::/8')", 'ipv6_is_in_any_range', ['2001:db9::5', '2001:db8::/32', 'fd00::/8'], false],
    ["ipv6_is_in_range('2001:db8:abcd::1', '2001:db8::/32')", 'ipv6_is_in_range', ['2001:db8:abcd::1', '2001:db8::/32'], true],
    ["ipv6_is_in_range('fe80::1', '2001:db8::/32')", 'ipv6_is_in_range', ['fe80::1', '2001:db8::/32'], false],
    ["ipv6_is_in_range('10.1.2.3', '::ffff:10.0.0.0/104')", 'ipv6_is_in_range', ['10.1.2.3', '::ffff:10.0.0.0/104'], true],
    ["ipv6_is_match('2001:db8:abcd::1', '2001:db8::/32')", 'ipv6_is_match', ['2001:db8:abcd::1', '2001:db8::/32'], true],
    ["ipv6_is_match('::1', '::2')", 'ipv6_is_match', ['::1', '::2'], false],
    ["ipv6_is_match('::1', '::2', 120)", 'ipv6_is_match', ['::1', '::2', 120], true],
    ["parse_ipv4('192.168.1.1')", 'parse_ipv4', ['192.168.1.1'], 3232235777],
    ["parse_ipv4('255.255.255.255')", 'parse_ipv4', ['255.255.255.255'], 4294967295],
    ["parse_ipv4('192.168.1.1/24')", 'parse_ipv4', ['192.168.1.1/24'], 3232235776],
    ["parse_ipv4('1.2.3')", 'parse_ipv4', ['1.2.3'], null],
    ["parse_ipv4(' 10.0.0.1 ')", 'parse_ipv4', [' 10.0.0.1 '], 167772161],
    ['parse_ipv4(string(null))', 'parse_ipv4', [null], null, { types: ['string'] }],
    ["parse_ipv4_mask('192.168.0.1', 24)", 'parse_ipv4_mask', ['192.168.0.1', 24], 3232235520],
    ["parse_ipv4_mask('192.168.0.1', 0)", 'parse_ipv4_mask', ['192.168.0.1', 0], 0],
    ["parse_ipv4_mask('192.168.0.1', 40)", 'parse_ipv4_mask', ['192.168.0.1', 40], null],
]);

describe('IP parsing', () => {
    it('parses IPv6 forms', () => {
        expect(parseIpv6('::')?.addr).toBe(0n);
        expect(parseIpv6('::1')?.addr).toBe(1n);
        expect(parseIpv6('1::')?.addr).toBe(1n << 112n);
        expect(parseIpv6('fe80::1:2')?.addr).toBe((0xfe80n << 112n) | (1n << 16n) | 2n);
        expect(parseIpv6('::ffff:1.2.3.4')?.addr).toBe(0xffff01020304n);
        expect(parseIpv6('::1.2.3.4')?.addr).toBe(0x01020304n);
        expect(parseIpv6('1:2:3:4:5:6:7.8.9.10')?.addr).toBe(0x0001000200030004000500060708090an);
        expect(parseIpv6('2001:db8::/32')?.prefix).toBe(32);
        expect(parseIpv6('10.0.0.0/8')).toEqual({ addr: 0xffff0a000000n, prefix: 104 });
        for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', ':::', '2001:db8::/129', '1:2:3:4:5:6:7']) {
            expect(parseIpv6(bad), bad).toBeUndefined();
        }
    });
    it('parses IPv4 strictly', () => {
        expect(parseIpv4('0.0.0.0')).toEqual({ addr: 0, prefix: 32 });
        for (const bad of ['1.2.3.4.5', '256.1.1.1', '1.2.3.-4', '1.2.3.4/', 'a.b.c.d', '']) expect(parseIpv4(bad), bad).toBeUndefined();
    });
});

// ---------------------------------------------------------------------------------------------

const toolCalls: JsonValue[] = [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];
const conversation: JsonValue[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: toolCalls },
    { role: 'tool', tool_call_id: 'c1', content: '{"temperature": 21}' },
    { role: 'assistant', content: 'It is 21 degrees.' },
    { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
];
const noTools: JsonValue[] = [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello' },
];

cases('GenAI functions', [
    ["genai_concat_contents(messages, ' / ')", 'genai_concat_contents', [noTools, ' / '], 'Hi / Hello'],
    ['genai_concat_contents(messages)', 'genai_concat_contents', [noTools], 'Hi Hello'],
    ['genai_concat_contents(dynamic([]))', 'genai_concat_contents', [[]], ''],
    ['genai_concat_contents(dynamic(null))', 'genai_concat_contents', [null], null, { types: ['dynamic'] }],
    ["genai_concat_contents('[{\"role\":\"user\",\"content\":\"Hi\"}]')", 'genai_concat_contents', ['[{"role":"user","content":"Hi"}]'], 'Hi', { types: ['dynamic'] }],
    ['genai_conversation_turns(messages)', 'genai_conversation_turns', [conversation], 1],
    ['genai_conversation_turns(dynamic([user, assistant, user, assistant]))', 'genai_conversation_turns', [[...noTools, ...noTools]], 2],
    ["genai_cost('gpt-4o', 1000000, 1000000)", 'genai_cost', ['gpt-4o', 1_000_000, 1_000_000], 12.5],
    ["genai_cost('gpt-4o-2024-08-06', 1000, 500)", 'genai_cost', ['gpt-4o-2024-08-06', 1000, 500], 0.0075],
    ["genai_cost('my-private-model', 1000, 500)", 'genai_cost', ['my-private-model', 1000, 500], null],
    ["genai_cost('gpt-4', long(null), 5)", 'genai_cost', ['gpt-4', null, 5], null, { types: ['string', 'long', 'long'] }],
    ["genai_estimate_tokens('How do I reset my password?')", 'genai_estimate_tokens', ['How do I reset my password?'], 7],
    ["genai_estimate_tokens('')", 'genai_estimate_tokens', [''], 0],
    ["genai_estimate_tokens('abcd')", 'genai_estimate_tokens', ['abcd'], 1],
    ['genai_extract_assistant_response(messages)', 'genai_extract_assistant_response', [conversation], 'It is 21 degrees.'],
    ["genai_extract_assistant_response(dynamic([{'role':'user','content':'Hi'}]))", 'genai_extract_assistant_response', [[{ role: 'user', content: 'Hi' }]], ''],
    ['genai_extract_function_results(messages)', 'genai_extract_function_results', [conversation], [{ temperature: 21 }]],
    ['genai_extract_function_results(no_tools)', 'genai_extract_function_results', [noTools], null],
    ['genai_extract_system_prompt(messages)', 'genai_extract_system_prompt', [conversation], 'You are a helpful assistant.'],
    ['genai_extract_system_prompt(no_tools)', 'genai_extract_system_prompt', [noTools], ''],
    ['genai_extract_tool_calls(messages)', 'genai_extract_tool_calls', [conversation], toolCalls],
    ['genai_extract_tool_calls(no_tools)', 'genai_extract_tool_calls', [noTools], null],
    ['genai_extract_user_prompt(messages)', 'genai_extract_user_prompt', [conversation], 'Thanks!'],
    ['genai_get_content_by_index(messages, 1)', 'genai_get_content_by_index', [conversation, 1], 'What is the weather in Paris?'],
    ['genai_get_content_by_index(messages, -1)', 'genai_get_content_by_index', [conversation, -1], 'Thanks!'],
    ['genai_get_content_by_index(messages, 99)', 'genai_get_content_by_index', [conversation, 99], ''],
    ["genai_get_content_by_role(messages, 'assistant')", 'genai_get_content_by_role', [conversation, 'assistant'], ''],
    ["genai_get_content_by_role(messages, 'system')", 'genai_get_content_by_role', [conversation, 'system'], 'You are a helpful assistant.'],
    ["genai_get_content_by_role(messages, 'critic')", 'genai_get_content_by_role', [conversation, 'critic'], ''],
    ["genai_get_pricing('gpt-4')", 'genai_get_pricing', ['gpt-4'], { input_price_per_million: 30, output_price_per_million: 60 }],
    ["genai_get_pricing('anthropic/claude-3-5-sonnet-20241022')", 'genai_get_pricing', ['anthropic/claude-3-5-sonnet-20241022'], { input_price_per_million: 3, output_price_per_million: 15 }],
    ["genai_get_pricing('unknown-model')", 'genai_get_pricing', ['unknown-model'], null],
    ['genai_get_role(messages, 0)', 'genai_get_role', [conversation, 0], 'system'],
    ['genai_get_role(messages, 3)', 'genai_get_role', [conversation, 3], 'tool'],
    ['genai_get_role(messages, 6)', 'genai_get_role', [conversation, 6], ''],
    ['genai_has_tool_calls(messages)', 'genai_has_tool_calls', [conversation], true],
    ['genai_has_tool_calls(no_tools)', 'genai_has_tool_calls', [noTools], false],
    ["genai_input_cost('gpt-4', 1000)", 'genai_input_cost', ['gpt-4', 1000], 0.03],
    ["genai_input_cost('nope', 1000)", 'genai_input_cost', ['nope', 1000], null],
    ["genai_is_truncated(messages, 'length')", 'genai_is_truncated', [conversation, 'length'], true],
    ["genai_is_truncated(messages, 'stop')", 'genai_is_truncated', [conversation, 'stop'], false],
    ["genai_is_truncated(messages, dynamic(['max_tokens']))", 'genai_is_truncated', [conversation, ['max_tokens']], true],
    ["genai_is_truncated(messages, '[\"stop\"]')", 'genai_is_truncated', [conversation, '["stop"]'], false],
    [
        'genai_is_truncated(dynamic([{"role":"assistant","content":"…","finish_reason":"length"}]), string(null))',
        'genai_is_truncated',
        [[{ role: 'assistant', content: '…', finish_reason: 'length' }], null],
        true,
        { types: ['dynamic', 'string'] },
    ],
    ['genai_message_roles(messages)', 'genai_message_roles', [conversation], ['system', 'user', 'assistant', 'tool', 'assistant', 'user']],
    ["genai_message_roles('not json')", 'genai_message_roles', ['not json'], null],
    ["genai_output_cost('gpt-4', 1000)", 'genai_output_cost', ['gpt-4', 1000], 0.06],
    ["genai_output_cost('claude-3-opus-20240229', 2000000)", 'genai_output_cost', ['claude-3-opus-20240229', 2_000_000], 150],
]);

describe('GenAI pricing lookup', () => {
    it('normalises snapshot suffixes', () => {
        expect(lookupModelPricing('GPT-4-0613')).toEqual({ input: 30, output: 60 });
        expect(lookupModelPricing('gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
        expect(lookupModelPricing('claude-3-5-haiku-latest')).toEqual({ input: 0.8, output: 4 });
        expect(lookupModelPricing('gpt-5-ultra')).toBeUndefined();
    });
});
