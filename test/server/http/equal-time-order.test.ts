/**
 * Rows that share a `_time`, over HTTP: ties come in row-id order (ingestion order ascending, its
 * mirror descending), the order cursors page in, so cursor paging is exact in both directions,
 * also when the query sorted by something else first, and the same after a restart (row ids are
 * stored, not recomputed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, type TestService } from './helpers.js';

const T = '2024-06-01T12:00:00Z';
let t: TestService;

beforeAll(async () => {
    t = await startService();
    await createDataset(t, 'ties');
    await createDataset(t, 'untimed');
    // seq 1-5 then 6-10 at one _time (two requests), seq 0 older, seq 11 newer; b falls as seq rises
    const ev = (seq: number, time = T) => ({ _time: time, seq, b: 100 - seq });
    const send = async (ds: string, events: unknown[]) => {
        const r = await t.raw('POST', `/v1/datasets/${ds}/ingest`, ndjson(events), { 'content-type': 'application/x-ndjson' });
        expect(r.json.ingested).toBe(events.length);
    };
    await send('ties', [1, 2, 3, 4, 5].map((s) => ev(s)));
    await send('ties', [...[6, 7, 8, 9, 10].map((s) => ev(s)), ev(0, '2024-06-01T11:00:00Z'), ev(11, '2024-06-01T13:00:00Z')]);
    // no _time: the whole request gets one receive time
    await send('untimed', ['first', 'second', 'third', 'fourth'].map((msg) => ({ msg })));
});
afterAll(async () => {
    await t?.stop();
});

const DESC = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
const ASC = [...DESC].reverse();

async function query(apl: string, extra: Record<string, unknown> = {}) {
    const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...extra });
    expect(r.status, r.text).toBe(200);
    return r.json;
}

/** Pages of 4 by cursor, in the body or (js) in the URL; every seq seen, in order. */
async function pageAll(apl: string, order: 'asc' | 'desc', where: 'body' | 'url'): Promise<number[]> {
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
        const url = `/v1/datasets/_apl?format=tabular${where === 'url' && cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await t.call('POST', url, { apl: `${apl} | limit 4`, ...(where === 'body' && cursor ? { cursor } : {}) });
        expect(r.status, r.text).toBe(200);
        const got = rows(r.json).map((x) => x.seq as number);
        seen.push(...got);
        const next = order === 'desc' ? r.json.status.minCursor : r.json.status.maxCursor;
        if (got.length < 4 || !next) break;
        cursor = next;
    }
    return seen;
}

describe('rows with equal _time over HTTP', () => {
    it("['ties'] | project seq (default: newest first, ties newest-ingested first)", async () => {
        expect(rows(await query("['ties'] | project seq")).map((r) => r.seq)).toEqual(DESC);
    });

    it("['ties'] | sort by _time asc | project seq (ties in ingestion order)", async () => {
        expect(rows(await query("['ties'] | sort by _time asc | project seq")).map((r) => r.seq)).toEqual(ASC);
    });

    it("['untimed'] | sort by _time asc (events without _time in one request keep their order)", async () => {
        expect(rows(await query("['untimed'] | sort by _time asc | project msg")).map((r) => r.msg)).toEqual(['first', 'second', 'third', 'fourth']);
        expect(rows(await query("['untimed'] | project msg")).map((r) => r.msg)).toEqual(['fourth', 'third', 'second', 'first']);
    });

    it('legacy query with no order and with order _time asc: the same tie order', async () => {
        const legacy = async (order?: unknown) => {
            const r = await t.call('POST', '/v1/datasets/ties/query', { startTime: '2024-06-01T00:00:00Z', endTime: '2024-06-02T00:00:00Z', ...(order ? { order } : {}) });
            expect(r.status, r.text).toBe(200);
            return (r.json.matches as { data: { seq: number } }[]).map((m) => m.data.seq);
        };
        expect(await legacy()).toEqual(DESC);
        expect(await legacy([{ field: '_time', desc: false }])).toEqual(ASC);
    });
});

describe('cursor paging through a run of equal _time longer than a page', () => {
    const cases: [string, 'asc' | 'desc', number[]][] = [
        ["['ties'] | sort by _time desc | project seq", 'desc', DESC],
        ["['ties'] | sort by _time asc | project seq", 'asc', ASC],
        ["['ties'] | sort by b asc | sort by _time asc | project seq", 'asc', ASC],
        ["['ties'] | sort by b desc | sort by _time desc | project seq", 'desc', DESC],
    ];
    for (const [apl, order, want] of cases) {
        for (const where of ['body', 'url'] as const) {
            it(`${apl} (pages of 4, cursor in the ${where})`, async () => {
                expect(await pageAll(apl, order, where)).toEqual(want);
            });
        }
    }

    it('the same order and pages after a restart', async () => {
        const before = await query("['ties'] | project seq", { includeCursorField: true });
        await t.restart();
        const after = await query("['ties'] | project seq", { includeCursorField: true });
        expect(rows(after)).toEqual(rows(before));
        expect(await pageAll("['ties'] | sort by _time asc | project seq", 'asc', 'body')).toEqual(ASC);
        expect(await pageAll("['ties'] | project seq", 'desc', 'body')).toEqual(DESC);
    });
});
