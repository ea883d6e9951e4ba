/**
 * End to end: `apl serve` as a child process on a random loopback port, driven by the official
 * `@axiomhq/js` client, unchanged (`new Axiom({ token, url })`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Axiom, AxiomWithoutBatching } from '@axiomhq/js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-e2e-axiom-js';
const DS = 'js-e2e';
const N = 5000;
const PAGE = 1000;
const BASE = Date.parse('2024-07-01T00:00:00Z');
const START = '2024-07-01T00:00:00Z';
const END = '2024-07-02T00:00:00Z';

let dir: string;
let server: ChildServer;
let axiom: Axiom;
let direct: AxiomWithoutBatching;
const errors: unknown[] = [];

beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-js-'));
    server = await spawnServer({ dataDir: dir, token: TOKEN });
    axiom = new Axiom({ token: TOKEN, url: server.url, onError: (e) => errors.push(e) });
    direct = new AxiomWithoutBatching({ token: TOKEN, url: server.url, onError: (e) => errors.push(e) });
}, 60_000);

afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('@axiomhq/js against apl serve', () => {
    it('prints a banner with the URL, curl and @axiomhq/js usage', () => {
        const out = server.output();
        expect(out).toContain(server.url);
        expect(out).toMatch(/curl .*\/v1\/datasets\/.*\/ingest/);
        expect(out).toContain("new Axiom({ token:");
    });

    it('creates a dataset', async () => {
        const ds = await axiom.datasets.create({ name: DS, description: 'e2e' });
        expect(ds).toMatchObject({ id: DS, name: DS, description: 'e2e' });
        const list = await axiom.datasets.list();
        expect(list.map((d) => d.name)).toContain(DS);
        const got = await axiom.datasets.get(DS);
        expect(got.name).toBe(DS);
    });

    it('ingests (gzip NDJSON, batched and direct) with exact statuses', async () => {
        const events = Array.from({ length: N }, (_, i) => ({ _time: new Date(BASE + Math.floor(i / 2) * 1000).toISOString(), i, kind: i % 2 ? 'odd' : 'even', nested: { v: i % 7 } }));
        const first = events.slice(0, 1000);
        const status = await direct.ingest(DS, first);
        expect(errors).toEqual([]);
        expect(status).toMatchObject({ ingested: 1000, failed: 0, failures: [] });
        expect(status.processedBytes).toBe(Buffer.byteLength(first.map((e) => JSON.stringify(e)).join('\n')));
        // the batching client: queue everything else, then flush
        axiom.ingest(DS, events.slice(1000));
        await axiom.flush();
        expect(errors).toEqual([]);
    });

    it('queries APL in tabular form', async () => {
        const res = await axiom.query(`['${DS}'] | summarize n = count() by kind | order by kind asc`, { startTime: START, endTime: END, format: 'tabular' });
        const rows = [...res.tables[0].events()];
        expect(rows).toEqual([
            { kind: 'even', n: 2500 },
            { kind: 'odd', n: 2500 },
        ]);
        expect(res.status.rowsExamined).toBe(N);
        // js default (2.0): tabular
        const dflt = await axiom.query(`['${DS}'] | where i == 42 | project i, ['nested.v']`);
        expect([...dflt.tables[0].events()]).toEqual([{ i: 42, 'nested.v': 0 }]);
    });

    it('queries APL in legacy form', async () => {
        const res = await axiom.query(`['${DS}'] | where i < 3 | project i`, { startTime: START, endTime: END, format: 'legacy' });
        expect(res.matches?.map((m) => m.data.i).sort()).toEqual([0, 1, 2]);
        expect(res.status.rowsMatched).toBe(3);
    });

    it('runs a legacy query', async () => {
        const res = await axiom.queryLegacy(DS, {
            startTime: START,
            endTime: END,
            resolution: 'auto',
            aggregations: [{ op: 'count' as never, field: '*' }],
            groupBy: ['kind'],
            filter: { op: '<' as never, field: 'i', value: 100 },
        });
        const totals = res.buckets.totals ?? [];
        expect(totals.map((g) => [g.group.kind, g.aggregations?.[0].value]).sort()).toEqual([
            ['even', 50],
            ['odd', 50],
        ]);
    });

    it('pages by cursor through 5,000 events in pages of 1,000 (js sends ?cursor=)', async () => {
        const seen: number[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
            const res = await axiom.query(`['${DS}'] | sort by _time desc | project _time, i | limit ${PAGE}`, { startTime: START, endTime: END, format: 'tabular', cursor });
            const rows = [...res.tables[0].events()] as { _time: string; i: number }[];
            seen.push(...rows.map((r) => r.i));
            if (rows.length < PAGE || res.status.minCursor === cursor) break;
            cursor = res.status.minCursor;
        }
        expect(seen).toHaveLength(N);
        expect(new Set(seen).size).toBe(N);
        // descending time: i decreases by pairs (two events per second)
        for (let k = 1; k < seen.length; k++) expect(Math.floor(seen[k - 1] / 2)).toBeGreaterThanOrEqual(Math.floor(seen[k] / 2));
    });

    it('pages by timestamp', async () => {
        const seen: number[] = [];
        let start = START;
        for (let page = 0; page < 10; page++) {
            // ascending, whole seconds with 2 events each and an even page size: no tie splits a page
            const res = await axiom.query(`['${DS}'] | sort by _time asc | project _time, i | limit ${PAGE}`, { startTime: start, endTime: END, format: 'tabular' });
            const rows = [...res.tables[0].events()] as { _time: string; i: number }[];
            seen.push(...rows.map((r) => r.i));
            if (rows.length < PAGE) break;
            start = new Date(Date.parse(rows[rows.length - 1]._time) + 1).toISOString();
        }
        expect(seen).toHaveLength(N);
        expect(new Set(seen).size).toBe(N);
    });

    it('lists the fields', async () => {
        const fields = await axiom.datasets.fields(DS);
        const names = fields.map((f) => f.name);
        expect(names).toEqual(expect.arrayContaining(['_time', 'i', 'kind', 'nested.v']));
        expect(fields.find((f) => f.name === 'i')?.type).toBe('integer');
    });

    it('reports errors the way js surfaces them', async () => {
        await expect(axiom.datasets.get('no-such-dataset')).rejects.toThrow(/not found/i);
        await expect(axiom.query("['js-e2e'] | where ==", { format: 'tabular' })).rejects.toThrow(/400.*line 1, column/);
        const bad = new Axiom({ token: 'xaat-wrong', url: server.url, onError: () => undefined });
        await expect(bad.datasets.list()).rejects.toThrow(/forbidden/); // js maps 401 to Error('forbidden')
    });

    it('annotations: create, get, list (datasets/start/end), update, delete, with the js client unchanged', async () => {
        const created = await axiom.annotations.create({ type: 'production-deploy', datasets: [DS], title: 'v2', url: 'some-url', time: '2024-07-01T10:00:00Z' });
        expect(created).toMatchObject({ type: 'production-deploy', datasets: [DS], title: 'v2', url: 'some-url', time: '2024-07-01T10:00:00Z' });
        expect(created.id).toMatch(/^ann_/);
        expect(await axiom.annotations.get(created.id)).toEqual(created);
        // js sends the list filter as ?datasets=a,b (String of the array)
        expect((await axiom.annotations.list({ datasets: [DS, 'other'] })).map((a) => a.id)).toEqual([created.id]);
        expect(await axiom.annotations.list({ datasets: [DS], start: '2024-07-01T11:00:00Z' })).toEqual([]);
        expect((await axiom.annotations.list({ datasets: [DS], end: '2024-07-01T10:00:00Z' })).map((a) => a.id)).toEqual([created.id]);
        expect((await axiom.annotations.list()).length).toBeGreaterThan(0);
        const updated = await axiom.annotations.update(created.id, { description: 'filled in', endTime: '2024-07-01T10:30:00Z' });
        expect(updated).toEqual({ ...created, description: 'filled in', endTime: '2024-07-01T10:30:00Z' });
        await expect(axiom.annotations.create({ type: 'Bad Type', datasets: [DS] })).rejects.toThrow(/failed with 400: invalid type: .*"Bad Type"/);
        const del = await axiom.annotations.delete(created.id);
        expect(del.status).toBe(204);
        await expect(axiom.annotations.get(created.id)).rejects.toThrow(/failed with 404: annotation .* not found/);
    });

    it('monitors: create, get, list, update, delete, with the js client unchanged (the APL is checked)', async () => {
        const request = {
            name: 'Integration Test Monitor',
            type: 'Threshold' as const,
            description: 'Monitor created by the e2e test',
            aplQuery: `['${DS}'] | summarize count() by bin_auto(_time)`,
            operator: 'Above' as const,
            threshold: 100,
            alertOnNoData: false,
            notifyByGroup: false,
            notifierIDs: [],
            intervalMinutes: 5,
            rangeMinutes: 10,
        };
        const created = await axiom.monitors.create(request);
        expect(created).toMatchObject({ name: request.name, description: request.description, type: 'Threshold', threshold: 100, aplQuery: request.aplQuery });
        expect(created.id).toMatch(/^mon_/);
        expect(await axiom.monitors.get(created.id)).toEqual(created);
        expect((await axiom.monitors.list()).find((m) => m.id === created.id)).toEqual(created);
        const updated = await axiom.monitors.update(created.id, { ...request, name: 'Updated', threshold: 150 });
        expect(updated).toMatchObject({ id: created.id, name: 'Updated', threshold: 150, createdAt: created.createdAt });
        await expect(axiom.monitors.create({ ...request, aplQuery: `['${DS}'] | summarize cnt()` })).rejects.toThrow(/failed with 400: invalid aplQuery: APL0001 .*\(line 1, column \d+\)/);
        const del = await axiom.monitors.delete(created.id);
        expect(del.status).toBe(204);
        await expect(axiom.monitors.get(created.id)).rejects.toThrow(/failed with 404/);
    });

    it('users: current, list and get', async () => {
        const me = await axiom.users.current();
        expect(await axiom.users.list()).toEqual([me]);
        expect(await axiom.users.get(me.id)).toEqual(me);
    });

    it('endpoints apl serve does not offer fail fast with a 404 that says why (no retry)', async () => {
        await expect(axiom.dashboards.list()).rejects.toThrow(/failed with 404: GET \/v2\/dashboards is not available in apl serve/);
        await expect(axiom.savedQueries.get('q1')).rejects.toThrow(/failed with 404: .*saved \(starred\) queries/);
    });

    it('deletes the dataset (204)', async () => {
        const res = await axiom.datasets.delete(DS);
        expect(res.status).toBe(204);
        await expect(axiom.datasets.get(DS)).rejects.toThrow(/not found/i);
    });
});
