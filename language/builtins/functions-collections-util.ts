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

export { toJson, stableStringify, canonicalKey, valuesEqual, compareStrings, compareValues, sortValues } from '../runtime-values.js';

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
