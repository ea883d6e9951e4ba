/**
 * Axiom API endpoints that the official clients can call but this local service does not offer,
 * each answered with a 404 whose message says so and why (instead of the generic "route … not
 * found"). 404, not 501: a deterministic refusal must be a 4xx, since the clients retry 5xx (go
 * for up to 10 s, js once); and go maps 404 to its ErrNotFound, which callers already handle.
 *
 * Found in @axiomhq/js 2.0.0 (dashboards, savedQueries, MPL and metrics-info queries), axiom-go
 * (dashboards, notifiers, tokens, vfields, users admin, orgs admin, OTLP traces) and the API
 * reference (views, rbac, vacuum, field updates). docs/service.md lists them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';

type Route = { methods: HTTPMethods | HTTPMethods[]; paths: string[]; why: string };

const ALL: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const UNAVAILABLE: Route[] = [
    { methods: ALL, paths: ['/v2/dashboards', '/v2/dashboards/*'], why: 'dashboards are a feature of the Axiom web app' },
    { methods: ALL, paths: ['/v2/views', '/v2/views/*'], why: 'views are a feature of the Axiom web app' },
    { methods: ALL, paths: ['/v2/apl-starred-queries', '/v2/apl-starred-queries/*'], why: 'saved (starred) queries are a feature of the Axiom web app' },
    { methods: ALL, paths: ['/v2/notifiers', '/v2/notifiers/*'], why: 'this service sends no notifications (monitors are stored and checked, not run)' },
    { methods: ALL, paths: ['/v2/vfields', '/v2/vfields/*'], why: 'virtual fields are not supported; use extend in the query' },
    { methods: ALL, paths: ['/v2/rbac/*'], why: 'there is one local user, with every right' },
    {
        methods: ALL,
        paths: ['/v2/tokens', '/v2/tokens/*'],
        why: 'tokens here have no capabilities or expiry (accepting those would mint unrestricted tokens believed to be restricted); manage tokens with `apl token create|list|revoke`',
    },
    { methods: ['POST'], paths: ['/v2/users'], why: 'there is one local user' },
    { methods: ['PUT', 'DELETE'], paths: ['/v2/users/:id'], why: 'there is one local user' },
    { methods: ['PUT'], paths: ['/v2/users/:id/role'], why: 'there is one local user, with every right' },
    { methods: ['POST'], paths: ['/v2/orgs', '/v2/orgs/provision'], why: 'there is one local organization' },
    { methods: ['PUT'], paths: ['/v2/orgs/:id'], why: 'there is one local organization' },
    { methods: ['POST'], paths: ['/v1/query/_mpl'], why: 'MPL (metrics) queries are not supported; query with APL' },
    { methods: ['GET'], paths: ['/v1/query/metrics/*'], why: 'MPL (metrics) metadata is not supported' },
    { methods: ['POST'], paths: ['/v1/traces', '/v1/logs', '/v1/metrics'], why: 'OTLP ingest is not supported; send events to /v1/datasets/{dataset}/ingest' },
    { methods: ['POST'], paths: ['/v2/datasets/:id/vacuum', '/v1/datasets/:id/vacuum'], why: 'vacuum has nothing to do here: the store compacts by itself' },
    { methods: ['PUT'], paths: ['/v2/datasets/:id/fields/:field', '/v1/datasets/:id/fields/:field'], why: 'field descriptions and units cannot be changed' },
];

export function registerUnavailableRoutes(app: FastifyInstance): void {
    for (const r of UNAVAILABLE) {
        for (const url of r.paths) {
            app.route({
                method: r.methods,
                url,
                handler: async (req: FastifyRequest, reply: FastifyReply) => {
                    const path = req.url.split('?', 1)[0];
                    return reply
                        .code(404)
                        .type('application/json; charset=utf-8')
                        .send({ code: 404, message: `${req.method} ${path} is not available in apl serve (not found): ${r.why}` });
                },
            });
        }
    }
}
