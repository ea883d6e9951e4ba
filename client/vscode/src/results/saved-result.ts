/**
 * A result kept on disk: the `.aplr` file (docs/aplr-format.md) that "Save Result" writes and the
 * results view opens, and the history's copy of a run's first page (the same format). NDJSON: the
 * first line is the header (the query, the connection's name and URL, the time range, the outcome
 * and the service's status, the fields), every next line one row as an object.
 *
 * Never a secret: the connection is its name and its URL without user information or query
 * string (a token has no other place in a Connection), and the status drops the service's
 * continuation token. Reading one checks every part, and an error names the line and the field.
 */
import type { QueryStatus, TableField, TabularResult } from '../../../api/types.js';
import type { Connection } from '../connections/connection-manager.js';
import { Run, type RunRequest } from '../query/query-runner.js';
import { ResultSet, type ResultPage } from './result-set.js';

export const APLR_FORMAT = 'apl-result';
export const APLR_VERSION = 1;
export const APLR_EXTENSION = '.aplr';

export interface SavedResultHeader {
    format: typeof APLR_FORMAT;
    version: typeof APLR_VERSION;
    /** When the file was written (RFC 3339). */
    savedAt: string;
    /** When the run started (RFC 3339). */
    ranAt: string;
    query: string;
    connection: { name: string; url: string };
    timeRange: { start: string; end: string; label: string };
    state: 'done' | 'error' | 'cancelled';
    error?: string;
    elapsedMs: number;
    status?: Omit<QueryStatus, 'continuationToken'>;
    fields: TableField[];
    /** The rows of the whole result (the service may hold more than were saved). */
    rowCount: number;
    /** The rows in this file (the lines after the header). */
    rowsSaved: number;
}

export interface SavedResult {
    header: SavedResultHeader;
    /** Arrays aligned with `header.fields`. */
    rows: unknown[][];
}

/** The URL without what may be a secret: user information, query string and fragment. */
export function publicUrl(url: string): string {
    try {
        const u = new URL(url);
        u.username = '';
        u.password = '';
        u.search = '';
        u.hash = '';
        return u.toString().replace(/\/$/, '');
    } catch {
        return '';
    }
}

/** A run's first page (its first `maxRows` rows) as a saved result. */
export function savedResultOf(run: Run, maxRows: number, now: Date = new Date()): SavedResult | undefined {
    const result = run.result;
    const page = result?.store.peek(0);
    if (!result || !page || run.state === 'running') return undefined;
    const fields = result.fields.map(f => ({ name: f.name, type: f.type }));
    const index = new Map(page.fields.map((f, i) => [f.name, i]));
    const rows: unknown[][] = [];
    for (let r = 0; r < Math.min(page.rows, maxRows); r++) rows.push(fields.map(f => (index.has(f.name) ? (page.columns[index.get(f.name)!][r] ?? null) : null)));
    let status: SavedResultHeader['status'];
    if (result.status) {
        const { continuationToken: _dropped, ...rest } = result.status;
        status = rest;
    }
    return {
        header: {
            format: APLR_FORMAT,
            version: APLR_VERSION,
            savedAt: now.toISOString(),
            ranAt: new Date(run.startedAt).toISOString(),
            query: run.request.text,
            connection: { name: run.connection.name, url: publicUrl(run.connection.url) },
            timeRange: { start: run.range.startTime, end: run.range.endTime, label: run.range.label },
            state: run.state,
            ...(run.error ? { error: run.error.message } : {}),
            elapsedMs: run.elapsedMs,
            ...(status ? { status } : {}),
            fields,
            rowCount: result.rowCount,
            rowsSaved: rows.length,
        },
        rows,
    };
}

export function serializeSavedResult(saved: SavedResult): string {
    const names = saved.header.fields.map(f => f.name);
    const lines = [JSON.stringify(saved.header)];
    for (const row of saved.rows) lines.push(JSON.stringify(Object.fromEntries(names.map((n, i) => [n, row[i] ?? null]))));
    return lines.join('\n') + '\n';
}

export class SavedResultError extends Error {
    constructor(source: string, line: number, what: string) {
        super(`${source}:${line}: ${what}`);
        this.name = 'SavedResultError';
    }
}

/** Reads a saved result; `source` names the file in errors (`results.aplr:1: field 'query' …`). */
export function parseSavedResult(text: string, source: string): SavedResult {
    const lines = text.split('\n');
    const fail = (line: number, what: string): never => {
        throw new SavedResultError(source, line, what);
    };
    let header: unknown;
    try {
        header = JSON.parse(lines[0] ?? '');
    } catch {
        fail(1, 'the first line is not the JSON header of an APL result file');
    }
    if (!header || typeof header !== 'object' || Array.isArray(header)) return fail(1, 'the header is not an object');
    const h = header as Record<string, unknown>;
    if (h.format !== APLR_FORMAT) fail(1, `field 'format' must be "${APLR_FORMAT}", got ${JSON.stringify(h.format)}`);
    if (h.version !== APLR_VERSION) fail(1, `field 'version' must be ${APLR_VERSION}, got ${JSON.stringify(h.version)} (a newer extension wrote it?)`);
    const text_ = (name: string, v: unknown) => (typeof v === 'string' ? v : fail(1, `field '${name}' must be a string, got ${JSON.stringify(v)}`));
    const count = (name: string, v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fail(1, `field '${name}' must be a whole number ≥ 0, got ${JSON.stringify(v)}`));
    text_('query', h.query);
    text_('savedAt', h.savedAt);
    text_('ranAt', h.ranAt);
    const c = h.connection as Record<string, unknown> | undefined;
    if (!c || typeof c !== 'object') fail(1, "field 'connection' must be an object with a name and a url");
    text_('connection.name', c!.name);
    text_('connection.url', c!.url);
    const t = h.timeRange as Record<string, unknown> | undefined;
    if (!t || typeof t !== 'object') fail(1, "field 'timeRange' must be an object with start, end and label");
    for (const k of ['start', 'end', 'label']) text_(`timeRange.${k}`, t![k]);
    if (h.state !== 'done' && h.state !== 'error' && h.state !== 'cancelled') fail(1, `field 'state' must be done, error or cancelled, got ${JSON.stringify(h.state)}`);
    if (h.error !== undefined) text_('error', h.error);
    count('elapsedMs', h.elapsedMs);
    count('rowCount', h.rowCount);
    count('rowsSaved', h.rowsSaved);
    if (h.status !== undefined && (typeof h.status !== 'object' || h.status === null)) fail(1, "field 'status' must be an object");
    if (!Array.isArray(h.fields)) fail(1, "field 'fields' must be an array of { name, type }");
    (h.fields as unknown[]).forEach((f, i) => {
        const field = f as Record<string, unknown>;
        if (!field || typeof field.name !== 'string' || typeof field.type !== 'string') fail(1, `field 'fields[${i}]' must be { name, type } strings`);
    });
    const fields = (h.fields as TableField[]).map(f => ({ name: f.name, type: f.type }));
    const rows: unknown[][] = [];
    for (let i = 1; i < lines.length; i++) {
        if (lines[i].trim() === '') continue;
        let row: unknown;
        try {
            row = JSON.parse(lines[i]);
        } catch {
            fail(i + 1, 'the row is not JSON');
        }
        if (!row || typeof row !== 'object' || Array.isArray(row)) fail(i + 1, 'the row is not an object');
        const o = row as Record<string, unknown>;
        rows.push(fields.map(f => o[f.name] ?? null));
    }
    if (rows.length !== h.rowsSaved) fail(lines.length, `the header says ${String(h.rowsSaved)} rows were saved, the file holds ${rows.length}`);
    return { header: { ...(h as unknown as SavedResultHeader), fields }, rows };
}

/**
 * A finished run made from a saved result: the view shows it as it showed the run, without a
 * request (its rows are all in memory). Run again sends its query on its time range.
 */
export function runOfSavedResult(saved: SavedResult, connection: Connection): Run {
    const h = saved.header;
    const request: RunRequest = { text: h.query, pageable: false, order: 'desc', timeRange: { start: h.timeRange.start, end: h.timeRange.end } };
    const ranAt = Date.parse(h.ranAt);
    const run = new Run(request, connection, { startTime: h.timeRange.start, endTime: h.timeRange.end, label: h.timeRange.label }, 'once', Math.max(1, saved.rows.length), Number.isFinite(ranAt) ? ranAt : Date.now());
    const columns = h.fields.map((_, c) => saved.rows.map(r => r[c] ?? null));
    const page: ResultPage = { fields: h.fields, columns, rows: saved.rows.length };
    const status = { elapsedTime: 0, blocksExamined: 0, rowsExamined: 0, rowsMatched: h.rowCount, numGroups: 0, isPartial: false, cacheStatus: 0, minBlockTime: '', maxBlockTime: '', ...(h.status ?? {}) } as QueryStatus;
    const first: TabularResult = { format: 'tabular', status, tables: [{ name: '0', fields: h.fields, columns }] } as TabularResult;
    run.result = ResultSet.fromSaved(first, page);
    if (h.error) run.error = { message: h.error };
    run.saved = { savedAt: h.savedAt, rowsSaved: h.rowsSaved, rowCount: h.rowCount };
    run.finish(h.state, run.startedAt + h.elapsedMs);
    return run;
}
