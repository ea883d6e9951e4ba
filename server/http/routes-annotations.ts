/**
 * Annotations (Axiom API v2 `/v2/annotations`, as @axiomhq/js 2.x `annotations.Service`, axiom-go
 * `Annotations` and `axiom annotation …` call it): marks on a dataset's timeline such as a deploy.
 *
 * - `POST /v2/annotations` → 201 with the annotation (`id` is `ann_…`); `type` and `datasets` are
 *   required, `time` defaults to now.
 * - `GET /v2/annotations[?datasets=a,b&start=…&end=…]` → 200, oldest first; `datasets` may also be
 *   repeated (go sends `datasets=a&datasets=b`, js and the docs `datasets=a,b`).
 * - `GET|PUT|DELETE /v2/annotations/{id}` → 200 / 200 (only the keys sent change) / 204.
 *
 * Field rules are those of the API reference (`type` lowercase letters, digits and `-`, at most
 * 256; `title` 256; `description` and `url` 512). The datasets must exist. When a dataset is
 * deleted it is dropped from every annotation's list, so that a new dataset of the same name does
 * not inherit old marks; an annotation left with no dataset is kept (`datasets: []`): it can still
 * be read and deleted (axiom-go's own suite deletes the datasets before the annotation).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatDatetime, parseDatetime } from '../../language/index.js';
import { nowNs } from '../ingest/ingest.js';
import type { JsonCollection } from '../store/json-collection.js';
import type { Annotation } from '../../language/api/index.js';
import { requireScope } from './auth.js';
import { jsonObjectBody } from './body.js';
import { fieldError, optString, optStringList, shownValue } from './body-fields.js';
import type { DataPlane } from './data-plane.js';
import { badRequest, HttpError } from './errors.js';
import { parseRequestTime } from './paging.js';

export type AnnotationStore = JsonCollection<Annotation>;

export interface AnnotationRouteOptions {
    data: DataPlane;
    annotations: AnnotationStore;
}

/** Writes need a token that may do everything (as dataset changes do); bodies are small. */
const ROUTE_LIMITS = { bodyLimit: 1024 * 1024 };

function annotationNotFound(id: string): HttpError {
    return new HttpError(404, `annotation ${JSON.stringify(id)} not found`);
}

function checkType(type: string): string {
    if (!/^[a-z0-9-]{1,256}$/.test(type)) throw badRequest(`invalid type: expected 1-256 lowercase letters, digits or "-" (such as "production-deployment"), got ${shownValue(type)}`);
    return type;
}

/** The datasets list: at least one, each an existing dataset; duplicates dropped. */
function checkDatasets(body: Record<string, unknown>, data: DataPlane): string[] | undefined {
    const list = optStringList(body, 'datasets', (name, i) => {
        if (!data.hasDataset(name)) throw badRequest(`invalid datasets[${i}]: dataset ${shownValue(name)} not found`);
    });
    if (list === undefined) return undefined;
    if (list.length === 0) throw fieldError('datasets', 'at least one dataset name', list);
    return [...new Set(list)];
}

/** An RFC 3339 time (or `now`, `now-1h`…) as stored: RFC 3339 UTC. */
function optTime(body: Record<string, unknown>, key: string, now: bigint): string | undefined {
    const ns = parseRequestTime(body[key], key, now);
    return ns === undefined ? undefined : formatDatetime(ns);
}

function checkTimes(a: Annotation): void {
    if (a.endTime !== undefined && ns(a.endTime) < ns(a.time)) {
        throw badRequest(`invalid endTime: ${a.endTime} is before time ${a.time}`);
    }
}

/** The optional text fields, with the reference's length limits. */
function texts(body: Record<string, unknown>): Pick<Annotation, 'title' | 'description' | 'url'> {
    return { title: optString(body, 'title', 256), description: optString(body, 'description', 512), url: optString(body, 'url', 512) };
}

/** Drops undefined keys, so unset fields are absent from the stored record and the reply. */
function compact(a: Annotation): Annotation {
    return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as unknown as Annotation;
}

export function createAnnotation(body: Record<string, unknown>, data: DataPlane, now: bigint): Annotation {
    const type = optString(body, 'type');
    if (type === undefined) throw badRequest('invalid annotation: "type" is required (such as "deploy")');
    const datasets = checkDatasets(body, data);
    if (datasets === undefined) throw badRequest('invalid annotation: "datasets" is required (the names of the datasets it marks)');
    const a: Annotation = compact({
        id: `ann_${randomBytes(8).toString('hex')}`,
        type: checkType(type),
        datasets,
        time: optTime(body, 'time', now) ?? formatDatetime(now),
        endTime: optTime(body, 'endTime', now),
        ...texts(body),
    });
    checkTimes(a);
    return a;
}

/** PUT: only the keys sent change; `endTime: null` removes the end. */
export function updateAnnotation(old: Annotation, body: Record<string, unknown>, data: DataPlane, now: bigint): Annotation {
    const type = optString(body, 'type');
    const next: Annotation = { ...old };
    if (type !== undefined) next.type = checkType(type);
    next.datasets = checkDatasets(body, data) ?? old.datasets;
    next.time = optTime(body, 'time', now) ?? old.time;
    if (body.endTime === null) delete next.endTime;
    else next.endTime = optTime(body, 'endTime', now) ?? old.endTime;
    for (const [k, v] of Object.entries(texts(body))) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
    const a = compact(next);
    checkTimes(a);
    return a;
}

/** `?datasets=a,b` or `?datasets=a&datasets=b` (or both). */
function datasetsFilter(req: FastifyRequest): Set<string> | undefined {
    const raw = (req.query as Record<string, string | string[] | undefined>).datasets;
    if (raw === undefined) return undefined;
    const names = (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    return names.length > 0 ? new Set(names) : undefined;
}

/** One query parameter (go repeats `start`, its End filter having the same tag: the first one wins). */
function firstParam(req: FastifyRequest, key: string): string | undefined {
    const v = (req.query as Record<string, string | string[] | undefined>)[key];
    return Array.isArray(v) ? v[0] : v;
}

/** List: annotations that mark one of the datasets and overlap [start, end]; oldest first. */
export function listAnnotations(all: Annotation[], filter: { datasets?: Set<string>; startNs?: bigint; endNs?: bigint }): Annotation[] {
    const out = all.filter((a) => {
        if (filter.datasets && !a.datasets.some((d) => filter.datasets!.has(d))) return false;
        if (filter.endNs !== undefined && ns(a.time) > filter.endNs) return false;
        if (filter.startNs !== undefined && ns(a.endTime ?? a.time) < filter.startNs) return false;
        return true;
    });
    return out.sort((x, y) => (ns(x.time) < ns(y.time) ? -1 : ns(x.time) > ns(y.time) ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/** A stored time (RFC 3339 UTC, written by formatDatetime) as ns. */
function ns(t: string): bigint {
    return parseDatetime(t) ?? 0n;
}

/** Drops a deleted dataset from every annotation that names it. */
export function detachDataset(annotations: AnnotationStore, name: string): Promise<number> {
    return annotations.updateWhere((a) => (a.datasets.includes(name) ? { ...a, datasets: a.datasets.filter((d) => d !== name) } : undefined));
}

/** At start: drops datasets that no longer exist (a crash between a dataset's deletion and the detach). */
export function reconcileAnnotations(annotations: AnnotationStore, exists: (name: string) => boolean): Promise<number> {
    return annotations.updateWhere((a) => (a.datasets.every(exists) ? undefined : { ...a, datasets: a.datasets.filter(exists) }));
}

export function registerAnnotationRoutes(app: FastifyInstance, opts: AnnotationRouteOptions): void {
    const { data, annotations } = opts;
    const id = (req: FastifyRequest) => (req.params as { id: string }).id;

    app.get('/v2/annotations', async (req) => {
        const now = nowNs();
        const startNs = parseRequestTime(firstParam(req, 'start'), 'start', now);
        const endNs = parseRequestTime(firstParam(req, 'end'), 'end', now);
        return listAnnotations(annotations.list(), { datasets: datasetsFilter(req), startNs, endNs });
    });

    app.post('/v2/annotations', ROUTE_LIMITS, async (req, reply: FastifyReply) => {
        requireScope(req, 'admin');
        const a = createAnnotation(jsonObjectBody(req, 'annotation'), data, nowNs());
        return reply.code(201).send(await annotations.put(a));
    });

    app.get('/v2/annotations/:id', async (req) => {
        const a = annotations.get(id(req));
        if (!a) throw annotationNotFound(id(req));
        return a;
    });

    app.put('/v2/annotations/:id', ROUTE_LIMITS, async (req) => {
        requireScope(req, 'admin');
        const body = jsonObjectBody(req, 'annotation');
        const now = nowNs();
        const a = await annotations.update(id(req), (old) => updateAnnotation(old, body, data, now));
        if (!a) throw annotationNotFound(id(req));
        return a;
    });

    app.delete('/v2/annotations/:id', async (req, reply: FastifyReply) => {
        requireScope(req, 'admin');
        if (!(await annotations.delete(id(req)))) throw annotationNotFound(id(req));
        return reply.code(204).send();
    });
}
