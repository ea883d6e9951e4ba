/**
 * Recovery feeds the engine from blocks (column by column) and the WAL tail (batch by batch): the
 * restarted service must answer exactly like the one that ingested the events (same row ids, same
 * field types, same values), and cursors from before the restart keep working.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, startService, type TestService } from './helpers.js';

const ndjson = (evs: unknown[]) => evs.map((e) => JSON.stringify(e)).join('\n');
const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

let t: TestService;
beforeAll(async () => {
    t = await startService({ store: { compactInWorker: false, compactEvents: 150 } });
});
afterAll(async () => {
    await t.stop();
});

/** Varied events: mixed types per field, nulls, nested objects, arrays, out-of-order and tied times. */
function batch(b: number): Record<string, unknown>[] {
    return Array.from({ length: 40 }, (_, i) => {
        const k = b * 40 + i;
        const ev: Record<string, unknown> = { _time: new Date(Date.parse('2024-01-01T00:00:00Z') + ((k * 7919) % 600) * 1000 + (k % 3)).toISOString(), k };
        if (k % 2) ev.s = `v${k % 5}`;
        if (k % 3) ev.n = k % 4 ? k : k + 0.5;
        if (k % 5 === 0) ev.ok = k % 10 === 0;
        if (b >= 2) ev.late = 'x';
        if (b === 3) ev.n = 'now a string';
        if (k % 7 === 0) ev.geo = { city: `c${k % 3}`, lat: k / 10 };
        if (k % 11 === 0) ev.arr = [k, 'a'];
        if (k % 13 === 0) ev.s = null;
        return ev;
    });
}

describe('recovery', () => {
    it('blocks + WAL tail come back with the same rows, ids, fields and cursors', async () => {
        await createDataset(t, 'rec');
        for (let b = 0; b < 6; b++) {
            const r = await t.raw('POST', '/v1/datasets/rec/ingest', ndjson(batch(b)), { 'content-type': 'application/x-ndjson' });
            expect(r.status).toBe(200);
        }
        const q = { apl: "['rec']", ...RANGE };
        const before = await t.call('POST', '/v1/datasets/_apl?format=legacy', q);
        expect(before.json.matches).toHaveLength(240);
        const fields = await t.call('GET', '/v2/datasets/rec/fields');
        const page = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['rec'] | project k, s, n", ...RANGE, limit: 50 });
        const cursor = page.json.status.minCursor as string;
        const next = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['rec'] | project k, s, n", ...RANGE, limit: 50, cursor });

        await t.restart();
        expect(readdirSync(path.join(t.dir, 'datasets', 'rec', 'blocks')).length).toBeGreaterThan(0);
        const after = await t.call('POST', '/v1/datasets/_apl?format=legacy', q);
        expect(after.json.matches).toEqual(before.json.matches);
        expect((await t.call('GET', '/v2/datasets/rec/fields')).json).toEqual(fields.json);
        const nextAfter = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['rec'] | project k, s, n", ...RANGE, limit: 50, cursor });
        expect(nextAfter.json.tables).toEqual(next.json.tables);

        // Trim everything (the rebuild goes through the same path): nothing comes back.
        expect((await t.call('POST', '/v2/datasets/rec/trim', { maxDuration: '1s' })).status).toBeLessThan(300);
        const count = async () => (await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['rec'] | count", ...RANGE })).json.tables[0].columns[0];
        expect(await count()).toEqual([0]);
        await t.raw('POST', '/v1/datasets/rec/ingest', ndjson(batch(6)), { 'content-type': 'application/x-ndjson' });
        expect(await count()).toEqual([40]);
        await t.restart();
        expect(await count()).toEqual([40]);
    });
});
