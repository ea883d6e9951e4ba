/**
 * Monitors (Axiom API v2 `/v2/monitors`, as @axiomhq/js 2.x `monitors.Service` and axiom-go
 * `Monitors` call it): stored, validated definitions. This service does not run them on a schedule
 * and sends no notifications; it keeps them so that code which manages monitors works locally,
 * and it refuses definitions the live service would not run.
 *
 * - `POST /v2/monitors` → 200 with the monitor (`id` is `mon_…`); `PUT /v2/monitors/{id}` replaces
 *   the definition (`id`, `createdAt`, `createdBy` stay; sent values of those keys are ignored, so a
 *   monitor read with GET can be sent back as is); `GET` one or all; `DELETE` → 204.
 * - The definition follows the API reference's `Monitor`: `name` and `type` (`Threshold`,
 *   `MatchEvent`, `AnomalyDetection`) are required, and exactly one of `aplQuery`/`mplQuery`. The
 *   APL is checked like `apl check` does, against the service's datasets (a 400 gives the
 *   diagnostic code and line/column). Threshold monitors need `operator` and `threshold`, anomaly
 *   detection an `operator`; `intervalMinutes` ≥ 1, and `rangeMinutes` ≥ 1 except for MatchEvent.
 * - MPL cannot be checked (or run) here; it is stored as sent. Like the live service (axiom-go's
 *   integration suite asserts it), the reply carries an MPL query in `aplQuery` and no `mplQuery`;
 *   sending that text back unchanged in `aplQuery` keeps it MPL.
 * - `notifierIds` (the reference's spelling; go and older js send `notifierIDs`, both accepted) are
 *   kept as given: there are no notifiers here to check them against.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatDatetime } from '../../language/index.js';
import { nowNs } from '../ingest/ingest.js';
import type { JsonCollection } from '../store/json-collection.js';
import type { ServiceAplChecker } from './apl-check.js';
import { requireScope } from './auth.js';
import { MONITOR_OPERATORS, MONITOR_TYPES, type MonitorOperator, type MonitorType } from '../../language/api/index.js';
import { jsonObjectBody } from './body.js';
import { fieldError, optBool, optInteger, optNumber, optString, optStringList, shownValue } from './body-fields.js';
import { badRequest, HttpError } from './errors.js';
import { parseRequestTime } from './paging.js';


/** The definition a client sends (the reference's `Monitor` without id and audit fields). */
export interface MonitorDefinition {
    name: string;
    type: MonitorType;
    description: string;
    /** The query; `queryLanguage` says which. */
    query: string;
    queryLanguage: 'apl' | 'mpl';
    operator?: MonitorOperator;
    threshold: number;
    alertOnNoData: boolean;
    notifyByGroup: boolean;
    notifyEveryRun: boolean;
    resolvable: boolean;
    skipResolved: boolean;
    notifierIds: string[];
    intervalMinutes: number;
    rangeMinutes: number;
    secondDelay?: number;
    disabled: boolean;
    disabledUntil?: string;
    tolerance?: number;
    compareDays?: number;
    triggerFromNRuns?: number;
    triggerAfterNPositiveResults?: number;
    columnName?: string;
}

/** As stored. */
export interface StoredMonitor extends MonitorDefinition {
    id: string;
    createdAt: string;
    createdBy: string;
    updatedAt: string;
}

export type MonitorStore = JsonCollection<StoredMonitor>;

export interface MonitorRouteOptions {
    monitors: MonitorStore;
    checker: ServiceAplChecker;
    /** `createdBy`: the local user's id. */
    userId: string;
}

const ROUTE_LIMITS = { bodyLimit: 1024 * 1024 };

function monitorNotFound(id: string): HttpError {
    return new HttpError(404, `monitor ${JSON.stringify(id)} not found`);
}

function oneOf<T extends string>(body: Record<string, unknown>, key: string, allowed: readonly T[]): T | undefined {
    const v = optString(body, key);
    if (v === undefined || v === '') return undefined; // go sends "" for "no operator"
    if (!(allowed as readonly string[]).includes(v)) throw fieldError(key, `one of ${allowed.join(', ')}`, v);
    return v as T;
}

/** Go's zero time.Time (`0001-01-01T00:00:00Z`, sent when unset) means none. */
function optTime(body: Record<string, unknown>, key: string, now: bigint): string | undefined {
    const v = body[key];
    if (typeof v === 'string' && /^0001-01-01T00:00:00(\.0+)?Z$/.test(v.trim())) return undefined;
    const ns = parseRequestTime(v, key, now);
    return ns === undefined ? undefined : formatDatetime(ns);
}

/**
 * The query and its language. `previous` is the stored monitor on update: an MPL query comes back
 * in `aplQuery` (see above), and sending it back unchanged keeps it MPL.
 */
function queryOf(body: Record<string, unknown>, previous: StoredMonitor | undefined): { query: string; queryLanguage: 'apl' | 'mpl' } {
    const apl = optString(body, 'aplQuery')?.trim() ?? '';
    const mpl = optString(body, 'mplQuery')?.trim() ?? '';
    if (apl !== '' && mpl !== '') throw badRequest('invalid monitor: aplQuery and mplQuery are mutually exclusive, send only one');
    if (apl === '' && mpl === '') throw badRequest('invalid monitor: one of "aplQuery" or "mplQuery" is required');
    if (mpl !== '') return { query: mpl, queryLanguage: 'mpl' };
    if (previous?.queryLanguage === 'mpl' && previous.query === apl) return { query: apl, queryLanguage: 'mpl' };
    return { query: apl, queryLanguage: 'apl' };
}

/**
 * Bounds on what a monitor stores. Every change rewrites monitors.json whole (atomically, see
 * json-collection.ts), so each record must stay small; the numbers are generous for hand-made ones.
 */
export const MONITOR_LIMITS = { name: 256, description: 4096, columnName: 1024, notifierIds: 100, notifierId: 256 } as const;

/** notifierIds (or go's notifierIDs): at most MONITOR_LIMITS.notifierIds ids of bounded length. */
function notifierIds(body: Record<string, unknown>): string[] {
    const key = body.notifierIds !== undefined && body.notifierIds !== null ? 'notifierIds' : 'notifierIDs';
    const ids =
        optStringList(body, key, (id, i) => {
            if (id.length > MONITOR_LIMITS.notifierId) throw badRequest(`invalid ${key}[${i}]: ${id.length} characters, at most ${MONITOR_LIMITS.notifierId} allowed (got ${shownValue(id)})`);
        }) ?? [];
    if (ids.length > MONITOR_LIMITS.notifierIds) throw badRequest(`invalid ${key}: ${ids.length} ids, at most ${MONITOR_LIMITS.notifierIds} allowed`);
    return ids;
}

/** Validates a definition (everything but the APL check, which is async). */
export function monitorDefinition(body: Record<string, unknown>, now: bigint, previous?: StoredMonitor): MonitorDefinition {
    const name = optString(body, 'name', MONITOR_LIMITS.name);
    if (name === undefined || name.trim() === '') throw badRequest(`invalid name: a non-empty name is required, got ${shownValue(body.name ?? null)}`);
    const type = oneOf(body, 'type', MONITOR_TYPES);
    if (type === undefined) throw badRequest(`invalid type: one of ${MONITOR_TYPES.join(', ')} is required, got ${shownValue(body.type ?? null)}`);
    const operator = oneOf(body, 'operator', MONITOR_OPERATORS);
    const threshold = optNumber(body, 'threshold');
    if (type === 'Threshold' && operator === undefined) throw badRequest(`invalid operator: a Threshold monitor needs one of ${MONITOR_OPERATORS.join(', ')}, got ${shownValue(body.operator ?? null)}`);
    if (type === 'Threshold' && threshold === undefined) throw badRequest('invalid threshold: a Threshold monitor needs a number, got null');
    if (type === 'AnomalyDetection' && operator === undefined) throw badRequest(`invalid operator: an AnomalyDetection monitor needs one of ${MONITOR_OPERATORS.join(', ')}, got ${shownValue(body.operator ?? null)}`);
    const intervalMinutes = optInteger(body, 'intervalMinutes', { min: 1 });
    if (intervalMinutes === undefined) throw badRequest('invalid intervalMinutes: how often the monitor runs, in minutes (at least 1), is required');
    // go sends 0 for "not set"; a match monitor looks at the events since its last run, so needs no range.
    const rangeMinutes = optInteger(body, 'rangeMinutes', { min: type === 'MatchEvent' ? 0 : 1 });
    if (rangeMinutes === undefined && type !== 'MatchEvent') throw badRequest(`invalid rangeMinutes: a ${type} monitor needs the minutes of data it looks at (at least 1)`);
    const triggerFromNRuns = optInteger(body, 'triggerFromNRuns', { min: 0 });
    const triggerAfterNPositiveResults = optInteger(body, 'triggerAfterNPositiveResults', { min: 0 });
    if (triggerFromNRuns && triggerAfterNPositiveResults && triggerAfterNPositiveResults > triggerFromNRuns) {
        throw badRequest(`invalid triggerAfterNPositiveResults: ${triggerAfterNPositiveResults} is more than triggerFromNRuns (${triggerFromNRuns})`);
    }
    const ids = notifierIds(body);
    const def: MonitorDefinition = {
        name,
        type,
        description: optString(body, 'description', MONITOR_LIMITS.description) ?? '',
        ...queryOf(body, previous),
        operator,
        threshold: threshold ?? 0,
        alertOnNoData: optBool(body, 'alertOnNoData') ?? false,
        notifyByGroup: optBool(body, 'notifyByGroup') ?? false,
        notifyEveryRun: optBool(body, 'notifyEveryRun') ?? false,
        resolvable: optBool(body, 'resolvable') ?? false,
        skipResolved: optBool(body, 'skipResolved') ?? false,
        notifierIds: [...new Set(ids)],
        intervalMinutes,
        rangeMinutes: rangeMinutes ?? 0,
        secondDelay: optInteger(body, 'secondDelay', { min: 0, max: 86400 }),
        disabled: optBool(body, 'disabled') ?? false,
        disabledUntil: optTime(body, 'disabledUntil', now),
        tolerance: optNumber(body, 'tolerance', { min: 0, max: 100 }),
        compareDays: optInteger(body, 'compareDays', { min: 1, max: 7 }),
        triggerFromNRuns,
        triggerAfterNPositiveResults,
        columnName: optString(body, 'columnName', MONITOR_LIMITS.columnName),
    };
    return Object.fromEntries(Object.entries(def).filter(([, v]) => v !== undefined)) as unknown as MonitorDefinition;
}

/**
 * The reply: the reference's `MonitorWithId`. Keys go knows are always present (its zero values
 * where unset; `disabledUntil` only when set, never ""), the others only when set.
 */
export function monitorObject(m: StoredMonitor): Record<string, unknown> {
    const out: Record<string, unknown> = {
        id: m.id,
        name: m.name,
        type: m.type,
        description: m.description,
        aplQuery: m.query,
        operator: m.operator ?? '',
        threshold: m.threshold,
        alertOnNoData: m.alertOnNoData,
        notifyByGroup: m.notifyByGroup,
        notifyEveryRun: m.notifyEveryRun,
        resolvable: m.resolvable,
        skipResolved: m.skipResolved,
        notifierIds: [...m.notifierIds],
        intervalMinutes: m.intervalMinutes,
        rangeMinutes: m.rangeMinutes,
        disabled: m.disabled,
        createdAt: m.createdAt,
        createdBy: m.createdBy,
        updatedAt: m.updatedAt,
    };
    for (const k of ['disabledUntil', 'secondDelay', 'tolerance', 'compareDays', 'triggerFromNRuns', 'triggerAfterNPositiveResults', 'columnName'] as const) {
        if (m[k] !== undefined) out[k] = m[k];
    }
    return out;
}

export function registerMonitorRoutes(app: FastifyInstance, opts: MonitorRouteOptions): void {
    const { monitors, checker } = opts;
    const id = (req: FastifyRequest) => (req.params as { id: string }).id;
    const checked = async (def: MonitorDefinition) => {
        if (def.queryLanguage === 'apl') await checker.assertValid('aplQuery', def.query);
        return def;
    };

    app.get('/v2/monitors', async () => monitors.list().map(monitorObject));

    app.post('/v2/monitors', ROUTE_LIMITS, async (req) => {
        requireScope(req, 'admin');
        const now = nowNs();
        const def = await checked(monitorDefinition(jsonObjectBody(req, 'monitor'), now));
        const at = formatDatetime(now);
        return monitorObject(await monitors.put({ ...def, id: `mon_${randomBytes(8).toString('hex')}`, createdAt: at, createdBy: opts.userId, updatedAt: at }));
    });

    app.get('/v2/monitors/:id', async (req) => {
        const m = monitors.get(id(req));
        if (!m) throw monitorNotFound(id(req));
        return monitorObject(m);
    });

    app.put('/v2/monitors/:id', ROUTE_LIMITS, async (req) => {
        requireScope(req, 'admin');
        const before = monitors.get(id(req));
        if (!before) throw monitorNotFound(id(req));
        const now = nowNs();
        const def = await checked(monitorDefinition(jsonObjectBody(req, 'monitor'), now, before));
        // The check awaited: apply to the record as it is now (gone meanwhile: 404, never re-created).
        const m = await monitors.update(id(req), (cur) => ({ ...def, id: cur.id, createdAt: cur.createdAt, createdBy: cur.createdBy, updatedAt: formatDatetime(now) }));
        if (!m) throw monitorNotFound(id(req));
        return monitorObject(m);
    });

    app.delete('/v2/monitors/:id', async (req, reply: FastifyReply) => {
        requireScope(req, 'admin');
        if (!(await monitors.delete(id(req)))) throw monitorNotFound(id(req));
        return reply.code(204).send();
    });
}
