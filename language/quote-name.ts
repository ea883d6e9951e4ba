/**
 * How a name or a string is written in a query (no dependencies: the editor extension bundles this
 * alone). Every generated name and string goes through here, so that any text (quotes, backslashes,
 * line breaks, control characters, brackets) comes back from the parser exactly as it went in.
 */

/** A plain identifier needs no brackets. */
export function isPlainIdentifier(name: string): boolean {
    return /^[A-Za-z_$][A-Za-z0-9_]*$/.test(name);
}

/**
 * `text` as a single-quoted string literal: backslash and quote escaped, line breaks and every other
 * control or invisible format character (which a query cannot hold raw, or would hide) as `\n` or `\uXXXX`.
 */
export function quoteString(text: string): string {
    // eslint-disable-next-line no-control-regex -- these are exactly the characters to escape
    return `'${text.replace(/[\\'\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g, escapeChar)}'`;
}

const SHORT_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
    return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `name` always in brackets: `['geo.city']`. */
export function bracketName(name: string): string {
    return `[${quoteString(name)}]`;
}

/** `name` as it must be written in a query: `status` or `['geo.city']`. */
export function quoteName(name: string): string {
    return isPlainIdentifier(name) && !RESERVED.has(name) ? name : bracketName(name);
}

/** Words that cannot stand as a bare column name. */
const RESERVED = new Set(['and', 'or', 'not', 'where', 'project', 'extend', 'summarize', 'by', 'on', 'in', 'has', 'contains', 'let', 'true', 'false', 'null', 'dynamic', 'typeof', 'print', 'union', 'search', 'parse', 'join', 'lookup', 'datatable', 'externaldata', 'between', 'set', 'declare']);
