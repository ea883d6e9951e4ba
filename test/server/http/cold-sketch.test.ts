/**
 * dcount and percentile over a dataset whose blocks stay on disk (language/eval/merge-states.ts):
 * they run block by block like the other mergeable aggregations. While the exact states (the
 * distinct values, every value) fit the query's budget for them (half of the blocks' share of the
 * memory limit), the answer is the in-memory one exactly; past it the largest states become
 * sketches (HyperLogLog, a relative-error quantile sketch), and the status says it is an estimate.
 *
 * Two datasets under one 2 MB limit (1 query worker: 512 KB of blocks, 256 KB for exact states),
 * each past the 1 MB share for datasets in memory, so both keep their blocks on disk:
 * - `x`: 24,000 events over 10 days, 240 distinct ids, integer values: the exact states fit;
 * - `y`: 60,000 events over 10 days, every id distinct, real values spread over 6 decades: they do not.
 * The answers in memory are those of the same data directory restarted without a limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, type TestService } from './helpers.js';
import { COLD_LIMIT, comparable, ingestInBlocks, queryTabular, startColdService } from './cold-helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const DAYS = 10;
const ALL = { startTime: new Date(T0).toISOString(), endTime: new Date(T0 + DAYS * DAY).toISOString() };

/** Documented error bounds (docs/service.md): HyperLogLog with 2^14 registers has a standard error of 1.04/128 = 0.81%; 3 standard errors. */
const DCOUNT_ERROR = 3 * (1.04 / 128);
/** The quantile sketch's relative accuracy: the value it gives is within 1% of the exact nearest-rank value. */
const PERCENTILE_ERROR = 0.01;

function smallEvents(from: number, n: number, total: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, j) => {
        const i = from + j;
        return { _time: new Date(T0 + Math.floor((i * DAYS * DAY) / total)).toISOString(), id: `u${(i * 7) % 240}`, k: `k${i % 4}`, v: (i * 7919) % 1000 };
    });
}

function bigEvents(from: number, n: number, total: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, j) => {
        const i = from + j;
        // A deterministic spread over 1e-2 .. 1e4 (a golden-ratio sequence, in the exponent).
        const u = (i * 0.6180339887498949) % 1;
        return { _time: new Date(T0 + Math.floor((i * DAYS * DAY) / total)).toISOString(), id: `event-${i}`, k: `k${i % 4}`, v: 10 ** (6 * u - 2) };
    });
}

interface Answer {
    status: number;
    json: { tables: { fields: { name: string }[]; columns: unknown[][] }[]; status: { isEstimate?: boolean; messages?: { code: string; msg: string }[] } };
    text: string;
}

const byK = (r: Answer, field: string) => new Map(rows(r.json).map(x => [x.k as string, x[field] as number]));

async function query(t: TestService, apl: string): Promise<Answer> {
    return (await queryTabular(t, apl, ALL)) as Answer;
}

const EXACT = [
    "['x'] | summarize dcount(id) by k",
    "['x'] | summarize percentile(v, 95) by k",
    "['x'] | summarize dcount(id), percentiles_array(v, 5, 50, 99), count()",
    "['x'] | summarize dcountif(id, v > 500), percentileif(v, 50, k == 'k1') by bin(_time, 1d)",
];

describe('dcount and percentile over blocks on disk', () => {
    let t: TestService;
    const onDisk = new Map<string, Answer>();
    /** y's exact 95th percentiles by k, in memory. */
    let yP95 = new Map<string, number>();

    beforeAll(async () => {
        t = await startColdService();
        await ingestInBlocks(t, 'x', 24_000, (from, n) => smallEvents(from, n, 24_000));
        await ingestInBlocks(t, 'y', 60_000, (from, n) => bigEvents(from, n, 60_000));
    }, 180_000);

    afterAll(async () => {
        await t?.stop();
    });

    it('keeps both datasets on disk', () => {
        expect(t.svc.data.keepsOnDisk('x')).toBe(true);
        expect(t.svc.data.keepsOnDisk('y')).toBe(true);
    });

    for (const apl of EXACT) {
        it(`${apl} answers from disk, exactly`, async () => {
            const r = await query(t, apl);
            expect(r.status, r.text).toBe(200);
            expect(r.json.status.isEstimate).toBe(false);
            onDisk.set(apl, r);
        });
    }

    for (const apl of ["['y'] | summarize dcount(id) by k", "['y'] | summarize percentile(v, 95) by k"]) {
        it(`${apl} answers from disk past the exact budget, as an estimate`, async () => {
            const r = await query(t, apl);
            expect(r.status, r.text).toBe(200);
            expect(r.json.status.isEstimate).toBe(true);
            expect(r.json.status.messages?.map(m => m.code)).toContain('apl_estimate');
            onDisk.set(apl, r);
        });
    }

    it('answers as the same data held in memory: exactly within the budget, within the documented error past it', async () => {
        await t.restart({ memoryLimit: Infinity });
        await t.svc.loaded;
        expect(t.svc.data.keepsOnDisk('y')).toBe(false);
        for (const apl of EXACT) {
            const mem = await query(t, apl);
            expect(mem.status).toBe(200);
            expect(comparable(onDisk.get(apl)!.json), apl).toEqual(comparable(mem.json));
        }

        const dcounts = byK(await query(t, "['y'] | summarize dcount(id) by k"), 'dcount_id');
        expect([...dcounts.values()]).toEqual([15_000, 15_000, 15_000, 15_000]);
        for (const [k, est] of byK(onDisk.get("['y'] | summarize dcount(id) by k")!, 'dcount_id')) {
            expect(Math.abs(est - dcounts.get(k)!) / dcounts.get(k)!, `dcount for ${k}: ${est}`).toBeLessThanOrEqual(DCOUNT_ERROR);
        }
        const p95 = byK(await query(t, "['y'] | summarize percentile(v, 95) by k"), 'percentile_v');
        yP95 = p95;
        expect(p95.size).toBe(4);
        for (const [k, est] of byK(onDisk.get("['y'] | summarize percentile(v, 95) by k")!, 'percentile_v')) {
            expect(Math.abs(est - p95.get(k)!) / p95.get(k)!, `percentile for ${k}: ${est}`).toBeLessThanOrEqual(PERCENTILE_ERROR);
        }
    }, 120_000);

    it('answers the same with 2 query workers, each folding the dcount and percentile states of its share of the blocks (exact, or a sketch past its budget)', async () => {
        await t.restart({ memoryLimit: COLD_LIMIT, queryWorkers: 2, parallelMinRows: 0 });
        await t.svc.loaded;
        while ((t.svc.data.engine.queryStats()?.idle ?? 0) < 2) await new Promise(r => setTimeout(r, 20));
        // (Each worker's blocks get half of the share one worker had: x's percentiles no longer fit it exactly.)
        const x = await query(t, EXACT[0]);
        expect(x.json.status.isEstimate).toBe(false);
        expect(comparable(x.json)).toEqual(comparable(onDisk.get(EXACT[0])!.json));
        const y = await query(t, "['y'] | summarize dcount(id) by k");
        expect(y.json.status.isEstimate).toBe(true);
        expect(y.json.status.messages?.map(m => m.code)).toContain('apl_estimate');
        expect(y.json.status.messages?.find(m => m.code === 'apl_estimate')?.msg).toMatch(/the query's [\d,]+ KB for them/);
        for (const est of rows(y.json).map(x => x.dcount_id as number)) expect(Math.abs(est - 15_000) / 15_000, `dcount ${est}`).toBeLessThanOrEqual(DCOUNT_ERROR);
        // Percentiles run in parts too: their states cross threads as JSON (exact numbers or a sketch).
        // k1's 6,000 values fit a worker's budget: exact, the nearest-rank value of every k1 value.
        const k1 = await query(t, "['x'] | where k == 'k1' | summarize percentiles_array(v, 50, 95), count()");
        expect(k1.json.status.isEstimate).toBe(false);
        const values = smallEvents(0, 24_000, 24_000).filter(e => e.k === 'k1').map(e => e.v as number).sort((a, b) => a - b);
        expect(rows(k1.json)).toEqual([{ percentiles_v: [values[2_999], values[5_699]], count_: 6_000 }]);
        for (const [apl, exact] of [[EXACT[1], byK(onDisk.get(EXACT[1])!, 'percentile_v')], ["['y'] | summarize percentile(v, 95) by k", yP95]] as const) {
            const r = await query(t, apl);
            // Past a worker's budget (x's 24,000 values too, now that each of 2 workers has half the share).
            expect(r.json.status.isEstimate, apl).toBe(true);
            const got = byK(r, 'percentile_v');
            expect(got.size).toBe(4);
            for (const [k, est] of got) expect(Math.abs(est - exact.get(k)!) / exact.get(k)!, `${apl}: ${k}`).toBeLessThanOrEqual(PERCENTILE_ERROR);
        }
        // The dcounts and percentiles all ran in parts.
        expect(t.svc.data.engine.queryStats()?.together).toBe(5);
    }, 120_000);
});
