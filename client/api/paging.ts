/**
 * The two paging kinds of API.md §10. Both append `| sort by _time <order> | limit <n>` to the
 * query, so the query must keep `_time` (no `summarize`/`project` without it).
 *
 * A page is fetched from an anchor (`PageAnchor`): where the page starts, as the previous page left
 * it. `fetchPage` fetches one page and returns the next page's anchor, so a caller can keep anchors
 * and fetch any page again later (the editor's page store); `pagesByCursor`/`pagesByTime` walk all
 * pages in order.
 */
import { formatDatetime, parseDatetime } from '../../language/values.js';
import type { AplClient } from './client.js';
import { rowCount, tableRows } from './rows.js';
import type { Page, PagingOptions, Table, TabularResult } from './types.js';

export const DEFAULT_PAGE_SIZE = 1000;

/**
 * Where a page starts.
 * - `cursor`: the previous page's `minCursor` (desc) or `maxCursor` (asc); none for the first page.
 *   The time range stays the run's (§10.2).
 * - `time`: the run's time range narrowed to just past the previous page's last `_time`, and that
 *   row's id as the cursor, which excludes the rows at the boundary time already returned (ties are
 *   ordered by row id).
 */
export type PageAnchor = { kind: 'cursor'; cursor?: string } | TimeAnchor;

export interface TimeAnchor {
    kind: 'time';
    startTime?: string;
    endTime?: string;
    /** The row id of the previous page's last row: the rows at the boundary time up to it are excluded. */
    cursor?: string;
    /** Without row ids: how many rows at the boundary time the previous pages already returned. */
    skip?: number;
}

export type PagingKind = PageAnchor['kind'];

/** One fetched page: its table (the rows of this page only), the whole response, and the next page's anchor. */
export interface PageStep {
    table: Table;
    result: TabularResult;
    /** Undefined on the last page. */
    next?: PageAnchor;
}

export function pageSizeOf(options: Pick<PagingOptions, 'pageSize'>): number {
    const n = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`pageSize must be a positive integer, got ${n}`);
    return n;
}

/** The query with the paging operators appended (after any trailing `;` or blank). */
export function pagedApl(apl: string, order: 'asc' | 'desc', limit: number): string {
    const body = apl.replace(/[\s;]+$/, '');
    return `${body}\n| sort by _time ${order}\n| limit ${limit}`;
}

/**
 * How many rows `apl` gives over the time range (`apl | count`), to check an export that paged
 * through them against; undefined when the answer has no count.
 */
export async function matchedRows(client: AplClient, apl: string, options: Pick<PagingOptions, 'startTime' | 'endTime' | 'variables' | 'signal'> = {}): Promise<number | undefined> {
    const body = apl.replace(/[\s;]+$/, '');
    const result = await client.query(`${body}\n| count`, { format: 'tabular', ...options });
    const n = result.tables?.[0]?.columns?.[0]?.[0];
    return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** The anchor of a run's first page. */
export function firstAnchor(kind: PagingKind, options: Pick<PagingOptions, 'startTime' | 'endTime'> = {}): PageAnchor {
    if (kind === 'cursor') return { kind: 'cursor' };
    return { kind: 'time', startTime: timeText(options.startTime), endTime: timeText(options.endTime) };
}

function timeText(t: string | Date | undefined): string | undefined {
    return t instanceof Date ? t.toISOString() : t;
}

function firstTable(result: TabularResult): Table {
    return result.tables?.[0] ?? { name: '0', fields: [], columns: [] };
}

/** Rows `from`.. of a column-major table. */
function dropRows(table: Table, from: number): Table {
    if (from === 0) return table;
    return { ...table, columns: (table.columns ?? []).map(c => c.slice(from)) };
}

/** Fetches the page that starts at `anchor`. */
export async function fetchPage(client: AplClient, apl: string, anchor: PageAnchor, options: PagingOptions = {}): Promise<PageStep> {
    return anchor.kind === 'cursor' ? fetchCursorPage(client, apl, anchor, options) : fetchTimePage(client, apl, anchor, options);
}

/** §10.2: the next page uses `minCursor` (desc) or `maxCursor` (asc), exclusive of the cursor row. */
async function fetchCursorPage(client: AplClient, apl: string, anchor: { cursor?: string }, options: PagingOptions): Promise<PageStep> {
    const pageSize = pageSizeOf(options);
    const order = options.order ?? 'desc';
    const result = await client.query(pagedApl(apl, order, pageSize), {
        format: 'tabular',
        startTime: options.startTime,
        endTime: options.endTime,
        cursor: anchor.cursor,
        variables: options.variables,
        signal: options.signal,
    });
    const table = firstTable(result);
    const next = order === 'desc' ? result.status?.minCursor : result.status?.maxCursor;
    const done = rowCount(table) < pageSize || !next || next === anchor.cursor;
    return { table, result, next: done ? undefined : { kind: 'cursor', cursor: next } };
}

/**
 * §10.3: after a page, desc narrows `endTime` to just after the last row's `_time`, asc moves
 * `startTime` to it ([start, end) ranges). Rows at that boundary time come again; the row id breaks
 * the tie: each page asks for the `_cursor` column and the next one sends the last row's as `cursor`
 * (exclusive), so a run of equal timestamps of any length (even longer than the service's row cap)
 * is paged exactly, never losing or repeating a row. Results without row ids (no `_cursor`, e.g.
 * `datatable`) fall back to skipping the boundary rows already returned.
 */
async function fetchTimePage(client: AplClient, apl: string, anchor: TimeAnchor, options: PagingOptions): Promise<PageStep> {
    const pageSize = pageSizeOf(options);
    const order = options.order ?? 'desc';
    const skip = anchor.skip ?? 0;
    const limit = pageSize + skip;
    const response = await client.query(pagedApl(apl, order, limit), {
        format: 'tabular',
        startTime: anchor.startTime,
        endTime: anchor.endTime,
        cursor: anchor.cursor,
        includeCursorField: true,
        variables: options.variables,
        signal: options.signal,
    });
    const { table: all, cursors } = withoutCursorField(firstTable(response));
    const result: TabularResult = { ...response, tables: [all, ...(response.tables ?? []).slice(1)] };
    const n = rowCount(all);
    const table = dropRows(all, Math.min(skip, n));
    if (n < limit) {
        // Fewer rows than asked while more matched: the service cut the page (its row cap); going on
        // from here would lose rows, so say so instead.
        const matched = response.status?.rowsMatched;
        if (skip > 0 && typeof matched === 'number' && matched > n) {
            throw new Error(`time paging cannot go on: the service returned ${n} of the ${limit} rows asked for (${matched} matched) and gave no row ids to page by`);
        }
        return { table, result };
    }
    if (n <= skip) return { table, result };
    const times = (all.columns ?? [])[all.fields.findIndex(f => f.name === '_time')];
    const lastText = times?.[n - 1];
    const last = typeof lastText === 'string' ? parseDatetime(lastText) : undefined;
    if (last === undefined) throw new Error('time paging needs a _time column in the result');
    const lastCursor = cursors?.[n - 1];
    let nextSkip = 0;
    if (typeof lastCursor !== 'string' || lastCursor === '') {
        // No row id: count the rows at the boundary time (the skipped ones included, so a run of
        // ties longer than a page goes on growing while the range stays, until the run ends).
        for (let i = n - 1; i >= 0; i--) {
            const t = times[i];
            if (typeof t !== 'string' || parseDatetime(t) !== last) break;
            nextSkip++;
        }
    }
    const cursor = nextSkip === 0 ? (lastCursor as string) : undefined;
    const next: TimeAnchor =
        order === 'desc'
            ? { kind: 'time', startTime: anchor.startTime, endTime: formatDatetime(last + 1n), cursor, skip: nextSkip || undefined }
            : { kind: 'time', startTime: formatDatetime(last), endTime: anchor.endTime, cursor, skip: nextSkip || undefined };
    return { table, result, next };
}

/** The table without the `_cursor` column that time paging asked for, and that column's values. */
function withoutCursorField(table: Table): { table: Table; cursors?: readonly unknown[] } {
    const at = table.fields.findIndex(f => f.name === '_cursor');
    if (at < 0) return { table };
    const columns = table.columns ?? [];
    return {
        table: { ...table, fields: table.fields.filter((_, i) => i !== at), columns: columns.filter((_, i) => i !== at) },
        cursors: columns[at],
    };
}

async function* walk(client: AplClient, apl: string, first: PageAnchor, options: PagingOptions): AsyncGenerator<Page, void, undefined> {
    let anchor: PageAnchor | undefined = first;
    for (let index = 0; anchor && (options.maxPages === undefined || index < options.maxPages); index++) {
        const step: PageStep = await fetchPage(client, apl, anchor, options);
        const nextCursor = step.next?.kind === 'cursor' ? step.next.cursor : undefined;
        yield { index, rows: tableRows(step.table), fields: step.table.fields, result: step.result, nextCursor };
        anchor = step.next;
    }
}

/** Every page by cursor (§10.2), in order. */
export function pagesByCursor(client: AplClient, apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
    return walk(client, apl, firstAnchor('cursor', options), options);
}

/** Every page by time (§10.3), in order. */
export function pagesByTime(client: AplClient, apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
    return walk(client, apl, firstAnchor('time', options), options);
}
