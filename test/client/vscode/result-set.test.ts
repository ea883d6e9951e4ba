/** ResultSet against the real embedded service: both paging kinds, the LRU refetch, the one-request mode. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultSet, type ResultMode } from '../../../client/vscode/src/results/result-set.js';
import { END, serviceWithEvents, START, type Fixture } from './service-fixture.js';

const N = 2500;
let fx: Fixture;

beforeAll(async () => {
    fx = await serviceWithEvents(N);
});
afterAll(async () => fx?.close());

function open(mode: ResultMode, apl = "['events']", cachedPages = 2, order: 'asc' | 'desc' = 'desc') {
    return ResultSet.open({ client: fx.client, apl, mode, pageSize: 1000, order, startTime: START, endTime: END, cachedPages, signal: new AbortController().signal });
}

const seqs = (rows: unknown[][], set: ResultSet) => rows.map(r => r[set.fields.findIndex(f => f.name === 'seq')] as number);

describe('ResultSet', () => {
    for (const mode of ['cursor', 'time'] as const) {
        it(`pages by ${mode}: rowsMatched from the first page, rows fetched as asked, each event once`, async () => {
            const set = await open(mode);
            expect(set.rowsMatched).toBe(N);
            expect(set.rowCount).toBe(N);
            expect(set.rowsLoaded).toBe(1000);
            expect(set.requests).toBe(1);
            const first = seqs(await set.rows(0, 4), set);
            expect([...first].sort((a, b) => b - a)).toEqual([N - 1, N - 2, N - 3, N - 4]);
            const all = seqs(await set.rows(0, N), set);
            expect(all).toHaveLength(N);
            expect(new Set(all).size).toBe(N);
            expect(set.requests).toBe(3);
            expect(set.rowsLoaded).toBe(N);
            expect(set.store.pageCount).toBe(3);
            // Page 0 was evicted (2 pages kept): it is fetched again from its anchor, with the same rows.
            expect(set.store.has(0)).toBe(false);
            const again = seqs(await set.rows(0, 1000), set);
            expect(again).toEqual(all.slice(0, 1000));
            expect(set.requests).toBe(4);
        });
    }

    it('jumping far ahead walks the pages in between, in order (each anchor comes from the page before)', async () => {
        const set = await open('cursor', "['events']", 1);
        const rows = seqs(await set.rows(2400, 2410), set);
        expect(rows).toHaveLength(10);
        expect(set.requests).toBe(3);
        expect(set.store.cachedPages()).toEqual([2]);
    });

    it('asks past the end: fewer rows, and the exact count once the last page is read', async () => {
        const set = await open('time', "['events'] | where seq < 1500");
        expect(set.rowsMatched).toBe(1500);
        expect((await set.rows(1400, 1600)).length).toBe(100);
        expect(set.rowCount).toBe(1500);
    });

    it("['events'] | sort by _time asc pages oldest first", async () => {
        const set = await open('cursor', "['events'] | sort by _time asc", 2, 'asc');
        const rows = seqs(await set.rows(0, 4), set);
        expect(rows.sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
    });

    it("['events'] | summarize count() by bin(_time, 1m) runs once and keeps the whole table", async () => {
        const set = await open('once', "['events'] | summarize count() by bin(_time, 1m)");
        expect(set.mode).toBe('once');
        expect(set.rowCount).toBe(21);
        expect(set.rowsMatched).toBe(N);
        expect(set.fields.map(f => f.name)).toEqual(['_time', 'count_']);
        expect((await set.rows(0, 100)).length).toBe(21);
        expect(set.requests).toBe(1);
    });

    it('allPages walks every page for export without evicting what the view keeps', async () => {
        const set = await open('cursor', "['events']", 1);
        await set.rows(0, 10);
        let rows = 0;
        for await (const page of set.allPages(new AbortController().signal)) rows += page.rows;
        expect(rows).toBe(N);
        expect(set.store.cachedPages()).toEqual([0]);
        expect(set.store.pageCount).toBe(3);
    });

    it('an aborted signal stops the walk', async () => {
        const set = await open('cursor');
        const controller = new AbortController();
        controller.abort();
        await expect(async () => {
            for await (const _ of set.allPages(controller.signal)) void _;
        }).rejects.toThrow();
    });
});
