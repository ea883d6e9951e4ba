/**
 * Paging (API.md §10): 5,000 events, many sharing a `_time`, ingested out of order in several
 * batches; pages of 1,000 by cursor (body and URL, both directions, exclusive and inclusive) and
 * by timestamp. Every event must come back exactly once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, type TestService } from './helpers.js';

const N = 5000;
const PAGE = 1000;
const BASE = Date.parse('2024-06-01T00:00:00Z');
const START = '2024-06-01T00:00:00Z';
const END = '2024-06-02T00:00:00Z';

let t: TestService;

/** i → time: ties of 3 events per second (cursor test) */
const tieTime = (i: number) => new Date(BASE + Math.floor(i / 3) * 1000).toISOString();

beforeAll(async () => {
    t = await startService();
    await createDataset(t, 'pages');
    await createDataset(t, 'pages-unique');
    // shuffle deterministically, send in 5 batches
    const order = Array.from({ length: N }, (_, i) => i);
    let seed = 7;
    for (let i = N - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const j = seed % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
    }
    for (let b = 0; b < 5; b++) {
        const part = order.slice(b * 1000, (b + 1) * 1000);
        const r1 = await t.raw('POST', '/v1/datasets/pages/ingest', ndjson(part.map((i) => ({ _time: tieTime(i), i }))), { 'content-type': 'application/x-ndjson' });
        expect(r1.json.ingested).toBe(1000);
        const r2 = await t.raw('POST', '/v1/datasets/pages-unique/ingest', ndjson(part.map((i) => ({ _time: new Date(BASE + i * 1000).toISOString(), i }))), {
            'content-type': 'application/x-ndjson',
        });
        expect(r2.json.ingested).toBe(1000);
    }
});
afterAll(async () => {
    await t?.stop();
});

type Page = { items: { i: number; t: string }[]; minCursor?: string; maxCursor?: string };

async function page(apl: string, extra: Record<string, unknown>, urlCursor?: string): Promise<Page> {
    const url = `/v1/datasets/_apl?format=tabular${urlCursor ? `&cursor=${encodeURIComponent(urlCursor)}` : ''}`;
    const r = await t.call('POST', url, { apl, startTime: START, endTime: END, ...extra });
    expect(r.status, r.text).toBe(200);
    const items = rows(r.json).map((x) => ({ i: x.i as number, t: x._time as string }));
    return { items, minCursor: r.json.status.minCursor, maxCursor: r.json.status.maxCursor };
}

function checkAll(seen: { i: number; t: string }[], desc: boolean): void {
    expect(seen).toHaveLength(N);
    expect(new Set(seen.map((x) => x.i)).size).toBe(N);
    for (let k = 1; k < seen.length; k++) {
        const a = Date.parse(seen[k - 1].t);
        const b = Date.parse(seen[k].t);
        if (desc) expect(a >= b, `order at ${k}`).toBe(true);
        else expect(a <= b, `order at ${k}`).toBe(true);
    }
}

describe('cursor paging', () => {
    for (const [dir, where] of [
        ['desc', 'body'],
        ['desc', 'url'],
        ['asc', 'body'],
        ['asc', 'url'],
    ] as const) {
        it(`pages ${dir} by cursor in the ${where}, pages of ${PAGE}`, async () => {
            const apl = `['pages'] | sort by _time ${dir} | project _time, i | limit ${PAGE}`;
            const seen: Page['items'] = [];
            let cursor: string | undefined;
            let pages = 0;
            for (;;) {
                const p = where === 'body' ? await page(apl, cursor ? { cursor } : {}) : await page(apl, {}, cursor);
                pages++;
                seen.push(...p.items);
                if (p.items.length < PAGE) break;
                const next = dir === 'desc' ? p.minCursor : p.maxCursor;
                expect(next).toBeTruthy();
                if (next === cursor) break;
                cursor = next;
                expect(pages).toBeLessThan(10);
            }
            checkAll(seen, dir === 'desc');
            expect(pages).toBeGreaterThanOrEqual(5);
        });
    }

    it('includes the cursor row with includeCursor, and pages by the body limit', async () => {
        const apl = `['pages'] | sort by _time desc | project _time, i`;
        const p1 = await page(apl, { limit: PAGE });
        expect(p1.items).toHaveLength(PAGE);
        const p2 = await page(apl, { limit: PAGE, cursor: p1.minCursor, includeCursor: true });
        expect(p2.items[0]).toEqual(p1.items[PAGE - 1]);
        const p3 = await page(apl, { limit: PAGE, cursor: p1.minCursor });
        expect(p3.items[0]).toEqual(p2.items[1]);
    });

    it('applies the lowest of the APL limit, the body limit and the default (1,000)', async () => {
        expect((await page(`['pages'] | project _time, i`, {})).items).toHaveLength(1000);
        expect((await page(`['pages'] | project _time, i | take 10`, { limit: 50 })).items).toHaveLength(10);
        expect((await page(`['pages'] | project _time, i | take 100`, { limit: 20 })).items).toHaveLength(20);
        expect((await page(`['pages'] | project _time, i | take 3000`, {})).items).toHaveLength(3000);
    });

    it('pages the legacy endpoint by _rowId (cli stream: ascending, exclusive)', async () => {
        const seen: number[] = [];
        let cursor = '';
        for (let k = 0; k < 10; k++) {
            const r = await t.call('POST', '/v1/datasets/pages/query', {
                startTime: START,
                endTime: END,
                resolution: 'auto',
                order: [{ field: '_time', desc: false }],
                limit: PAGE,
                cursor,
            });
            expect(r.status, r.text).toBe(200);
            const m = r.json.matches as { _rowId: string; data: { i: number } }[];
            seen.push(...m.map((x) => x.data.i));
            if (m.length < PAGE) break;
            cursor = m[m.length - 1]._rowId;
        }
        expect(seen).toHaveLength(N);
        expect(new Set(seen).size).toBe(N);
    });
});

describe('timestamp paging', () => {
    for (const dir of ['desc', 'asc'] as const) {
        it(`pages ${dir} by moving ${dir === 'desc' ? 'endTime' : 'startTime'}`, async () => {
            const apl = `['pages-unique'] | sort by _time ${dir} | project _time, i | limit ${PAGE}`;
            const seen: Page['items'] = [];
            let start = START;
            let end = END;
            for (let k = 0; k < 10; k++) {
                const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl, startTime: start, endTime: end });
                expect(r.status, r.text).toBe(200);
                const items = rows(r.json).map((x) => ({ i: x.i as number, t: x._time as string }));
                seen.push(...items);
                if (items.length < PAGE) break;
                const last = items[items.length - 1].t;
                if (dir === 'desc') end = last; // [start, end): the last row is excluded next time
                else start = new Date(Date.parse(last) + 1).toISOString(); // + 1 ms (times are whole seconds)
            }
            checkAll(seen, dir === 'desc');
        });
    }
});

// A result cut to the service's maximum rows per query (50,000) says so in status.messages (issue 26).
describe('the row cap is told', () => {
    const CAP_ROWS = 51_000;
    beforeAll(async () => {
        await createDataset(t, 'capped');
        const r = await t.raw('POST', '/v1/datasets/capped/ingest', ndjson(Array.from({ length: CAP_ROWS }, (_, i) => ({ _time: new Date(BASE + i).toISOString(), i }))), {
            'content-type': 'application/x-ndjson',
        });
        expect(r.json.ingested).toBe(CAP_ROWS);
    });

    const codes = (json: { status: { messages?: { code: string }[] | null } }) => (json.status.messages ?? []).map(m => m.code);
    const CASES: [string, Record<string, unknown>, number, string[]][] = [
        ["['capped'] | limit 51000", {}, 50_000, ['apl_max_result_rows_warning']],
        ["['capped'] | project i", { limit: 60_000 }, 50_000, ['apl_max_result_rows_warning']],
        ["['capped'] | limit 51000", { limit: 100 }, 100, []],
        ["['capped'] | limit 100", {}, 100, []],
        ["['capped'] | project i", {}, 1000, ['default_limit_warning']],
    ];
    for (const [apl, extra, n, expected] of CASES) {
        it(`${apl} ${JSON.stringify(extra)}: ${n} rows, messages ${JSON.stringify(expected)}`, async () => {
            for (const format of ['tabular', 'legacy'] as const) {
                const r = await t.call('POST', `/v1/datasets/_apl?format=${format}`, { apl, ...extra });
                expect(r.status, r.text).toBe(200);
                expect(format === 'tabular' ? rows(r.json).length : r.json.matches.length).toBe(n);
                expect(codes(r.json)).toEqual(expected);
                if (expected[0] === 'apl_max_result_rows_warning') {
                    const [m] = r.json.status.messages;
                    expect(m).toMatchObject({ priority: 'warn', count: 1 });
                    expect(m.msg).toMatch(/50,000 of 51,000 rows.*maxResultRows/);
                }
            }
        });
    }
});
