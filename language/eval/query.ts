/**
 * Runs an APL query: statements (let, set, declare query_parameters), sources and the plan of
 * tabular operators. Each operator is a step over frames (see frame.ts); expressions are compiled
 * against the step's input schema (expr.ts) and run vectorised.
 */
import type { StatusMessage } from '../api/status.js';
import { GrammarUtils, type AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import { parse } from '../apl-parse.js';
import { typeFromName } from '../types/apl-types.js';
import { Datetime, Timespan, parseDatetime, parseGoDuration, type AplValue } from '../values.js';
import { lookupAggregate } from '../builtins/index.js';
import { BoolColumn, type Column, ConstColumn, DynColumn, NumColumn, type ScalarType, StrColumn, StrBuilder, builderFor, columnFromValues, gatherColumn } from './columns.js';
import { AplQueryError, errorAt, unsupportedAt } from './errors.js';
import { QueryBudget, type QueryInterruption, type QueryLimits } from './budget.js';
import {
    type Binding,
    type Compiled,
    ExprCompiler,
    type QueryEnv,
    type Vec,
    castValue,
    compileExpr,
    constant,
    defaultName,
    compileKey,
    keyName,
    type ColumnKey,
    type KeyExpr,
    isTabular,
    normType,
    stringPredicateVec,
    textOf,
    triArray,
    vecToFrameCol,
    vget,
} from './expr.js';
import { Frame, ROWID, type FrameCol, type FrameMeta, cellOf, concatColumns, dense, selectRows, takeRows } from './frame.js';
import {
    type AggSpec,
    aggregateIsOrderInsensitive,
    comparatorFor,
    compileAggregate,
    findAggregateCalls,
    groupRows,
    keyColumn,
    permute,
    runAggregate,
    sortGroupsByKeys,
} from './aggregate.js';
import { RowIdColumn, type Snapshot } from './tables.js';
import { type ParsedCursor, parseCursor } from '../api/row-id.js';
import { searchTermPredicate, truthTri } from './scalar-ops.js';
import { compileRegex, type LinearRegex } from '../builtins/index.js';
import { toJson } from '../runtime-values.js';
import { autoBinSizeFor } from '../builtins/index.js';
import { createHash } from 'node:crypto';
import Papa from 'papaparse';

/**
 * Where `externaldata` sources come from, injected by the embedder: `apl run` reads local files
 * (bounded in size), the service nothing. Errors are ExternalDataError, whose message is shown to
 * the query's author as it is.
 */
export interface ExternalDataReader {
    /** The text behind `uri` as written in the query. */
    read(uri: string): string;
}

export class ExternalDataError extends Error {
    constructor(
        message: string,
        /** The kind of source is refused (a URL where only files are read), rather than this one failing. */
        readonly unsupported = false,
    ) {
        super(message);
    }
}

export interface DataAccess {
    snapshot(name: string): Snapshot | undefined;
    datasetNames(): string[];
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
}

export interface RunStats {
    rowsExamined: number;
    rowsMatched: number | undefined;
    numGroups: number;
    blocksExamined: number;
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
}

type OrderNeed = 'asc' | 'desc' | 'none';

interface RunState {
    data: DataAccess;
    opts: RunOptions;
    stats: RunStats;
    cursor?: ParsedCursor;
    order: 'asc' | 'desc';
    sawTake: boolean;
    depth: number;
    budget: QueryBudget;
}

// ---------------------------------------------------------------------------------------------

const parseCache = new Map<string, ReturnType<typeof parse>>();

/** Texts longer than this are not cached: 256 syntax trees of 256 KiB queries would hold gigabytes. */
const MAX_CACHED_QUERY_LENGTH = 16 * 1024;

/** Parses with a small cache: the AST is read-only to the evaluator, so repeated queries reuse it. */
function parseCached(text: string): ReturnType<typeof parse> {
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
    const stats: RunStats = { rowsExamined: 0, rowsMatched: undefined, numGroups: 0, blocksExamined: 0, datasets: [], messages: [], estimate: false };
    let cursor: ParsedCursor | undefined;
    if (opts.cursor) {
        cursor = parseCursor(opts.cursor);
        if (!cursor) throw new AplQueryError(`invalid cursor '${opts.cursor}'`, 1, 1, 'semantic');
    }
    const state: RunState = { data, opts, stats, cursor, order: 'desc', sawTake: false, depth: 0, budget: new QueryBudget(opts.limits, opts.interrupt) };
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
    // The page cap.
    const hasLimit = state.sawTake;
    let cap = opts.limit !== undefined && opts.limit > 0 ? opts.limit : hasLimit ? opts.maxLimit : opts.defaultLimit;
    cap = Math.min(cap, opts.maxLimit);
    const totalRows = tables[0].length;
    const capped = tables.map(t => {
        if (t.length <= cap) return t;
        if (opts.limit === undefined && !hasLimit) {
            stats.messages.push({ priority: 'warn', count: 1, code: 'default_limit_warning', msg: `query result was limited to ${cap} rows (the default limit)` });
        }
        return takeRows(t, cap);
    });
    if (stats.rowsMatched === undefined) stats.rowsMatched = totalRows;
    return { tables: capped, stats, order: state.order, totalRows };
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

function letBinding(s: ast.LetStatement, env: QueryEnv, state: RunState): Binding {
    const value = s.value;
    if (isTabular(value) || isTableName(value, env, state)) {
        // Tables are evaluated where they are used, with the bindings visible at the let.
        return { kind: 'table', expression: value, env: { ...env, bindings: new Map(env.bindings) } };
    }
    const c = compileExpr(value, emptyFrame(), env);
    if (!c.isConst) throw errorAt(value, `the value of '${s.name}' must be a constant or a tabular expression`);
    return { kind: 'scalar', type: c.type, value: c.value ?? null };
}

function isTableName(e: ast.Expression, env: QueryEnv, state: RunState): boolean {
    if (e.$type === 'NameReference' || e.$type === 'BracketReference') {
        const name = (e as ast.NameReference).name;
        const b = env.bindings.get(name);
        if (b) return b.kind !== 'scalar';
        return state.data.snapshot(name) !== undefined;
    }
    if (e.$type === 'FunctionCall' && (e as ast.FunctionCall).function === 'table') return true;
    if (e.$type === 'ParenthesizedExpression') return isTableName((e as ast.ParenthesizedExpression).expression, env, state);
    return false;
}

export function emptyFrame(n = 1): Frame {
    return new Frame([], n);
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
            let frame = evalSource(p.source, env, state, need);
            let startAt = 0;
            // A streamable prefix followed by take: run it batch by batch and stop early.
            let k = 0;
            while (k < p.operators.length && STREAMABLE.has(p.operators[k].$type)) k++;
            const takeOp = p.operators[k];
            if (k > 0 && takeOp?.$type === 'TakeOperator' && frame.length > 65536) {
                const limit = constLong((takeOp as ast.TakeOperator).count, env, 'take');
                if (where === 'top') state.sawTake = true;
                frame = runBatched(frame, p.operators.slice(0, k), limit, env, state);
                startAt = k + 1;
            }
            for (let i = startAt; i < p.operators.length; i++) {
                const op = p.operators[i];
                const next = p.operators[i + 1];
                // sort | take N: a top-N heap instead of a full sort.
                if (op.$type === 'SortOperator' && next?.$type === 'TakeOperator') {
                    const n = constLong((next as ast.TakeOperator).count, env, 'take');
                    if (where === 'top') state.sawTake = true;
                    state.stats.rowsMatched ??= frame.length;
                    frame = topN(frame, (op as ast.SortOperator).items, n, env);
                    i++;
                    continue;
                }
                if (where === 'top' && (op.$type === 'TakeOperator' || op.$type === 'TopOperator')) state.sawTake = true;
                frame = applyOperator(op, frame, env, state);
            }
            return frame;
        }
        const need: OrderNeed = 'desc';
        if (where === 'top') state.order = 'desc';
        return evalSource(expr, env, state, need);
    } finally {
        state.depth--;
    }
}

const STREAMABLE = new Set([
    'WhereOperator', 'ExtendOperator', 'ExtendValidOperator', 'ProjectOperator', 'ProjectAwayOperator', 'ProjectKeepOperator',
    'ProjectRenameOperator', 'ProjectReorderOperator', 'ParseOperator', 'ParseWhereOperator', 'ParseKvOperator', 'RedactOperator',
    'SearchOperator', 'MvExpandOperator',
]);

/** Rows [start, end) of a frame, as a view. */
function sliceFrame(frame: Frame, start: number, end: number): Frame {
    const cache = new Map<Uint32Array | null, Uint32Array>();
    const cols = frame.cols.map(c => {
        let sel = cache.get(c.sel);
        if (sel === undefined) {
            if (c.sel) sel = c.sel.subarray(start, end);
            else {
                sel = new Uint32Array(end - start);
                for (let i = 0; i < sel.length; i++) sel[i] = start + i;
            }
            cache.set(c.sel, sel);
        }
        return { ...c, sel };
    });
    return new Frame(cols, end - start, frame.meta);
}

/** Runs row-wise operators over growing batches of the input until `limit` rows came out. */
function runBatched(src: Frame, ops: readonly ast.TabularOperator[], limit: number, env: QueryEnv, state: RunState): Frame {
    const parts: { frame: Frame; source: string }[] = [];
    let got = 0;
    let size = Math.max(4096, Math.min(65536, limit * 4));
    let last: Frame | undefined;
    for (let start = 0; start < src.length && got < limit; start += size, size = Math.min(size * 2, 1 << 20)) {
        let f = sliceFrame(src, start, Math.min(src.length, start + size));
        for (const op of ops) f = applyOperator(op, f, env, state);
        last = f;
        if (f.length === 0) continue;
        const t = takeRows(f, limit - got);
        parts.push({ frame: t, source: '' });
        got += t.length;
    }
    if (parts.length === 0) {
        if (last) return takeRows(last, 0);
        let f = sliceFrame(src, 0, 0);
        for (const op of ops) f = applyOperator(op, f, env, state);
        return f;
    }
    if (parts.length === 1) return parts[0].frame;
    const out = concatFrames(parts, undefined, ops[0]);
    out.meta = parts[parts.length - 1].frame.meta;
    return out;
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

function evalSource(expr: ast.Expression, env: QueryEnv, state: RunState, need: OrderNeed): Frame {
    switch (expr.$type) {
        case 'NameReference':
        case 'BracketReference':
            return namedTable((expr as ast.NameReference).name, expr, env, state, need);
        case 'ParenthesizedExpression':
            return evalTable((expr as ast.ParenthesizedExpression).expression, env, state, 'sub');
        case 'Pipeline':
            return evalTable(expr, env, state, 'sub');
        case 'DatatableExpression':
            return datatable(expr as ast.DatatableExpression, env);
        case 'PrintExpression':
            return print(expr as ast.PrintExpression, env);
        case 'UnionExpression': {
            const u = expr as ast.UnionExpression;
            return union(undefined, u.tables, u.options, env, state, u);
        }
        case 'SearchExpression': {
            const s = expr as ast.SearchExpression;
            const src = s.tables.length > 0 ? union(undefined, s.tables, [], env, state, s) : union(undefined, [], [], env, state, s, state.data.datasetNames());
            return search(src, s.predicate, s.options, env);
        }
        case 'ExternalDataExpression':
            return externalData(expr as ast.ExternalDataExpression, env, state);
        case 'FunctionCall': {
            const call = expr as ast.FunctionCall;
            if (call.function === 'table') {
                if (call.arguments.length !== 1) throw errorAt(call, 'table() expects one argument');
                const c = compileExpr(call.arguments[0].expression, emptyFrame(), env);
                if (!c.isConst || typeof c.value !== 'string') throw errorAt(call, 'table() expects a constant table name');
                return namedTable(c.value, call, env, state, need);
            }
            throw errorAt(expr, `'${call.function}(...)' is not a tabular expression`);
        }
        default:
            throw errorAt(expr, 'a tabular expression (a dataset, a let-bound table, datatable, print, union, search or externaldata) is expected');
    }
}

function namedTable(name: string, node: AstNode, env: QueryEnv, state: RunState, need: OrderNeed): Frame {
    const b = env.bindings.get(name);
    if (b?.kind === 'table') return evalTable(b.expression, b.env, state, 'sub');
    if (b?.kind === 'frame') return b.frame;
    const snap = state.data.snapshot(name);
    if (!snap) {
        if (b?.kind === 'scalar' && typeof b.value === 'string') return namedTable(b.value, node, env, state, need);
        throw errorAt(node, `unknown dataset or table '${name}'`);
    }
    return scanDataset(snap, need, state);
}

/** Binary search: the first position in [lo, hi) where `pred` holds (pred monotone false..true). */
function lowerBound(lo: number, hi: number, pred: (i: number) => boolean): number {
    while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (pred(mid)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

function scanDataset(snap: Snapshot, need: OrderNeed, state: RunState): Frame {
    const n = snap.rows;
    const asc = snap.ascOrder();
    const t = snap.time;
    const { startTime, endTime } = state.opts;
    const nsAt = (i: number) => t.ns(asc[i]);
    let lo = 0;
    let hi = n;
    if (startTime !== undefined) lo = lowerBound(0, n, i => nsAt(i) >= startTime);
    if (endTime !== undefined) hi = lowerBound(lo, n, i => nsAt(i) >= endTime);
    state.stats.rowsExamined += hi - lo;
    if (hi > lo) state.stats.blocksExamined += 1;
    if (!state.stats.datasets.includes(snap.dataset)) state.stats.datasets.push(snap.dataset);
    const minT = snap.minTime();
    const maxT = snap.maxTime();
    if (minT !== undefined && (state.stats.minBlockTime === undefined || minT < state.stats.minBlockTime)) state.stats.minBlockTime = minT;
    if (maxT !== undefined && (state.stats.maxBlockTime === undefined || maxT > state.stats.maxBlockTime)) state.stats.maxBlockTime = maxT;
    const c = state.cursor;
    if (c) {
        const incl = state.opts.includeCursor === true;
        if (state.order === 'asc') lo = lowerBound(lo, hi, i => (incl ? snap.compareWithCursor(asc[i], c) >= 0 : snap.compareWithCursor(asc[i], c) > 0));
        else hi = lowerBound(lo, hi, i => (incl ? snap.compareWithCursor(asc[i], c) > 0 : snap.compareWithCursor(asc[i], c) >= 0));
    }
    const m = Math.max(0, hi - lo);
    let sel: Uint32Array | null;
    if (need === 'desc') {
        const desc = snap.descOrder();
        sel = desc.subarray(n - hi, n - lo);
    } else {
        sel = asc.subarray(lo, hi);
        if (lo === 0 && hi === n && isIdentity(asc)) sel = null;
    }
    const cols: FrameCol[] = snap.fields.map(f => ({ name: f.name, type: f.type, data: snap.column(f.name)!, sel }));
    cols.push({ name: ROWID, type: 'string', data: new RowIdColumn(snap), sel, hidden: true });
    const meta: FrameMeta = { order: [{ field: '_time', desc: need !== 'asc' }], datasetOrder: need === 'asc' ? 'asc' : need === 'desc' ? 'desc' : undefined };
    return new Frame(cols, m, meta);
}

const identityCache = new WeakMap<Uint32Array, boolean>();
function isIdentity(a: Uint32Array): boolean {
    let r = identityCache.get(a);
    if (r === undefined) {
        r = true;
        for (let i = 0; i < a.length; i++) if (a[i] !== i) {
            r = false;
            break;
        }
        identityCache.set(a, r);
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// Sources: datatable, print, union, search, externaldata

function datatable(d: ast.DatatableExpression, env: QueryEnv): Frame {
    const cols = d.columns.map(c => ({ name: c.name, type: normType(c.type ? typeFromName(c.type) ?? 'dynamic' : 'dynamic'), node: c }));
    for (const c of d.columns) if (c.type && !typeFromName(c.type)) throw errorAt(c, `unknown type '${c.type}'`);
    let values: AplValue[];
    if (d.singleton !== undefined) values = [d.singleton];
    else {
        values = d.values.map(v => {
            const c = compileExpr(v, emptyFrame(), env);
            if (!c.isConst) throw errorAt(v, 'datatable values must be constants');
            return c.value ?? null;
        });
    }
    const w = cols.length;
    if (w === 0 || values.length % w !== 0) throw errorAt(d, `datatable has ${values.length} values for ${w} columns; the count must be a multiple of the number of columns`);
    const rows = values.length / w;
    const out: FrameCol[] = cols.map((c, k) => {
        const b = builderFor(c.type, rows);
        for (let r = 0; r < rows; r++) b.push(coerceCell(values[r * w + k], c.type));
        return { name: c.name, type: c.type, data: b.build(), sel: null };
    });
    return new Frame(out, rows);
}

function coerceCell(v: AplValue, t: ScalarType): AplValue {
    if (v === null) return null;
    switch (t) {
        case 'datetime':
            if (v instanceof Datetime) return v;
            if (typeof v === 'string') {
                const ns = parseDatetime(v);
                return ns === undefined ? null : new Datetime(ns);
            }
            if (typeof v === 'number') return new Datetime(BigInt(Math.trunc(v)));
            return null;
        case 'timespan':
            if (v instanceof Timespan) return v;
            if (typeof v === 'string') {
                const ns = parseGoDuration(v);
                return ns === undefined ? null : new Timespan(ns);
            }
            return castValue(v, 'timespan');
        case 'dynamic':
            return v instanceof Datetime || v instanceof Timespan ? v : (toJson(v) as AplValue);
        default:
            return castValue(v, t);
    }
}

function print(p: ast.PrintExpression, env: QueryEnv): Frame {
    const f = emptyFrame(1);
    const cols: FrameCol[] = [];
    p.columns.forEach((ne, k) => {
        const c = compileExpr(ne.expression, f, env);
        const name = ne.name ?? `print_${k}`;
        cols.push(vecToFrameCol(name, c.type, c.run(f), 1));
    });
    return new Frame(cols, 1);
}

function globToRegex(pattern: string): RegExp {
    let p = pattern;
    const m = /^\[\s*(['"])(.*)\1\s*\]\*?$/.exec(p.endsWith('*') ? p.slice(0, -1) : p);
    if (m) p = m[2] + (pattern.endsWith('*') ? '*' : '');
    const src = p.split('*').map(s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
    return new RegExp(`^${src}$`);
}

function union(
    first: Frame | undefined,
    tables: readonly ast.UnionTable[],
    options: readonly ast.OperatorOption[],
    env: QueryEnv,
    state: RunState,
    node: AstNode,
    datasetNames?: string[],
): Frame {
    const parts: { frame: Frame; source: string }[] = [];
    if (first) parts.push({ frame: first, source: '' });
    const sub = (name: string) => scanDataset(state.data.snapshot(name)!, 'desc', state);
    for (const name of datasetNames ?? []) parts.push({ frame: sub(name), source: name });
    for (const t of tables) {
        if (t.$type === 'TableWildcard') {
            const re = globToRegex((t as ast.TableWildcard).pattern);
            for (const name of state.data.datasetNames().filter(n => re.test(n)).sort()) parts.push({ frame: sub(name), source: name });
        } else {
            const e = (t as ast.TableExpression).expression;
            if (e.$type === 'StarExpression') {
                for (const name of state.data.datasetNames().slice().sort()) parts.push({ frame: sub(name), source: name });
                continue;
            }
            const src = e.$type === 'NameReference' || e.$type === 'BracketReference' ? (e as ast.NameReference).name : '';
            parts.push({ frame: evalTable(e, env, state, 'sub'), source: src });
        }
    }
    const withsource = optionValue(options, 'withsource');
    const rows = parts.reduce((s, p) => s + p.frame.length, 0);
    const columns = new Set(parts.flatMap(p => p.frame.visible().map(c => c.name))).size;
    state.budget.admit(rows, columns, node, 'union');
    return concatFrames(parts, typeof withsource === 'string' ? withsource : undefined, node);
}

function concatFrames(parts: { frame: Frame; source: string }[], withsource: string | undefined, _node: AstNode): Frame {
    const names: string[] = [];
    const types = new Map<string, ScalarType>();
    for (const p of parts) {
        for (const c of p.frame.visible()) {
            const t = types.get(c.name);
            if (t === undefined) {
                names.push(c.name);
                types.set(c.name, c.type);
            } else if (t !== c.type) {
                types.set(c.name, (t === 'long' || t === 'real') && (c.type === 'long' || c.type === 'real') ? 'real' : 'dynamic');
            }
        }
    }
    const total = parts.reduce((s, p) => s + p.frame.length, 0);
    const cols: FrameCol[] = [];
    if (withsource) {
        const b = new StrBuilder(total);
        for (const p of parts) for (let i = 0; i < p.frame.length; i++) b.push(p.source);
        cols.push({ name: withsource, type: 'string', data: b.build(), sel: null });
    }
    const merged = (srcs: (FrameCol | undefined)[], t: ScalarType, name: string, hidden?: boolean): FrameCol => {
        // Same stored column in every part (batches of one scan): concatenate the selections only.
        const first = srcs[0];
        if (first && srcs.every(c => c !== undefined && c.data === first.data && c.type === t)) {
            const sel = new Uint32Array(total);
            let at = 0;
            srcs.forEach((c, k) => {
                const len = parts[k].frame.length;
                if (c!.sel) sel.set(c!.sel.subarray(0, len), at);
                else for (let i = 0; i < len; i++) sel[at + i] = i;
                at += len;
            });
            return { name, type: t, data: first.data, sel, hidden, agg: first.agg };
        }
        const data = concatColumns(srcs.map((c, k) => ({ col: c, n: parts[k].frame.length })), t);
        return { name, type: t, data, sel: null, hidden };
    };
    for (const name of names) {
        const t = types.get(name)!;
        cols.push(merged(parts.map(p => p.frame.visible().find(c => c.name === name)), t, name));
    }
    // Row ids (cursors) survive when any part has them; rows of the other parts (datatable, print,
    // an aggregated subquery) have no source event and get null.
    if (parts.some(p => p.frame.find(ROWID))) {
        cols.push(merged(parts.map(p => p.frame.find(ROWID)), 'string', ROWID, true));
    }
    return new Frame(cols, total, { order: parts.length === 1 ? parts[0].frame.meta.order : undefined });
}

function optionValue(options: readonly ast.OperatorOption[], name: string): AplValue | undefined {
    const o = options.find(x => x.name === name);
    if (!o) return undefined;
    const v = o.value;
    if (v.$type === 'OptionNameValue') return (v as ast.OptionNameValue).name;
    if (v.literal) {
        const c = compileExpr(v.literal as ast.Expression, emptyFrame(), { bindings: new Map(), now: 0n, evalTable: () => emptyFrame(), budget: new QueryBudget() });
        return c.value ?? null;
    }
    return undefined;
}

function search(frame: Frame, predicate: ast.Expression, options: readonly ast.OperatorOption[], env: QueryEnv): Frame {
    const kind = optionValue(options, 'kind');
    const cs = kind === 'case_sensitive';
    const comp = new ExprCompiler(frame, env);
    const build = (e: ast.Expression): Compiled => {
        switch (e.$type) {
            case 'StarExpression': return constant('bool', true);
            case 'StringLiteral': {
                const pred = searchTermPredicate((e as ast.StringLiteral).value, cs);
                return {
                    type: 'bool',
                    isConst: false,
                    run: f => {
                        const n = f.length;
                        const out = new Uint8Array(n);
                        for (const c of f.visible()) {
                            const v: Vec = { c: false, col: c.data, sel: c.sel };
                            const r = stringPredicateVec(v, n, pred, false) as BoolColumn;
                            for (let i = 0; i < n; i++) if (r.vals[i] === 1) out[i] = 1;
                        }
                        return { c: false, col: new BoolColumn(out, n), sel: null };
                    },
                };
            }
            case 'ParenthesizedExpression': return build((e as ast.ParenthesizedExpression).expression);
            case 'NotExpression': return comp.not(build((e as ast.NotExpression).operand));
            case 'BinaryExpression': {
                const b = e as ast.BinaryExpression;
                if (b.operator === 'and' || b.operator === 'or') return comp.logical(b.operator, build(b.left), build(b.right as ast.Expression));
                if (b.operator.startsWith(':')) {
                    const left = comp.compile(b.left);
                    const pred = searchTermPredicate((b.right as ast.StringLiteral).value, cs);
                    return { type: 'bool', isConst: false, run: f => ({ c: false, col: stringPredicateVec(left.run(f), f.length, pred, false), sel: null }) };
                }
                return comp.compile(e);
            }
            default:
                return comp.compile(e);
        }
    };
    return filterBy(frame, build(predicate));
}

function externalData(x: ast.ExternalDataExpression, env: QueryEnv, state: RunState): Frame {
    const cols = x.columns.map(c => ({ name: c.name, type: normType(c.type ? typeFromName(c.type) ?? 'dynamic' : 'string') }));
    const props = new Map<string, AplValue>();
    for (const p of x.properties) {
        const c = compileExpr(p.value, emptyFrame(), env);
        props.set(p.name, c.value ?? null);
    }
    const format = String(props.get('format') ?? 'csv').toLowerCase();
    const skipFirst = props.get('ignoreFirstRecord') === true || props.get('skipFirstRow') === true;
    const singletonNode = x.singleton !== undefined ? GrammarUtils.findNodeForProperty(x.$cstNode, 'singleton') : undefined;
    const uris: { value: string; node: AstNode }[] =
        x.singleton !== undefined ? [{ value: x.singleton, node: singletonNode ? ({ $cstNode: singletonNode } as unknown as AstNode) : x }] : x.uris.map(u => ({ value: u.value, node: u }));
    const rows: AplValue[][] = [];
    const reader = state.opts.externalData;
    for (const u of uris) {
        // The same answer for every source, before anything is looked up: it reveals nothing about files.
        if (!reader) throw errorAt(u.node, 'externaldata is not available here: this engine reads no files or URLs', 'unsupported');
        let text: string;
        try {
            text = reader.read(u.value);
        } catch (e) {
            if (e instanceof ExternalDataError) throw errorAt(u.node, `externaldata: ${e.message}`, e.unsupported ? 'unsupported' : 'runtime');
            throw e;
        }
        rows.push(...parseExternal(text, format, cols.map(c => c.name), skipFirst, u.node));
    }
    const out: FrameCol[] = cols.map((c, k) => {
        const b = builderFor(c.type, rows.length);
        for (const r of rows) b.push(coerceText(r[k] ?? null, c.type));
        return { name: c.name, type: c.type, data: b.build(), sel: null };
    });
    return new Frame(out, rows.length);
}

function parseExternal(text: string, format: string, names: string[], skipFirst: boolean, node: AstNode): AplValue[][] {
    const delim: Record<string, string> = { csv: ',', tsv: '\t', tsve: '\t', psv: '|', scsv: ';', sohsv: '\u0001' };
    if (format in delim) {
        const parsed = Papa.parse<string[]>(text, { delimiter: delim[format], skipEmptyLines: true });
        const data = parsed.data;
        return (skipFirst ? data.slice(1) : data).map(r => r.map(x => x as AplValue));
    }
    if (format === 'json' || format === 'multijson') {
        const t = text.trim();
        let objs: unknown[] = [];
        if (t.startsWith('[')) objs = JSON.parse(t) as unknown[];
        else for (const line of t.split(/\r?\n/)) if (line.trim()) objs.push(JSON.parse(line));
        return objs.map(o => names.map(n => ((o as Record<string, unknown>)?.[n] ?? null) as AplValue));
    }
    if (format === 'raw' || format === 'txt') {
        if (format === 'raw') return [[text]];
        const lines = text.split(/\r?\n/);
        if (lines.length && lines[lines.length - 1] === '') lines.pop();
        return (skipFirst ? lines.slice(1) : lines).map(l => [l]);
    }
    throw errorAt(node, `externaldata: unknown format '${format}'`);
}

function coerceText(v: AplValue, t: ScalarType): AplValue {
    if (v === null) return null;
    if (typeof v !== 'string') return coerceCell(v, t);
    if (t === 'string') return v;
    if (v === '') return null;
    if (t === 'dynamic') {
        try {
            return JSON.parse(v) as AplValue;
        } catch {
            return v;
        }
    }
    return coerceCell(v, t);
}

// ---------------------------------------------------------------------------------------------
// Operators

function constLong(e: ast.Expression, env: QueryEnv, what: string): number {
    const c = compileExpr(e, emptyFrame(), env);
    if (!c.isConst || typeof c.value !== 'number') throw errorAt(e, `${what} expects a constant number`);
    return Math.max(0, Math.trunc(c.value));
}

function filterBy(frame: Frame, pred: Compiled): Frame {
    const n = frame.length;
    const v = pred.run(frame);
    if (v.c) return truthTri(v.v) === 1 ? frame : selectRows(frame, new Uint32Array(0));
    const t = triArray(v, n);
    let m = 0;
    for (let i = 0; i < n; i++) if (t[i] === 1) m++;
    if (m === n) return frame;
    const idx = new Uint32Array(m);
    let k = 0;
    for (let i = 0; i < n; i++) if (t[i] === 1) idx[k++] = i;
    return selectRows(frame, idx);
}

function applyOperator(op: ast.TabularOperator, frame: Frame, env: QueryEnv, state: RunState): Frame {
    state.budget.checkpoint(op);
    switch (op.$type) {
        case 'WhereOperator':
            return filterBy(frame, compileExpr((op as ast.WhereOperator).predicate, frame, env));
        case 'ExtendOperator':
            return extend(frame, (op as ast.ExtendOperator).columns, env, false);
        case 'ExtendValidOperator':
            return extend(frame, (op as ast.ExtendValidOperator).columns, env, true);
        case 'ProjectOperator':
            return project(frame, (op as ast.ProjectOperator).columns, env);
        case 'ProjectAwayOperator': {
            const pats = (op as ast.ProjectAwayOperator).columns;
            const matchers = pats.map(p => patternMatcher(p, frame));
            return frame.with(frame.cols.filter(c => c.hidden || !matchers.some(m => m(c.name))));
        }
        case 'ProjectKeepOperator': {
            const pats = (op as ast.ProjectKeepOperator).columns;
            const matchers = pats.map(p => patternMatcher(p, frame));
            return frame.with(frame.cols.filter(c => c.hidden || matchers.some(m => m(c.name))));
        }
        case 'ProjectRenameOperator': {
            let cols = frame.cols.slice();
            for (const r of (op as ast.ProjectRenameOperator).renames) {
                const old = r.oldName.segments.join('.');
                const i = cols.findIndex(c => c.name === old && !c.hidden);
                if (i < 0) throw errorAt(r.oldName, `unknown field '${old}'`);
                cols = cols.filter(c => c.name !== r.newName || c === cols[i]);
                const j = cols.findIndex(c => c.name === old && !c.hidden);
                cols[j] = { ...cols[j], name: r.newName };
            }
            return frame.with(cols);
        }
        case 'ProjectReorderOperator':
            return projectReorder(frame, op as ast.ProjectReorderOperator);
        case 'SortOperator':
            return sortFrame(frame, (op as ast.SortOperator).items, env);
        case 'TakeOperator':
            // Like Axiom, rowsMatched counts the rows that matched, not those a limit keeps: a client
            // that pages with `| limit N` reads the total from it.
            state.stats.rowsMatched ??= frame.length;
            return take(frame, constLong((op as ast.TakeOperator).count, env, 'take'), env);
        case 'TopOperator': {
            state.stats.rowsMatched ??= frame.length;
            const t = op as ast.TopOperator;
            return topN(frame, t.items, constLong(t.count, env, 'top'), env);
        }
        case 'CountOperator': {
            state.stats.rowsMatched ??= frame.length;
            return new Frame([{ name: 'count', type: 'long', data: new NumColumn('long', Float64Array.of(frame.length), null, 1), sel: null, agg: { name: 'count', fields: [], args: [] } }], 1);
        }
        case 'DistinctOperator':
            return distinct(frame, (op as ast.DistinctOperator).columns, env);
        case 'SummarizeOperator':
            return summarize(frame, op as ast.SummarizeOperator, env, state);
        case 'ParseOperator':
            return parseOp(frame, op as ast.ParseOperator, env, false);
        case 'ParseWhereOperator':
            return parseOp(frame, op as ast.ParseWhereOperator, env, true);
        case 'ParseKvOperator':
            return parseKv(frame, op as ast.ParseKvOperator, env);
        case 'MvExpandOperator':
            return mvExpand(frame, op as ast.MvExpandOperator, env);
        case 'MakeSeriesOperator':
            return makeSeries(frame, op as ast.MakeSeriesOperator, env, state);
        case 'JoinOperator':
            return join(frame, op as ast.JoinOperator, env, state);
        case 'LookupOperator':
            return lookup(frame, op as ast.LookupOperator, env, state);
        case 'UnionOperator': {
            const u = op as ast.UnionOperator;
            return union(frame, u.tables, u.options, env, state, u);
        }
        case 'SearchOperator': {
            const s = op as ast.SearchOperator;
            if (s.tables.length > 0) throw unsupportedAt(s, "'search in (...)' after a pipe; use it as the first operator");
            return search(frame, s.predicate, s.options, env);
        }
        case 'SampleOperator':
            return sample(frame, op as ast.SampleOperator, env, state);
        case 'GetschemaOperator':
            return getschema(frame);
        case 'RedactOperator':
            return redact(frame, op as ast.RedactOperator, env);
    }
    const unknown = op as { keyword?: string; $type: string };
    throw unsupportedAt(op as AstNode, `the operator '${unknown.keyword ?? unknown.$type}'`);
}

function uniqueName(cols: FrameCol[], name: string): string {
    if (!cols.some(c => c.name === name)) return name;
    for (let k = 1; ; k++) if (!cols.some(c => c.name === `${name}${k}`)) return `${name}${k}`;
}

function extend(frame: Frame, columns: readonly ast.NamedExpression[], env: QueryEnv, valid: boolean): Frame {
    let cur = frame;
    let k = 0;
    for (const ne of columns) {
        const c = compileExpr(ne.expression, cur, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        let col = vecToFrameCol(name, c.type, c.run(cur), cur.length);
        if (valid) {
            const old = cur.find(name);
            const n = cur.length;
            const type = old && old.type !== c.type ? 'dynamic' : c.type;
            const b = builderFor(type, n);
            for (let i = 0; i < n; i++) {
                const v = cellOf(col, i);
                b.push(isValid(v) ? v : old ? cellOf(old, i) : null);
            }
            col = { name, type, data: b.build(), sel: null };
        }
        const existing = cur.cols.findIndex(x => x.name === name && !x.hidden);
        let cols: FrameCol[];
        if (existing >= 0 && !valid) cols = [...cur.cols.filter((_, i) => i !== existing), col];
        else if (existing >= 0) cols = cur.cols.map((x, i) => (i === existing ? col : x));
        else cols = [...cur.cols, col];
        cur = cur.with(cols);
    }
    return cur;
}

/** extend-valid: dict/array non-empty, string non-empty, number not 0/Inf/NaN, others tobool true. */
function isValid(v: AplValue): boolean {
    if (v === null || v === undefined) return false;
    if (typeof v === 'string') return v !== '';
    if (typeof v === 'number') return v !== 0 && Number.isFinite(v);
    if (Array.isArray(v)) return v.length > 0;
    if (v instanceof Datetime || v instanceof Timespan) return v.ns !== 0n;
    if (typeof v === 'object') return Object.keys(v).length > 0;
    return v === true;
}

function project(frame: Frame, columns: readonly ast.NamedExpression[], env: QueryEnv): Frame {
    const out: FrameCol[] = [];
    let k = 0;
    for (const ne of columns) {
        if (ne.expression.$type === 'StarExpression') {
            for (const c of frame.visible()) if (!out.some(o => o.name === c.name)) out.push(c);
            continue;
        }
        const c = compileExpr(ne.expression, frame, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        const src = c.columnName !== undefined ? frame.find(c.columnName) : undefined;
        const col: FrameCol = src ? { ...src, name } : vecToFrameCol(name, c.type, c.run(frame), frame.length);
        const dup = out.findIndex(o => o.name === name);
        if (dup >= 0) out[dup] = col;
        else out.push(col);
    }
    for (const h of frame.cols) if (h.hidden) out.push(h);
    return frame.with(out);
}

function patternMatcher(p: ast.ColumnPattern, frame: Frame): (name: string) => boolean {
    if (p.all) return () => true;
    if (p.wildcard !== undefined) {
        const re = globToRegex(p.wildcard);
        return n => re.test(n);
    }
    const name = p.path!.segments.join('.');
    if (!frame.find(name)) throw errorAt(p, `unknown field '${name}'`);
    return n => n === name;
}

function projectReorder(frame: Frame, op: ast.ProjectReorderOperator): Frame {
    const vis = frame.visible();
    const placed = new Set<string>();
    const explicit = new Set(op.columns.filter(c => c.pattern.path).map(c => c.pattern.path!.segments.join('.')));
    const out: FrameCol[] = [];
    for (const item of op.columns) {
        const m = patternMatcher(item.pattern, frame);
        let matched = vis.filter(c => m(c.name) && !placed.has(c.name) && (item.pattern.path || !explicit.has(c.name)));
        const dir = item.direction;
        if (dir) {
            const cmp = dir.startsWith('granny')
                ? (a: FrameCol, b: FrameCol) => a.name.localeCompare(b.name, 'en', { numeric: true })
                : (a: FrameCol, b: FrameCol) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
            matched = matched.slice().sort(cmp);
            if (dir.endsWith('desc')) matched.reverse();
        }
        for (const c of matched) {
            placed.add(c.name);
            out.push(c);
        }
    }
    for (const c of vis) if (!placed.has(c.name)) out.push(c);
    for (const h of frame.cols) if (h.hidden) out.push(h);
    return frame.with(out);
}

interface SortKey {
    col: Column;
    /** Physical rows of `col` for each logical row (null: identity). */
    sel: Uint32Array | null;
    desc: boolean;
    nulls: 'first' | 'last';
    name?: string;
}

function sortKeys(frame: Frame, items: readonly ast.SortItem[], env: QueryEnv, gather = true): SortKey[] {
    return items.map(it => {
        const c = compileExpr(it.expression, frame, env);
        const v = c.run(frame);
        const desc = it.direction !== 'asc';
        const nulls = it.nulls ?? (desc ? 'last' : 'first');
        const name = defaultName(it.expression);
        if (v.c) return { col: new ConstColumn(c.type, v.v, frame.length), sel: null, desc, nulls, name };
        if (!gather) return { col: v.col, sel: v.sel, desc, nulls, name };
        return { col: gatherColumn(v.col, v.sel, frame.length), sel: null, desc, nulls, name };
    });
}

function logicalComparator(k: SortKey): (a: number, b: number) => number {
    const c = comparatorFor(k.col, k.desc, k.nulls);
    const sel = k.sel;
    return sel ? (a, b) => c(sel[a], sel[b]) : c;
}

function sortMeta(keys: SortKey[], frame: Frame): FrameMeta {
    return { ...frame.meta, order: keys.filter(k => k.name).map(k => ({ field: k.name!, desc: k.desc })), timeBinned: undefined, datasetOrder: undefined };
}

/**
 * For a sort by `_time` over dataset rows: the row id as the last key, in `_time`'s direction, so
 * rows with equal sort keys come in row-id order whatever order earlier operators left them in.
 * That order is the one cursors page in (API.md §10.1), so cursor paging stays exact.
 */
function rowIdTiebreak(frame: Frame, keys: readonly SortKey[]): ((a: number, b: number) => number) | undefined {
    const time = keys.find(k => k.name === '_time');
    const ids = time && frame.find(ROWID);
    if (!time || !ids) return undefined;
    const sel = ids.sel;
    if (ids.data instanceof RowIdColumn) {
        // Compare the parts (time, batch, row) instead of formatting two id strings per comparison.
        const snap = ids.data.snap;
        const sgn = time.desc ? -1 : 1;
        return sel ? (a, b) => sgn * snap.compareRows(sel[a], sel[b]) : (a, b) => sgn * snap.compareRows(a, b);
    }
    const c = comparatorFor(ids.data, time.desc, 'last');
    return sel ? (a, b) => c(sel[a], sel[b]) : c;
}

function sortFrame(frame: Frame, items: readonly ast.SortItem[], env: QueryEnv): Frame {
    const keys = sortKeys(frame, items, env);
    const cmps = keys.map(k => comparatorFor(k.col, k.desc, k.nulls));
    const tie = rowIdTiebreak(frame, keys);
    if (tie) cmps.push(tie);
    const n = frame.length;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    if (cmps.length === 1) {
        const c0 = cmps[0];
        idx.sort((a, b) => c0(a, b) || a - b);
    } else {
        idx.sort((a, b) => {
            for (const c of cmps) {
                const r = c(a, b);
                if (r !== 0) return r;
            }
            return a - b;
        });
    }
    return selectRows(frame, idx, sortMeta(keys, frame));
}

/** The first `k` rows in sort order, with a bounded binary heap (ties keep input order). */
function topN(frame: Frame, items: readonly ast.SortItem[], k: number, env: QueryEnv): Frame {
    const n = frame.length;
    if (k >= n / 4) return takeRows(sortFrame(frame, items, env), k);
    const keys = sortKeys(frame, items, env, false);
    const cmps = keys.map(logicalComparator);
    const tie = rowIdTiebreak(frame, keys);
    if (tie) cmps.push(tie);
    const cmp = (a: number, b: number): number => {
        for (const c of cmps) {
            const r = c(a, b);
            if (r !== 0) return r;
        }
        return a - b;
    };
    // Max-heap of the best k (the root is the worst kept row).
    const heap = new Uint32Array(k);
    let size = 0;
    const siftUp = (i: number) => {
        while (i > 0) {
            const p = (i - 1) >> 1;
            if (cmp(heap[i], heap[p]) > 0) {
                const t = heap[i];
                heap[i] = heap[p];
                heap[p] = t;
                i = p;
            } else break;
        }
    };
    const siftDown = (i: number) => {
        for (;;) {
            const l = 2 * i + 1;
            const r = l + 1;
            let m = i;
            if (l < size && cmp(heap[l], heap[m]) > 0) m = l;
            if (r < size && cmp(heap[r], heap[m]) > 0) m = r;
            if (m === i) return;
            const t = heap[i];
            heap[i] = heap[m];
            heap[m] = t;
            i = m;
        }
    };
    const only = keys.length === 1 ? keys[0] : undefined;
    if (k > 0 && only && only.col instanceof NumColumn && only.col.nulls === null) {
        // One numeric key without nulls: skip rows that cannot beat the worst kept row.
        const vals = only.col.vals;
        const desc = only.desc;
        const sel = only.sel;
        for (let i = 0; i < n; i++) {
            const x = vals[sel ? sel[i] : i];
            if (size < k) {
                heap[size++] = i;
                siftUp(size - 1);
                continue;
            }
            const w = vals[sel ? sel[heap[0]] : heap[0]];
            if (x === x && w === w && (desc ? x <= w : x >= w)) continue;
            if (cmp(i, heap[0]) < 0) {
                heap[0] = i;
                siftDown(0);
            }
        }
    } else if (k > 0) {
        for (let i = 0; i < n; i++) {
            if (size < k) {
                heap[size++] = i;
                siftUp(size - 1);
            } else if (cmp(i, heap[0]) < 0) {
                heap[0] = i;
                siftDown(0);
            }
        }
    }
    const idx = heap.slice(0, size).sort(cmp);
    return selectRows(frame, idx, sortMeta(keys, frame));
}

/** take/limit; after summarize by bin(_time) (+ keys) the Axiom rule of inventory §7.6 applies. */
function take(frame: Frame, n: number, env: QueryEnv): Frame {
    const tb = frame.meta.timeBinned;
    if (tb && tb.keys.length > 0) {
        // Rank the non-time groups by the first aggregation's total, keep the top n groups in every bucket.
        const keyCols = tb.keys.map(k => frame.find(k)!).filter(Boolean);
        const vecs: Vec[] = keyCols.map(c => ({ c: false, col: c.data, sel: c.sel }));
        const g = groupRows(vecs, frame.length);
        const score = new Float64Array(g.count);
        const aggCol = tb.firstAgg ? frame.find(tb.firstAgg) : undefined;
        for (let i = 0; i < frame.length; i++) {
            const v = aggCol ? cellOf(aggCol, i) : 1;
            score[g.gids[i]] += typeof v === 'number' ? v : 1;
        }
        const order = Array.from({ length: g.count }, (_, i) => i).sort((a, b) => score[b] - score[a] || a - b);
        const keep = new Uint8Array(g.count);
        for (const x of order.slice(0, n)) keep[x] = 1;
        const idx: number[] = [];
        for (let i = 0; i < frame.length; i++) if (keep[g.gids[i]]) idx.push(i);
        return selectRows(frame, Uint32Array.from(idx));
    }
    if (tb) return frame;
    void env;
    return takeRows(frame, n);
}

function distinct(frame: Frame, columns: readonly ast.Expression[], env: QueryEnv): Frame {
    let exprs: readonly KeyExpr[] = columns;
    if (columns.length === 1 && columns[0].$type === 'StarExpression') {
        exprs = frame.visible().map((c): ColumnKey => ({ column: c.name }));
    }
    const compiled = exprs.map(e => compileKey(e, frame, env));
    const vecs = compiled.map(c => c.run(frame));
    const g = groupRows(vecs, frame.length);
    const cols: FrameCol[] = compiled.map((c, k) => ({
        name: keyName(exprs[k]) ?? `Column${k + 1}`,
        type: c.type,
        data: keyColumn(vecs[k], c.type, g.first),
        sel: null,
    }));
    return new Frame(cols, g.count, { groups: cols.map(c => c.name) });
}

// ---------------------------------------------------------------------------------------------
// summarize

interface GroupKey {
    name: string;
    compiled: Compiled;
    vec: Vec;
    /** bin(_time, size) / bin_auto(_time): the bucket size in ns. */
    timeBucket?: bigint;
}

function groupKeys(frame: Frame, groups: readonly ast.NamedExpression[], env: QueryEnv): GroupKey[] {
    let k = 0;
    return groups.map(ne => {
        // The checker accepts it (Axiom does: `summarize count() by histogram(x, 10)`); this evaluator cannot run it.
        const aggregation = findAggregateCalls(ne.expression)[0];
        if (aggregation) throw unsupportedAt(aggregation, `an aggregation ('${aggregation.function}') as a summarize key`);
        const compiled = compileExpr(ne.expression, frame, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        let timeBucket: bigint | undefined;
        const e = ne.expression;
        if (e.$type === 'FunctionCall') {
            const call = e as ast.FunctionCall;
            const arg0 = call.arguments[0]?.expression;
            if (arg0 && compiled.type === 'datetime') {
                if ((call.function === 'bin' || call.function === 'floor') && call.arguments.length === 2) {
                    const s = compileExpr(call.arguments[1].expression, frame, env);
                    if (s.isConst && s.value instanceof Timespan) timeBucket = s.value.ns;
                } else if (call.function === 'bin_auto') {
                    timeBucket = autoBinSize(env);
                }
            }
        }
        return { name, compiled, vec: compiled.run(frame), timeBucket };
    });
}

/** Same rule as the catalogue's bin_auto. */
function autoBinSize(env: QueryEnv): bigint {
    return autoBinSizeFor({ now: env.now, startTime: env.startTime, endTime: env.endTime });
}

function summarize(frame: Frame, op: ast.SummarizeOperator, env: QueryEnv, state: RunState): Frame {
    state.stats.rowsMatched ??= frame.length;
    const keys = groupKeys(frame, op.groups, env);
    const n = frame.length;
    let grouping = groupRows(keys.map(k => k.vec), n, keys.map(k => (k.timeBucket !== undefined && k.timeBucket % 1_000_000n === 0n ? Number(k.timeBucket / 1_000_000n) : undefined)));
    // A summarize without keys over no rows still gives one row (count() = 0).
    if (keys.length === 0 && n === 0) grouping = { gids: new Uint32Array(0), count: 1, first: new Uint32Array(0) };
    const G = grouping.count;
    // Key columns and group order (ascending by key).
    let keyCols = keys.map(k => (n === 0 && keys.length === 0 ? columnFromValues(k.compiled.type, []) : keyColumn(k.vec, k.compiled.type, grouping.first)));
    const perm = sortGroupsByKeys(keyCols, G);
    keyCols = keyCols.map(c => permute(c, perm));
    // Aggregations: plain calls, and expressions over aggregate calls.
    const outCols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
    const timeKey = keys.find(k => k.timeBucket !== undefined);
    const windows = timeKey
        ? (g: number) => {
            const v = keyColumn(timeKey.vec, 'datetime', grouping.first).get(g);
            return v instanceof Datetime ? { start: v.ns, end: v.ns + timeKey.timeBucket! } : undefined;
        }
        : undefined;
    const aggFrameCols: FrameCol[] = [];
    const post: { ne: ast.NamedExpression; name: string; calls: ast.FunctionCall[] }[] = [];
    let tmp = 0;
    let firstAgg: string | undefined;
    for (const ne of op.aggregates) {
        const e = unparen(ne.expression);
        if (e.$type === 'FunctionCall' && lookupAggregate((e as ast.FunctionCall).function)) {
            const spec = compileAggregate(e as ast.FunctionCall, ne.name, frame, env);
            if (spec.fn.estimate) state.stats.estimate = state.stats.estimate || false;
            const cols = runAggregate(spec, frame, grouping, { env, windows });
            const names = [spec.outName, ...(spec.extras ?? []).map(x => x.name)];
            cols.forEach((c, i) => {
                const name = uniqueName([...outCols, ...aggFrameCols], names[i]);
                aggFrameCols.push({ name, type: c.type, data: permute(c, perm), sel: null, agg: i === 0 ? spec.info : undefined });
            });
            firstAgg ??= aggFrameCols[aggFrameCols.length - 1 - (cols.length - 1)].name;
            continue;
        }
        const calls = findAggregateCalls(ne.expression);
        if (calls.length === 0) throw errorAt(ne, 'summarize expects an aggregation (count(), sum(x), ...) here');
        const name = ne.name ?? `Column${++tmp}`;
        post.push({ ne, name, calls });
    }
    // Expressions over aggregations: compute each call as a hidden column, then the expression.
    let result = new Frame([...outCols, ...aggFrameCols], G);
    for (const p of post) {
        const map = new Map<AstNode, string>();
        for (const call of p.calls) {
            const spec: AggSpec = compileAggregate(call, undefined, frame, env);
            const [col] = runAggregate(spec, frame, grouping, { env, windows });
            const tname = `$agg${map.size}_${p.name}`;
            map.set(call, tname);
            result = result.with([...result.cols, { name: tname, type: col.type, data: permute(col, perm), sel: null, hidden: true }]);
        }
        const c = compileExpr(p.ne.expression, result, { ...env, aggColumns: map });
        const col = vecToFrameCol(uniqueName(result.cols, p.name), c.type, c.run(result), G);
        col.agg = { name: 'computed', fields: [], args: [] };
        result = result.with([...result.cols.filter(x => !x.name.startsWith(`$agg`) || !x.name.endsWith(`_${p.name}`)), col]);
    }
    state.stats.numGroups = G;
    const meta: FrameMeta = {
        groups: keys.filter(k => k.timeBucket === undefined).map(k => k.name),
        order: keys.length ? [{ field: keys[0].name, desc: false }] : [],
    };
    if (timeKey) {
        meta.buckets = { field: timeKey.name, size: Number(timeKey.timeBucket) };
        meta.timeBinned = { timeField: timeKey.name, keys: keys.filter(k => k !== timeKey).map(k => k.name), firstAgg };
        meta.totals = summarizeTotals(frame, op, env, keys.filter(k => k !== timeKey));
    }
    return new Frame(result.cols, G, meta);
}

/** The same aggregations without the time key (legacy `buckets.totals`, tabular `_totals`). */
function summarizeTotals(frame: Frame, op: ast.SummarizeOperator, env: QueryEnv, keys: GroupKey[]): Frame | undefined {
    try {
        const n = frame.length;
        const grouping = keys.length === 0 && n === 0 ? { gids: new Uint32Array(0), count: 1, first: new Uint32Array(0) } : groupRows(keys.map(k => k.vec), n);
        let keyCols = keys.map(k => keyColumn(k.vec, k.compiled.type, grouping.first));
        const perm = sortGroupsByKeys(keyCols, grouping.count);
        keyCols = keyCols.map(c => permute(c, perm));
        const cols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
        for (const ne of op.aggregates) {
            const e = unparen(ne.expression);
            if (e.$type !== 'FunctionCall' || !lookupAggregate((e as ast.FunctionCall).function)) continue;
            const spec = compileAggregate(e as ast.FunctionCall, ne.name, frame, env);
            const [col] = runAggregate(spec, frame, grouping, { env });
            cols.push({ name: uniqueName(cols, spec.outName), type: col.type, data: permute(col, perm), sel: null, agg: spec.info });
        }
        return new Frame(cols, grouping.count, { groups: keys.map(k => k.name) });
    } catch {
        return undefined;
    }
}

function unparen(e: ast.Expression): ast.Expression {
    while (e.$type === 'ParenthesizedExpression') e = (e as ast.ParenthesizedExpression).expression;
    return e;
}

// ---------------------------------------------------------------------------------------------
// make-series

function makeSeries(frame: Frame, op: ast.MakeSeriesOperator, env: QueryEnv, state: RunState): Frame {
    state.stats.rowsMatched ??= frame.length;
    const n = frame.length;
    const axis = compileExpr(op.axis, frame, env);
    const axisName = defaultName(op.axis) ?? 'axis';
    const axisVec = axis.run(frame);
    const step = compileExpr(op.step, frame, env);
    if (!step.isConst) throw errorAt(op.step, 'make-series step must be a constant');
    const isTime = axis.type === 'datetime' || axis.type === 'timespan';
    // Times are binned exactly in ns (bigint); numbers as doubles.
    const toBig = (v: AplValue): bigint | null => (v instanceof Datetime || v instanceof Timespan ? v.ns : typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.round(v)) : null);
    const toNum = (v: AplValue): number | null => (v instanceof Datetime || v instanceof Timespan ? Number(v.ns) : typeof v === 'number' ? v : null);
    const stepNum = toNum(step.value ?? null);
    if (stepNum === null || !(stepNum > 0)) throw errorAt(op.step, 'make-series step must be positive');
    const stepBig = isTime ? toBig(step.value ?? null)! : 0n;
    const rangeArgs = op.rangeArgs;
    const fromE = op.from ?? rangeArgs[0];
    const toE = op.to ?? rangeArgs[1];
    const fromV = fromE ? compileExpr(fromE, emptyFrame(), env).value ?? null : null;
    const toV = toE ? compileExpr(toE, emptyFrame(), env).value ?? null : null;
    let fromB: bigint | null = isTime ? toBig(fromV) : null;
    let toB: bigint | null = isTime ? toBig(toV) : null;
    let from: number | null = isTime ? null : toNum(fromV);
    let to: number | null = isTime ? null : toNum(toV);
    if (isTime && (fromB === null || toB === null)) {
        let mn: bigint | null = null;
        let mx: bigint | null = null;
        for (let i = 0; i < n; i++) {
            const x = toBig(vget(axisVec, i));
            if (x === null) continue;
            if (mn === null || x < mn) mn = x;
            if (mx === null || x > mx) mx = x;
        }
        if (fromB === null) fromB = mn === null ? 0n : mn - (((mn % stepBig) + stepBig) % stepBig);
        if (toB === null) toB = mx === null ? fromB : mx + stepBig;
    }
    if (!isTime && (from === null || to === null)) {
        let mn = Infinity;
        let mx = -Infinity;
        for (let i = 0; i < n; i++) {
            const x = toNum(vget(axisVec, i));
            if (x === null) continue;
            if (x < mn) mn = x;
            if (x > mx) mx = x;
        }
        if (from === null) from = mn === Infinity ? 0 : Math.floor(mn / stepNum) * stepNum;
        if (to === null) to = mx === -Infinity ? from : mx + stepNum;
    }
    const bins = isTime ? Math.max(0, Number((toB! - fromB! + stepBig - 1n) / stepBig)) : Math.max(0, Math.ceil((to! - from!) / stepNum));
    if (bins > 100000) throw errorAt(op, `make-series would create ${bins} bins (more than 100000)`);
    const binOf = (v: AplValue): number => {
        if (isTime) {
            const x = toBig(v);
            if (x === null || x < fromB! || x >= toB!) return -1;
            return Number((x - fromB!) / stepBig);
        }
        const x = toNum(v);
        if (x === null || x < from! || x >= to!) return -1;
        return Math.floor((x - from!) / stepNum);
    };
    const keys = groupKeys(frame, op.groups, env);
    const grouping = groupRows(keys.map(k => k.vec), n);
    // Combined (group, bin) ids; rows outside the range are dropped.
    const keep: number[] = [];
    const combined: number[] = [];
    for (let i = 0; i < n; i++) {
        const b = binOf(vget(axisVec, i));
        if (b < 0) continue;
        keep.push(i);
        combined.push(grouping.gids[i] * bins + b);
    }
    const sub = selectRows(frame, Uint32Array.from(keep));
    const G = grouping.count;
    // One row per group, holding an array of `bins` values per aggregation, plus the axis.
    env.budget.admit(G, bins * (op.aggregates.length + 1), op, 'make-series');
    const cg = { gids: Uint32Array.from(combined), count: G * bins, first: new Uint32Array(0) };
    let keyCols = keys.map(k => keyColumn(k.vec, k.compiled.type, grouping.first));
    const perm = sortGroupsByKeys(keyCols, G);
    keyCols = keyCols.map(c => permute(c, perm));
    const cols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
    for (const agg of op.aggregates) {
        const e = unparen(agg.expression);
        if (e.$type !== 'FunctionCall' || !lookupAggregate((e as ast.FunctionCall).function)) throw errorAt(agg, 'make-series expects an aggregation');
        const spec = compileAggregate(e as ast.FunctionCall, agg.name, sub, env);
        const [col] = runAggregate(spec, sub, cg, { env });
        const dflt = agg.default ? compileExpr(agg.default, emptyFrame(), env).value ?? null : spec.fn.name.startsWith('make_') ? null : 0;
        const filled = new Uint8Array(G * bins);
        for (const c of combined) filled[c] = 1;
        const arrays: AplValue[] = [];
        for (let gi = 0; gi < G; gi++) {
            const g = perm[gi];
            const arr: AplValue[] = [];
            for (let b = 0; b < bins; b++) {
                const idx = g * bins + b;
                arr.push(filled[idx] ? toJson(col.get(idx)) : toJson(dflt));
            }
            arrays.push(arr as AplValue);
        }
        cols.push({ name: uniqueName(cols, spec.outName), type: 'dynamic', data: new DynColumn(arrays), sel: null, agg: spec.info });
    }
    const axisVals: AplValue[] = [];
    for (let b = 0; b < bins; b++) {
        if (isTime) {
            const x = fromB! + BigInt(b) * stepBig;
            axisVals.push((axis.type === 'datetime' ? new Datetime(x) : new Timespan(x)).toJSON());
        } else axisVals.push(from! + b * stepNum);
    }
    const axisCol = new DynColumn(Array.from({ length: G }, () => axisVals.slice() as AplValue));
    cols.push({ name: uniqueName(cols, axisName), type: 'dynamic', data: axisCol, sel: null });
    state.stats.numGroups = G;
    return new Frame(cols, G, { groups: keys.map(k => k.name) });
}

// ---------------------------------------------------------------------------------------------
// join / lookup

interface JoinCond {
    left: KeyExpr;
    right: KeyExpr;
}

function joinConditions(conds: readonly ast.Expression[]): JoinCond[] {
    const side = (e: ast.Expression): { side: 'left' | 'right'; expr: ColumnKey } | undefined => {
        if (e.$type === 'MemberAccess') {
            const m = e as ast.MemberAccess;
            if (m.receiver.$type === 'NameReference') {
                const r = (m.receiver as ast.NameReference).name;
                if (r === '$left' || r === '$right') {
                    const name = m.member ?? m.bracketMember!;
                    return { side: r === '$left' ? 'left' : 'right', expr: { column: name } };
                }
            }
            // `$left.a.b` -> field `a.b`
            const path: string[] = [];
            let cur: ast.Expression = e;
            while (cur.$type === 'MemberAccess') {
                const mm = cur as ast.MemberAccess;
                path.unshift(mm.member ?? mm.bracketMember!);
                cur = mm.receiver;
            }
            if (cur.$type === 'NameReference' && ((cur as ast.NameReference).name === '$left' || (cur as ast.NameReference).name === '$right')) {
                return { side: (cur as ast.NameReference).name === '$left' ? 'left' : 'right', expr: { column: path.join('.') } };
            }
        }
        if (e.$type === 'IndexAccess') {
            const ia = e as ast.IndexAccess;
            if (ia.receiver.$type === 'NameReference' && ia.bracketIndex !== undefined) {
                const r = (ia.receiver as ast.NameReference).name;
                if (r === '$left' || r === '$right') return { side: r === '$left' ? 'left' : 'right', expr: { column: ia.bracketIndex } };
            }
        }
        return undefined;
    };
    return conds.map(c => {
        if (c.$type === 'BinaryExpression' && (c as ast.BinaryExpression).operator === '==') {
            const b = c as ast.BinaryExpression;
            const l = side(b.left);
            const r = side(b.right as ast.Expression);
            if (l && r) return l.side === 'left' ? { left: l.expr, right: r.expr } : { left: r.expr, right: l.expr };
            return { left: l?.expr ?? b.left, right: r?.expr ?? (b.right as ast.Expression) };
        }
        return { left: c, right: c };
    });
}

function rowKeys(frame: Frame, exprs: KeyExpr[], env: QueryEnv): string[] {
    const vecs = exprs.map(e => compileKey(e, frame, env).run(frame));
    const out: string[] = new Array(frame.length);
    for (let i = 0; i < frame.length; i++) {
        let k = '';
        for (const v of vecs) {
            const x = vget(v, i);
            k += (x === null ? '\u0001' : typeof x === 'string' ? `s${x}` : typeof x === 'number' ? `n${x}` : x instanceof Datetime || x instanceof Timespan ? `t${x.ns}` : `j${JSON.stringify(toJson(x))}`) + '\u0000';
        }
        out[i] = vecs.some((v, j) => vget(vecs[j], i) === null) ? '' : k;
    }
    return out;
}

function join(left: Frame, op: ast.JoinOperator, env: QueryEnv, state: RunState): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'innerunique');
    const right = evalTable(op.right, env, state, 'sub');
    const conds = joinConditions(op.conditions);
    const lk = rowKeys(left, conds.map(c => c.left), env);
    const rk = rowKeys(right, conds.map(c => c.right), env);
    const index = new Map<string, number[]>();
    rk.forEach((k, j) => {
        if (k === '') return;
        const a = index.get(k);
        if (a) a.push(j);
        else index.set(k, [j]);
    });
    const li: number[] = [];
    const ri: number[] = [];
    const matchedRight = new Uint8Array(right.length);
    let leftRows = Array.from({ length: left.length }, (_, i) => i);
    if (kind === 'innerunique') {
        const seen = new Set<string>();
        leftRows = leftRows.filter(i => {
            if (lk[i] === '' || seen.has(lk[i])) return false;
            seen.add(lk[i]);
            return true;
        });
    }
    const leftOnly = kind === 'leftsemi' || kind === 'leftanti';
    const rightOnly = kind === 'rightsemi' || kind === 'rightanti';
    const columns = left.cols.length + right.cols.length;
    for (const i of leftRows) {
        const m = lk[i] === '' ? undefined : index.get(lk[i]);
        if (m) env.budget.admit(li.length + m.length, columns, op, 'join');
        if (m) for (const j of m) matchedRight[j] = 1;
        switch (kind) {
            case 'inner': case 'innerunique':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                break;
            case 'leftouter': case 'fullouter':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                else { li.push(i); ri.push(-1); }
                break;
            case 'rightouter':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                break;
            case 'leftsemi':
                if (m) li.push(i);
                break;
            case 'leftanti':
                if (!m) li.push(i);
                break;
            case 'rightsemi': case 'rightanti':
                break;
            default:
                throw errorAt(op, `unknown join kind '${kind}'`);
        }
    }
    if (kind === 'rightouter' || kind === 'fullouter') {
        for (let j = 0; j < right.length; j++) if (!matchedRight[j]) { li.push(-1); ri.push(j); }
        env.budget.admit(li.length, columns, op, 'join');
    }
    if (leftOnly) return selectRows(left, Uint32Array.from(li));
    if (rightOnly) {
        const rows: number[] = [];
        for (let j = 0; j < right.length; j++) if ((matchedRight[j] === 1) === (kind === 'rightsemi')) rows.push(j);
        return selectRows(right, Uint32Array.from(rows));
    }
    return combine(left, right, li, ri, undefined);
}

function pickRows(frame: Frame, idx: number[], includeHidden: boolean): FrameCol[] {
    const n = idx.length;
    const hasNull = idx.some(i => i < 0);
    return frame.cols.filter(c => includeHidden || !c.hidden).map(c => {
        if (!hasNull) {
            const sel = new Uint32Array(n);
            for (let k = 0; k < n; k++) sel[k] = c.sel ? c.sel[idx[k]] : idx[k];
            return { ...c, sel };
        }
        const b = builderFor(c.type, n);
        for (const i of idx) b.push(i < 0 ? null : cellOf(c, i));
        return { ...c, data: b.build(), sel: null };
    });
}

function combine(left: Frame, right: Frame, li: number[], ri: number[], skipRight: Set<string> | undefined): Frame {
    const lcols = pickRows(left, li, true);
    const rcols = pickRows(right, ri, false).filter(c => !skipRight?.has(c.name));
    const out = [...lcols];
    for (const c of rcols) out.push({ ...c, name: uniqueName(out.filter(x => !x.hidden), c.name) });
    return new Frame(out, li.length);
}

function lookup(left: Frame, op: ast.LookupOperator, env: QueryEnv, state: RunState): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'leftouter');
    const right = evalTable(op.right, env, state, 'sub');
    const conds = joinConditions(op.conditions);
    const lk = rowKeys(left, conds.map(c => c.left), env);
    const rk = rowKeys(right, conds.map(c => c.right), env);
    const index = new Map<string, number>();
    rk.forEach((k, j) => {
        if (k !== '' && !index.has(k)) index.set(k, j);
    });
    const li: number[] = [];
    const ri: number[] = [];
    for (let i = 0; i < left.length; i++) {
        const j = lk[i] === '' ? undefined : index.get(lk[i]);
        if (j === undefined) {
            if (kind === 'inner') continue;
            li.push(i);
            ri.push(-1);
        } else {
            li.push(i);
            ri.push(j);
        }
    }
    // Key columns of the right side that share the left key's name are not repeated.
    const skip = new Set<string>();
    for (const c of conds) {
        const ln = keyName(c.left);
        const rn = keyName(c.right);
        if (rn) skip.add(rn);
        void ln;
    }
    const lcols = pickRows(left, li, true);
    const rcols = pickRows(right, ri, false).filter(c => !skip.has(c.name));
    const out = [...lcols];
    for (const c of rcols) {
        const existing = out.findIndex(x => x.name === c.name && !x.hidden);
        if (existing >= 0) out[existing] = c;
        else out.push(c);
    }
    return new Frame(out, li.length);
}

// ---------------------------------------------------------------------------------------------
// parse, parse-kv, mv-expand, sample, getschema, redact

const TYPE_REGEX: Record<string, string> = {
    long: '[-+]?\\d+',
    real: '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?',
    bool: '(?:true|false|TRUE|FALSE|True|False|1|0)',
};

function parseOp(frame: Frame, op: ast.ParseOperator | ast.ParseWhereOperator, env: QueryEnv, dropNonMatching: boolean): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'simple');
    const flags = String(optionValue(op.options, 'flags') ?? '');
    const captures: { name: string; type: ScalarType }[] = [];
    let src = kind === 'regex' ? '' : '^';
    const pattern = op.pattern;
    pattern.forEach((el, k) => {
        const last = k === pattern.length - 1;
        if (el.$type === 'ParseWildcard') src += last ? '[\\s\\S]*' : '[\\s\\S]*?';
        else if (el.$type === 'ParseLiteral') {
            const text = (el as ast.ParseLiteral).value.value;
            src += kind === 'regex' ? text : text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        } else {
            const cap = el as ast.ParseCapture;
            const t = normType(cap.type ? typeFromName(cap.type) ?? 'string' : 'string');
            captures.push({ name: cap.name, type: t });
            const typed = kind === 'relaxed' ? undefined : TYPE_REGEX[t];
            src += `(${typed ?? (last ? '[\\s\\S]*' : '[\\s\\S]*?')})`;
        }
    });
    if (kind === 'simple' && pattern.length > 0 && pattern[pattern.length - 1].$type === 'ParseLiteral') src += '';
    let re: LinearRegex;
    try {
        // Every kind compiles to RE2 (linear time): simple and relaxed patterns are escaped literals and lazy wildcards.
        re = compileRegex(src, { caseInsensitive: flags.includes('i') || flags.includes('U'), dotAll: flags.includes('s'), multiline: flags.includes('m') });
    } catch (e) {
        throw errorAt(op, `parse: invalid pattern: ${(e as Error).message}`);
    }
    const source = compileExpr(op.source, frame, env).run(frame);
    const n = frame.length;
    const builders = captures.map(c => builderFor(c.type, n));
    const keep: number[] = [];
    for (let i = 0; i < n; i++) {
        const v = vget(source, i);
        const m = v === null ? null : re.exec(textOf(v, false));
        let vals: AplValue[] | null = null;
        if (m) {
            vals = captures.map((c, k) => convertParsed(m[k + 1] ?? null, c.type));
            if (kind === 'simple' && vals.some((x, k) => x === null && captures[k].type !== 'string' && m[k + 1] !== undefined)) vals = null;
        }
        if (vals === null && dropNonMatching) continue;
        keep.push(i);
        captures.forEach((_, k) => builders[k].push(vals ? vals[k] : null));
    }
    let base = dropNonMatching && keep.length !== n ? selectRows(frame, Uint32Array.from(keep)) : frame;
    const newCols = captures.map((c, k) => ({ name: c.name, type: c.type, data: builders[k].build(), sel: null }) as FrameCol);
    const cols = base.cols.filter(c => !captures.some(x => x.name === c.name));
    base = base.with([...cols, ...newCols]);
    return base;
}

function convertParsed(s: string | null, t: ScalarType): AplValue {
    if (s === null) return null;
    switch (t) {
        case 'string': return s;
        case 'long': return /^[-+]?\d+$/.test(s.trim()) ? Number(s.trim()) : null;
        case 'real': {
            const x = Number(s.trim());
            return s.trim() === '' || Number.isNaN(x) ? null : x;
        }
        case 'bool': {
            const t2 = truthTri(s);
            return t2 === 2 ? null : t2 === 1;
        }
        case 'datetime': {
            const ns = parseDatetime(s);
            return ns === undefined ? null : new Datetime(ns);
        }
        case 'timespan': {
            const ns = parseGoDuration(s);
            return ns === undefined ? null : new Timespan(ns);
        }
        default: {
            try {
                return JSON.parse(s) as AplValue;
            } catch {
                return s;
            }
        }
    }
}

function parseKv(frame: Frame, op: ast.ParseKvOperator, env: QueryEnv): Frame {
    const props = new Map<string, AplValue>();
    for (const p of op.properties) props.set(p.name, compileExpr(p.value, emptyFrame(), env).value ?? null);
    const pairDelim = props.get('pair_delimiter');
    const kvDelim = props.get('kv_delimiter');
    const quote = typeof props.get('quote') === 'string' ? (props.get('quote') as string) : '"';
    const keys = op.keys.map(k => ({ name: k.name, type: normType(k.type ? typeFromName(k.type) ?? 'string' : 'string') }));
    const source = compileExpr(op.source, frame, env).run(frame);
    const n = frame.length;
    const builders = keys.map(k => builderFor(k.type, n));
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pairRe = typeof pairDelim === 'string' && pairDelim !== '' ? new RegExp(esc(pairDelim)) : /[\s,;&]+/;
    const kvRe = typeof kvDelim === 'string' && kvDelim !== '' ? kvDelim : undefined;
    for (let i = 0; i < n; i++) {
        const v = vget(source, i);
        const found = new Map<string, string>();
        if (v !== null) {
            for (const pair of textOf(v, false).split(pairRe)) {
                let at = -1;
                let dl = 1;
                if (kvRe) at = pair.indexOf(kvRe), (dl = kvRe.length);
                else {
                    const m = /[=:]/.exec(pair);
                    at = m ? m.index : -1;
                }
                if (at <= 0) continue;
                const key = pair.slice(0, at).trim();
                let val = pair.slice(at + dl).trim();
                if (quote && val.length >= 2 && quote.includes(val[0]) && val[val.length - 1] === val[0]) val = val.slice(1, -1);
                if (!found.has(key)) found.set(key, val);
            }
        }
        keys.forEach((k, j) => builders[j].push(found.has(k.name) ? convertParsed(found.get(k.name)!, k.type) : null));
    }
    const newCols = keys.map((k, j) => ({ name: k.name, type: k.type, data: builders[j].build(), sel: null }) as FrameCol);
    const cols = frame.cols.filter(c => !keys.some(k => k.name === c.name));
    return frame.with([...cols, ...newCols]);
}

function mvExpand(frame: Frame, op: ast.MvExpandOperator, env: QueryEnv): Frame {
    const bagKind = String(optionValue(op.options, 'kind') ?? optionValue(op.options, 'bagexpansion') ?? 'bag');
    const indexName = optionValue(op.options, 'with_itemindex');
    const limit = op.limit ? constLong(op.limit, env, 'mv-expand limit') : Infinity;
    const items = op.items.map(it => {
        const c = compileExpr(it.expression, frame, env);
        const name = it.name ?? defaultName(it.expression) ?? 'Column1';
        const t = it.type ? normType(typeFromName(it.type) ?? 'dynamic') : 'dynamic';
        return { name, vec: c.run(frame), type: t };
    });
    const n = frame.length;
    const rowIdx: number[] = [];
    const itemIdx: number[] = [];
    const values: AplValue[][] = items.map(() => []);
    const expand = (v: AplValue): AplValue[] => {
        if (v === null) return [null];
        if (Array.isArray(v)) return v as AplValue[];
        if (typeof v === 'object' && !(v instanceof Datetime) && !(v instanceof Timespan)) {
            return Object.entries(v).map(([k, x]) => (bagKind === 'array' ? [k, x] : { [k]: x }) as AplValue);
        }
        return [v];
    };
    const columns = frame.cols.length + items.length;
    for (let i = 0; i < n; i++) {
        const lists = items.map(it => expand(vget(it.vec, i)));
        const len = Math.min(limit, Math.max(...lists.map(l => l.length)));
        env.budget.admit(rowIdx.length + len, columns, op, 'mv-expand');
        for (let k = 0; k < len; k++) {
            rowIdx.push(i);
            itemIdx.push(k);
            lists.forEach((l, j) => values[j].push(k < l.length ? (l[k] ?? null) : null));
        }
    }
    const base = selectRows(frame, Uint32Array.from(rowIdx));
    let cols = base.cols.slice();
    items.forEach((it, j) => {
        const data = it.type === 'dynamic' ? new DynColumn(values[j]) : columnFromValues(it.type, values[j].map(v => coerceCell(v, it.type)));
        const col: FrameCol = { name: it.name, type: it.type, data, sel: null };
        const at = cols.findIndex(c => c.name === it.name && !c.hidden);
        if (at >= 0) cols[at] = col;
        else cols.push(col);
    });
    if (typeof indexName === 'string') cols = [...cols, { name: indexName, type: 'long', data: columnFromValues('long', itemIdx), sel: null }];
    return new Frame(cols, rowIdx.length, base.meta);
}

function sample(frame: Frame, op: ast.SampleOperator, env: QueryEnv, state: RunState): Frame {
    const c = compileExpr(op.value, emptyFrame(), env);
    if (!c.isConst || typeof c.value !== 'number') throw errorAt(op.value, 'sample expects a constant proportion between 0 and 1');
    const p = c.value;
    if (!(p >= 0 && p <= 1)) throw errorAt(op.value, `sample takes a proportion between 0 and 1 (Axiom), got ${p}`);
    let s = (state.opts.seed ?? 1) >>> 0;
    const rand = () => {
        // mulberry32
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const idx: number[] = [];
    for (let i = 0; i < frame.length; i++) if (rand() < p) idx.push(i);
    return selectRows(frame, Uint32Array.from(idx));
}

const DATA_TYPES: Record<ScalarType, string> = {
    string: 'System.String', long: 'System.Int64', real: 'System.Double', bool: 'System.Boolean', datetime: 'System.DateTime', timespan: 'System.TimeSpan', dynamic: 'System.Object',
};

function getschema(frame: Frame): Frame {
    const vis = frame.visible();
    const names = new StrBuilder();
    const types = new StrBuilder();
    const dtypes = new StrBuilder();
    vis.forEach(c => {
        names.push(c.name);
        types.push(c.type === 'long' ? 'long' : c.type);
        dtypes.push(DATA_TYPES[c.type]);
    });
    return new Frame(
        [
            { name: 'ColumnName', type: 'string', data: names.build(), sel: null },
            { name: 'ColumnOrdinal', type: 'long', data: columnFromValues('long', vis.map((_, i) => i)), sel: null },
            { name: 'DataType', type: 'string', data: dtypes.build(), sel: null },
            { name: 'ColumnType', type: 'string', data: types.build(), sel: null },
        ],
        vis.length,
    );
}

function redact(frame: Frame, op: ast.RedactOperator, env: QueryEnv): Frame {
    const token = optionValue(op.options, 'replaceToken');
    const hash = optionValue(op.options, 'replaceHash') === true;
    const groups = optionValue(op.options, 'redactGroups') === true;
    if (hash && token !== undefined) throw errorAt(op, 'redact: replaceToken and replaceHash cannot be used together');
    const tok = typeof token === 'string' ? token : '*';
    const patterns: string[] = [];
    for (const p of op.patterns) {
        const c = compileExpr(p, emptyFrame(), env);
        if (!c.isConst) throw errorAt(p, 'redact expects constant regular expressions');
        const v = c.value ?? null;
        if (typeof v === 'string') patterns.push(v);
        else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') patterns.push(x);
        else if (v && typeof v === 'object' && !(v instanceof Datetime) && !(v instanceof Timespan)) for (const x of Object.values(v)) if (typeof x === 'string') patterns.push(x);
    }
    const res = patterns.map(p => {
        try {
            return compileRegex(p);
        } catch (e) {
            throw errorAt(op, `redact: ${(e as Error).message}`);
        }
    });
    const replaceText = (m: string): string => (hash ? createHash('sha256').update(m).digest('hex').slice(0, 16) : tok.length === 1 ? tok.repeat([...m].length) : tok);
    const fieldNames = op.fields.length ? new Set(op.fields.map(f => f.segments.join('.'))) : undefined;
    const apply = (s: string): string => {
        let out = s;
        for (const re of res) {
            let next = '';
            let last = 0;
            for (const m of re.matchAll(out)) {
                let r = m[0];
                if (groups) {
                    for (const c of m.slice(1)) if (c) r = r.replace(c, replaceText(c));
                } else r = replaceText(m[0]);
                next += out.slice(last, m.index) + r;
                last = m.index + m[0].length;
            }
            out = next + out.slice(last);
        }
        return out;
    };
    const cols = frame.cols.map(c => {
        if (c.hidden || c.type !== 'string' || (fieldNames && !fieldNames.has(c.name))) return c;
        const d = dense(c, frame.length);
        if (d instanceof StrColumn) {
            const dict = d.dict.map((s, k) => (k === 0 ? s : apply(s)));
            const b = new StrBuilder(frame.length);
            for (let i = 0; i < frame.length; i++) {
                const code = d.codes[i];
                b.push(code === 0 ? null : dict[code]);
            }
            return { ...c, data: b.build(), sel: null };
        }
        return c;
    });
    return frame.with(cols);
}

