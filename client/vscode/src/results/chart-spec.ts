/**
 * What a chart of a result shows, without drawing it (the webview draws; this is shared and tested
 * in Node): which columns can be X, Y and series, the automatic choice, a remembered choice checked
 * against the columns of a new result, and the chart's data: x values (times, categories or numbers)
 * and one aligned list of values per series.
 *
 * The automatic choice: X is the first time column, else the first text column, else the first
 * numeric one (a scatter); Y is every other numeric column; the series column is the first text
 * column that is not X (`count() by bin(_time, 1h), method` gives one line per method). A time X
 * draws lines, a text X columns, a numeric X a scatter.
 */
import type { TableField } from '../../../api/types.js';

export const CHART_TYPES = ['line', 'area', 'stackedArea', 'column', 'stackedColumn', 'bar', 'stackedBar', 'pie', 'scatter'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

/** The names the Chart type combobox shows (part of the view's contract: Line, Bar, …). */
export const CHART_TYPE_LABELS: Record<ChartType, string> = {
    line: 'Line',
    area: 'Area',
    stackedArea: 'Stacked area',
    column: 'Column',
    stackedColumn: 'Stacked column',
    bar: 'Bar',
    stackedBar: 'Stacked bar',
    pie: 'Pie',
    scatter: 'Scatter',
};

export function isChartType(v: unknown): v is ChartType {
    return typeof v === 'string' && (CHART_TYPES as readonly string[]).includes(v);
}

export interface ChartChoice {
    type: ChartType;
    /** The X column. */
    x: string;
    /** The Y columns (numeric). */
    y: string[];
    /** The column whose values split the Y values into series, or none. */
    series?: string;
}

/** The rows a chart is drawn from: the loaded rows of the first page, aligned with `fields`. */
export interface ChartTable {
    fields: TableField[];
    rows: unknown[][];
}

export type AxisKind = 'time' | 'category' | 'value';

export interface ChartModel {
    xKind: AxisKind;
    /** Times in ms since the epoch (ascending), category names (in the result's order), or numbers. */
    x: (number | string)[];
    series: { name: string; values: (number | null)[] }[];
    /** Categories or series beyond the limits were left out (the biggest are kept). */
    clipped: boolean;
}

const NUMERIC = new Set(['integer', 'float', 'long', 'real', 'int', 'double', 'number', 'timespan', 'decimal']);
const TIME = new Set(['datetime', 'date', 'timestamp']);

const baseType = (f: TableField) => f.type.split('|')[0].toLowerCase();
export const isNumericField = (f: TableField) => NUMERIC.has(baseType(f));
export const isTimeField = (f: TableField) => TIME.has(baseType(f)) || (f.name === '_time' && !isNumericField(f));

/** More series than this are unreadable: the biggest are kept. */
export const MAX_SERIES = 12;
/** Categories along X (bar, column); pie slices. */
export const MAX_CATEGORIES = 100;
export const MAX_SLICES = 12;

/** A result can be charted when it has a numeric column. */
export function isChartable(fields: readonly TableField[]): boolean {
    return fields.some(isNumericField);
}

export function autoChoice(fields: readonly TableField[]): ChartChoice | undefined {
    const numeric = fields.filter(isNumericField);
    if (numeric.length === 0) return undefined;
    const time = fields.find(isTimeField);
    const text = fields.filter(f => !isNumericField(f) && !isTimeField(f));
    if (time) {
        return { type: 'line', x: time.name, y: numeric.map(f => f.name), ...(text[0] ? { series: text[0].name } : {}) };
    }
    if (text.length > 0) {
        return { type: 'column', x: text[0].name, y: numeric.map(f => f.name), ...(text[1] ? { series: text[1].name } : {}) };
    }
    if (numeric.length === 1) return { type: 'column', x: numeric[0].name, y: [numeric[0].name] };
    return { type: 'scatter', x: numeric[0].name, y: numeric.slice(1).map(f => f.name) };
}

/** `remembered` when its columns are all in `fields` (with Y numeric), else the automatic choice. */
export function choiceFor(fields: readonly TableField[], remembered: ChartChoice | undefined): ChartChoice | undefined {
    const auto = autoChoice(fields);
    if (!auto || !remembered || !isChartType(remembered.type)) return auto;
    const byName = new Map(fields.map(f => [f.name, f]));
    const ok =
        byName.has(remembered.x) &&
        Array.isArray(remembered.y) &&
        remembered.y.length > 0 &&
        remembered.y.every(y => byName.get(y) !== undefined && isNumericField(byName.get(y)!)) &&
        (remembered.series === undefined || byName.has(remembered.series));
    return ok ? { type: remembered.type, x: remembered.x, y: [...remembered.y], ...(remembered.series !== undefined ? { series: remembered.series } : {}) } : auto;
}

function toNumber(v: unknown): number | null {
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (typeof v === 'string' && v.trim() !== '') {
        const n = Number(v);
        return Number.isFinite(n) ? n : null;
    }
    if (typeof v === 'boolean') return v ? 1 : 0;
    return null;
}

function toTime(v: unknown): number | null {
    if (typeof v === 'string') {
        const t = Date.parse(v);
        return Number.isFinite(t) ? t : null;
    }
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const textOf = (v: unknown) => (v === null || v === undefined ? '(null)' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The X axis a choice gets: time for a time column, value for a scatter's numeric X, else categories. */
export function axisKind(fields: readonly TableField[], choice: ChartChoice): AxisKind {
    const f = fields.find(g => g.name === choice.x);
    if (f && isTimeField(f) && choice.type !== 'pie') return 'time';
    if (f && isNumericField(f) && choice.type === 'scatter') return 'value';
    return 'category';
}

/**
 * The chart's data for `choice`: values at the same X (and series) are added up (a result may hold
 * several rows per bucket once a column is left out); missing points are null (a gap, not a zero).
 */
export function chartModel(table: ChartTable, choice: ChartChoice): ChartModel {
    const col = new Map(table.fields.map((f, i) => [f.name, i]));
    const xi = col.get(choice.x);
    const si = choice.series === undefined ? undefined : col.get(choice.series);
    const ys = choice.y.map(name => ({ name, i: col.get(name) })).filter((y): y is { name: string; i: number } => y.i !== undefined);
    const kind = axisKind(table.fields, choice);
    if (xi === undefined || ys.length === 0) return { xKind: kind, x: [], series: [], clipped: false };

    if (kind === 'value') {
        // A scatter: one point per row, in the row's order.
        const points = new Map<string, { x: number; y: number }[]>();
        for (const row of table.rows) {
            const x = toNumber(row[xi]);
            if (x === null) continue;
            const group = si === undefined ? '' : textOf(row[si]);
            for (const y of ys) {
                const v = toNumber(row[y.i]);
                if (v === null) continue;
                const name = seriesName(y.name, group, ys.length);
                let list = points.get(name);
                if (!list) points.set(name, (list = []));
                list.push({ x, y: v });
            }
        }
        const xs = [...new Set([...points.values()].flatMap(l => l.map(p => p.x)))].sort((a, b) => a - b);
        const at = new Map(xs.map((x, i) => [x, i]));
        let series = [...points.entries()].map(([name, list]) => {
            const values: (number | null)[] = new Array<number | null>(xs.length).fill(null);
            for (const p of list) values[at.get(p.x)!] = p.y;
            return { name, values, total: list.reduce((s, p) => s + Math.abs(p.y), 0) };
        });
        const clipped = series.length > MAX_SERIES;
        series = series.sort((a, b) => b.total - a.total).slice(0, MAX_SERIES);
        return { xKind: kind, x: xs, series: series.map(({ name, values }) => ({ name, values })), clipped };
    }

    // Time or category X: values added up per (X, series).
    const xKeys: (number | string)[] = [];
    const xIndex = new Map<number | string, number>();
    const lines = new Map<string, { values: Map<number, number>; total: number }>();
    for (const row of table.rows) {
        const x = kind === 'time' ? toTime(row[xi]) : textOf(row[xi]);
        if (x === null) continue;
        let at = xIndex.get(x);
        if (at === undefined) {
            at = xKeys.length;
            xIndex.set(x, at);
            xKeys.push(x);
        }
        const group = si === undefined ? '' : textOf(row[si]);
        for (const y of ys) {
            const v = toNumber(row[y.i]);
            const name = seriesName(y.name, group, ys.length);
            let line = lines.get(name);
            if (!line) lines.set(name, (line = { values: new Map(), total: 0 }));
            if (v === null) continue;
            line.values.set(at, (line.values.get(at) ?? 0) + v);
            line.total += Math.abs(v);
        }
    }
    let order = xKeys.map((_, i) => i);
    if (kind === 'time') order.sort((a, b) => (xKeys[a] as number) - (xKeys[b] as number));
    let clipped = false;
    const limit = choice.type === 'pie' ? MAX_SLICES : MAX_CATEGORIES;
    if (kind === 'category' && order.length > limit) {
        // The biggest categories, in the result's order.
        const size = (i: number) => [...lines.values()].reduce((s, l) => s + Math.abs(l.values.get(i) ?? 0), 0);
        const keep = new Set([...order].sort((a, b) => size(b) - size(a)).slice(0, limit));
        order = order.filter(i => keep.has(i));
        clipped = true;
    }
    let series = [...lines.entries()].map(([name, l]) => ({ name, values: order.map(i => l.values.get(i) ?? null), total: l.total }));
    if (series.length > MAX_SERIES) clipped = true;
    series = series.sort((a, b) => b.total - a.total).slice(0, MAX_SERIES);
    return { xKind: kind, x: order.map(i => xKeys[i]), series: series.map(({ name, values }) => ({ name, values })), clipped };
}

function seriesName(y: string, group: string, yCount: number): string {
    if (!group) return y;
    return yCount > 1 ? `${y} (${group})` : group;
}

/** The offsets "Compare with" offers (ms). */
export const COMPARE_OFFSETS = [
    ['1h', 'an hour earlier', 3_600_000],
    ['1d', 'a day earlier', 86_400_000],
    ['7d', 'a week earlier', 7 * 86_400_000],
    ['30d', '30 days earlier', 30 * 86_400_000],
] as const;
export type CompareOffset = (typeof COMPARE_OFFSETS)[number][0];

export function compareOffset(key: string): { key: CompareOffset; label: string; ms: number } | undefined {
    const o = COMPARE_OFFSETS.find(([k]) => k === key);
    return o ? { key: o[0], label: o[1], ms: o[2] } : undefined;
}

/**
 * A time chart with the same query's earlier period drawn on it: the earlier times moved forward by
 * `offsetMs`, so a bucket sits over the bucket it is compared with; each earlier series is named
 * after its period (`count_ (a day earlier)`). Points of the earlier period with no bucket now are
 * added to the X values (the chart stays aligned).
 */
export function withEarlierPeriod(now: ChartModel, earlier: ChartModel, offsetMs: number, label: string): ChartModel {
    if (now.xKind !== 'time' || earlier.xKind !== 'time') return now;
    const shifted = earlier.x.map(t => (t as number) + offsetMs);
    const xs = [...new Set([...(now.x as number[]), ...shifted])].sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const place = (x: readonly number[], values: readonly (number | null)[]) => {
        const out: (number | null)[] = new Array<number | null>(xs.length).fill(null);
        x.forEach((t, i) => (out[at.get(t)!] = values[i] ?? null));
        return out;
    };
    return {
        xKind: 'time',
        x: xs,
        series: [
            ...now.series.map(s => ({ name: s.name, values: place(now.x as number[], s.values) })),
            ...earlier.series.map(s => ({ name: `${s.name} (${label})`, values: place(shifted, s.values) })),
        ],
        clipped: now.clipped || earlier.clipped,
    };
}
