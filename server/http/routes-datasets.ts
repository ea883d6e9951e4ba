/**
 * Datasets (API.md §7, E4–E11) on both `/v2/datasets` and `/v1/datasets`: list, create, get,
 * update, delete (204), trim, fields, map fields; plus `GET /v1/datasets/_fields` (every dataset's
 * fields, keyed by dataset name: what a live SchemaProvider reads).
 *
 * Every endpoint of one dataset waits for that dataset's start-up load (data-plane.ts), so fields,
 * counts and a 423 for a damaged block are exact; the lists answer from metadata at once.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatDatetime, parseGoDuration } from '../../language/index.js';
import type { DatasetMeta } from '../store/store.js';
import { validateDatasetName } from '../store/errors.js';
import { requireScope } from './auth.js';
import { jsonBody, jsonObjectBody } from './body.js';
import { optBool, optString } from './body-fields.js';
import type { DataPlane } from './data-plane.js';
import { badRequest, HttpError } from './errors.js';

export interface DatasetRouteOptions {
    data: DataPlane;
    /** `who` for new datasets: the id of the local user. */
    userId: string;
}

/** The dataset object of API.md §7.1 (only keys go's strict decoder knows). */
export function datasetObject(m: DatasetMeta): Record<string, unknown> {
    return {
        id: m.name,
        name: m.name,
        kind: m.kind || 'axiom:events:v1',
        description: m.description,
        who: m.who,
        created: m.created,
        updatedAt: m.updatedAt,
        canWrite: true,
        useRetentionPeriod: m.useRetentionPeriod,
        retentionDays: m.retentionDays,
        mapFields: m.mapFields.length ? [...m.mapFields] : null,
        edgeDeployment: 'local',
    };
}

function optDays(body: Record<string, unknown>, key: string): number | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badRequest(`invalid ${key}: expected a non-negative integer, got ${JSON.stringify(v)}`);
    return v;
}

const KINDS = new Set(['axiom:events:v1', 'otel:logs:v1', 'otel:traces:v1', 'otel:metrics:v1']);

/** Map field names: like field names, no `__` wrapping (the go suite expects `__invalid__` to fail). */
function validateMapFieldName(name: unknown): string {
    if (typeof name !== 'string' || name === '' || name.length > 200 || /^__.*__$/.test(name) || name.startsWith('_')) {
        throw badRequest(`invalid map field name ${JSON.stringify(name)}: use 1-200 characters, not starting with "_"`);
    }
    return name;
}

function param(req: FastifyRequest, key: string): string {
    return (req.params as Record<string, string>)[key];
}

export function registerDatasetRoutes(app: FastifyInstance, opts: DatasetRouteOptions): void {
    const { data } = opts;

    for (const v of ['v1', 'v2'] as const) {
        const base = `/${v}/datasets`;

        app.get(base, async () => data.listDatasets().map(datasetObject));

        app.post(base, async (req) => {
            requireScope(req, 'admin');
            const body = jsonObjectBody(req);
            const name = body.name;
            if (name === undefined || name === null || name === '') throw badRequest('invalid dataset: "name" is required');
            validateDatasetName(name); // the project's naming rule (language/dataset-name.ts) → 400
            const kind = optString(body, 'kind');
            if (kind !== undefined && kind !== '' && !KINDS.has(kind)) {
                throw badRequest(`invalid kind "${kind}": use one of ${[...KINDS].join(', ')}`);
            }
            const mapFields = body.mapFields;
            if (mapFields !== undefined && mapFields !== null && (!Array.isArray(mapFields) || mapFields.some((f) => typeof f !== 'string'))) {
                throw badRequest('invalid mapFields: expected an array of field names');
            }
            const meta = await data.createDataset({
                name,
                description: optString(body, 'description') ?? '',
                kind: kind || undefined,
                who: opts.userId,
                retentionDays: optDays(body, 'retentionDays'),
                useRetentionPeriod: optBool(body, 'useRetentionPeriod'),
                mapFields: Array.isArray(mapFields) ? (mapFields as string[]).map(validateMapFieldName) : undefined,
            });
            return datasetObject(meta);
        });

        // `_fields` before `:id`: find-my-way matches static segments first anyway.
        app.get(`${base}/_fields`, async () => {
            await data.allLoaded();
            const out: Record<string, unknown[]> = {};
            for (const m of data.listDatasets()) out[m.name] = data.engine.fields(m.name);
            return out;
        });

        // The dataset object has no room for a storage status (go decodes it strictly): a header says it.
        app.get(`${base}/:id`, async (req, reply: FastifyReply) => {
            const m = await data.loadedDataset(param(req, 'id'));
            const health = await data.store.health(m.name);
            reply.header('X-Apl-Storage-Status', health.status);
            return datasetObject(m);
        });

        app.get(`${base}/:id/info`, async (req, reply: FastifyReply) => {
            const m = await data.loadedDataset(param(req, 'id'));
            const stats = await data.store.stats(m.name);
            const health = await data.store.health(m.name);
            reply.header('X-Apl-Storage-Status', health.status);
            return {
                name: m.name,
                numBlocks: stats.blocks,
                numEvents: stats.events,
                numFields: data.engine.fields(m.name).length,
                inputBytes: stats.bytesOnDisk,
                compressedBytes: stats.bytesOnDisk,
                minTime: stats.minTime === null ? '0001-01-01T00:00:00Z' : formatDatetime(stats.minTime),
                maxTime: stats.maxTime === null ? '0001-01-01T00:00:00Z' : formatDatetime(stats.maxTime),
                fields: data.engine.fields(m.name),
                who: m.who,
                created: m.created,
                // Ours (not in Axiom's info): damage found and kept aside, see server/store/FORMAT.md.
                storage: health,
            };
        });

        app.put(`${base}/:id`, async (req) => {
            requireScope(req, 'admin');
            const name = param(req, 'id');
            data.getDataset(name);
            const body = jsonObjectBody(req);
            const meta = await data.updateDataset(name, {
                description: optString(body, 'description'),
                retentionDays: optDays(body, 'retentionDays'),
                useRetentionPeriod: optBool(body, 'useRetentionPeriod'),
            });
            return datasetObject(meta);
        });

        app.delete(`${base}/:id`, async (req, reply: FastifyReply) => {
            requireScope(req, 'admin');
            await data.deleteDataset(param(req, 'id'));
            return reply.code(204).send();
        });

        app.post(`${base}/:id/trim`, async (req, reply: FastifyReply) => {
            requireScope(req, 'admin');
            const name = param(req, 'id');
            data.getDataset(name);
            const body = jsonObjectBody(req);
            const raw = body.maxDuration;
            if (typeof raw !== 'string' || raw.trim() === '') throw badRequest('invalid trim request: "maxDuration" is required (a duration such as "1h")');
            const ns = parseGoDuration(raw);
            if (ns === undefined || ns < 0n) throw badRequest(`invalid maxDuration ${JSON.stringify(raw)}: expected a duration such as "1h" or "30m"`);
            await data.trim(name, ns);
            return reply.code(204).send();
        });

        app.get(`${base}/:id/fields`, async (req) => {
            const m = await data.loadedDataset(param(req, 'id'));
            return data.engine.fields(m.name);
        });

        app.get(`${base}/:id/fields/:field`, async (req) => {
            const m = await data.loadedDataset(param(req, 'id'));
            const f = data.engine.fields(m.name).find((x) => x.name === param(req, 'field'));
            if (!f) throw new HttpError(404, `field "${param(req, 'field')}" not found in dataset "${m.name}"`);
            return f;
        });

        // ---- map fields (E11)
        app.get(`${base}/:id/mapfields`, async (req) => (await data.loadedDataset(param(req, 'id'))).mapFields);

        app.post(`${base}/:id/mapfields`, async (req) => {
            requireScope(req, 'admin');
            const m = await data.loadedDataset(param(req, 'id'));
            const field = validateMapFieldName(jsonObjectBody(req).name);
            if (m.mapFields.includes(field)) throw new HttpError(409, `map field "${field}" already exists in dataset "${m.name}"`);
            await data.updateDataset(m.name, { mapFields: [...m.mapFields, field] });
            return { name: field };
        });

        app.put(`${base}/:id/mapfields`, async (req) => {
            requireScope(req, 'admin');
            const m = await data.loadedDataset(param(req, 'id'));
            const body = jsonBody(req);
            if (!Array.isArray(body)) throw badRequest('invalid map fields: expected a JSON array of field names');
            const fields = body.map(validateMapFieldName);
            const dup = fields.find((f, i) => fields.indexOf(f) !== i);
            if (dup !== undefined) throw badRequest(`duplicate map field "${dup}"`);
            return (await data.updateDataset(m.name, { mapFields: fields })).mapFields;
        });

        app.delete(`${base}/:id/mapfields/:field`, async (req, reply: FastifyReply) => {
            requireScope(req, 'admin');
            const m = await data.loadedDataset(param(req, 'id'));
            const field = param(req, 'field');
            if (!m.mapFields.includes(field)) throw new HttpError(404, `map field "${field}" not found in dataset "${m.name}"`);
            await data.updateDataset(m.name, { mapFields: m.mapFields.filter((f) => f !== field) });
            return reply.code(204).send();
        });
    }
}

