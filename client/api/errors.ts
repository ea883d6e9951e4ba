/**
 * A failed call: an HTTP status >= 400 with the service's `message`, or (status 0) a request that
 * never got a response (connection refused, DNS, timeout, aborted).
 */
export class AplApiError extends Error {
    override readonly name = 'AplApiError';
    constructor(
        /** HTTP status; 0 when no response arrived. */
        readonly status: number,
        message: string,
        readonly method: string = '',
        readonly url: string = '',
        /** `X-Axiom-Trace-Id`, when the service sent one. */
        readonly traceId?: string,
        /** The raw error body (parsed JSON when it was JSON). */
        readonly body?: unknown,
    ) {
        super(message);
    }

    get isNotFound(): boolean {
        return this.status === 404;
    }
    get isUnauthenticated(): boolean {
        return this.status === 401;
    }
    get isRateLimited(): boolean {
        return this.status === 429 || this.status === 430;
    }
    /** No response at all (refused, unreachable, timed out). */
    get isNetworkError(): boolean {
        return this.status === 0;
    }
}

/** Where in the query text a service error points: 1-based line and column, and the message without the position. */
export interface QueryErrorLocation {
    line: number;
    column: number;
    message: string;
}

/** Finds `(line N, column M)` / `line N, column M` / `line N:M` in a service message. */
export function positionInMessage(message: string): { line: number; column: number } | undefined {
    const m = /line (\d+),? (?:column|col) (\d+)/i.exec(message) ?? /line (\d+):(\d+)/i.exec(message);
    return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined;
}

/**
 * The position a 400 answer to a query names: the `detail` object of the edge query API
 * (`{ line, column, message }`), else a position written in the message.
 */
export function queryErrorLocation(e: unknown): QueryErrorLocation | undefined {
    if (!(e instanceof AplApiError) || e.status !== 400) return undefined;
    const detail = (e.body as { detail?: { line?: unknown; column?: unknown; message?: unknown } } | undefined)?.detail;
    if (detail && typeof detail.line === 'number' && typeof detail.column === 'number') {
        return { line: detail.line, column: detail.column, message: typeof detail.message === 'string' ? detail.message : e.message };
    }
    const at = positionInMessage(e.message);
    return at ? { ...at, message: e.message.replace(/\s*\(?line \d+(,? (column|col) \d+|:\d+)\)?\s*$/i, '') } : undefined;
}
