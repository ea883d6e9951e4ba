/**
 * The 33 aggregation functions of inventory §5, with their reference accumulators.
 *
 * Conventions shared by every accumulator:
 * - rows whose aggregated value is null are ignored (`count()` counts rows);
 * - `*if` variants add a row only when the predicate argument is exactly `true`;
 * - constant arguments (percentile ranks, limits, k, bin counts) are read from the first row that
 *   carries them; the evaluator passes them on every row like any other argument;
 * - results over no rows follow KQL's defaults: counts, sums, variance and stdev are 0, array-valued
 *   aggregations give `[]`, everything else gives null.
 */
import type { Accumulator, AggregateFunction, EvalContext, ReturnRule, Signature } from './catalogue-types.js';
import type { AplType } from '../types/apl-types.js';
import { Datetime, Timespan, type AplValue, type JsonValue } from '../values.js';
import { asInt, canonicalKey, compareValues, isArray, param, sortValues, toJson } from './functions-collections-util.js';

// ---------------------------------------------------------------------------------------------
// Column naming (inventory §5 "Default output column names")
// ---------------------------------------------------------------------------------------------

/** The first argument's printed name with one leading underscore removed (`_time` -> `time`). */
function fieldPart(argNames: readonly string[]): string {
    const name = argNames[0] ?? '';
    return name.startsWith('_') ? name.slice(1) : name;
}

/** `prefix_field`, e.g. `avg_x`; `prefix_` when the argument has no printable name. */
function prefixed(prefix: string): (argNames: readonly string[]) => string {
    return argNames => `${prefix}_${fieldPart(argNames)}`;
}

// ---------------------------------------------------------------------------------------------
// Return rules
// ---------------------------------------------------------------------------------------------

const firstArgType: ReturnRule = (t: readonly AplType[]) => t[0] ?? 'unknown';

const sumType: ReturnRule = (t: readonly AplType[]) => {
    const a = t[0];
    if (a === 'long' || a === 'real' || a === 'timespan') return a;
    if (a === 'bool') return 'long';
    return a === undefined || a === 'unknown' ? 'unknown' : 'real';
};

const avgType: ReturnRule = (t: readonly AplType[]) => (t[0] === 'timespan' || t[0] === 'datetime' ? t[0] : 'real');

// ---------------------------------------------------------------------------------------------
// Accumulator building blocks
// ---------------------------------------------------------------------------------------------

/** Wraps an accumulator so that only rows whose argument `predIndex` is true are added. */
function onlyIf<S>(acc: Accumulator<S>, predIndex: number): Accumulator<S> {
    return {
        init: acc.init,
        add: (s, args) => (args[predIndex] === true ? acc.add(s, args) : s),
        merge: acc.merge,
        result: acc.result,
    };
}

/** Reads an integer constant argument, or `fallback` when absent/null. */
function constInt(v: AplValue | undefined, fallback: number): number {
    if (v === undefined || v === null) return fallback;
    return asInt(v) ?? fallback;
}

const countAcc: Accumulator<number> = {
    init: () => 0,
    add: s => s + 1,
    merge: (a, b) => a + b,
    result: s => s,
};

interface SumState {
    /** Exact sum of the integer values (long arithmetic wraps at 64 bits on output). */
    ints: bigint;
    /** Sum of the non-integer values. */
    reals: number;
    /** Sum of timespans, in ns. */
    ns: bigint;
    sawNumber: boolean;
    sawTimespan: boolean;
}

function addToSum(s: SumState, v: AplValue | undefined): SumState {
    if (typeof v === 'number') {
        if (Number.isSafeInteger(v)) s.ints += BigInt(v);
        else s.reals += v;
        s.sawNumber = true;
    } else if (typeof v === 'boolean') {
        s.ints += v ? 1n : 0n;
        s.sawNumber = true;
    } else if (v instanceof Timespan) {
        s.ns += v.ns;
        s.sawTimespan = true;
    }
    return s;
}

function sumResult(s: SumState, ctx: EvalContext): AplValue {
    if (ctx.resultType === 'timespan' || (s.sawTimespan && !s.sawNumber)) return new Timespan(s.ns);
    if (ctx.resultType === 'long') return Number(BigInt.asIntN(64, s.ints + BigInt(Math.trunc(s.reals))));
    return s.reals === 0 ? Number(s.ints) : Number(s.ints) + s.reals;
}

const sumAcc: Accumulator<SumState> = {
    init: () => ({ ints: 0n, reals: 0, ns: 0n, sawNumber: false, sawTimespan: false }),
    add: (s, [v]) => addToSum(s, v),
    merge: (a, b) => ({ ints: a.ints + b.ints, reals: a.reals + b.reals, ns: a.ns + b.ns, sawNumber: a.sawNumber || b.sawNumber, sawTimespan: a.sawTimespan || b.sawTimespan }),
    result: sumResult,
};

interface AvgState {
    sum: number;
    n: number;
    /** Datetime/timespan values are averaged exactly in ns. */
    ns: bigint;
    nsCount: number;
    kind: 'number' | 'datetime' | 'timespan' | null;
}

const avgAcc: Accumulator<AvgState> = {
    init: () => ({ sum: 0, n: 0, ns: 0n, nsCount: 0, kind: null }),
    add: (s, [v]) => {
        if (typeof v === 'number') {
            s.sum += v;
            s.n++;
            s.kind ??= 'number';
        } else if (typeof v === 'boolean') {
            s.sum += v ? 1 : 0;
            s.n++;
            s.kind ??= 'number';
        } else if (v instanceof Datetime || v instanceof Timespan) {
            s.ns += v.ns;
            s.nsCount++;
            s.kind ??= v instanceof Datetime ? 'datetime' : 'timespan';
        }
        return s;
    },
    merge: (a, b) => ({ sum: a.sum + b.sum, n: a.n + b.n, ns: a.ns + b.ns, nsCount: a.nsCount + b.nsCount, kind: a.kind ?? b.kind }),
    result: s => {
        if (s.kind === 'datetime' || s.kind === 'timespan') {
            if (s.nsCount === 0) return null;
            const mean = s.ns / BigInt(s.nsCount);
            return s.kind === 'datetime' ? new Datetime(mean) : new Timespan(mean);
        }
        return s.n === 0 ? null : s.sum / s.n;
    },
};

/** Keeps the extreme value; `sign` 1 for max, -1 for min. Ties keep the first value seen. */
function extremeAcc(sign: 1 | -1): Accumulator<{ best: AplValue }> {
    const better = (v: AplValue, best: AplValue) => best === null || sign * compareValues(v, best) > 0;
    return {
        init: () => ({ best: null }),
        add: (s, [v]) => {
            if (v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v)) && better(v, s.best)) s.best = v;
            return s;
        },
        merge: (a, b) => (b.best !== null && better(b.best, a.best) ? b : a),
        result: s => s.best,
    };
}

/**
 * arg_max / arg_min: keeps the whole argument row (`[expr, extra1, extra2, ...]`) of the row with
 * the largest/smallest non-null `expr`; ties keep the first row seen. The result is that row as an
 * array of run-time values (datetimes stay `Datetime`), which the evaluator spreads into the
 * output columns (for `*` the evaluator passes every column of the row as extra arguments). With
 * no qualifying row the result is null and the evaluator fills the columns with nulls.
 */
function argExtremeAcc(sign: 1 | -1): Accumulator<{ best: AplValue; row: AplValue[] | null }> {
    const better = (v: AplValue, best: AplValue) => best === null || sign * compareValues(v, best) > 0;
    return {
        init: () => ({ best: null, row: null }),
        add: (s, args) => {
            const v = args[0];
            if (v !== null && v !== undefined && better(v, s.best)) {
                s.best = v;
                s.row = [...args];
            }
            return s;
        },
        merge: (a, b) => (b.best !== null && better(b.best, a.best) ? b : a),
        // The row holds raw run-time values, not JSON: the evaluator unpacks it into columns.
        result: s => (s.row === null ? null : (s.row as unknown as AplValue)),
    };
}

/** Exact distinct count over canonical keys (long 1 and real 1.0 count once; "1" is different). */
const dcountAcc: Accumulator<Set<string>> = {
    init: () => new Set<string>(),
    add: (s, [v]) => {
        if (v !== null && v !== undefined) s.add(canonicalKey(v));
        return s;
    },
    merge: (a, b) => {
        for (const k of b) a.add(k);
        return a;
    },
    result: s => s.size,
};

interface ListState {
    items: JsonValue[];
    limit: number | null;
}

/** make_list: every non-null value, in arrival order, up to the limit read from `limitIndex`. */
function listAcc(limitIndex: number, defaultLimit: number): Accumulator<ListState> {
    return {
        init: () => ({ items: [], limit: null }),
        add: (s, args) => {
            s.limit ??= constInt(args[limitIndex], defaultLimit);
            const v = args[0];
            if (v !== null && v !== undefined && s.items.length < s.limit) s.items.push(toJson(v));
            return s;
        },
        merge: (a, b) => {
            const limit = a.limit ?? b.limit ?? defaultLimit;
            return { items: [...a.items, ...b.items].slice(0, limit), limit };
        },
        result: s => s.items,
    };
}

interface SetState extends ListState {
    keys: Set<string>;
}

/** make_set: distinct non-null values in first-seen order, up to the limit read from `limitIndex`. */
function setAcc(limitIndex: number, defaultLimit: number): Accumulator<SetState> {
    const put = (s: SetState, v: JsonValue) => {
        const k = canonicalKey(v);
        if (!s.keys.has(k) && s.items.length < (s.limit ?? defaultLimit)) {
            s.keys.add(k);
            s.items.push(v);
        }
    };
    return {
        init: () => ({ items: [], keys: new Set<string>(), limit: null }),
        add: (s, args) => {
            s.limit ??= constInt(args[limitIndex], defaultLimit);
            const v = args[0];
            if (v !== null && v !== undefined) put(s, toJson(v));
            return s;
        },
        merge: (a, b) => {
            a.limit ??= b.limit;
            for (const v of b.items) put(a, v);
            return a;
        },
        result: s => s.items,
    };
}

interface MomentState {
    n: number;
    mean: number;
    m2: number;
}

/** Welford's running mean and squared deviations; merged with Chan's formula. */
function momentAcc(result: (variance: number) => number): Accumulator<MomentState> {
    return {
        init: () => ({ n: 0, mean: 0, m2: 0 }),
        add: (s, [v]) => {
            const x = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null;
            if (x === null) return s;
            s.n++;
            const d = x - s.mean;
            s.mean += d / s.n;
            s.m2 += d * (x - s.mean);
            return s;
        },
        merge: (a, b) => {
            if (a.n === 0) return b;
            if (b.n === 0) return a;
            const n = a.n + b.n;
            const d = b.mean - a.mean;
            return { n, mean: a.mean + (d * b.n) / n, m2: a.m2 + b.m2 + (d * d * a.n * b.n) / n };
        },
        // Sample statistics (n-1); a single value or no value gives 0, as in KQL.
        result: s => result(s.n < 2 ? 0 : s.m2 / (s.n - 1)),
    };
}

interface PercentileState {
    values: AplValue[];
    ranks: number[] | null;
}

/**
 * Exact nearest-rank percentile: sort the n non-null values ascending and take the one at rank
 * ceil(p/100 · n), with rank clamped to [1, n] (so p = 0 gives the minimum, p = 100 the maximum).
 */
export function nearestRank(sorted: readonly AplValue[], p: number): AplValue {
    const n = sorted.length;
    if (n === 0 || !Number.isFinite(p)) return null;
    // p·n/100 rather than p/100·n: exact for integer p, so 95% of 20 is rank 19, not 20.
    const rank = Math.min(n, Math.max(1, Math.ceil((p * n) / 100)));
    return sorted[rank - 1];
}

/** `readRanks` pulls the percentile ranks out of a row's arguments. */
function percentileAcc(readRanks: (args: AplValue[]) => number[] | null, shape: 'single' | 'array'): Accumulator<PercentileState> {
    return {
        init: () => ({ values: [], ranks: null }),
        add: (s, args) => {
            s.ranks ??= readRanks(args);
            const v = args[0];
            if (v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v))) s.values.push(v);
            return s;
        },
        merge: (a, b) => ({ values: [...a.values, ...b.values], ranks: a.ranks ?? b.ranks }),
        result: s => {
            const ranks = s.ranks ?? [];
            if (shape === 'single') return s.values.length === 0 || ranks.length === 0 ? null : nearestRank(sortValues(s.values, false, true), ranks[0]);
            if (s.values.length === 0) return ranks.map(() => null);
            const sorted = sortValues(s.values, false, true);
            return ranks.map(p => toJson(nearestRank(sorted, p)));
        },
    };
}

function numbersFrom(v: AplValue | undefined): number[] | null {
    if (typeof v === 'number') return [v];
    if (isArray(v)) {
        const out: number[] = [];
        for (const e of v) if (typeof e === 'number') out.push(e);
        return out;
    }
    return null;
}

interface TopkState {
    counts: Map<string, { value: JsonValue; count: number }>;
    k: number | null;
}

/**
 * topk: counts every distinct non-null value and returns the k most frequent as an array of
 * `{key, count, error}` objects, sorted by count descending and then by key ascending. Counting is
 * exact, so `error` is always 0.
 */
function topkAcc(kIndex: number): Accumulator<TopkState> {
    const bump = (s: TopkState, value: JsonValue, by: number) => {
        const key = canonicalKey(value);
        const e = s.counts.get(key);
        if (e) e.count += by;
        else s.counts.set(key, { value, count: by });
    };
    return {
        init: () => ({ counts: new Map(), k: null }),
        add: (s, args) => {
            s.k ??= constInt(args[kIndex], 10);
            const v = args[0];
            if (v !== null && v !== undefined) bump(s, toJson(v), 1);
            return s;
        },
        merge: (a, b) => {
            a.k ??= b.k;
            for (const e of b.counts.values()) bump(a, e.value, e.count);
            return a;
        },
        result: s => {
            const entries = [...s.counts.values()];
            entries.sort((x, y) => y.count - x.count || compareValues(x.value, y.value));
            return entries.slice(0, Math.max(0, s.k ?? 10)).map(e => ({ key: e.value, count: e.count, error: 0 }));
        },
    };
}

interface HistogramState {
    values: number[];
    bins: number | null;
}

/**
 * histogram: splits [min, max] of the non-null values into `number_of_bins` equal-width buckets and
 * returns the non-empty ones as an array of `{value, count}` objects in ascending order, where
 * `value` is the bucket's lower bound (the maximum falls in the last bucket). When every value is
 * equal there is one bucket. Datetimes and timespans are bucketed by their nanosecond value.
 */
function histogramAcc(binsIndex: number): Accumulator<HistogramState> {
    return {
        init: () => ({ values: [], bins: null }),
        add: (s, args) => {
            s.bins ??= constInt(args[binsIndex], 100);
            const v = args[0];
            const x = typeof v === 'number' ? v : v instanceof Datetime || v instanceof Timespan ? Number(v.ns) : null;
            if (x !== null && Number.isFinite(x)) s.values.push(x);
            return s;
        },
        merge: (a, b) => ({ values: [...a.values, ...b.values], bins: a.bins ?? b.bins }),
        result: s => {
            if (s.values.length === 0) return [];
            const bins = s.bins ?? 100;
            if (bins < 1) return null;
            let min = Infinity;
            let max = -Infinity;
            for (const x of s.values) {
                if (x < min) min = x;
                if (x > max) max = x;
            }
            const width = (max - min) / bins;
            if (width === 0) return [{ value: min, count: s.values.length }];
            const counts = new Map<number, number>();
            for (const x of s.values) {
                const i = Math.min(bins - 1, Math.floor((x - min) / width));
                counts.set(i, (counts.get(i) ?? 0) + 1);
            }
            return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([i, count]) => ({ value: min + i * width, count }));
        },
    };
}

/**
 * rate: the sum of the values divided by the length of the time window in seconds. The window is
 * `ctx.startTime..ctx.endTime`: the evaluator sets it to the bucket's bounds when grouping by
 * `bin(_time, X)` / `bin_auto(_time)`, and to the query's time range otherwise. Null when no window
 * is known or it is empty. Timespans are summed in ns.
 */
const rateAcc: Accumulator<SumState> = {
    init: sumAcc.init,
    add: sumAcc.add,
    merge: sumAcc.merge,
    result: (s, ctx) => {
        if (ctx.startTime === undefined || ctx.endTime === undefined || ctx.endTime <= ctx.startTime) return null;
        const seconds = Number(ctx.endTime - ctx.startTime) / 1e9;
        const total = s.sawTimespan && !s.sawNumber ? Number(s.ns) : Number(s.ints) + s.reals;
        return total / seconds;
    },
};

interface PhrasesState {
    counts: Map<string, number>;
    max: number | null;
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * phrases (our documented version of an Axiom-only text-mining aggregation): each string is split
 * into words (runs of Unicode letters and digits, lower-cased); every run of 2 to 4 consecutive
 * words is a candidate phrase (a one-word text is a phrase by itself), counted at most once per
 * row. The result is an array of `{phrase, count}` objects, most frequent first, then longer
 * phrases first, then alphabetical; at most `max_phrases` entries.
 */
const phrasesAcc: Accumulator<PhrasesState> = {
    init: () => ({ counts: new Map(), max: null }),
    add: (s, [text, max]) => {
        s.max ??= constInt(max, 10);
        if (typeof text !== 'string') return s;
        const words = (text.match(WORD) ?? []).map(w => w.toLowerCase());
        const seen = new Set<string>();
        if (words.length === 1) seen.add(words[0]);
        for (let n = 2; n <= 4; n++) {
            for (let i = 0; i + n <= words.length; i++) seen.add(words.slice(i, i + n).join(' '));
        }
        for (const p of seen) s.counts.set(p, (s.counts.get(p) ?? 0) + 1);
        return s;
    },
    merge: (a, b) => {
        a.max ??= b.max;
        for (const [p, c] of b.counts) a.counts.set(p, (a.counts.get(p) ?? 0) + c);
        return a;
    },
    result: s => {
        const entries = [...s.counts.entries()];
        const words = (p: string) => p.split(' ').length;
        entries.sort((x, y) => y[1] - x[1] || words(y[0]) - words(x[0]) || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
        return entries.slice(0, Math.max(0, s.max ?? 10)).map(([phrase, count]) => ({ phrase, count }));
    },
};

// ---------------------------------------------------------------------------------------------
// Signatures used more than once
// ---------------------------------------------------------------------------------------------

const NUM: Signature[] = [{ params: [param('expr', 'number')] }];
const NUM_IF: Signature[] = [{ params: [param('expr', 'number'), param('predicate', 'bool')] }];

// ---------------------------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------------------------

export const AGGREGATES: AggregateFunction[] = [
    {
        kind: 'aggregate',
        name: 'arg_max',
        signatures: [{ params: [param('expr', 'scalar'), param('fields', 'field', { variadic: true })], arity: { min: 2 } }],
        returns: firstArgType,
        description:
            'Finds the row with the largest value of `expr` and returns that value together with the listed fields of the same row (`*` for all fields; `Name = Expr` is allowed).',
        example: "['sample-http-logs'] | summarize arg_max(req_duration_ms, uri, status) by method",
        defaultColumnName: argNames => argNames[0] || 'max',
        axiomAggName: 'argmax',
        legacyOp: 'argmax',
        accumulator: argExtremeAcc(1),
    },
    {
        kind: 'aggregate',
        name: 'arg_min',
        signatures: [{ params: [param('expr', 'scalar'), param('fields', 'field', { variadic: true })], arity: { min: 2 } }],
        returns: firstArgType,
        description:
            'Finds the row with the smallest value of `expr` and returns that value together with the listed fields of the same row (`*` for all fields; `Name = Expr` is allowed).',
        example: "['sample-http-logs'] | summarize arg_min(req_duration_ms, uri, status) by method",
        defaultColumnName: argNames => argNames[0] || 'min',
        axiomAggName: 'argmin',
        legacyOp: 'argmin',
        accumulator: argExtremeAcc(-1),
    },
    {
        kind: 'aggregate',
        name: 'avg',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'numeric_or_time')] }],
        returns: avgType,
        description: 'Returns the arithmetic mean of the non-null values in the group. Integers average to a real; timespans to a timespan.',
        example: "['sample-http-logs'] | summarize avg(req_duration_ms) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('avg'),
        axiomAggName: 'avg',
        legacyOp: 'avg',
        accumulator: avgAcc,
    },
    {
        kind: 'aggregate',
        name: 'avgif',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('predicate', 'bool')] }],
        returns: avgType,
        description: 'Returns the mean of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize avgif(req_duration_ms, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('avg'),
        axiomAggName: 'avgif',
        accumulator: onlyIf(avgAcc, 1),
    },
    {
        kind: 'aggregate',
        name: 'count',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [] }],
        returns: 'long',
        description: 'Counts the rows in the group.',
        example: "['sample-http-logs'] | summarize count() by status",
        inMakeSeries: true,
        defaultColumnName: () => 'count_',
        axiomAggName: 'count',
        legacyOp: 'count',
        accumulator: countAcc,
    },
    {
        kind: 'aggregate',
        name: 'countif',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('predicate', 'bool')] }],
        returns: 'long',
        description: 'Counts the rows in the group for which the predicate is true.',
        example: "['sample-http-logs'] | summarize countif(status == '500') by method",
        inMakeSeries: true,
        defaultColumnName: () => 'countif_',
        axiomAggName: 'countif',
        legacyOp: 'countif',
        accumulator: onlyIf(countAcc, 0),
    },
    {
        kind: 'aggregate',
        name: 'dcount',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'scalar'), param('accuracy', 'long', { optional: true, constant: true })] }],
        returns: 'long',
        description:
            'Counts the distinct non-null values of `expr`. Axiom estimates this; the reference evaluator counts exactly, except over a dataset whose blocks stay on disk when the distinct values pass the query\'s memory for them: then HyperLogLog estimates it (the accuracy argument, 0–4, picks its precision as in Kusto; the default has a standard error of 0.81%) and the result says it is an estimate.',
        example: "['sample-http-logs'] | summarize dcount(id) by status",
        inMakeSeries: true,
        estimate: true,
        defaultColumnName: prefixed('dcount'),
        axiomAggName: 'distinct',
        legacyOp: 'distinct',
        accumulator: dcountAcc,
    },
    {
        kind: 'aggregate',
        name: 'dcountif',
        signatures: [{ params: [param('expr', 'scalar'), param('predicate', 'bool'), param('accuracy', 'long', { optional: true, constant: true })] }],
        returns: 'long',
        description: 'Counts the distinct non-null values of `expr` over the rows where the predicate is true (exact in the reference evaluator).',
        example: "['sample-http-logs'] | summarize dcountif(id, status == '200') by method",
        inMakeSeries: true,
        estimate: true,
        defaultColumnName: prefixed('dcountif'),
        axiomAggName: 'distinctif',
        legacyOp: 'distinctif',
        accumulator: onlyIf(dcountAcc, 1),
    },
    {
        kind: 'aggregate',
        name: 'histogram',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('number_of_bins', 'long', { constant: true })] }],
        returns: 'dynamic',
        description:
            'Distributes the values into equal-width buckets between their minimum and maximum. The result is an array of `{value, count}` objects, one per non-empty bucket in ascending order, where `value` is the lower bound of the bucket.',
        example: "['sample-http-logs'] | summarize histogram(req_duration_ms, 10)",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('histogram'),
        axiomAggName: 'histogram',
        legacyOp: 'histogram',
        accumulator: histogramAcc(1),
    },
    {
        kind: 'aggregate',
        name: 'histogramif',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('number_of_bins', 'long', { constant: true }), param('predicate', 'bool')] }],
        returns: 'dynamic',
        description: 'Like `histogram`, over the rows where the predicate is true. Returns an array of `{value, count}` buckets.',
        example: "['sample-http-logs'] | summarize histogramif(req_duration_ms, 10, status == '200')",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('histogramif'),
        axiomAggName: 'histogramif',
        accumulator: onlyIf(histogramAcc(1), 2),
    },
    {
        kind: 'aggregate',
        name: 'make_list',
        signatures: [{ params: [param('expr', 'any'), param('max_size', 'long', { optional: true, constant: true })] }],
        returns: 'dynamic',
        description: 'Collects the non-null values of the group into a dynamic array, in row order (at most `max_size`, default 1048576).',
        example: "['sample-http-logs'] | summarize make_list(uri) by id",
        defaultColumnName: prefixed('make_list'),
        axiomAggName: 'makelist',
        legacyOp: 'makelist',
        accumulator: listAcc(1, 1048576),
    },
    {
        kind: 'aggregate',
        name: 'make_list_if',
        signatures: [{ params: [param('expr', 'any'), param('predicate', 'bool'), param('max_size', 'long', { optional: true, constant: true })] }],
        returns: 'dynamic',
        description: 'Collects the non-null values of `expr` from the rows where the predicate is true into a dynamic array.',
        example: "['sample-http-logs'] | summarize make_list_if(uri, status == '500') by id",
        defaultColumnName: prefixed('make_list_if'),
        axiomAggName: 'makelistif',
        accumulator: onlyIf(listAcc(2, 1048576), 1),
    },
    {
        kind: 'aggregate',
        name: 'make_set',
        signatures: [{ params: [param('expr', 'any'), param('limit', 'long', { optional: true, constant: true })] }],
        returns: 'dynamic',
        description: 'Collects the distinct non-null values of the group into a dynamic array in first-seen order, keeping at most `limit` (default 128).',
        example: "['sample-http-logs'] | summarize make_set(method) by status",
        defaultColumnName: prefixed('make_set'),
        axiomAggName: 'makeset',
        legacyOp: 'makeset',
        accumulator: setAcc(1, 128),
    },
    {
        kind: 'aggregate',
        name: 'make_set_if',
        signatures: [{ params: [param('expr', 'any'), param('predicate', 'bool'), param('max_size', 'long', { optional: true, constant: true })] }],
        returns: 'dynamic',
        description: 'Collects the distinct non-null values of `expr` from the rows where the predicate is true (at most `max_size`, default 1048576).',
        example: "['sample-http-logs'] | summarize make_set_if(method, status == '500') by id",
        defaultColumnName: prefixed('make_set_if'),
        axiomAggName: 'makesetif',
        legacyOp: 'makesetif',
        accumulator: onlyIf(setAcc(2, 1048576), 1),
    },
    {
        kind: 'aggregate',
        name: 'max',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'scalar')] }],
        returns: firstArgType,
        description: 'Returns the largest non-null value of the group (numbers, datetimes, timespans or strings).',
        example: "['sample-http-logs'] | summarize max(req_duration_ms) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('max'),
        axiomAggName: 'max',
        legacyOp: 'max',
        accumulator: extremeAcc(1),
    },
    {
        kind: 'aggregate',
        name: 'maxif',
        signatures: [{ params: [param('expr', 'scalar'), param('predicate', 'bool')] }],
        returns: firstArgType,
        description: 'Returns the largest value of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize maxif(req_duration_ms, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('maxif'),
        axiomAggName: 'maxif',
        accumulator: onlyIf(extremeAcc(1), 1),
    },
    {
        kind: 'aggregate',
        name: 'min',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'scalar')] }],
        returns: firstArgType,
        description: 'Returns the smallest non-null value of the group (numbers, datetimes, timespans or strings).',
        example: "['sample-http-logs'] | summarize min(req_duration_ms) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('min'),
        axiomAggName: 'min',
        legacyOp: 'min',
        accumulator: extremeAcc(-1),
    },
    {
        kind: 'aggregate',
        name: 'minif',
        signatures: [{ params: [param('expr', 'scalar'), param('predicate', 'bool')] }],
        returns: firstArgType,
        description: 'Returns the smallest value of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize minif(req_duration_ms, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('minif'),
        axiomAggName: 'minif',
        accumulator: onlyIf(extremeAcc(-1), 1),
    },
    {
        kind: 'aggregate',
        name: 'percentile',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('percentile', 'number', { constant: true })] }],
        returns: firstArgType,
        description:
            'Returns the value below which the given percentage of the values fall. Axiom estimates it; the reference evaluator uses the exact nearest-rank method (rank ⌈p/100·n⌉ of the sorted values), except over a dataset whose blocks stay on disk when the values pass the query\'s memory for them: then a quantile sketch gives a value within 1% of it and the result says it is an estimate.',
        example: "['sample-http-logs'] | summarize percentile(req_duration_ms, 95) by method",
        inMakeSeries: true,
        estimate: true,
        defaultColumnName: prefixed('percentile'),
        axiomAggName: 'percentiles',
        legacyOp: 'percentiles',
        accumulator: percentileAcc(args => numbersFrom(args[1]), 'single'),
    },
    {
        kind: 'aggregate',
        name: 'percentileif',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('percentile', 'number', { constant: true }), param('predicate', 'bool')] }],
        returns: firstArgType,
        description: 'Returns the nearest-rank percentile of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize percentileif(req_duration_ms, 95, status == '200') by method",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('percentileif'),
        axiomAggName: 'percentilesif',
        accumulator: onlyIf(percentileAcc(args => numbersFrom(args[1]), 'single'), 2),
    },
    {
        kind: 'aggregate',
        name: 'percentiles_array',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('percentile', 'number', { constant: true }), param('more', 'number', { optional: true, variadic: true, constant: true })], arity: { min: 2 } }],
        returns: 'dynamic',
        description: 'Returns a dynamic array with the nearest-rank value of each requested percentile, in the order given.',
        example: "['sample-http-logs'] | summarize percentiles_array(req_duration_ms, 50, 95, 99) by method",
        estimate: true,
        defaultColumnName: prefixed('percentiles'),
        axiomAggName: 'percentiles',
        legacyOp: 'percentiles',
        accumulator: percentileAcc(args => args.slice(1).filter((a): a is number => typeof a === 'number'), 'array'),
    },
    {
        kind: 'aggregate',
        name: 'percentiles_arrayif',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('percentiles', 'array', { constant: true }), param('predicate', 'bool')] }],
        returns: 'dynamic',
        description: 'Returns a dynamic array with the nearest-rank value of each percentile in the array argument, over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize percentiles_arrayif(req_duration_ms, dynamic([50, 95]), status == '200') by method",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('percentiles_arrayif'),
        axiomAggName: 'percentilesif',
        accumulator: onlyIf(percentileAcc(args => numbersFrom(args[1]), 'array'), 2),
    },
    {
        kind: 'aggregate',
        name: 'phrases',
        signatures: [{ params: [param('column', 'string'), param('max_phrases', 'long', { constant: true })] }],
        returns: 'dynamic',
        description:
            'Finds the most common phrases in a text column. The reference evaluator counts runs of 2–4 consecutive lower-cased words (once per row) and returns an array of `{phrase, count}` objects, most frequent first, at most `max_phrases` of them.',
        example: "['sample-http-logs'] | summarize phrases(uri, 10)",
        axiomOnly: true,
        defaultColumnName: prefixed('phrases'),
        axiomAggName: 'computed',
        accumulator: phrasesAcc,
    },
    {
        kind: 'aggregate',
        name: 'rate',
        signatures: [{ params: [param('field', 'numeric_or_time')] }],
        returns: 'real',
        description:
            'Returns the per-second rate of a field: the sum of its values divided by the length of the time window, which is the `bin(_time, …)` bucket when grouping by time and the query time range otherwise.',
        example: "['sample-http-logs'] | summarize rate(resp_body_size_bytes) by bin(_time, 1m)",
        inMakeSeries: true,
        axiomOnly: true,
        defaultColumnName: () => 'rate',
        axiomAggName: 'rate',
        legacyOp: 'rate',
        accumulator: rateAcc,
    },
    {
        kind: 'aggregate',
        name: 'spotlight',
        signatures: [{ params: [param('selection_predicate', 'bool'), param('fields', 'field', { variadic: true })], arity: { min: 2 } }],
        returns: 'dynamic',
        description:
            'Compares the rows matching a selection predicate against the remaining rows and ranks the field values that differ most between the two cohorts (`*` analyses every field).',
        example: "['sample-http-logs'] | summarize spotlight(status startswith '5', method, uri, ['geo.country'])",
        axiomOnly: true,
        defaultColumnName: () => 'spotlight',
        axiomAggName: 'spotlight',
        unsupported:
            "spotlight's scoring and output (bar charts and boxplots rendered by the Axiom console) are not specified, and it needs the analysed fields' names, which aggregation arguments do not carry",
    },
    {
        kind: 'aggregate',
        name: 'stdev',
        signatures: NUM,
        returns: 'real',
        description: 'Returns the sample standard deviation (n − 1 denominator) of the values in the group.',
        example: "['sample-http-logs'] | summarize stdev(req_duration_ms) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('stdev'),
        axiomAggName: 'stdev',
        legacyOp: 'stdev',
        accumulator: momentAcc(Math.sqrt),
    },
    {
        kind: 'aggregate',
        name: 'stdevif',
        signatures: NUM_IF,
        returns: 'real',
        description: 'Returns the sample standard deviation of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize stdevif(req_duration_ms, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('stdev'),
        axiomAggName: 'stdevif',
        accumulator: onlyIf(momentAcc(Math.sqrt), 1),
    },
    {
        kind: 'aggregate',
        name: 'sum',
        // Columnar fast path (this accumulator stays the reference): AGGREGATE_FAST_PATHS in language/eval/aggregate-fast-paths.ts.
        signatures: [{ params: [param('expr', 'numeric_or_time')] }],
        returns: sumType,
        description: 'Adds up the non-null values of the group. Integers sum to a long (64-bit), reals to a real, timespans to a timespan.',
        example: "['sample-http-logs'] | summarize sum(resp_body_size_bytes) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('sum'),
        axiomAggName: 'sum',
        legacyOp: 'sum',
        accumulator: sumAcc,
    },
    {
        kind: 'aggregate',
        name: 'sumif',
        signatures: [{ params: [param('expr', 'numeric_or_time'), param('predicate', 'bool')] }],
        returns: sumType,
        description: 'Adds up `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize sumif(resp_body_size_bytes, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('sumif'),
        axiomAggName: 'sumif',
        accumulator: onlyIf(sumAcc, 1),
    },
    {
        kind: 'aggregate',
        name: 'topk',
        signatures: [{ params: [param('field', 'scalar'), param('k', 'long', { constant: true })] }],
        returns: 'dynamic',
        description:
            'Returns the `k` most frequent values of a field as an array of `{key, count, error}` objects, most frequent first (ties by key). Axiom estimates the counts; the reference evaluator counts exactly, so `error` is 0.',
        example: "['sample-http-logs'] | summarize topk(status, 5)",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('topk'),
        axiomAggName: 'topk',
        legacyOp: 'topk',
        accumulator: topkAcc(1),
    },
    {
        kind: 'aggregate',
        name: 'topkif',
        signatures: [{ params: [param('field', 'scalar'), param('k', 'long', { constant: true }), param('predicate', 'bool')] }],
        returns: 'dynamic',
        description: 'Like `topk`, counting only the rows where the predicate is true. Returns an array of `{key, count, error}` objects.',
        example: "['sample-http-logs'] | summarize topkif(uri, 5, status == '500')",
        estimate: true,
        axiomOnly: true,
        defaultColumnName: prefixed('topkif'),
        axiomAggName: 'topkif',
        accumulator: onlyIf(topkAcc(1), 2),
    },
    {
        kind: 'aggregate',
        name: 'variance',
        signatures: NUM,
        returns: 'real',
        description: 'Returns the sample variance (n − 1 denominator) of the values in the group.',
        example: "['sample-http-logs'] | summarize variance(req_duration_ms) by status",
        inMakeSeries: true,
        defaultColumnName: prefixed('variance'),
        axiomAggName: 'variance',
        legacyOp: 'variance',
        accumulator: momentAcc(v => v),
    },
    {
        kind: 'aggregate',
        name: 'varianceif',
        signatures: NUM_IF,
        returns: 'real',
        description: 'Returns the sample variance of `expr` over the rows where the predicate is true.',
        example: "['sample-http-logs'] | summarize varianceif(req_duration_ms, status == '200') by method",
        inMakeSeries: true,
        defaultColumnName: prefixed('varianceif'),
        axiomAggName: 'varianceif',
        accumulator: onlyIf(momentAcc(v => v), 1),
    },
];
