/**
 * One query over row ranges in parallel (the service's query workers, server/query): each part
 * runs the query over its share of a dataset scan up to a mergeable step and returns a small
 * partial result; one merge run combines them and runs the rest of the pipeline.
 *
 * Planned shapes, over one dataset with only row-wise steps before the mergeable one:
 * - `count`: the parts' counts add up;
 * - `summarize` whose aggregations are count/countif/sum/sumif/min/max/minif/maxif/avg/avgif over
 *   numbers (by any keys): per-group states merge exactly, except that sums of reals are added
 *   in another order (the last bits may differ, as in every parallel database);
 * - over a dataset's blocks on disk (engine.ts), also dcount/dcountif and
 *   percentile/percentileif/percentiles_array(if) over numbers: their states are exact until the
 *   merge's budget, then sketches (merge-states.ts), and cross threads (serializePartial);
 * - `top N by …` / `sort by … | take N` after `where` steps only: each part returns the physical
 *   rows of its top N; the merge run scans just those rows, so ties break as in one run.
 * Everything else runs as one job. The parts and the merge must read the same rows: the caller
 * dispatches all parts at once (same snapshot), and the merge of a `top` keeps only the rows given.
 */
import type * as ast from '../generated/ast.js';
import { lookupAggregate } from '../builtins/index.js';
import { canonicalKey, compareValues } from '../runtime-values.js';
import type { AplValue } from '../values.js';
import { type Column, ConstColumn, NumColumn, type ScalarType, columnFromValues } from './columns.js';
import { sumCountByGroup } from './kernels/aggregate.js';
import { zonesPrune } from './kernels/topn.js';
import { compileAggregate, groupRows, keyColumn, permute, runAggregate, sortGroupsByKeys, type Grouping } from './aggregate.js';
import { type QueryEnv, type Vec, triArray, vget } from './expr.js';
import { Frame, ROWID, type AggInfo, type FrameCol, type FrameMeta } from './frame.js';
import { groupKeys } from './operators/aggregate-ops.js';
import { uniqueName } from './operators/common.js';
import { decodeValue, encodeValue, type EncodedValue } from './replica.js';
import { DistinctState, QuantileState, constantRanks, distinctStates, estimateNote, quantileStates, type DistinctStateJson, type MergeState, type QuantileStateJson } from './merge-states.js';
import type { RunStats } from './query.js';
import { rowWeights, weightedCounts } from './weighted-counts.js';

export type PartitionKind = 'count' | 'summarize' | 'top';

export interface PartitionPlan {
    kind: PartitionKind;
    dataset: string;
    /** Index of the mergeable operator in the top pipeline. */
    opIndex: number;
}

/** Which part of each dataset scan a run covers. */
export interface PartitionSpec {
    index: number;
    count: number;
}

type MergeKind = 'sum' | 'min' | 'max' | 'avg' | 'distinct' | 'quantile';

const MERGEABLE: Record<string, MergeKind> = {
    count: 'sum', countif: 'sum', sum: 'sum', sumif: 'sum', min: 'min', minif: 'min', max: 'max', maxif: 'max', avg: 'avg', avgif: 'avg',
};
/**
 * Mergeable when the parts are a dataset's blocks on disk, run in parts on several threads: dcount's
 * and percentile's states cross threads (merge-states.ts toPortable). In memory, one job's
 * dcount over the dataset's one dictionary is faster than parts' strings.
 */
const MERGEABLE_BLOCKS: Record<string, MergeKind> = {
    ...MERGEABLE,
    dcount: 'distinct', dcountif: 'distinct',
    percentile: 'quantile', percentileif: 'quantile', percentiles_array: 'quantile', percentiles_arrayif: 'quantile',
};
/** What a plan's parts read: a dataset in memory (on worker threads), or its blocks on disk (on worker threads or the merge's own). */
export type PartsRunIn = 'threads' | 'blocks';

const MERGEABLE_BY_RUN: Record<PartsRunIn, Record<string, MergeKind>> = { threads: MERGEABLE, blocks: MERGEABLE_BLOCKS };
/** Aggregations whose states are numbers only when their argument is a number. */
const NUMERIC_ONLY = new Set(['sum', 'sumif', 'avg', 'avgif']);
const NUMERIC: ReadonlySet<ScalarType> = new Set<ScalarType>(['long', 'real']);

/** Row-wise steps the parts may run before the mergeable one. */
const ROW_WISE = new Set(['WhereOperator', 'ExtendOperator', 'ProjectOperator', 'ProjectAwayOperator', 'ProjectKeepOperator', 'ProjectRenameOperator']);

function unparen(e: ast.Expression): ast.Expression {
    while (e.$type === 'ParenthesizedExpression') e = (e as ast.ParenthesizedExpression).expression;
    return e;
}

/**
 * The plan for a parsed query, or undefined when it runs as one job. `runIn` (or what it says for
 * the query's dataset) says which aggregations' states may be merged (MERGEABLE_BY_RUN).
 */
export function planPartition(model: ast.Model, isDataset: (name: string) => boolean, runIn: PartsRunIn | ((dataset: string) => PartsRunIn) = 'threads'): PartitionPlan | undefined {
    if (model.statements.length !== 1 || model.statements[0].$type !== 'QueryStatement') return undefined;
    const body = (model.statements[0] as ast.QueryStatement).body;
    if (body.$type !== 'Pipeline') return undefined;
    const p = body as ast.Pipeline;
    if (p.source.$type !== 'NameReference' && p.source.$type !== 'BracketReference') return undefined;
    const dataset = (p.source as ast.NameReference).name;
    if (!isDataset(dataset)) return undefined;
    const ops = p.operators;
    let k = 0;
    while (k < ops.length && ROW_WISE.has(ops[k].$type)) k++;
    const op = ops[k];
    if (!op) return undefined;
    const whereOnly = ops.slice(0, k).every(o => o.$type === 'WhereOperator');
    if (op.$type === 'CountOperator') return { kind: 'count', dataset, opIndex: k };
    if (op.$type === 'TopOperator' && whereOnly && smallCount((op as ast.TopOperator).count)) return { kind: 'top', dataset, opIndex: k };
    const take = ops[k + 1];
    if (op.$type === 'SortOperator' && take?.$type === 'TakeOperator' && whereOnly && smallCount((take as ast.TakeOperator).count)) return { kind: 'top', dataset, opIndex: k + 1 };
    if (op.$type === 'SummarizeOperator' && summarizeIsMergeable(op as ast.SummarizeOperator, MERGEABLE_BY_RUN[typeof runIn === 'function' ? runIn(dataset) : runIn])) return { kind: 'summarize', dataset, opIndex: k };
    return undefined;
}

/**
 * Whether a `top` plan is better run in one thread: `top N by <numeric field>` (or `sort by … |
 * take N`) right on the dataset, over a key without nulls, with N small beside the dataset's zones.
 * One run walks the zones that hold the winners (kernels/topn.ts, a few of them); the parts would
 * each walk as many, and their dispatch and merge cost more than the walk.
 */
export function topWalksFewZones(model: ast.Model, plan: PartitionPlan, column: (name: string) => Column | undefined, rows: number): boolean {
    if (plan.kind !== 'top') return false;
    const ops = ((model.statements[0] as ast.QueryStatement).body as ast.Pipeline).operators;
    const op = ops[plan.opIndex];
    const sorter = op.$type === 'TopOperator' ? (op as ast.TopOperator) : (ops[plan.opIndex - 1] as ast.SortOperator | undefined);
    const count = op.$type === 'TopOperator' ? (op as ast.TopOperator).count : (op as ast.TakeOperator).count;
    // Only the top (or the sort and its take) on the dataset's own rows: a `where` before reads every row.
    if (sorter === undefined || ops.indexOf(sorter) !== 0 || sorter.items.length !== 1) return false;
    const key = unparen(sorter.items[0].expression);
    if (key.$type !== 'NameReference' && key.$type !== 'BracketReference') return false;
    const col = column((key as ast.NameReference).name);
    return col instanceof NumColumn && col.nulls === null && count.$type === 'LongLiteral' && zonesPrune(Number((count as ast.LongLiteral).value), rows);
}

/** Each part of a `top` returns up to N rows: only a literal N up to MAX_TOP_ROWS is split. */
const MAX_TOP_ROWS = 10_000;

function smallCount(e: ast.Expression): boolean {
    return e.$type === 'LongLiteral' && Number((e as ast.LongLiteral).value) <= MAX_TOP_ROWS;
}

function summarizeIsMergeable(op: ast.SummarizeOperator, mergeable: Record<string, MergeKind>): boolean {
    if (op.aggregates.length === 0) return false;
    return op.aggregates.every(ne => {
        const e = unparen(ne.expression);
        if (e.$type !== 'FunctionCall') return false;
        const call = e as ast.FunctionCall;
        const fn = lookupAggregate(call.function);
        return fn !== undefined && mergeable[fn.name] !== undefined;
    });
}

// ---------------------------------------------------------------------------------------------
// Partial results (JSON text between threads)

interface PartialStats {
    rowsExamined: number;
    rowsMatched: number;
    /** The blocks read (a block cut by a part boundary is read by both parts, and counts once). */
    blocks: number[];
    /** The blocks pruning skipped (a set across parts too). */
    skipped?: number[];
    minBlockTime?: string;
    maxBlockTime?: string;
    datasets: string[];
}

interface SummaryAgg {
    name: string;
    type: ScalarType;
    info: AggInfo;
    merge: MergeKind;
    /** A quantile's ranks (percent), and whether it answers one value or an array. */
    ranks?: number[];
    array?: boolean;
}

/** A group's value in a part: a key or an encoded state, or (in one thread only) a state object. */
export type PartValue = EncodedValue | MergeState;

export type PartialResult =
    /** The part's data do not fit the plan (a sum over strings, say): the query runs as one job. */
    | { kind: 'unsupported' }
    | { kind: 'count'; count: number; stats: PartialStats }
    /**
     * `source`: over a dataset with blocks on disk, whose rows these are (a block's id; '' = memory);
     * `frame`: those rows copied out of their block, so that the merge (in the same thread) need not
     * read the block again nor hold it (never serialised).
     */
    | { kind: 'top'; rows: number[]; stats: PartialStats; source?: string; frame?: Frame }
    | {
          kind: 'summarize';
          keys: { name: string; type: ScalarType }[];
          /** Index of the `bin(_time, …)` key, and its bucket size in ns. */
          timeKey?: { index: number; size: number };
          aggs: SummaryAgg[];
          /** Per group: the key values, then per aggregation its state (`[sum, n]` for avg; an object for distinct/quantile). */
          groups: PartValue[][];
          stats: PartialStats;
          /** Parts folded from blocks on disk: the bytes their exact dcount states could take (the merge keeps to it too). */
          stateBudget?: number;
      };

export function partialStats(stats: RunStats, rowsMatched: number): PartialStats {
    return {
        rowsExamined: stats.rowsExamined,
        rowsMatched,
        blocks: [...stats.partBlocks],
        skipped: stats.partSkipped ? [...stats.partSkipped] : undefined,
        minBlockTime: stats.minBlockTime?.toString(),
        maxBlockTime: stats.maxBlockTime?.toString(),
        datasets: stats.datasets,
    };
}

/** The statistics of parts as one part's: counts added, blocks (read and skipped) as sets, the widest block times. */
export function combinePartialStats(parts: readonly Exclude<PartialResult, { kind: 'unsupported' }>[]): PartialStats {
    let min: bigint | undefined;
    let max: bigint | undefined;
    const blocks = new Set<number>();
    const skipped = new Set<number>();
    const datasets: string[] = [];
    let rowsExamined = 0;
    let rowsMatched = 0;
    for (const p of parts) {
        for (const b of p.stats.skipped ?? []) skipped.add(b);
        rowsExamined += p.stats.rowsExamined;
        rowsMatched += p.stats.rowsMatched;
        for (const b of p.stats.blocks) blocks.add(b);
        if (p.stats.minBlockTime !== undefined) min = min === undefined || BigInt(p.stats.minBlockTime) < min ? BigInt(p.stats.minBlockTime) : min;
        if (p.stats.maxBlockTime !== undefined) max = max === undefined || BigInt(p.stats.maxBlockTime) > max ? BigInt(p.stats.maxBlockTime) : max;
        for (const d of p.stats.datasets) if (!datasets.includes(d)) datasets.push(d);
    }
    return {
        rowsExamined,
        rowsMatched,
        blocks: [...blocks],
        skipped: skipped.size > 0 ? [...skipped] : undefined,
        minBlockTime: min?.toString(),
        maxBlockTime: max?.toString(),
        datasets,
    };
}

/** The merged statistics, as one run over all the parts' rows reports them. */
export function mergeStats(stats: RunStats, parts: readonly Exclude<PartialResult, { kind: 'unsupported' }>[]): void {
    const all = combinePartialStats(parts);
    stats.rowsExamined = all.rowsExamined;
    stats.rowsMatched = all.rowsMatched;
    for (const d of all.datasets) if (!stats.datasets.includes(d)) stats.datasets.push(d);
    stats.blocksExamined = all.blocks.length;
    stats.blocksSkipped = all.skipped?.length;
    stats.minBlockTime = all.minBlockTime === undefined ? undefined : BigInt(all.minBlockTime);
    stats.maxBlockTime = all.maxBlockTime === undefined ? undefined : BigInt(all.maxBlockTime);
}

/** The rows [lo, hi) of a scan range that part `index` of `count` covers. */
export function partitionRange(lo: number, hi: number, part: PartitionSpec): [number, number] {
    const n = hi - lo;
    return [lo + Math.floor((n * part.index) / part.count), lo + Math.floor((n * (part.index + 1)) / part.count)];
}

/** A `top` part: the physical rows of its result (the scan's hidden row-id column points at them). */
export function partialTopRows(frame: Frame): number[] {
    const rid = frame.find(ROWID);
    if (!rid) throw new Error('parallel top: the row ids were not carried along');
    const rows: number[] = new Array(frame.length);
    for (let i = 0; i < frame.length; i++) rows[i] = rid.sel ? rid.sel[i] : i;
    return rows;
}

// ---------------------------------------------------------------------------------------------
// summarize: partial states and their merge

export function partialSummarize(frame: Frame, op: ast.SummarizeOperator, env: QueryEnv): Omit<Extract<PartialResult, { kind: 'summarize' }>, 'stats'> {
    const keys = groupKeys(frame, op.groups, env);
    const n = frame.length;
    let grouping: Grouping = groupRows(
        keys.map(k => k.input),
        n,
        keys.map(k => (k.timeBucket !== undefined && k.timeBucket % 1_000_000n === 0n ? Number(k.timeBucket / 1_000_000n) : undefined)),
    );
    if (keys.length === 0 && n === 0) grouping = { gids: new Uint32Array(0), count: 1, first: new Uint32Array(0) };
    const G = grouping.count;
    const keyCols = keys.map(k => keyColumn(k.input, k.compiled.type, grouping.first));
    const named: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
    const aggs: SummaryAgg[] = [];
    const states: ((g: number) => PartValue[])[] = [];
    // A frame of value counts (weighted-counts.ts): count and countif add its rows' weights.
    const weights = rowWeights(frame);
    for (const ne of op.aggregates) {
        const spec = compileAggregate(unparen(ne.expression) as ast.FunctionCall, ne.name, frame, env);
        const merge = MERGEABLE_BLOCKS[spec.fn.name];
        if (NUMERIC_ONLY.has(spec.fn.name) && !NUMERIC.has(spec.args[0]?.type)) throw new PartitionUnsupported();
        const name = uniqueName(named, spec.outName);
        if (weights && (spec.fn.name === 'count' || spec.fn.name === 'countif')) {
            const truth = spec.fn.name === 'countif' ? triArray(spec.args[0].run(frame), n) : undefined;
            const col = new NumColumn('long', weightedCounts(weights, truth, grouping.gids, G), null, G);
            named.push({ name, type: col.type, data: col, sel: null });
            aggs.push({ name, type: col.type, info: spec.info, merge });
            states.push(g => [encodeValue(col.get(g))]);
            continue;
        }
        if (merge === 'avg') {
            // The state is the sum and count alone: the part's own average is never needed.
            const { sums, counts } = sumsAndCounts(spec.args.map(a => a.run(frame)), grouping.gids, G, n);
            named.push({ name, type: spec.outType, data: new NumColumn('real', sums, null, G), sel: null });
            aggs.push({ name, type: spec.outType, info: spec.info, merge });
            states.push(g => [sums[g], counts[g]]);
            continue;
        }
        if (merge === 'distinct' || merge === 'quantile') {
            const agg = objectStates(spec.fn.name, spec.args.map(a => a.run(frame)), grouping.gids, G, n);
            named.push({ name, type: spec.outType, data: new ConstColumn(spec.outType, null, G), sel: null });
            aggs.push({ name, type: spec.outType, info: spec.info, merge, ranks: agg.ranks, array: agg.array });
            states.push(g => [agg.states[g]]);
            continue;
        }
        const [col] = runAggregate(spec, frame, grouping, { env });
        named.push({ name, type: col.type, data: col, sel: null });
        aggs.push({ name, type: col.type, info: spec.info, merge });
        states.push(g => [encodeValue(col.get(g))]);
    }
    const groups: PartValue[][] = [];
    for (let g = 0; g < G; g++) {
        const row: PartValue[] = keyCols.map(c => encodeValue(c.get(g)));
        for (const s of states) row.push(...s(g));
        groups.push(row);
    }
    const t = keys.findIndex(k => k.timeBucket !== undefined);
    return {
        kind: 'summarize',
        keys: keys.map(k => ({ name: k.name, type: k.compiled.type })),
        timeKey: t >= 0 ? { index: t, size: Number(keys[t].timeBucket) } : undefined,
        aggs,
        groups,
    };
}

/** A part's dcount or percentile states, per group (merge-states.ts); PartitionUnsupported when its input does not qualify. */
function objectStates(fn: string, vecs: Vec[], gids: Uint32Array, G: number, n: number): { states: MergeState[]; ranks?: number[]; array?: boolean } {
    if (fn === 'dcount' || fn === 'dcountif') return { states: distinctStates(vecs, fn === 'dcountif', gids, G, n) };
    const conditional = fn.endsWith('if');
    const ranks = constantRanks(vecs.slice(1, conditional ? -1 : undefined));
    const states = ranks && quantileStates(vecs[0], conditional ? vecs[vecs.length - 1] : undefined, gids, G, n);
    if (!ranks || !states) throw new PartitionUnsupported();
    return { states, ranks, array: fn.startsWith('percentiles_array') };
}

/** Thrown by a part whose data do not fit the plan (a sum over strings, say): the query runs as one job. */
export class PartitionUnsupported extends Error {
    constructor() {
        super('this query runs as one job');
    }
}

/** Per group: the sum and count of an avg/avgif argument's values (as the avg fast path counts them). */
function sumsAndCounts(vecs: Vec[], gids: Uint32Array, G: number, n: number): { sums: Float64Array; counts: Float64Array } {
    const sums = new Float64Array(G);
    const counts = new Float64Array(G);
    const [x, pred] = vecs;
    if (!pred && !x.c && x.col instanceof NumColumn) {
        sumCountByGroup(x.col.vals, x.col.nulls, x.sel, gids, n, sums, counts);
        return { sums, counts };
    }
    for (let i = 0; i < n; i++) {
        if (pred && vget(pred, i) !== true) continue;
        const g = gids[i];
        const v = vget(x, i);
        if (typeof v === 'number') sums[g] += v;
        else if (typeof v === 'boolean') sums[g] += v ? 1 : 0;
        else continue;
        counts[g]++;
    }
    return { sums, counts };
}

/** The merge of a summarize: its frame, its number of groups, and a note per aggregation that is an estimate. */
export interface MergedSummary {
    frame: Frame;
    groups: number;
    estimates: string[];
}

/** Combines the parts' groups into what summarize over all their rows returns (same columns, order and meta). */
export function mergeSummaries(parts: readonly Extract<PartialResult, { kind: 'summarize' }>[], stateBudget = parts[0]?.stateBudget ?? Infinity): MergedSummary {
    const fold = new SummaryFold(parts[0], stateBudget);
    for (const p of parts) fold.add(p);
    return fold.finish();
}

/**
 * The merge of a summarize's parts, one part at a time (a part may be dropped once added). The
 * dcount and percentile states stay exact while all of them together take at most `stateBudget`
 * bytes; past it, the largest become sketches until they fit again (merge-states.ts).
 */
export class SummaryFold {
    private readonly main: GroupFold;
    private used = 0;
    /** Past the budget with nothing worth turning into a sketch (many small groups): look again only once the states grew by half. */
    private nextShrink: number;

    constructor(
        private readonly first: Extract<PartialResult, { kind: 'summarize' }>,
        private readonly stateBudget = Infinity,
    ) {
        this.main = new GroupFold(first, first.keys.map((_, i) => i), bytes => (this.used += bytes));
        this.nextShrink = stateBudget;
    }

    add(p: Extract<PartialResult, { kind: 'summarize' }>): void {
        this.main.add(p);
        if (this.used > this.nextShrink) {
            this.shrink();
            this.nextShrink = this.used <= this.stateBudget ? this.stateBudget : this.used * 1.5;
        }
    }

    /** The largest exact states become sketches, until the states fit the budget (or none is worth it). */
    private shrink(): void {
        const exact = [...this.main.objectStates()].filter(s => s.exact && s.bytes > s.sketchBytes);
        exact.sort((a, b) => b.bytes - a.bytes);
        for (const s of exact) {
            if (this.used <= this.stateBudget) break;
            this.used += s.toSketch();
        }
    }

    /** The parts folded so far as one part (its states are the fold's own), for a merge that keeps exact states within `mergeBudget`. */
    asPart(stats: PartialStats, mergeBudget = this.stateBudget): Extract<PartialResult, { kind: 'summarize' }> {
        return { ...this.first, groups: this.main.rows(), stats, stateBudget: Number.isFinite(mergeBudget) ? mergeBudget : undefined };
    }

    finish(): MergedSummary {
        const { first } = this;
        const main = this.main.frame();
        const meta: FrameMeta = {
            groups: first.keys.filter((_, i) => i !== first.timeKey?.index).map(k => k.name),
            order: first.keys.length ? [{ field: first.keys[0].name, desc: false }] : [],
        };
        const estimates: string[] = [];
        first.aggs.forEach((a, j) => {
            const sketch = this.main.sketchOf(j);
            if (sketch) estimates.push(estimateNote(a.name, sketch, this.stateBudget));
        });
        if (first.timeKey) {
            const tk = first.timeKey;
            const rest = first.keys.map((_, i) => i).filter(i => i !== tk.index);
            meta.buckets = { field: first.keys[tk.index].name, size: tk.size };
            meta.timeBinned = { timeField: first.keys[tk.index].name, keys: rest.map(i => first.keys[i].name), firstAgg: first.aggs[0]?.name };
            // The totals over the time bins merge the merged groups: their states are done with, and are merged into rather than copied.
            const fold = new GroupFold(first, rest, () => undefined);
            fold.add({ ...first, groups: this.main.rows() }, true);
            const totals = fold.frame();
            totals.meta = { groups: rest.map(i => first.keys[i].name) };
            meta.totals = totals;
        }
        main.meta = meta;
        return { frame: main, groups: main.length, estimates };
    }
}

/** The parts' rows grouped by the keys at `keyIdx`, every aggregation's state merged. */
class GroupFold {
    /** Group numbers: by the key itself when it is one string, number, boolean or null; else by its text (groupKey). */
    private readonly index = new Map<unknown, number>();
    private readonly byText = new Map<unknown, number>();
    private groups = 0;
    private readonly keyVals: AplValue[][];
    private readonly acc: AplValue[][];
    private readonly avgState: { sum: number; n: number }[][];
    private readonly objects: MergeState[][];
    private readonly scalarKeys: boolean;

    constructor(
        private readonly first: Extract<PartialResult, { kind: 'summarize' }>,
        private readonly keyIdx: number[],
        private readonly track: (bytes: number) => void,
    ) {
        this.keyVals = keyIdx.map(() => []);
        this.acc = first.aggs.map(() => []);
        this.avgState = first.aggs.map(() => []);
        this.objects = first.aggs.map(() => []);
        // Scalar keys are equal exactly when their encodings are; dynamic ones compare canonically.
        this.scalarKeys = keyIdx.every(i => first.keys[i].type !== 'dynamic');
    }

    /** Folds a part's groups in. `adopt`: its states are this fold's to change (no part shares them). */
    add(p: Extract<PartialResult, { kind: 'summarize' }>, adopt = false): void {
        const { keyIdx, keyVals, acc, avgState, objects } = this;
        const { keys, aggs } = this.first;
        const K = keys.length;
        for (const row of p.groups) {
            const [groups, key] = this.groupKey(row);
            let g = groups.get(key);
            if (g === undefined) {
                g = this.groups++;
                groups.set(key, g);
                keyIdx.forEach((ki, i) => keyVals[i].push(decodeValue(row[ki] as EncodedValue)));
            }
            let at = K;
            aggs.forEach((a, j) => {
                if (a.merge === 'avg') {
                    const sum = row[at] as number;
                    const n = row[at + 1] as number;
                    at += 2;
                    const s = (avgState[j][g!] ??= { sum: 0, n: 0 });
                    s.sum += sum;
                    s.n += n;
                    return;
                }
                if (a.merge === 'distinct' || a.merge === 'quantile') {
                    const s = row[at++] as MergeState;
                    const had = objects[j][g!];
                    if (had === undefined) {
                        objects[j][g!] = adopt ? s : s.share();
                        this.track(s.bytes);
                    } else this.track(mergeState(had, s));
                    return;
                }
                const v = decodeValue(row[at++] as EncodedValue);
                acc[j][g!] = combine(a.merge, acc[j][g!] ?? null, v);
            });
        }
    }

    /**
     * Where a part's row's group is looked up, and by what. One scalar key is its own Map key (Map
     * keys compare as the encodings do: "1" is not 1, null is not "null"), which saves making a text
     * per row: a part over a block of many values folds a group per value, and that was most of a
     * fold's time. Other keys go by their text.
     */
    private groupKey(row: readonly PartValue[]): [Map<unknown, number>, unknown] {
        const one = this.scalarKeys && this.keyIdx.length === 1 ? row[this.keyIdx[0]] : undefined;
        if (one === null || (one !== undefined && typeof one !== 'object')) return [this.index, one];
        return [this.byText, this.keyText(row)];
    }

    /** Scalar keys are equal exactly when their encodings are; dynamic ones compare canonically. */
    private keyText(row: readonly PartValue[]): string {
        const { keyIdx } = this;
        if (this.scalarKeys) return JSON.stringify(keyIdx.map(i => row[i]));
        return keyIdx.map(i => decodeValue(row[i] as EncodedValue)).map(v => (v === null ? '\u0000' : canonicalKey(v))).join('\u0001');
    }

    /** The merged groups as a part's rows (the states themselves, not copies). */
    rows(): PartValue[][] {
        const out: PartValue[][] = [];
        for (let g = 0; g < this.groups; g++) {
            const row: PartValue[] = this.keyVals.map(k => encodeValue(k[g]));
            this.first.aggs.forEach((a, j) => {
                if (a.merge === 'avg') row.push(this.avgState[j][g]?.sum ?? 0, this.avgState[j][g]?.n ?? 0);
                else if (a.merge === 'distinct' || a.merge === 'quantile') row.push(this.objects[j][g]);
                else row.push(encodeValue(this.acc[j][g] ?? null));
            });
            out.push(row);
        }
        return out;
    }

    *objectStates(): Iterable<MergeState> {
        for (const states of this.objects) for (const s of states) if (s) yield s;
    }

    /** A state of aggregation j that is a sketch, if any. */
    sketchOf(j: number): MergeState | undefined {
        return this.objects[j].find(s => s && !s.exact);
    }

    frame(): Frame {
        const { keys, aggs } = this.first;
        const G = this.groups;
        const keyCols: Column[] = this.keyIdx.map((ki, i) => columnFromValues(keys[ki].type, this.keyVals[i]));
        const perm = sortGroupsByKeys(keyCols, G);
        const cols: FrameCol[] = this.keyIdx.map((ki, i) => ({ name: keys[ki].name, type: keys[ki].type, data: permute(keyCols[i], perm), sel: null }));
        aggs.forEach((a, j) => {
            const values: AplValue[] = new Array(G);
            for (let g = 0; g < G; g++) {
                if (a.merge === 'avg') {
                    const s = this.avgState[j][g];
                    values[g] = s.n === 0 ? null : s.sum / s.n;
                } else if (a.merge === 'distinct' || a.merge === 'quantile') values[g] = objectResult(a, this.objects[j][g]);
                else values[g] = this.acc[j][g] ?? null;
            }
            cols.push({ name: a.name, type: a.type, data: permute(columnFromValues(a.type, values), perm), sel: null, agg: a.info });
        });
        return new Frame(cols, G);
    }
}

/** Folds `b` into `a` (states of one kind); returns the change in bytes. */
function mergeState(a: MergeState, b: MergeState): number {
    if (a instanceof DistinctState && b instanceof DistinctState) return a.mergeFrom(b);
    if (a instanceof QuantileState && b instanceof QuantileState) return a.mergeFrom(b);
    throw new Error('parallel summarize: parts disagree on an aggregation');
}

/** A dcount's count, a percentile's value (whole for a long column: a sketch's value need not be) or percentiles_array's array. */
function objectResult(a: SummaryAgg, s: MergeState | undefined): AplValue {
    if (s instanceof DistinctState) return s.result();
    if (!(s instanceof QuantileState)) return a.array ? (a.ranks ?? []).map(() => null) : null;
    const values = s.results(a.ranks ?? []).map(v => (v !== null && !s.exact && a.type === 'long' ? Math.round(v) : v));
    if (a.array) return values;
    return values[0] ?? null;
}

/** Merges two parts' states of one group; NaN propagates through sums and is skipped by min/max, as in one run. */
function combine(kind: Exclude<MergeKind, 'avg'>, a: AplValue, b: AplValue): AplValue {
    if (a === null) return b;
    if (b === null) return a;
    if (kind === 'sum') return (a as number) + (b as number);
    if (typeof b === 'number' && Number.isNaN(b)) return a;
    if (typeof a === 'number' && Number.isNaN(a)) return b;
    const c = compareValues(b, a);
    return (kind === 'min' ? c < 0 : c > 0) ? b : a;
}

// ---------------------------------------------------------------------------------------------
// Between threads: JSON text, with the numbers JSON has no words for (NaN, ±Infinity) kept, and
// beside it the buffers of the exact dcount and percentile states (merge-states.ts toPortable).

/** A part as it crosses threads: postMessage shares `shared` rather than copying it. */
export interface PortablePartial {
    json: string;
    shared?: SharedArrayBuffer[];
}

export function serializePartial(p: PartialResult): PortablePartial {
    const shared: SharedArrayBuffer[] = [];
    const out =
        p.kind === 'summarize'
            ? {
                  ...p,
                  groups: mapStates(p, (row, distinct, quantile) => {
                      const copy = row.slice();
                      for (const i of [...distinct, ...quantile]) copy[i] = (row[i] as MergeState).toPortable(shared) as unknown as PartValue;
                      return copy;
                  }),
              }
            : p;
    const json = JSON.stringify(out, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $num: String(v) } : v));
    return shared.length > 0 ? { json, shared } : { json };
}

export function deserializePartial({ json, shared = [] }: PortablePartial): PartialResult {
    const p = JSON.parse(json, (_k, v: unknown) => (isNumberWord(v) ? Number(v.$num) : v)) as PartialResult;
    if (p.kind === 'summarize') p.groups = mapStates(p, (row, distinct, quantile) => {
        for (const i of distinct) row[i] = DistinctState.fromPortable(row[i] as unknown as DistinctStateJson, shared);
        for (const i of quantile) row[i] = QuantileState.fromPortable(row[i] as unknown as QuantileStateJson, shared);
        return row;
    });
    return p;
}

/**
 * A summarize part's groups through `fn`, given the columns of its dcount and percentile states:
 * found by position, never by shape (a key may be any object). The groups as they are without such states.
 */
function mapStates(p: Extract<PartialResult, { kind: 'summarize' }>, fn: (row: PartValue[], distinct: number[], quantile: number[]) => PartValue[]): PartValue[][] {
    const distinct: number[] = [];
    const quantile: number[] = [];
    let col = p.keys.length;
    for (const a of p.aggs) {
        if (a.merge === 'distinct') distinct.push(col);
        else if (a.merge === 'quantile') quantile.push(col);
        col += a.merge === 'avg' ? 2 : 1;
    }
    if (distinct.length + quantile.length === 0) return p.groups;
    return p.groups.map(row => fn(row, distinct, quantile));
}

function isNumberWord(v: unknown): v is { $num: string } {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $num?: unknown }).$num === 'string';
}

/** Whether a part says the data did not fit the plan (read without parsing the rest). */
export function partialIsUnsupported(p: PortablePartial): boolean {
    return p.json.startsWith('{"kind":"unsupported"');
}
