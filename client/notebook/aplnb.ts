/**
 * The `.aplnb` notebook format (docs/notebooks.md): a JSON document of markdown and APL cells, the
 * connection chosen for the notebook (by name, never a token), its time range, and per APL cell an
 * optional time range and the snapshot of its last output. The extension's serializer, `apl run
 * --notebook` and the ipynb/Markdown converters all read and write it through this module, so a file
 * is checked the same way everywhere: a bad file is refused with the field path and what is wrong.
 */

export const APLNB_FORMAT = 1;

/** A snapshot may hold at most this many rows, and this many bytes of JSON (the first page, trimmed). */
export const SNAPSHOT_MAX_ROWS = 500;
export const SNAPSHOT_MAX_BYTES = 256 * 1024;

export interface NotebookTimeRange {
    /** RFC 3339, or relative as the CLI takes it (`now-1h`). */
    start?: string;
    end?: string;
}

export interface SnapshotField {
    name: string;
    type: string;
}

export interface SnapshotTable {
    name: string;
    fields: SnapshotField[];
    /** Row-major cells, at most SNAPSHOT_MAX_ROWS. */
    rows: unknown[][];
    /** Rows the table had when the cell ran (more than `rows.length` when the snapshot was trimmed). */
    totalRows: number;
}

export interface CellError {
    message: string;
    /** 1-based, in the cell's own text (mapped from the script the cell ran in). */
    line?: number;
    column?: number;
}

export interface CellSnapshot {
    /** When the cell ran (RFC 3339). */
    ranAt: string;
    /** Where it ran: a connection's name, or `local`. */
    ranOn?: string;
    elapsedMs?: number;
    isPartial?: boolean;
    messages?: string[];
    tables: SnapshotTable[];
    /** The first table is a time series (`summarize … by bin(_time, …)`): the column its chart is drawn over. */
    chart?: { timeColumn: string };
    error?: CellError;
}

export interface MarkdownCell {
    kind: 'markdown';
    text: string;
}

export interface AplCell {
    kind: 'apl';
    text: string;
    timeRange?: NotebookTimeRange;
    output?: CellSnapshot;
}

export type NotebookCell = MarkdownCell | AplCell;

export interface AplNotebook {
    format: typeof APLNB_FORMAT;
    /** The connection's name, as saved in the editor or the CLI's environment; never a URL with a token. */
    connection?: string;
    timeRange?: NotebookTimeRange;
    cells: NotebookCell[];
}

export class NotebookFormatError extends Error {
    constructor(
        readonly path: string,
        problem: string,
    ) {
        super(`${path}: ${problem}`);
    }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function optionalString(o: Json, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new NotebookFormatError(`${path}.${key}`, `expected a string, found ${describe(v)}`);
    return v;
}

function describe(v: unknown): string {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'an array';
    if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    return `${typeof v === 'object' ? 'an object' : `the ${typeof v} ${String(v)}`}`;
}

function timeRange(v: unknown, path: string): NotebookTimeRange | undefined {
    if (v === undefined) return undefined;
    if (!isObject(v)) throw new NotebookFormatError(path, `expected { "start", "end" }, found ${describe(v)}`);
    const start = optionalString(v, 'start', path);
    const end = optionalString(v, 'end', path);
    return { ...(start !== undefined && { start }), ...(end !== undefined && { end }) };
}

function snapshot(v: unknown, path: string): CellSnapshot | undefined {
    if (v === undefined) return undefined;
    if (!isObject(v)) throw new NotebookFormatError(path, `expected an object, found ${describe(v)}`);
    const ranAt = optionalString(v, 'ranAt', path);
    if (ranAt === undefined || Number.isNaN(Date.parse(ranAt))) throw new NotebookFormatError(`${path}.ranAt`, 'expected the time the cell ran (RFC 3339)');
    if (!Array.isArray(v.tables)) throw new NotebookFormatError(`${path}.tables`, `expected an array, found ${describe(v.tables)}`);
    const tables = v.tables.map((t, i) => snapshotTable(t, `${path}.tables[${i}]`));
    const messages = v.messages === undefined ? undefined : stringArray(v.messages, `${path}.messages`);
    let error: CellError | undefined;
    if (v.error !== undefined) {
        if (!isObject(v.error) || typeof v.error.message !== 'string') throw new NotebookFormatError(`${path}.error`, 'expected { "message", "line"?, "column"? }');
        error = { message: v.error.message, ...positiveInt(v.error, 'line', `${path}.error`), ...positiveInt(v.error, 'column', `${path}.error`) };
    }
    const ranOn = optionalString(v, 'ranOn', path);
    let chart: CellSnapshot['chart'];
    if (v.chart !== undefined) {
        if (!isObject(v.chart) || typeof v.chart.timeColumn !== 'string') throw new NotebookFormatError(`${path}.chart`, 'expected { "timeColumn" } (a string)');
        chart = { timeColumn: v.chart.timeColumn };
    }
    return {
        ranAt,
        ...(ranOn !== undefined && { ranOn }),
        ...(typeof v.elapsedMs === 'number' && { elapsedMs: v.elapsedMs }),
        ...(typeof v.isPartial === 'boolean' && { isPartial: v.isPartial }),
        ...(messages && { messages }),
        tables,
        ...(chart && { chart }),
        ...(error && { error }),
    };
}

function positiveInt(o: Json, key: string, path: string): Record<string, number> {
    const v = o[key];
    if (v === undefined) return {};
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new NotebookFormatError(`${path}.${key}`, `expected a whole number from 1, found ${describe(v)}`);
    return { [key]: v };
}

function stringArray(v: unknown, path: string): string[] {
    if (!Array.isArray(v) || v.some(s => typeof s !== 'string')) throw new NotebookFormatError(path, 'expected an array of strings');
    return v as string[];
}

function snapshotTable(v: unknown, path: string): SnapshotTable {
    if (!isObject(v)) throw new NotebookFormatError(path, `expected a table, found ${describe(v)}`);
    if (!Array.isArray(v.fields)) throw new NotebookFormatError(`${path}.fields`, 'expected an array of { "name", "type" }');
    const fields = v.fields.map((f, i) => {
        if (!isObject(f) || typeof f.name !== 'string' || typeof f.type !== 'string') throw new NotebookFormatError(`${path}.fields[${i}]`, 'expected { "name", "type" } (strings)');
        return { name: f.name, type: f.type };
    });
    if (!Array.isArray(v.rows)) throw new NotebookFormatError(`${path}.rows`, `expected an array of rows, found ${describe(v.rows)}`);
    const rows = v.rows.map((r, i) => {
        if (!Array.isArray(r) || r.length !== fields.length) throw new NotebookFormatError(`${path}.rows[${i}]`, `expected an array of ${fields.length} cell(s), one per field`);
        return r as unknown[];
    });
    const totalRows = typeof v.totalRows === 'number' && Number.isInteger(v.totalRows) && v.totalRows >= rows.length ? v.totalRows : rows.length;
    return { name: typeof v.name === 'string' ? v.name : '0', fields, rows, totalRows };
}

function cell(v: unknown, path: string): NotebookCell {
    if (!isObject(v)) throw new NotebookFormatError(path, `expected a cell, found ${describe(v)}`);
    const text = v.text;
    if (typeof text !== 'string') throw new NotebookFormatError(`${path}.text`, `expected the cell's text (a string), found ${describe(text)}`);
    if (v.kind === 'markdown') return { kind: 'markdown', text };
    if (v.kind !== 'apl') throw new NotebookFormatError(`${path}.kind`, `expected "apl" or "markdown", found ${describe(v.kind)}`);
    const range = timeRange(v.timeRange, `${path}.timeRange`);
    const output = snapshot(v.output, `${path}.output`);
    return { kind: 'apl', text, ...(range && { timeRange: range }), ...(output && { output }) };
}

/** Reads an `.aplnb` file's text; an empty file is an empty notebook (VS Code creates files empty). */
export function parseNotebook(text: string): AplNotebook {
    if (text.trim() === '') return { format: APLNB_FORMAT, cells: [] };
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (e) {
        throw new NotebookFormatError('(file)', `not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!isObject(json)) throw new NotebookFormatError('(file)', `expected a notebook object, found ${describe(json)}`);
    if (json.format !== APLNB_FORMAT) throw new NotebookFormatError('format', `expected ${APLNB_FORMAT} (this version's notebook format), found ${describe(json.format)}`);
    if (!Array.isArray(json.cells)) throw new NotebookFormatError('cells', `expected an array, found ${describe(json.cells)}`);
    const connection = optionalString(json, 'connection', '(file)');
    const range = timeRange(json.timeRange, 'timeRange');
    return {
        format: APLNB_FORMAT,
        ...(connection !== undefined && { connection }),
        ...(range && { timeRange: range }),
        cells: json.cells.map((c, i) => cell(c, `cells[${i}]`)),
    };
}

/** The file text: two-space JSON with a stable key order, so a notebook diffs well in git. */
export function serializeNotebook(notebook: AplNotebook): string {
    return `${JSON.stringify(notebook, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
}

/**
 * A table trimmed to what a snapshot keeps: at most SNAPSHOT_MAX_ROWS rows and SNAPSHOT_MAX_BYTES
 * of JSON over all the tables of an output (the later tables get what the earlier leave).
 */
export function snapshotTables(tables: readonly { name: string; fields: readonly SnapshotField[]; rows: readonly unknown[][]; totalRows?: number }[]): SnapshotTable[] {
    let budget = SNAPSHOT_MAX_BYTES;
    return tables.map(t => {
        const rows: unknown[][] = [];
        for (const row of t.rows) {
            if (rows.length >= SNAPSHOT_MAX_ROWS) break;
            const size = JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).length + 1;
            if (size > budget) break;
            budget -= size;
            rows.push(row.map(v => (typeof v === 'bigint' ? v.toString() : v)));
        }
        return { name: t.name, fields: t.fields.map(f => ({ name: f.name, type: f.type })), rows, totalRows: Math.max(t.totalRows ?? t.rows.length, rows.length) };
    });
}
