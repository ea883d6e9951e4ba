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

/** Whether every entry of `a` is 0. */
export function allZero(a: Int32Array, n: number): boolean {
    for (let i = 0; i < n; i++) if (a[i] !== 0) return false;
    return true;
}
