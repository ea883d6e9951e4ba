/**
 * Current user (API.md §8, E12): `GET /v2/user` (js, go, cli) and `GET /v1/user` (rs). The local
 * service has one user, the owner; its id is stable per data directory.
 */
import type { FastifyInstance } from 'fastify';

export interface LocalUser {
    id: string;
    name: string;
    email: string;
}

export function registerUserRoutes(app: FastifyInstance, user: LocalUser): void {
    app.get('/v2/user', async () => ({ id: user.id, name: user.name, email: user.email, role: { id: 'owner', name: 'Owner' } }));
    app.get('/v1/user', async () => ({ id: user.id, name: user.name, emails: [user.email] }));
}
