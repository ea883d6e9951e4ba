/**
 * Limit pushdown: a pipeline that keeps only its first N rows stops evaluating once it has them.
 *
 * - `<row-wise steps> | take N`: the steps run over batches of the input (a few thousand rows,
 *   then as many as the rows still wanted need at the matches' rate so far) until N rows came out;
 * - `[one-to-one steps] | sort by x | [one-to-one steps] | take N`: a top-N, then the steps over
 *   its N rows, when the steps before the sort leave its keys as they are (query.ts applyOps);
 * - a result cut to its page (the request's `limit`, else 1000 rows): the one-to-one steps at its
 *   end run over the page's rows only (query.ts applyOps).
 *
 * The rows are those of the whole evaluation, in its order: row-wise steps map each input row to
 * its output rows without looking at other rows, so batches of the input give batches of the
 * output. A take that stopped early counts what it read: `rowsExamined` and `blocksExamined` the
 * rows read and their blocks, `rowsMatched` the rows the steps gave over them (as for blocks read
 * from disk, query.ts streamCold); with one-to-one steps only, every row matches and counts. The
 * other two keep the status of the whole evaluation: `sort | take` runs every step a match
 * depends on, so `rowsMatched` stays the count a client paging with `| sort by _time | limit N`
 * reads the total from.
 */
import type * as ast from '../generated/ast.js';
import type { QueryEnv } from './expr.js';
import { Frame, ROWID, takeRows } from './frame.js';
import { concatFrames, scanReadOnly } from './sources.js';
import { ZONE_ROWS } from './zone-maps.js';
import { constLong } from './operators/common.js';
import type { RunState } from './query.js';

/** Steps that give exactly one output row per input row, in input order: a limit commutes with them. */
export const ONE_TO_ONE: ReadonlySet<string> = new Set([
    'ExtendOperator', 'ExtendValidOperator', 'ProjectOperator', 'ProjectAwayOperator', 'ProjectKeepOperator', 'ProjectRenameOperator',
    'ProjectReorderOperator', 'ParseOperator', 'ParseKvOperator', 'RedactOperator',
]);

/** Steps whose output rows each come from one input row, in input order (some rows dropped, or expanded in place). */
export const ROW_WISE: ReadonlySet<string> = new Set([...ONE_TO_ONE, 'WhereOperator', 'ParseWhereOperator', 'SearchOperator', 'MvExpandOperator']);

/** Runs one operator (query.ts applyOperator, with its check point). */
export type Apply = (op: ast.TabularOperator, frame: Frame) => Frame;

/** A pushdown's result. */
export interface Pushed {
    /** The first N rows after the steps (and the sort, if any). */
    frame: Frame;
    /** The index of the first operator still to run. */
    next: number;
}

/**
 * The pipeline's leading row-wise steps and its limit run over batches of `src`, or undefined when
 * the pipeline does not start that way (or its input is small: one batch is the whole).
 */
export function pushLimit(src: Frame, ops: readonly ast.TabularOperator[], env: QueryEnv, state: RunState, apply: Apply): Pushed | undefined {
    let k = 0;
    while (k < ops.length && ROW_WISE.has(ops[k].$type)) k++;
    const steps = ops.slice(0, k);
    const op = ops[k];
    if (op?.$type === 'TakeOperator') {
        const run = firstRows(src, steps, constLong((op as ast.TakeOperator).count, env, 'take'), state, apply);
        if (run === undefined) return undefined;
        state.stats.rowsMatched ??= run.matched;
        return { frame: run.frame, next: k + 1 };
    }
    return undefined;
}

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

/** The smallest batch, and the largest first one (a block of the scan). */
const MIN_BATCH = 4096;

/** The first rows of row-wise steps over a source, and the rows they gave over the rows read. */
export interface FirstRows {
    frame: Frame;
    /**
     * Rows the steps gave over the rows read (the status's `rowsMatched`). With one-to-one steps
     * only, every row of the source: each would match, read or not.
     */
    matched: number;
}

/**
 * The first `limit` rows of the row-wise `steps` over `src`, run over batches of `src` until they
 * are there; undefined when `src` is one batch (the caller runs the steps over it whole). A scan
 * read only in part counts only the rows read as examined (scanReadOnly), unless every row
 * matches (one-to-one steps).
 */
export function firstRows(src: Frame, steps: readonly ast.TabularOperator[], limit: number, state: RunState, apply: Apply): FirstRows | undefined {
    const block = state.opts.zoneRows ?? ZONE_ROWS;
    const least = Math.min(MIN_BATCH, block);
    const oneToOne = steps.every(s => ONE_TO_ONE.has(s.$type));
    // One-to-one steps give a row per row: read exactly the rows wanted.
    let size = oneToOne ? limit : Math.min(block, Math.max(least, limit * 4));
    if (src.length <= size && !oneToOne) return undefined;
    const parts: { frame: Frame; source: string }[] = [];
    let got = 0;
    let read = 0;
    let out = 0;
    let last: Frame | undefined;
    while (read < src.length && got < limit) {
        const end = Math.min(src.length, read + Math.max(1, size));
        let f = sliceFrame(src, read, end);
        for (const op of steps) f = apply(op, f);
        last = f;
        read = end;
        out += f.length;
        if (f.length === 0) {
            size = Math.min(size * 4, 16 * block);
            continue;
        }
        const t = takeRows(f, limit - got);
        parts.push({ frame: t, source: '' });
        got += t.length;
        // The rows still wanted at the rate of matches so far, and 15% more (one more batch is rarely needed).
        size = oneToOne ? limit - got : Math.min(16 * block, Math.max(least, Math.ceil(((limit - got) * read * 1.15) / out)));
    }
    // Rows matched among those read (when every row was read: all of them), as the take would count them.
    if (!oneToOne) scanReadOnly(src, read, state);
    const matched = oneToOne ? src.length : out;
    if (parts.length === 0) {
        if (last) return { frame: takeRows(last, 0), matched };
        let f = sliceFrame(src, 0, 0);
        for (const op of steps) f = apply(op, f);
        return { frame: f, matched };
    }
    if (parts.length === 1) return { frame: parts[0].frame, matched };
    const all = concatFrames(parts, undefined);
    all.meta = parts[parts.length - 1].frame.meta;
    return { frame: all, matched };
}

/**
 * Whether `sort` may run before the one-to-one `steps` that precede it: its keys are plain columns
 * the steps leave as they are (the same column, checked by running the steps over none of the
 * rows), and the row ids a sort by `_time` breaks ties by are there before them too.
 */
export function sortCommutes(frame: Frame, steps: readonly ast.TabularOperator[], sort: ast.SortOperator, apply: Apply): boolean {
    const names: string[] = [];
    for (const it of sort.items) {
        const e = it.expression;
        if (e.$type !== 'NameReference' && e.$type !== 'BracketReference') return false;
        names.push((e as ast.NameReference).name);
    }
    const before = sliceFrame(frame, 0, 0);
    let after = before;
    for (const s of steps) after = apply(s, after);
    const same = (name: string, hidden: boolean) => {
        const a = before.find(name);
        const b = after.find(name);
        return a !== undefined && b !== undefined && a.hidden === hidden && b.hidden === hidden && a.data === b.data && a.sel === b.sel && a.type === b.type;
    };
    return names.every(n => same(n, false)) && (!names.includes('_time') || before.find(ROWID) === undefined || same(ROWID, true));
}
