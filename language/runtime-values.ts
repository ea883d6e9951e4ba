/**
 * Runtime value helpers that the evaluator and the built-in functions share: JSON conversion,
 * canonical keys for equality and distinct counting, and the total order used for sorting.
 */
import { Datetime, Timespan, type AplValue, type JsonValue } from './values.js';

/** The value as it appears inside `dynamic`: datetimes as RFC 3339 strings, timespans as Go durations. */
export function toJson(v: AplValue | undefined): JsonValue {
    if (v === undefined || v === null) return null;
    if (v instanceof Datetime || v instanceof Timespan) return v.toJSON();
    return v;
}

/** JSON text with object keys sorted, so equal values print equally. */
export function stableStringify(v: JsonValue): string {
    if (v === null || typeof v !== 'object') {
        if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
        return JSON.stringify(v);
    }
    if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
    const keys = Object.keys(v).sort();
    return `{${keys.map(k => `${JSON.stringify(k)}:${stableStringify(v[k])}`).join(',')}}`;
}

/**
 * A canonical key for equality of values of any type (dcount, make_set, topk). Long 1 and real 1.0
 * are the same number and share a key; `"1"` (string) does not.
 */
export function canonicalKey(v: AplValue | JsonValue): string {
    if (v === null) return 'null';
    if (v instanceof Datetime) return `d:${v.ns}`;
    if (v instanceof Timespan) return `t:${v.ns}`;
    switch (typeof v) {
        case 'number': return Object.is(v, -0) ? 'n:0' : `n:${v}`;
        case 'string': return `s:${v}`;
        case 'boolean': return `b:${v}`;
        default: return `j:${stableStringify(v)}`;
    }
}

/** Deep equality of two values (numbers by value, objects by content). */
export function valuesEqual(a: AplValue | JsonValue, b: AplValue | JsonValue): boolean {
    if (a === null || b === null) return a === b;
    return canonicalKey(a) === canonicalKey(b);
}

/**
 * Type groups for sorting mixed values, in KQL's order: numbers, datetimes and timespans first,
 * then strings, then everything else (bools, arrays, bags). Nulls are handled by the caller.
 */
function typeRank(v: AplValue | JsonValue): number {
    if (typeof v === 'number' || v instanceof Datetime || v instanceof Timespan) return 0;
    if (typeof v === 'string') return 1;
    return 2;
}

function ordinal(v: AplValue | JsonValue): number | bigint {
    if (v instanceof Datetime || v instanceof Timespan) return v.ns;
    return v as number;
}

/** Ordinal string comparison by UTF-16 code units (KQL compares strings ordinally). */
export function compareStrings(a: string, b: string): number {
    return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A total order over non-null values: numbers (and datetime/timespan by ns) < strings < others.
 * NaN sorts after every other number. Values of the "others" group compare by their JSON text.
 */
export function compareValues(a: AplValue | JsonValue, b: AplValue | JsonValue): number {
    const ra = typeRank(a);
    const rb = typeRank(b);
    if (ra !== rb) return ra - rb;
    if (ra === 0) {
        const x = ordinal(a);
        const y = ordinal(b);
        if (typeof x === 'number' && typeof y === 'number') {
            if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
            if (Number.isNaN(y)) return -1;
            return x < y ? -1 : x > y ? 1 : 0;
        }
        // Mixed number/bigint (a number compared with a datetime): compare as numbers.
        const nx = Number(x);
        const ny = Number(y);
        return nx < ny ? -1 : nx > ny ? 1 : 0;
    }
    if (ra === 1) return compareStrings(a as string, b as string);
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    return compareStrings(stableStringify(toJson(a as AplValue)), stableStringify(toJson(b as AplValue)));
}

/** Sorts a copy of `values`; nulls go last (or first), the rest by `compareValues`, stable. */
export function sortValues<T extends AplValue | JsonValue>(values: readonly T[], desc: boolean, nullsLast: boolean): T[] {
    const nulls = values.filter(v => v === null);
    const rest = values.filter(v => v !== null);
    rest.sort((a, b) => {
        const ra = typeRank(a);
        const rb = typeRank(b);
        // The type groups keep their order in both directions; only the order inside a group flips.
        if (ra !== rb) return ra - rb;
        const c = compareValues(a, b);
        return desc ? -c : c;
    });
    return nullsLast ? [...rest, ...nulls] : [...nulls, ...rest];
}
