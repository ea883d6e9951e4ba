/** sort, top and take/limit: operators that order rows or keep the first ones. */
import type * as ast from '../../generated/ast.js';
import { type Column, ConstColumn, NumColumn, gatherColumn } from '../columns.js';
import { type QueryEnv, type Vec, compileExpr, defaultName } from '../expr.js';
import { Frame, ROWID, type FrameMeta, cellOf, selectRows, takeRows } from '../frame.js';
import { groupRows, comparatorFor } from '../aggregate.js';
import { RowIdColumn } from '../tables.js';
import { constLong, type OperatorImpls } from './common.js';
import { topNumeric } from '../kernels/topn.js';

export const SORT_OPERATORS = {
    SortOperator: (op, frame, env) => sortFrame(frame, op.items, env),
    TakeOperator: (op, frame, env, state) => {
        // Like Axiom, rowsMatched counts the rows that matched, not those a limit keeps: a client
        // that pages with `| limit N` reads the total from it.
        state.stats.rowsMatched ??= frame.length;
        return take(frame, constLong(op.count, env, 'take'));
    },
    TopOperator: (op, frame, env, state) => {
        state.stats.rowsMatched ??= frame.length;
        return topN(frame, op.items, constLong(op.count, env, 'top'), env);
    },
} satisfies OperatorImpls<'SortOperator' | 'TakeOperator' | 'TopOperator'>;

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
export function topN(frame: Frame, items: readonly ast.SortItem[], k: number, env: QueryEnv): Frame {
    const n = frame.length;
    if (k >= n / 4) return takeRows(sortFrame(frame, items, env), k);
    const keys = sortKeys(frame, items, env, false);
    const tie = rowIdTiebreak(frame, keys);
    const only = keys.length === 1 ? keys[0] : undefined;
    if (!tie && only && only.col instanceof NumColumn && only.col.nulls === null) {
        // One numeric key without nulls: the typed-array heap kernel (no comparator closures).
        return selectRows(frame, topNumeric(only.col.vals, only.sel, n, k, only.desc ? -1 : 1), sortMeta(keys, frame));
    }
    const cmps = keys.map(logicalComparator);
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
    if (k > 0) {
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
function take(frame: Frame, n: number): Frame {
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
    return takeRows(frame, n);
}
