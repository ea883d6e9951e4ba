/**
 * `/v2/annotations` over HTTP against a real service (port 0, temp data directory): the shapes of
 * Axiom's API reference, every validation error a 400 naming the field and the value, 404s,
 * persistence across a restart, and what deleting a dataset does to its annotations.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, startService, type TestService } from './helpers.js';

let t: TestService;

beforeAll(async () => {
    t = await startService({ tokens: ['xaat-test-token', { token: 'xaat-ingest-only', scope: 'ingest' }] });
    for (const ds of ['web', 'api', 'jobs']) await createDataset(t, ds);
});
afterAll(async () => {
    await t?.stop();
});

const create = async (body: Record<string, unknown>) => {
    const r = await t.call('POST', '/v2/annotations', body);
    expect(r.status, r.text).toBe(201);
    return r.json as Record<string, unknown> & { id: string };
};

describe('annotations: create, get, update, delete', () => {
    it('creates with the reference shape: 201, id ann_…, time defaults to now, unset fields absent', async () => {
        const before = Date.now();
        const a = await create({ type: 'deploy', datasets: ['web'], title: 'v1.2', description: 'new form', url: 'https://example.com/pr/1' });
        expect(a.id).toMatch(/^ann_[0-9a-f]{16}$/);
        expect(a).toMatchObject({ type: 'deploy', datasets: ['web'], title: 'v1.2', description: 'new form', url: 'https://example.com/pr/1' });
        expect(Date.parse(a.time as string)).toBeGreaterThanOrEqual(before - 1);
        expect(a.time).toMatch(/Z$/);
        expect('endTime' in a).toBe(false);
        const got = await t.call('GET', `/v2/annotations/${a.id}`);
        expect(got.status).toBe(200);
        expect(got.json).toEqual(a);
    });

    it('keeps given times in UTC (offsets converted), and the url need not be absolute (js integration sends "some-url")', async () => {
        const a = await create({ type: 'incident', datasets: ['api', 'api', 'web'], time: '2024-03-18T10:39:28.382+02:00', endTime: '2024-03-18T09:00:00Z', url: 'some-url' });
        expect(a).toMatchObject({ datasets: ['api', 'web'], time: '2024-03-18T08:39:28.382Z', endTime: '2024-03-18T09:00:00Z', url: 'some-url' });
    });

    it('updates only the keys sent; endTime null removes the end', async () => {
        const a = await create({ type: 'deploy', datasets: ['web'], title: 'before', time: '2024-01-01T00:00:00Z', endTime: '2024-01-01T01:00:00Z' });
        const u = await t.call('PUT', `/v2/annotations/${a.id}`, { description: 'added', datasets: ['api'] });
        expect(u.status, u.text).toBe(200);
        expect(u.json).toEqual({ ...a, description: 'added', datasets: ['api'] });
        const cleared = await t.call('PUT', `/v2/annotations/${a.id}`, { endTime: null });
        expect(cleared.json.endTime).toBeUndefined();
        expect((await t.call('GET', `/v2/annotations/${a.id}`)).json).toEqual({ ...a, description: 'added', datasets: ['api'], endTime: undefined });
    });

    it('deletes with 204; then get, update and delete answer 404 with "not found"', async () => {
        const a = await create({ type: 'deploy', datasets: ['web'] });
        const d = await t.call('DELETE', `/v2/annotations/${a.id}`);
        expect(d.status).toBe(204);
        expect(d.text).toBe('');
        for (const [method, body] of [['GET'], ['PUT', { title: 'x' }], ['DELETE']] as const) {
            const r = await t.call(method, `/v2/annotations/${a.id}`, body);
            expect(r.status, method).toBe(404);
            expect(r.json.message).toMatch(/annotation "ann_[0-9a-f]+" not found/);
        }
        expect((await t.call('GET', '/v2/annotations/ann_doesnotexist')).status).toBe(404);
    });

    it('a token scoped to ingest may list but not write (403)', async () => {
        const h = { authorization: 'Bearer xaat-ingest-only' };
        expect((await t.call('POST', '/v2/annotations', { type: 'deploy', datasets: ['web'] }, h)).status).toBe(403);
        expect((await t.call('GET', '/v2/annotations', undefined, h)).status).toBe(200);
    });
});

describe('annotations: list filters', () => {
    const ids: Record<string, string> = {};
    beforeAll(async () => {
        // jobs: j1 a point at 10:00, j2 10:30-11:30, j3 a point at 12:00 on jobs and web
        ids.j1 = (await create({ type: 'run', datasets: ['jobs'], time: '2024-05-01T10:00:00Z' })).id;
        ids.j2 = (await create({ type: 'run', datasets: ['jobs'], time: '2024-05-01T10:30:00Z', endTime: '2024-05-01T11:30:00Z' })).id;
        ids.j3 = (await create({ type: 'run', datasets: ['jobs', 'web'], time: '2024-05-01T12:00:00Z' })).id;
    });
    const list = async (query: string) => {
        const r = await t.call('GET', `/v2/annotations${query}`);
        expect(r.status, r.text).toBe(200);
        return (r.json as { id: string }[]).map((a) => a.id);
    };

    it('datasets=jobs: only those annotations, oldest first', async () => {
        expect(await list('?datasets=jobs')).toEqual([ids.j1, ids.j2, ids.j3]);
    });

    it('datasets as a comma list (js, docs) or repeated (go)', async () => {
        const web = await list('?datasets=web');
        expect(web).toContain(ids.j3);
        expect(web).not.toContain(ids.j1);
        const both = await list('?datasets=jobs,web');
        expect(await list('?datasets=jobs&datasets=web')).toEqual(both);
        expect(both).toEqual(expect.arrayContaining([ids.j1, ids.j2, ids.j3, ...web]));
        expect(await list('?datasets=nosuch')).toEqual([]);
    });

    it('start/end select the annotations that overlap [start, end]', async () => {
        expect(await list('?datasets=jobs&start=2024-05-01T11:00:00Z')).toEqual([ids.j2, ids.j3]);
        expect(await list('?datasets=jobs&end=2024-05-01T10:15:00Z')).toEqual([ids.j1]);
        expect(await list('?datasets=jobs&start=2024-05-01T10:45:00Z&end=2024-05-01T11:00:00Z')).toEqual([ids.j2]);
        // go's filter sends its zero time, twice, as start
        expect(await list('?datasets=jobs&start=0001-01-01T00:00:00Z&start=0001-01-01T00:00:00Z')).toEqual([ids.j1, ids.j2, ids.j3]);
    });

    it('start=yesterday: 400 naming the parameter and the value', async () => {
        const r = await t.call('GET', '/v2/annotations?start=yesterday');
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/^invalid start "yesterday"/);
    });
});

describe('annotations: validation (each a 400 naming the field and the value)', () => {
    const long = (n: number) => 'x'.repeat(n);
    const cases: [string, Record<string, unknown>, RegExp][] = [
        ['type missing', { datasets: ['web'] }, /"type" is required/],
        ['type with capitals', { type: 'Deploy', datasets: ['web'] }, /^invalid type: .*got "Deploy"/],
        ['type with a space', { type: 'a b', datasets: ['web'] }, /^invalid type: .*got "a b"/],
        ['type too long', { type: 'a'.repeat(257), datasets: ['web'] }, /^invalid type: expected 1-256/],
        ['type not a string', { type: 7, datasets: ['web'] }, /^invalid type: expected a string, got 7/],
        ['datasets missing', { type: 'deploy' }, /"datasets" is required/],
        ['datasets empty', { type: 'deploy', datasets: [] }, /^invalid datasets: expected at least one dataset name, got \[\]/],
        ['datasets a string', { type: 'deploy', datasets: 'web' }, /^invalid datasets: expected an array of strings, got "web"/],
        ['datasets with a number', { type: 'deploy', datasets: ['web', 3] }, /^invalid datasets\[1\]: expected a string, got 3/],
        ['an unknown dataset', { type: 'deploy', datasets: ['web', 'nope'] }, /^invalid datasets\[1\]: dataset "nope" not found/],
        ['title too long', { type: 'deploy', datasets: ['web'], title: long(257) }, /^invalid title: 257 characters, at most 256/],
        ['description too long', { type: 'deploy', datasets: ['web'], description: long(513) }, /^invalid description: 513 characters, at most 512/],
        ['url not a string', { type: 'deploy', datasets: ['web'], url: { href: 'x' } }, /^invalid url: expected a string, got \{"href":"x"\}/],
        ['time not a time', { type: 'deploy', datasets: ['web'], time: 'yesterday' }, /^invalid time "yesterday"/],
        ['endTime a number', { type: 'deploy', datasets: ['web'], endTime: 17 }, /^invalid endTime: .*got 17/],
        ['endTime before time', { type: 'deploy', datasets: ['web'], time: '2024-01-02T00:00:00Z', endTime: '2024-01-01T00:00:00Z' }, /^invalid endTime: 2024-01-01T00:00:00Z is before time 2024-01-02T00:00:00Z/],
    ];
    for (const [what, body, message] of cases) {
        it(`create: ${what}`, async () => {
            const r = await t.call('POST', '/v2/annotations', body);
            expect(r.status, r.text).toBe(400);
            expect(r.json.message).toMatch(message);
        });
    }

    it('update: the same rules, and a rejected update changes nothing', async () => {
        const a = await create({ type: 'deploy', datasets: ['web'], time: '2024-01-02T00:00:00Z' });
        for (const [body, message] of [
            [{ type: 'NOPE' }, /^invalid type: .*got "NOPE"/],
            [{ datasets: [] }, /^invalid datasets: expected at least one/],
            [{ datasets: ['gone'] }, /^invalid datasets\[0\]: dataset "gone" not found/],
            [{ endTime: '2024-01-01T00:00:00Z' }, /^invalid endTime: .* is before time/],
            [{ title: 5 }, /^invalid title: expected a string, got 5/],
        ] as const) {
            const r = await t.call('PUT', `/v2/annotations/${a.id}`, body);
            expect(r.status, r.text).toBe(400);
            expect(r.json.message).toMatch(message);
        }
        expect((await t.call('GET', `/v2/annotations/${a.id}`)).json).toEqual(a);
    });

    it('a body that is not a JSON object: 400', async () => {
        for (const body of ['[1]', '{"type":', '"deploy"']) {
            const r = await t.raw('POST', '/v2/annotations', body, { 'content-type': 'application/json' });
            expect(r.status, body).toBe(400);
            expect(r.json.message).toMatch(/annotation/);
        }
    });
});

describe('annotations: durability and dataset deletion', () => {
    it('survive a restart unchanged, in a 0600 annotations.json', async () => {
        const a = await create({ type: 'deploy', datasets: ['web'], title: 'durable', time: '2023-01-01T00:00:00.123456789Z' });
        const all = (await t.call('GET', '/v2/annotations')).json;
        await t.restart();
        expect((await t.call('GET', `/v2/annotations/${a.id}`)).json).toEqual(a);
        expect((await t.call('GET', '/v2/annotations')).json).toEqual(all);
        expect(statSync(path.join(t.dir, 'annotations.json')).mode & 0o777).toBe(0o600);
    });

    it('deleting a dataset drops it from every annotation; one left with no dataset is kept and can be deleted', async () => {
        await createDataset(t, 'doomed');
        const only = await create({ type: 'deploy', datasets: ['doomed'] });
        const shared = await create({ type: 'deploy', datasets: ['doomed', 'web'] });
        expect((await t.call('DELETE', '/v2/datasets/doomed')).status).toBe(204);
        expect((await t.call('GET', `/v2/annotations/${only.id}`)).json.datasets).toEqual([]);
        expect((await t.call('GET', `/v2/annotations/${shared.id}`)).json.datasets).toEqual(['web']);
        // a new dataset of the same name does not inherit the old marks
        await createDataset(t, 'doomed');
        expect((await t.call('GET', '/v2/annotations?datasets=doomed')).json).toEqual([]);
        expect((await t.call('DELETE', `/v2/annotations/${only.id}`)).status).toBe(204);
        await t.restart();
        expect((await t.call('GET', `/v2/annotations/${shared.id}`)).json.datasets).toEqual(['web']);
    });

    it('a restart drops datasets that vanished while the service was down (a crash between the two writes)', async () => {
        const a = await create({ type: 'deploy', datasets: ['web', 'api'] });
        await t.svc.close();
        // what a crash right after the dataset's deletion leaves: the annotation still names it
        const file = path.join(t.dir, 'annotations.json');
        const { readFileSync } = await import('node:fs');
        const content = JSON.parse(readFileSync(file, 'utf8'));
        content.items.find((x: { id: string }) => x.id === a.id).datasets.push('vanished');
        writeFileSync(file, JSON.stringify(content));
        await t.restart();
        expect((await t.call('GET', `/v2/annotations/${a.id}`)).json.datasets).toEqual(['web', 'api']);
    });

    it('a damaged annotations.json is moved aside and the service starts', async () => {
        await t.svc.close();
        writeFileSync(path.join(t.dir, 'annotations.json'), '{"v":1,"items":[{"id":');
        await t.restart();
        expect((await t.call('GET', '/v2/annotations')).json).toEqual([]);
        expect(readdirSync(t.dir).some((f) => f.startsWith('annotations.json.damaged-'))).toBe(true);
        expect((await t.call('GET', '/v2/datasets/web')).status).toBe(200);
    });
});
