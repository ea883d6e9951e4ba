/**
 * Where a pipeline's rows come from: datasets (scanned in time order, within the query's time
 * range and cursor), let-bound tables, `table()`, `datatable`, `print`, `externaldata`, and
 * `union`/`search` used as sources.
 */
import { GrammarUtils, type AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import { typeFromName } from '../types/apl-types.js';
import { type AplValue, type Datetime } from '../values.js';
import { ConstColumn, FnColumn, NumColumn, type ScalarType, StrBuilder, builderFor } from './columns.js';
import { errorAt } from './errors.js';
import { type Binding, type QueryEnv, compileExpr, isTabular, normType, vecToFrameCol } from './expr.js';
import { Frame, ROWID, SCAN_TIME, type FrameCol, type FrameMeta, cellOf, concatColumns, selectRows } from './frame.js';
import { DatasetStore, RowIdColumn, type Snapshot } from './tables.js';
import { runsOnValueCounts, valueCountsFrame, wholeBlockCounts, wholeBlockRows } from './weighted-counts.js';
import { ColdScan, pickBlocks, sourceZone, type ColdAccess, type ColdBlock, type ColdField } from './cold-blocks.js';
import Papa from 'papaparse';
import type { OrderNeed, RunState } from './query.js';
import { coerceCell, emptyFrame, globToRegex, optionValue } from './operators/common.js';
import { search } from './operators/filter.js';
import { partitionRange } from './parallel.js';
import { markPermutedRun, markReverseRun } from './kernels/topn.js';
import { ZONE_ROWS, blocksInTimeSpan, pruneTerms, survivingBlocks, type PruneTerm } from './zone-maps.js';

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

export function letBinding(s: ast.LetStatement, env: QueryEnv, state: RunState): Binding {
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

/** `ops`: the pipeline's operators after the source, whose leading `where` terms may prune a dataset's blocks (zone-maps.ts). */
export function evalSource(expr: ast.Expression, env: QueryEnv, state: RunState, need: OrderNeed, ops: readonly ast.TabularOperator[] = []): Frame {
    switch (expr.$type) {
        case 'NameReference':
        case 'BracketReference':
            return namedTable((expr as ast.NameReference).name, expr, env, state, need, ops);
        case 'ParenthesizedExpression':
            return state.evalTable((expr as ast.ParenthesizedExpression).expression, env);
        case 'Pipeline':
            return state.evalTable(expr, env);
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

function namedTable(name: string, node: AstNode, env: QueryEnv, state: RunState, need: OrderNeed, ops: readonly ast.TabularOperator[] = []): Frame {
    const b = env.bindings.get(name);
    if (b?.kind === 'table') return state.evalTable(b.expression, b.env);
    if (b?.kind === 'frame') return b.frame;
    const snap = state.data.snapshot(name);
    if (!snap) {
        if (b?.kind === 'scalar' && typeof b.value === 'string') return namedTable(b.value, node, env, state, need, ops);
        throw errorAt(node, `unknown dataset or table '${name}'`);
    }
    const terms = state.opts.pruneBlocks === false ? [] : pruneTerms(ops, env);
    const cold = state.data.cold?.(name);
    return cold ? scanCold(snap, cold, need, state, terms, ops) : scanDataset(snap, need, state, terms);
}

/**
 * The scan of a dataset with blocks on disk (cold-blocks.ts): the blocks the query's time range
 * and leading `_time` terms need, each scanned as a dataset of its own, then the in-memory rows;
 * joined in the scan's time order. A part of a parallel run (engine.ts runs one per source) scans
 * just its source; the merge of a `top` reads back the rows its parts chose.
 */
function scanCold(hot: Snapshot, cold: ColdAccess, need: OrderNeed, state: RunState, terms: readonly PruneTerm[], ops: readonly ast.TabularOperator[]): Frame {
    const name = hot.dataset;
    const merge = state.opts.merge;
    if (merge?.plan.kind === 'top' && merge.plan.dataset === name) {
        // The parts' rows, copied out of their sources (query.ts runPart; the parts ran in this thread), in the scan's order.
        const copies = merge.parts.flatMap(p => (p.kind === 'top' && p.frame ? [{ frame: p.frame, source: '' }] : []));
        return inScanOrder(concatFrames(copies, undefined), need, '_time');
    }
    const blocks = pickBlocks(cold.blocks, state.opts.startTime, state.opts.endTime, terms);
    const part = state.opts.partial;
    if (part?.counted !== undefined && part.plan.dataset === name) {
        state.cold = { sources: blocks.length + 1, source: '', blocks };
        for (const t of part.counted.taken) if (t.rows > 0) wholeBlockStats(t.block, t.rows, name, state, t.source);
        return conform(valueCountsFrame(part.counted.counts), cold.fields);
    }
    if (part?.coldSource !== undefined && part.plan.dataset === name) {
        const k = part.coldSource;
        const block = blocks[k] as ColdBlock | undefined;
        state.cold = { sources: blocks.length + 1, source: block?.id ?? '', blocks };
        const counted = block && countFromHeader(block, cold, name, need, state);
        if (counted) return conform(counted, cold.fields);
        const weighted = block && weightedFromCounts(block, cold, name, need, state, ops);
        if (weighted) return conform(weighted, cold.fields);
        state.budget.checkpoint();
        const made = block && fromCounts(block, cold, name, need, state);
        // Past the rows in memory (the last source) there is none: a part of a parallel run whose share is empty.
        const snap = made ?? (block ? cold.load(block)?.snapshot ?? emptySnapshot(name) : k === blocks.length ? hot : emptySnapshot(name));
        // A block made from its counts holds its rows in an order of its own: its zones have nothing to prune by
        // (a pruned zone would only cost a list of the rows kept).
        return conform(scanDataset(snap, need, state, made ? [] : terms, block && spanOf(block)), cold.fields);
    }
    const held = new ColdScan(cold.capacity);
    const frames: Frame[] = [];
    for (const b of blocks) {
        // A block read is the scan's longest step without a check point of its own.
        state.budget.checkpoint();
        const e = cold.load(b);
        if (!e) continue;
        // All it may come to hold: a block read in place makes its times and orders when the scan reads them.
        held.hold(e.fullBytes);
        frames.push(conform(scanDataset(e.snapshot, need, state, terms, spanOf(b)), cold.fields));
    }
    frames.push(conform(scanDataset(hot, need, state, terms), cold.fields));
    return inTimeOrder(frames, need);
}

/**
 * A part of `['d'] | count` over a block the request's time range covers whole, every row of it
 * visible: the block's rows as its header gives them, without reading it (the first answer after
 * start-up, and a whole-range count of a dataset on disk). Undefined: the block is scanned.
 */
function countFromHeader(block: ColdBlock, cold: ColdAccess, dataset: string, need: OrderNeed, state: RunState): Frame | undefined {
    const plan = state.opts.partial?.plan;
    if (plan?.kind !== 'count' || plan.opIndex !== 0) return undefined;
    const rows = unreadWholeRows(block, cold, need, state);
    if (rows === undefined) return undefined;
    if (rows === 0) return new Frame([], 0); // gone from disk: as a scan of the empty block it reads
    wholeBlockStats(block, rows, dataset, state);
    return new Frame([], rows);
}

/**
 * The statistics a scan of a whole block of `rows` visible rows gives, for a part that answers
 * without reading it. `source`: the block's source, for a part of several (its zones then
 * numbered as engine.ts numbers each source's).
 */
function wholeBlockStats(block: ColdBlock, rows: number, dataset: string, state: RunState, source?: number): void {
    state.stats.rowsExamined += rows;
    if (!state.stats.datasets.includes(dataset)) state.stats.datasets.push(dataset);
    if (state.stats.minBlockTime === undefined || block.minTime < state.stats.minBlockTime) state.stats.minBlockTime = block.minTime;
    if (state.stats.maxBlockTime === undefined || block.maxTime > state.stats.maxBlockTime) state.stats.maxBlockTime = block.maxTime;
    for (const z of everyZone(rows, undefined, state.opts.zoneRows ?? ZONE_ROWS)) state.stats.partBlocks.add(source === undefined ? z : sourceZone(source, z));
}

/**
 * A part of a `count` or `summarize` that may run over value counts (weighted-counts.ts) over a
 * block it reads whole and in no order: a row per value of the one field it reads, with weights,
 * from the block's header. Undefined: the block is read (or made row by row: fromCounts).
 */
function weightedFromCounts(block: ColdBlock, cold: ColdAccess, dataset: string, need: OrderNeed, state: RunState, ops: readonly ast.TabularOperator[]): Frame | undefined {
    const plan = state.opts.partial?.plan;
    if (!plan || need !== 'none' || !runsOnValueCounts(plan, ops)) return undefined;
    const got = wholeBlockCounts(block, cold, { ...state.opts, cursor: state.cursor });
    if (!got) return undefined;
    if (!got.counts) return new Frame([], 0); // gone from disk: as a scan of the empty block it reads
    wholeBlockStats(block, got.rows, dataset, state);
    return valueCountsFrame(got.counts);
}

/**
 * A part over a block whose rows it reads whole and in no order, every row of it visible, when the
 * fields it reads can be made from the block's header counts (ColdAccess.loadCounted): the block
 * is not read. A block gone from disk scans as empty, as a read would find it.
 */
function fromCounts(block: ColdBlock, cold: ColdAccess, dataset: string, need: OrderNeed, state: RunState): Snapshot | undefined {
    const rows = unreadWholeRows(block, cold, need, state);
    if (rows === undefined) return undefined;
    if (rows === 0) return emptySnapshot(dataset);
    return cold.loadCounted(block)?.snapshot;
}

/** wholeBlockRows for a scan in `need` order of this run's range. */
function unreadWholeRows(block: ColdBlock, cold: ColdAccess, need: OrderNeed, state: RunState): number | undefined {
    return need === 'none' ? wholeBlockRows(block, cold, { ...state.opts, cursor: state.cursor }) : undefined;
}

/**
 * A source's scan with the dataset's fields and types: a field the source lacks is null there, and
 * a type the dataset widened (long to real; mixed to dynamic) is read as the wider one, as one
 * table holding every source would store it.
 */
function conform(frame: Frame, fields: readonly ColdField[]): Frame {
    const cols = frame.cols.slice();
    let changed = false;
    for (const f of fields) {
        const k = cols.findIndex(c => c.name === f.name);
        if (k < 0) {
            cols.push({ name: f.name, type: f.type, data: new ConstColumn(f.type, null, frame.length), sel: null });
            changed = true;
            continue;
        }
        const c = cols[k];
        if (c.type === f.type) continue;
        const data = c.data;
        cols[k] = { ...c, type: f.type, data: data instanceof NumColumn && f.type === 'real' ? new NumColumn('real', data.vals, data.nulls, data.length) : new FnColumn(f.type, i => data.get(i), data.length) };
        changed = true;
    }
    return changed ? frame.with(cols) : frame;
}

/** One source of a dataset with blocks on disk: a block, or the rows in memory. */
export interface ColdSource {
    /** Bounds of the source's `_time` (ns). */
    lo: bigint;
    hi: bigint;
    /** Its scan, with `SCAN_TIME` carried hidden. */
    scan(): Frame;
}

/**
 * The sources of a dataset with blocks on disk that a scan needs (the blocks of its time range,
 * then the rows in memory), as scans to run one at a time: ordered by their newest row for a
 * descending scan, by their oldest for an ascending one. Undefined when `name` is no such dataset.
 */
export function coldSourcesInOrder(name: string, env: QueryEnv, state: RunState, need: 'asc' | 'desc', ops: readonly ast.TabularOperator[]): ColdSource[] | undefined {
    if (env.bindings.has(name)) return undefined;
    const cold = state.data.cold?.(name);
    const hot = state.data.snapshot(name);
    if (!cold || !hot) return undefined;
    const terms = state.opts.pruneBlocks === false ? [] : pruneTerms(ops, env);
    const scanOf = (snap: () => Snapshot) => (): Frame => {
        const scan = scanDataset(snap(), need, state, terms);
        const f = conform(scan, cold.fields);
        return sameScan(scan, f.with([...f.cols, { ...f.find('_time')!, name: SCAN_TIME, hidden: true }]));
    };
    const sources: ColdSource[] = pickBlocks(cold.blocks, state.opts.startTime, state.opts.endTime, terms).map(b => ({
        lo: b.minTime,
        hi: b.maxTime,
        scan: scanOf(() => cold.load(b)?.snapshot ?? emptySnapshot(name)),
    }));
    // The rows in memory always: an empty dataset still has its fields.
    sources.push({ lo: hot.minTime() ?? 0n, hi: hot.maxTime() ?? 0n, scan: scanOf(() => hot) });
    const asc = need === 'asc';
    return sources.sort((a, b) => (asc ? (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0) : b.hi < a.hi ? -1 : b.hi > a.hi ? 1 : 0));
}

const spanOf = (b: ColdBlock): { lo: bigint; hi: bigint } => ({ lo: b.minTime, hi: b.maxTime });

const emptySnapshot = (name: string): Snapshot => new DatasetStore(name).snapshot();

/**
 * Scans of one dataset's sources, each in the scan's order, as one frame in that order: their
 * concatenation when their time spans do not overlap (events arrive roughly in time order, so
 * blocks rarely do), else sorted by (_time, row id).
 */
export function inTimeOrder(frames: Frame[], need: OrderNeed, timeName = '_time'): Frame {
    if (frames.length === 1) return frames[0];
    const desc = need !== 'asc';
    const span = frames.map(f => {
        const t = f.find(timeName)!;
        const a = f.length > 0 ? (cellOf(t, 0) as Datetime).ns : 0n;
        const z = f.length > 0 ? (cellOf(t, f.length - 1) as Datetime).ns : 0n;
        return { frame: f, lo: a < z ? a : z, hi: a < z ? z : a };
    });
    const nonEmpty = span.filter(s => s.frame.length > 0);
    nonEmpty.sort((x, y) => (desc ? (y.hi > x.hi ? 1 : y.hi < x.hi ? -1 : 0) : x.lo > y.lo ? 1 : x.lo < y.lo ? -1 : 0));
    // Empty scans still bring their columns (the dataset's fields), at the end.
    const ordered = [...nonEmpty, ...span.filter(s => s.frame.length === 0)];
    let disjoint = true;
    for (let i = 1; i < nonEmpty.length; i++) {
        if (desc ? nonEmpty[i - 1].lo <= nonEmpty[i].hi : nonEmpty[i - 1].hi >= nonEmpty[i].lo) disjoint = false;
    }
    const all = concatFrames(ordered.map(s => ({ frame: s.frame, source: '' })), undefined);
    if (disjoint || need === 'none') return all.with(all.cols, need === 'none' ? { order: [{ field: '_time', desc }] } : scanMeta(need));
    return inScanOrder(all, need, timeName);
}

function scanMeta(need: OrderNeed): FrameMeta {
    return { order: [{ field: '_time', desc: need !== 'asc' }], datasetOrder: need === 'asc' ? 'asc' : need === 'desc' ? 'desc' : undefined };
}

/** A frame of dataset rows sorted into the scan's order: (`timeName`, row id), descending unless `need` is asc. */
function inScanOrder(all: Frame, need: OrderNeed, timeName: string): Frame {
    const desc = need !== 'asc';
    const time = all.find(timeName)!;
    const rid = all.find(ROWID)!;
    const ns = new Array<bigint>(all.length);
    for (let i = 0; i < all.length; i++) ns[i] = (cellOf(time, i) as Datetime).ns;
    const idx = Uint32Array.from({ length: all.length }, (_, i) => i).sort((a, b) => {
        let c = ns[a] < ns[b] ? -1 : ns[a] > ns[b] ? 1 : 0;
        if (c === 0) {
            const ra = cellOf(rid, a) as string;
            const rb = cellOf(rid, b) as string;
            c = ra < rb ? -1 : ra > rb ? 1 : 0;
        }
        return desc ? -c : c;
    });
    return selectRows(all, idx, scanMeta(need));
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

/**
 * `span`: the `_time` bounds of every row (a block read from disk, from its header). When they lie
 * in the request's range and the scan needs no order, every row is read without putting the rows
 * in time order (sorting a block whose events arrived out of order costs more than its query).
 */
function scanDataset(snap: Snapshot, need: OrderNeed, state: RunState, terms: readonly PruneTerm[], span?: { lo: bigint; hi: bigint }): Frame {
    const n = snap.rows;
    const { startTime, endTime } = state.opts;
    // A block whose span the range holds: every row of it is in the range.
    const inRange = span !== undefined && (startTime === undefined || span.lo >= startTime) && (endTime === undefined || span.hi < endTime);
    const whole = inRange && need === 'none' && state.cursor === undefined;
    const asc = whole ? undefined : snap.ascOrder();
    // Not read for a block in the range: a snapshot over a block read from disk decodes its times on first use (chunk-snapshot.ts).
    const nsAt = (i: number) => snap.time.ns(asc![i]);
    let lo = 0;
    let hi = n;
    if (startTime !== undefined && !inRange) lo = lowerBound(0, n, i => nsAt(i) >= startTime);
    if (endTime !== undefined && !inRange) hi = lowerBound(lo, n, i => nsAt(i) >= endTime);
    // A part of a parallel run covers its share of the range, in time order (parallel.ts).
    const part = state.opts.partial;
    // A part of a count or an order-free summarize over every row covers a range of physical rows,
    // read in storage order, when the rows were stored far out of time order: a range of the time
    // order gathers its rows from anywhere then (the merge orders the groups itself). Rows stored
    // nearly in order (a zone or a sixteenth apart at most) keep their time ranges, read nearly in storage order.
    const physical = part !== undefined && part.plan.dataset === snap.dataset && part.plan.kind !== 'top' && need === 'none' && asc !== undefined
        && state.cursor === undefined && lo === 0 && hi === n && n > 0 && !isIdentity(asc) && snap.orderSpread() > Math.min(ZONE_ROWS, n / 16);
    if (part && part.plan.dataset === snap.dataset) [lo, hi] = partitionRange(lo, hi, part.part);
    state.stats.rowsExamined += hi - lo;
    if (!state.stats.datasets.includes(snap.dataset)) state.stats.datasets.push(snap.dataset);
    const minT = whole ? span.lo : snap.minTime();
    const maxT = whole ? span.hi : snap.maxTime();
    if (minT !== undefined && (state.stats.minBlockTime === undefined || minT < state.stats.minBlockTime)) state.stats.minBlockTime = minT;
    if (maxT !== undefined && (state.stats.maxBlockTime === undefined || maxT > state.stats.maxBlockTime)) state.stats.maxBlockTime = maxT;
    const c = state.cursor;
    if (c) {
        const incl = state.opts.includeCursor === true;
        const a = asc!; // not a whole scan: it has a cursor
        if (state.order === 'asc') lo = lowerBound(lo, hi, i => (incl ? snap.compareWithCursor(a[i], c) >= 0 : snap.compareWithCursor(a[i], c) > 0));
        else hi = lowerBound(lo, hi, i => (incl ? snap.compareWithCursor(a[i], c) > 0 : snap.compareWithCursor(a[i], c) >= 0));
    }
    let m = Math.max(0, hi - lo);
    let sel: Uint32Array | null;
    if (need === 'desc') {
        const desc = snap.descOrder();
        sel = desc.subarray(n - hi, n - lo);
        // Rows in time order: the scan runs down from row hi - 1 (kernels read it without the selection);
        // else kernels may walk the rows physically, through the order's inverse.
        if (hi > lo && isIdentity(snap.ascOrder())) markReverseRun(sel, hi - 1);
        else if (hi > lo) {
            const [from, to] = [lo, hi];
            markPermutedRun(sel, () => snap.descRank(), n - hi, n, () => physicalSpan(snap, from, to));
        }
    } else if (asc === undefined) {
        sel = null;
    } else if (physical) {
        sel = identityRows(n).subarray(lo, hi);
    } else {
        sel = asc.subarray(lo, hi);
        if (lo === 0 && hi === n && isIdentity(asc)) sel = null;
    }
    const merge = state.opts.merge;
    if (merge?.plan.kind === 'top' && merge.plan.dataset === snap.dataset) {
        // The merge of a parallel top reads the parts' rows only (its statistics are the parts').
        sel = onlyRows(snap, merge.parts.flatMap(p => (p.kind === 'top' ? p.rows : [])), need === 'desc');
        m = sel.length;
    } else {
        const zoneRows = state.opts.zoneRows ?? ZONE_ROWS;
        const keep = terms.length > 0 && m > 0 ? survivingBlocks(snap, terms, zoneRows) : undefined;
        // The blocks the scan would read without pruning: those pruning ruled out are `status.blocksSkipped`.
        // A whole block, or a physical part of every row: the zones of all rows (the part's rows have no time span of their own).
        const allZones = whole || physical;
        const unpruned = keep && keep.includes(0) ? (allZones ? everyZone(n, undefined, zoneRows) : blocksRead(snap, sel, lo, m, undefined, zoneRows)) : undefined;
        if (keep && keep.includes(0)) {
            const kept = keptRows(sel, lo, m, keep, zoneRows);
            state.stats.rowsExamined -= m - kept.length;
            sel = kept;
            m = kept.length;
        }
        // Unordered rows (a whole block) have no first and last row in time: all their zones are read.
        const blocks = physical ? everyZone(n, keep, zoneRows) : whole ? (m === 0 ? [] : everyZone(n, keep, zoneRows)) : blocksRead(snap, sel, lo, m, keep, zoneRows);
        state.stats.blocksExamined += blocks.length;
        const skipped = unpruned?.filter(b => keep![b] === 0) ?? [];
        if (state.opts.partial) for (const b of skipped) (state.stats.partSkipped ??= new Set()).add(b);
        else if (skipped.length > 0) state.stats.blocksSkipped = (state.stats.blocksSkipped ?? 0) + skipped.length;
        // A part of a parallel run says which blocks, so that a block cut by a part boundary counts once.
        if (state.opts.partial) for (const b of blocks) state.stats.partBlocks.add(b);
        else {
            const frame = snapshotFrame(snap, sel, m, need);
            if (!whole) scans.set(frame, { snap, sel, lo, keep, zoneRows, blocks: blocks.length });
            return frame;
        }
    }
    return snapshotFrame(snap, sel, m, need);
}

/** What a dataset scan counted in the status, to take back what a query that stopped early did not read. */
interface ScanCount {
    snap: Snapshot;
    sel: Uint32Array | null;
    lo: number;
    keep: Uint8Array | undefined;
    zoneRows: number;
    blocks: number;
}

const scans = new WeakMap<Frame, ScanCount>();

/** `to`, the same rows as the scan `from` with other columns, counted as that scan (scanReadOnly). */
function sameScan(from: Frame, to: Frame): Frame {
    const s = scans.get(from);
    if (s !== undefined && to.length === from.length) {
        scans.delete(from);
        scans.set(to, s);
    }
    return to;
}

/**
 * The status of a scan of which only the first `read` rows were read (a query that stopped once it
 * had its rows, limit-pushdown.ts): rows examined and blocks examined are those rows' and their
 * blocks'. No change when `frame` is not a dataset scan as evalSource gave it.
 */
export function scanReadOnly(frame: Frame, read: number, state: RunState): void {
    const s = scans.get(frame);
    if (s === undefined || read >= frame.length) return;
    scans.delete(frame);
    state.stats.rowsExamined -= frame.length - read;
    state.stats.blocksExamined -= s.blocks - blocksRead(s.snap, s.sel, s.lo, read, s.keep, s.zoneRows).length;
}

/** A dataset's rows `sel` (all when null) as a frame in the scan's order, row ids carried along. */
function snapshotFrame(snap: Snapshot, sel: Uint32Array | null, m: number, need: OrderNeed): Frame {
    const cols: FrameCol[] = snap.fields.map(f => ({ name: f.name, type: f.type, data: snap.column(f.name)!, sel }));
    cols.push({ name: ROWID, type: 'string', data: new RowIdColumn(snap), sel, hidden: true });
    return new Frame(cols, m, scanMeta(need));
}

/** The zones of `n` rows that pruning kept (all when `keep` is undefined). */
function everyZone(n: number, keep: Uint8Array | undefined, zoneRows: number): number[] {
    const out: number[] = [];
    for (let b = 0; b * zoneRows < n; b++) if (!keep || keep[b] === 1) out.push(b);
    return out;
}

/** The scan's rows (`sel`, or rows lo.. when null) whose block survived pruning, in scan order. */
function keptRows(sel: Uint32Array | null, lo: number, m: number, keep: Uint8Array, zoneRows: number): Uint32Array {
    const out = new Uint32Array(m);
    let k = 0;
    for (let i = 0; i < m; i++) {
        const r = sel ? sel[i] : lo + i;
        if (keep[(r / zoneRows) | 0] === 1) out[k++] = r;
    }
    return out.subarray(0, k);
}

/** The blocks the scan reads: the rows run in time order, so the first and last carry its time span. */
function blocksRead(snap: Snapshot, sel: Uint32Array | null, lo: number, m: number, keep: Uint8Array | undefined, zoneRows: number): number[] {
    if (m === 0) return [];
    // Every row: every zone, its times unread (a block read from disk would split them all for this).
    if (m === snap.rows) return everyZone(snap.rows, keep, zoneRows);
    const ms = snap.time.ms;
    const a = ms[sel ? sel[0] : lo];
    const b = ms[sel ? sel[m - 1] : lo + m - 1];
    return blocksInTimeSpan(snap, Math.min(a, b), Math.max(a, b), keep, zoneRows);
}

/**
 * The merge of a parallel `top`: the parts' rows in scan order, (_time, row id) ascending or
 * descending. They came from this scan's range, so sorting them is the whole scan.
 */
function onlyRows(snap: Snapshot, rows: readonly number[], desc: boolean): Uint32Array {
    const sel = Uint32Array.from(rows).sort((a, b) => snap.compareRows(a, b));
    return desc ? sel.reverse() : sel;
}

/**
 * The physical rows that hold positions [lo, hi) of the time order: within the order's spread of
 * them. A part of a parallel scan over rows stored nearly in time order holds about its share.
 */
function physicalSpan(snap: Snapshot, lo: number, hi: number): [number, number] {
    const spread = snap.orderSpread();
    return [Math.max(0, lo - spread), Math.min(snap.rows, hi + spread)];
}

/** Rows 0, 1, 2, …: the selection of a physical row range (grown to the largest dataset scanned so). */
let identity = new Uint32Array(0);
function identityRows(n: number): Uint32Array {
    if (identity.length < n) {
        identity = new Uint32Array(n);
        for (let i = 0; i < n; i++) identity[i] = i;
    }
    return identity;
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

export function union(
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
    const sub = (name: string) => {
        const snap = state.data.snapshot(name)!;
        const cold = state.data.cold?.(name);
        return cold ? scanCold(snap, cold, 'desc', state, [], []) : scanDataset(snap, 'desc', state, []);
    };
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
            parts.push({ frame: state.evalTable(e, env), source: src });
        }
    }
    const withsource = optionValue(options, 'withsource');
    const rows = parts.reduce((s, p) => s + p.frame.length, 0);
    const columns = new Set(parts.flatMap(p => p.frame.visible().map(c => c.name))).size;
    state.budget.admit(rows, columns, node, 'union');
    return concatFrames(parts, typeof withsource === 'string' ? withsource : undefined);
}

export function concatFrames(parts: { frame: Frame; source: string }[], withsource: string | undefined): Frame {
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
    // A scan's time carried for merging sources (streamCold) survives when every part has it.
    if (parts.every(p => p.frame.find(SCAN_TIME))) cols.push(merged(parts.map(p => p.frame.find(SCAN_TIME)), 'datetime', SCAN_TIME, true));
    return new Frame(cols, total, { order: parts.length === 1 ? parts[0].frame.meta.order : undefined });
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
