/**
 * Request bodies. Every content type is read as a raw Buffer (see app.ts): ingest needs the exact
 * bytes (compressed or not), and the JSON routes parse here, so that an empty body with
 * `Content-Type: application/json` (js sends that header on bodiless requests) is not an error.
 */
import { errorCodes, type FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';
import { paddedBody, PADDED_BODY_MIN } from '../ingest/padded-body.js';

/**
 * The body parser of every content type: the raw bytes, as fastify's `parseAs: 'buffer'` reads
 * them (the route's body limit, the same errors), except that a body whose Content-Length is
 * known and large is copied from the socket's chunks once, into memory of its own with the ingest
 * scanner's padding after it (padded-body.ts): the ingest pool then hands it to a worker without
 * copying it again. fastify joins the chunks into a new Buffer, which the pool had to copy.
 */
export function readRawBody(req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: Buffer) => void): void {
    const limit = req.routeOptions.bodyLimit ?? Infinity;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
        done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
    }
    let received = 0;
    let into = Number.isSafeInteger(declared) && declared >= PADDED_BODY_MIN ? paddedBody(declared) : undefined;
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer | string): void => {
        const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if (received + b.length > limit) {
            off();
            done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
            return;
        }
        if (into !== undefined && received + b.length <= into.length) b.copy(into, received);
        else {
            // More than declared (answered 400 below): gathered as chunks, as fastify does.
            if (into !== undefined) chunks.push(Buffer.from(into.subarray(0, received)));
            into = undefined;
            chunks.push(b);
        }
        received += b.length;
    };
    const onEnd = (err?: Error & { statusCode?: number }): void => {
        off();
        if (err) {
            if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
            done(err);
            return;
        }
        if (!Number.isNaN(declared) && received !== declared) {
            done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
            return;
        }
        // Always a copy of the chunks: they may be views of the socket's read buffer.
        done(null, into ?? Buffer.concat(chunks, received));
    };
    const off = (): void => {
        payload.removeListener('data', onData);
        payload.removeListener('end', onEnd);
        payload.removeListener('error', onEnd);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
}

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
