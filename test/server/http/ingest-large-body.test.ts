/**
 * Large NDJSON bodies over real HTTP: the body parser reads one with a Content-Length into padded
 * memory of its own, which goes to an ingest worker by transfer and comes back for the WAL
 * (server/ingest/padded-body.ts). The events stored must be those of the body, the same as a
 * main-thread parse stores, and the WAL record the body's exact bytes (a restart rebuilds the
 * same rows from it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, startService, type TestService } from './helpers.js';
import { PADDED_BODY_MIN } from '../../../server/ingest/padded-body.js';

const EVENTS = Array.from({ length: 2_000 }, (_, i) => ({
    _time: `2024-05-01T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i).padStart(9, '0')}Z`,
    id: `req-${i}-${(i * 2654435761) % 100_003}`,
    method: ['GET', 'POST', 'PUT'][i % 3],
    req_duration_ms: i / 3 + 0.123456789012345,
    status: String(200 + (i % 4) * 100),
    is_tls: i % 2 === 0,
    geo: { city: ['Berlin', 'Paris', 'Zürich'][i % 3], country: i % 7 === 0 ? null : 'EU' },
}));
const BODY = ndjson(EVENTS);

const QUERY = "['big'] | project-away _sysTime | sort by _time asc | take 5000";

async function rowsOf(t: TestService): Promise<{ fields: unknown; columns: unknown[][] }> {
    const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: QUERY, startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' });
    expect(r.status, r.text).toBe(200);
    return { fields: r.json.tables[0].fields, columns: r.json.tables[0].columns };
}

async function ingestBig(workers: number): Promise<TestService> {
    const t = await startService({ ingestWorkers: workers, maxResultRows: 10_000 });
    services.push(t);
    await createDataset(t, 'big');
    // A first small body starts the worker; the large ones then go over whole.
    await createDataset(t, 'warm');
    expect((await t.raw('POST', '/v1/datasets/warm/ingest', '{"a":1}', { 'content-type': 'application/x-ndjson' })).status).toBe(200);
    for (const half of [EVENTS.slice(0, 1_000), EVENTS.slice(1_000)]) {
        const body = Buffer.from(ndjson(half));
        expect(body.length).toBeGreaterThan(PADDED_BODY_MIN);
        const r = await t.raw('POST', '/v1/datasets/big/ingest', body, { 'content-type': 'application/x-ndjson', 'content-length': String(body.length) });
        expect(r.status, r.text).toBe(200);
        expect(r.json).toMatchObject({ ingested: 1_000, failed: 0, processedBytes: body.length });
    }
    return t;
}

const services: TestService[] = [];
afterAll(async () => {
    for (const s of services) await s.stop();
});

describe('large NDJSON bodies over HTTP', () => {
    it('2 bodies of 1,000 events: the rows a main-thread parse stores, and the same after a restart from the WAL', async () => {
        expect(Buffer.byteLength(BODY)).toBeGreaterThan(2 * PADDED_BODY_MIN);
        const onWorker = await ingestBig(1);
        const onMain = await ingestBig(0);
        const expected = await rowsOf(onMain);
        expect(expected.columns[0]).toHaveLength(2_000);
        expect(await rowsOf(onWorker)).toEqual(expected);
        await onWorker.restart();
        expect(await rowsOf(onWorker)).toEqual(expected);
    });
});
