/**
 * Shared helpers for the text, conversion and related built-ins: value-to-text conversion (Go
 * flavoured, as Axiom's runtime is), dynamic conversion, code-point string helpers and the
 * translation of RE2 regular expressions into JavaScript `RegExp`s.
 */
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
// RE2 → JavaScript regular expressions
// ---------------------------------------------------------------------------------------------

const POSIX_CLASSES: Record<string, string> = {
    alnum: '0-9A-Za-z',
    alpha: 'A-Za-z',
    ascii: '\\x00-\\x7F',
    blank: '\\t ',
    cntrl: '\\x00-\\x1F\\x7F',
    digit: '0-9',
    graph: '!-~',
    lower: 'a-z',
    print: ' -~',
    punct: '!-\\/:-@\\[-`{-~',
    space: '\\t\\n\\v\\f\\r ',
    upper: 'A-Z',
    word: '0-9A-Za-z_',
    xdigit: '0-9A-Fa-f',
};

/** JS syntax characters: the only identity escapes allowed under the `u` flag. */
const SYNTAX_CHARS = new Set('^$\\.*+?()[]{}|/'.split(''));

/** General categories are written `\p{Lu}` in both; scripts need `Script=` in JS. */
function unicodeProperty(name: string, negated: boolean): string {
    const isCategory = /^[A-Z][a-z]?$/.test(name);
    const prop = isCategory ? name : `Script=${name}`;
    return `\\${negated ? 'P' : 'p'}{${prop}}`;
}

function escapeLiteral(ch: string): string {
    return SYNTAX_CHARS.has(ch) || ch === '-' ? `\\${ch}` : ch;
}

/**
 * Translates an RE2 pattern (the syntax APL documents for every regex function) into the source and
 * flags of an equivalent JS `RegExp` with the `u` flag. Leading flag groups such as `(?i)`/`(?is)`
 * become JS flags; `(?P<name>...)` becomes `(?<name>...)`; `\z`, `\A`, `\Q...\E`, `\x{...}`,
 * `\pL`, POSIX classes and RE2's ASCII `\s` are translated. Constructs RE2 does not have
 * (look-around, back-references) are rejected, as Axiom would reject them.
 */
export function translateRe2(pattern: string): { source: string; flags: string } {
    let flags = '';
    let rest = pattern;
    for (;;) {
        const m = /^\(\?([a-zA-Z]+)\)/.exec(rest);
        if (!m) break;
        for (const f of m[1]) {
            if (f === 'i' || f === 'm' || f === 's') {
                if (!flags.includes(f)) flags += f;
            } else {
                throw new FunctionArgumentError(`unsupported regex flag '${f}' in '${pattern}'`);
            }
        }
        rest = rest.slice(m[0].length);
    }
    let out = '';
    let inClass = false;
    let classStart = false; // just after `[` or `[^`: a `]` here is a literal
    let i = 0;
    const n = rest.length;
    while (i < n) {
        const ch = rest[i];
        if (ch === '\\') {
            const c = rest[i + 1];
            if (c === undefined) throw new FunctionArgumentError(`trailing backslash in regex '${pattern}'`);
            i += 2;
            classStart = false;
            if (c === 'Q') {
                const end = rest.indexOf('\\E', i);
                const lit = end < 0 ? rest.slice(i) : rest.slice(i, end);
                for (const l of lit) out += escapeLiteral(l);
                i = end < 0 ? n : end + 2;
                continue;
            }
            if (/[1-9]/.test(c)) throw new FunctionArgumentError(`back-references are not supported in RE2 regex '${pattern}'`);
            switch (c) {
                case 'z':
                    out += inClass ? 'z' : '(?![\\s\\S])';
                    continue;
                case 'A':
                    out += inClass ? 'A' : '(?<![\\s\\S])';
                    continue;
                case 's':
                    out += inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]';
                    continue;
                case 'S':
                    out += inClass ? '\\S' : '[^\\t\\n\\f\\r ]';
                    continue;
                case 'a':
                    out += '\\x07';
                    continue;
                case '0':
                    out += '\\x00';
                    continue;
                case 'x': {
                    if (rest[i] === '{') {
                        const end = rest.indexOf('}', i);
                        if (end < 0) throw new FunctionArgumentError(`bad \\x{...} escape in regex '${pattern}'`);
                        out += `\\u{${rest.slice(i + 1, end)}}`;
                        i = end + 1;
                    } else {
                        out += `\\x${rest.slice(i, i + 2)}`;
                        i += 2;
                    }
                    continue;
                }
                case 'p':
                case 'P': {
                    let name: string;
                    if (rest[i] === '{') {
                        const end = rest.indexOf('}', i);
                        if (end < 0) throw new FunctionArgumentError(`bad \\p{...} escape in regex '${pattern}'`);
                        name = rest.slice(i + 1, end);
                        i = end + 1;
                    } else {
                        name = rest[i] ?? '';
                        i += 1;
                    }
                    let negated = c === 'P';
                    if (name.startsWith('^')) {
                        negated = !negated;
                        name = name.slice(1);
                    }
                    out += unicodeProperty(name, negated);
                    continue;
                }
                case 'd': case 'D': case 'w': case 'W': case 'b': case 'B':
                case 't': case 'n': case 'r': case 'f': case 'v':
                    out += `\\${c}`;
                    continue;
                default:
                    if (/[a-zA-Z]/.test(c)) throw new FunctionArgumentError(`unknown escape '\\${c}' in regex '${pattern}'`);
                    out += SYNTAX_CHARS.has(c) || (inClass && c === '-') ? `\\${c}` : c;
                    continue;
            }
        }
        if (inClass) {
            if (ch === ']' && !classStart) {
                inClass = false;
                out += ']';
                i++;
                continue;
            }
            if (ch === ']' && classStart) {
                out += '\\]';
                classStart = false;
                i++;
                continue;
            }
            if (ch === '[' && rest[i + 1] === ':') {
                const end = rest.indexOf(':]', i + 2);
                if (end > 0) {
                    let name = rest.slice(i + 2, end);
                    const neg = name.startsWith('^');
                    if (neg) name = name.slice(1);
                    const body = POSIX_CLASSES[name];
                    if (body === undefined) throw new FunctionArgumentError(`unknown POSIX class '${name}' in regex '${pattern}'`);
                    if (neg) throw new FunctionArgumentError(`negated POSIX classes are not supported in regex '${pattern}'`);
                    out += body;
                    i = end + 2;
                    classStart = false;
                    continue;
                }
            }
            classStart = false;
            out += ch === '[' ? '\\[' : ch;
            i++;
            continue;
        }
        if (ch === '[') {
            inClass = true;
            classStart = true;
            out += '[';
            i++;
            if (rest[i] === '^') {
                out += '^';
                i++;
            }
            continue;
        }
        if (ch === '(' && rest[i + 1] === '?') {
            const tail = rest.slice(i + 2);
            if (tail.startsWith('P<')) {
                out += '(?<';
                i += 4;
                continue;
            }
            if (tail.startsWith(':') || (tail.startsWith('<') && !tail.startsWith('<=') && !tail.startsWith('<!'))) {
                out += '(?';
                i += 2;
                continue;
            }
            if (/^[=!]|^<[=!]/.test(tail)) throw new FunctionArgumentError(`look-around is not supported in RE2 regex '${pattern}'`);
            throw new FunctionArgumentError(`inline flags are only supported at the start of regex '${pattern}'`);
        }
        if (ch === '{') {
            const q = /^\{\d+(,\d*)?\}/.exec(rest.slice(i));
            if (q) {
                out += q[0];
                i += q[0].length;
            } else {
                out += '\\{';
                i++;
            }
            continue;
        }
        if (ch === '}') {
            out += '\\}';
            i++;
            continue;
        }
        out += ch;
        i++;
    }
    if (inClass) throw new FunctionArgumentError(`missing ']' in regex '${pattern}'`);
    return { source: out, flags };
}

const regexCache = new Map<string, RegExp>();

/** Compiles (and caches) an RE2 pattern; `extraFlags` may add `g`. Throws on an invalid pattern. */
export function compileRegex(pattern: string, extraFlags = ''): RegExp {
    const key = `${extraFlags}\u0000${pattern}`;
    let re = regexCache.get(key);
    if (re) {
        re.lastIndex = 0;
        return re;
    }
    const { source, flags } = translateRe2(pattern);
    try {
        re = new RegExp(source, `${flags}${extraFlags}u`);
    } catch (e) {
        throw new FunctionArgumentError(`invalid regular expression '${pattern}': ${(e as Error).message}`);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, re);
    return re;
}

/** Every non-overlapping match, left to right (empty matches included, as RE2 reports them). */
export function allMatches(pattern: string, text: string): RegExpExecArray[] {
    const re = compileRegex(pattern, 'g');
    return [...text.matchAll(re)] as RegExpExecArray[];
}

/** Escapes RE2 metacharacters (Go's `regexp.QuoteMeta`). */
export function quoteMeta(s: string): string {
    return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
