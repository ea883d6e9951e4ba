/**
 * Error replies (API.md §9): always `{"message": …}` with `Content-Type: application/json`, and a
 * 4xx for every deterministic problem (clients retry 5xx, go for up to 10 s). Typed errors from the
 * store, the ingest decoder, the evaluator and the legacy parser are mapped to their status here.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AplQueryError, IngestError, LegacyQueryError } from '../../language/index.js';
import { IngestWorkerDied } from '../ingest/prepare-pool.js';
import { diskFullError, readOnlyError, StoreError } from '../store/errors.js';
import { isDiskFull, isReadOnly } from '../store/fsutil.js';

export class HttpError extends Error {
    override readonly name = 'HttpError';
    constructor(
        readonly status: number,
        message: string,
        /** Extra keys of the error body (e.g. the APL error `detail`). */
        readonly extra?: Record<string, unknown>,
    ) {
        super(message);
    }
}

export const badRequest = (msg: string, extra?: Record<string, unknown>): HttpError => new HttpError(400, msg, extra);
export const notFound = (msg: string): HttpError => new HttpError(404, msg);

/** A dataset that does not exist: 404, message contains "not found" (js matches /not found/i). */
export function datasetNotFound(name: string): HttpError {
    return new HttpError(404, `dataset "${name}" not found`);
}

export interface ErrorBody {
    message: string;
    code: number;
    [k: string]: unknown;
}

/** How much of one piece of request content (a name, a value, a path) an error message repeats. */
export const MAX_ECHO_CHARS = 200;
/** A backstop for a whole message made of many short pieces. */
const MAX_MESSAGE_CHARS = 2_000;

/**
 * Shortens what a message echoes from the request: a quoted piece or a run without spaces longer
 * than MAX_ECHO_CHARS keeps its first MAX_ECHO_CHARS characters and an ellipsis, and the whole
 * message is cut at MAX_MESSAGE_CHARS. A 100 KB identifier or path must not come back whole in
 * every error (log lines, terminals, and clients that show the message).
 */
export function capEcho(text: string): string {
    if (text.length <= MAX_ECHO_CHARS) return text;
    const cut = (piece: string) => `${piece.slice(0, MAX_ECHO_CHARS)}…`;
    let out = text
        .replace(/'([^']{201,})'|"([^"]{201,})"/g, (m: string, single?: string, double?: string) => (single !== undefined ? `'${cut(single)}'` : `"${cut(double ?? m)}"`))
        .replace(/[^\s'"\u2026]{201,}/g, cut);
    if (out.length > MAX_MESSAGE_CHARS) out = `${out.slice(0, MAX_MESSAGE_CHARS)}…`;
    return out;
}

/** capEcho on every string of an error body (message, detail.message, diagnostics, suggestions). */
function capBody<T>(v: T, depth = 0): T {
    if (typeof v === 'string') return capEcho(v) as T;
    if (depth > 4 || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.slice(0, 100).map((x: unknown) => capBody(x, depth + 1)) as T;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, capBody(x, depth + 1)])) as T;
}

/** Maps anything thrown by a handler to a status and a JSON body, its echoes of the request capped (capEcho). */
export function toErrorReply(err: unknown): { status: number; body: ErrorBody } {
    const { status, body } = errorReply(err);
    return { status, body: capBody(body) };
}

function errorReply(err: unknown): { status: number; body: ErrorBody } {
    if (err instanceof HttpError) return { status: err.status, body: { ...err.extra, code: err.status, message: err.message } };
    if (err instanceof IngestError || err instanceof StoreError || err instanceof IngestWorkerDied) {
        return { status: err.status, body: { code: err.status, message: err.message } };
    }
    // A full disk anywhere (a dataset's metadata, a trim) is 507 and says so, not "internal error".
    if (isDiskFull(err)) return errorReply(diskFullError('writing to the data directory', err));
    if (isReadOnly(err)) return errorReply(readOnlyError('writing to the data directory', err));
    if (err instanceof AplQueryError) return { status: 400, body: aplErrorBody(err) };
    if (err instanceof LegacyQueryError) return { status: 400, body: { code: 400, message: `invalid query: ${err.message}` } };
    const fe = err as Partial<FastifyError> & { status?: number };
    if (fe && typeof fe === 'object') {
        // fastify's own errors: body too large, bad content type, JSON syntax, route schema …
        const sc = typeof fe.statusCode === 'number' ? fe.statusCode : typeof fe.status === 'number' ? fe.status : undefined;
        if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, body: { code: 413, message: 'request body too large' } };
        if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
            return { status: 415, body: { code: 415, message: `unsupported Content-Type: ${fe.message ?? ''}`.trim() } };
        }
        if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return { status: 400, body: { code: 400, message: 'request body is empty: a JSON object is required' } };
        if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
            return { status: 400, body: { code: 400, message: `invalid JSON body: ${fe.message ?? ''}` } };
        }
        if (sc !== undefined && sc >= 400 && sc < 500) return { status: sc, body: { code: sc, message: fe.message || 'bad request' } };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { status: 500, body: { code: 500, message: `internal error: ${message}` } };
}

/** The APL compile error shape of docs `v1-edge-query.json` `QueryError`: `message` plus `detail`. */
export function aplErrorBody(err: AplQueryError): ErrorBody {
    // A query stopped from outside has no place in the text to point at.
    if (err.kind === 'timeout' || err.kind === 'cancelled') {
        return { code: 400, message: `query ${err.kind === 'timeout' ? 'timeout' : 'cancelled'}: ${err.detail}`, detail: { errorType: err.kind, message: err.detail } };
    }
    const kind = err.kind === 'syntax' ? 'syntax' : err.kind === 'runtime' ? 'runtime' : err.kind === 'limit' ? 'limit' : 'semantic';
    return queryErrorBody(kind, err.detail, err.line, err.column);
}

/** The body of a query refused at a place in its text (1-based); `extra` adds to `detail` (the checker's `code`). */
export function queryErrorBody(kind: 'syntax' | 'semantic' | 'runtime' | 'limit', message: string, line: number, column: number, extra?: Record<string, unknown>): ErrorBody {
    return {
        code: 400,
        message: `invalid query: ${kind === 'syntax' && !/^syntax error/i.test(message) ? 'syntax error: ' : ''}${message} (line ${line}, column ${column})`,
        detail: { errorType: kind, compileErrorCode: kind === 'syntax' ? 'syntax_error' : kind === 'limit' ? 'limit_exceeded' : 'semantic_error', ...extra, line, column, message },
    };
}

export function sendError(reply: FastifyReply, err: unknown, log?: (msg: string) => void): FastifyReply {
    const { status, body } = toErrorReply(err);
    if (status >= 500 && log) log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export function installErrorHandlers(app: FastifyInstance, log: (msg: string) => void): void {
    app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
        // A route with a body limit of its own says what it is (routes-query.ts).
        const tooLarge = (req.routeOptions.config as { tooLarge?: unknown } | undefined)?.tooLarge;
        const large = (err as Partial<FastifyError>).code === 'FST_ERR_CTP_BODY_TOO_LARGE' && typeof tooLarge === 'string';
        sendError(reply, large ? new HttpError(413, tooLarge) : err, log);
    });
    app.setNotFoundHandler((req, reply) => {
        const path = req.url.split('?', 1)[0];
        reply.code(404).type('application/json; charset=utf-8').send({ code: 404, message: capEcho(`route ${req.method} ${path} not found`) });
    });
}
