/**
 * Shared helpers for the text, conversion and related built-ins: value-to-text conversion (Go
 * flavoured, as Axiom's runtime is), dynamic conversion, code-point string helpers and the
 * compilation of RE2 regular expressions (re2js: linear time).
 */
import { RE2JS } from 're2js';
import type { AplType } from '../types/apl-types.js';
import { Datetime, Timespan, formatDatetime, formatGoDuration, type AplValue, type JsonValue } from '../values.js';
import type { ParamSpec, ReturnRule } from './catalogue-types.js';

/** Thrown for an argument the function cannot work with (an invalid regex, a bad unit name, ...). */
export class FunctionArgumentError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'FunctionArgumentError';
    }
}

// ---------------------------------------------------------------------------------------------
// Small builders for catalogue entries
// ---------------------------------------------------------------------------------------------

export function p(name: string, type: ParamSpec['type'], extra: Partial<ParamSpec> = {}): ParamSpec {
    return { name, type, ...extra };
}

export function opt(name: string, type: ParamSpec['type'], extra: Partial<ParamSpec> = {}): ParamSpec {
    return { name, type, optional: true, ...extra };
}

/** The type of argument `i`, or of the first argument (from `i` on) whose type is known. */
export function typeOfArg(...indexes: number[]): ReturnRule {
    return (argTypes: readonly AplType[]) => {
        for (const i of indexes) {
            const t = argTypes[i];
            if (t !== undefined && t !== 'unknown') return t;
        }
        return 'unknown';
    };
}

/** The type of the first argument whose type is known (coalesce). */
export function firstKnownType(argTypes: readonly AplType[]): AplType {
    return argTypes.find(t => t !== 'unknown') ?? 'unknown';
}

// ---------------------------------------------------------------------------------------------
// Value to text (tostring semantics)
// ---------------------------------------------------------------------------------------------

/**
 * A real as Go's shortest round-trip formatting prints it: `1.5`, `3`, `1e+21`, `1e-07`, `NaN`,
 * `+Inf`, `-Inf`. (JS already produces the shortest digits; only the exponent and the special values
 * are spelled differently.)
 */
export function formatReal(v: number): string {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return '+Inf';
    if (v === -Infinity) return '-Inf';
    if (Object.is(v, -0)) return '-0';
    return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
}

function sortKeys(v: JsonValue): JsonValue {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === 'object') {
        const out: { [key: string]: JsonValue } = {};
        for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
        return out;
    }
    return v;
}

/** Compact JSON with bag keys sorted (Go's `encoding/json` order), so the text is deterministic. */
export function canonicalJson(v: JsonValue): string {
    return JSON.stringify(sortKeys(v)) ?? 'null';
}

/**
 * `tostring` of any value: null → "", strings as-is, numbers via {@link formatReal}, datetimes in
 * RFC 3339 (nanoseconds, trailing zeros trimmed), timespans Go style (`1m20s`), dynamic arrays and
 * bags as compact JSON.
 */
export function toText(v: AplValue): string {
    if (v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return formatReal(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (v instanceof Timespan) return formatGoDuration(v.ns);
    return canonicalJson(v);
}

/** A value as it is stored inside `dynamic`: datetimes and timespans become strings. */
export function toJsonValue(v: AplValue): JsonValue {
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (v instanceof Timespan) return formatGoDuration(v.ns);
    return v;
}

export function isBag(v: AplValue | JsonValue | undefined): v is { [key: string]: JsonValue } {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Datetime) && !(v instanceof Timespan);
}

/** A number argument: integers and reals as they are, anything else (null included) as null. */
export function num(v: AplValue): number | null {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && /^[+-]?\d+(\.\d+)?$/.test(v)) return Number(v);
    return null;
}

/** An integer argument (reals are truncated); null when it is not a finite number. */
export function int(v: AplValue): number | null {
    const n = num(v);
    return n === null || !Number.isFinite(n) ? null : Math.trunc(n);
}

// ---------------------------------------------------------------------------------------------
// Code points
// ---------------------------------------------------------------------------------------------

/** The string split into Unicode code points (astral characters stay whole). */
export function codePoints(s: string): string[] {
    return Array.from(s);
}

export function codePointLength(s: string): number {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
            const d = s.charCodeAt(i + 1);
            if (d >= 0xdc00 && d <= 0xdfff) i++;
        }
        n++;
    }
    return n;
}

/** Converts a UTF-16 offset into a code-point offset. */
export function utf16ToCodePointIndex(s: string, utf16Index: number): number {
    return codePointLength(s.slice(0, utf16Index));
}

/** Compares two strings by code point (the order of their UTF-8 bytes, as Go compares strings). */
export function compareCodePoints(a: string, b: string): number {
    const x = codePoints(a);
    const y = codePoints(b);
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
        const c = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
        if (c !== 0) return c < 0 ? -1 : 1;
    }
    return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------
// Regular expressions: RE2 syntax and semantics, in linear time
// ---------------------------------------------------------------------------------------------

/**
 * Flags that operators add to a pattern (`parse flags=i`); patterns may also set their own with
 * `(?i)`, `(?s)`, `(?m)`.
 */
export interface RegexFlags {
    caseInsensitive?: boolean;
    dotAll?: boolean;
    multiline?: boolean;
}

/** One match: `[0]` is the whole match, `[k]` group k (undefined when it did not take part). */
export interface RegexMatch extends Array<string | undefined> {
    0: string;
    index: number;
    groups?: Record<string, string | undefined>;
}

/**
 * A compiled user regular expression. Every pattern that comes from a query goes through here:
 * RE2JS matches in time linear in the input whatever the pattern (`(a+)+$` over 'a'×30+'b' took
 * 11 s with JavaScript's backtracking engine), with RE2's syntax and semantics, as Axiom's Go
 * runtime has. It is pure JavaScript, so the language server and browser bundles keep working.
 */
export class LinearRegex {
    constructor(
        private readonly re: RE2JS,
        readonly pattern: string,
    ) {}

    /** Whether the pattern matches anywhere in `text`. */
    test(text: string): boolean {
        return this.re.test(text);
    }

    /** The leftmost match, or null. */
    exec(text: string): RegexMatch | null {
        return this.re.exec(text) as RegexMatch | null;
    }

    /** Every non-overlapping match, left to right (empty matches included, as RE2 reports them). */
    matchAll(text: string): RegexMatch[] {
        return [...this.re.matchAll(text)] as unknown as RegexMatch[];
    }

    /** How many capture groups the pattern has. */
    groupCount(): number {
        return this.re.groupCount();
    }
}

const regexCache = new Map<string, LinearRegex>();

/** Compiles (and caches) an RE2 pattern. Throws FunctionArgumentError naming the problem for an invalid one. */
export function compileRegex(pattern: string, flags: RegexFlags = {}): LinearRegex {
    const bits = (flags.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) | (flags.dotAll ? RE2JS.DOTALL : 0) | (flags.multiline ? RE2JS.MULTILINE : 0);
    const key = `${bits}\u0000${pattern}`;
    let re = regexCache.get(key);
    if (re) return re;
    try {
        re = new LinearRegex(RE2JS.compile(pattern, bits), pattern);
    } catch (e) {
        const detail = ((e as Error).message ?? String(e)).replace(/^error parsing regexp: /, '');
        throw new FunctionArgumentError(`invalid regular expression '${pattern}': ${detail}`);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, re);
    return re;
}

/** Every non-overlapping match of `pattern` in `text`. */
export function allMatches(pattern: string, text: string): RegexMatch[] {
    return compileRegex(pattern).matchAll(text);
}

/**
 * A wildcard pattern (`*` matches any text, newlines included; everything else literally) as a
 * linear-time matcher for the whole text: a glob turned into a JavaScript RegExp backtracks
 * polynomially in the number of stars (`*a*a*a*a*a*a*a*c` never finished on 500 characters).
 */
export function compileGlob(glob: string): LinearRegex {
    return compileRegex(`^${glob.split('*').map(quoteMeta).join('.*')}$`, { dotAll: true });
}

/** Escapes RE2 metacharacters (Go's `regexp.QuoteMeta`). */
export function quoteMeta(s: string): string {
    return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
