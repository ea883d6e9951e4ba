/**
 * The rest of what the official clients call: the read side of users and organizations (js
 * users.list/get, go Users/Organizations, the CLI's `auth status`), and a clear 404 for every Axiom
 * endpoint this service does not offer (never a 5xx: the clients retry those).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from './helpers.js';

let t: TestService;

beforeAll(async () => {
    t = await startService();
});
afterAll(async () => {
    await t?.stop();
});

describe('users and organizations', () => {
    it('GET /v2/users lists the one local user, GET /v2/users/{id} gets it; another id is 404', async () => {
        const me = (await t.call('GET', '/v2/user')).json;
        expect((await t.call('GET', '/v2/users')).json).toEqual([me]);
        expect((await t.call('GET', `/v2/users/${me.id}`)).json).toEqual(me);
        const other = await t.call('GET', '/v2/users/someone-else');
        expect(other.status).toBe(404);
        expect(other.json.message).toMatch(/user "someone-else" not found/);
    });

    it("GET /v2/orgs lists the local organization; GET /v2/orgs/{id} answers it for any id (go's Organization shape)", async () => {
        const list = (await t.call('GET', '/v2/orgs')).json;
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({ id: 'local', name: 'Local', role: 'owner', paymentStatus: 'na' });
        for (const k of ['planCreated', 'lastUsageSync', 'metaCreated', 'metaModified']) expect(Number.isNaN(Date.parse(list[0][k])), k).toBe(false);
        const one = await t.call('GET', '/v2/orgs/my-org-id');
        expect(one.status).toBe(200);
        expect(one.json).toEqual({ ...list[0], id: 'my-org-id' });
    });
});

describe('Axiom endpoints apl serve does not offer: 404 saying so and why', () => {
    const cases: [string, string, RegExp][] = [
        ['GET', '/v2/dashboards', /dashboards/],
        ['GET', '/v2/dashboards/uid/abc', /dashboards/],
        ['GET', '/v2/apl-starred-queries?limit=5', /saved \(starred\) queries/],
        ['GET', '/v2/apl-starred-queries/q1', /saved \(starred\) queries/],
        ['POST', '/v2/notifiers', /no notifications/],
        ['GET', '/v2/vfields?dataset=x', /virtual fields/],
        ['GET', '/v2/tokens', /apl token create/],
        ['POST', '/v2/tokens/t1/regenerate', /apl token create/],
        ['POST', '/v2/users', /one local user/],
        ['PUT', '/v2/users/u1/role', /one local user/],
        ['PUT', '/v2/orgs/o1', /one local organization/],
        ['POST', '/v1/query/_mpl?format=tabular', /MPL/],
        ['GET', '/v1/query/metrics/info/datasets/ds/metrics', /MPL/],
        ['POST', '/v1/traces', /OTLP/],
        ['POST', '/v2/datasets/ds/vacuum', /compacts by itself/],
        ['PUT', '/v2/datasets/ds/fields/f', /cannot be changed/],
        ['GET', '/v2/rbac/roles', /one local user/],
    ];
    for (const [method, url, why] of cases) {
        it(`${method} ${url}`, async () => {
            const r = await t.call(method, url, method === 'GET' ? undefined : {});
            expect(r.status).toBe(404);
            expect(r.contentType).toMatch(/^application\/json/);
            expect(r.json.message).toMatch(new RegExp(`^${method} ${url.split('?')[0]} is not available in apl serve \\(not found\\): `));
            expect(r.json.message).toMatch(why);
        });
    }

    it('still needs a token (401 without one)', async () => {
        const r = await fetch(`${t.url}/v2/dashboards`);
        expect(r.status).toBe(401);
    });

    it('the routes that exist keep working next to them (GET /v2/datasets/{id}/fields/{field} is 404 only for a missing dataset)', async () => {
        expect((await t.call('GET', '/v2/datasets/none/fields/f')).json.message).toMatch(/dataset "none" not found/);
    });
});
