/**
 * Columnar fast paths of catalogue aggregations: typed-array loops over whole columns for the
 * common cases of count, countif, sum, avg, min, max, dcount, percentile and percentiles_array.
 * The loops themselves are the kernels of kernels/aggregate.ts (why: see kernels/select.ts); a
 * fast path picks the kernel and shapes its result.
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
import { bucketValuesByGroup, countByGroup, countTrueByGroup, dcountCodesDense, dcountCodesOne, extremeByGroup, quickselect, sumCountByGroup, timeExtremeByGroup } from './kernels/aggregate.js';

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
    return new NumColumn('long', countByGroup(gids, n, G), null, G);
}

/** countif(predicate): rows per group where the predicate is true. */
function countif(vecs: Vec[], gids: Uint32Array, G: number, n: number): Column {
    return new NumColumn('long', countTrueByGroup(triArray(vecs[0], n), gids, n, G), null, G);
}

/** sum(x) and avg(x) over a numeric column. */
function sumOrAvg(name: 'sum' | 'avg'): AggregateFastPath {
    return (vecs, gids, G, n, outType) => {
        const col = numVec(vecs[0]);
        if (!col) return undefined;
        const sel = (vecs[0] as { sel: Uint32Array | null }).sel;
        const sums = new Float64Array(G);
        const counts = new Float64Array(G);
        sumCountByGroup(col.vals, col.nulls, sel, gids, n, sums, counts);
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
            extremeByGroup(col.vals, col.nulls, sel, gids, n, sign, best, seen);
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
            const ms = new Float64Array(G).fill(NaN);
            const sub = new Int32Array(G);
            timeExtremeByGroup(tc.ms, tc.sub, v.sel, gids, n, sign, ms, sub);
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
    if (G === 1) out[0] = dcountCodesOne(col.codes, sel, n, D);
    else if (G * D <= 1 << 25) dcountCodesDense(col.codes, sel, gids, n, D, new Uint8Array(G * D), out);
    else {
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
        const all = bucketValuesByGroup(col.vals, col.nulls, sel, gids, n, G, counts);
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
