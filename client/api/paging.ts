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
 * - `time`: the run's time range narrowed to just past the previous page's last `_time`, and how
 *   many rows at that boundary time the previous pages already returned (they come again and are
 *   skipped; ties are ordered by row id, so this is exact).
 */
export type PageAnchor = { kind: 'cursor'; cursor?: string } | { kind: 'time'; startTime?: string; endTime?: string; skip: number };

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

/** The anchor of a run's first page. */
export function firstAnchor(kind: PagingKind, options: Pick<PagingOptions, 'startTime' | 'endTime'> = {}): PageAnchor {
    if (kind === 'cursor') return { kind: 'cursor' };
    return { kind: 'time', startTime: timeText(options.startTime), endTime: timeText(options.endTime), skip: 0 };
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
 * `startTime` to it ([start, end) ranges). Rows at that boundary time that were already returned are
 * requested again and skipped, so a run of equal timestamps longer than a page still makes progress.
 */
async function fetchTimePage(client: AplClient, apl: string, anchor: { startTime?: string; endTime?: string; skip: number }, options: PagingOptions): Promise<PageStep> {
    const pageSize = pageSizeOf(options);
    const order = options.order ?? 'desc';
    const limit = pageSize + anchor.skip;
    const result = await client.query(pagedApl(apl, order, limit), {
        format: 'tabular',
        startTime: anchor.startTime,
        endTime: anchor.endTime,
        variables: options.variables,
        signal: options.signal,
    });
    const all = firstTable(result);
    const n = rowCount(all);
    const table = dropRows(all, Math.min(anchor.skip, n));
    if (n < limit || n <= anchor.skip) return { table, result };
    const times = (all.columns ?? [])[all.fields.findIndex(f => f.name === '_time')];
    const lastText = times?.[n - 1];
    const last = typeof lastText === 'string' ? parseDatetime(lastText) : undefined;
    if (last === undefined) throw new Error('time paging needs a _time column in the result');
    let atBoundary = 0;
    for (let i = n - 1; i >= 0; i--) {
        const t = times[i];
        if (typeof t !== 'string' || parseDatetime(t) !== last) break;
        atBoundary++;
    }
    // `all` includes the rows skipped at the anchor's boundary: when the whole page is one run of
    // ties, the count goes on growing and the range stays, until the run ends.
    const skip = atBoundary;
    const next =
        order === 'desc'
            ? { kind: 'time' as const, startTime: anchor.startTime, endTime: formatDatetime(last + 1n), skip }
            : { kind: 'time' as const, startTime: formatDatetime(last), endTime: anchor.endTime, skip };
    return { table, result, next };
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
