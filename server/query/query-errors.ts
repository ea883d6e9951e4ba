/**
 * The query errors as the HTTP layer maps them (errors.ts), and their trip across a thread
 * boundary: a worker sends a `SerializedError`, the main thread rebuilds the same class, so a
 * query answers the same status and body wherever it ran.
 */
import { AplQueryError, isResourceError } from '../../language/index.js';
import { LegacyQueryError } from '../../language/index.js';
import { HttpError } from '../http/errors.js';
import type { SerializedError } from './protocol.js';

/**
 * Unknown datasets are 404 (message contains "not found"); other evaluator errors stay typed (400).
 * A JavaScript size failure the guards did not foresee is still this query's fault, not the
 * service's: 400, never a 5xx that clients would retry.
 */
export function mapQueryError(err: unknown): unknown {
    if (isResourceError(err)) return new HttpError(400, `invalid query: it is too large or too deeply nested to run (${err.message})`);
    if (err instanceof AplQueryError && /unknown (dataset|table)|dataset .* (does not exist|not found)/i.test(err.message)) {
        return new HttpError(404, `${err.detail} (line ${err.line}, column ${err.column}): not found`);
    }
    return err;
}

export function serializeError(err: unknown): SerializedError {
    if (err instanceof AplQueryError) return { type: 'apl', detail: err.detail, line: err.line, column: err.column, kind: err.kind };
    if (err instanceof HttpError) return { type: 'http', status: err.status, message: err.message, extra: err.extra };
    if (err instanceof LegacyQueryError) return { type: 'legacy', path: err.path, message: err.message.slice(err.path.length + 2) };
    return { type: 'error', message: err instanceof Error ? err.message : String(err) };
}

export function deserializeError(e: SerializedError): Error {
    switch (e.type) {
        case 'apl':
            return new AplQueryError(e.detail, e.line, e.column, e.kind as AplQueryError['kind']);
        case 'http':
            return new HttpError(e.status, e.message, e.extra);
        case 'legacy':
            return new LegacyQueryError(e.path, e.message);
        default:
            return new Error(e.message);
    }
}
