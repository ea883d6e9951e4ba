/**
 * Current user (API.md §8, E12): `GET /v2/user` (js, go, cli) and `GET /v1/user` (rs). The local
 * service has one user, the owner; its id is stable per data directory.
 *
 * Also the read side of users and organizations, which the clients call: `GET /v2/users[/{id}]`
 * (js users.list/get, go Users) and `GET /v2/orgs[/{id}]` (go Organizations, which the CLI's
 * `auth login|status|switch-org` use). There is one organization, `local`; as `X-Axiom-Org-Id` is
 * ignored, any organization id names it (the CLI asks for the id in its configuration).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

export interface LocalUser {
    id: string;
    name: string;
    email: string;
    /** When the data directory was set up (RFC 3339): the organization's creation time. */
    created?: string;
}

export const LOCAL_ORG_ID = 'local';

function userObject(user: LocalUser) {
    return { id: user.id, name: user.name, email: user.email, role: { id: 'owner', name: 'Owner' } };
}

/** go's Organization (its `role` is a plain string; times must be RFC 3339, never ""). */
function orgObject(user: LocalUser, id: string) {
    const created = user.created ?? '1970-01-01T00:00:00Z';
    return {
        id,
        name: 'Local',
        slug: 'local',
        plan: 'local',
        planCreated: created,
        lastUsageSync: created,
        role: 'owner',
        primaryEmail: user.email,
        paymentStatus: 'na',
        metaCreated: created,
        metaModified: created,
    };
}

export function registerUserRoutes(app: FastifyInstance, user: LocalUser): void {
    app.get('/v2/user', async () => userObject(user));
    app.get('/v1/user', async () => ({ id: user.id, name: user.name, emails: [user.email] }));

    app.get('/v2/users', async () => [userObject(user)]);
    app.get('/v2/users/:id', async (req: FastifyRequest) => {
        const id = (req.params as { id: string }).id;
        if (id !== user.id) throw new HttpError(404, `user ${JSON.stringify(id)} not found (the only user is ${user.id})`);
        return userObject(user);
    });

    app.get('/v2/orgs', async () => [orgObject(user, LOCAL_ORG_ID)]);
    app.get('/v2/orgs/:id', async (req: FastifyRequest) => orgObject(user, (req.params as { id: string }).id));
}
