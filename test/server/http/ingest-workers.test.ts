import { afterAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from './helpers.js';

/**
 * Ingest bodies are parsed on worker threads (columns come back as typed arrays and dictionaries);
 * with `ingestWorkers: 0` they are parsed on the main thread. Both paths must store the same events,
 * report the same failures and answer queries identically.
 */
const BODY = [
    '{"_time":"2024-05-01T10:00:00.123456789Z","status":"200","ms":12.5,"geo":{"city":"Berlin","country":"DE"},"ok":true,"tags":["a","b"]}',
    '   {"_time":"2024-05-01T10:00:01Z","status":"500","ms":7,"geo":{"city":"Paris"},"ok":false,"n":1}',
    'not json at all',
    '{"_time":"2024-05-01T10:00:02Z","status":404,"ms":null,"extra":{"deep":{"er":"x"}},"_sysTime":"keep-me"}',
    '{"_time":"2024-05-01T10:00:03Z","status":"200","ms":1e3,"geo":{"city":"Berlin"},"text":"héllo wörld"}',
].join('\n');

async function ingestAndQuery(workers: number): Promise<{ status: unknown; rows: unknown; fields: unknown }> {
    const t: TestService = await startService({ ingestWorkers: workers });
    services.push(t);
    expect((await t.call('POST', '/v2/datasets', { name: 'logs' })).status).toBe(200);
    const ingest = await t.raw('POST', '/v1/datasets/logs/ingest', BODY, { 'content-type': 'application/x-ndjson' });
    expect(ingest.status).toBe(200);
    const query = await t.call('POST', '/v1/datasets/_apl?format=tabular', {
        apl: "['logs'] | project-away _sysTime | sort by _time asc",
        startTime: '2024-05-01T00:00:00Z',
        endTime: '2024-05-02T00:00:00Z',
    });
    expect(query.status).toBe(200);
    const table = query.json.tables[0];
    const fields = await t.call('GET', '/v1/datasets/logs/fields');
    // The failure timestamp is the receive time, which differs between the two services.
    const failures = (ingest.json.failures as { error: string }[]).map(f => f.error);
    return { status: { ...ingest.json, failures, walLength: undefined }, rows: { fields: table.fields, columns: table.columns }, fields: fields.json };
}

const services: TestService[] = [];
afterAll(async () => {
    for (const s of services) await s.stop();
});

describe('ingest on worker threads and on the main thread', () => {
    it('store the same events, fail the same line, and answer the same query', async () => {
        const [onWorkers, onMain] = [await ingestAndQuery(2), await ingestAndQuery(0)];
        expect(onWorkers.status).toEqual(onMain.status);
        expect(onWorkers.rows).toEqual(onMain.rows);
        expect(onWorkers.fields).toEqual(onMain.fields);
        expect(onMain.status).toMatchObject({ ingested: 4, failed: 1 });
        const columns = (onMain.rows as { fields: { name: string }[]; columns: unknown[][] });
        const city = columns.columns[columns.fields.findIndex(f => f.name === 'geo.city')];
        expect(city).toEqual(['Berlin', 'Paris', null, 'Berlin']);
    });
});
