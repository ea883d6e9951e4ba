/** An NDJSON ingest request with no other headers or parameters (the pool's and the worker's tests). */
import type { IngestRequest } from '../../../server/ingest/ingest.js';

export function ndjsonRequest(body: Buffer | string): IngestRequest {
    return {
        body: typeof body === 'string' ? Buffer.from(body) : body,
        contentType: 'application/x-ndjson',
        contentEncoding: null,
        timestampField: null,
        timestampFormat: null,
        csvDelimiter: null,
        csvFields: null,
        eventLabels: null,
    };
}
