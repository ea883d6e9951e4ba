/**
 * The bad input table: every malformed request gets the right 4xx with a clear JSON message, and
 * afterwards the server is still up and still has all of its data.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, TOKEN, type TestService } from './helpers.js';

const MAX_BODY = 256 * 1024;
let t: TestService;

beforeAll(async () => {
    t = await startService({ maxBodyBytes: MAX_BODY });
    await createDataset(t, 'keep');
    const r = await t.raw('POST', '/v1/datasets/keep/ingest', ndjson(Array.from({ length: 50 }, (_, i) => ({ i }))), { 'content-type': 'application/x-ndjson' });
    expect(r.json.ingested).toBe(50);
});
afterAll(async () => {
    await t?.stop();
});

interface Case {
    name: string;
    method?: string;
    path: string;
    body?: string | Uint8Array;
    headers?: Record<string, string>;
    /** Replace the Authorization header (null: none). */
    auth?: string | null;
    status: number;
    message: RegExp;
    /** For ingest cases that fail per event: expected 200 with failures. */
}

const ndjsonCt = { 'content-type': 'application/x-ndjson' };
const jsonCt = { 'content-type': 'application/json' };
const goodNd = ndjson([{ ok: 1 }]);
const bigBody = ndjson(Array.from({ length: 6000 }, (_, i) => ({ i, pad: 'x'.repeat(40) })));
const gzipBomb = gzipSync(Buffer.alloc(MAX_BODY * 4, 0x20)); // small on the wire, 1 MiB of spaces inside
const apl = (q: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ apl: q, ...extra });

const CASES: Case[] = [
    { name: 'malformed JSON array', path: '/v1/datasets/keep/ingest', body: '[{"a":1},', headers: jsonCt, status: 400, message: /json/i },
    { name: 'truncated gzip', path: '/v1/datasets/keep/ingest', body: gzipSync(goodNd).subarray(0, 12), headers: { ...ndjsonCt, 'content-encoding': 'gzip' }, status: 400, message: /gzip/i },
    { name: 'garbage zstd', path: '/v1/datasets/keep/ingest', body: Buffer.from('not zstd at all'), headers: { ...ndjsonCt, 'content-encoding': 'zstd' }, status: 400, message: /zstd/i },
    { name: 'unknown encoding', path: '/v1/datasets/keep/ingest', body: goodNd, headers: { ...ndjsonCt, 'content-encoding': 'br' }, status: 415, message: /Content-Encoding/ },
    { name: 'unknown content type', path: '/v1/datasets/keep/ingest', body: goodNd, headers: { 'content-type': 'application/xml' }, status: 415, message: /Content-Type/ },
    { name: 'bad labels header', path: '/v1/datasets/keep/ingest', body: goodNd, headers: { ...ndjsonCt, 'x-axiom-event-labels': '{nope' }, status: 400, message: /labels/i },
    { name: 'bad csv delimiter', path: '/v1/datasets/keep/ingest?csv-delimiter=ab', body: 'a,b\n1,2', headers: { 'content-type': 'text/csv' }, status: 400, message: /delimiter/ },
    { name: 'no token', path: '/v2/datasets', method: 'GET', auth: null, status: 401, message: /token/i },
    { name: 'wrong token', path: '/v2/datasets', method: 'GET', auth: 'Bearer xapt-123', status: 401, message: /invalid API token/ },
    { name: 'not a bearer token', path: '/v2/datasets', method: 'GET', auth: 'Basic abc', status: 401, message: /Bearer/ },
    { name: 'wrong token on ingest', path: '/v1/datasets/keep/ingest', body: goodNd, headers: ndjsonCt, auth: 'Bearer nope', status: 401, message: /token/ },
    { name: 'bad dataset name', path: '/v2/datasets', body: JSON.stringify({ name: 'bad name!' }), headers: jsonCt, status: 400, message: /invalid dataset name/ },
    { name: 'unknown dataset (get)', method: 'GET', path: '/v2/datasets/missing', status: 404, message: /not found/ },
    { name: 'unknown dataset (ingest)', path: '/v1/datasets/missing/ingest', body: goodNd, headers: ndjsonCt, status: 404, message: /not found/ },
    { name: 'unknown dataset (delete)', method: 'DELETE', path: '/v2/datasets/missing', status: 404, message: /not found/ },
    { name: 'unknown dataset (apl)', path: '/v1/datasets/_apl?format=tabular', body: apl("['missing'] | count"), headers: jsonCt, status: 404, message: /not found/ },
    { name: 'unknown route', method: 'GET', path: '/v3/whatever', status: 404, message: /not found/ },
    { name: 'huge body (identity)', path: '/v1/datasets/keep/ingest', body: bigBody, headers: ndjsonCt, status: 413, message: /too large/ },
    { name: 'huge body after gunzip', path: '/v1/datasets/keep/ingest', body: gzipBomb, headers: { ...ndjsonCt, 'content-encoding': 'gzip' }, status: 413, message: /too large/ },
    { name: 'APL syntax error', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']\n| where i ==== 3"), headers: jsonCt, status: 400, message: /line 2, column \d+/ },
    { name: 'APL unknown field', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep'] | where nosuch > 1"), headers: jsonCt, status: 400, message: /nosuch.*line 1, column 18/ },
    { name: 'APL missing', path: '/v1/datasets/_apl?format=tabular', body: JSON.stringify({}), headers: jsonCt, status: 400, message: /"apl" is required/ },
    { name: 'APL not a string', path: '/v1/datasets/_apl?format=tabular', body: apl(42), headers: jsonCt, status: 400, message: /"apl" is required/ },
    { name: 'APL body not JSON', path: '/v1/datasets/_apl?format=tabular', body: 'apl=x', headers: jsonCt, status: 400, message: /invalid JSON/ },
    { name: 'bad format', path: '/v1/datasets/_apl?format=csv', body: apl("['keep']"), headers: jsonCt, status: 400, message: /format/ },
    { name: 'bad cursor (body)', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']", { cursor: 'abc' }), headers: jsonCt, status: 400, message: /cursor/ },
    { name: 'bad cursor (url)', path: '/v1/datasets/_apl?format=tabular&cursor=zz-top', body: apl("['keep']"), headers: jsonCt, status: 400, message: /cursor/ },
    { name: 'bad includeCursorField', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']", { includeCursorField: 'yes' }), headers: jsonCt, status: 400, message: /includeCursorField/ },
    { name: 'bad startTime', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']", { startTime: 'yesterday' }), headers: jsonCt, status: 400, message: /startTime/ },
    { name: 'bad relative endTime', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']", { endTime: 'now-3parsecs' }), headers: jsonCt, status: 400, message: /endTime/ },
    { name: 'start after end', path: '/v1/datasets/_apl?format=tabular', body: apl("['keep']", { startTime: '2024-02-01T00:00:00Z', endTime: '2024-01-01T00:00:00Z' }), headers: jsonCt, status: 400, message: /after/ },
    { name: 'bad legacy query', path: '/v1/datasets/keep/query', body: JSON.stringify({ startTime: 'x', endTime: 'y' }), headers: jsonCt, status: 400, message: /startTime/ },
    { name: 'bad legacy filter op', path: '/v1/datasets/keep/query', body: JSON.stringify({ startTime: '2024-01-01T00:00:00Z', endTime: '2025-01-01T00:00:00Z', filter: { op: 'almost', field: 'i', value: 1 } }), headers: jsonCt, status: 400, message: /op/ },
    { name: 'bad trim duration', path: '/v2/datasets/keep/trim', body: JSON.stringify({ maxDuration: 'forever' }), headers: jsonCt, status: 400, message: /maxDuration/ },
];

describe('bad input table', () => {
    for (const c of CASES) {
        it(`${c.name} → ${c.status}`, async () => {
            const headers: Record<string, string> = { ...c.headers };
            if (c.auth !== null) headers.authorization = c.auth ?? `Bearer ${TOKEN}`;
            const res = await fetch(t.url + c.path, { method: c.method ?? 'POST', headers, body: c.body as RequestInit['body'] });
            const text = await res.text();
            expect(res.status, text).toBe(c.status);
            expect(res.headers.get('content-type')).toMatch(/^application\/json/);
            const body = JSON.parse(text) as { message: string };
            expect(typeof body.message).toBe('string');
            expect(body.message).toMatch(c.message);
        });
    }

    it('keeps per-event failures inside a 200: ragged CSV, broken NDJSON lines', async () => {
        let r = await t.raw('POST', '/v1/datasets/keep/ingest', 'a,b\n1,2\n3\n4,5,6\n7,8', { 'content-type': 'text/csv' });
        expect(r.status).toBe(200);
        expect(r.json.ingested).toBe(2);
        expect(r.json.failed).toBe(2);
        expect(r.json.failures.map((f: { error: string }) => f.error).join(' ')).toMatch(/row/i);
        r = await t.raw('POST', '/v1/datasets/keep/ingest', '{"x":1}\n{"x":\n{"x":3}', { 'content-type': 'application/x-ndjson' });
        expect(r.status).toBe(200);
        expect(r.json.failed).toBeGreaterThanOrEqual(1);
        expect(r.json.ingested).toBeGreaterThanOrEqual(1);
    });

    it('is still up and still has its data afterwards', async () => {
        const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['keep'] | where isnotnull(i) | summarize n = count(), s = sum(i)" });
        expect(r.status).toBe(200);
        expect(rows(r.json)[0]).toEqual({ n: 50, s: (49 * 50) / 2 });
        // and the rejected requests stored nothing
        const all = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['keep'] | count" });
        expect(Object.values(rows(all.json)[0])[0]).toBe(50 + 2 + 2); // + the CSV and NDJSON survivors
        // survives a restart too
        await t.restart();
        const again = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['keep'] | count" });
        expect(Object.values(rows(again.json)[0])[0]).toBe(54);
    });
});
