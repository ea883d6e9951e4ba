/**
 * Ordering kernels over typed arrays (module-level so their optimized code survives major GCs,
 * see select.ts); no comparator closures.
 */

/**
 * The permutation that orders `G` distinct, non-NaN values ascending; undefined when a value is
 * NaN or two are equal. Group keys come in order of first appearance, which for time-ordered rows is already
 * monotone: that case costs one pass.
 */
export function ascendingPerm(vals: Float64Array, G: number): Uint32Array | undefined {
    let asc = true;
    let desc = true;
    for (let g = 0; g < G; g++) {
        const b = vals[g];
        if (b !== b) return undefined;
        if (g > 0) {
            const a = vals[g - 1];
            if (!(a < b)) asc = false;
            if (!(a > b)) desc = false;
        }
    }
    const perm = new Uint32Array(G);
    if (asc) for (let g = 0; g < G; g++) perm[g] = g;
    else if (desc) for (let g = 0; g < G; g++) perm[g] = G - 1 - g;
    else {
        // Distinct values: sort them natively, then find each one's group.
        const sorted = vals.slice(0, G).sort();
        const at = new Map<number, number>();
        for (let g = 0; g < G; g++) at.set(vals[g], g);
        if (at.size < G) return undefined; // not distinct after all: the caller's comparator sort
        for (let k = 0; k < G; k++) perm[k] = at.get(sorted[k])!;
    }
    return perm;
}

/**
 * The rows 0..n-1 in the order of `cmp`, which orders rows by their millisecond `ms` first (then
 * by anything finer). Rows already in order cost one pass. Rows that come as a few runs in order
 * (batches appended out of order) are merged run by run. Else the rows are sorted natively by
 * (millisecond, row) packed into one exact double, and only runs that share a millisecond go
 * through `cmp`: a 70,000-row block of 7 batches out of order took 11 ms by the comparator, 4.5 ms so.
 */
export function timeOrder(ms: Float64Array, n: number, cmp: (a: number, b: number) => number): Uint32Array {
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    let lo = Infinity;
    let hi = -Infinity;
    let nan = false;
    /** Where each run in order starts, while there are few of them. */
    const starts = [0];
    for (let i = 0; i < n; i++) {
        const m = ms[i];
        if (m < lo) lo = m;
        if (m > hi) hi = m;
        if (m !== m) nan = true;
        if (i > 0 && starts.length <= MAX_MERGED_RUNS) {
            const d = m - ms[i - 1];
            if (d < 0 || d !== d || (d === 0 && cmp(i - 1, i) > 0)) starts.push(i);
        }
    }
    if (starts.length === 1) return order;
    if (starts.length <= MAX_MERGED_RUNS && !nan) return mergeRuns(order, starts, ms, cmp);
    // Row numbers take the low bits of the key; the milliseconds (from the first) must fit above them exactly.
    const scale = 2 ** (32 - Math.clz32(Math.max(1, n - 1)));
    if (!(Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && (hi - lo + 1) * scale <= Number.MAX_SAFE_INTEGER)) return order.sort(cmp);
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
        const m = ms[i];
        if (!Number.isInteger(m)) return order.sort(cmp);
        keys[i] = (m - lo) * scale + i;
    }
    keys.sort();
    for (let k = 0; k < n; k++) {
        const key = keys[k];
        order[k] = key - Math.floor(key / scale) * scale;
    }
    // Rows of one millisecond are in row order: what orders them further is the comparator's.
    let start = 0;
    for (let k = 1; k <= n; k++) {
        if (k < n && ms[order[k]] === ms[order[start]]) continue;
        if (k - start > 1) order.subarray(start, k).sort(cmp);
        start = k;
    }
    return order;
}

/** Runs in order past this many are sorted whole instead (a merge pass per doubling of runs). */
const MAX_MERGED_RUNS = 64;

/** The rows `order` (runs in order beginning at `starts`) merged pairwise until one run is left; ties keep the earlier run's row first. */
function mergeRuns(order: Uint32Array, starts: number[], ms: Float64Array, cmp: (a: number, b: number) => number): Uint32Array {
    const n = order.length;
    let src: Uint32Array = order;
    let dst: Uint32Array = new Uint32Array(n);
    let runs = [...starts, n];
    while (runs.length > 2) {
        const next = [0];
        for (let r = 0; r + 1 < runs.length; r += 2) {
            const a0 = runs[r];
            const a1 = runs[r + 1];
            const b1 = r + 2 < runs.length ? runs[r + 2] : a1;
            let i = a0;
            let j = a1;
            let k = a0;
            while (i < a1 && j < b1) {
                const x = src[i];
                const y = src[j];
                const mx = ms[x];
                const my = ms[y];
                if (my < mx || (my === mx && cmp(y, x) < 0)) {
                    dst[k++] = y;
                    j++;
                } else {
                    dst[k++] = x;
                    i++;
                }
            }
            while (i < a1) dst[k++] = src[i++];
            while (j < b1) dst[k++] = src[j++];
            next.push(b1);
        }
        runs = next;
        [src, dst] = [dst, src];
    }
    return src;
}

/** Whether every entry of `a` is 0. */
export function allZero(a: Int32Array, n: number): boolean {
    for (let i = 0; i < n; i++) if (a[i] !== 0) return false;
    return true;
}
