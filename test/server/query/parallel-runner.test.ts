/**
 * Parallel parts in one process (server/query/parallel-runner.ts): an engine with a parallel
 * runner (what `apl run` starts over a large dataset) splits a planned query over a query worker
 * and its own thread, and answers exactly as one job does, in both formats. The pool's `together`
 * counter shows that the parts really ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../language/index.js';
import { startParallelRunner, type InProcessParallel } from '../../../server/query/parallel-runner.js';
import { comparable, mixedEvents } from '../../support/parallel-fixtures.js';

const RANGE = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z', now: '2026-12-01T00:00:00Z' };

const QUERIES = [
    "['d'] | where status == '500' | count",
    "['d'] | summarize count() by status",
    "['d'] | where method == 'GET' | summarize avg(r), max(r) by bin(_time, 1h)",
    "['d'] | top 10 by r | project-away _sysTime",
    "['d'] | where ok | sort by n asc | take 25 | project-away _sysTime",
    "['d'] | summarize c = count(), s = sum(n) by method | top 2 by c",
    // Not planned: one job, as before.
    "['d'] | summarize dcount(label) by status",
    "['d'] | extend k = n / 10 | where k > 50 | project _time, k | take 30",
];

/** Row ids carry each engine's own batch ids: left out. */
function same(v: unknown): unknown {
    return JSON.parse(JSON.stringify(comparable(v)), (k, x: unknown) => (k === 'minCursor' || k === 'maxCursor' || k === '_rowId' ? undefined : x));
}

function engineWith(events: Record<string, unknown>[]): Engine {
    const e = createEngine({ sharedMemory: true, clock: () => Date.parse(RANGE.now) });
    e.ingest('d', events);
    return e;
}

describe('an engine with a parallel runner answers as one job', () => {
    const events = mixedEvents(6000);
    let one: Engine;
    let split: Engine;
    let parallel: InProcessParallel | undefined;
    beforeAll(async () => {
        one = engineWith(events);
        split = engineWith(events);
        parallel = await startParallelRunner(split, { workers: 1, minRows: 0 });
    }, 60_000);
    afterAll(() => parallel?.close());

    for (const apl of QUERIES) {
        it(apl, async () => {
            expect(parallel).toBeDefined();
            expect(same(await split.query(apl, RANGE))).toEqual(same(await one.query(apl, RANGE)));
            expect(same(await split.queryLegacyFormat(apl, RANGE))).toEqual(same(await one.queryLegacyFormat(apl, RANGE)));
        });
    }

    it('ran the planned queries in parts (two each: the worker and the engine\'s thread)', () => {
        // 6 planned queries, each in both formats.
        expect(parallel!.runs()).toBe(12);
    });

    it("['d'] | where nope == 1 | count: the query's own error, from the engine's thread", async () => {
        await expect(split.query("['d'] | where nope == 1 | count", RANGE)).rejects.toMatchObject({ kind: expect.any(String) });
        await expect(split.query("['d'] | where nope == 1 | count", RANGE)).rejects.toEqual(await one.query("['d'] | where nope == 1 | count", RANGE).catch((e: unknown) => e));
    });
});
