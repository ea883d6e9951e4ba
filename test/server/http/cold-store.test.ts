/**
 * A service under a memory limit its data does not fit (server/http/cold-tier.ts): the dataset
 * keeps its blocks on disk, its query workers read the blocks a query needs, and every answer is
 * the one the same data directory gives when it is held in memory whole (a restart with no limit,
 * so row ids and cursors are the same events'). 30 days of events (about 8 MB in memory, 4 times
 * the limit), a block per 1,500 events (compacted by the test, so block sizes do not depend on timing).
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestService } from './helpers.js';
import { COLD_LIMIT, comparable, ingestInBlocks, queryTabular, startColdService } from './cold-helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const DAYS = 30;
const PER_DAY = 4800;
const N = DAYS * PER_DAY;
const END = new Date(T0 + DAYS * DAY).toISOString();
const ALL = { startTime: new Date(T0).toISOString(), endTime: END };
const LAST_TWO_HOURS = { startTime: new Date(T0 + DAYS * DAY - 2 * 3_600_000).toISOString(), endTime: END };

function events(from: number, n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, k) => {
        const i = from + k;
        return { _time: new Date(T0 + Math.floor((i * DAY) / PER_DAY)).toISOString(), i, s: `v${i % 7}`, r: (i % 101) / 4, ok: i % 3 === 0 };
    });
}

const MERGEABLE = [
    "['d'] | count",
    "['d'] | summarize count() by s",
    "['d'] | summarize avg(r), sum(i), max(r) by bin(_time, 1d)",
    "['d'] | where ok | summarize count(), min(i) by s",
    // Exact states that fit the query's budget for them (merge-states.ts; cold-sketch.test.ts goes past it).
    "['d'] | summarize dcount(s), dcount(r) by ok",
    "['d'] | top 5 by r desc, i asc",
    "['d'] | where ok | top 3 by r | project i, s, r",
    "['d'] | where i < 0 | top 3 by r",
    "['d'] | where s == 'v3' | sort by i asc | take 7",
];

/** Row-wise steps stream the blocks newest first (oldest first for an ascending `_time` sort). */
const STREAMED = [
    "['d'] | where i % 97 == 0 | project _time, i, s",
    "['d'] | take 5",
    "['d'] | where s == 'v2' | order by _time asc | take 12",
];

/** Exact aggregations need every value at once: over the last two hours (one or two blocks) they fit. */
const NARROW = ["['d'] | summarize dcount(s), percentile(i, 50)"];

describe('a dataset larger than the memory limit', () => {
    let t: TestService;
    const onDisk: Record<string, unknown> = {};
    const logs: string[] = [];

    beforeAll(async () => {
        // 2 MB: half for datasets in memory, a quarter (512 KB: room for the two blocks that may hold
        // the last two hours, counted twice in a concatenated scan) for the blocks the query worker reads.
        t = await startColdService(line => void logs.push(line));
        await ingestInBlocks(t, 'd', N, events);
    }, 120_000);

    afterAll(async () => {
        await t?.stop();
    });

    it("logs the share for datasets in memory as half of the limit (docs/service.md), beside what they held", () => {
        const line = logs.find(l => l.startsWith('dataset d: '));
        expect(line).toMatch(/the datasets in memory hold [\d,]+ bytes, past their share of 1,048,576 bytes \(half of --memory-limit 2,097,152\)/);
        const held = Number(/hold ([\d,]+) bytes/.exec(line!)![1].replaceAll(',', ''));
        expect(held).toBeGreaterThan(COLD_LIMIT / 2);
    });

    it('keeps its blocks on disk', () => {
        expect(t.svc.data.keepsOnDisk('d')).toBe(true);
        // What the engine holds of it is the WAL tail: well under the datasets' half of the limit.
        expect(t.svc.data.engine.memoryBytes('d')).toBeLessThan(COLD_LIMIT / 2);
        expect(readdirSync(path.join(t.dir, 'datasets', 'd', 'blocks')).length).toBe(N / 1500);
    });

    for (const apl of MERGEABLE) {
        it(`${apl} runs block by block`, async () => {
            const r = await queryTabular(t, apl, ALL);
            expect(r.status).toBe(200);
            onDisk[apl] = comparable(r.json);
        });
    }

    for (const apl of STREAMED) {
        it(`${apl} streams the blocks`, async () => {
            const r = await queryTabular(t, apl, ALL);
            expect(r.status, r.text).toBe(200);
            onDisk[`streamed ${apl}`] = comparable(r.json);
        });
    }

    for (const apl of NARROW) {
        it(`${apl} over the last two hours`, async () => {
            const r = await queryTabular(t, apl, LAST_TWO_HOURS);
            expect(r.status, r.text).toBe(200);
            onDisk[`narrow ${apl}`] = comparable(r.json);
        });
    }

    it("['d'] | summarize make_set(s) over 30 days needs more blocks at once than the limit allows: 400 limit", async () => {
        const r = await queryTabular(t, "['d'] | summarize make_set(s)", ALL);
        expect(r.status).toBe(400);
        expect((r.json as { detail: { errorType: string } }).detail.errorType).toBe('limit');
    });

    it("['d'] | count over the last hour reads the blocks of that hour only", async () => {
        const r = await queryTabular(t, "['d'] | count", { startTime: new Date(T0 + DAYS * DAY - 3_600_000).toISOString(), endTime: END });
        expect(r.status).toBe(200);
        const body = r.json as { tables: { columns: unknown[][] }[]; status: { blocksExamined: number } };
        expect(body.tables[0].columns[0]).toEqual([Math.round(PER_DAY / 24)]);
        // The hour's block(s): a block holds 7.5 hours of events; the in-memory tail is empty after the last compaction.
        expect(body.status.blocksExamined).toBeGreaterThanOrEqual(1);
        expect(body.status.blocksExamined).toBeLessThanOrEqual(2);
    });

    it("['d'] | where i == 12345 | count reads the one block whose header range holds it", async () => {
        const r = await queryTabular(t, "['d'] | where i == 12345 | count", ALL);
        const body = r.json as { tables: { columns: unknown[][] }[]; status: { blocksExamined: number } };
        expect(body.tables[0].columns[0]).toEqual([1]);
        // i grows with time: the blocks' ranges of i do not overlap.
        expect(body.status.blocksExamined).toBe(1);
    });

    it('answers as the same data held in memory whole, and again after a restart under the limit', async () => {
        const pagesOf = async (s: TestService) => {
            const out: unknown[] = [];
            let cursor: string | undefined;
            for (let k = 0; k < 3; k++) {
                const r = await queryTabular(s, "['d'] | project i, s", LAST_TWO_HOURS, { cursor, limit: 300 });
                const body = r.json as { status: { maxCursor?: string } };
                out.push(comparable(body));
                cursor = body.status.maxCursor;
            }
            return out;
        };
        const pages = await pagesOf(t);
        const fields = (await t.call('GET', '/v2/datasets/d/fields')).json;

        for (const limit of [Infinity, COLD_LIMIT]) {
            await t.restart({ memoryLimit: limit });
            await t.svc.loaded;
            expect(t.svc.data.keepsOnDisk('d')).toBe(limit !== Infinity);
            for (const apl of MERGEABLE) expect(comparable((await queryTabular(t, apl, ALL)).json), `${apl}, limit ${limit}`).toEqual(onDisk[apl]);
            for (const apl of STREAMED) expect(comparable((await queryTabular(t, apl, ALL)).json), `${apl}, limit ${limit}`).toEqual(onDisk[`streamed ${apl}`]);
            for (const apl of NARROW) expect(comparable((await queryTabular(t, apl, LAST_TWO_HOURS)).json), `${apl}, limit ${limit}`).toEqual(onDisk[`narrow ${apl}`]);
            expect(await pagesOf(t)).toEqual(pages);
            expect((await t.call('GET', '/v2/datasets/d/fields')).json).toEqual(fields);
        }
    }, 120_000);

    it('answers the same with 2 query workers, each reading its share of the blocks (statistics included)', async () => {
        const exact = (json: unknown) => JSON.parse(JSON.stringify(json), (k, v: unknown) => (k === 'elapsedTime' ? undefined : v)) as unknown;
        const ranges = [ALL, LAST_TWO_HOURS, { startTime: new Date(T0 + 86_400_000).toISOString(), endTime: new Date(T0 + 3 * 86_400_000).toISOString() }];
        const one = new Map<string, unknown>();
        for (const apl of MERGEABLE) for (const range of ranges) one.set(`${apl} ${range.startTime}`, exact((await queryTabular(t, apl, range)).json));
        await t.restart({ memoryLimit: COLD_LIMIT, queryWorkers: 2, parallelMinRows: 0 });
        await t.svc.loaded;
        while ((t.svc.data.engine.queryStats()?.idle ?? 0) < 2) await new Promise(r => setTimeout(r, 20));
        expect(t.svc.data.keepsOnDisk('d')).toBe(true);
        for (const apl of MERGEABLE) for (const range of ranges) expect(exact((await queryTabular(t, apl, range)).json), `${apl} ${range.startTime}`).toEqual(one.get(`${apl} ${range.startTime}`));
        // The count and the summarizes (of numbers, and the dcounts) ran in parts over 30 days and over 2 days
        // (5 queries × 2 ranges); the last two hours lie in the last block (7.5 hours of events), which one job reads.
        expect(t.svc.data.engine.queryStats()?.together).toBe(10);
    }, 120_000);

    it("['d'] | where _time >= <the last two hours> | summarize count() by s over 30 days at 4 query workers: the parts past the one block and the rows in memory run empty", async () => {
        const apl = `['d'] | where _time >= datetime(${LAST_TWO_HOURS.startTime}) | summarize count() by s`;
        const exact = (json: unknown) => JSON.parse(JSON.stringify(json), (k, v: unknown) => (k === 'elapsedTime' ? undefined : v)) as unknown;
        await t.restart({ memoryLimit: COLD_LIMIT, queryWorkers: 1 });
        // Rows in memory too (not compacted), in that range.
        const late = events(N - 40, 40).map(e => ({ ...e, s: 'late' }));
        expect((await t.raw('POST', '/v1/datasets/d/ingest', late.map(e => JSON.stringify(e)).join('\n'), { 'content-type': 'application/x-ndjson' })).status).toBe(200);
        const one = exact((await queryTabular(t, apl, ALL)).json);
        expect(JSON.stringify(one)).toContain('"late"');
        await t.restart({ memoryLimit: COLD_LIMIT, queryWorkers: 4, parallelMinRows: 0 });
        await t.svc.loaded;
        while ((t.svc.data.engine.queryStats()?.idle ?? 0) < 4) await new Promise(r => setTimeout(r, 20));
        expect(exact((await queryTabular(t, apl, ALL)).json)).toEqual(one);
        expect(t.svc.data.engine.queryStats()?.together).toBe(1);
    }, 120_000);
});
