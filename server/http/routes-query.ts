/**
 * Queries (API.md §4, §5, §10):
 * - APL: `POST /v1/datasets/_apl?format=tabular|legacy` and the edge form `POST /v1/query/_apl`.
 *   A missing `format` means legacy (docs). `startTime`/`endTime` are RFC 3339 or `now-1h`…;
 *   the cursor comes from the body (go, rs) or the URL (`?cursor=`, js).
 * - Legacy: `POST /v1/datasets/{id}/query` with the legacy query JSON (go's zero values mean
 *   defaults: `limit: 0` → 1,000, an empty filter op → no filter).
 * - An APL text longer than 256 KiB is a 413 before it is parsed (docs/service.md "Limits").
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { nowNs } from '../ingest/ingest.js';
import { requireScope } from './auth.js';
import { jsonBody, jsonObjectBody, queryParam, rawBody } from './body.js';
import type { DataPlane } from './data-plane.js';
import { badRequest, HttpError } from './errors.js';
import { DEFAULT_MAX_QUERY_LENGTH } from '../../language/index.js';
import { parseBool, parseCursorParam, parseLimit, parseTimeRange } from './paging.js';

export interface QueryRouteOptions {
    data: DataPlane;
    maxResultRows: number;
    /** Longest APL text accepted (413 above it). Default DEFAULT_MAX_QUERY_LENGTH (256 KiB). */
    maxQueryLength?: number;
}

export type AplFormat = 'tabular' | 'legacy';

function parseFormat(raw: string | undefined): AplFormat {
    if (raw === undefined || raw === '') return 'legacy';
    const f = raw.trim().toLowerCase();
    if (f === 'tabular' || f === 'legacy') return f;
    throw badRequest(`invalid format ${JSON.stringify(raw)}: use "tabular" or "legacy"`);
}

function historyHeader(req: FastifyRequest, reply: FastifyReply): void {
    const kind = queryParam(req, 'saveAsKind');
    if (kind) reply.header('X-Axiom-History-Query-Id', randomBytes(8).toString('hex'));
}

export function registerQueryRoutes(app: FastifyInstance, opts: QueryRouteOptions): void {
    const { data } = opts;
    const maxQueryLength = opts.maxQueryLength ?? DEFAULT_MAX_QUERY_LENGTH;

    const apl = async (req: FastifyRequest, reply: FastifyReply) => {
        requireScope(req, 'query');
        const format = parseFormat(queryParam(req, 'format'));
        const body = jsonObjectBody(req, 'APL query request');
        const text = body.apl;
        if (typeof text !== 'string' || text.trim() === '') throw badRequest('invalid APL query request: "apl" is required (the query text)');
        if (text.length > maxQueryLength) {
            throw new HttpError(413, `the APL query is too long: ${text.length.toLocaleString('en-US')} characters, the limit is ${maxQueryLength.toLocaleString('en-US')}`);
        }
        const now = nowNs();
        const range = parseTimeRange(body, now);
        // The cursor: body (go, rs) wins over the URL (js).
        const cursor = parseCursorParam(body.cursor, 'cursor') ?? parseCursorParam(queryParam(req, 'cursor'), 'cursor');
        const includeCursor = parseBool(body.includeCursor, 'includeCursor') ?? parseBool(queryParam(req, 'includeCursor'), 'includeCursor') ?? false;
        const includeCursorField = parseBool(body.includeCursorField, 'includeCursorField') ?? false;
        const limit = parseLimit(body.limit);
        const variables = body.variables;
        if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
            throw badRequest('invalid variables: expected a JSON object of name → value');
        }
        parseBool(queryParam(req, 'nocache'), 'nocache');
        historyHeader(req, reply);
        // Which datasets a query reads is only known once it is analysed (wildcards, union, let):
        // wait for every start-up load, so a query never sees a dataset missing or partly loaded.
        await data.allLoaded();
        const json = await data.explainUnknownDataset(() => data.engine.queryApl(text, {
            format,
            now,
            startNs: range.startNs,
            endNs: range.endNs,
            cursor,
            includeCursor,
            includeCursorField,
            limit,
            variables: (variables ?? undefined) as Record<string, unknown> | undefined,
            missing: data.store.missingData(),
        }, clientGone(reply)));
        return sendJson(reply, json);
    };
    app.post('/v1/datasets/_apl', apl);
    app.post('/v1/query/_apl', apl);

    app.post('/v1/datasets/:id/query', async (req: FastifyRequest, reply: FastifyReply) => {
        requireScope(req, 'query');
        const name = (req.params as { id: string }).id;
        await data.loadedDataset(name); // 404, or 423 for a dataset whose files cannot be read
        // Parsed here for a 400 that names the problem; the worker gets the text (engine-adapter.ts).
        const body = jsonBody(req, 'legacy query');
        if (body === undefined) throw badRequest('invalid legacy query: the body must be a JSON object with startTime and endTime');
        parseBool(queryParam(req, 'nocache'), 'nocache');
        historyHeader(req, reply);
        return sendJson(reply, await data.engine.queryLegacy(name, rawBody(req).toString('utf8'), { now: nowNs(), missing: data.store.missingData() }, clientGone(reply)));
    });
}

/** Aborts when the client goes away before the reply is sent: its query is cancelled (server/query). */
function clientGone(reply: FastifyReply): AbortSignal {
    const ac = new AbortController();
    const res = reply.raw;
    res.once('close', () => {
        if (!res.writableFinished) ac.abort();
    });
    return ac.signal;
}

/** The engine serialised the result (off the main thread when it ran on a worker): send it as it is. */
function sendJson(reply: FastifyReply, json: string): FastifyReply {
    return reply.type('application/json; charset=utf-8').send(json);
}
