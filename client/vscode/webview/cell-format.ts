/**
 * How values look in the grid: numbers at a readable precision (the row details, the copy and the
 * exports keep the full value), times in the chosen zone, and column widths fitted to the header
 * and the first rows, with a cap. Pure functions (the text measure is given: webview/main.ts measures
 * with a canvas).
 */

import { INVISIBLE_CHARS, showInvisible, unicodeEscape } from '../../../language/invisible-chars.js';

export type TimeZone = 'utc' | 'local';

const NUMERIC = new Set(['integer', 'long', 'int', 'float', 'real', 'double', 'decimal', 'number']);

/** A field whose every possible kind is a number (`integer|float` too). */
export function isNumericType(type: string): boolean {
    const kinds = type.split('|').filter(k => k !== 'null');
    return kinds.length > 0 && kinds.every(k => NUMERIC.has(k));
}

/** Six significant digits for a fraction; integers as they are. */
export function formatNumber(v: number): string {
    if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
    return String(Number(v.toPrecision(6)));
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A datetime text in `zone`: UTC as the service gives it; local as `YYYY-MM-DD HH:MM:SS.fff +HH:MM`. */
export function formatTime(text: string, zone: TimeZone): string {
    if (zone === 'utc') return text;
    const ms = Date.parse(text);
    if (!Number.isFinite(ms)) return text;
    const d = new Date(ms);
    const frac = /\.(\d+)/.exec(text)?.[1];
    const offset = -d.getTimezoneOffset();
    const sign = offset >= 0 ? '+' : '-';
    const o = Math.abs(offset);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${frac ? `.${frac}` : ''} ${sign}${pad(Math.floor(o / 60))}:${pad(o % 60)}`;
}

/** The full text of a value (row details, copy). */
export function fullText(v: unknown): string {
    if (v === null || v === undefined) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * A one-line text that shows what it holds: control characters as `\n` or `\u0007`, and bidi and
 * invisible format characters as `\u202E` (a right-to-left override would show `gnp.exe` as `exe.png`).
 */
function visibleLine(text: string): string {
    return showInvisible(text).replace(CONTROL, c => NAMED[c] ?? unicodeEscape(c));
}

/** A field name as a column header shows it. */
export function headerText(name: string): string {
    return visibleLine(name);
}

/** The full value in the row details: line breaks and tabs kept, other control, bidi and invisible characters shown. */
export function detailText(v: unknown): string {
    return fullText(v).replace(INVISIBLE_CHARS, unicodeEscape).replace(CONTROL_BUT_LINES, unicodeEscape);
}

/** The text of a value in a grid cell of a field of `type`. */
export function cellText(v: unknown, type: string, zone: TimeZone): string {
    if (typeof v === 'number') return formatNumber(v);
    if (typeof v === 'string' && type === 'datetime') return visibleLine(formatTime(v, zone));
    return visibleLine(fullText(v));
}

/** Widest a column starts (the user can still widen it). */
export const MAX_COLUMN_WIDTH = 420;
const MIN_COLUMN_WIDTH = 56;
/** Cell padding and borders; the header also has room for the sort arrow. */
const CELL_EXTRA = 30;
const HEADER_EXTRA = 46;

export interface Measure {
    text(s: string): number;
    header(s: string): number;
}

/** A column's width: its header and its widest cell among `values`, between the bounds. */
export function columnWidth(header: string, values: Iterable<string>, m: Measure): number {
    let widest = m.header(header) + HEADER_EXTRA;
    let longest = '';
    // Measure the longest texts only: in one font the widest is nearly always among them.
    const seen: string[] = [];
    for (const v of values) {
        if (v.length > longest.length) longest = v;
        seen.push(v);
    }
    for (const v of seen) if (v.length >= longest.length - 2) widest = Math.max(widest, m.text(v) + CELL_EXTRA);
    return Math.ceil(Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, widest)));
}
