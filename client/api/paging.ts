/**
 * The two paging kinds of API.md §10, as async iterators. Both append `| sort by _time <order> |
 * limit <n>` to the query, so the query must keep `_time` (no `summarize`/`project` without it).
 */
import { formatDatetime, parseDatetime } from '../../language/values.js';
import type { AplClient } from './client.js';
import { tableRows } from './rows.js';
import type { Page, PagingOptions, TabularResult } from './types.js';

export const DEFAULT_PAGE_SIZE = 1000;

function pageSizeOf(options: PagingOptions): number {
    const n = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`pageSize must be a positive integer, got ${n}`);
    return n;
}

/** The query with the paging operators appended (after any trailing `;` or blank). */
export function pagedApl(apl: string, order: 'asc' | 'desc', limit: number): string {
    const body = apl.replace(/[\s;]+$/, '');
    return `${body}\n| sort by _time ${order}\n| limit ${limit}`;
}

function firstTable(result: TabularResult) {
    const table = result.tables?.[0];
    return table ?? { name: '0', fields: [], columns: [] };
}

/** §10.2: the next page uses `minCursor` (desc) or `maxCursor` (asc), exclusive of the cursor row. */
export async function* pagesByCursor(client: AplClient, apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
    const pageSize = pageSizeOf(options);
    const order = options.order ?? 'desc';
    const query = pagedApl(apl, order, pageSize);
    let cursor: string | undefined;
    for (let index = 0; options.maxPages === undefined || index < options.maxPages; index++) {
        const result = await client.query(query, {
            format: 'tabular',
            startTime: options.startTime,
            endTime: options.endTime,
            cursor,
            variables: options.variables,
            signal: options.signal,
        });
        const table = firstTable(result);
        const rows = tableRows(table);
        const next = order === 'desc' ? result.status?.minCursor : result.status?.maxCursor;
        const done = rows.length < pageSize || !next || next === cursor;
        yield { index, rows, fields: table.fields, result, nextCursor: done ? undefined : next };
        if (done) return;
        cursor = next;
    }
}

/**
 * §10.3: after a page, desc narrows `endTime` to just after the last row's `_time`, asc moves
 * `startTime` to it ([start, end) ranges). Rows at that boundary time that were already returned are
 * requested again and skipped (ties are ordered by row id, so this is exact), so a run of equal
 * timestamps longer than a page still makes progress.
 */
export async function* pagesByTime(client: AplClient, apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
    const pageSize = pageSizeOf(options);
    const order = options.order ?? 'desc';
    let startTime = options.startTime;
    let endTime = options.endTime;
    let seenAtBoundary = 0;
    for (let index = 0; options.maxPages === undefined || index < options.maxPages; index++) {
        const limit = pageSize + seenAtBoundary;
        const result = await client.query(pagedApl(apl, order, limit), {
            format: 'tabular',
            startTime,
            endTime,
            variables: options.variables,
            signal: options.signal,
        });
        const table = firstTable(result);
        const all = tableRows(table);
        const rows = all.slice(seenAtBoundary);
        const done = all.length < limit || rows.length === 0;
        if (done) {
            yield { index, rows, fields: table.fields, result };
            return;
        }
        const lastText = all[all.length - 1]._time;
        const last = typeof lastText === 'string' ? parseDatetime(lastText) : undefined;
        if (last === undefined) throw new Error('time paging needs a _time column in the result');
        seenAtBoundary = 0;
        for (let i = all.length - 1; i >= 0; i--) {
            const t = all[i]._time;
            if (typeof t !== 'string' || parseDatetime(t) !== last) break;
            seenAtBoundary++;
        }
        if (order === 'desc') endTime = formatDatetime(last + 1n);
        else startTime = formatDatetime(last);
        yield { index, rows, fields: table.fields, result };
    }
}
