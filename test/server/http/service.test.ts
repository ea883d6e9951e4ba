/**
 * The Dataset Query and Ingest Service, in-process on a real port with a temp data dir: every
 * endpoint, every ingest format, both query formats, the legacy endpoint, restart recovery.
 */
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, TOKEN, type TestService } from './helpers.js';

function zstdAvailable(): boolean {
    try {
        execFileSync('zstd', ['--version'], { stdio: 'ignore' });
        return true;
    } catch {
        return false;
    }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*[1-9])?Z$/;

let t: TestService;

beforeAll(async () => {
    t = await startService();
});
afterAll(async () => {
    await t?.stop();
});

describe('datasets', () => {
    it('creates, lists, gets, updates and deletes on /v2 and /v1', async () => {
        for (const v of ['v1', 'v2']) {
            const name = `crud-${v}`;
            const c = await t.call('POST', `/${v}/datasets`, { name, description: 'd' });
            expect(c.status).toBe(200);
            expect(c.contentType).toMatch(/^application\/json/);
            expect(c.json).toMatchObject({ id: name, name, kind: 'axiom:events:v1', description: 'd', canWrite: true, retentionDays: 0, useRetentionPeriod: false });
            expect(c.json.created).toMatch(RFC3339);
            expect(Date.now() - Date.parse(c.json.created)).toBeLessThan(60_000);
            expect(Object.keys(c.json).sort()).toEqual(
                ['id', 'name', 'kind', 'description', 'who', 'created', 'updatedAt', 'canWrite', 'useRetentionPeriod', 'retentionDays', 'mapFields', 'edgeDeployment'].sort(),
            );

            const dup = await t.call('POST', `/${v}/datasets`, { name });
            expect(dup.status).toBe(409);
            expect(dup.json.message).toMatch(/already exists/);

            const list = await t.call('GET', `/${v}/datasets`);
            expect(list.status).toBe(200);
            expect(list.json.map((d: { name: string }) => d.name)).toContain(name);

            const g = await t.call('GET', `/${v}/datasets/${name}`);
            expect(g.json).toEqual(c.json);

            const u = await t.call('PUT', `/${v}/datasets/${name}`, { description: 'new', retentionDays: 0, useRetentionPeriod: true });
            expect(u.status).toBe(200);
            expect(u.json.description).toBe('new');
            expect(u.json.useRetentionPeriod).toBe(false); // go: false when retentionDays is 0

            // js sends Content-Type: application/json on bodiless DELETE
            const d = await t.raw('DELETE', `/${v}/datasets/${name}`, undefined, { 'content-type': 'application/json' });
            expect(d.status).toBe(204);
            expect(d.text).toBe('');
            const gone = await t.call('GET', `/${v}/datasets/${name}`);
            expect(gone.status).toBe(404);
            expect(gone.json.message).toMatch(/not found/i);
        }
    });

    it('rejects bad names and bodies with 400', async () => {
        for (const name of ['', 'a b', 'x'.repeat(129), '../etc', 'a/b', 42]) {
            const r = await t.call('POST', '/v2/datasets', { name });
            expect(r.status, String(name)).toBe(400);
            expect(r.json.message).toBeTruthy();
        }
        expect((await t.call('POST', '/v2/datasets', { name: 'ok-name', retentionDays: 'x' })).status).toBe(400);
        expect((await t.raw('POST', '/v2/datasets', '{"name":', { 'content-type': 'application/json' })).status).toBe(400);
    });

    it('serves fields per dataset and for all datasets; trims; map fields', async () => {
        await createDataset(t, 'fields-ds');
        const ing = await t.raw('POST', '/v1/datasets/fields-ds/ingest', ndjson([{ a: 1, geo: { city: 'x' } }, { a: 2.5, s: 'y', b: true }]), { 'content-type': 'application/x-ndjson' });
        expect(ing.status).toBe(200);
        const f = await t.call('GET', '/v2/datasets/fields-ds/fields');
        expect(f.status).toBe(200);
        const byName = Object.fromEntries(f.json.map((x: { name: string; type: string }) => [x.name, x.type]));
        expect(byName).toMatchObject({ _time: 'datetime', 'geo.city': 'string', s: 'string', b: 'boolean' });
        expect(byName.a).toMatch(/integer|float/);
        const all = await t.call('GET', '/v1/datasets/_fields');
        expect(all.status).toBe(200);
        expect(all.json['fields-ds'].map((x: { name: string }) => x.name)).toContain('geo.city');

        // map fields
        expect((await t.call('GET', '/v2/datasets/fields-ds/mapfields')).json).toEqual([]);
        expect((await t.call('POST', '/v2/datasets/fields-ds/mapfields', { name: 'attrs' })).json).toEqual({ name: 'attrs' });
        expect((await t.call('POST', '/v2/datasets/fields-ds/mapfields', { name: 'attrs' })).status).toBe(409);
        expect((await t.call('POST', '/v2/datasets/fields-ds/mapfields', { name: '__invalid__' })).status).toBe(400);
        await t.raw('POST', '/v1/datasets/fields-ds/ingest', JSON.stringify([{ attrs: { k: 'v', n: 1 } }]), { 'content-type': 'application/json' });
        const q = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['fields-ds'] | where isnotnull(attrs) | project attrs" });
        expect(q.status).toBe(200);
        expect(rows(q.json)[0].attrs).toEqual({ k: 'v', n: 1 });
        expect((await t.call('PUT', '/v2/datasets/fields-ds/mapfields', ['attrs', 'other'])).json).toEqual(['attrs', 'other']);
        expect((await t.raw('DELETE', '/v2/datasets/fields-ds/mapfields/other')).status).toBe(204);
        expect((await t.raw('DELETE', '/v2/datasets/fields-ds/mapfields/other')).status).toBe(404);

        // trim: everything older than 1h goes (old events), recent stay
        await t.raw('POST', '/v1/datasets/fields-ds/ingest', ndjson([{ _time: '2001-01-01T00:00:00Z', old: true }]), { 'content-type': 'application/x-ndjson' });
        const before = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['fields-ds'] | count" });
        const tr = await t.call('POST', '/v2/datasets/fields-ds/trim', { maxDuration: '1h' });
        expect(tr.status).toBe(204);
        const after = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['fields-ds'] | count" });
        expect(after.json.tables[0].columns[0][0]).toBe(before.json.tables[0].columns[0][0] - 1);
        expect((await t.call('POST', '/v2/datasets/fields-ds/trim', { maxDuration: 'soon' })).status).toBe(400);
    });

    it('serves the current user on /v2 and /v1, accepting X-Axiom-Org-Id', async () => {
        const u = await t.call('GET', '/v2/user', undefined, { 'x-axiom-org-id': 'my-org' });
        expect(u.status).toBe(200);
        expect(Object.keys(u.json).sort()).toEqual(['email', 'id', 'name', 'role']);
        expect(u.json.role).toEqual({ id: 'owner', name: 'Owner' });
        const u1 = await t.call('GET', '/v1/user');
        expect(u1.json.emails).toEqual([u.json.email]);
    });
});

describe('ingest', () => {
    const ds = 'ingest-ds';
    const q = async (apl: string) => {
        const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl });
        expect(r.status, r.text).toBe(200);
        return rows(r.json);
    };
    beforeAll(async () => {
        await createDataset(t, ds);
    });

    it('takes a JSON array, NDJSON with leading spaces (sniffed under application/json) and x-ndjson', async () => {
        const arr = JSON.stringify([{ k: 'arr', n: 1 }, { k: 'arr', n: 2 }]);
        let r = await t.raw('POST', `/v1/datasets/${ds}/ingest`, arr, { 'content-type': 'application/json' });
        expect(r.json).toEqual({ ingested: 2, failed: 0, failures: [], processedBytes: Buffer.byteLength(arr), blocksCreated: 0, walLength: expect.any(Number) });
        const nd = '  {"k":"nd","n":1}\n  {"k":"nd","n":2}\n\n   {"k":"nd","n":3}';
        r = await t.raw('POST', `/v1/datasets/${ds}/ingest`, nd, { 'content-type': 'application/json' });
        expect(r.json).toMatchObject({ ingested: 3, failed: 0, failures: [], processedBytes: Buffer.byteLength(nd) });
        r = await t.raw('POST', `/v1/ingest/${ds}`, ndjson([{ k: 'x', n: 1 }]), { 'content-type': 'application/x-ndjson', 'content-encoding': '' });
        expect(r.json).toMatchObject({ ingested: 1, failures: [] });
        expect((await q(`['${ds}'] | summarize c = count() by k | order by k asc`)).map((x) => [x.k, x.c])).toEqual([['arr', 2], ['nd', 3], ['x', 1]]);
    });

    it('takes CSV with a header row, with X-Axiom-CSV-Fields, and with csv-delimiter', async () => {
        const ds2 = 'csv-ds';
        await createDataset(t, ds2);
        let r = await t.raw('POST', `/v1/datasets/${ds2}/ingest`, 'a,b\n1,x\n2,y\n', { 'content-type': 'text/csv', 'x-axiom-csv-fields': '' });
        expect(r.json).toMatchObject({ ingested: 2, failed: 0, failures: [], processedBytes: 12 });
        r = await t.raw('POST', `/v1/datasets/${ds2}/ingest`, '3,z\n4,w', { 'content-type': 'text/csv', 'x-axiom-csv-fields': 'a,b' });
        expect(r.json).toMatchObject({ ingested: 2, failed: 0 });
        r = await t.raw('POST', `/v1/datasets/${ds2}/ingest?csv-delimiter=%3B`, 'a;b\n5;v', { 'content-type': 'text/csv' });
        expect(r.json).toMatchObject({ ingested: 1, failed: 0 });
        // js integration: "foo\nbar\nbaz" is 2 events
        r = await t.raw('POST', `/v1/datasets/${ds2}/ingest`, 'foo\nbar\nbaz', { 'content-type': 'text/csv' });
        expect(r.json).toMatchObject({ ingested: 2 });
        const got = await q(`['${ds2}'] | where isnotempty(b) | order by b asc | project a, b`);
        expect(got.map((x) => `${x.a}${x.b}`)).toEqual(['5v', '4w', '1x', '2y', '3z']);
    });

    it('decodes gzip and zstd, and applies labels (processedBytes = body + labels)', async () => {
        const ds3 = 'enc-ds';
        await createDataset(t, ds3);
        const body = ndjson([{ enc: 'gzip', i: 1 }, { enc: 'gzip', i: 2 }]);
        let r = await t.raw('POST', `/v1/datasets/${ds3}/ingest`, gzipSync(body), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
        expect(r.json).toMatchObject({ ingested: 2, failed: 0, processedBytes: Buffer.byteLength(body) });
        if (zstdAvailable()) {
            const zbody = ndjson([{ enc: 'zstd', i: 3 }]);
            const z = execFileSync('zstd', ['-q', '-c'], { input: Buffer.from(zbody) });
            r = await t.raw('POST', `/v1/datasets/${ds3}/ingest`, z, { 'content-type': 'application/x-ndjson', 'content-encoding': 'zstd' });
            expect(r.json).toMatchObject({ ingested: 1, failed: 0, processedBytes: Buffer.byteLength(zbody) });
        }
        const labels = '{"region":"eu-west-1"}';
        const lb = JSON.stringify([{ enc: 'label' }]);
        r = await t.raw('POST', `/v1/datasets/${ds3}/ingest`, lb, { 'content-type': 'application/json', 'x-axiom-event-labels': labels });
        expect(r.json).toMatchObject({ ingested: 1, processedBytes: Buffer.byteLength(lb) + 22 });
        const got = await q(`['${ds3}'] | order by enc asc | project enc, region`);
        expect(got.map((x) => x.enc)).toEqual(zstdAvailable() ? ['gzip', 'gzip', 'label', 'zstd'] : ['gzip', 'gzip', 'label']);
        expect(got.find((x) => x.enc === 'label')?.region).toBe('eu-west-1');
    });

    it('uses timestamp-field and timestamp-format; a bad event fails alone', async () => {
        const ds4 = 'time-ds';
        await createDataset(t, ds4);
        let r = await t.raw('POST', `/v1/datasets/${ds4}/ingest?timestamp-field=ts&timestamp-format=2006-01-02`, ndjson([{ ts: '2024-03-04', v: 1 }]), {
            'content-type': 'application/x-ndjson',
        });
        expect(r.json).toMatchObject({ ingested: 1, failed: 0 });
        r = await t.raw('POST', `/v1/datasets/${ds4}/ingest`, '{"v":2,"_time":"2024-03-05T00:00:00Z"}\n{"v":3,"_time":"not a time at all"}\n{"v":4,"_time":1709683200}', {
            'content-type': 'application/x-ndjson',
        });
        expect(r.json.ingested).toBe(2);
        expect(r.json.failed).toBe(1);
        expect(r.json.failures).toHaveLength(1);
        expect(r.json.failures[0].timestamp).toMatch(RFC3339);
        expect(r.json.failures[0].error).toBeTruthy();
        const got = await q(`['${ds4}'] | order by _time asc | project _time, v`);
        expect(got).toEqual([
            { _time: '2024-03-04T00:00:00Z', v: 1 },
            { _time: '2024-03-05T00:00:00Z', v: 2 },
            { _time: '2024-03-06T00:00:00Z', v: 4 },
        ]);
    });
});

describe('queries', () => {
    const ds = 'q-ds';
    const base = Date.parse('2024-05-01T00:00:00Z');
    beforeAll(async () => {
        await createDataset(t, ds);
        const events = Array.from({ length: 30 }, (_, i) => ({ _time: new Date(base + i * 60_000).toISOString(), status: i % 3 === 0 ? 500 : 200, path: `/p${i % 5}` }));
        const r = await t.raw('POST', `/v1/datasets/${ds}/ingest`, ndjson(events), { 'content-type': 'application/x-ndjson' });
        expect(r.json.ingested).toBe(30);
    });

    it('answers APL in tabular form with the full status', async () => {
        for (const p of ['/v1/datasets/_apl?format=tabular', '/v1/query/_apl?format=tabular']) {
            const r = await t.call('POST', p, { apl: `['${ds}'] | summarize count() by status | order by status asc`, startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' });
            expect(r.status, r.text).toBe(200);
            expect(r.contentType).toMatch(/^application\/json/);
            expect(r.json.format).toBe('tabular');
            const s = r.json.status;
            expect(Number.isInteger(s.elapsedTime)).toBe(true);
            for (const k of ['blocksExamined', 'rowsExamined', 'rowsMatched', 'numGroups', 'cacheStatus']) expect(Number.isInteger(s[k]), k).toBe(true);
            expect(s).toMatchObject({ isPartial: false, isEstimate: false, rowsExamined: 30 });
            expect(s.minBlockTime).toMatch(RFC3339);
            expect(Array.isArray(s.messages)).toBe(true);
            expect(rows(r.json)).toEqual([{ status: 200, count_: 20 }, { status: 500, count_: 10 }]);
        }
    });

    it('answers APL in legacy form when format is legacy or missing', async () => {
        for (const p of ['/v1/datasets/_apl?format=legacy', '/v1/datasets/_apl']) {
            const r = await t.call('POST', p, { apl: `['${ds}'] | where status == 500 | project _time, path`, startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' });
            expect(r.status, r.text).toBe(200);
            expect(r.json.matches).toHaveLength(10);
            expect(r.json.matches[0]).toMatchObject({ _time: expect.stringMatching(RFC3339), _rowId: expect.any(String), data: { path: expect.any(String) } });
            expect(r.json.buckets).toEqual({ series: [], totals: [] });
            expect(r.json.datasetNames).toEqual([ds]);
        }
    });

    it('honours relative times, variables and the time range', async () => {
        let r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: `['${ds}'] | count`, startTime: 'now-1h', endTime: 'now' });
        expect(Object.values(rows(r.json)[0])).toEqual([0]);
        r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: `['${ds}'] | count`, startTime: '2024-05-01T00:10:00Z', endTime: '2024-05-01T00:20:00Z' });
        expect(Object.values(rows(r.json)[0])).toEqual([10]);
        r = await t.call('POST', '/v1/datasets/_apl?format=tabular', {
            apl: `declare query_parameters(want:long = 0); ['${ds}'] | where status == want | count`,
            variables: { want: 500 },
        });
        expect(r.status, r.text).toBe(200);
        expect(Object.values(rows(r.json)[0])).toEqual([10]);
    });

    it('runs legacy queries with go zero values (limit 0, empty filter) and js shapes', async () => {
        const goBody = {
            startTime: '2024-05-01T00:00:00Z',
            endTime: '2024-05-02T00:00:00Z',
            resolution: 'auto',
            aggregations: null,
            groupBy: null,
            filter: { op: '', field: '', value: null, caseSensitive: false, children: null },
            order: null,
            limit: 0,
            virtualFields: null,
            project: null,
            cursor: '',
            includeCursor: false,
        };
        let r = await t.call('POST', `/v1/datasets/${ds}/query`, goBody);
        expect(r.status, r.text).toBe(200);
        expect(r.json.matches).toHaveLength(30);
        expect(r.json.status.rowsExamined).toBe(30);
        expect(r.json.buckets).toEqual({ series: expect.any(Array), totals: [] });
        r = await t.call('POST', `/v1/datasets/${ds}/query?streaming-duration=5s&nocache=true`, {
            startTime: '2024-05-01T00:00:00Z',
            endTime: '2024-05-02T00:00:00Z',
            resolution: 'auto',
            aggregations: [{ op: 'count', field: '*', alias: 'n' }],
            groupBy: ['status'],
            filter: { op: '==', field: 'path', value: '/p0' },
        });
        expect(r.status, r.text).toBe(200);
        const totals = r.json.buckets.totals as { group: { status: number }; aggregations: { op: string; value: number }[] }[];
        expect(totals.map((g) => [g.group.status, g.aggregations[0]])).toEqual(
            expect.arrayContaining([
                [200, { op: 'n', value: 4 }],
                [500, { op: 'n', value: 2 }],
            ]),
        );
        expect((await t.call('POST', '/v1/datasets/nope/query', goBody)).status).toBe(404);
        expect((await t.call('POST', `/v1/datasets/${ds}/query`, { ...goBody, startTime: 'yesterday' })).status).toBe(400);
    });

    it('answers saveAsKind with a history id header', async () => {
        const r = await t.call('POST', '/v1/datasets/_apl?format=tabular&saveAsKind=apl', { apl: `['${ds}'] | take 1` });
        expect(r.headers.get('x-axiom-history-query-id')).toBeTruthy();
    });
});

describe('durability', () => {
    it('recovers every dataset and event after a restart, with the same row ids', async () => {
        await createDataset(t, 'restart-ds');
        const events = Array.from({ length: 100 }, (_, i) => ({ _time: new Date(Date.parse('2024-01-01T00:00:00Z') + i * 1000).toISOString(), i }));
        await t.raw('POST', '/v1/datasets/restart-ds/ingest', ndjson(events), { 'content-type': 'application/x-ndjson' });
        const q = { apl: "['restart-ds'] | order by _time asc | project _time, i", startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
        const before = await t.call('POST', '/v1/datasets/_apl?format=legacy', q);
        const meta = await t.call('GET', '/v2/datasets/restart-ds');
        await t.restart();
        expect(t.svc.generatedToken).toBeUndefined();
        const after = await t.call('POST', '/v1/datasets/_apl?format=legacy', q);
        expect(after.json.matches).toEqual(before.json.matches);
        expect((await t.call('GET', '/v2/datasets/restart-ds')).json).toEqual(meta.json);
        // the token still works, and a different one does not
        expect((await fetch(`${t.url}/v2/datasets`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    });
});

describe('first start', () => {
    it('generates a token (stored hashed), loads the samples once, and reuses the state', async () => {
        const s = await startService({ tokens: [], samples: true, sampleRows: 200 });
        try {
            const tok = s.svc.generatedToken;
            expect(tok).toMatch(/^xaat-/);
            expect(s.svc.samplesLoaded).toContain('sample-http-logs');
            const list = await fetch(`${s.url}/v2/datasets`, { headers: { authorization: `Bearer ${tok}` } });
            expect(list.status).toBe(200);
            const names = ((await list.json()) as { name: string }[]).map((d) => d.name);
            expect(names).toEqual(expect.arrayContaining(['sample-http-logs', 'otel-demo-traces']));
            const qr = await fetch(`${s.url}/v1/datasets/_apl?format=tabular`, {
                method: 'POST',
                headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' },
                body: JSON.stringify({ apl: "['sample-http-logs'] | count" }),
            });
            expect(Object.values(rows((await qr.json()) as never)[0])).toEqual([200]);
            // the token file holds only hashes
            const { readFileSync } = await import('node:fs');
            expect(readFileSync(`${s.dir}/tokens.json`, 'utf8')).not.toContain(tok!);
            await s.restart();
            expect(s.svc.generatedToken).toBeUndefined();
            expect(s.svc.samplesLoaded).toEqual([]);
            expect((await fetch(`${s.url}/v2/datasets`, { headers: { authorization: `Bearer ${tok}` } })).status).toBe(200);
        } finally {
            await s.stop();
        }
    });
});

describe('auth', () => {
    it('answers 403 for a valid token outside its scope, 401 for an unknown one', async () => {
        const s = await startService({ tokens: [TOKEN, { token: 'xaat-ingest-only', scope: 'ingest' }] });
        try {
            await createDataset(s, 'scoped');
            const h = { authorization: 'Bearer xaat-ingest-only' };
            const ing = await fetch(`${s.url}/v1/datasets/scoped/ingest`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '[{"a":1}]' });
            expect(ing.status).toBe(200);
            const q = await fetch(`${s.url}/v1/datasets/_apl?format=tabular`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"apl":"[\'scoped\']"}' });
            expect(q.status).toBe(403);
            expect(((await q.json()) as { message: string }).message).toMatch(/forbidden/);
            const del = await fetch(`${s.url}/v2/datasets/scoped`, { method: 'DELETE', headers: h });
            expect(del.status).toBe(403);
            const list = await fetch(`${s.url}/v2/datasets`, { headers: { authorization: 'Bearer xapt-123' } });
            expect(list.status).toBe(401);
        } finally {
            await s.stop();
        }
    });
});
