/**
 * String functions (inventory §6 "String functions"): 54 entries, 55 names with the `replace` alias.
 *
 * Conventions shared by every entry here:
 * - A null passed where a string is expected counts as the empty string (KQL has no null string);
 *   a null passed where a number is expected makes the result null.
 * - Lengths, indexes and `reverse` work on Unicode code points, not UTF-16 units (`strlen("😀") == 1`).
 * - Regular expressions use RE2 syntax and semantics, matched in linear time (`compileRegex`).
 */
import { Datetime, Timespan, type AplValue, type JsonValue } from '../values.js';
import type { ScalarFunction } from './catalogue-types.js';
import { MAX_BUILT_STRING_LENGTH } from '../limits.js';
import {
    FunctionArgumentError,
    allMatches,
    codePointLength,
    codePoints,
    compareCodePoints,
    compileRegex,
    firstKnownType,
    int,
    isBag,
    num,
    opt,
    p,
    quoteMeta,
    toJsonValue,
    toText,
    type RegexMatch,
    utf16ToCodePointIndex,
} from './functions-text-helpers.js';

function fn(e: Omit<ScalarFunction, 'kind' | 'category'>): ScalarFunction {
    return { kind: 'scalar', category: 'string', ...e };
}

/** A string argument: null → "", other types converted with tostring semantics. */
const S = toText;

// ---------------------------------------------------------------------------------------------
// Implementation helpers
// ---------------------------------------------------------------------------------------------

function isValidBase64(s: string): boolean {
    const t = s.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(t)) return false;
    return t.replace(/=+$/, '').length % 4 !== 1;
}

function decodeBase64(s: string): Buffer | null {
    if (!isValidBase64(s)) return null;
    return Buffer.from(s.replace(/\s+/g, ''), 'base64');
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string | null {
    try {
        return utf8Strict.decode(bytes);
    } catch {
        return null;
    }
}

function trimStartRegex(pattern: string, s: string): string {
    const m = compileRegex(`\\A(?:${pattern})+`).exec(s);
    return m ? s.slice(m[0].length) : s;
}

function trimEndRegex(pattern: string, s: string): string {
    const m = compileRegex(`(?:${pattern})+\\z`).exec(s);
    return m ? s.slice(0, m.index) : s;
}

/**
 * Expands a replace_regex rewrite for one match. Both conventions work: `\1` (KQL) and Go's
 * `$1`, `${1}`, `$name`, `${name}`, `$$`. As in Go, `$name` takes the longest run of word
 * characters, so `$1x` means the group named `1x` (empty); write `${1}x` instead.
 */
function expandRewrite(rewrite: string, m: RegexMatch): string {
    let out = '';
    const group = (name: string): string => {
        if (/^\d+$/.test(name)) return m[Number(name)] ?? '';
        return m.groups?.[name] ?? '';
    };
    for (let i = 0; i < rewrite.length; i++) {
        const ch = rewrite[i];
        if (ch === '\\' && /\d/.test(rewrite[i + 1] ?? '')) {
            out += group(rewrite[i + 1]);
            i++;
            continue;
        }
        if (ch !== '$') {
            out += ch;
            continue;
        }
        const next = rewrite[i + 1];
        if (next === '$') {
            out += '$';
            i++;
            continue;
        }
        if (next === '{') {
            const end = rewrite.indexOf('}', i + 2);
            const name = end > 0 ? rewrite.slice(i + 2, end) : '';
            if (end > 0 && /^\w+$/.test(name)) {
                out += group(name);
                i = end;
                continue;
            }
            out += '$';
            continue;
        }
        const w = /^\w+/.exec(rewrite.slice(i + 1));
        if (w) {
            out += group(w[0]);
            i += w[0].length;
            continue;
        }
        out += '$';
    }
    return out;
}

function replaceRegex(pattern: string, rewrite: string, text: string): string {
    let out = '';
    let last = 0;
    for (const m of allMatches(pattern, text)) {
        out += text.slice(last, m.index) + expandRewrite(rewrite, m);
        last = m.index + m[0].length;
    }
    return out + text.slice(last);
}

/** How many capture groups a pattern has. */
function groupCount(pattern: string): number {
    return compileRegex(pattern).groupCount();
}

const BASE2_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
const BASE10_UNITS = ['Bytes', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
const UNIT_POWER: Record<string, number> = { b: 0, byte: 0, bytes: 0, k: 1, kb: 1, m: 2, mb: 2, g: 3, gb: 3, t: 4, tb: 4, p: 5, pb: 5, e: 6, eb: 6, z: 7, zb: 7, y: 8, yb: 8 };
const IEC_POWER: Record<string, number> = { ki: 1, kib: 1, mi: 2, mib: 2, gi: 3, gib: 3, ti: 4, tib: 4, pi: 5, pib: 5, ei: 6, eib: 6, zi: 7, zib: 7, yi: 8, yib: 8 };

/** The multiplier of a unit name (`KB`, `KiB`, `kB`, `MB`, `Bytes`, ...); `KiB`-style units are always 1024-based. */
function unitFactor(unit: string, base: number): number | undefined {
    const u = unit.toLowerCase();
    if (u in IEC_POWER) return 1024 ** IEC_POWER[u];
    if (u in UNIT_POWER) return (base === 10 ? 1000 : 1024) ** UNIT_POWER[u];
    return undefined;
}

function formatBytes(value: number, precision: number, units: string, base: number): string | null {
    if (base !== 2 && base !== 10) return null;
    if (precision < 0 || precision > 100) return null;
    const step = base === 10 ? 1000 : 1024;
    const names = base === 10 ? BASE10_UNITS : BASE2_UNITS;
    let label: string;
    let scaled: number;
    if (units !== '') {
        const f = unitFactor(units, base);
        if (f === undefined) return null;
        label = units;
        scaled = value / f;
    } else {
        let k = 0;
        while (k < names.length - 1 && Math.abs(value) >= step ** (k + 1)) k++;
        label = names[k];
        scaled = value / step ** k;
    }
    const text = label === 'Bytes' && Number.isInteger(scaled) ? String(scaled) : scaled.toFixed(precision);
    return `${text} ${label}`;
}

function parseBytes(s: string, base: number): number | null {
    if (base !== 2 && base !== 10) return null;
    const m = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z]*)\s*$/.exec(s);
    if (!m) return 0;
    const f = m[2] === '' ? 1 : unitFactor(m[2], base);
    if (f === undefined) return 0;
    return Math.trunc(Number(m[1]) * f);
}

/** The first record of a CSV text as an array of fields (RFC 4180 quoting, `""` escapes a quote). */
function parseCsvRecord(s: string): string[] {
    const fields: string[] = [];
    let field = '';
    let i = 0;
    let quoted = false;
    while (i < s.length) {
        const ch = s[i];
        if (quoted) {
            if (ch === '"') {
                if (s[i + 1] === '"') {
                    field += '"';
                    i += 2;
                    continue;
                }
                quoted = false;
                i++;
                continue;
            }
            field += ch;
            i++;
            continue;
        }
        if (ch === '"' && field === '') {
            quoted = true;
            i++;
            continue;
        }
        if (ch === ',') {
            fields.push(field);
            field = '';
            i++;
            continue;
        }
        if (ch === '\n' || ch === '\r') break;
        field += ch;
        i++;
    }
    fields.push(field);
    return fields;
}

/** Go's `url.QueryUnescape`: `%XX` decoded as UTF-8, `+` is a space; null on a bad escape. */
function queryUnescape(s: string): string | null {
    if (/%(?![0-9a-fA-F]{2})/.test(s)) return null;
    const bytes: number[] = [];
    const plain = Buffer.from(s.replace(/\+/g, ' '), 'utf8');
    for (let i = 0; i < plain.length; i++) {
        if (plain[i] === 0x25) {
            bytes.push(parseInt(String.fromCharCode(plain[i + 1], plain[i + 2]), 16));
            i += 2;
        } else {
            bytes.push(plain[i]);
        }
    }
    return Buffer.from(bytes).toString('utf8');
}

/** Go's `url.QueryEscape`: everything but `A-Za-z0-9-_.~` is %-escaped (upper-case hex), space is `+`. */
function queryEscape(s: string): string {
    let out = '';
    for (const b of Buffer.from(s, 'utf8')) {
        const c = String.fromCharCode(b);
        if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
        else if (b === 0x20) out += '+';
        else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
}

function parseQueryString(q: string): { [key: string]: JsonValue } {
    const bag: { [key: string]: JsonValue } = {};
    for (const part of q.split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const rawKey = eq < 0 ? part : part.slice(0, eq);
        const rawValue = eq < 0 ? '' : part.slice(eq + 1);
        const key = queryUnescape(rawKey) ?? rawKey;
        const value = queryUnescape(rawValue) ?? rawValue;
        // Like Go's url.Values.Get: the first value of a repeated key wins.
        if (!Object.prototype.hasOwnProperty.call(bag, key)) bag[key] = value;
    }
    return bag;
}

const URL_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(?:([^:@/?#]*)(?::([^@/?#]*))?@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function parseUrl(url: string): { [key: string]: JsonValue } | null {
    const m = URL_RE.exec(url);
    if (!m) return null;
    const [, scheme, user, password, host, port, path, query, fragment] = m;
    return {
        scheme,
        host: host.replace(/^\[|\]$/g, ''),
        port: port ?? '',
        path: path ?? '',
        username: user === undefined ? '' : queryUnescape(user) ?? user,
        password: password === undefined ? '' : queryUnescape(password) ?? password,
        query: parseQueryString(query ?? ''),
        fragment: fragment ?? '',
    };
}

function formatUrl(parts: { [key: string]: JsonValue }): string {
    const str = (k: string): string => {
        const v = parts[k];
        return v === undefined || v === null ? '' : typeof v === 'string' ? v : toText(v);
    };
    let out = '';
    const scheme = str('scheme');
    const host = str('host');
    if (scheme !== '') out += `${scheme}:`;
    if (host !== '' || scheme !== '') out += '//';
    const user = str('user') || str('username');
    if (user !== '') {
        out += user;
        const pass = str('password');
        if (pass !== '') out += `:${pass}`;
        out += '@';
    }
    out += host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    const port = str('port');
    if (port !== '') out += `:${port}`;
    const path = str('path');
    if (path !== '') out += path.startsWith('/') || out === '' ? path : `/${path}`;
    const query = parts.query;
    if (isBag(query)) {
        const q = Object.entries(query).map(([k, v]) => `${queryEscape(k)}=${queryEscape(v === null ? '' : toText(v))}`).join('&');
        if (q !== '') out += `?${q}`;
    } else if (query !== undefined && query !== null && toText(query) !== '') {
        out += `?${toText(query).replace(/^\?/, '')}`;
    }
    const fragment = str('fragment');
    if (fragment !== '') out += `#${fragment}`;
    return out;
}

/**
 * Splits a path, file URI or URL the way KQL's parse_path does: Scheme, RootPath (host or drive),
 * DirectoryPath (everything before the file name), DirectoryName, Filename (with extension),
 * Extension (without the dot) and AlternateDataStreamName (NTFS `file:stream`).
 */
function parsePath(source: string): { [key: string]: JsonValue } {
    let scheme = '';
    let root = '';
    let rest = source;
    const sm = /^([a-zA-Z][a-zA-Z0-9+.-]+):\/\/(.*)$/s.exec(source);
    if (sm) {
        scheme = sm[1];
        const afterScheme = sm[2];
        const slash = afterScheme.search(/[/\\]/);
        root = slash < 0 ? afterScheme : afterScheme.slice(0, slash);
        rest = source;
    } else {
        const drive = /^([a-zA-Z]:)[\\/]?/.exec(source);
        const unc = /^\\\\([^\\]+)/.exec(source);
        if (drive) root = drive[1];
        else if (unc) root = unc[1];
    }
    const lastSep = Math.max(rest.lastIndexOf('/'), rest.lastIndexOf('\\'));
    let filename = lastSep < 0 ? rest : rest.slice(lastSep + 1);
    let directoryPath = lastSep < 0 ? '' : rest.slice(0, lastSep);
    if (sm && directoryPath.length < scheme.length + 3 + root.length) {
        // `https://host` with no path: the host is not a file name.
        directoryPath = rest;
        filename = '';
    }
    let ads = '';
    const colon = filename.indexOf(':');
    if (colon > 0 && !sm) {
        ads = filename.slice(colon + 1);
        filename = filename.slice(0, colon);
    }
    const dirSep = Math.max(directoryPath.lastIndexOf('/'), directoryPath.lastIndexOf('\\'));
    const directoryName = dirSep < 0 ? (directoryPath === root ? '' : directoryPath) : directoryPath.slice(dirSep + 1);
    const dot = filename.lastIndexOf('.');
    const extension = dot > 0 ? filename.slice(dot + 1) : '';
    return {
        Scheme: scheme,
        RootPath: root,
        DirectoryPath: directoryPath,
        DirectoryName: directoryName,
        Filename: filename,
        Extension: extension,
        AlternateDataStream: ads,
    };
}

/** Go's `strconv.Quote`: double quotes, Go escapes, printable Unicode kept. */
function goQuote(s: string): string {
    let out = '"';
    for (const ch of s) {
        const c = ch.codePointAt(0)!;
        switch (ch) {
            case '"': out += '\\"'; continue;
            case '\\': out += '\\\\'; continue;
            case '\n': out += '\\n'; continue;
            case '\r': out += '\\r'; continue;
            case '\t': out += '\\t'; continue;
            case '\x07': out += '\\a'; continue;
            case '\b': out += '\\b'; continue;
            case '\f': out += '\\f'; continue;
            case '\v': out += '\\v'; continue;
        }
        if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
        else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
        else if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch) || (/\p{Z}/u.test(ch) && ch !== ' ')) {
            out += c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
        } else out += ch;
    }
    return `${out}"`;
}

/** Go's (deprecated) `strings.Title`: upper-cases the first letter of every word, leaves the rest. */
function goTitle(s: string): string {
    let prevSeparator = true;
    let out = '';
    for (const ch of s) {
        out += prevSeparator ? ch.toUpperCase() : ch;
        const c = ch.codePointAt(0)!;
        if (c < 0x80) prevSeparator = !/[A-Za-z0-9_]/.test(ch);
        else if (/[\p{L}\p{N}]/u.test(ch)) prevSeparator = false;
        else prevSeparator = /\s/u.test(ch);
    }
    return out;
}

// Control characters are what these patterns match (terminal escape sequences).
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;

function isEmptyValue(v: AplValue): boolean {
    if (v === null || v === '') return true;
    if (Array.isArray(v)) return v.length === 0;
    if (isBag(v)) return Object.keys(v).length === 0;
    return false;
}

/** gettype's name for a value, using the static type to tell long from real. */
function typeName(v: AplValue, staticType: string | undefined): string {
    if (v === null) return 'null';
    if (typeof v === 'string') return 'string';
    if (typeof v === 'boolean') return 'bool';
    if (typeof v === 'number') {
        if (staticType === 'long') return 'long';
        if (staticType === 'real') return 'real';
        return Number.isInteger(v) ? 'long' : 'real';
    }
    if (v instanceof Datetime) return 'datetime';
    if (v instanceof Timespan) return 'timespan';
    if (Array.isArray(v)) return 'array';
    return 'dictionary';
}

/** Finds `lookup` in the code points `cps[start .. end)` and returns the `occurrence`-th index (-1 when absent). */
function indexOfIn(cps: string[], lookup: string, start: number, end: number, occurrence: number): number {
    const window = cps.slice(start, end).join('');
    let from = 0;
    let found = -1;
    for (let k = 0; k < occurrence; k++) {
        found = window.indexOf(lookup, from);
        if (found < 0) return -1;
        from = found + Math.max(1, window.codePointAt(found)! > 0xffff ? 2 : 1);
    }
    return start + utf16ToCodePointIndex(window, found);
}

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

export const STRING_FUNCTIONS: ScalarFunction[] = [
    fn({
        name: 'base64_decode_toarray',
        signatures: [{ params: [p('base64_input', 'string')] }],
        returns: 'dynamic',
        description: 'Decodes a base64 string into its raw bytes, returned as a dynamic array of numbers 0–255. Invalid base64 gives null.',
        example: "print bytes = base64_decode_toarray('S3VzdG8=')",
        evaluate: ([s]) => {
            const buf = decodeBase64(S(s));
            return buf === null ? null : [...buf];
        },
    }),
    fn({
        name: 'base64_decode_tostring',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Decodes a base64 string and reads the bytes as UTF-8 text. Gives null when the input is not base64 or the bytes are not valid UTF-8.',
        example: "print text = base64_decode_tostring('S3VzdG8=')",
        evaluate: ([s]) => {
            const buf = decodeBase64(S(s));
            return buf === null ? null : decodeUtf8(buf);
        },
    }),
    fn({
        name: 'base64_encode_fromarray',
        signatures: [{ params: [p('array', 'array')] }],
        returns: 'string',
        description: 'Encodes a dynamic array of byte values (integers 0–255) as base64. Any other element makes the result null.',
        example: 'print encoded = base64_encode_fromarray(dynamic([75, 117, 115, 116, 111]))',
        evaluate: ([a]) => {
            if (!Array.isArray(a)) return null;
            if (!a.every(b => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255)) return null;
            return Buffer.from(a as number[]).toString('base64');
        },
    }),
    fn({
        name: 'base64_encode_tostring',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Encodes the UTF-8 bytes of a string as base64.',
        example: "print encoded = base64_encode_tostring('Kusto')",
        evaluate: ([s]) => Buffer.from(S(s), 'utf8').toString('base64'),
    }),
    fn({
        name: 'coalesce',
        signatures: [{ params: [p('expr', 'scalar', { variadic: true })], arity: { min: 1, max: 64 } }],
        returns: firstKnownType,
        description: 'Returns the first argument that is not null; for string arguments an empty string also counts as missing. All arguments should have the same type.',
        example: "['sample-http-logs'] | extend city = coalesce(['geo.city'], ['geo.country'], 'unknown')",
        evaluate: (args, ctx) => {
            for (let i = 0; i < args.length; i++) {
                const v = args[i];
                if (v === null) continue;
                if (v === '' && (ctx.argTypes[i] === 'string' || ctx.argTypes[i] === undefined)) continue;
                return v;
            }
            return null;
        },
    }),
    fn({
        name: 'countof',
        signatures: [{ params: [p('search', 'string'), p('text', 'string')] }],
        returns: 'long',
        description: 'Counts how many times a substring occurs in a text (case-sensitive, non-overlapping, left to right). Note APL puts the search string first.',
        example: "['sample-http-logs'] | extend slashes = countof('/', uri)",
        evaluate: ([search, text]) => {
            const needle = S(search);
            const hay = S(text);
            if (needle === '') return 0;
            let n = 0;
            for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
            return n;
        },
    }),
    fn({
        name: 'countof_regex',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'long',
        description: 'Counts the non-overlapping matches of an RE2 regular expression in a text.',
        example: "['sample-http-logs'] | extend digit_runs = countof_regex('[0-9]+', uri)",
        axiomOnly: true,
        evaluate: ([re, text]) => allMatches(S(re), S(text)).length,
    }),
    fn({
        name: 'extract',
        signatures: [{ params: [p('regex', 'regex'), p('captureGroup', 'long'), p('text', 'string')] }],
        returns: 'string',
        description: 'Returns one capture group of the first match of a regular expression (group 0 is the whole match). No match, or a group number the pattern lacks, gives null.',
        example: "['sample-http-logs'] | extend user_id = extract('user-([0-9]+)', 1, uri)",
        evaluate: ([re, group, text]) => {
            const g = int(group);
            if (g === null || g < 0) return null;
            const m = compileRegex(S(re)).exec(S(text));
            if (!m || g >= m.length) return null;
            return m[g] ?? '';
        },
    }),
    fn({
        name: 'extract_all',
        signatures: [{ params: [p('regex', 'regex'), p('captureGroups', 'array'), p('text', 'string')] }],
        returns: 'dynamic',
        description: 'Returns the selected capture groups of every match as a dynamic array. With one selected group the result is a flat array of strings, otherwise an array of arrays. Groups are numbers or names; no match gives null.',
        example: "['sample-http-logs'] | extend numbers = extract_all('([0-9]+)', dynamic([1]), uri)",
        evaluate: ([re, groups, text]) => {
            const pattern = S(re);
            const matches = allMatches(pattern, S(text));
            if (matches.length === 0) return null;
            let selected: Array<number | string>;
            if (Array.isArray(groups) && groups.length > 0) {
                selected = groups.map(g => (typeof g === 'number' ? g : String(g)));
            } else {
                const n = groupCount(pattern);
                selected = n === 0 ? [0] : Array.from({ length: n }, (_, i) => i + 1);
            }
            const pick = (m: RegexMatch, g: number | string): string =>
                typeof g === 'number' ? (m[g] ?? '') : (m.groups?.[g] ?? '');
            if (selected.length === 1) return matches.map(m => pick(m, selected[0]));
            return matches.map(m => selected.map(g => pick(m, g)));
        },
    }),
    fn({
        name: 'format_bytes',
        resultName: 'firstArgument',
        signatures: [{ params: [p('value', 'number'), opt('precision', 'long'), opt('units', 'string'), opt('base', 'long')] }],
        returns: 'string',
        description: 'Formats a byte count as text with a size unit, e.g. `1.18 MB`. Without `units` the largest fitting unit is chosen; `base` 2 (default) steps by 1024, base 10 by 1000.',
        example: "['sample-http-logs'] | extend size = format_bytes(resp_header_size_bytes, 2)",
        evaluate: ([value, precision, units, base]) => {
            const v = num(value);
            if (v === null) return null;
            const prec = precision === undefined || precision === null ? 0 : int(precision);
            const b = base === undefined || base === null ? 2 : int(base);
            if (prec === null || b === null) return null;
            return formatBytes(v, prec, units === undefined ? '' : S(units), b);
        },
    }),
    fn({
        name: 'format_url',
        signatures: [{ params: [p('url_parts', 'bag')] }],
        returns: 'string',
        description: 'Builds a URL from a property bag with any of `scheme`, `host`, `port`, `path`, `user`, `password`, `query` (a string or a bag of parameters) and `fragment`.',
        example: "print url = format_url(dynamic({'scheme': 'https', 'host': 'axiom.co', 'path': '/docs'}))",
        axiomOnly: true,
        evaluate: ([parts]) => (isBag(parts) ? formatUrl(parts) : null),
    }),
    fn({
        name: 'gettype',
        resultName: { prefix: 'type' },
        signatures: [{ params: [p('expression', 'any')] }],
        returns: 'string',
        description: 'Names the runtime type of a value: `string`, `long`, `real`, `bool`, `datetime`, `timespan`, `array`, `dictionary`, or `null`. Inside dynamic, the type of the element itself is reported.',
        example: "['sample-http-logs'] | extend t = gettype(req_duration_ms)",
        evaluate: ([v], ctx) => typeName(v, ctx.argTypes[0]),
    }),
    fn({
        name: 'indexof',
        signatures: [{ params: [p('source', 'string'), p('lookup', 'string'), opt('start_index', 'long'), opt('length', 'long'), opt('occurrence', 'long')] }],
        returns: 'long',
        description: 'The zero-based position (in characters) of a substring, or -1 when absent. Optional start, search length (-1 = to the end) and which occurrence to find; invalid values (start < 0, length < -1, occurrence < 1) give null.',
        example: "['sample-http-logs'] | extend api_pos = indexof(uri, '/api/')",
        evaluate: ([source, lookup, start, length, occurrence]) => {
            const st = start === undefined ? 0 : int(start);
            const len = length === undefined ? -1 : int(length);
            const occ = occurrence === undefined ? 1 : int(occurrence);
            if (st === null || len === null || occ === null || st < 0 || len < -1 || occ < 1) return null;
            const cps = codePoints(S(source));
            if (st > cps.length) return -1;
            return indexOfIn(cps, S(lookup), st, len === -1 ? cps.length : st + len, occ);
        },
    }),
    fn({
        name: 'indexof_regex',
        signatures: [{ params: [p('string', 'string'), p('match', 'regex'), opt('start', 'long'), opt('occurrence', 'long'), opt('length', 'long')] }],
        returns: 'long',
        description: 'The zero-based position of a regular-expression match, or -1 when there is none. Optional start, occurrence and search length (-1 = to the end); start < 0, occurrence < 1 or length < -1 give null.',
        example: "['sample-http-logs'] | extend pos = indexof_regex(uri, 'user-[0-9]+')",
        evaluate: ([source, re, start, occurrence, length]) => {
            const st = start === undefined ? 0 : int(start);
            const occ = occurrence === undefined ? 1 : int(occurrence);
            const len = length === undefined ? -1 : int(length);
            if (st === null || len === null || occ === null || st < 0 || len < -1 || occ < 1) return null;
            const cps = codePoints(S(source));
            if (st > cps.length) return -1;
            const window = cps.slice(st, len === -1 ? undefined : st + len).join('');
            const matches = allMatches(S(re), window);
            if (matches.length < occ) return -1;
            return st + utf16ToCodePointIndex(window, matches[occ - 1].index);
        },
    }),
    fn({
        name: 'isascii',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'bool',
        description: 'True when every character of the string is ASCII (code point below 128).',
        example: "['sample-http-logs'] | extend ascii_uri = isascii(uri)",
        // eslint-disable-next-line no-control-regex -- ASCII is U+0000 to U+007F, controls included
        evaluate: ([s]) => /^[\x00-\x7f]*$/.test(S(s)),
    }),
    fn({
        name: 'isempty',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is null, an empty string, or an empty dynamic array or bag.',
        example: "['sample-http-logs'] | where isempty(['geo.city'])",
        evaluate: ([v]) => isEmptyValue(v),
    }),
    fn({
        name: 'isnotempty',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'The negation of `isempty`: true when the value is neither null, an empty string, nor an empty array or bag.',
        example: "['sample-http-logs'] | where isnotempty(['geo.city'])",
        evaluate: ([v]) => !isEmptyValue(v),
    }),
    fn({
        name: 'isnotnull',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is not null. An empty string is not null.',
        example: "['sample-http-logs'] | where isnotnull(req_duration_ms)",
        evaluate: ([v]) => v !== null,
    }),
    fn({
        name: 'isnull',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'bool',
        description: 'True when the value is null (of any type). An empty string is not null.',
        example: "['sample-http-logs'] | where isnull(req_duration_ms)",
        evaluate: ([v]) => v === null,
    }),
    fn({
        name: 'parse_bytes',
        signatures: [{ params: [p('bytes_string', 'string'), opt('base', 'long')] }],
        returns: 'long',
        description: 'Reads a size such as `512 KB` or `1.5 GiB` into a number of bytes. Base 2 (default) makes `KB` 1024 bytes, base 10 makes it 1000; `KiB`-style units are always 1024-based. Unreadable text gives 0.',
        example: "print bytes = parse_bytes('512 KB')",
        axiomOnly: true,
        evaluate: ([s, base]) => {
            const b = base === undefined || base === null ? 2 : int(base);
            return b === null ? null : parseBytes(S(s), b);
        },
    }),
    fn({
        name: 'parse_csv',
        resultName: 'firstArgument',
        signatures: [{ params: [p('csv_text', 'string')] }],
        returns: 'dynamic',
        description: 'Splits one comma-separated record into a dynamic array of strings. Fields may be double-quoted (with `""` for a quote inside); only the first record of the text is read.',
        example: "print fields = parse_csv('a,\"b,c\",d')",
        evaluate: ([s]) => parseCsvRecord(S(s)),
    }),
    fn({
        name: 'parse_json',
        resultName: 'firstArgument',
        signatures: [{ params: [p('json_string', 'scalar')] }],
        returns: 'dynamic',
        description: 'Interprets a string as JSON and returns the dynamic value. Text that is not valid JSON comes back as a dynamic string; values that are already dynamic are returned unchanged.',
        example: "print bag = parse_json('{\"a\": 1, \"b\": [1, 2]}')",
        evaluate: ([v]) => toDynamicValue(v),
    }),
    fn({
        name: 'parse_path',
        signatures: [{ params: [p('source', 'string')] }],
        returns: 'dynamic',
        description: 'Splits a file path, file URI or URL into a bag with `Scheme`, `RootPath`, `DirectoryPath`, `DirectoryName`, `Filename`, `Extension` and `AlternateDataStream`.',
        example: "print parts = parse_path('/api/v1/files/report.pdf')",
        evaluate: ([s]) => parsePath(S(s)),
    }),
    fn({
        name: 'parse_url',
        signatures: [{ params: [p('url', 'string')] }],
        returns: 'dynamic',
        description: 'Splits an absolute URL into a bag with `scheme`, `host`, `port`, `path`, `username`, `password`, `query` (a bag of the decoded query parameters) and `fragment`. Text that is not an absolute URL gives null.',
        example: "print parts = parse_url('https://user:pw@axiom.co:443/docs?q=apl#top')",
        evaluate: ([s]) => parseUrl(S(s)),
    }),
    fn({
        name: 'parse_urlquery',
        signatures: [{ params: [p('query_string', 'string')] }],
        returns: 'dynamic',
        description: 'Parses a URL query string (with or without the leading `?`, or a whole URL) into a bag of decoded parameter values. A repeated key keeps its first value.',
        example: "print params = parse_urlquery('page=1&sort=date')",
        evaluate: ([s]) => {
            let q = S(s);
            const qm = q.indexOf('?');
            if (qm >= 0) q = q.slice(qm + 1);
            const hash = q.indexOf('#');
            if (hash >= 0) q = q.slice(0, hash);
            return parseQueryString(q);
        },
    }),
    fn({
        name: 'quote',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Wraps a string in double quotes, escaping quotes, backslashes and control characters (Go `strconv.Quote` style).',
        example: "print q = quote('say \"hi\"')",
        axiomOnly: true,
        evaluate: ([s]) => goQuote(S(s)),
    }),
    fn({
        name: 'regex_quote',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Escapes every regular-expression metacharacter so the string matches itself literally when used as a regex.',
        example: "print re = regex_quote('/api/v1/users[1]')",
        evaluate: ([s]) => quoteMeta(S(s)),
    }),
    fn({
        name: 'replace_regex',
        aliases: ['replace'],
        signatures: [{ params: [p('regex', 'regex'), p('rewrite', 'string'), p('text', 'string')] }],
        returns: 'string',
        description: 'Replaces every match of a regular expression. The rewrite may refer to capture groups as `$1`, `${1}`, `${name}` or `\\1`; `$$` is a literal dollar.',
        example: "['sample-http-logs'] | extend masked = replace_regex('([0-9]{4})[0-9]+', '$1****', uri)",
        evaluate: ([re, rewrite, text]) => replaceRegex(S(re), S(rewrite), S(text)),
    }),
    fn({
        name: 'replace_string',
        signatures: [{ params: [p('lookup', 'string'), p('rewrite', 'string'), p('text', 'string')] }],
        returns: 'string',
        description: 'Replaces every (non-overlapping, case-sensitive) occurrence of a plain substring. An empty lookup leaves the text unchanged.',
        example: "['sample-http-logs'] | extend verb = replace_string('GET', 'Retrieve', method)",
        evaluate: ([lookup, rewrite, text]) => {
            const l = S(lookup);
            return l === '' ? S(text) : S(text).split(l).join(S(rewrite));
        },
    }),
    fn({
        name: 'reverse',
        signatures: [{ params: [p('value', 'scalar')] }],
        returns: 'string',
        description: 'Reverses the characters of a string (non-strings are converted to text first).',
        example: "print r = reverse('axiom')",
        evaluate: ([s]) => codePoints(S(s)).reverse().join(''),
    }),
    fn({
        name: 'split',
        resultName: 'firstArgument',
        signatures: [{ params: [p('source', 'string'), p('delimiter', 'string')] }],
        returns: 'dynamic',
        description: 'Splits a string at every occurrence of a delimiter and returns the pieces as a dynamic array of strings (an empty delimiter splits into characters).',
        example: "['sample-http-logs'] | extend segments = split(uri, '/')",
        evaluate: ([source, delim]) => {
            const s = S(source);
            const d = S(delim);
            return d === '' ? codePoints(s) : s.split(d);
        },
    }),
    fn({
        name: 'strcat',
        signatures: [{ params: [p('arg', 'scalar', { variadic: true })], arity: { min: 1, max: 64 } }],
        returns: 'string',
        description: 'Concatenates 1 to 64 values as text; nulls contribute nothing and non-strings are converted as by `tostring`.',
        example: "['sample-http-logs'] | extend line = strcat(method, ' ', uri)",
        evaluate: args => args.map(S).join(''),
    }),
    fn({
        name: 'strcat_delim',
        signatures: [{ params: [p('delimiter', 'string'), p('arg', 'scalar', { variadic: true })], arity: { min: 3, max: 65 } }],
        returns: 'string',
        description: 'Concatenates 2 to 64 values as text with a delimiter between them.',
        example: "['sample-http-logs'] | extend key = strcat_delim(':', method, status, uri)",
        evaluate: ([delim, ...rest]) => rest.map(S).join(S(delim)),
    }),
    fn({
        name: 'strcmp',
        signatures: [{ params: [p('string1', 'string'), p('string2', 'string')] }],
        returns: 'long',
        description: 'Compares two strings by code point: -1 if the first sorts before the second, 0 if equal, 1 if after.',
        example: "print c = strcmp('abc', 'abd')",
        evaluate: ([a, b]) => compareCodePoints(S(a), S(b)),
    }),
    fn({
        name: 'string_size',
        resultName: { prefix: 'string_size' },
        signatures: [{ params: [p('source', 'string')] }],
        returns: 'long',
        description: 'The size of a string in bytes when encoded as UTF-8 (compare `strlen`, which counts characters).',
        example: "print bytes = string_size('héllo')",
        evaluate: ([s]) => Buffer.byteLength(S(s), 'utf8'),
    }),
    fn({
        name: 'strip_ansi_escapes',
        signatures: [{ params: [p('text', 'string')] }],
        returns: 'string',
        description: 'Removes ANSI terminal escape sequences (colours, cursor movement, OSC titles) from a string.',
        example: "print clean = strip_ansi_escapes('\\u001b[31mred\\u001b[0m')",
        axiomOnly: true,
        evaluate: ([s]) => S(s).replace(ANSI_RE, ''),
    }),
    fn({
        name: 'strlen',
        resultName: { prefix: 'strlen' },
        signatures: [{ params: [p('source', 'string')] }],
        returns: 'long',
        description: 'The number of Unicode characters (code points) in a string; an emoji made of one code point counts as 1. Null counts as the empty string.',
        example: "['sample-http-logs'] | extend uri_length = strlen(uri)",
        evaluate: ([s]) => codePointLength(S(s)),
    }),
    fn({
        name: 'strrep',
        signatures: [{ params: [p('value', 'scalar'), p('multiplier', 'long'), opt('delimiter', 'string')] }],
        returns: 'string',
        description: 'Repeats a value (as text) a number of times, optionally with a delimiter between repetitions. The count is capped at 1024 and the result at 16 Mi characters (an error beyond); zero or less gives an empty string.',
        example: "print line = strrep('=', 20)",
        evaluate: ([value, multiplier, delimiter]) => {
            const n = int(multiplier);
            if (n === null) return null;
            if (n <= 0) return '';
            const text = S(value);
            const delim = delimiter === undefined ? '' : S(delimiter);
            const count = Math.min(n, 1024);
            const length = count * text.length + (count - 1) * delim.length;
            if (length > MAX_BUILT_STRING_LENGTH) throw new FunctionArgumentError(`strrep would build a string of ${length.toLocaleString('en-US')} characters, more than ${MAX_BUILT_STRING_LENGTH.toLocaleString('en-US')}`);
            return Array.from({ length: count }, () => text).join(delim);
        },
    }),
    fn({
        name: 'substring',
        signatures: [{ params: [p('source', 'string'), p('startingIndex', 'long'), opt('length', 'long')] }],
        returns: 'string',
        description: 'The part of a string from a zero-based character index, optionally limited to a number of characters. A negative start is treated as 0; indexes past the end give an empty string.',
        example: "['sample-http-logs'] | extend prefix = substring(uri, 0, 4)",
        evaluate: ([source, start, length]) => {
            const st = int(start);
            const len = length === undefined ? Infinity : int(length);
            if (st === null || len === null) return null;
            if (len < 0) return '';
            const cps = codePoints(S(source));
            const from = Math.max(0, st);
            return cps.slice(from, len === Infinity ? undefined : from + len).join('');
        },
    }),
    fn({
        name: 'tolower',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Converts a string to lower case (Unicode-aware).',
        example: "['sample-http-logs'] | extend m = tolower(method)",
        evaluate: ([s]) => S(s).toLowerCase(),
    }),
    fn({
        name: 'totitle',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Upper-cases the first letter of every word and leaves the other letters as they are (Go `strings.Title`).',
        example: "print t = totitle('hello world')",
        axiomOnly: true,
        evaluate: ([s]) => goTitle(S(s)),
    }),
    fn({
        name: 'toupper',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Converts a string to upper case (Unicode-aware).',
        example: "['sample-http-logs'] | extend m = toupper(method)",
        evaluate: ([s]) => S(s).toUpperCase(),
    }),
    fn({
        name: 'translate',
        signatures: [{ params: [p('searchList', 'string'), p('replacementList', 'string'), p('source', 'string')] }],
        returns: 'string',
        description: 'Replaces each character of `searchList` found in the source with the character at the same position in `replacementList`. If that list is shorter its last character is used; if it is empty the characters are deleted.',
        example: "print t = translate('abc', 'xyz', 'aabbcc')",
        evaluate: ([search, replacement, source]) => {
            const from = codePoints(S(search));
            const to = codePoints(S(replacement));
            const map = new Map<string, string>();
            from.forEach((c, i) => {
                if (!map.has(c)) map.set(c, to.length === 0 ? '' : (to[i] ?? to[to.length - 1]));
            });
            return codePoints(S(source)).map(c => map.get(c) ?? c).join('');
        },
    }),
    fn({
        name: 'trim',
        signatures: [{ params: [p('regex', 'regex'), p('source', 'string')] }],
        returns: 'string',
        description: 'Removes every leading and trailing match of a regular expression (a plain string works as a literal pattern when it has no metacharacters).',
        example: "['sample-http-logs'] | extend clean = trim('[/]+', uri)",
        evaluate: ([re, s]) => trimEndRegex(S(re), trimStartRegex(S(re), S(s))),
    }),
    fn({
        name: 'trim_end',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'string',
        description: 'Removes every trailing match of a regular expression.',
        example: "['sample-http-logs'] | extend clean = trim_end('/+', uri)",
        evaluate: ([re, s]) => trimEndRegex(S(re), S(s)),
    }),
    fn({
        name: 'trim_end_regex',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'string',
        description: 'Removes every trailing match of a regular expression (the same as `trim_end`).',
        example: "['sample-http-logs'] | extend clean = trim_end_regex('[0-9]+', uri)",
        axiomOnly: true,
        evaluate: ([re, s]) => trimEndRegex(S(re), S(s)),
    }),
    fn({
        name: 'trim_regex',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'string',
        description: 'Removes every leading and trailing match of a regular expression (the same as `trim`).',
        example: "['sample-http-logs'] | extend clean = trim_regex('[/]+', uri)",
        axiomOnly: true,
        evaluate: ([re, s]) => trimEndRegex(S(re), trimStartRegex(S(re), S(s))),
    }),
    fn({
        name: 'trim_space',
        signatures: [{ params: [p('value', 'string')] }],
        returns: 'string',
        description: 'Removes leading and trailing Unicode white space.',
        example: "print t = trim_space('  padded  ')",
        axiomOnly: true,
        evaluate: ([s]) => S(s).replace(/^[\s\u0085]+|[\s\u0085]+$/gu, ''),
    }),
    fn({
        name: 'trim_start',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'string',
        description: 'Removes every leading match of a regular expression.',
        example: "['sample-http-logs'] | extend clean = trim_start('/', uri)",
        evaluate: ([re, s]) => trimStartRegex(S(re), S(s)),
    }),
    fn({
        name: 'trim_start_regex',
        signatures: [{ params: [p('regex', 'regex'), p('text', 'string')] }],
        returns: 'string',
        description: 'Removes every leading match of a regular expression (the same as `trim_start`).',
        example: "['sample-http-logs'] | extend clean = trim_start_regex('/api', uri)",
        axiomOnly: true,
        evaluate: ([re, s]) => trimStartRegex(S(re), S(s)),
    }),
    fn({
        name: 'unicode_codepoints_from_string',
        signatures: [{ params: [p('source', 'string')] }],
        returns: 'dynamic',
        description: 'The Unicode code point of every character of a string, as a dynamic array of numbers.',
        example: "print cps = unicode_codepoints_from_string('abc')",
        evaluate: ([s]) => codePoints(S(s)).map(c => c.codePointAt(0)!),
    }),
    fn({
        name: 'unicode_codepoints_to_string',
        signatures: [{ params: [p('array', 'array')] }],
        returns: 'string',
        description: 'Builds a string from a dynamic array of Unicode code points. A value that is not a valid code point makes the result null.',
        example: 'print s = unicode_codepoints_to_string(dynamic([72, 101, 108, 108, 111]))',
        evaluate: ([a]) => {
            if (!Array.isArray(a)) return null;
            let out = '';
            for (const c of a) {
                if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return null;
                out += String.fromCodePoint(c);
            }
            return out;
        },
    }),
    fn({
        name: 'url_decode',
        signatures: [{ params: [p('encoded_url', 'string')] }],
        returns: 'string',
        description: 'Decodes `%XX` escapes (as UTF-8) and `+` as a space. A malformed escape gives null.',
        example: "print u = url_decode('a%20b%2Fc')",
        evaluate: ([s]) => queryUnescape(S(s)),
    }),
    fn({
        name: 'url_encode',
        signatures: [{ params: [p('url', 'string')] }],
        returns: 'string',
        description: 'Escapes a string for use in a URL query: every byte except letters, digits and `-_.~` becomes `%XX`, and a space becomes `+`.',
        example: "print u = url_encode('a b/c')",
        evaluate: ([s]) => queryEscape(S(s)),
    }),
];

/** `parse_json`/`todynamic`: strings are parsed as JSON (falling back to the string itself). */
export function toDynamicValue(v: AplValue): AplValue {
    if (v === null) return null;
    if (typeof v === 'string') {
        try {
            return JSON.parse(v) as JsonValue;
        } catch {
            return v;
        }
    }
    return toJsonValue(v);
}

/** Exported for the conversion file and for tests. */
export { parseUrl, formatUrl, queryEscape, queryUnescape };
