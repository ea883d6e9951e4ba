/**
 * Typed error for everything that goes wrong while decoding an ingest request. `status` is the HTTP
 * status the service should answer with (API.md §9: deterministic errors are always 4xx).
 */
export class IngestError extends Error {
    override readonly name = 'IngestError';
    constructor(
        readonly status: 400 | 404 | 413 | 415,
        message: string,
    ) {
        super(message);
    }
}
