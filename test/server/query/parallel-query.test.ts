/**
 * Parallel queries in the service (server/query/parallel-run.ts): with 2 and 4 query workers a
 * planned query runs as parts on every idle worker plus a merge, and answers as with 1 worker
 * (one job), in both formats. The pool's `together` counter shows that the parts really ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../http/helpers.js';
import { comparable, mixedEvents } from '../../support/parallel-fixtures.js';

const RANGE = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' };

/** `_sysTime` (the ingest time) differs between the services: queries of rows leave it out. */
const QUERIES = [
    "['d'] | count",
    "['d'] | where status == '500' | count",
    "['d'] | summarize c = count(), s = sum(n), a = avg(r), mn = min(r), mx = max(n), ci = countif(ok) by status, method",
    "['d'] | where method == 'GET' | summarize avg(r), max(r) by bin(_time, 1h)",
    "['d'] | summarize count(), min(_time), max(label)",
    "['d'] | extend k = n % 7 | summarize total = sum(n) by k | order by k asc | take 3",
    "['d'] | top 10 by r | project-away _sysTime",
    "['d'] | where ok | sort by n asc | take 25 | project-away _sysTime",
];

/** Waits until every query worker has started (idle workers are what a parallel run needs). */
async function allIdle(s: TestService, workers: number): Promise<void> {
    while ((s.svc.data.engine.queryStats()?.idle ?? 0) < workers) await new Promise(r => setTimeout(r, 20));
}

async function answers(s: TestService): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const apl of QUERIES) {
        for (const format of ['tabular', 'legacy']) {
            const r = await s.call('POST', `/v1/datasets/_apl?format=${format}`, { apl, ...RANGE });
            out.push({ apl, format, status: r.status, body: comparable(r.json) });
        }
    }
    return out;
}

describe('a query answers the same at 1, 2 and 4 query workers', () => {
    const services = new Map<number, TestService>();
    beforeAll(async () => {
        const body = mixedEvents(6000).map(e => JSON.stringify(e)).join('\n');
        for (const workers of [1, 2, 4]) {
            const s = await startService({ queryWorkers: workers, parallelMinRows: 0 });
            services.set(workers, s);
            expect((await s.call('POST', '/v2/datasets', { name: 'd' })).status).toBe(200);
            const r = await s.raw('POST', '/v1/datasets/d/ingest', body, { 'content-type': 'application/x-ndjson' });
            expect(r.status, r.text).toBe(200);
            await allIdle(s, workers);
        }
    });
    afterAll(async () => {
        await Promise.all([...services.values()].map(s => s.stop()));
    });

    it('answers, and runs in parts only with 2 workers or more', async () => {
        const one = await answers(services.get(1)!);
        expect(services.get(1)!.svc.data.engine.queryStats()?.together).toBe(0);
        for (const workers of [2, 4]) {
            const s = services.get(workers)!;
            expect(await answers(s), `${workers} workers`).toEqual(one);
            expect(s.svc.data.engine.queryStats()?.together, `${workers} workers`).toBe(QUERIES.length * 2);
        }
    });

    it("['d'] | summarize sum(ok): a part that does not fit the plan sends the query back to one job", async () => {
        const apl = "['d'] | summarize sum(ok)";
        const one = await services.get(1)!.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...RANGE });
        const two = await services.get(2)!.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...RANGE });
        expect(two.status).toBe(one.status);
        expect(comparable(two.json)).toEqual(comparable(one.json));
    });

    it("['d'] | summarize count() by nope: an error in a part is the query's error", async () => {
        const apl = "['d'] | summarize count() by nope";
        const one = await services.get(1)!.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...RANGE });
        const four = await services.get(4)!.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...RANGE });
        expect(one.status).toBe(400);
        expect(four.status).toBe(400);
        expect(four.json).toEqual(one.json);
    });
});
