/**
 * Renderers for query results in the CLI: `table` (aligned, fitted to a width: cells cut with `…`
 * down to a readable width, then the columns that still do not fit left out, and the footer says so),
 * `json` (an array of row objects, one per line), `csv` (RFC 4180). They take one column-major table
 * as the service returns it (`fields` + `columns`).
 */

import { INVISIBLE_CHARS } from '../../language/invisible-chars.js';
import { terminalText } from './terminal-text.js';

export interface RenderTable {
    name?: string;
    fields: { name: string; type?: string }[];
    columns: unknown[][] | null;
}

export const OUTPUT_FORMATS = ['table', 'json', 'csv', 'tabular', 'legacy'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function rowCountOf(table: RenderTable): number {
    const cols = table.columns;
    return cols && cols.length > 0 ? (cols[0]?.length ?? 0) : 0;
}

function cell(table: RenderTable, c: number, r: number): unknown {
    return table.columns?.[c]?.[r] ?? null;
}

// -------------------------------------------------------------------------------------------- JSON

/** `[` + one compact row object per line + `]`; an empty table is `[]`. */
export function renderJson(table: RenderTable): string {
    const n = rowCountOf(table);
    if (n === 0) return '[]\n';
    const parts: string[] = ['[\n'];
    for (let r = 0; r < n; r++) {
        parts.push(r === 0 ? '  ' : ',\n  ', JSON.stringify(rowObject(table, r)));
    }
    parts.push('\n]\n');
    return parts.join('');
}

export function rowObject(table: RenderTable, r: number): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < table.fields.length; c++) row[table.fields[c].name] = cell(table, c, r);
    return row;
}

// --------------------------------------------------------------------------------------------- CSV

/**
 * OWASP's rule against CSV injection: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return (or their full-width forms) is a formula to a spreadsheet, so it gets a leading
 * `'`. A number stays exact: a number value never starts a formula, nor does a text that is only a
 * number (`-5`), which a spreadsheet reads as that number anyway.
 */
const FORMULA_START = /^[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function guardFormula(text: string): string {
    return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** One CSV cell (RFC 4180 quoting); `formulaGuard` (the default) applies guardFormula to text. */
export function csvField(v: unknown, formulaGuard = true): string {
    if (v === null || v === undefined) return '';
    const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    const s = formulaGuard && typeof v === 'string' ? guardFormula(text) : text;
    return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CONTROL_BUT_LINE_BREAKS = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]|${INVISIBLE_CHARS.source}`, 'g');

/**
 * A header row of field names, then one line per row. Text a spreadsheet would run as a formula
 * gets a leading `'` (guardFormula) unless `exact`. For a terminal (`terminal`), control characters
 * other than line breaks and tabs are escaped (`\033`).
 */
export function renderCsv(table: RenderTable, { header = true, terminal = false, exact = false }: { header?: boolean; terminal?: boolean; exact?: boolean } = {}): string {
    const plain = (v: unknown) => csvField(v, !exact);
    const field = terminal ? (v: unknown) => plain(v).replace(CONTROL_BUT_LINE_BREAKS, terminalText) : plain;
    const lines: string[] = [];
    if (header) lines.push(table.fields.map(f => field(f.name)).join(','));
    const n = rowCountOf(table);
    for (let r = 0; r < n; r++) {
        const cells: string[] = new Array(table.fields.length);
        for (let c = 0; c < table.fields.length; c++) cells[c] = field(cell(table, c, r));
        lines.push(cells.join(','));
    }
    return lines.length ? lines.join('\n') + '\n' : '';
}

// ------------------------------------------------------------------------------------------- table

/** The text of a cell in a table: null is empty, objects are JSON, control characters are escaped (`\n`, `\033`). */
export function cellText(v: unknown): string {
    if (v === null || v === undefined) return '';
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return terminalText(s);
}

function isWide(cp: number): boolean {
    return (
        (cp >= 0x1100 && cp <= 0x115f) ||
        (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
        (cp >= 0xac00 && cp <= 0xd7a3) ||
        (cp >= 0xf900 && cp <= 0xfaff) ||
        (cp >= 0xfe30 && cp <= 0xfe4f) ||
        (cp >= 0xff00 && cp <= 0xff60) ||
        (cp >= 0xffe0 && cp <= 0xffe6) ||
        (cp >= 0x1f300 && cp <= 0x1faff) ||
        (cp >= 0x20000 && cp <= 0x3fffd)
    );
}

function isZeroWidth(cp: number): boolean {
    return (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f);
}

/** Terminal columns a string takes (wide East Asian characters and emoji count 2). */
export function displayWidth(s: string): number {
    let w = 0;
    for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x300) {
            w++;
            continue;
        }
        const cp = s.codePointAt(i)!;
        if (cp > 0xffff) i++;
        w += isZeroWidth(cp) ? 0 : isWide(cp) ? 2 : 1;
    }
    return w;
}

/** Cuts `s` to at most `width` columns, ending with `…` when it was cut. */
export function truncate(s: string, width: number): string {
    if (displayWidth(s) <= width) return s;
    if (width <= 0) return '';
    if (width === 1) return '…';
    let w = 0;
    let out = '';
    for (const ch of s) {
        const cw = displayWidth(ch);
        if (w + cw > width - 1) break;
        out += ch;
        w += cw;
    }
    return out + '…';
}

function pad(s: string, width: number, right: boolean): string {
    const fill = width - displayWidth(s);
    if (fill <= 0) return s;
    return right ? ' '.repeat(fill) + s : s + ' '.repeat(fill);
}

const NUMERIC_TYPES = /^(integer|int|long|float|real|double|decimal|number|float64|int64)(\|(integer|int|long|float|real|double|decimal|number))*$/i;

export interface TableRenderOptions {
    /** Maximum line width (terminal columns); undefined or 0 = unlimited. */
    width?: number;
    /** The row-count footer (`N rows`). Default true. */
    footer?: boolean;
}

const GAP = 2;
/** The narrowest a column is cut to (unless its header or content is narrower): still readable. */
const READABLE = 10;
/** A header longer than this may be cut rather than keep a column that wide. */
const LONGEST_KEPT_HEADER = 24;
/** `2026-11-28T03:04:20…`: a time cut below the second reads as nothing. */
const READABLE_TIME = 20;

/**
 * Column widths: the natural widths, narrowed (widest first, never below `floor`, default a small
 * minimum) until the row fits in `width`.
 */
export function fitColumns(natural: number[], width: number | undefined, floor: number[] = natural.map(n => Math.min(n, 4))): number[] {
    if (!width || width <= 0 || natural.length === 0) return natural;
    const budget = width - GAP * (natural.length - 1);
    const total = natural.reduce((a, b) => a + b, 0);
    if (total <= budget) return natural;
    const sumWithCap = (cap: number) => natural.reduce((a, n, i) => a + Math.max(floor[i], Math.min(n, cap)), 0);
    let lo = 0;
    let hi = Math.max(...natural);
    // the largest cap that fits
    while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (sumWithCap(mid) <= budget) lo = mid;
        else hi = mid - 1;
    }
    const widths = natural.map((n, i) => Math.max(floor[i], Math.min(n, lo)));
    // hand out what is left to the columns that were cut, left to right
    let spare = budget - widths.reduce((a, b) => a + b, 0);
    for (let i = 0; i < widths.length && spare > 0; i++) {
        if (widths[i] < natural[i]) {
            const add = Math.min(spare, natural[i] - widths[i]);
            widths[i] += add;
            spare -= add;
        }
    }
    return widths;
}

export interface ColumnLayout {
    /** The widths of the columns shown: the first `widths.length` ones. */
    widths: number[];
    /** How many columns (from the right) do not fit and are left out. */
    dropped: number;
}

/**
 * The narrowest a column may be: its header (up to a limit), at least READABLE columns of content
 * (a time to the second), never more than it needs.
 */
export function readableWidth(natural: number, header: number, type: string | undefined): number {
    const content = type === 'datetime' ? READABLE_TIME : READABLE;
    return Math.min(natural, Math.max(Math.min(header, LONGEST_KEPT_HEADER), content));
}

/**
 * Fits columns to `width` without making them unreadable: each keeps at least its readable width
 * (see readableWidth), and the columns
 * that do not fit at that width are left out, from the right (the query's order is its priority).
 */
export function layoutColumns(natural: number[], readable: number[], width: number | undefined): ColumnLayout {
    if (!width || width <= 0 || natural.length === 0) return { widths: natural, dropped: 0 };
    let shown = 0;
    let used = 0;
    while (shown < natural.length && used + (shown > 0 ? GAP : 0) + readable[shown] <= width) {
        used += (shown > 0 ? GAP : 0) + readable[shown];
        shown++;
    }
    // One column at least, cut to the width if need be.
    if (shown === 0) return { widths: [Math.min(natural[0], width)], dropped: natural.length - 1 };
    return { widths: fitColumns(natural.slice(0, shown), width, readable.slice(0, shown)), dropped: natural.length - shown };
}

/** An aligned text table: header, a rule, the rows (numbers right-aligned), then `N rows`. */
export function renderTable(table: RenderTable, options: TableRenderOptions = {}): string {
    const n = rowCountOf(table);
    const nf = table.fields.length;
    const texts: string[][] = new Array(nf);
    const natural: number[] = new Array(nf);
    const right: boolean[] = new Array(nf);
    for (let c = 0; c < nf; c++) {
        const col: string[] = new Array(n);
        let w = displayWidth(cellText(table.fields[c].name));
        let numeric = NUMERIC_TYPES.test(table.fields[c].type ?? '');
        let sawValue = false;
        let allNumbers = true;
        for (let r = 0; r < n; r++) {
            const v = cell(table, c, r);
            if (v !== null && v !== undefined) {
                sawValue = true;
                if (typeof v !== 'number') allNumbers = false;
            }
            const t = cellText(v);
            col[r] = t;
            const tw = t.length < 0x300 && /^[\x20-\x7e]*$/.test(t) ? t.length : displayWidth(t);
            if (tw > w) w = tw;
        }
        if (!numeric && sawValue && allNumbers) numeric = true;
        texts[c] = col;
        natural[c] = w;
        right[c] = numeric;
    }
    const readable = table.fields.map((f, c) => readableWidth(natural[c], displayWidth(cellText(f.name)), f.type ?? (/^_(sys)?time$/.test(f.name) ? 'datetime' : undefined)));
    const { widths, dropped } = layoutColumns(natural, readable, options.width);
    const shown = widths.length;
    const sep = ' '.repeat(GAP);
    const lines: string[] = [];
    if (nf > 0) {
        lines.push(table.fields.slice(0, shown).map((f, c) => pad(truncate(cellText(f.name), widths[c]), widths[c], right[c])).join(sep).trimEnd());
        lines.push(widths.map(w => '─'.repeat(w)).join(sep));
        for (let r = 0; r < n; r++) {
            const parts: string[] = new Array(shown);
            for (let c = 0; c < shown; c++) parts[c] = pad(truncate(texts[c][r], widths[c]), widths[c], right[c]);
            lines.push(parts.join(sep).trimEnd());
        }
    }
    const count = `${n} ${n === 1 ? 'row' : 'rows'}`;
    const more = dropped > 0 ? droppedColumnsNote(dropped, nf) : '';
    const notes: string[] = [];
    if (options.footer !== false) notes.push(more ? `${count}; ${more}` : count);
    else if (more) notes.push(more);
    if (more) notes.push(SEE_DROPPED_COLUMNS);
    for (const note of notes) lines.push(...wrap(note, options.width));
    return lines.join('\n') + '\n';
}

/** What the footer says about the columns left out, and how to see them. */
function droppedColumnsNote(dropped: number, total: number): string {
    return `${dropped} of ${total} columns not shown`;
}

/** `text` in lines of at most `width` columns, broken at spaces (a longer word stays whole). */
function wrap(text: string, width: number | undefined): string[] {
    if (!width || displayWidth(text) <= width) return [text];
    const out: string[] = [];
    let line = '';
    for (const word of text.split(' ')) {
        if (line !== '' && displayWidth(line) + 1 + displayWidth(word) > width) {
            out.push(line);
            line = word;
        } else {
            line = line === '' ? word : `${line} ${word}`;
        }
    }
    if (line !== '') out.push(line);
    return out;
}

const SEE_DROPPED_COLUMNS = '(see them: --format json, --width N, | project)';

/** The width to fit tables to: the terminal's, `COLUMNS`, or unlimited when not a terminal. */
export function terminalWidth(out: NodeJS.WritableStream): number | undefined {
    const tty = out as NodeJS.WriteStream;
    if (tty.isTTY && tty.columns) return tty.columns;
    const env = Number(process.env.COLUMNS);
    if (Number.isInteger(env) && env > 0) return env;
    return undefined;
}
