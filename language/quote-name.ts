/**
 * How a name or a string is written in a query (no dependencies but invisible-chars.ts: the editor
 * extension bundles these alone). Every generated name and string goes through here, so that any text (quotes, backslashes,
 * line breaks, control characters, brackets) comes back from the parser exactly as it went in.
 */

import { INVISIBLE_CHARS, unicodeEscape } from './invisible-chars.js';

/** A plain identifier needs no brackets. */
export function isPlainIdentifier(name: string): boolean {
    return /^[A-Za-z_$][A-Za-z0-9_]*$/.test(name);
}

/**
 * `text` as a single-quoted string literal: backslash and quote escaped, line breaks and every other
 * control or invisible format character (which a query cannot hold raw, or would hide) as `\n` or `\uXXXX`.
 */
export function quoteString(text: string): string {
    return `'${text.replace(TO_ESCAPE, escapeChar)}'`;
}

const TO_ESCAPE = new RegExp(`[\\\\'\\u0000-\\u001f\\u007f-\\u009f]|${INVISIBLE_CHARS.source}`, 'g');

const SHORT_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
    return SHORT_ESCAPES[c] ?? unicodeEscape(c);
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
