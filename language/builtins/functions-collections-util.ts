/**
 * Helpers shared by the collection functions (array, bag, series_*) and the aggregations: value
 * classification, JSON conversion, a total order for sorting, canonical keys for distinct counting.
 */
import type { ParamSpec, ParamType } from './catalogue-types.js';
import { Datetime, Timespan, type AplValue, type JsonValue } from '../values.js';

export type JsonObject = { [key: string]: JsonValue };

export function param(name: string, type: ParamType, extra: Omit<ParamSpec, 'name' | 'type'> = {}): ParamSpec {
    return { name, type, ...extra };
}

export function isArray(v: AplValue | JsonValue | undefined): v is JsonValue[] {
    return Array.isArray(v);
}

/** A property bag: a plain object (not an array, not a Datetime/Timespan). */
export function isBag(v: AplValue | JsonValue | undefined): v is JsonObject {
    return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Datetime) && !(v instanceof Timespan);
}

/** A JS number usable as a numeric series element (NaN and ±Infinity included; bools and strings are not numbers). */
export function asNumber(v: AplValue | JsonValue | undefined): number | null {
    return typeof v === 'number' ? v : null;
}

/** An integer argument (long); reals are truncated, anything else is null. */
export function asInt(v: AplValue | undefined): number | null {
    if (typeof v !== 'number' || !Number.isFinite(v)) return null;
    return Math.trunc(v);
}

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

/** Renders a value as text the way `strcat_array` and friends do (null -> empty string). */
export function valueToText(v: AplValue | JsonValue): string {
    if (v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v instanceof Datetime || v instanceof Timespan) return v.toString();
    return JSON.stringify(v);
}

/**
 * A small JSONPath evaluator for `array_extract` and `bag_has_key`: `$`, `.name`, `['name']`,
 * `["name"]`, `[n]` (negative counts from the end), `[*]`, `.*` and `..name` (recursive descent).
 * Returns every matched value, or undefined when the path does not parse.
 */
export function jsonPathQuery(root: JsonValue, path: string): JsonValue[] | undefined {
    const steps = parseJsonPath(path);
    if (!steps) return undefined;
    let current: JsonValue[] = [root];
    for (const step of steps) {
        const next: JsonValue[] = [];
        for (const v of current) {
            if (step.kind === 'recursive') {
                collectRecursive(v, step.key, next);
            } else if (step.kind === 'wildcard') {
                if (Array.isArray(v)) next.push(...v);
                else if (isBag(v)) next.push(...Object.values(v));
            } else if (step.kind === 'index') {
                if (Array.isArray(v)) {
                    const i = step.index < 0 ? v.length + step.index : step.index;
                    if (i >= 0 && i < v.length) next.push(v[i]);
                }
            } else if (isBag(v) && Object.prototype.hasOwnProperty.call(v, step.key)) {
                next.push(v[step.key]);
            }
        }
        current = next;
    }
    return current;
}

type PathStep =
    | { kind: 'key'; key: string }
    | { kind: 'index'; index: number }
    | { kind: 'wildcard' }
    | { kind: 'recursive'; key: string | null };

function collectRecursive(v: JsonValue, key: string | null, out: JsonValue[]): void {
    if (Array.isArray(v)) {
        for (const e of v) {
            if (key === null) out.push(e);
            collectRecursive(e, key, out);
        }
    } else if (isBag(v)) {
        for (const [k, e] of Object.entries(v)) {
            if (key === null || k === key) out.push(e);
            collectRecursive(e, key, out);
        }
    }
}

function parseJsonPath(path: string): PathStep[] | undefined {
    const s = path.trim();
    if (!s.startsWith('$')) return undefined;
    const steps: PathStep[] = [];
    let i = 1;
    while (i < s.length) {
        if (s.startsWith('..', i)) {
            i += 2;
            if (s[i] === '*') {
                i++;
                steps.push({ kind: 'recursive', key: null });
                continue;
            }
            const m = /^[^.[\]]+/.exec(s.slice(i));
            if (!m) return undefined;
            steps.push({ kind: 'recursive', key: m[0] });
            i += m[0].length;
        } else if (s[i] === '.') {
            i++;
            if (s[i] === '*') {
                i++;
                steps.push({ kind: 'wildcard' });
                continue;
            }
            const m = /^[^.[\]]+/.exec(s.slice(i));
            if (!m) return undefined;
            steps.push({ kind: 'key', key: m[0] });
            i += m[0].length;
        } else if (s[i] === '[') {
            const close = findClosingBracket(s, i);
            if (close < 0) return undefined;
            const inner = s.slice(i + 1, close).trim();
            i = close + 1;
            if (inner === '*') steps.push({ kind: 'wildcard' });
            else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
            else if (/^'.*'$/s.test(inner) || /^".*"$/s.test(inner)) steps.push({ kind: 'key', key: inner.slice(1, -1).replace(/\\(.)/g, '$1') });
            else return undefined;
        } else {
            return undefined;
        }
    }
    return steps;
}

function findClosingBracket(s: string, open: number): number {
    let quote: string | null = null;
    for (let i = open + 1; i < s.length; i++) {
        const c = s[i];
        if (quote) {
            if (c === '\\') i++;
            else if (c === quote) quote = null;
        } else if (c === "'" || c === '"') {
            quote = c;
        } else if (c === ']') {
            return i;
        }
    }
    return -1;
}
