/** AplClient's annotations and monitors against the real service (createService on a free port). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AplApiError, AplClient } from '../../client/api/index.js';
import { startService, type TestService, TOKEN } from '../server/http/helpers.js';

let t: TestService;
let client: AplClient;

beforeAll(async () => {
    t = await startService();
    client = new AplClient({ url: t.url, token: TOKEN });
    await client.datasets.create({ name: 'client-notes' });
});
afterAll(async () => {
    await t?.stop();
});

describe('AplClient: annotations and monitors', () => {
    it('annotations: create, list with datasets/start/end, get, update, delete', async () => {
        const a = await client.annotations.create({ type: 'deploy', datasets: ['client-notes'], time: '2024-01-01T10:00:00Z', title: 'one' });
        expect(await client.annotations.get(a.id)).toEqual(a);
        expect((await client.annotations.list({ datasets: ['client-notes', 'other'], start: '2024-01-01T09:00:00Z', end: '2024-01-01T11:00:00Z' })).map((x) => x.id)).toEqual([a.id]);
        expect(await client.annotations.list({ datasets: ['client-notes'], start: '2024-01-02T00:00:00Z' })).toEqual([]);
        const u = await client.annotations.update(a.id, { endTime: '2024-01-01T10:05:00Z' });
        expect(u.endTime).toBe('2024-01-01T10:05:00Z');
        expect((await client.annotations.update(a.id, { endTime: null })).endTime).toBeUndefined();
        await client.annotations.delete(a.id);
        const gone = (await client.annotations.get(a.id).catch((e: unknown) => e)) as AplApiError;
        expect(gone).toBeInstanceOf(AplApiError);
        expect(gone.status).toBe(404);
    });

    it('monitors: create, list, get, update, delete; a bad query is an AplApiError 400 with the line/column', async () => {
        const m = await client.monitors.create({ name: 'm', type: 'MatchEvent', aplQuery: "['client-notes'] | where level == 'error'", intervalMinutes: 1 });
        expect(m).toMatchObject({ name: 'm', type: 'MatchEvent', operator: '', rangeMinutes: 0 });
        expect((await client.monitors.list()).map((x) => x.id)).toContain(m.id);
        expect(await client.monitors.get(m.id)).toEqual(m);
        expect((await client.monitors.update(m.id, { name: 'renamed', type: 'MatchEvent', aplQuery: m.aplQuery, intervalMinutes: 2 })).intervalMinutes).toBe(2);
        const bad = (await client.monitors.create({ name: 'bad', type: 'MatchEvent', aplQuery: "['client-notes'] | where", intervalMinutes: 1 }).catch((e: unknown) => e)) as AplApiError;
        expect(bad).toBeInstanceOf(AplApiError);
        expect(bad.status).toBe(400);
        expect(bad.message).toMatch(/^invalid aplQuery: APL1001 .*\(line 1, column \d+\)/);
        await client.monitors.delete(m.id);
        expect(((await client.monitors.get(m.id).catch((e: unknown) => e)) as AplApiError).status).toBe(404);
    });
});
