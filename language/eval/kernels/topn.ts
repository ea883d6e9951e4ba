/**
 * Top-N over one numeric key without nulls: a bounded binary heap of logical row numbers in a
 * typed array. Module-level functions over typed arrays so their optimized code survives major
 * GCs (see select.ts); the comparison is inlined rather than a per-query comparator closure.
 *
 * Order: the value order of `comparatorFor` (NaN after every number ascending, before them
 * descending), ties by row number, so the result equals a stable sort's first k rows.
 */

import { zoneBounds } from './zone-bounds.js';

/** Physical rows per zone of a walk (the blocks of zone-maps.ts). */
const ZONE_ROWS = 65_536;

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

/** What the last zone walk read (tests look at it: a `top` reads the zones that may hold a winner). */
export const lastWalk = { zones: 0, rows: 0 };

/**
 * Offers the selection's rows to a full heap by walking their physical rows [lo, hi) zone by zone
 * (`zoneRows` rows each), the zones that may hold the best value first, and stops at the first
 * zone whose bound (zone-bounds.ts) cannot beat the worst kept row: the zones after it cannot
 * either. Within a zone the rows are read in storage order, without the selection: logical row
 * `i` of physical row p is `base - p` (`rank` null: a newest-first run of rows in time order, see
 * markReverseRun) or `rank[p] - base` (a run of a permuted order, see markPermutedRun); a row out
 * of [0, m) is not selected, one below `from` is in the heap already. Rows are met out of logical
 * order, so equal values take the full compare (which breaks ties by position).
 */
function offerZones(heap: Uint32Array, size: number, vals: Float64Array, sel: Uint32Array, sgn: number, rank: Uint32Array | null, base: number, from: number, m: number, lo: number, hi: number, zoneRows: number): void {
    const z0 = Math.floor(lo / zoneRows);
    const nz = Math.ceil(hi / zoneRows) - z0;
    const mins = new Float64Array(nz);
    const maxs = new Float64Array(nz);
    const nans = new Uint8Array(nz);
    zoneBounds(vals, zoneRows, z0, z0 + nz, mins, maxs, nans);
    // Best zones first: descending, those with a NaN (it sorts first), then by largest value; ascending, by smallest.
    const order = Array.from({ length: nz }, (_, z) => z);
    if (sgn < 0) order.sort((a, b) => nans[b] - nans[a] || (maxs[b] > maxs[a] ? 1 : maxs[b] < maxs[a] ? -1 : a - b));
    else order.sort((a, b) => (mins[a] < mins[b] ? -1 : mins[a] > mins[b] ? 1 : a - b));
    // The skip test is `x < w` (descending) or `x > w`, written as one compare: s * x < s * w.
    const s = sgn < 0 ? 1 : -1;
    let w = vals[sel[heap[0]]];
    let zones = 0;
    let rows = 0;
    for (const z of order) {
        // Nothing in this zone can beat the worst kept row (NaN sorts first descending, last ascending).
        if (sgn < 0 ? nans[z] === 0 && (w !== w || maxs[z] < w) : w === w && mins[z] > w) break;
        const a = Math.max(lo, (z0 + z) * zoneRows);
        const b = Math.min(hi, (z0 + z + 1) * zoneRows);
        zones++;
        rows += b - a;
        let sw = s * w;
        for (let p = a; p < b; p++) {
            if (s * vals[p] < sw) continue;
            const i = rank === null ? base - p : rank[p] - base;
            if (i < from || i >= m) continue;
            if (cmpRows(vals, sel, sgn, i, heap[0]) < 0) {
                heap[0] = i;
                siftDown(heap, size, vals, sel, sgn, 0);
                w = vals[sel[heap[0]]];
                sw = s * w;
            }
        }
    }
    lastWalk.zones = zones;
    lastWalk.rows = rows;
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

/**
 * How `topNumeric` walks a marked permuted run of `n` rows physically: rows [lo, hi), or undefined
 * to gather. A walk reads at most every row of its span: worth it while the selection is most of
 * them, or, for a top of `k` rows that few zones of the span hold (offerZones), while the selection
 * is a fair share of them (a part of a parallel scan over shuffled rows: a run of the time order
 * whose rows lie anywhere).
 */
export function physicalWalk(sel: Uint32Array, n: number, valsLength: number, k = Infinity, zoneRows = ZONE_ROWS): { rank: Uint32Array; off: number; lo: number; hi: number } | undefined {
    const run = permutedRuns.get(sel);
    if (run === undefined || run.rows > valsLength) return undefined;
    const [lo, hi] = run.span?.() ?? [0, run.rows];
    const span = hi - lo;
    if (span * 2 > n * 3 && !(span <= n * 8 && zonesPrune(k, span, zoneRows))) return undefined;
    return { rank: run.rank(), off: run.off, lo, hi };
}

/**
 * Whether a top of `k` rows over `rows` physical rows is expected to read few of their zones: the
 * k winners lie in at most k zones, and the walk stops once the zones left cannot beat them.
 */
export function zonesPrune(k: number, rows: number, zoneRows = ZONE_ROWS): boolean {
    return k * 8 <= rows / zoneRows;
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

/**
 * The logical rows of the first `k` of `n` rows in order (ascending when sgn is 1). A marked run of
 * a dataset's rows is walked by zones of `zoneRows` physical rows (offerZones; tests give small ones).
 */
export function topNumeric(vals: Float64Array, sel: Uint32Array | null, n: number, k: number, sgn: number, zoneRows = ZONE_ROWS): Uint32Array {
    if (k <= 0 || n === 0) return new Uint32Array(0);
    // Max-heap of the best k (the root is the worst kept row), filled with the first rows.
    const size = Math.min(k, n);
    const heap = new Uint32Array(size);
    for (let i = 0; i < size; i++) {
        heap[i] = i;
        siftUp(heap, vals, sel, sgn, i);
    }
    const top = sel === null ? undefined : reverseRuns.get(sel);
    const walk = sel === null || top !== undefined ? undefined : physicalWalk(sel, n, vals.length, k, zoneRows);
    if (walk !== undefined) offerZones(heap, size, vals, sel!, sgn, walk.rank, walk.off, size, n, walk.lo, walk.hi, zoneRows);
    else if (top !== undefined && top < vals.length) offerZones(heap, size, vals, sel!, sgn, null, top, size, n, top - n + 1, top + 1, zoneRows);
    else if (sgn < 0) offerDesc(heap, size, vals, sel, size, n);
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
