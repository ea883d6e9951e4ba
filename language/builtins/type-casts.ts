/**
 * Type names called like functions: typed nulls (`long(null)`, docs `null-values.mdx`) and casts
 * (`int(5)`, `real('1.5')`). Not function pages of the docs, so kept apart from functions-text;
 * the checker, completion, hover and the evaluator read them from the catalogue like any function.
 */
import type { AplScalarType } from '../types/apl-types.js';
import { Datetime, Timespan, type AplValue } from '../values.js';
import type { ScalarFunction } from './catalogue-types.js';
import { p, toText } from './functions-text-helpers.js';

/**
 * The typed-literal casts `long(x)`, `int(null)`, `real('1.5')`, `timespan(x)`: looser than the
 * `to*` functions (strings are trimmed; bools take only `true`/`false`/`1`/`0`, any case). The
 * evaluator also converts query parameters and `datatable` cells with it.
 */
export function castToType(v: AplValue, t: AplScalarType): AplValue {
    if (v === null || v === undefined) return null;
    switch (t) {
        case 'long': {
            if (typeof v === 'number') return Math.trunc(v);
            if (typeof v === 'boolean') return v ? 1 : 0;
            if (typeof v === 'string') return /^[+-]?\d+$/.test(v.trim()) ? Number(v.trim()) : null;
            if (v instanceof Datetime || v instanceof Timespan) return Number(v.ns);
            return null;
        }
        case 'real': {
            if (typeof v === 'number') return v;
            if (typeof v === 'boolean') return v ? 1 : 0;
            if (typeof v === 'string') {
                const x = Number(v.trim());
                return v.trim() === '' || Number.isNaN(x) ? null : x;
            }
            if (v instanceof Datetime || v instanceof Timespan) return Number(v.ns);
            return null;
        }
        case 'bool':
            if (typeof v === 'boolean') return v;
            if (typeof v === 'number') return v !== 0;
            if (typeof v === 'string') return /^(true|1)$/i.test(v) ? true : /^(false|0)$/i.test(v) ? false : null;
            return null;
        case 'timespan':
            if (v instanceof Timespan) return v;
            if (typeof v === 'number') return new Timespan(BigInt(Math.trunc(v)));
            return null;
        case 'string':
            return toText(v);
        default:
            return v;
    }
}

function typeCast(type: 'long' | 'real' | 'bool' | 'timespan' | 'string', aliases: string[], description: string, example: string): ScalarFunction {
    return {
        kind: 'scalar',
        category: 'literal',
        name: type,
        ...(aliases.length > 0 ? { aliases } : {}),
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: type,
        description,
        example,
        evaluate: ([v]) => castToType(v, type),
    };
}

/**
 * `datetime(...)`, `date(...)` and `dynamic(...)` are literals of the grammar instead. KQL's `guid`
 * type and `guid(...)` are not APL (inventory §2.8, §10), so they are not here.
 */
export const TYPE_CAST_FUNCTIONS: ScalarFunction[] = [
    typeCast('long', ['int', 'int64', 'int32'], 'The value as a `long` (a typed literal such as `long(null)` or `int(5)`): reals truncate, bools are 1/0, strings must be decimal digits; anything else gives null.', 'print n = long(null), m = int(5)'),
    typeCast('real', ['double', 'float', 'decimal'], 'The value as a `real` (a typed literal such as `real(null)` or `double(1.5)`): strings are read as numbers, bools are 1/0; anything else gives null.', 'print r = real(null), s = double(1.5)'),
    typeCast('bool', ['boolean'], 'The value as a `bool` (a typed literal such as `bool(null)`): non-zero numbers are true, the strings `true`/`false`/`1`/`0` (any case) convert; anything else gives null.', 'print b = bool(null), c = bool(true)'),
    typeCast('timespan', ['time'], 'The value as a `timespan` (a typed literal such as `timespan(null)` or `time(2d)`): numbers are nanoseconds; anything else gives null.', 'print t = timespan(null), u = time(2d)'),
    typeCast('string', [], 'The value as a `string` (a typed literal such as `string(null)`); the same text as `tostring`.', "print s = string(null), t = string('a')"),
];
