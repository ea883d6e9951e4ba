/**
 * Renders query runs in the service's two shapes (API.md §4.3 tabular, §4.4/§5.3 legacy), with
 * the full status object (§4.5).
 */
import { Datetime, Timespan, formatDatetime, formatGoDuration, type AplValue, type JsonValue } from '../values.js';
import { canonicalKey } from '../runtime-values.js';
import { axiomFieldType } from '../types/apl-types.js';
import type { ScalarType } from './columns.js';
import { Frame, ROWID, type FrameCol, cellOf } from './frame.js';
import type { QueryRun } from './query.js';
import { RowIdColumn } from './tables.js';
import { datetimeTexts } from './time-text.js';
import type { QueryStatus } from '../api/status.js';
import type { AplLegacyResult, Entry, EntryGroup, Timeseries } from '../api/legacy.js';
import type { FieldMeta, TabularField, TabularResult, TabularTable } from '../api/tabular.js';

export type { QueryStatus, StatusMessage as QueryMessage } from '../api/status.js';
export type { AplLegacyResult, FieldMeta, TabularField, TabularResult, TabularTable };
export type LegacyMatch = Entry;
export type LegacyEntryGroup = EntryGroup;
export type LegacyInterval = Timeseries;

export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** A cell as it goes out on the wire. */
export function jsonCell(v: AplValue, type: ScalarType): JsonValue {
    if (v === null || v === undefined) return null;
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (v instanceof Timespan) return formatGoDuration(v.ns);
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (type === 'dynamic' && typeof v === 'object') return deepJson(v as JsonValue);
    return v as JsonValue;
}

function deepJson(v: unknown): JsonValue {
    if (v instanceof Datetime || v instanceof Timespan) return v.toJSON();
    if (Array.isArray(v)) return v.map(deepJson);
    if (v !== null && typeof v === 'object') {
        const o: Record<string, JsonValue> = {};
        for (const [k, x] of Object.entries(v)) o[k] = deepJson(x);
        return o;
    }
    if (typeof v === 'number' && !Number.isFinite(v)) return null;
    return v as JsonValue;
}

/** Axiom's type name for a column; dynamic columns are described by the values they hold. */
export function fieldType(c: FrameCol, n: number): string {
    if (c.type !== 'dynamic') return axiomFieldType(c.type);
    const kinds = new Set<string>();
    for (let i = 0; i < n && kinds.size < 8; i++) {
        const v = cellOf(c, i);
        if (v === null || v === undefined) continue;
        if (typeof v === 'string') kinds.add('string');
        else if (typeof v === 'number') kinds.add(Number.isInteger(v) ? 'integer' : 'float');
        else if (typeof v === 'boolean') kinds.add('boolean');
        else if (v instanceof Datetime) kinds.add('datetime');
        else if (v instanceof Timespan) kinds.add('timespan');
        else if (Array.isArray(v)) kinds.add('array');
        else kinds.add('map');
    }
    if (kinds.size === 0) return 'unknown';
    return [...kinds].sort().join('|');
}

export interface RenderContext {
    startTime?: bigint;
    endTime?: bigint;
    now: bigint;
    elapsedMicros: number;
    fieldsMeta: Record<string, FieldMeta[]>;
    /** The request's `includeCursorField`: add a `_cursor` column to tabular tables (see `cursorColumn`). */
    includeCursorField?: boolean;
}

export function buildStatus(run: QueryRun, ctx: RenderContext, cursors: { min?: string; max?: string }): QueryStatus {
    const s = run.stats;
    const status: QueryStatus = {
        elapsedTime: Math.max(1, Math.round(ctx.elapsedMicros)),
        blocksExamined: s.blocksExamined,
        rowsExamined: s.rowsExamined,
        rowsMatched: s.rowsMatched ?? 0,
        numGroups: s.numGroups,
        isPartial: false,
        cacheStatus: 1,
        minBlockTime: s.minBlockTime !== undefined ? formatDatetime(s.minBlockTime) : ZERO_TIME,
        maxBlockTime: s.maxBlockTime !== undefined ? formatDatetime(s.maxBlockTime) : ZERO_TIME,
        isEstimate: s.estimate,
        messages: s.messages,
    };
    if (s.blocksSkipped !== undefined) status.blocksSkipped = s.blocksSkipped;
    if (cursors.min !== undefined) status.minCursor = cursors.min;
    if (cursors.max !== undefined) status.maxCursor = cursors.max;
    return status;
}

function cursorsOf(frame: Frame | undefined): { min?: string; max?: string } {
    const c = frame?.find(ROWID);
    if (!frame || !c || frame.length === 0) return {};
    if (c.data instanceof RowIdColumn) {
        const snap = c.data.snap;
        let lo = c.sel ? c.sel[0] : 0;
        let hi = lo;
        for (let i = 1; i < frame.length; i++) {
            const j = c.sel ? c.sel[i] : i;
            if (snap.compareRows(j, lo) < 0) lo = j;
            if (snap.compareRows(j, hi) > 0) hi = j;
        }
        return { min: snap.rowId(lo), max: snap.rowId(hi) };
    }
    let min: string | undefined;
    let max: string | undefined;
    for (let i = 0; i < frame.length; i++) {
        const v = cellOf(c, i);
        if (typeof v !== 'string') continue;
        if (min === undefined || v < min) min = v;
        if (max === undefined || v > max) max = v;
    }
    return { min, max };
}

function range(ctx: RenderContext): { field: string; start: string; end: string } {
    return {
        field: '_time',
        start: formatDatetime(ctx.startTime ?? 0n),
        end: formatDatetime(ctx.endTime ?? ctx.now),
    };
}

/** The name of the column `includeCursorField: true` adds (API.md §4.2, §4.3). */
const CURSOR_FIELD = '_cursor';

/**
 * Each row's cursor: its row id, the string `status.minCursor`/`maxCursor` are made of and `cursor`
 * accepts back (API.md §10). `undefined` when the rows carry no row ids, which is what happens when
 * they are not dataset events: `summarize`/`count`, `print`, `datatable`, `make-series`… For those
 * the column is left out rather than filled with nulls: there is nothing to page from (the status
 * has no min/maxCursor either), and an aggregation keeps exactly the fields the query names. A
 * table that mixes both (a `union` of a dataset and a `datatable`, the right-only rows of an outer
 * `join`) keeps the column, with null for the rows that have no source event. Join and lookup rows
 * carry the left row's cursor, as the status does; `mv-expand` rows keep their event's cursor.
 */
function cursorColumn(frame: Frame): JsonValue[] | undefined {
    const c = frame.find(ROWID);
    if (!c) return undefined;
    const out: JsonValue[] = new Array(frame.length);
    for (let i = 0; i < frame.length; i++) {
        const v = cellOf(c, i);
        out[i] = typeof v === 'string' && v !== '' ? v : null;
    }
    return out;
}

function renderTable(name: string, frame: Frame, sources: string[], ctx: RenderContext, withRange: boolean, withCursor: boolean): TabularTable {
    const cursors = withCursor ? cursorColumn(frame) : undefined;
    // The requested `_cursor` is the real one: a column the query named `_cursor` gives way to it
    // (ingest renames a stored `_cursor` to `_user_cursor`, so only `extend`/`project` can make one).
    const vis = cursors ? frame.visible().filter(c => c.name !== CURSOR_FIELD) : frame.visible();
    const n = frame.length;
    const fields: TabularField[] = vis.map(c => {
        const f: TabularField = { name: c.name, type: fieldType(c, n) };
        if (c.agg) f.agg = c.agg;
        return f;
    });
    const columns: JsonValue[][] = vis.map(c => {
        const times = datetimeTexts(c, n);
        if (times) return times;
        const out: JsonValue[] = new Array(n);
        for (let i = 0; i < n; i++) out[i] = jsonCell(cellOf(c, i), c.type);
        return out;
    });
    if (cursors) {
        // Last, so the columns the query projected keep their positions.
        fields.push({ name: CURSOR_FIELD, type: 'string' });
        columns.push(cursors);
    }
    const t: TabularTable = {
        name,
        sources: sources.map(s => ({ name: s })),
        fields,
        order: frame.meta.order ?? [],
        groups: (frame.meta.groups ?? []).map(g => ({ name: g })),
        columns,
    };
    if (withRange) t.range = range(ctx);
    if (frame.meta.buckets) t.buckets = frame.meta.buckets;
    return t;
}

export function renderTabular(run: QueryRun, ctx: RenderContext): TabularResult {
    const tables: TabularTable[] = [];
    const sources = run.stats.datasets;
    run.tables.forEach((f, i) => {
        tables.push(renderTable(String(i), f, sources, ctx, true, ctx.includeCursorField === true));
    });
    const totals = run.tables[0]?.meta.totals;
    if (totals) tables.push(renderTable('_totals', totals, sources, ctx, true, false));
    return {
        format: 'tabular',
        status: buildStatus(run, ctx, cursorsOf(run.tables[0])),
        tables,
        datasetNames: sources,
        fieldsMetaMap: Object.fromEntries(sources.map(s => [s, ctx.fieldsMeta[s] ?? []])),
    };
}

/**
 * APL results in the legacy shape: `matches` for row queries, `buckets` for aggregations.
 * `includeCursorField` changes nothing here: every match already carries its cursor as `_rowId`,
 * and a match has exactly four keys (API.md §5.3, go decodes strictly).
 */
export function renderLegacy(run: QueryRun, ctx: RenderContext): AplLegacyResult {
    const frame = run.tables[0];
    const vis = frame.visible();
    const aggregated = vis.some(c => c.agg !== undefined) || frame.meta.groups !== undefined;
    const matches: LegacyMatch[] = [];
    const series: LegacyInterval[] = [];
    let totals: LegacyEntryGroup[] = [];
    const nowText = formatDatetime(ctx.now);
    if (!aggregated) {
        const time = frame.find('_time');
        const sys = frame.find('_sysTime');
        const rid = frame.find(ROWID);
        const dataCols = vis.filter(c => c.name !== '_time' && c.name !== '_sysTime');
        for (let i = 0; i < frame.length; i++) {
            const t = time ? cellOf(time, i) : null;
            const st = sys ? cellOf(sys, i) : null;
            const data: Record<string, JsonValue> = {};
            for (const c of dataCols) {
                const v = cellOf(c, i);
                if (v !== null && v !== undefined) data[c.name] = jsonCell(v, c.type);
            }
            matches.push({
                _time: t instanceof Datetime ? formatDatetime(t.ns) : nowText,
                _sysTime: st instanceof Datetime ? formatDatetime(st.ns) : t instanceof Datetime ? formatDatetime(t.ns) : nowText,
                _rowId: rid ? String(cellOf(rid, i) ?? '') : '',
                data,
            });
        }
    } else {
        const groupNames = frame.meta.groups ?? [];
        const aggCols = vis.filter(c => c.agg !== undefined || (!groupNames.includes(c.name) && c.name !== frame.meta.buckets?.field));
        const ids = new Map<string, number>();
        const idOf = (group: Record<string, JsonValue>): number => {
            const k = canonicalKey(group as never);
            let id = ids.get(k);
            if (id === undefined) ids.set(k, (id = ids.size));
            return id;
        };
        const entry = (f: Frame, i: number, cols: FrameCol[]): LegacyEntryGroup => {
            const group: Record<string, JsonValue> = {};
            for (const g of groupNames) {
                const c = f.find(g);
                if (c) group[g] = jsonCell(cellOf(c, i), c.type);
            }
            return { id: idOf(group), group, aggregations: cols.map(c => ({ op: c.name, value: jsonCell(cellOf(c, i), c.type) })) };
        };
        const totalsFrame = frame.meta.totals;
        if (totalsFrame) {
            const tAgg = totalsFrame.visible().filter(c => !groupNames.includes(c.name));
            for (let i = 0; i < totalsFrame.length; i++) totals.push(entry(totalsFrame, i, tAgg));
        }
        const b = frame.meta.buckets;
        const timeCol = b ? frame.find(b.field) : undefined;
        if (b && timeCol) {
            const byStart = new Map<string, LegacyInterval>();
            for (let i = 0; i < frame.length; i++) {
                const t = cellOf(timeCol, i);
                if (!(t instanceof Datetime)) continue;
                const key = formatDatetime(t.ns);
                let iv = byStart.get(key);
                if (!iv) {
                    iv = { startTime: key, endTime: formatDatetime(t.ns + BigInt(b.size)), groups: [] };
                    byStart.set(key, iv);
                    series.push(iv);
                }
                iv.groups.push(entry(frame, i, aggCols));
            }
        } else {
            totals = [];
            for (let i = 0; i < frame.length; i++) totals.push(entry(frame, i, aggCols));
        }
    }
    const sources = run.stats.datasets;
    return {
        format: 'legacy',
        request: {
            startTime: formatDatetime(ctx.startTime ?? 0n),
            endTime: formatDatetime(ctx.endTime ?? ctx.now),
            resolution: frame.meta.buckets ? formatGoDuration(BigInt(frame.meta.buckets.size)) : 'auto',
        },
        status: buildStatus(run, ctx, cursorsOf(frame)),
        matches,
        buckets: { series, totals },
        datasetNames: sources,
        fieldsMetaMap: Object.fromEntries(sources.map(s => [s, ctx.fieldsMeta[s] ?? []])),
    };
}
