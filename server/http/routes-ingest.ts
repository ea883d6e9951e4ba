/**
 * Ingest (API.md §3, E1): `POST /v1/datasets/{id}/ingest` and the edge form `POST /v1/ingest/{id}`.
 * The body arrives as raw bytes (app.ts registers buffer parsers for every content type); decoding
 * (gzip/zstd/identity, bounded after decompression), parsing (JSON array, NDJSON — also sniffed
 * under application/json —, CSV) and normalisation live in server/ingest.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScope } from './auth.js';
import { header, queryParam, rawBody } from './body.js';
import type { DataPlane } from './data-plane.js';

export function registerIngestRoutes(app: FastifyInstance, data: DataPlane): void {
    const handler = async (req: FastifyRequest) => {
        requireScope(req, 'ingest');
        const name = (req.params as { id: string }).id;
        return data.ingest(name, {
            body: rawBody(req),
            contentType: header(req, 'content-type') ?? null,
            contentEncoding: header(req, 'content-encoding') ?? null,
            timestampField: queryParam(req, 'timestamp-field') ?? null,
            timestampFormat: queryParam(req, 'timestamp-format') ?? null,
            csvDelimiter: queryParam(req, 'csv-delimiter') ?? null,
            csvFields: header(req, 'x-axiom-csv-fields') ?? null,
            eventLabels: header(req, 'x-axiom-event-labels') ?? null,
        });
    };
    app.post('/v1/datasets/:id/ingest', handler);
    app.post('/v1/ingest/:id', handler);
}
