/**
 * Statistics of the selected cells (ADX's selection statistics): count, distinct, and for numbers
 * or timespans (Go durations, as the service writes them) sum, avg, min and max. Nulls are not
 * counted; a selection mixing numbers and text gets the count and distinct only.
 */
import { formatGoDuration, parseGoDuration } from '../../../../language/values.js';

export interface SelectionStats {
    count: number;
    distinct: number;
    /** Present when every counted value is a number, or every one a timespan (then as durations). */
    sum?: string;
    avg?: string;
    min?: string;
    max?: string;
}

const fmt = (n: number) => (Number.isInteger(n) ? n.toLocaleString('en-US') : Number(n.toPrecision(12)).toLocaleString('en-US', { maximumFractionDigits: 6 }));

export function selectionStats(values: readonly unknown[], type: string): SelectionStats {
    const kept = values.filter(v => v !== null && v !== undefined);
    const distinct = new Set(kept.map(v => (typeof v === 'object' ? JSON.stringify(v) : `${typeof v}:${String(v)}`))).size;
    const stats: SelectionStats = { count: kept.length, distinct };
    if (kept.length === 0) return stats;
    if (kept.every(v => typeof v === 'number' && Number.isFinite(v))) {
        const nums = kept as number[];
        const sum = nums.reduce((a, b) => a + b, 0);
        return { ...stats, sum: fmt(sum), avg: fmt(sum / nums.length), min: fmt(Math.min(...nums)), max: fmt(Math.max(...nums)) };
    }
    if (type.split('|')[0] === 'timespan') {
        const spans = kept.map(v => (typeof v === 'string' ? parseGoDuration(v) : undefined));
        if (spans.some(s => s === undefined)) return stats;
        const ns = spans as bigint[];
        const sum = ns.reduce((a, b) => a + b, 0n);
        let min = ns[0];
        let max = ns[0];
        for (const s of ns) {
            if (s < min) min = s;
            if (s > max) max = s;
        }
        return { ...stats, sum: formatGoDuration(sum), avg: formatGoDuration(sum / BigInt(ns.length)), min: formatGoDuration(min), max: formatGoDuration(max) };
    }
    return stats;
}

/** The words of the selection statistics line. */
export function selectionStatsText(column: string, s: SelectionStats): string {
    const parts = [`count ${s.count.toLocaleString('en-US')}`, `distinct ${s.distinct.toLocaleString('en-US')}`];
    if (s.sum !== undefined) parts.push(`sum ${s.sum}`, `avg ${s.avg}`, `min ${s.min}`, `max ${s.max}`);
    return `Selection in ${column}: ${parts.join(' · ')}`;
}
