/**
 * Per-group aggregation kernels: `gids[i]` is the group of logical row i, `sel` maps logical rows
 * to physical rows of the value arrays (null: identity). Module-level functions over typed arrays
 * so their optimized code survives major GCs (see select.ts).
 */

/**
 * Whether consecutive rows mostly share a group (keys such as bin(_time) over time-ordered rows),
 * judged on the first rows. Then a kernel keeps the current group's state in locals: otherwise
 * each row's update waits on the previous row's store to the same slot. With short runs the
 * group-change branch would mispredict instead, so the plain loop stays.
 */
function longRuns(gids: Uint32Array, n: number): boolean {
    const m = Math.min(n, 1024);
    let changes = 0;
    for (let i = 1; i < m; i++) if (gids[i] !== gids[i - 1]) changes++;
    return changes * 8 < m;
}

/*
 * Each loop shape is its own function (one group, long runs, plain) rather than a branch of one
 * kernel: a branch that has not run yet has no type feedback, and reaching it later deoptimizes
 * the whole kernel mid-loop. The exported functions only pick the shape.
 */

/** Rows per group. */
export function countByGroup(gids: Uint32Array, n: number, G: number): Float64Array {
    const out = new Float64Array(G);
    if (G === 1) out[0] = n;
    else if (longRuns(gids, n)) countRuns(gids, n, out);
    else countRows(gids, n, out);
    return out;
}

function countRows(gids: Uint32Array, n: number, out: Float64Array): void {
    for (let i = 0; i < n; i++) out[gids[i]]++;
}

/** Counts each run of equal ids at once (see longRuns). */
function countRuns(gids: Uint32Array, n: number, out: Float64Array): void {
    let start = 0;
    for (let i = 1; i < n; i++) {
        if (gids[i] !== gids[start]) {
            out[gids[start]] += i - start;
            start = i;
        }
    }
    if (n > 0) out[gids[start]] += n - start;
}

/** Rows per group where t[i] is 1. */
export function countTrueByGroup(t: Uint8Array, gids: Uint32Array, n: number, G: number): Float64Array {
    const out = new Float64Array(G);
    for (let i = 0; i < n; i++) if (t[i] === 1) out[gids[i]]++;
    return out;
}

/**
 * Sums and counts of the non-null values per group (into `sums`, `counts`). Every shape adds a
 * group's values in row order, so sums are the same to the last bit.
 */
export function sumCountByGroup(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sums: Float64Array, counts: Float64Array): void {
    if (sums.length === 1) sumCountOne(vals, nulls, sel, n, sums, counts);
    else if (longRuns(gids, n)) sumCountRuns(vals, nulls, sel, gids, n, sums, counts);
    else sumCountRows(vals, nulls, sel, gids, n, sums, counts);
}

/** One group (a summarize without keys, the totals row): no gids to read. */
function sumCountOne(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, n: number, sums: Float64Array, counts: Float64Array): void {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        sum += vals[j];
        count++;
    }
    sums[0] = sum;
    counts[0] = count;
}

/** The current group's running sum in locals (see longRuns). */
function sumCountRuns(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sums: Float64Array, counts: Float64Array): void {
    let cur = -1;
    let sum = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const g = gids[i];
        if (g !== cur) {
            if (cur >= 0) {
                sums[cur] = sum;
                counts[cur] = count;
            }
            cur = g;
            sum = sums[g];
            count = counts[g];
        }
        sum += vals[j];
        count++;
    }
    if (cur >= 0) {
        sums[cur] = sum;
        counts[cur] = count;
    }
}

function sumCountRows(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sums: Float64Array, counts: Float64Array): void {
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const g = gids[i];
        sums[g] += vals[j];
        counts[g]++;
    }
}

/** The max (sign 1) or min (sign -1) of non-null, non-NaN values per group; seen[g] = 1 when any. */
export function extremeByGroup(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sign: number, best: Float64Array, seen: Uint8Array): void {
    if (best.length === 1) extremeOne(vals, nulls, sel, n, sign, best, seen);
    else if (longRuns(gids, n)) extremeRuns(vals, nulls, sel, gids, n, sign, best, seen);
    else extremeRows(vals, nulls, sel, gids, n, sign, best, seen);
}

/** One group: no gids to read. */
function extremeOne(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, n: number, sign: number, best: Float64Array, seen: Uint8Array): void {
    let b = 0;
    let any = false;
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const x = vals[j];
        if (x !== x) continue;
        if (!any || (sign > 0 ? x > b : x < b)) {
            b = x;
            any = true;
        }
    }
    best[0] = b;
    seen[0] = any ? 1 : 0;
}

/** The current group's best in locals (see longRuns). */
function extremeRuns(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sign: number, best: Float64Array, seen: Uint8Array): void {
    let cur = -1;
    let b = 0;
    let sn = 0;
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const x = vals[j];
        if (x !== x) continue;
        const g = gids[i];
        if (g !== cur) {
            if (cur >= 0) {
                best[cur] = b;
                seen[cur] = sn;
            }
            cur = g;
            b = best[g];
            sn = seen[g];
        }
        if (sn === 0 || (sign > 0 ? x > b : x < b)) {
            b = x;
            sn = 1;
        }
    }
    if (cur >= 0) {
        best[cur] = b;
        seen[cur] = sn;
    }
}

function extremeRows(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, sign: number, best: Float64Array, seen: Uint8Array): void {
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const x = vals[j];
        if (x !== x) continue;
        const g = gids[i];
        if (seen[g] === 0 || (sign > 0 ? x > best[g] : x < best[g])) {
            best[g] = x;
            seen[g] = 1;
        }
    }
}

/** The latest (sign 1) or earliest (sign -1) time per group; `outMs` starts as NaN (null). */
export function timeExtremeByGroup(ms: Float64Array, sub: Int32Array, sel: Uint32Array | null, gids: Uint32Array, n: number, sign: number, outMs: Float64Array, outSub: Int32Array): void {
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        const m = ms[j];
        if (m !== m) continue;
        const g = gids[i];
        const bm = outMs[g];
        const s = sub[j];
        if (bm !== bm || (sign > 0 ? m > bm || (m === bm && s > outSub[g]) : m < bm || (m === bm && s < outSub[g]))) {
            outMs[g] = m;
            outSub[g] = s;
        }
    }
}

/** Distinct non-null codes per group through a G·D bitmap (`seen`, zeroed). */
export function dcountCodesDense(codes: Uint32Array, sel: Uint32Array | null, gids: Uint32Array, n: number, D: number, seen: Uint8Array, out: Float64Array): void {
    for (let i = 0; i < n; i++) {
        const c = codes[sel === null ? i : sel[i]];
        if (c === 0) continue;
        const g = gids[i];
        const k = g * D + c;
        if (seen[k] === 0) {
            seen[k] = 1;
            out[g]++;
        }
    }
}

/** Distinct non-null codes when there is one group: a D-entry bitmap. */
export function dcountCodesOne(codes: Uint32Array, sel: Uint32Array | null, n: number, D: number): number {
    const seen = new Uint8Array(D);
    let m = 0;
    for (let i = 0; i < n; i++) {
        const c = codes[sel === null ? i : sel[i]];
        if (c !== 0 && seen[c] === 0) {
            seen[c] = 1;
            m++;
        }
    }
    return m;
}

/**
 * Bucketed copy of the non-null, non-NaN values: counts[g + 1] first receives group g's count,
 * then becomes the running offset, so group g's values end up in all[counts[g], counts[g + 1]).
 */
export function bucketValuesByGroup(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, gids: Uint32Array, n: number, G: number, counts: Uint32Array): Float64Array {
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const x = vals[j];
        if (x !== x) continue;
        counts[gids[i] + 1]++;
    }
    for (let g = 0; g < G; g++) counts[g + 1] += counts[g];
    const pos = counts.slice(0, G);
    const all = new Float64Array(counts[G]);
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) continue;
        const x = vals[j];
        if (x !== x) continue;
        all[pos[gids[i]]++] = x;
    }
    return all;
}

/** The k-th smallest value (0-based) of `a`, partially reordering it (Hoare selection, median of three). */
export function quickselect(a: Float64Array, k: number): number {
    let lo = 0;
    let hi = a.length - 1;
    while (hi > lo) {
        if (hi - lo < 16) {
            for (let i = lo + 1; i <= hi; i++) {
                const x = a[i];
                let j = i - 1;
                while (j >= lo && a[j] > x) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = x;
            }
            return a[k];
        }
        const mid = (lo + hi) >>> 1;
        // Median of three as the pivot.
        let x = a[lo], y = a[mid];
        const z = a[hi];
        if (x > y) { const t = x; x = y; y = t; }
        if (y > z) { y = z; }
        if (x > y) { y = x; }
        const pivot = y;
        let i = lo;
        let j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                const t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}
