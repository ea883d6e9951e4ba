/**
 * The query pool starts one worker first and the others once it is ready (issue 31): starting them
 * all at once, on a machine of two cores, took the cores from the main thread while it answered the
 * first queries after start-up.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/index.js';
import { QueryPool } from '../../../server/query/pool.js';

describe('the query pool', () => {
    it('starts one worker, then the others once it is ready; print x = 1 answers on a worker', async () => {
        const pool = new QueryPool(createEngine({ sharedMemory: true }), {
            workers: 3,
            deferStart: true,
            maxResultRows: 1000,
            defaultLimit: 1000,
            log: () => undefined,
            fallback: () => Promise.reject(new Error('no fallback in this test')),
        });
        try {
            expect(pool.startedWorkers).toBe(0);
            pool.startWorkers();
            expect(pool.startedWorkers).toBe(1);
            await pool.started;
            expect(pool.startedWorkers).toBe(3);
            const json = await pool.run({ kind: 'apl', apl: 'print x = 1', request: { format: 'tabular', now: 0n, includeCursor: false, includeCursorField: false } });
            expect((JSON.parse(json) as { tables: { columns: unknown[][] }[] }).tables[0].columns[0]).toEqual([1]);
        } finally {
            await pool.close();
        }
    }, 60_000);
});
