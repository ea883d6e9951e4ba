/**
 * The set-up the tests of datasets kept on disk share (cold-store.test.ts, cold-sketch.test.ts):
 * a service under a 2 MB memory limit with one query worker, datasets ingested in bodies of 500
 * events and compacted by the test every 1,500 (so block sizes do not depend on timing), and
 * answers compared without what differs between a run from disk and one in memory.
 */
import { expect } from 'vitest';
import { createDataset, ndjson, startService, type Reply, type TestService } from './helpers.js';

/** 2 MB: half for datasets in memory, a quarter (512 KB) for the blocks the query worker reads. */
export const COLD_LIMIT = 2 * 1024 * 1024;

const BODY_EVENTS = 500;
const BLOCK_EVENTS = 1500;

/** A service under COLD_LIMIT that compacts only when the test says so. */
export function startColdService(log?: (line: string) => void): Promise<TestService> {
    return startService({ memoryLimit: COLD_LIMIT, queryWorkers: 1, store: { compactInWorker: false, compactEvents: 1e9 }, ...(log ? { log } : {}) });
}

/** Creates `name` and ingests `total` events of `make(from, n)`: a block per 1,500 events. */
export async function ingestInBlocks(t: TestService, name: string, total: number, make: (from: number, n: number) => Record<string, unknown>[]): Promise<void> {
    await createDataset(t, name);
    for (let from = 0; from < total; from += BODY_EVENTS) {
        const r = await t.raw('POST', `/v1/datasets/${name}/ingest`, ndjson(make(from, BODY_EVENTS)), { 'content-type': 'application/x-ndjson' });
        expect(r.status).toBe(200);
        if ((from + BODY_EVENTS) % BLOCK_EVENTS === 0) await t.svc.data.store.compact(name);
    }
    await t.svc.data.store.compact(name);
}

/** A tabular APL query over `range` (startTime, endTime). */
export function queryTabular(t: TestService, apl: string, range: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Reply> {
    return t.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...range, ...extra });
}

/** The answer without what differs between runs: elapsed times and the block statistics (blocks on disk are not memory's blocks). */
export function comparable(json: unknown): unknown {
    // `rowsMatched` of a `take` counts the rows of the blocks read (streamed) or all rows (in memory).
    return JSON.parse(JSON.stringify(json), (k, v: unknown) => (['elapsedTime', 'blocksExamined', 'blocksSkipped', 'rowsExamined', 'minBlockTime', 'maxBlockTime', 'rowsMatched'].includes(k) ? undefined : v));
}
