/**
 * What `--memory-limit` gives each part of the service (cold-tier.ts memoryPlan), and that the
 * query workers start with the young generation it names.
 */
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/index.js';
import { memoryPlan } from '../../../server/http/cold-tier.js';
import { QueryPool } from '../../../server/query/pool.js';

const MiB = 2 ** 20;

describe('the memory plan of --memory-limit', () => {
    it('512m: half for datasets in memory, a quarter for blocks read from disk, 32 MB young generation a query worker', () => {
        expect(memoryPlan(512 * MiB)).toEqual({ inMemoryBytes: 256 * MiB, coldCacheBytes: 128 * MiB, workerYoungMb: 32 });
    });

    it('a query worker young generation: 16 MB at least (256m and less), 64 MB at most (1g and more)', () => {
        expect([32, 256, 1024, 2048, 24 * 1024].map((mb) => memoryPlan(mb * MiB).workerYoungMb)).toEqual([16, 16, 64, 64, 64]);
    });

    it('the query pool starts its workers with that young generation', async () => {
        const pool = new QueryPool(createEngine({ sharedMemory: true }), {
            workers: 2,
            workerYoungMb: memoryPlan(512 * MiB).workerYoungMb,
            maxResultRows: 1000,
            defaultLimit: 1000,
            log: () => undefined,
            fallback: () => Promise.reject(new Error('no fallback in this test')),
        });
        try {
            await pool.started;
            // The Worker objects themselves: what each thread was started with.
            const slots = (pool as unknown as { slots: { worker: Worker }[] }).slots;
            expect(slots.map((s) => s.worker.resourceLimits?.maxYoungGenerationSizeMb)).toEqual([32, 32]);
            expect(pool.youngMb).toBe(32);
        } finally {
            await pool.close();
        }
    }, 60_000);
});
