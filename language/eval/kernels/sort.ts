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
 * by anything finer). Rows already in order cost one pass. Else the rows are sorted natively by
 * (millisecond, row) packed into one exact double, and only runs that share a millisecond go
 * through `cmp`: a 70,000-row block of 7 batches out of order took 11 ms by the comparator, 4.5 ms so.
 */
export function timeOrder(ms: Float64Array, n: number, cmp: (a: number, b: number) => number): Uint32Array {
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    let sorted = true;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
        const m = ms[i];
        if (m < lo) lo = m;
        if (m > hi) hi = m;
        if (sorted && i > 0) {
            const d = m - ms[i - 1];
            if (d < 0 || d !== d) sorted = false;
            else if (d === 0) sorted = cmp(i - 1, i) <= 0;
        }
    }
    if (sorted) return order;
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

/** Whether every entry of `a` is 0. */
export function allZero(a: Int32Array, n: number): boolean {
    for (let i = 0; i < n; i++) if (a[i] !== 0) return false;
    return true;
}
