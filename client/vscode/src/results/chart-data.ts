/**
 * The time series of an aggregation over `bin(_time, …)` / `bin_auto(_time)`: x is the time column
 * (seconds, as uPlot wants), one series per numeric column, split by the string group columns
 * (`count() by bin(_time, 1h), method` gives one line per method). Tolerant of column order.
 */
import type { TableField } from '../../../api/types.js';

export interface ChartSeries {
    label: string;
    values: (number | null)[];
}

export interface ChartData {
    timeColumn: string;
    /** Seconds since the epoch, ascending. */
    x: number[];
    series: ChartSeries[];
}

const NUMERIC = new Set(['integer', 'float', 'long', 'real', 'int', 'double', 'number', 'timespan']);
/** More lines than this are unreadable: the biggest groups are kept. */
export const MAX_SERIES = 12;

export function chartData(timeColumn: string, fields: readonly TableField[], columns: readonly unknown[][]): ChartData | undefined {
    const t = fields.findIndex(f => f.name === timeColumn);
    if (t < 0) return undefined;
    const numeric = fields.map((f, i) => ({ f, i })).filter(({ f, i }) => i !== t && NUMERIC.has(f.type.split('|')[0]));
    if (numeric.length === 0) return undefined;
    const groups = fields.map((f, i) => ({ f, i })).filter(({ f, i }) => i !== t && !NUMERIC.has(f.type.split('|')[0]));
    const times = columns[t] ?? [];
    const xs = [...new Set(times.map(v => (typeof v === 'string' ? Date.parse(v) / 1000 : NaN)).filter(Number.isFinite))].sort((a, b) => a - b);
    const xIndex = new Map(xs.map((x, i) => [x, i]));
    const lines = new Map<string, { label: string; values: (number | null)[]; total: number }>();
    for (let r = 0; r < times.length; r++) {
        const x = typeof times[r] === 'string' ? Date.parse(times[r] as string) / 1000 : NaN;
        const xi = xIndex.get(x);
        if (xi === undefined) continue;
        const group = groups.map(g => String(columns[g.i]?.[r] ?? '')).join(', ');
        for (const { f, i } of numeric) {
            const label = group ? (numeric.length > 1 ? `${f.name} (${group})` : group) : f.name;
            let line = lines.get(label);
            if (!line) {
                line = { label, values: new Array(xs.length).fill(null), total: 0 };
                lines.set(label, line);
            }
            const v = columns[i]?.[r];
            const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
            if (Number.isFinite(n)) {
                line.values[xi] = (line.values[xi] ?? 0) + n;
                line.total += Math.abs(n);
            }
        }
    }
    const series = [...lines.values()].sort((a, b) => b.total - a.total).slice(0, MAX_SERIES).map(({ label, values }) => ({ label, values }));
    return { timeColumn, x: xs, series };
}
