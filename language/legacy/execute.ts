/**
 * Runs a legacy query on the reference evaluator. There is one evaluator: the legacy query is
 * decompiled to APL (decompile.ts), run through `engine.query`, and the tabular answer is reshaped
 * into the legacy result (API.md §5.3).
 *
 * - Non-aggregating queries: one APL query; each row becomes a match with `_time`, `_sysTime` and
 *   `_rowId` at the top level (the row id comes from `cursor_current()`, so cursor paging works:
 *   `cursor`/`includeCursor` go to the engine, which applies API.md §10.2, strictly after the cursor
 *   for ascending order unless `includeCursor`). `data` holds the other non-null fields.
 * - Aggregating queries: `buckets.totals` is one group per `groupBy` key, sorted by `order` and cut
 *   to the limit; `buckets.series` has one interval per resolution step over `[startTime, endTime)`,
 *   each holding the groups of the totals that have rows in it (so `limit` keeps the top N groups in
 *   every interval, as Axiom does after a time-binned summarize). Group ids are the group's index in
 *   the totals. An aggregation reports its alias, or its upper-cased op, as `op`.
 */
import { Datetime, formatDatetime, type JsonValue } from '../values.js';
import { ROWID_COLUMN, SYSTIME_COLUMN, TIME_COLUMN, decompileLegacy } from './decompile.js';
import {
    MAX_LEGACY_LIMIT,
    effectiveLegacyLimit,
    parseLegacyQuery,
    parseLegacyTime,
    type Entry,
    type EntryGroup,
    type LegacyQuery,
    type LegacyResult,
    type LegacyStatus,
    type StatusMessage,
    type Timeseries,
} from './legacy-types.js';

/** The options `engine.query` takes (language/eval/engine.ts). */
export interface EngineQueryOptions {
    startTime?: string;
    endTime?: string;
    limit?: number;
    cursor?: string;
    includeCursor?: boolean;
}

/** The engine's status (API.md §4.5), with message priorities as plain strings. */
export type EngineStatus = Omit<Partial<LegacyStatus>, 'messages'> & {
    messages?: { priority: string; count: number; code: string; msg: string }[] | null;
};

/** What executeLegacy reads of a tabular result (API.md §4.3). */
export interface TabularLike {
    status?: EngineStatus;
    tables: { fields: { name: string }[]; columns: unknown[][] }[];
}

/** The part of the engine executeLegacy uses. */
export interface QueryEngine {
    query(apl: string, options: EngineQueryOptions): Promise<TabularLike> | TabularLike;
}

/** The legacy series emit every interval only up to this many; beyond, only intervals with rows. */
export const MAX_SERIES_INTERVALS = 10_000;

type Row = Record<string, unknown>;

/** The rows of a tabular result's first table, as objects. */
export function rowsOf(result: TabularLike): Row[] {
    const table = result.tables[0];
    if (!table) return [];
    const n = table.columns[0]?.length ?? 0;
    const rows: Row[] = [];
    for (let r = 0; r < n; r++) {
        const row: Row = {};
        table.fields.forEach((f, i) => (row[f.name] = table.columns[i]?.[r]));
        rows.push(row);
    }
    return rows;
}

/** A cell as JSON (datetimes as RFC 3339). */
export function jsonCell(v: unknown): JsonValue {
    if (v === undefined) return null;
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (typeof v === 'bigint') return Number(v);
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON(): JsonValue }).toJSON();
    return v as JsonValue;
}

function timeText(v: unknown): string {
    const j = jsonCell(v);
    return typeof j === 'string' ? j : '';
}

function fullStatus(s: EngineStatus | undefined, rowsMatched: number, numGroups: number, fallbackTime: string): LegacyStatus {
    return {
        elapsedTime: s?.elapsedTime ?? 0,
        blocksExamined: s?.blocksExamined ?? 0,
        rowsExamined: s?.rowsExamined ?? 0,
        rowsMatched: s?.rowsMatched ?? rowsMatched,
        numGroups,
        isPartial: s?.isPartial ?? false,
        cacheStatus: s?.cacheStatus ?? 1,
        minBlockTime: s?.minBlockTime || fallbackTime,
        maxBlockTime: s?.maxBlockTime || fallbackTime,
        ...(s?.minCursor !== undefined ? { minCursor: s.minCursor } : {}),
        ...(s?.maxCursor !== undefined ? { maxCursor: s.maxCursor } : {}),
        ...(s?.isEstimate !== undefined ? { isEstimate: s.isEstimate } : {}),
        messages: (s?.messages ?? []) as StatusMessage[],
    };
}

const SYSTEM = new Set(['_time', '_sysTime', TIME_COLUMN, SYSTIME_COLUMN, ROWID_COLUMN]);

/** Runs a (parsed) legacy query over `dataset` on the engine. */
export async function executeLegacy(engine: QueryEngine, dataset: string, query: LegacyQuery): Promise<LegacyResult> {
    const plan = decompileLegacy(dataset, query);
    const range = { startTime: query.startTime, endTime: query.endTime };
    const limit = effectiveLegacyLimit(query);

    if (plan.matches) {
        const result = await engine.query(plan.matches, {
            ...range,
            limit,
            ...(query.cursor ? { cursor: query.cursor, includeCursor: query.includeCursor ?? false } : {}),
        });
        const matches: Entry[] = rowsOf(result).map(row => {
            const data: Record<string, JsonValue> = {};
            for (const [k, v] of Object.entries(row)) {
                if (SYSTEM.has(k) || v === null || v === undefined) continue;
                data[k] = jsonCell(v);
            }
            return { _time: timeText(row[TIME_COLUMN]), _sysTime: timeText(row[SYSTIME_COLUMN]), _rowId: String(row[ROWID_COLUMN] ?? ''), data };
        });
        const status = fullStatus(result.status, matches.length, 0, query.startTime);
        if (matches.length > 0) {
            const ids = matches.map(m => m._rowId).filter(Boolean).sort();
            if (ids.length > 0) {
                status.minCursor = ids[0];
                status.maxCursor = ids[ids.length - 1];
            }
        }
        return { status, matches, buckets: { series: [], totals: [] } };
    }

    const groupBy = query.groupBy ?? [];
    const keyOf = (row: Row) => JSON.stringify(groupBy.map(g => jsonCell(row[g])));
    const groupOf = (row: Row) => Object.fromEntries(groupBy.map(g => [g, jsonCell(row[g])]));
    const aggsOf = (row: Row) => plan.aggregations.map(a => ({ op: a.op, value: jsonCell(row[a.column]) }));

    const totalsResult = await engine.query(plan.totals!, { ...range, limit });
    const totals: EntryGroup[] = [];
    const ids = new Map<string, number>();
    for (const row of rowsOf(totalsResult)) {
        ids.set(keyOf(row), totals.length);
        totals.push({ id: totals.length, group: groupOf(row), aggregations: aggsOf(row) });
    }

    const seriesResult = await engine.query(plan.series!, { ...range, limit: MAX_LEGACY_LIMIT });
    const binNs = plan.binNs!;
    const startNs = parseLegacyTime(query.startTime)!;
    const endNs = parseLegacyTime(query.endTime)!;
    const byInterval = new Map<bigint, EntryGroup[]>();
    for (const row of rowsOf(seriesResult)) {
        const id = ids.get(keyOf(row));
        if (id === undefined) continue; // a group the limit cut from the totals
        const t = parseLegacyTime(timeText(row._time));
        if (t === undefined) continue;
        let list = byInterval.get(t);
        if (!list) byInterval.set(t, (list = []));
        list.push({ id, group: groupOf(row), aggregations: aggsOf(row) });
    }
    const floor = (ns: bigint) => ((ns % binNs) + binNs) % binNs;
    const first = startNs - floor(startNs);
    const count = endNs > first ? (endNs - first + binNs - 1n) / binNs : 0n;
    const starts = count <= BigInt(MAX_SERIES_INTERVALS)
        ? Array.from({ length: Number(count) }, (_, i) => first + BigInt(i) * binNs)
        : [...byInterval.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const t of byInterval.keys()) if (!starts.includes(t)) starts.push(t);
    starts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const series: Timeseries[] = starts.map(t => ({
        startTime: formatDatetime(t),
        endTime: formatDatetime(t + binNs),
        groups: (byInterval.get(t) ?? []).sort((a, b) => a.id - b.id),
    }));
    const status = fullStatus(totalsResult.status, totalsResult.status?.rowsMatched ?? 0, totals.length, query.startTime);
    return { status, matches: [], buckets: { series, totals } };
}

/**
 * The engine's legacy endpoint hook: validates the body (`parseLegacyQuery`) and runs it.
 * Register with `engine.setLegacyExecutor(legacyExecutor)`.
 */
export const legacyExecutor = async (engine: QueryEngine, dataset: string, query: unknown): Promise<LegacyResult> =>
    executeLegacy(engine, dataset, parseLegacyQuery(query));
