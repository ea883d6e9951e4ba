/**
 * Row-level semantics of APL's scalar operators (the vectorised kernels in expr.ts agree with these).
 *
 * - Nulls: `null == null` is null, `null == x` false, `null != x` true, `null != null` null;
 *   ordering comparisons and arithmetic with a null give null. String operators read a null
 *   string as "" (so `null contains "a"` is false and `null !contains "a"` true).
 * - long arithmetic wraps at 64 bits. Integer division truncates toward zero; long division or
 *   modulo by zero gives null (real division follows IEEE: ±Inf or NaN).
 * - A string compared with a number with `==`/`!=` is compared as text (`status == 500` matches
 *   "500"), a leniency for Axiom's string-typed numeric fields.
 */
import { Datetime, Timespan, wrapLong, type AplValue } from '../values.js';
import { canonicalKey, compareValues } from '../runtime-values.js';
import { compileRegex, quoteMeta, toText, type LinearRegex } from '../builtins/index.js';
import type { ScalarType } from './columns.js';

export type Tri = 0 | 1 | 2; // false, true, null

export function arithType(op: string, a: ScalarType, b: ScalarType): ScalarType | undefined {
    const na = a === 'long' || a === 'real' || a === 'bool';
    const nb = b === 'long' || b === 'real' || b === 'bool';
    if (a === 'dynamic' || b === 'dynamic') {
        if (a === 'datetime' || b === 'datetime') return op === '-' && a === b ? 'timespan' : 'datetime';
        if (a === 'timespan' || b === 'timespan') return op === '/' && a === b ? 'real' : 'timespan';
        if (a === 'string' || b === 'string') return undefined;
        return 'real';
    }
    if (na && nb) return a === 'real' || b === 'real' ? 'real' : 'long';
    switch (op) {
        case '+':
            if (a === 'datetime' && b === 'timespan') return 'datetime';
            if (a === 'timespan' && b === 'datetime') return 'datetime';
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            return undefined;
        case '-':
            if (a === 'datetime' && b === 'datetime') return 'timespan';
            if (a === 'datetime' && b === 'timespan') return 'datetime';
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            return undefined;
        case '*':
            if ((a === 'timespan' && nb) || (na && b === 'timespan')) return 'timespan';
            return undefined;
        case '/':
            if (a === 'timespan' && nb) return 'timespan';
            if (a === 'timespan' && b === 'timespan') return 'real';
            return undefined;
        case '%':
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            return undefined;
    }
    return undefined;
}

function numOf(v: AplValue): number | null {
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    return null;
}

function bigOf(v: AplValue): bigint | null {
    if (v instanceof Datetime || v instanceof Timespan) return v.ns;
    if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
    return null;
}

export function longDiv(a: number, b: number): number | null {
    if (b === 0) return null;
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
        const q = Math.trunc(a / b);
        // Float division can be off by one for very large operands: fix with the remainder.
        if (Math.abs(a) < 2 ** 52) return q === 0 ? 0 : q;
        return Number(BigInt(a) / BigInt(b));
    }
    return wrapLong(Math.trunc(a / b));
}

export function longMod(a: number, b: number): number | null {
    if (b === 0) return null;
    const r = a % b;
    return r === 0 ? 0 : r;
}

export function longArith(op: string, a: number, b: number): number | null {
    switch (op) {
        case '+': return wrapLong(a + b);
        case '-': return wrapLong(a - b);
        case '*': {
            const r = a * b;
            if (Number.isSafeInteger(r)) return r;
            return Number(BigInt.asIntN(64, BigInt(Math.trunc(a)) * BigInt(Math.trunc(b))));
        }
        case '/': return longDiv(a, b);
        case '%': return longMod(a, b);
    }
    return null;
}

export function realArith(op: string, a: number, b: number): number {
    switch (op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
    }
    return NaN;
}

/** Arithmetic on run-time values with the static result type `rt`. */
export function arith(op: string, a: AplValue, b: AplValue, rt: ScalarType): AplValue {
    if (a === null || b === null || a === undefined || b === undefined) return null;
    if ((rt === 'long' || rt === 'real') && (a instanceof Timespan || b instanceof Timespan)) {
        const x = bigOf(a);
        const y = bigOf(b);
        if (x === null || y === null || y === 0n) return null;
        if (op === '/') return Number(x) / Number(y);
        return null;
    }
    if (rt === 'long' || rt === 'real') {
        const x = numOf(a);
        const y = numOf(b);
        if (x === null || y === null) return null;
        if (rt === 'long' && Number.isInteger(x) && Number.isInteger(y)) return longArith(op, x, y);
        return realArith(op, x, y);
    }
    if (rt === 'datetime' || rt === 'timespan') {
        const ta = a instanceof Datetime ? 'd' : a instanceof Timespan ? 't' : 'n';
        const tb = b instanceof Datetime ? 'd' : b instanceof Timespan ? 't' : 'n';
        const x = bigOf(a);
        const y = bigOf(b);
        if (x === null || y === null) return null;
        let r: bigint;
        switch (op) {
            case '+': r = x + y; break;
            case '-': r = x - y; break;
            case '*': {
                const f = ta === 'n' ? (a as number) : (b as number);
                const ns = ta === 'n' ? y : x;
                r = Number.isInteger(f) ? ns * BigInt(f) : BigInt(Math.round(Number(ns) * f));
                break;
            }
            case '/': {
                if (tb === 'n') {
                    const f = b as number;
                    if (f === 0) return null;
                    r = Number.isInteger(f) ? x / BigInt(f) : BigInt(Math.round(Number(x) / f));
                } else {
                    if (y === 0n) return null;
                    return Number(x) / Number(y);
                }
                break;
            }
            case '%':
                if (y === 0n) return null;
                r = x % y;
                break;
            default: return null;
        }
        return rt === 'datetime' ? new Datetime(r) : new Timespan(r);
    }
    if (rt === 'dynamic') {
        if (typeof a === 'number' && typeof b === 'number') return realArith(op, a, b);
        return null;
    }
    return null;
}

/** `a == b` on run-time values, as a tri-state. */
export function equalsTri(a: AplValue, b: AplValue): Tri {
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an || bn) return an && bn ? 2 : 0;
    return valuesEq(a, b) ? 1 : 0;
}

export function valuesEq(a: AplValue, b: AplValue): boolean {
    if (typeof a === 'number' && typeof b === 'number') return a === b;
    if (typeof a === 'string' && typeof b === 'string') return a === b;
    if (typeof a === 'boolean' && typeof b === 'boolean') return a === b;
    if (a instanceof Datetime && b instanceof Datetime) return a.ns === b.ns;
    if (a instanceof Timespan && b instanceof Timespan) return a.ns === b.ns;
    if (typeof a === 'string' && typeof b === 'number') return a === toText(b);
    if (typeof a === 'number' && typeof b === 'string') return toText(a) === b;
    if (typeof a === 'boolean' && typeof b === 'number') return Number(a) === b;
    if (typeof a === 'number' && typeof b === 'boolean') return a === Number(b);
    if (a instanceof Datetime && typeof b === 'string') return a.toString() === b;
    if (typeof a === 'string' && b instanceof Datetime) return a === b.toString();
    return canonicalKey(a as never) === canonicalKey(b as never);
}

export function compareTri(op: string, a: AplValue, b: AplValue): Tri {
    if (a === null || b === null || a === undefined || b === undefined) return 2;
    let c: number;
    if (typeof a === 'number' && typeof b === 'number') {
        if (a !== a || b !== b) return 0;
        c = a < b ? -1 : a > b ? 1 : 0;
    } else if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
    else if ((a instanceof Datetime || a instanceof Timespan) && (b instanceof Datetime || b instanceof Timespan)) c = a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
    else if (typeof a === 'string' && typeof b === 'number') {
        const x = Number(a);
        if (a.trim() === '' || Number.isNaN(x)) return 2;
        c = x < b ? -1 : x > b ? 1 : 0;
    } else if (typeof a === 'number' && typeof b === 'string') {
        const y = Number(b);
        if (b.trim() === '' || Number.isNaN(y)) return 2;
        c = a < y ? -1 : a > y ? 1 : 0;
    } else if (a instanceof Datetime && typeof b === 'string') {
        return compareTri(op, a.toString(), b);
    } else c = compareValues(a as never, b as never);
    switch (op) {
        case '<': return c < 0 ? 1 : 0;
        case '<=': return c <= 0 ? 1 : 0;
        case '>': return c > 0 ? 1 : 0;
        case '>=': return c >= 0 ? 1 : 0;
    }
    return 2;
}

// ---------------------------------------------------------------------------------------------
// String predicates

const WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordCode(code: number): boolean {
    if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    return WORD_CHAR.test(String.fromCodePoint(code));
}

function wordBefore(s: string, i: number): boolean {
    if (i <= 0) return false;
    let c = s.charCodeAt(i - 1);
    if (c >= 0xdc00 && c <= 0xdfff && i >= 2) c = s.codePointAt(i - 2) ?? c;
    return isWordCode(c);
}

function wordAt(s: string, i: number): boolean {
    if (i >= s.length) return false;
    return isWordCode(s.codePointAt(i) ?? 0);
}

/**
 * Term search. A term is a run of Unicode letters and digits. `has` finds the needle where it is
 * bounded by non-word characters (or the ends) on both sides; `prefix`/`suffix` need only the start
 * or the end bounded. A needle that itself starts or ends with a separator needs no boundary there.
 */
export function termMatch(hay: string, needle: string, mode: 'has' | 'prefix' | 'suffix'): boolean {
    if (needle === '') return true;
    const startWord = wordAt(needle, 0);
    const endWord = wordBefore(needle, needle.length);
    let from = 0;
    for (;;) {
        const i = hay.indexOf(needle, from);
        if (i < 0) return false;
        const end = i + needle.length;
        const startOk = !startWord || !wordBefore(hay, i);
        const endOk = !endWord || !wordAt(hay, end);
        if (mode === 'has' ? startOk && endOk : mode === 'prefix' ? startOk : endOk) return true;
        from = i + 1;
    }
}

/** `like` patterns run on the linear-time engine too: `%a%a%a…b` backtracks polynomially in JavaScript's. */
function likeToRegex(pattern: string, cs: boolean): LinearRegex {
    let src = '';
    for (const ch of pattern) {
        if (ch === '%') src += '[\\s\\S]*';
        else if (ch === '_') src += '[\\s\\S]';
        else src += quoteMeta(ch);
    }
    return compileRegex(`\\A${src}\\z`, { caseInsensitive: !cs });
}

/**
 * A predicate over a string for a string operator and a constant right operand. The returned
 * function is called with the (possibly lower-cased, see `lower`) left text.
 */
export function stringPredicate(op: string, needleRaw: AplValue): { fn: (s: string) => boolean; lower: boolean; negate: boolean } {
    let negate = false;
    let name = op;
    if (name.startsWith('!')) {
        negate = true;
        name = name.slice(1);
    }
    if (name === 'notlike') {
        negate = true;
        name = 'like';
    } else if (name === 'notlikecs') {
        negate = true;
        name = 'likecs';
    }
    const text = needleRaw === null || needleRaw === undefined ? '' : toText(needleRaw);
    let cs = name.endsWith('_cs') || name === 'likecs' || name === 'matches regex';
    if (name.endsWith('_cs')) name = name.slice(0, -3);
    if (name === '~') {
        // `=~` / `!~`
        cs = false;
    }
    const needle = cs ? text : text.toLowerCase();
    let fn: (s: string) => boolean;
    switch (name) {
        case 'contains': fn = s => s.includes(needle); break;
        case 'startswith': fn = s => s.startsWith(needle); break;
        case 'endswith': fn = s => s.endsWith(needle); break;
        case 'has': fn = s => termMatch(s, needle, 'has'); break;
        case 'hasprefix': fn = s => termMatch(s, needle, 'prefix'); break;
        case 'hassuffix': fn = s => termMatch(s, needle, 'suffix'); break;
        case 'like':
        case 'likecs': {
            const re = likeToRegex(text, cs);
            fn = s => re.test(s);
            break;
        }
        case 'matches regex': {
            const re = compileRegex(text);
            fn = s => re.test(s);
            break;
        }
        case '~':
            fn = s => s === needle;
            break;
        default:
            throw new Error(`unknown string operator '${op}'`);
    }
    return { fn, lower: !cs, negate };
}

/** Search-term rules: `"x"` has, `"*x"` hassuffix, `"x*"` hasprefix, `"*x*"` contains, other wildcards regex. */
export function searchTermPredicate(term: string, caseSensitive: boolean): (s: string) => boolean {
    const t = caseSensitive ? term : term.toLowerCase();
    const lead = t.startsWith('*');
    const trail = t.endsWith('*') && t.length > 1;
    const core = t.slice(lead ? 1 : 0, trail ? -1 : undefined);
    const prep = (s: string) => (caseSensitive ? s : s.toLowerCase());
    if (t === '*') return () => true;
    if (/[*?]/.test(core)) {
        let src = '';
        for (const ch of t) src += ch === '*' ? '[\\s\\S]*' : ch === '?' ? '[\\s\\S]' : quoteMeta(ch);
        const re = compileRegex(src, { caseInsensitive: !caseSensitive });
        return s => re.test(s);
    }
    if (lead && trail) return s => prep(s).includes(core);
    if (lead) return s => termMatch(prep(s), core, 'suffix');
    if (trail) return s => termMatch(prep(s), core, 'prefix');
    return s => termMatch(prep(s), core, 'has');
}

export function truthTri(v: AplValue): Tri {
    if (v === true) return 1;
    if (v === false) return 0;
    if (v === null || v === undefined) return 2;
    if (typeof v === 'number') return v !== 0 ? 1 : 0;
    if (typeof v === 'string') {
        if (/^(true|1)$/i.test(v)) return 1;
        if (/^(false|0)$/i.test(v)) return 0;
    }
    return 2;
}
