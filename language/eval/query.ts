/**
 * Runs an APL query: statements (let, set, declare query_parameters), then each tabular
 * expression as a source (sources.ts) followed by its pipeline of operators. Each operator is a
 * step over frames (see frame.ts) run through the dispatch table in operators/index.ts;
 * expressions are compiled against the step's input schema (expr.ts) and run vectorised.
 */
import type { StatusMessage } from '../api/status.js';
import type * as ast from '../generated/ast.js';
import { parse } from '../apl-parse.js';
import { typeFromName } from '../types/apl-types.js';
import { Datetime, Timespan, parseDatetime, parseGoDuration, type AplValue } from '../values.js';
import type { ScalarType } from './columns.js';
import { AplQueryError, errorAt, unsupportedAt } from './errors.js';
import { QueryBudget, type QueryInterruption, type QueryLimits } from './budget.js';
import { type Binding, type QueryEnv, castValue, compileExpr, defaultName, normType } from './expr.js';
import { rowWeights, rowsOf, type CountedSources } from './weighted-counts.js';
import { Frame, SCAN_TIME, cellOf, detachedFrame, takeRows } from './frame.js';
import { aggregateIsOrderInsensitive, findAggregateCalls } from './aggregate.js';
import type { Snapshot } from './tables.js';
import type { ColdAccess, ColdBlock } from './cold-blocks.js';
import { type ParsedCursor, parseCursor } from '../api/row-id.js';
import { coldSourcesInOrder, evalSource, inTimeOrder, letBinding, type ColdSource, type ExternalDataReader } from './sources.js';
import { constLong, emptyFrame, type OperatorImpl } from './operators/common.js';
import { OPERATORS } from './operators/index.js';
import { topN } from './operators/sort.js';
import { filterBy } from './operators/filter.js';
import { ONE_TO_ONE, ROW_WISE, firstRows, pushLimit, sortCommutes } from './limit-pushdown.js';
import { PartitionUnsupported, mergeStats, mergeSummaries, partialStats, partialSummarize, partialTopRows, type PartialResult, type PartitionPlan, type PartitionSpec, type SummaryFold } from './parallel.js';

export { ExternalDataError, type ExternalDataReader } from './sources.js';

export interface DataAccess {
    snapshot(name: string): Snapshot | undefined;
    datasetNames(): string[];
    /** A dataset with blocks on disk besides its in-memory rows (cold-blocks.ts). */
    cold?(name: string): ColdAccess | undefined;
}

export interface RunOptions {
    startTime?: bigint;
    endTime?: bigint;
    now: bigint;
    cursor?: string;
    includeCursor?: boolean;
    /** The request's `limit`. */
    limit?: number;
    maxLimit: number;
    defaultLimit: number;
    variables?: Record<string, unknown>;
    /** Seed for `sample`. */
    seed?: number;
    /** Reads `externaldata` sources; without one, `externaldata` is refused (the evaluator does no I/O). */
    externalData?: ExternalDataReader;
    /** Bounds of intermediate results (default DEFAULT_QUERY_LIMITS). */
    limits?: Partial<QueryLimits>;
    /** Asked at check points: a reason to stop ends the query (budget.ts). */
    interrupt?: () => QueryInterruption | undefined;
    /** Rows per block of a dataset scan, for block pruning and `blocksExamined` (zone-maps.ts; default ZONE_ROWS). */
    zoneRows?: number;
    /** Skip blocks that the leading `where` terms rule out (default true; false for comparisons in tests). */
    pruneBlocks?: boolean;
    /**
     * A part of a parallel run (parallel.ts): its share of the scan, up to the plan's mergeable step.
     * `coldSource`: over a dataset with blocks on disk, the part is the k-th of its sources (the
     * blocks the query needs, then the in-memory rows) instead of a share of one scan. `counted`:
     * the part is those sources' value counts, together (weighted-counts.ts countedSources).
     */
    partial?: { plan: PartitionPlan; part: PartitionSpec; coldSource?: number; counted?: CountedSources };
    /**
     * The merge of a parallel run: the parts' results, then the rest of the pipeline. `fold`: a
     * summarize's parts already merged one by one as they came (the parts then carry only their
     * statistics; engine.ts over blocks on disk).
     */
    merge?: { plan: PartitionPlan; parts: PartialResult[]; fold?: SummaryFold };
}

export interface RunStats {
    rowsExamined: number;
    rowsMatched: number | undefined;
    numGroups: number;
    blocksExamined: number;
    /** Blocks pruning ruled out in the scanned span (said when there were some). */
    blocksSkipped?: number;
    /** A part of a parallel run: the blocks it read (parts may share a block at their boundary). */
    partBlocks: Set<number>;
    /** A part of a parallel run: the blocks pruning skipped in its share (merged as a set, like `partBlocks`). */
    partSkipped?: Set<number>;
    minBlockTime?: bigint;
    maxBlockTime?: bigint;
    datasets: string[];
    messages: StatusMessage[];
    estimate: boolean;
}

export interface QueryRun {
    tables: Frame[];
    stats: RunStats;
    /** The direction cursor paging runs in. */
    order: 'asc' | 'desc';
    /** Rows before the page cap was applied (of the first table). */
    totalRows: number;
    /** Set by a part of a parallel run instead of tables. */
    partial?: PartialResult;
    /** A part over a dataset with blocks on disk: how many sources (blocks, then memory) the parts go over. */
    coldSources?: number;
    /** And those blocks, in source order (the rows in memory are the source after them). */
    coldBlocks?: readonly ColdBlock[];
}

export type OrderNeed = 'asc' | 'desc' | 'none';

export interface RunState {
    data: DataAccess;
    opts: RunOptions;
    stats: RunStats;
    cursor?: ParsedCursor;
    order: 'asc' | 'desc';
    sawTake: boolean;
    depth: number;
    /** The query has one tabular statement: its result's page is known while its last steps run (applyOps). */
    pageable: boolean;
    /** Results whose last steps ran over their page only: their rows before the page cap. */
    pageRows: Map<Frame, number>;
    /** A part of a parallel run leaves its result here. */
    partial?: PartialResult;
    /** A part over one source of a dataset with blocks on disk: the sources' count, and this one's id ('' = memory). */
    cold?: { sources: number; source: string; blocks: readonly ColdBlock[] };
    budget: QueryBudget;
    /** Evaluates a nested tabular expression (a let-bound table, a join's right side, a union part) in this run. */
    evalTable(expr: ast.Expression, env: QueryEnv): Frame;
}


// ---------------------------------------------------------------------------------------------

const parseCache = new Map<string, ReturnType<typeof parse>>();

/** Texts longer than this are not cached: 256 syntax trees of 256 KiB queries would hold gigabytes. */
const MAX_CACHED_QUERY_LENGTH = 16 * 1024;

/** Parses with a small cache: the AST is read-only to the evaluator, so repeated queries reuse it. */
export function parseCached(text: string): ReturnType<typeof parse> {
    let r = parseCache.get(text);
    if (r === undefined) {
        r = parse(text);
        if (text.length > MAX_CACHED_QUERY_LENGTH) return r;
        if (parseCache.size >= 256) parseCache.delete(parseCache.keys().next().value!);
        parseCache.set(text, r);
    }
    return r;
}

export function runQuery(text: string, data: DataAccess, opts: RunOptions): QueryRun {
    const { model, problems } = parseCached(text);
    if (problems.length > 0) {
        const p = problems[0];
        throw new AplQueryError(`syntax error: ${p.message}`, p.range.start.line + 1, p.range.start.character + 1, 'syntax');
    }
    const stats: RunStats = { rowsExamined: 0, rowsMatched: undefined, numGroups: 0, blocksExamined: 0, partBlocks: new Set(), datasets: [], messages: [], estimate: false };
    let cursor: ParsedCursor | undefined;
    if (opts.cursor) {
        cursor = parseCursor(opts.cursor);
        if (!cursor) throw new AplQueryError(`invalid cursor '${opts.cursor}'`, 1, 1, 'semantic');
    }
    const state: RunState = {
        data,
        opts,
        stats,
        cursor,
        order: 'desc',
        sawTake: false,
        depth: 0,
        pageable: model.statements.filter(st => st.$type === 'QueryStatement').length === 1,
        pageRows: new Map(),
        budget: new QueryBudget(opts.limits, opts.interrupt),
        evalTable: (expr, env) => evalTable(expr, env, state, 'sub'),
    };
    const bindings = new Map<string, Binding>();
    for (const [k, v] of Object.entries(opts.variables ?? {})) bindings.set(k, variableBinding(v));
    const env = makeEnv(state, bindings);
    const tables: Frame[] = [];
    for (const st of model.statements) {
        switch (st.$type) {
            case 'LetStatement': {
                const s = st as ast.LetStatement;
                env.bindings.set(s.name, letBinding(s, env, state));
                break;
            }
            case 'SetStatement':
                break; // stricttypes and other options: accepted, no effect on the reference evaluator
            case 'DeclareStatement': {
                for (const p of (st as ast.DeclareStatement).parameters) {
                    const t = normType(typeFromName(p.type) ?? 'dynamic');
                    if (opts.variables && Object.prototype.hasOwnProperty.call(opts.variables, p.name)) {
                        env.bindings.set(p.name, { kind: 'scalar', type: t, value: convertVariable(opts.variables[p.name], t) });
                    } else if (p.default) {
                        const c = compileExpr(p.default, emptyFrame(), env);
                        if (!c.isConst) throw errorAt(p.default, 'a query parameter default must be a constant');
                        env.bindings.set(p.name, { kind: 'scalar', type: t, value: castTo(c.value ?? null, t) });
                    } else env.bindings.set(p.name, { kind: 'scalar', type: t, value: null });
                }
                break;
            }
            case 'QueryStatement': {
                const body = (st as ast.QueryStatement).body;
                tables.push(evalTable(body, env, state, 'top'));
                break;
            }
        }
    }
    if (tables.length === 0) throw new AplQueryError('the query has no tabular expression to run', 1, 1, 'semantic');
    if (opts.partial) return { tables: [], stats, order: state.order, totalRows: 0, partial: state.partial, coldSources: state.cold?.sources, coldBlocks: state.cold?.blocks };
    if (opts.merge) mergeStats(stats, opts.merge.parts.filter(p => p.kind !== 'unsupported'));
    // The page cap.
    const hasLimit = state.sawTake;
    const cap = pageCap(opts, hasLimit);
    // A result whose last steps ran over its page only (applyOps) had more rows before them.
    const rowsOf = (t: Frame) => state.pageRows.get(t) ?? t.length;
    const totalRows = rowsOf(tables[0]);
    const requestLimit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : undefined;
    let told = false;
    const capped = tables.map(t => {
        if (rowsOf(t) <= cap) return t;
        if (!told && requestLimit === undefined && !hasLimit) {
            stats.messages.push({ priority: 'warn', count: 1, code: 'default_limit_warning', msg: `query result was limited to ${cap} rows (the default limit)` });
        } else if (!told && (requestLimit === undefined || requestLimit > opts.maxLimit)) {
            // The query (its take/limit) or the request asked for more than the service returns.
            stats.messages.push({ priority: 'warn', count: 1, code: MAX_RESULT_ROWS_WARNING, msg: maxResultRowsMessage(rowsOf(t), cap) });
        }
        told = true;
        return takeRows(t, cap);
    });
    if (stats.rowsMatched === undefined) stats.rowsMatched = totalRows;
    return { tables: capped, stats, order: state.order, totalRows };
}

/** The status message of a result cut to the service's maximum rows per query (API.md §6.5: custom codes start with `apl_`). */
export const MAX_RESULT_ROWS_WARNING = 'apl_max_result_rows_warning';

function maxResultRowsMessage(rows: number, cap: number): string {
    const n = (x: number) => x.toLocaleString('en-US');
    return `query result was limited to ${n(cap)} of ${n(rows)} rows: ${n(cap)} is the service's maximum rows per query (its maxResultRows setting); page through the rest with a cursor`;
}

function makeEnv(state: RunState, bindings: Map<string, Binding>): QueryEnv {
    const env: QueryEnv = {
        bindings,
        now: state.opts.now,
        startTime: state.opts.startTime,
        endTime: state.opts.endTime,
        evalTable: (expr, e) => evalTable(expr, e, state, 'sub'),
        budget: state.budget,
    };
    return env;
}

function variableBinding(v: unknown): Binding {
    if (typeof v === 'string') return { kind: 'scalar', type: 'string', value: v };
    if (typeof v === 'number') return { kind: 'scalar', type: Number.isInteger(v) ? 'long' : 'real', value: v };
    if (typeof v === 'boolean') return { kind: 'scalar', type: 'bool', value: v };
    if (v === null || v === undefined) return { kind: 'scalar', type: 'dynamic', value: null };
    return { kind: 'scalar', type: 'dynamic', value: v as AplValue };
}

function convertVariable(v: unknown, t: ScalarType): AplValue {
    if (v === null || v === undefined) return null;
    if (t === 'datetime') {
        if (typeof v === 'string') {
            const ns = parseDatetime(v);
            return ns === undefined ? null : new Datetime(ns);
        }
        return null;
    }
    if (t === 'timespan') {
        if (typeof v === 'string') {
            const ns = parseGoDuration(v);
            return ns === undefined ? null : new Timespan(ns);
        }
        return typeof v === 'number' ? new Timespan(BigInt(Math.trunc(v))) : null;
    }
    if (t === 'dynamic') return v as AplValue;
    return castValue(v as AplValue, t);
}

function castTo(v: AplValue, t: ScalarType): AplValue {
    if (v === null) return null;
    if (t === 'dynamic' || t === 'datetime') return v;
    return castValue(v, t);
}
// ---------------------------------------------------------------------------------------------
// Tables

function evalTable(expr: ast.Expression, env: QueryEnv, state: RunState, where: 'top' | 'sub'): Frame {
    state.depth++;
    if (state.depth > 64) throw errorAt(expr, 'tables are nested too deeply (a let refers to itself?)');
    try {
        if (expr.$type === 'Pipeline') {
            const p = expr as ast.Pipeline;
            const need = where === 'top' ? orderNeed(p.operators) : orderNeed(p.operators, 'desc');
            if (where === 'top') state.order = finalTimeOrder(p.operators) ?? (need === 'asc' ? 'asc' : 'desc');
            if (where === 'top' && state.opts.partial) return runPart(p, state.opts.partial.plan, need, env, state);
            const merged = where === 'top' && state.opts.merge ? mergeParts(p, state.opts.merge.plan, state.opts.merge.parts, env, state) : undefined;
            if (merged) return applyOps(merged.frame, p.operators, merged.next, env, state, where);
            const streamed = where === 'top' && !state.opts.partial && !state.opts.merge ? streamCold(p, need, env, state) : undefined;
            if (streamed) return applyOps(streamed.frame, p.operators, streamed.next, env, state, where);
            let frame = evalSource(p.source, env, state, need, p.operators);
            let startAt = 0;
            // Row-wise steps and a limit: run over batches of the source until the rows are there.
            const pushed = pushLimit(frame, p.operators, env, state, (op, f) => applyOperator(op, f, env, state));
            if (pushed) {
                if (where === 'top') state.sawTake = true;
                frame = pushed.frame;
                startAt = pushed.next;
            }
            return applyOps(frame, p.operators, startAt, env, state, where);
        }
        const need: OrderNeed = 'desc';
        if (where === 'top') state.order = 'desc';
        return evalSource(expr, env, state, need);
    } finally {
        state.depth--;
    }
}

/** Runs `ops[start..end)` over a frame. */
function applyOps(frame: Frame, ops: readonly ast.TabularOperator[], start: number, env: QueryEnv, state: RunState, where: 'top' | 'sub', end = ops.length): Frame {
    // The result's one-to-one steps at the end run over the rows of its page only (limit-pushdown.ts).
    const tail = where === 'top' && end === ops.length && state.pageable && !state.opts.partial ? oneToOneTail(ops, start) : end;
    let full: number | undefined;
    for (let i = start; i < end; i++) {
        if (i === tail) {
            const cap = pageCap(state.opts, state.sawTake);
            if (frame.length > cap) {
                full = frame.length;
                frame = takeRows(frame, cap);
            }
        }
        const op = ops[i];
        // [one-to-one steps |] sort [| one-to-one steps] | take N: a top-N heap instead of a full
        // sort, then the steps over its rows (limit-pushdown.ts).
        let s = i;
        while (s < end && ONE_TO_ONE.has(ops[s].$type)) s++;
        let t = s + 1;
        while (t < end && ONE_TO_ONE.has(ops[t].$type)) t++;
        const apply = (o: ast.TabularOperator, f: Frame) => applyOperator(o, f, env, state);
        if (t < end && ops[s].$type === 'SortOperator' && ops[t].$type === 'TakeOperator' && (s === i || sortCommutes(frame, ops.slice(i, s), ops[s] as ast.SortOperator, apply))) {
            const n = constLong((ops[t] as ast.TakeOperator).count, env, 'take');
            if (where === 'top') state.sawTake = true;
            state.stats.rowsMatched ??= frame.length;
            frame = topN(frame, (ops[s] as ast.SortOperator).items, n, env);
            for (let m = i; m < t; m++) if (m !== s) frame = apply(ops[m], frame);
            i = t;
            continue;
        }
        if (where === 'top' && (op.$type === 'TakeOperator' || op.$type === 'TopOperator')) state.sawTake = true;
        frame = applyOperator(op, frame, env, state);
    }
    if (full !== undefined) state.pageRows.set(frame, full);
    return frame;
}

/** Where the trailing run of one-to-one steps of `ops[start..]` begins (`ops.length` when there is none). */
function oneToOneTail(ops: readonly ast.TabularOperator[], start: number): number {
    let t = ops.length;
    while (t > start && ONE_TO_ONE.has(ops[t - 1].$type)) t--;
    return t;
}

/** The most rows a result returns: the request's limit, else the query's own limit or the default, within the maximum. */
function pageCap(o: RunOptions, sawTake: boolean): number {
    const cap = o.limit !== undefined && o.limit > 0 ? o.limit : sawTake ? o.maxLimit : o.defaultLimit;
    return Math.min(cap, o.maxLimit);
}

/** `status.messages[].code` of an aggregation answered by a sketch (an estimate; merge-states.ts). */
export const ESTIMATE_MESSAGE = 'apl_estimate';

/** A part of a parallel run: its share of the scan, up to the mergeable step; the result goes to `state.partial`. */
function runPart(p: ast.Pipeline, plan: PartitionPlan, need: OrderNeed, env: QueryEnv, state: RunState): Frame {
    const ops = p.operators;
    const stats = (matched: number) => partialStats(state.stats, state.stats.rowsMatched ?? matched);
    const counted = plan.kind === 'count' ? countPart(p, plan, need, env, state) : undefined;
    if (counted !== undefined) {
        state.partial = { kind: 'count', count: counted, stats: stats(counted) };
        return emptyFrame();
    }
    const frame = applyOps(evalSource(p.source, env, state, need, ops), ops, 0, env, state, 'top', plan.kind === 'top' ? plan.opIndex + 1 : plan.opIndex);
    if (plan.kind === 'count') {
        const rows = rowsOf(frame);
        state.partial = { kind: 'count', count: rows, stats: stats(rows) };
    }
    else if (plan.kind === 'top') {
        // Over a source of a dataset with blocks on disk, the rows (every column of the scan: the steps
        // before a parallel top are `where`s) are copied out, and the merge scans those copies.
        const copy = state.cold ? detachedFrame(frame) : undefined;
        state.partial = { kind: 'top', rows: partialTopRows(frame), stats: stats(frame.length), source: state.cold?.source, frame: copy };
    }
    else {
        state.budget.checkpoint(ops[plan.opIndex]);
        try {
            state.partial = { ...partialSummarize(frame, ops[plan.opIndex] as ast.SummarizeOperator, env), stats: stats(rowsOf(frame)) };
        } catch (e) {
            if (!(e instanceof PartitionUnsupported)) throw e;
            state.partial = { kind: 'unsupported' };
        }
    }
    return emptyFrame();
}

/**
 * `… | where p | count` as a part: the rows p keeps counted, not listed, when p can count them
 * (a string column against a constant: Compiled.countRows). Undefined: the part runs its steps.
 */
function countPart(p: ast.Pipeline, plan: PartitionPlan, need: OrderNeed, env: QueryEnv, state: RunState): number | undefined {
    const where = p.operators[plan.opIndex - 1];
    if (where?.$type !== 'WhereOperator') return undefined;
    const frame = applyOps(evalSource(p.source, env, state, need, p.operators), p.operators, 0, env, state, 'top', plan.opIndex - 1);
    state.budget.checkpoint(where);
    const pred = compileExpr((where as ast.WhereOperator).predicate, frame, env);
    if (rowWeights(frame)) return rowsOf(filterBy(frame, pred));
    return pred.countRows?.(frame) ?? filterBy(frame, pred).length;
}

/** The merge of a parallel run: the frame after the mergeable step, and the step to go on from (undefined for `top`). */
function mergeParts(p: ast.Pipeline, plan: PartitionPlan, parts: PartialResult[], env: QueryEnv, state: RunState): { frame: Frame; next: number } | undefined {
    const op = p.operators[plan.opIndex];
    if (plan.kind === 'count') {
        const total = parts.reduce((s, x) => s + (x.kind === 'count' ? x.count : 0), 0);
        return { frame: applyOperator(op, new Frame([], total), env, state), next: plan.opIndex + 1 };
    }
    if (plan.kind === 'summarize') {
        state.budget.checkpoint(op);
        const fold = state.opts.merge?.fold;
        const { frame, groups, estimates } = fold ? fold.finish() : mergeSummaries(parts.flatMap(x => (x.kind === 'summarize' ? [x] : [])));
        state.stats.numGroups = groups;
        if (estimates.length > 0) state.stats.estimate = true;
        for (const msg of estimates) state.stats.messages.push({ priority: 'info', count: 1, code: ESTIMATE_MESSAGE, msg });
        return { frame, next: plan.opIndex + 1 };
    }
    return undefined; // top: the scan keeps the parts' rows (sources.ts), and the whole pipeline runs.
}

/**
 * `dataset | <row-wise steps> [| sort by _time] [| take N]` over a dataset with blocks on disk: its
 * sources one at a time, each through the row-wise steps, until N rows are kept; without a `take`,
 * every source is filtered (the status counts all matches) but only the first page of rows is kept.
 * With a take and no sort, each source runs through the steps in batches until the rows it can
 * add are there (limit-pushdown.ts firstRows), and `rowsMatched` counts the matches among the rows
 * read; with a sort by `_time`, the matches among the sources read.
 *
 * Sources are read in order of their newest row (oldest for an ascending scan) and merged by
 * (_time, row id), so blocks that overlap in time (late events) give the same rows as one scan.
 * Kept rows are copied out of their source, so one block at a time is held. Undefined when the
 * pipeline has another shape (then it runs as one scan).
 */
function streamCold(p: ast.Pipeline, need: OrderNeed, env: QueryEnv, state: RunState): { frame: Frame; next: number } | undefined {
    if (p.source.$type !== 'NameReference' && p.source.$type !== 'BracketReference') return undefined;
    const ops = p.operators;
    let k = 0;
    while (k < ops.length && ROW_WISE.has(ops[k].$type)) k++;
    // A sort by `_time` alone is the scan's own order (orderNeed chose the scan's direction by it).
    const sortOp = ops[k]?.$type === 'SortOperator' && isTimeSort(ops[k] as ast.SortOperator) ? ops[k] : undefined;
    const takeOp = ops[sortOp ? k + 1 : k];
    if (takeOp !== undefined && takeOp.$type !== 'TakeOperator') return undefined;
    if (takeOp !== undefined && ops.length > (sortOp ? k + 2 : k + 1)) return undefined;
    const dir = need === 'asc' ? 'asc' : 'desc';
    const sources = coldSourcesInOrder((p.source as ast.NameReference).name, env, state, dir, ops);
    if (!sources) return undefined;
    const o = state.opts;
    const countAll = takeOp === undefined;
    // Without a take, the page cap decides (one row more tells runQuery that the cap applied).
    const limit = countAll ? Math.min(o.limit !== undefined && o.limit > 0 ? o.limit : o.defaultLimit, o.maxLimit) + 1 : constLong((takeOp as ast.TakeOperator).count, env, 'take');
    if (!countAll) state.sawTake = true;
    /** The first `limit` rows so far in scan order, copied out of their sources. */
    let kept: Frame | undefined;
    let matched = 0;
    const steps = ops.slice(0, k);
    const apply = (op: ast.TabularOperator, f: Frame): Frame => applyOperator(op, f, env, state);
    for (const s of sources) {
        if (!countAll && kept !== undefined && kept.length >= limit && !mayPrecede(s, kept, dir)) break;
        let f = s.scan();
        // A take runs the steps over batches of the source until the rows it may add are there (a
        // block of 140,000 rows for `take 1000`: a few thousand rows evaluated): all N when it
        // overlaps the rows kept in time, else those still missing. Not after a sort by time, the
        // paging query (`| sort by _time | limit N`): its `rowsMatched`, which clients show as the
        // result's size, keeps counting the matches of every block it reads.
        const first = countAll || sortOp ? undefined : firstRows(f, steps, kept === undefined || mayPrecede(s, kept, dir) ? limit : limit - kept.length, state, apply);
        if (first !== undefined) {
            f = first.frame;
            matched += first.matched;
        } else {
            for (const op of steps) f = apply(op, f);
            matched += f.length;
        }
        if (kept !== undefined && f.length === 0) continue;
        const fresh = detachedFrame(takeRows(f, limit));
        // Sources may overlap in time (late events): then the merge sorts by (_time, row id).
        kept = kept === undefined ? fresh : detachedFrame(takeRows(inTimeOrder([kept, fresh], dir, SCAN_TIME), limit));
    }
    // Matches among the rows read (with a take, the sources after the N-th row are not read at all).
    state.stats.rowsMatched = matched;
    const frame = kept!.with(kept!.cols.filter(c => c.name !== SCAN_TIME));
    // The sort (if any) and the take run on the rows kept: they are the first ones in that order.
    return { frame, next: k };
}

/** Whether a source may hold a row that comes before the last of `kept` in the scan's order (none when no row is kept: a `take 0`). */
function mayPrecede(s: ColdSource, kept: Frame, dir: 'asc' | 'desc'): boolean {
    if (kept.length === 0) return false;
    const t = (cellOf(kept.find(SCAN_TIME)!, kept.length - 1) as Datetime).ns;
    return dir === 'desc' ? s.hi >= t : s.lo <= t;
}

/** A sort by `_time` alone (either direction). */
export function isTimeSort(op: ast.SortOperator): boolean {
    return op.items.length === 1 && defaultName(op.items[0].expression) === '_time';
}

/**
 * The direction cursor paging runs in: that of the last sort when it sorts by `_time` first (an
 * earlier `sort by x` must not decide it), else undefined (the scan order decides).
 */
function finalTimeOrder(ops: readonly ast.TabularOperator[]): 'asc' | 'desc' | undefined {
    for (let i = ops.length - 1; i >= 0; i--) {
        const op = ops[i];
        if (op.$type !== 'SortOperator' && op.$type !== 'TopOperator') continue;
        const first = (op as ast.SortOperator | ast.TopOperator).items[0];
        if (!first || defaultName(first.expression) !== '_time') return undefined;
        return first.direction === 'asc' ? 'asc' : 'desc';
    }
    return undefined;
}

/** Whether the pipeline's result depends on the order rows come from the dataset. */
function orderNeed(ops: readonly ast.TabularOperator[], dflt: OrderNeed = 'desc'): OrderNeed {
    for (const op of ops) {
        switch (op.$type) {
            case 'WhereOperator': case 'ExtendOperator': case 'ExtendValidOperator': case 'ProjectOperator': case 'ProjectAwayOperator':
            case 'ProjectKeepOperator': case 'ProjectRenameOperator': case 'ProjectReorderOperator': case 'ParseOperator':
            case 'ParseWhereOperator': case 'ParseKvOperator': case 'RedactOperator': case 'SearchOperator': case 'MvExpandOperator':
                continue;
            case 'CountOperator': case 'GetschemaOperator':
                return 'none';
            case 'SummarizeOperator': {
                const s = op as ast.SummarizeOperator;
                const ok = s.aggregates.every(a => findAggregateCalls(a.expression).every(c => aggregateIsOrderInsensitive(c.function)));
                return ok ? 'none' : 'desc';
            }
            case 'SortOperator': case 'TopOperator': {
                const items = (op as ast.SortOperator | ast.TopOperator).items;
                const first = items[0];
                if (first && defaultName(first.expression) === '_time' && first.direction === 'asc') return 'asc';
                return 'desc';
            }
            default:
                return 'desc';
        }
    }
    return dflt;
}

/** Runs one operator; the budget's check point (time limit, interruption) comes before each. */
function applyOperator(op: ast.TabularOperator, frame: Frame, env: QueryEnv, state: RunState): Frame {
    state.budget.checkpoint(op);
    // The table is complete for every `$type` of the grammar; a node from elsewhere is refused.
    const impl = (OPERATORS as Partial<Record<string, OperatorImpl>>)[op.$type];
    if (impl === undefined) {
        const unknown = op as { keyword?: string; $type: string };
        throw unsupportedAt(op, `the operator '${unknown.keyword ?? unknown.$type}'`);
    }
    return impl(op, frame, env, state);
}
