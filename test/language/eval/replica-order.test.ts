/**
 * A replica (a query worker's copy, eval/replica.ts) keeps its row orders across empty deltas
 * and rebuilds them when rows arrive: the newest-first scan is always that of its source.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, newSyncState } from '../../../language/index.js';

const at = (min: number) => new Date(Date.parse('2026-11-01T00:00:00Z') + min * 60_000).toISOString();

describe('replica row order', () => {
    it("['d'] | take 5 after empty deltas and after out-of-order appends", async () => {
        const source = createEngine({ sharedMemory: true });
        const replica = createEngine({ sharedMemory: true, sampleSchemas: false });
        const sync = newSyncState();
        const apl = "['d'] | project _time, v | take 5";
        const opts = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' };
        const same = async () => {
            replica.applyChanges(source.exportChanges(sync));
            expect((await replica.query(apl, opts)).tables).toEqual((await source.query(apl, opts)).tables);
        };
        source.ingest('d', [30, 10, 20].map(m => ({ _time: at(m), v: m })));
        await same();
        await same(); // an empty delta
        source.ingest('d', [40, 5, 35].map(m => ({ _time: at(m), v: m })));
        await same();
        source.ingest('d', [{ _time: at(35), v: 'tie' }]);
        await same();
        await same();
    });
});
