/**
 * Conversion (12 entries, 14 names with `toreal`/`tolong`), hash (5), type-check (6),
 * conditional (2), metadata (3) and pair (3) functions.
 *
 * The conversions follow Axiom's Go runtime (inventory §6 "Conversion semantics", §7.13), not
 * .NET KQL: `toint` takes only strict decimal digits, `tobool` takes Go's `ParseBool` words,
 * `tostring` prints timespans as `1m20s` and datetimes as RFC 3339 with nanoseconds, and numbers
 * convert to datetimes/timespans as nanoseconds.
 */
import { createHash } from 'node:crypto';
import type { AplType } from '../types/apl-types.js';
import {
    Datetime,
    NS_PER_DAY,
    NS_PER_HOUR,
    NS_PER_MINUTE,
    NS_PER_SECOND,
    Timespan,
    parseDatetime,
    parseGoDuration,
    parseTimespanLiteral,
    type AplValue,
    type JsonValue,
} from '../values.js';
import type { ScalarCategory, ScalarFunction } from './catalogue-types.js';
import { canonicalJson, compileGlob, int, isBag, opt, p, toJsonValue, toText, typeOfArg } from './functions-text-helpers.js';
import { toDynamicValue } from './functions-text-string.js';

function fn(category: ScalarCategory, e: Omit<ScalarFunction, 'kind' | 'category'>): ScalarFunction {
    return { kind: 'scalar', category, ...e };
}

// ---------------------------------------------------------------------------------------------
// Conversions (exported: the evaluator's casts and other catalogue files may reuse them)
// ---------------------------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function inInt64(b: bigint): boolean {
    return b >= INT64_MIN && b <= INT64_MAX;
}

/** `toint`/`tolong`: reals truncate, bools are 1/0, datetimes and timespans give nanoseconds, strings must be `[+-]digits`. */
export function convertToLong(v: AplValue): number | null {
    if (v === null) return null;
    if (typeof v === 'number') {
        if (!Number.isFinite(v)) return null;
        const t = Math.trunc(v);
        return inInt64(BigInt(t)) ? t + 0 : null;
    }
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v instanceof Datetime || v instanceof Timespan) return Number(v.ns);
    if (typeof v === 'string') {
        if (!/^[+-]?\d+$/.test(v)) return null;
        const b = BigInt(v);
        return inInt64(b) ? Number(b) : null;
    }
    return null;
}

const GO_FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** `todouble`/`toreal`: strings are read as Go float literals (`1e3`, `-Inf`, `NaN`), datetimes/timespans give nanoseconds. */
export function convertToReal(v: AplValue): number | null {
    if (v === null) return null;
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v instanceof Datetime || v instanceof Timespan) return Number(v.ns);
    if (typeof v === 'string') {
        if (!GO_FLOAT.test(v)) return null;
        const body = v.replace(/^[+-]/, '').toLowerCase();
        const neg = v.startsWith('-');
        if (body === 'nan') return NaN;
        if (body === 'inf' || body === 'infinity') return neg ? -Infinity : Infinity;
        const n = Number(v);
        // Go reports an out-of-range error instead of an infinity.
        return Number.isFinite(n) ? n : null;
    }
    return null;
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** `tobool`: non-zero numbers/timespans and non-epoch datetimes are true; strings use Go's `ParseBool` words, others give null. */
export function convertToBool(v: AplValue): boolean | null {
    if (v === null) return null;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isNaN(v) ? null : v !== 0;
    if (v instanceof Datetime || v instanceof Timespan) return v.ns !== 0n;
    if (typeof v === 'string') return GO_TRUE.has(v) ? true : GO_FALSE.has(v) ? false : null;
    return null;
}

/** `todatetime`: numbers are nanoseconds since the epoch; strings are parsed leniently (RFC 3339, ISO 8601, RFC 1123, ...). */
export function convertToDatetime(v: AplValue): Datetime | null {
    if (v === null) return null;
    if (v instanceof Datetime) return v;
    if (typeof v === 'number') return Number.isFinite(v) ? new Datetime(BigInt(Math.trunc(v))) : null;
    if (typeof v === 'string') {
        const ns = parseDatetime(v);
        return ns === undefined ? null : new Datetime(ns);
    }
    return null;
}

/** KQL's `[-][d.]hh:mm[:ss[.fffffff]]` form. */
function parseClockTimespan(s: string): bigint | undefined {
    const m = /^(-)?(?:(\d+)\.)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s.trim());
    if (!m) return undefined;
    const [, neg, d = '0', h, mi, sec = '0', frac = ''] = m;
    const ns = BigInt(d) * NS_PER_DAY + BigInt(h) * NS_PER_HOUR + BigInt(mi) * NS_PER_MINUTE + BigInt(sec) * NS_PER_SECOND + BigInt(frac.padEnd(9, '0') || '0');
    return neg ? -ns : ns;
}

/** `totimespan`: numbers are nanoseconds; strings use Go duration syntax (`1h30m`), also `1d` and `d.hh:mm:ss`. */
export function convertToTimespan(v: AplValue): Timespan | null {
    if (v === null) return null;
    if (v instanceof Timespan) return v;
    if (typeof v === 'number') return Number.isFinite(v) ? new Timespan(BigInt(Math.trunc(v))) : null;
    if (typeof v === 'string') {
        const ns = parseGoDuration(v) ?? parseTimespanLiteral(v) ?? parseClockTimespan(v);
        return ns === undefined ? null : new Timespan(ns);
    }
    return null;
}

// ---------------------------------------------------------------------------------------------
// Hash helpers
// ---------------------------------------------------------------------------------------------

function digest(algorithm: string, v: AplValue): string | null {
    if (v === null) return null;
    return createHash(algorithm).update(toText(v), 'utf8').digest('hex');
}

/**
 * `hash()`: the first 8 bytes of SHA-256 over the value's text (and the salt), read big-endian
 * and reduced to a signed 53-bit integer so that it is exact as a JS number.
 */
function hash64(v: AplValue, salt: AplValue | undefined): number | null {
    if (v === null) return null;
    const h = createHash('sha256').update(toText(v), 'utf8');
    if (salt !== undefined && salt !== null) h.update(`\u0000${toText(salt)}`, 'utf8');
    const bytes = h.digest();
    return Number(BigInt.asIntN(53, bytes.readBigUInt64BE(0)));
}

// ---------------------------------------------------------------------------------------------
// Type checks
// ---------------------------------------------------------------------------------------------

function luhn(digits: string): boolean {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
        let d = digits.charCodeAt(digits.length - 1 - i) - 48;
        if (i % 2 === 1) {
            d *= 2;
            if (d > 9) d -= 9;
        }
        sum += d;
    }
    return sum % 10 === 0;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function digitsOf(v: AplValue): string | null {
    if (v === null) return null;
    const s = toText(v).replace(/[\s-]/g, '');
    return /^\d+$/.test(s) ? s : null;
}

// ---------------------------------------------------------------------------------------------
// Pairs
// ---------------------------------------------------------------------------------------------

function splitPair(s: string, separator: string): { [key: string]: JsonValue } {
    const at = separator === '' ? -1 : s.indexOf(separator);
    if (at < 0) return { key: s, separator: '', value: '' };
    return { key: s.slice(0, at), separator, value: s.slice(at + separator.length) };
}

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

function caseResultType(argTypes: readonly AplType[]): AplType {
    const n = argTypes.length;
    for (let i = 1; i < n - 1; i += 2) {
        if (argTypes[i] !== 'unknown') return argTypes[i];
    }
    return argTypes[n - 1] ?? 'unknown';
}

export const CONVERSION_FUNCTIONS: ScalarFunction[] = [
    fn('conversion', {
        name: 'dynamic_to_json',
        signatures: [{ params: [p('value', 'dynamic')] }],
        returns: 'string',
        description: 'Serialises a dynamic value as compact JSON text with the keys of every bag sorted, so equal values always give the same text.',
        example: "print json = dynamic_to_json(dynamic({'b': 1, 'a': [1, 2]}))",
        evaluate: ([v]) => (v === null ? null : canonicalJson(toJsonValue(v))),
    }),
    fn('conversion', {
        name: 'ensure_field',
        signatures: [{ params: [p('field_name', 'string', { constant: true }), p('field_type', 'type')] }],
        // The analyser passes the type named by the `typeof(...)` literal as the second argument's type.
        returns: typeOfArg(1),
        description: 'Reads a field by name if the dataset has it, otherwise gives a null of the stated type, so a query keeps working when a field is missing.',
        example: "['sample-http-logs'] | extend agent = ensure_field('user_agent', typeof(string))",
        axiomOnly: true,
        evaluatedBy: 'evaluator',
    }),
    fn('conversion', {
        name: 'isbool',
        signatures: [{ params: [p('expression', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is a boolean (including a boolean inside dynamic); strings such as `"true"` are not booleans.',
        example: 'print b = isbool(true)',
        axiomOnly: true,
        evaluate: ([v]) => typeof v === 'boolean',
    }),
    fn('conversion', {
        name: 'toarray',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'dynamic',
        description: 'Returns a dynamic array unchanged and wraps any other non-null value in a one-element array.',
        example: "print a = toarray('123')",
        axiomOnly: true,
        evaluate: ([v]) => (v === null ? null : Array.isArray(v) ? v : [toJsonValue(v)]),
    }),
    fn('conversion', {
        name: 'tobool',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'Converts to bool: non-zero numbers and timespans and non-epoch datetimes are true; the strings `1, t, T, TRUE, true, True` and `0, f, F, FALSE, false, False` convert, anything else gives null.',
        example: "print b = tobool('true')",
        evaluate: ([v]) => convertToBool(v),
    }),
    fn('conversion', {
        name: 'todatetime',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'datetime',
        description: 'Converts to datetime: numbers are nanoseconds since the Unix epoch, strings are parsed as RFC 3339/ISO 8601 or common date formats; unparseable values give null.',
        example: "print d = todatetime('2024-01-15T10:30:00Z')",
        evaluate: ([v]) => convertToDatetime(v),
    }),
    fn('conversion', {
        name: 'todouble',
        aliases: ['toreal'],
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'real',
        description: 'Converts to real: strings are read as Go float literals (`1e3`, `-Inf`, `NaN`), bools are 1/0, datetimes and timespans give nanoseconds; anything else gives null.',
        example: "print r = todouble('1.5e3')",
        evaluate: ([v]) => convertToReal(v),
    }),
    fn('conversion', {
        name: 'todynamic',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'dynamic',
        description: 'The same as `parse_json`: a string is parsed as JSON (falling back to a dynamic string), other values become dynamic as they are.',
        example: "print d = todynamic('[1, 2, 3]')",
        evaluate: ([v]) => toDynamicValue(v),
    }),
    fn('conversion', {
        name: 'tohex',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'number'), opt('minLength', 'long')] }],
        returns: 'string',
        description: 'Writes an integer in lower-case hexadecimal (negative values as 64-bit two\'s complement), left-padded with zeros to `minLength`.',
        example: 'print h = tohex(12345, 8)',
        evaluate: ([v, minLength]) => {
            const n = convertToLong(typeof v === 'number' ? v : null);
            if (n === null) return null;
            const width = minLength === undefined || minLength === null ? 0 : int(minLength) ?? 0;
            return BigInt.asUintN(64, BigInt(n)).toString(16).padStart(width, '0');
        },
    }),
    fn('conversion', {
        name: 'toint',
        aliases: ['tolong'],
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'long',
        description: 'Converts to a 64-bit integer: reals truncate toward zero, bools are 1/0, datetimes and timespans give nanoseconds, and strings must be plain decimal digits with an optional sign (otherwise null).',
        example: "print n = toint('42')",
        evaluate: ([v]) => convertToLong(v),
    }),
    fn('conversion', {
        name: 'tostring',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'any')] }],
        returns: 'string',
        description: 'Converts any value to text: null becomes an empty string, timespans print Go style (`1m20s`), datetimes as RFC 3339 with nanoseconds, dynamic values as JSON.',
        example: 'print s = tostring(80s)',
        evaluate: ([v]) => toText(v),
    }),
    fn('conversion', {
        name: 'totimespan',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'timespan',
        description: 'Converts to timespan: numbers are nanoseconds, strings use Go duration syntax such as `1h30m` or `250ms` (also `1d` and `d.hh:mm:ss`); anything else gives null.',
        example: "print t = totimespan('1m20s')",
        evaluate: ([v]) => convertToTimespan(v),
    }),
];

export const HASH_FUNCTIONS: ScalarFunction[] = [
    fn('hash', {
        name: 'hash',
        signatures: [{ params: [p('source', 'scalar'), opt('salt', 'long')] }],
        returns: 'long',
        description: 'A deterministic signed integer hash of a value (and optional salt). In this implementation: the first 8 bytes of SHA-256 over the value\'s text, reduced to 53 bits so it stays exact; Axiom\'s own algorithm differs and may change.',
        example: "['sample-http-logs'] | extend bucket = abs(hash(id) % 10)",
        evaluate: ([v, salt]) => hash64(v, salt),
    }),
    fn('hash', {
        name: 'hash_md5',
        signatures: [{ params: [p('source', 'scalar')] }],
        returns: 'string',
        description: 'The MD5 digest of the value\'s UTF-8 text, as 32 lower-case hex digits.',
        example: "['sample-http-logs'] | extend h = hash_md5(id)",
        evaluate: ([v]) => digest('md5', v),
    }),
    fn('hash', {
        name: 'hash_sha1',
        signatures: [{ params: [p('source', 'scalar')] }],
        returns: 'string',
        description: 'The SHA-1 digest of the value\'s UTF-8 text, as 40 lower-case hex digits.',
        example: "['sample-http-logs'] | extend h = hash_sha1(id)",
        evaluate: ([v]) => digest('sha1', v),
    }),
    fn('hash', {
        name: 'hash_sha256',
        signatures: [{ params: [p('source', 'scalar')] }],
        returns: 'string',
        description: 'The SHA-256 digest of the value\'s UTF-8 text, as 64 lower-case hex digits.',
        example: "['sample-http-logs'] | extend h = hash_sha256(id)",
        evaluate: ([v]) => digest('sha256', v),
    }),
    fn('hash', {
        name: 'hash_sha512',
        signatures: [{ params: [p('source', 'scalar')] }],
        returns: 'string',
        description: 'The SHA-512 digest of the value\'s UTF-8 text, as 128 lower-case hex digits.',
        example: "['sample-http-logs'] | extend h = hash_sha512(id)",
        axiomOnly: true,
        evaluate: ([v]) => digest('sha512', v),
    }),
];

export const TYPE_CHECK_FUNCTIONS: ScalarFunction[] = [
    fn('type', {
        name: 'iscc',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'bool',
        description: 'True when the text looks like a payment card number: 12 to 19 digits (spaces and dashes ignored) passing the Luhn checksum.',
        example: "print cc = iscc('4111111111111111')",
        axiomOnly: true,
        evaluate: ([v]) => {
            const d = digitsOf(v);
            return d !== null && d.length >= 12 && d.length <= 19 && luhn(d);
        },
    }),
    fn('type', {
        name: 'isimei',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'bool',
        description: 'True when the text is a valid IMEI: 15 digits (spaces and dashes ignored) passing the Luhn checksum.',
        example: "print imei = isimei('356938035643809')",
        axiomOnly: true,
        evaluate: ([v]) => {
            const d = digitsOf(v);
            return d !== null && d.length === 15 && luhn(d);
        },
    }),
    fn('type', {
        name: 'ismap',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is a dynamic property bag (an object, not an array).',
        example: "print m = ismap(dynamic({'a': 1}))",
        axiomOnly: true,
        evaluate: ([v]) => isBag(v),
    }),
    fn('type', {
        name: 'isreal',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is a real number: a `real` expression, or a non-integral number inside dynamic.',
        example: 'print r = isreal(123.11)',
        axiomOnly: true,
        evaluate: ([v], ctx) => {
            if (typeof v !== 'number') return false;
            const t = ctx.argTypes[0];
            if (t === 'real') return true;
            if (t === 'long') return false;
            return !Number.isInteger(v);
        },
    }),
    fn('type', {
        name: 'isstring',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is a non-null string (including a string inside dynamic).',
        example: "['sample-http-logs'] | extend s = isstring(status)",
        axiomOnly: true,
        evaluate: ([v]) => typeof v === 'string',
    }),
    fn('type', {
        name: 'isutf8',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'bool',
        description: 'True when the string is valid UTF-8. Text that was decoded from invalid bytes (containing U+FFFD or unpaired surrogates) counts as invalid; null gives false.',
        example: "['sample-http-logs'] | where not(isutf8(uri))",
        axiomOnly: true,
        evaluate: ([v]) => {
            if (v === null) return false;
            if (typeof v !== 'string') return true;
            return !LONE_SURROGATE.test(v) && !v.includes('\ufffd');
        },
    }),
];

export const CONDITIONAL_FUNCTIONS: ScalarFunction[] = [
    fn('conditional', {
        name: 'case',
        signatures: [
            {
                params: [p('condition1', 'bool'), p('result1', 'scalar'), p('conditionN_resultN_else', 'scalar', { variadic: true })],
                arity: { min: 3, parity: 'odd', shape: 'condition/value pairs and a final else value' },
            },
        ],
        returns: caseResultType,
        description: 'Evaluates condition/result pairs in order and returns the result of the first true condition, or the final `else` value when none is true. Takes an odd number (≥ 3) of arguments; results should share one type.',
        example: "['sample-http-logs'] | extend level = case(status >= '500', 'error', status >= '400', 'warn', 'ok')",
        evaluate: args => {
            for (let i = 0; i + 1 < args.length; i += 2) {
                if (args[i] === true) return args[i + 1];
            }
            return args[args.length - 1];
        },
    }),
    fn('conditional', {
        name: 'iff',
        signatures: [{ params: [p('predicate', 'bool'), p('ifTrue', 'scalar'), p('ifFalse', 'scalar')] }],
        returns: typeOfArg(1, 2),
        description: 'Returns `ifTrue` when the predicate is true and `ifFalse` otherwise (a null predicate counts as false). Both branches should have the same type.',
        example: "['sample-http-logs'] | extend ok = iff(status == '200', 'yes', 'no')",
        evaluate: ([cond, a, b]) => (cond === true ? a : b),
    }),
];

export const METADATA_FUNCTIONS: ScalarFunction[] = [
    fn('metadata', {
        name: 'column_ifexists',
        signatures: [{ params: [p('FieldName', 'string', { constant: true }), p('DefaultValue', 'scalar')] }],
        returns: typeOfArg(1),
        description: 'The value of the named field when the dataset has it; otherwise the default expression.',
        example: "['sample-http-logs'] | extend city = column_ifexists('geo.city', 'unknown')",
        evaluatedBy: 'evaluator',
    }),
    fn('metadata', {
        name: 'cursor_current',
        signatures: [{ params: [] }],
        returns: 'string',
        description: 'The cursor of the current row: an opaque string that a later query can use to continue from this position.',
        example: "['sample-http-logs'] | extend cursor = cursor_current()",
        evaluatedBy: 'evaluator',
    }),
    fn('metadata', {
        name: 'ingestion_time',
        signatures: [{ params: [] }],
        returns: 'datetime',
        description: 'When the current row was ingested (the event\'s system time), as a datetime.',
        example: "['sample-http-logs'] | extend ingested = ingestion_time()",
        evaluatedBy: 'evaluator',
    }),
];

export const PAIR_FUNCTIONS: ScalarFunction[] = [
    fn('pair', {
        name: 'find_pair',
        signatures: [{ params: [p('array', 'array'), p('key_pattern', 'string'), p('value_pattern', 'string'), opt('separator', 'string')] }],
        returns: 'dynamic',
        description: 'Searches an array of `key:value` strings for the first pair whose key and value match wildcard patterns (`*` matches anything) and returns it as a bag with `key`, `separator` and `value`, or null.',
        example: "print tag = find_pair(dynamic(['env:prod', 'host:web01']), 'host', '*')",
        axiomOnly: true,
        evaluate: ([array, keyPattern, valuePattern, separator]) => {
            if (!Array.isArray(array)) return null;
            const sep = separator === undefined || separator === null ? ':' : toText(separator);
            const keyRe = compileGlob(toText(keyPattern));
            const valueRe = compileGlob(toText(valuePattern));
            for (const item of array) {
                if (typeof item !== 'string') continue;
                const pair = splitPair(item, sep);
                if (pair.separator === '') continue;
                if (keyRe.test(pair.key as string) && valueRe.test(pair.value as string)) return pair;
            }
            return null;
        },
    }),
    fn('pair', {
        name: 'pair',
        signatures: [{ params: [p('key', 'string'), p('value', 'string'), opt('separator', 'string')] }],
        returns: 'string',
        description: 'Joins a key and a value into one pair string, `key:value` by default or with the given separator.',
        example: "['sample-http-logs'] | extend tag = pair('method', method)",
        axiomOnly: true,
        evaluate: ([key, value, separator]) => `${toText(key)}${separator === undefined || separator === null ? ':' : toText(separator)}${toText(value)}`,
    }),
    fn('pair', {
        name: 'parse_pair',
        signatures: [{ params: [p('pair_string', 'string'), opt('separator', 'string')] }],
        returns: 'dynamic',
        description: 'Splits a pair string at the first separator (`:` by default) into a bag with `key`, `separator` and `value`. Without a separator the whole text is the key.',
        example: "print p = parse_pair('method:GET')",
        axiomOnly: true,
        evaluate: ([s, separator]) => (s === null ? null : splitPair(toText(s), separator === undefined || separator === null ? ':' : toText(separator))),
    }),
];
