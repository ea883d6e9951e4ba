/**
 * A part of a parallel `count` or `summarize` over a block whose header lists the values of the one
 * field the query reads (cold-blocks.ts ValueCounts): one row per distinct value, with a hidden
 * weight column that says how many of the block's rows the row stands for. The part's `where`s
 * filter those few rows, and its count and countif add weights: a block of 70,000 rows and 20
 * values costs 20 rows' work, not 70,000.
 *
 * Only where every step up to the merge gives a row's value from the field alone and no
 * aggregation reads how many rows there are beyond counting them (runsOnValueCounts): `where`s,
 * and count, countif, dcount, min and max (with their -if forms), none of them calling a volatile
 * function (rand(): a row each would draw its own number).
 */
import { AstUtils, type AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import { lookupAggregate, lookupScalarFunction } from '../builtins/index.js';
import { NumColumn, StrColumn } from './columns.js';
import { Frame } from './frame.js';
import { rangeHoldsBlock, type ColdAccess, type ColdBlock, type ValueCounts } from './cold-blocks.js';
import type { PartitionPlan } from './parallel.js';

/** The hidden column of a frame made from value counts: the block's rows each row stands for. */
export const ROW_WEIGHT = '\u0000rows';

/** Aggregations whose part state is the same over weighted rows: counts add weights, the rest ignore them. */
const WEIGHTED_AGGREGATES = new Set(['count', 'countif', 'dcount', 'dcountif', 'min', 'max', 'minif', 'maxif']);

/** Whether a part of `plan` over the pipeline `ops` may run over value counts (see the module comment). */
export function runsOnValueCounts(plan: PartitionPlan, ops: readonly ast.TabularOperator[]): boolean {
    if (plan.kind !== 'count' && plan.kind !== 'summarize') return false;
    if (ops.length < plan.opIndex) return false;
    for (const op of ops.slice(0, plan.opIndex)) if (op.$type !== 'WhereOperator' || callsVolatile(op)) return false;
    if (plan.kind === 'count') return true;
    const summarize = ops[plan.opIndex] as ast.SummarizeOperator | undefined;
    if (summarize?.$type !== 'SummarizeOperator' || callsVolatile(summarize)) return false;
    return summarize.aggregates.every(a => {
        let e = a.expression;
        while (e.$type === 'ParenthesizedExpression') e = (e as ast.ParenthesizedExpression).expression;
        return e.$type === 'FunctionCall' && WEIGHTED_AGGREGATES.has(lookupAggregate((e as ast.FunctionCall).function)?.name ?? '');
    });
}

/** A call of a function whose value differs from row to row with the same input (now() and ago() are fixed per query). */
function callsVolatile(node: AstNode): boolean {
    return AstUtils.streamAst(node).some(n => {
        if (n.$type !== 'FunctionCall') return false;
        const name = (n as ast.FunctionCall).function;
        return name !== 'now' && name !== 'ago' && lookupScalarFunction(name)?.volatile === true;
    });
}

/** The frame of a block's value counts: the field (if any) and ROW_WEIGHT, a row per value. */
export function valueCountsFrame(counts: ValueCounts): Frame {
    const n = counts.values.length;
    const weights = new NumColumn('long', Float64Array.from(counts.rows), null, n);
    const cols: Frame['cols'] = [{ name: ROW_WEIGHT, type: 'long', data: weights, sel: null, hidden: true }];
    if (counts.field !== undefined) {
        const dict = [''];
        const codes = new Uint32Array(n);
        for (let i = 0; i < n; i++) {
            const v = counts.values[i];
            if (v !== null) codes[i] = dict.push(v) - 1;
        }
        // After the weights: a field of the same name is what a query's reference to it finds (Frame.find).
        cols.push({ name: counts.field, type: 'string', data: new StrColumn(codes, dict), sel: null });
    }
    return new Frame(cols, n);
}

/** The weight of each of a frame's rows, or undefined for a frame of rows (a weight of 1 each). */
export function rowWeights(frame: Frame): Float64Array | undefined {
    const c = frame.cols.find(x => x.hidden === true && x.name === ROW_WEIGHT);
    if (!c) return undefined;
    const vals = (c.data as NumColumn).vals;
    if (c.sel === null) return vals.subarray(0, frame.length);
    const out = new Float64Array(frame.length);
    for (let i = 0; i < out.length; i++) out[i] = vals[c.sel[i]];
    return out;
}

/** The rows a frame stands for: its length, or the sum of its weights. */
export function rowsOf(frame: Frame): number {
    const w = rowWeights(frame);
    if (!w) return frame.length;
    let total = 0;
    for (let i = 0; i < w.length; i++) total += w[i];
    return total;
}

/** count() (no `truth`) or countif() per group over weighted rows: the weights of the rows (where `truth` is 1). */
export function weightedCounts(weights: Float64Array, truth: Uint8Array | undefined, gids: Uint32Array, G: number): Float64Array {
    const out = new Float64Array(G);
    for (let i = 0; i < weights.length; i++) if (truth === undefined || truth[i] === 1) out[gids[i]] += weights[i];
    return out;
}

/** The rows a scan reads: its time range, and a cursor when it pages (then no block is read whole). */
export interface ScanRange {
    startTime?: bigint;
    endTime?: bigint;
    cursor?: unknown;
}

/**
 * The rows of a block that a scan of `range` in no order reads whole (the range holds the block, no
 * cursor) and whose rows are all visible, known without reading it (0: gone from disk); undefined
 * when the scan must read it.
 */
export function wholeBlockRows(block: ColdBlock, cold: ColdAccess, range: ScanRange): number | undefined {
    if (range.cursor !== undefined || !rangeHoldsBlock(block, range)) return undefined;
    return cold.rowsUnread(block);
}

/**
 * A block's visible rows and its value counts, when a scan of `range` in no order reads it whole and
 * shows every row of it; `counts` absent: the block is gone from disk (no rows). Undefined: the
 * block must be read.
 */
export function wholeBlockCounts(block: ColdBlock, cold: ColdAccess, range: ScanRange): { rows: number; counts?: ValueCounts } | undefined {
    const rows = wholeBlockRows(block, cold, range);
    if (rows === undefined) return undefined;
    if (rows === 0) return { rows };
    const counts = cold.valueCounts(block);
    return counts && { rows, counts };
}

/**
 * Blocks of one part's share that run over their value counts together: one frame of their
 * counts summed per value, so that a share of 700 blocks costs one run of the part's steps, not 700.
 */
export interface CountedSources {
    counts: ValueCounts;
    /** The sources taken (their blocks; rows 0: gone from disk), for the statistics a scan of each would give. */
    taken: { source: number; block: ColdBlock; rows: number }[];
}

/**
 * The sources among `sources` (indexes into `blocks`, the scan's blocks) that a part of `plan` may
 * run over value counts (runsOnValueCounts): blocks the range holds whole, every row visible, with
 * counts of the field the query reads. Undefined when fewer than two are: each runs alone then.
 */
export function countedSources(plan: PartitionPlan, ops: readonly ast.TabularOperator[], cold: ColdAccess, blocks: readonly ColdBlock[], sources: Iterable<number>, range: ScanRange): CountedSources | undefined {
    if (!runsOnValueCounts(plan, ops)) return undefined;
    const rowsOfValue = new Map<string | null, number>();
    let field: string | undefined;
    const taken: CountedSources['taken'] = [];
    for (const source of sources) {
        const block = blocks[source] as ColdBlock | undefined;
        const got = block && wholeBlockCounts(block, cold, range);
        if (!got) continue;
        const { rows, counts } = got;
        // Blocks that hold another of the fields the query reads run alone: one frame has one field.
        if (counts && counts.field !== undefined && field !== undefined && counts.field !== field) continue;
        taken.push({ source, block: block!, rows });
        if (!counts) continue;
        field ??= counts.field;
        // A block without the field counts its rows as null, as a block with it counts its rows without a value.
        counts.values.forEach((v, i) => rowsOfValue.set(v, (rowsOfValue.get(v) ?? 0) + counts.rows[i]));
    }
    if (taken.length < 2) return undefined;
    return { counts: { field, values: [...rowsOfValue.keys()], rows: [...rowsOfValue.values()] }, taken };
}
