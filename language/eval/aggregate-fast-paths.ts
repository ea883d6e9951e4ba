/**
 * Columnar fast paths of catalogue aggregations: typed-array loops over whole columns for the
 * common cases of count, countif, sum, avg, min, max, dcount, percentile and percentiles_array.
 *
 * They are looked up in one place, AGGREGATE_FAST_PATHS, by the `name` of the aggregation's entry
 * in AGGREGATES (language/builtins/aggregates.ts); each such entry carries a comment pointing here.
 * A fast path returns undefined when its input does not qualify (a non-numeric column, ranks that
 * are not constant, ...); runAggregate (aggregate.ts) then runs the entry's accumulator per group,
 * which stays the reference semantics a fast path must match. They live here rather than beside
 * the catalogue because they read the evaluator's column types, and language/builtins does not
 * import language/eval.
 */
import type { AplValue } from '../values.js';
import { type Column, NumColumn, type ScalarType, StrColumn, TimeColumn, columnFromValues } from './columns.js';
import { type Vec, triArray } from './expr.js';

/**
 * One aggregation over grouped rows: `gids[i]` is the group of logical row `i` (of `rows`); the
 * result holds one value per group (`groups`). `vecs` are the evaluated arguments.
 */
export type AggregateFastPath = (vecs: Vec[], gids: Uint32Array, groups: number, rows: number, outType: ScalarType) => Column | undefined;

function numVec(v: Vec): NumColumn | undefined {
    return !v.c && v.col instanceof NumColumn ? v.col : undefined;
}


/** count(): rows per group. */
function count(_vecs: Vec[], gids: Uint32Array, G: number, n: number): Column {
    const out = new Float64Array(G);
    for (let i = 0; i < n; i++) out[gids[i]]++;
    return new NumColumn('long', out, null, G);
}

/** countif(predicate): rows per group where the predicate is true. */
function countif(vecs: Vec[], gids: Uint32Array, G: number, n: number): Column {
    const t = triArray(vecs[0], n);
    const out = new Float64Array(G);
    for (let i = 0; i < n; i++) if (t[i] === 1) out[gids[i]]++;
    return new NumColumn('long', out, null, G);
}

/** sum(x) and avg(x) over a numeric column. */
function sumOrAvg(name: 'sum' | 'avg'): AggregateFastPath {
    return (vecs, gids, G, n, outType) => {
        const col = numVec(vecs[0]);
        if (!col) return undefined;
        const sel = (vecs[0] as { sel: Uint32Array | null }).sel;
        const sums = new Float64Array(G);
        const counts = new Float64Array(G);
        const vals = col.vals;
        const nulls = col.nulls;
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            if (nulls !== null && nulls[j] === 1) continue;
            const g = gids[i];
            sums[g] += vals[j];
            counts[g]++;
        }
        if (name === 'sum') {
            if (outType === 'long') for (let g = 0; g < G; g++) if (!Number.isSafeInteger(sums[g])) sums[g] = Number(BigInt.asIntN(64, BigInt(Math.trunc(sums[g]))));
            return new NumColumn(outType === 'long' ? 'long' : 'real', sums, null, G);
        }
        const nullsOut = new Uint8Array(G);
        let anyNull = false;
        for (let g = 0; g < G; g++) {
            if (counts[g] === 0) {
                nullsOut[g] = 1;
                anyNull = true;
            } else sums[g] /= counts[g];
        }
        return new NumColumn('real', sums, anyNull ? nullsOut : null, G);
    };
}

/** min(x) and max(x) over a numeric or a time column. */
function minOrMax(name: 'min' | 'max'): AggregateFastPath {
    return (vecs, gids, G, n) => {
        const v = vecs[0];
        const sign = name === 'max' ? 1 : -1;
        const col = numVec(v);
        if (col) {
            const sel = (v as { sel: Uint32Array | null }).sel;
            const best = new Float64Array(G);
            const seen = new Uint8Array(G);
            for (let i = 0; i < n; i++) {
                const j = sel ? sel[i] : i;
                if (col.nulls !== null && col.nulls[j] === 1) continue;
                const x = col.vals[j];
                if (x !== x) continue;
                const g = gids[i];
                if (seen[g] === 0 || (sign > 0 ? x > best[g] : x < best[g])) {
                    best[g] = x;
                    seen[g] = 1;
                }
            }
            const nulls = new Uint8Array(G);
            let any = false;
            for (let g = 0; g < G; g++) if (!seen[g]) {
                nulls[g] = 1;
                any = true;
            }
            return new NumColumn(col.type, best, any ? nulls : null, G);
        }
        if (!v.c && v.col instanceof TimeColumn) {
            const tc = v.col;
            const sel = v.sel;
            const ms = new Float64Array(G).fill(NaN);
            const sub = new Int32Array(G);
            for (let i = 0; i < n; i++) {
                const j = sel ? sel[i] : i;
                const m = tc.ms[j];
                if (m !== m) continue;
                const g = gids[i];
                const bm = ms[g];
                const s = tc.sub[j];
                if (bm !== bm || (sign > 0 ? m > bm || (m === bm && s > sub[g]) : m < bm || (m === bm && s < sub[g]))) {
                    ms[g] = m;
                    sub[g] = s;
                }
            }
            return new TimeColumn(tc.type, ms, sub, G);
        }
        return undefined;
    };
}

/** dcount(x) over a string column: distinct dictionary codes per group. */
function dcount(vecs: Vec[], gids: Uint32Array, G: number, n: number): Column | undefined {
    const v = vecs[0];
    if (v.c || !(v.col instanceof StrColumn)) return undefined;
    const col = v.col;
    const sel = v.sel;
    const D = col.dict.length;
    const out = new Float64Array(G);
    if (G * D <= 1 << 25) {
        const seen = new Uint8Array(G * D);
        for (let i = 0; i < n; i++) {
            const c = col.codes[sel ? sel[i] : i];
            if (c === 0) continue;
            const g = gids[i];
            const k = g * D + c;
            if (seen[k] === 0) {
                seen[k] = 1;
                out[g]++;
            }
        }
    } else {
        const seen = new Set<number>();
        for (let i = 0; i < n; i++) {
            const c = col.codes[sel ? sel[i] : i];
            if (c === 0) continue;
            const g = gids[i];
            const k = g * D + c;
            if (!seen.has(k)) {
                seen.add(k);
                out[g]++;
            }
        }
    }
    return new NumColumn('long', out, null, G);
}

/**
 * percentile(x, p) and percentiles_array(x, p, ...) over a numeric column with constant ranks:
 * the nearest-rank rule of the catalogue's nearestRank.
 */
function percentiles(name: 'percentile' | 'percentiles_array'): AggregateFastPath {
    return (vecs, gids, G, n, outType) => {
        const v = vecs[0];
        const col = numVec(v);
        if (!col) return undefined;
        const ranks: number[] = [];
        for (let k = 1; k < vecs.length; k++) {
            const r = vecs[k];
            if (!r.c) return undefined;
            if (typeof r.v === 'number') ranks.push(r.v);
            else if (Array.isArray(r.v)) for (const x of r.v) if (typeof x === 'number') ranks.push(x);
        }
        if (ranks.length === 0) return undefined;
        const sel = (v as { sel: Uint32Array | null }).sel;
        const counts = new Uint32Array(G + 1);
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            if (col.nulls !== null && col.nulls[j] === 1) continue;
            const x = col.vals[j];
            if (x !== x) continue;
            counts[gids[i] + 1]++;
        }
        for (let g = 0; g < G; g++) counts[g + 1] += counts[g];
        const pos = counts.slice(0, G);
        const all = new Float64Array(counts[G]);
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            if (col.nulls !== null && col.nulls[j] === 1) continue;
            const x = col.vals[j];
            if (x !== x) continue;
            all[pos[gids[i]]++] = x;
        }
        const pick = (seg: Float64Array, p: number): number | null => {
            const m = seg.length;
            if (m === 0 || !Number.isFinite(p)) return null;
            const rank = Math.min(m, Math.max(1, Math.ceil((p * m) / 100)));
            return seg[rank - 1];
        };
        if (name === 'percentile') {
            const out = new Float64Array(G);
            const nulls = new Uint8Array(G);
            let any = false;
            for (let g = 0; g < G; g++) {
                const seg = all.subarray(counts[g], counts[g + 1]);
                const m = seg.length;
                const p = ranks[0];
                const r = m === 0 || !Number.isFinite(p) ? null : quickselect(seg, Math.min(m, Math.max(1, Math.ceil((p * m) / 100))) - 1);
                if (r === null) {
                    nulls[g] = 1;
                    any = true;
                } else out[g] = r;
            }
            return new NumColumn(outType === 'long' ? 'long' : 'real', out, any ? nulls : null, G);
        }
        const vals: AplValue[] = [];
        for (let g = 0; g < G; g++) {
            const seg = all.subarray(counts[g], counts[g + 1]);
            seg.sort();
            vals.push(ranks.map(p => pick(seg, p)));
        }
        return columnFromValues('dynamic', vals);
    };
}

/** The k-th smallest value (0-based) of `a`, partially reordering it (Hoare selection, median of three). */
function quickselect(a: Float64Array, k: number): number {
    let lo = 0;
    let hi = a.length - 1;
    while (hi > lo) {
        if (hi - lo < 16) {
            for (let i = lo + 1; i <= hi; i++) {
                const x = a[i];
                let j = i - 1;
                while (j >= lo && a[j] > x) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = x;
            }
            return a[k];
        }
        const mid = (lo + hi) >>> 1;
        // Median of three as the pivot.
        let x = a[lo], y = a[mid];
        const z = a[hi];
        if (x > y) { const t = x; x = y; y = t; }
        if (y > z) { y = z; }
        if (x > y) { y = x; }
        const pivot = y;
        let i = lo;
        let j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                const t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

/** The fast paths by catalogue entry name (see the module comment). */
export const AGGREGATE_FAST_PATHS: ReadonlyMap<string, AggregateFastPath> = new Map<string, AggregateFastPath>([
    ['count', count],
    ['countif', countif],
    ['sum', sumOrAvg('sum')],
    ['avg', sumOrAvg('avg')],
    ['min', minOrMax('min')],
    ['max', minOrMax('max')],
    ['dcount', dcount],
    ['percentile', percentiles('percentile')],
    ['percentiles_array', percentiles('percentiles_array')],
]);
