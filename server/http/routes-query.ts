/**
 * Queries (API.md §4, §5, §10):
 * - APL: `POST /v1/datasets/_apl?format=tabular|legacy` and the edge form `POST /v1/query/_apl`.
 *   A missing `format` means legacy (docs). `startTime`/`endTime` are RFC 3339 or `now-1h`…;
 *   the cursor comes from the body (go, rs) or the URL (`?cursor=`, js).
 * - Legacy: `POST /v1/datasets/{id}/query` with the legacy query JSON (go's zero values mean
 *   defaults: `limit: 0` → 1,000, an empty filter op → no filter).
 * - An APL text longer than 256 KiB is a 413 before it is parsed (docs/service.md "Limits").
 * - `variables` is bounded (names and bytes, a 400 naming the limit), and so is the whole request
 *   (a 413 before it is read in full): its JSON is parsed on the main thread, where an unbounded
 *   body (the ingest bound, 64 MiB) stalled every other request while it was parsed and copied to
 *   a query worker.
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
import { startTrace } from '../start-trace.js';

export interface QueryRouteOptions {
    data: DataPlane;
    maxResultRows: number;
    /** Longest APL text accepted (413 above it). Default DEFAULT_MAX_QUERY_LENGTH (256 KiB). */
    maxQueryLength?: number;
}

/** Names in a query's `variables` at most. */
export const MAX_VARIABLES = 1000;
/** Bytes of `variables` as JSON at most. */
export const MAX_VARIABLES_BYTES = 1024 * 1024;
/** Bytes of an APL query request at most: its text (any character escaped, 6 bytes) and its variables, with room for the rest. */
export function maxAplRequestBytes(maxQueryLength: number): number {
    return Math.max(8 * 1024 * 1024, maxQueryLength * 6 + MAX_VARIABLES_BYTES + 65536);
}

/** `variables`: a JSON object of name → value, within MAX_VARIABLES names and MAX_VARIABLES_BYTES. */
function parseVariables(raw: unknown): Record<string, unknown> | undefined {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('invalid variables: expected a JSON object of name → value');
    const names = Object.keys(raw).length;
    if (names > MAX_VARIABLES) throw badRequest(`invalid variables: ${fmt(names)} names, the limit is ${fmt(MAX_VARIABLES)}`);
    // Bounded by the request's own limit, so this costs a few ms at most.
    const bytes = Buffer.byteLength(JSON.stringify(raw));
    if (bytes > MAX_VARIABLES_BYTES) throw badRequest(`invalid variables: ${fmt(bytes)} bytes of JSON, the limit is ${fmt(MAX_VARIABLES_BYTES)}`);
    return raw as Record<string, unknown>;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

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
        const variables = parseVariables(body.variables);
        parseBool(queryParam(req, 'nocache'), 'nocache');
        historyHeader(req, reply);
        // Which datasets a query reads is only known once it is analysed (wildcards, union, let):
        // wait until every dataset found at start can be read whole (from its files while it
        // loads, data-plane.ts), so a query never sees a dataset missing or partly loaded.
        startTrace('apl request');
        await data.allReadable();
        startTrace('all readable');
        const signal = clientGone(reply);
        const json = await data.explainUnknownDataset(() => data.whileLoading(() => data.engine.queryApl(text, {
            format,
            now,
            startNs: range.startNs,
            endNs: range.endNs,
            cursor,
            includeCursor,
            includeCursorField,
            limit,
            variables,
            missing: data.store.missingData(),
        }, signal)));
        startTrace('apl answered');
        return sendJson(reply, json);
    };
    const requestBytes = maxAplRequestBytes(maxQueryLength);
    const limits = {
        bodyLimit: requestBytes,
        config: {
            tooLarge: `the APL query request is too large: the limit is ${fmt(requestBytes)} bytes (the APL text at most ${fmt(maxQueryLength)} characters, variables at most ${fmt(MAX_VARIABLES_BYTES)} bytes of JSON)`,
        },
    };
    app.post('/v1/datasets/_apl', limits, apl);
    app.post('/v1/query/_apl', limits, apl);

    app.post('/v1/datasets/:id/query', async (req: FastifyRequest, reply: FastifyReply) => {
        requireScope(req, 'query');
        const name = (req.params as { id: string }).id;
        await data.readableDataset(name); // 404, or 423 for a dataset whose files cannot be read
        // Parsed here for a 400 that names the problem; the worker gets the text (engine-adapter.ts).
        const body = jsonBody(req, 'legacy query');
        if (body === undefined) throw badRequest('invalid legacy query: the body must be a JSON object with startTime and endTime');
        parseBool(queryParam(req, 'nocache'), 'nocache');
        historyHeader(req, reply);
        const signal = clientGone(reply);
        return sendJson(reply, await data.whileLoading(() => data.engine.queryLegacy(name, rawBody(req).toString('utf8'), { now: nowNs(), missing: data.store.missingData() }, signal)));
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
