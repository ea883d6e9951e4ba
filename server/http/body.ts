/**
 * Request bodies. Every content type is read as a raw Buffer (see app.ts): ingest needs the exact
 * bytes (compressed or not), and the JSON routes parse here, so that an empty body with
 * `Content-Type: application/json` (js sends that header on bodiless requests) is not an error.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

export function rawBody(req: FastifyRequest): Buffer {
    const b = req.body;
    if (Buffer.isBuffer(b)) return b;
    if (b === undefined || b === null) return Buffer.alloc(0);
    if (typeof b === 'string') return Buffer.from(b, 'utf8');
    return Buffer.from(JSON.stringify(b), 'utf8');
}

/** The body as a JSON object; an empty body is `{}`. Anything but an object is a 400. */
export function jsonObjectBody(req: FastifyRequest, what = 'request body'): Record<string, unknown> {
    const buf = rawBody(req);
    if (buf.length === 0) return {};
    const text = buf.toString('utf8');
    if (text.trim() === '') return {};
    let v: unknown;
    try {
        v = JSON.parse(text);
    } catch (err) {
        throw badRequest(`invalid JSON in ${what}: ${(err as Error).message}`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`invalid ${what}: expected a JSON object`);
    return v as Record<string, unknown>;
}

/** The body as any JSON value; an empty body is `undefined`. */
export function jsonBody(req: FastifyRequest, what = 'request body'): unknown {
    const buf = rawBody(req);
    const text = buf.toString('utf8');
    if (text.trim() === '') return undefined;
    try {
        return JSON.parse(text);
    } catch (err) {
        throw badRequest(`invalid JSON in ${what}: ${(err as Error).message}`);
    }
}

/** One query-string parameter as a string (the first when repeated). */
export function queryParam(req: FastifyRequest, name: string): string | undefined {
    const q = req.query as Record<string, string | string[] | undefined> | undefined;
    const v = q?.[name];
    if (Array.isArray(v)) return v[0];
    return v;
}

/** One header as a string (joined when repeated); `undefined` when absent. */
export function header(req: FastifyRequest, name: string): string | undefined {
    const v = req.headers[name.toLowerCase()];
    if (Array.isArray(v)) return v.join(',');
    return v;
}
