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
