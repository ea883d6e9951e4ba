/**
 * `includeCursorField: true` (API.md §4.2, §4.3, §10.2): a `_cursor` column with each row's cursor,
 * which `cursor` accepts back. 1,000 events (pairs share a `_time`), ingested shuffled in two batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, type TestService } from './helpers.js';

const N = 1000;
const BASE = Date.parse('2024-07-01T00:00:00Z');
const RANGE = { startTime: '2024-07-01T00:00:00Z', endTime: '2024-07-02T00:00:00Z' };
const ROW_ID = /^[0-9a-z]{13}-[0-9a-f]{16}-[0-9a-f]{8}$/;
const TABULAR = '/v1/datasets/_apl?format=tabular';
const DESC = "['cur'] | sort by _time desc";

let t: TestService;

beforeAll(async () => {
    t = await startService();
    await createDataset(t, 'cur');
    const order = Array.from({ length: N }, (_, i) => i);
    let seed = 11;
    for (let i = N - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const j = seed % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
    }
    for (const part of [order.slice(0, N / 2), order.slice(N / 2)]) {
        const events = part.map((i) => ({ _time: new Date(BASE + Math.floor(i / 2) * 1000).toISOString(), i, k: i % 3 }));
        const r = await t.raw('POST', '/v1/datasets/cur/ingest', ndjson(events), { 'content-type': 'application/x-ndjson' });
        expect(r.json.ingested).toBe(N / 2);
    }
});
afterAll(async () => {
    await t?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function apl(apl: string, extra: Record<string, unknown> = {}, url = TABULAR): Promise<any> {
    const r = await t.call('POST', url, { apl, ...RANGE, ...extra });
    expect(r.status, r.text).toBe(200);
    return r.json;
}

const fieldNames = (table: { fields: { name: string }[] }) => table.fields.map((f) => f.name);
const iAndCursor = (r: Record<string, unknown>) => ({ i: r.i, _cursor: r._cursor });

describe('includeCursorField', () => {
    it('adds a string _cursor column, last, whose values the status min/maxCursor are drawn from', async () => {
        const res = await apl(DESC, { includeCursorField: true });
        const table = res.tables[0];
        expect(table.fields.at(-1)).toEqual({ name: '_cursor', type: 'string' });
        expect(fieldNames(table).filter((n: string) => n === '_cursor')).toHaveLength(1);
        const all = rows(res);
        expect(all).toHaveLength(N);
        const cursors = all.map((r) => r._cursor as string);
        expect(cursors.every((c) => ROW_ID.test(c))).toBe(true);
        expect(new Set(cursors).size).toBe(N);
        // newest first, and cursors sort like the rows: descending
        expect([...cursors].sort().reverse()).toEqual(cursors);
        expect(res.status.maxCursor).toBe(cursors[0]);
        expect(res.status.minCursor).toBe(cursors[N - 1]);
        // the other columns are those of the same query without the flag
        const plain = await apl(DESC);
        expect(fieldNames(table).slice(0, -1)).toEqual(fieldNames(plain.tables[0]));
        expect(table.columns.slice(0, -1)).toEqual(plain.tables[0].columns);
    });

    it("pages from row 500's _cursor: 500 rows with includeCursor, 499 without (rs tests/cursor.rs)", async () => {
        const first = rows(await apl(DESC, { includeCursorField: true }));
        const cursor = first[500]._cursor;
        const inclusive = rows(await apl(DESC, { includeCursorField: true, cursor, includeCursor: true }));
        expect(inclusive).toHaveLength(500);
        expect(inclusive.map(iAndCursor)).toEqual(first.slice(500).map(iAndCursor));
        const exclusive = rows(await apl(DESC, { includeCursorField: true, cursor }));
        expect(exclusive).toHaveLength(499);
        expect(exclusive.map(iAndCursor)).toEqual(first.slice(501).map(iAndCursor));
        // js sends the cursor in the URL; same page
        const viaUrl = rows(await apl(DESC, { includeCursorField: true, includeCursor: true }, `${TABULAR}&cursor=${encodeURIComponent(String(cursor))}`));
        expect(viaUrl.map(iAndCursor)).toEqual(inclusive.map(iAndCursor));
    });

    it('pages ascending from a _cursor too', async () => {
        const asc = "['cur'] | sort by _time asc";
        const first = rows(await apl(asc, { includeCursorField: true }));
        const page = rows(await apl(asc, { includeCursorField: true, cursor: first[300]._cursor, includeCursor: true }));
        expect(page.map(iAndCursor)).toEqual(first.slice(300).map(iAndCursor));
    });

    it('keeps the row cursors through project, where and take', async () => {
        const all = rows(await apl(DESC, { includeCursorField: true }));
        const byI = new Map(all.map((r) => [r.i, r._cursor]));
        const res = await apl("['cur'] | where k == 1 | project i | sort by i asc | take 5", { includeCursorField: true });
        expect(fieldNames(res.tables[0])).toEqual(['i', '_cursor']);
        const got = rows(res);
        expect(got.map((r) => r.i)).toEqual([1, 4, 7, 10, 13]);
        expect(got.map((r) => r._cursor)).toEqual(got.map((r) => byI.get(r.i)));
    });

    it('is absent without the flag, or with false', async () => {
        for (const extra of [{}, { includeCursorField: false }]) {
            const res = await apl("['cur'] | take 3", extra);
            expect(fieldNames(res.tables[0])).not.toContain('_cursor');
            expect(res.status.minCursor).toMatch(ROW_ID);
        }
    });

    it('is absent for aggregations and rows that are not events: summarize, count, print, datatable', async () => {
        const res = await apl("['cur'] | summarize n = count() by k | sort by k asc", { includeCursorField: true });
        expect(res.tables[0].fields).toEqual([
            { name: 'k', type: 'integer' },
            { name: 'n', type: 'integer', agg: expect.objectContaining({ name: 'count' }) },
        ]);
        expect(rows(res)).toEqual([
            { k: 0, n: 334 },
            { k: 1, n: 333 },
            { k: 2, n: 333 },
        ]);
        expect(res.status.minCursor).toBeUndefined();
        // with a _totals table (bucketed summarize): in neither table
        const binned = await apl("['cur'] | summarize count() by bin(_time, 1h)", { includeCursorField: true });
        expect(binned.tables.length).toBeGreaterThanOrEqual(1);
        for (const table of binned.tables) expect(fieldNames(table)).not.toContain('_cursor');
        for (const q of ["['cur'] | count", 'print x = 1', 'datatable(x:long)[1, 2]']) {
            const r = await apl(q, { includeCursorField: true });
            expect(fieldNames(r.tables[0]), q).not.toContain('_cursor');
        }
    });

    it('gives null to the rows of a union that have no source event', async () => {
        const res = await apl("union (['cur'] | where i < 2 | project i), (datatable(i:long)[-1]) | sort by i asc", { includeCursorField: true });
        expect(fieldNames(res.tables[0])).toEqual(['i', '_cursor']);
        const got = rows(res);
        expect(got.map((r) => r.i)).toEqual([-1, 0, 1]);
        expect(got[0]._cursor).toBeNull();
        expect(got[1]._cursor).toMatch(ROW_ID);
        expect(got[2]._cursor).toMatch(ROW_ID);
    });

    it('replaces a column the query itself named _cursor', async () => {
        const res = await apl("['cur'] | extend _cursor = 'mine' | project i, _cursor | take 2", { includeCursorField: true });
        expect(fieldNames(res.tables[0])).toEqual(['i', '_cursor']);
        expect(rows(res).every((r) => ROW_ID.test(String(r._cursor)))).toBe(true);
        // without the flag the query's column is left alone
        expect(rows(await apl("['cur'] | extend _cursor = 'mine' | project i, _cursor | take 1"))[0]._cursor).toBe('mine');
    });

    it('leaves the legacy format as it is: every match already carries its cursor as _rowId', async () => {
        const q = "['cur'] | sort by _time desc | take 5";
        const legacy = await apl(q, { includeCursorField: true }, '/v1/datasets/_apl?format=legacy');
        expect(legacy.matches).toHaveLength(5);
        for (const m of legacy.matches) expect(Object.keys(m).sort()).toEqual(['_rowId', '_sysTime', '_time', 'data']);
        expect(legacy.matches.some((m: { data: Record<string, unknown> }) => '_cursor' in m.data)).toBe(false);
        const tabular = rows(await apl(q, { includeCursorField: true }));
        expect(legacy.matches.map((m: { _rowId: string }) => m._rowId)).toEqual(tabular.map((r) => r._cursor));
    });

    it('works on the edge endpoint', async () => {
        const res = await apl("['cur'] | take 2", { includeCursorField: true }, '/v1/query/_apl?format=tabular');
        expect(fieldNames(res.tables[0]).at(-1)).toBe('_cursor');
    });

    it('rejects a value that is not a boolean with a 400 naming the field', async () => {
        for (const bad of ['yes', 2, { on: true }]) {
            const r = await t.call('POST', TABULAR, { apl: "['cur'] | take 1", includeCursorField: bad });
            expect(r.status, r.text).toBe(400);
            expect(r.json.message).toMatch(/includeCursorField/);
        }
    });
});
