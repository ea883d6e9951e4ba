/**
 * Top-N over one numeric key without nulls: a bounded binary heap of logical row numbers in a
 * typed array. Module-level functions over typed arrays so their optimized code survives major
 * GCs (see select.ts); the comparison is inlined rather than a per-query comparator closure.
 *
 * Order: the value order of `comparatorFor` (NaN after every number ascending, before them
 * descending), ties by row number, so the result equals a stable sort's first k rows.
 */

/** < 0 when logical row a comes before row b. sgn is 1 ascending, -1 descending. */
function cmpRows(vals: Float64Array, sel: Uint32Array | null, sgn: number, a: number, b: number): number {
    const x = vals[sel === null ? a : sel[a]];
    const y = vals[sel === null ? b : sel[b]];
    if (x !== y) {
        if (x !== x) return y !== y ? a - b : sgn;
        if (y !== y) return -sgn;
        return x < y ? -sgn : sgn;
    }
    return a - b;
}

function siftUp(heap: Uint32Array, vals: Float64Array, sel: Uint32Array | null, sgn: number, i: number): void {
    while (i > 0) {
        const p = (i - 1) >> 1;
        if (cmpRows(vals, sel, sgn, heap[i], heap[p]) <= 0) return;
        const t = heap[i];
        heap[i] = heap[p];
        heap[p] = t;
        i = p;
    }
}

function siftDown(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array | null, sgn: number, i: number): void {
    for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < size && cmpRows(vals, sel, sgn, heap[l], heap[m]) > 0) m = l;
        if (r < size && cmpRows(vals, sel, sgn, heap[r], heap[m]) > 0) m = r;
        if (m === i) return;
        const t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

/**
 * Offers rows from..n-1 to a full heap. A row is skipped when it cannot beat the worst kept row
 * (a later row loses ties); comparisons with NaN are false, so NaN rows take the full compare.
 * `w`, the worst kept value, stays in a local: one compare per row in the common case.
 */
function offerDesc(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array | null, from: number, n: number): void {
    let w = vals[sel === null ? heap[0] : sel[heap[0]]];
    for (let i = from; i < n; i++) {
        const x = vals[sel === null ? i : sel[i]];
        if (x <= w) continue;
        if (cmpRows(vals, sel, -1, i, heap[0]) < 0) {
            heap[0] = i;
            siftDown(heap, size, vals, sel, -1, 0);
            w = vals[sel === null ? heap[0] : sel[heap[0]]];
        }
    }
}

/**
 * The same over a selection that runs down physical rows `top`, `top - 1`, …: a dataset scanned
 * newest first whose rows are in time order (sources.ts marks it, see markReverseRun). Reading
 * `vals[top - i]` instead of `vals[sel[i]]` saves a load per row in the loop every row takes.
 */
function offerDescReverse(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array, top: number, from: number, n: number): void {
    let w = vals[top - heap[0]];
    for (let i = from; i < n; i++) {
        const x = vals[top - i];
        if (x <= w) continue;
        if (cmpRows(vals, sel, -1, i, heap[0]) < 0) {
            heap[0] = i;
            siftDown(heap, size, vals, sel, -1, 0);
            w = vals[top - heap[0]];
        }
    }
}

function offerAscReverse(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array, top: number, from: number, n: number): void {
    let w = vals[top - heap[0]];
    for (let i = from; i < n; i++) {
        const x = vals[top - i];
        if (x >= w) continue;
        if (cmpRows(vals, sel, 1, i, heap[0]) < 0) {
            heap[0] = i;
            siftDown(heap, size, vals, sel, 1, 0);
            w = vals[top - heap[0]];
        }
    }
}

/**
 * The same over a selection in an order of its own (a newest-first scan of rows that arrived out of
 * time order): gathering `vals[sel[i]]` costs a load per row and misses the cache where the order
 * jumps, so the physical rows [lo, hi) that hold the selection are walked instead, in storage order.
 * `rank[p] - off` is row p's position in the selection (out of [0, m): not selected). A physical walk
 * meets rows out of logical order, so equal values take the full compare (which breaks ties by
 * position), and the rows already in the heap (positions below `from`) are skipped.
 */
function offerPhysical(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array, sgn: number, rank: Uint32Array, off: number, from: number, m: number, lo: number, hi: number): void {
    // The skip test is `x < w` (descending) or `x > w`, written as one compare: -x < -w.
    const s = sgn < 0 ? 1 : -1;
    let sw = s * vals[sel[heap[0]]];
    for (let p = lo; p < hi; p++) {
        if (s * vals[p] < sw) continue;
        const i = rank[p] - off;
        if (i < from || i >= m) continue;
        if (cmpRows(vals, sel, sgn, i, heap[0]) < 0) {
            heap[0] = i;
            siftDown(heap, size, vals, sel, sgn, 0);
            sw = s * vals[sel[heap[0]]];
        }
    }
}

/** Selections that are a run of a dataset's newest-first order, with how to walk them physically. */
const permutedRuns = new WeakMap<Uint32Array, { rank: () => Uint32Array; off: number; rows: number; span?: () => readonly [number, number] }>();

/**
 * Records that `sel[i] === order[off + i]`, where `rank()` is the inverse of `order` (a permutation
 * of `rows` rows). `span()`: physical rows [lo, hi) that hold every row of `sel` (default: all), so
 * that a run of an order close to storage order (a part of a parallel scan) is walked over its rows only.
 */
export function markPermutedRun(sel: Uint32Array, rank: () => Uint32Array, off: number, rows: number, span?: () => readonly [number, number]): void {
    permutedRuns.set(sel, { rank, off, rows, span });
}

/** How `topNumeric` walks a marked permuted run of `n` rows physically: rows [lo, hi), or undefined to gather. */
export function physicalWalk(sel: Uint32Array, n: number, valsLength: number): { rank: Uint32Array; off: number; lo: number; hi: number } | undefined {
    const run = permutedRuns.get(sel);
    if (run === undefined || run.rows > valsLength) return undefined;
    const [lo, hi] = run.span?.() ?? [0, run.rows];
    // A physical walk reads every row of its span: worth it while the selection is most of them.
    if ((hi - lo) * 2 > n * 3) return undefined;
    return { rank: run.rank(), off: run.off, lo, hi };
}

/** Selections known to be `top, top - 1, …` (physical rows), by array: see markReverseRun. */
const reverseRuns = new WeakMap<Uint32Array, number>();

/** Records that `sel[i] === top - i` for every i (the caller built it so). */
export function markReverseRun(sel: Uint32Array, top: number): void {
    reverseRuns.set(sel, top);
}

function offerAsc(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array | null, from: number, n: number): void {
    let w = vals[sel === null ? heap[0] : sel[heap[0]]];
    for (let i = from; i < n; i++) {
        const x = vals[sel === null ? i : sel[i]];
        if (x >= w) continue;
        if (cmpRows(vals, sel, 1, i, heap[0]) < 0) {
            heap[0] = i;
            siftDown(heap, size, vals, sel, 1, 0);
            w = vals[sel === null ? heap[0] : sel[heap[0]]];
        }
    }
}

/** The logical rows of the first `k` of `n` rows in order (ascending when sgn is 1). */
export function topNumeric(vals: Float64Array, sel: Uint32Array | null, n: number, k: number, sgn: number): Uint32Array {
    if (k <= 0 || n === 0) return new Uint32Array(0);
    // Max-heap of the best k (the root is the worst kept row), filled with the first rows.
    const size = Math.min(k, n);
    const heap = new Uint32Array(size);
    for (let i = 0; i < size; i++) {
        heap[i] = i;
        siftUp(heap, vals, sel, sgn, i);
    }
    const top = sel === null ? undefined : reverseRuns.get(sel);
    const walk = sel === null || top !== undefined ? undefined : physicalWalk(sel, n, vals.length);
    if (walk !== undefined) {
        offerPhysical(heap, size, vals, sel!, sgn, walk.rank, walk.off, size, n, walk.lo, walk.hi);
    } else if (top !== undefined) {
        if (sgn < 0) offerDescReverse(heap, size, vals, sel!, top, size, n);
        else offerAscReverse(heap, size, vals, sel!, top, size, n);
    } else if (sgn < 0) offerDesc(heap, size, vals, sel, size, n);
    else offerAsc(heap, size, vals, sel, size, n);
    // Pop the worst row into the last free slot until the heap is empty: the rows in order.
    const out = new Uint32Array(size);
    for (let s = size; s > 0; s--) {
        out[s - 1] = heap[0];
        heap[0] = heap[s - 1];
        siftDown(heap, s - 1, vals, sel, sgn, 0);
    }
    return out;
}
