/**
 * Authentication (API.md §1.2, §9): `Authorization: Bearer <token>` on every request. Valid tokens
 * are the ones given on the command line / `AXIOM_TOKEN` (or `APL_TOKEN`) (compared in constant time, never stored)
 * and the ones stored hashed in the data directory, as that file is now: a token that
 * `apl token create` adds while the server runs works on its first use (TokenStore.verify).
 * Missing or unknown token → 401 (both clients and the go error suite expect 401, not 403).
 * `X-Axiom-Org-Id` is accepted and ignored.
 *
 * 403 is for a valid token used where it may not be: tokens given with a scope (`ingest` or
 * `query` only) answer 403 on routes outside that scope.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenStore } from '../store/tokens.js';
import { HttpError } from './errors.js';

export type TokenScope = 'all' | 'ingest' | 'query';

export interface TokenSpec {
    token: string;
    /** Default `all`. */
    scope?: TokenScope;
}

export interface Principal {
    /** Stable id: `cli-<sha prefix>` for configured tokens, the stored token id otherwise. */
    id: string;
    name: string;
    scope: TokenScope;
    /** `X-Axiom-Org-Id`, when sent. */
    orgId?: string;
}

declare module 'fastify' {
    interface FastifyRequest {
        principal?: Principal;
    }
}

function sha256(s: string): Buffer {
    return createHash('sha256').update(s, 'utf8').digest();
}

export class Authenticator {
    private readonly configured: { hash: Buffer; spec: Required<TokenSpec>; id: string }[];

    constructor(
        tokens: readonly (string | TokenSpec)[],
        private readonly stored: TokenStore | undefined,
    ) {
        this.configured = tokens
            .map((t) => (typeof t === 'string' ? { token: t, scope: 'all' as const } : { token: t.token, scope: t.scope ?? 'all' }))
            .filter((t) => t.token.length > 0)
            .map((spec) => {
                const hash = sha256(spec.token);
                return { hash, spec, id: `cli-${hash.toString('hex').slice(0, 12)}` };
            });
    }

    /** The principal for a raw `Authorization` header value, or a 401. */
    authenticate(header: string | undefined): Principal {
        if (header === undefined || header.trim() === '') {
            throw new HttpError(401, 'missing API token: send "Authorization: Bearer <token>"');
        }
        const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
        if (!m) throw new HttpError(401, 'malformed Authorization header: expected "Bearer <token>"');
        const token = m[1];
        const h = sha256(token);
        for (const c of this.configured) {
            if (timingSafeEqual(h, c.hash)) return { id: c.id, name: 'configured token', scope: c.spec.scope };
        }
        const info = this.stored?.verify(token);
        if (info) return { id: info.id, name: info.name, scope: 'all' };
        throw new HttpError(401, 'invalid API token');
    }
}

/** Routes that need a scope other than `all`. */
export type RouteScope = 'ingest' | 'query' | 'admin';

export function requireScope(req: FastifyRequest, need: RouteScope): void {
    const p = req.principal;
    if (!p) throw new HttpError(401, 'missing API token: send "Authorization: Bearer <token>"');
    if (p.scope === 'all') return;
    if (p.scope !== need) {
        throw new HttpError(403, `forbidden: this token may only be used to ${p.scope === 'ingest' ? 'ingest events' : 'run queries'}`);
    }
}

/** onRequest hook: authenticates every request (no anonymous routes). */
export function authHook(auth: Authenticator) {
    return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
        const p = auth.authenticate(req.headers.authorization);
        const org = req.headers['x-axiom-org-id'];
        if (typeof org === 'string' && org !== '') p.orgId = org;
        req.principal = p;
    };
}
