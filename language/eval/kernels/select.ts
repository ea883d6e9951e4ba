/**
 * Row-selection kernels: predicate masks over typed arrays and the masks turned into row indexes.
 *
 * Why kernel modules (this folder): every hot loop of the evaluator is a module-level function that
 * takes only typed arrays and numbers. Optimized code for a loop that reads per-query objects
 * (columns, closures, vectors) embeds them weakly, so the first major GC after the query
 * deoptimizes it ("weak objects") and the next query runs its 1M-row loop in the interpreter until
 * on-stack replacement. Kernels have nothing per-query to embed, so their optimized code survives
 * GCs. `sel` is a selection vector (logical row -> physical row), or null for identity.
 */

/** out[i] = t when the code of logical row i is `code`, else f (tri-state bytes). */
export function codesEqual(codes: Uint32Array, sel: Uint32Array | null, n: number, code: number, t: number, f: number): Uint8Array {
    const out = new Uint8Array(n);
    if (sel === null) for (let i = 0; i < n; i++) out[i] = codes[i] === code ? t : f;
    else for (let i = 0; i < n; i++) out[i] = codes[sel[i]] === code ? t : f;
    return out;
}

/** out[i] = table[code of logical row i]: a predicate evaluated once per dictionary entry. */
export function codesLookup(codes: Uint32Array, sel: Uint32Array | null, n: number, table: Uint8Array): Uint8Array {
    const out = new Uint8Array(n);
    if (sel === null) for (let i = 0; i < n; i++) out[i] = table[codes[i]];
    else for (let i = 0; i < n; i++) out[i] = table[codes[sel[i]]];
    return out;
}

/** out[i] = src[sel[i]]: a byte column seen through a selection. */
export function gatherBytes(src: Uint8Array, sel: Uint32Array, n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = src[sel[i]];
    return out;
}

/** Number equality with a constant: `t`/`f` per row; null rows give `nullOut`. */
export function numEqual(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, n: number, k: number, t: number, f: number, nullOut: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        out[i] = nulls !== null && nulls[j] === 1 ? nullOut : vals[j] === k ? t : f;
    }
    return out;
}

/** The comparison operators of numCompare, as numbers: the kernel switches on a number, not a string. */
const CMP_LT = 0;
const CMP_LE = 1;
const CMP_GT = 2;
const CMP_GE = 3;

export function cmpOpCode(op: string): number {
    switch (op) {
        case '<': return CMP_LT;
        case '<=': return CMP_LE;
        case '>': return CMP_GT;
        default: return CMP_GE;
    }
}

/** `x op k` per row as tri-states (null rows are 2). NaN compares false, as in `x < k`. */
export function numCompare(vals: Float64Array, nulls: Uint8Array | null, sel: Uint32Array | null, n: number, op: number, k: number): Uint8Array {
    const out = new Uint8Array(n);
    // One loop per operator: the test is then a single compare per row.
    switch (op) {
        case CMP_LT: for (let i = 0; i < n; i++) out[i] = vals[sel === null ? i : sel[i]] < k ? 1 : 0; break;
        case CMP_LE: for (let i = 0; i < n; i++) out[i] = vals[sel === null ? i : sel[i]] <= k ? 1 : 0; break;
        case CMP_GT: for (let i = 0; i < n; i++) out[i] = vals[sel === null ? i : sel[i]] > k ? 1 : 0; break;
        default: for (let i = 0; i < n; i++) out[i] = vals[sel === null ? i : sel[i]] >= k ? 1 : 0; break;
    }
    if (nulls !== null) for (let i = 0; i < n; i++) if (nulls[sel === null ? i : sel[i]] === 1) out[i] = 2;
    return out;
}

/** How many entries of `t` are 1 (true). */
export function countTrue(t: Uint8Array, n: number): number {
    let m = 0;
    for (let i = 0; i < n; i++) if (t[i] === 1) m++;
    return m;
}

/** The positions where `t` is 1, given their count `m` (branch-free, as tableMatchRows). */
export function trueIndexes(t: Uint8Array, n: number, m: number): Uint32Array {
    const idx = new Uint32Array(m + 1);
    let k = 0;
    for (let i = 0; i < n && k < m; i++) {
        idx[k] = i;
        // Tri-states 0, 1, 2: bit 0 is set for true only.
        k += t[i] & 1;
    }
    return idx.subarray(0, m);
}

/** Composes selections: out[i] = sel[idx[i]]. */
export function composeSel(sel: Uint32Array, idx: Uint32Array): Uint32Array {
    const n = idx.length;
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) out[i] = sel[idx[i]];
    return out;
}

/** Tri-state and / or / not over byte vectors (0 false, 1 true, 2 null). */
export function triAnd(x: Uint8Array, y: Uint8Array, n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
        const p = x[i];
        const q = y[i];
        out[i] = p === 0 || q === 0 ? 0 : p === 2 || q === 2 ? 2 : 1;
    }
    return out;
}

export function triOr(x: Uint8Array, y: Uint8Array, n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
        const p = x[i];
        const q = y[i];
        out[i] = p === 1 || q === 1 ? 1 : p === 2 || q === 2 ? 2 : 0;
    }
    return out;
}

export function triNot(x: Uint8Array, n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
        const a = x[i];
        out[i] = a === 2 ? 2 : a === 1 ? 0 : 1;
    }
    return out;
}

/**
 * The logical rows whose code maps to 1 in `table` (a 0/1 predicate evaluated once per dictionary
 * entry), without a per-row mask. Branch-free: every row is written at the cursor, which moves
 * on only for a match; a data-dependent branch mispredicts on about half the rows of a 50% filter.
 * With and without a selection are separate loops, each with its own type feedback.
 */
export function tableMatchRows(codes: Uint32Array, sel: Uint32Array | null, n: number, table: Uint8Array): Uint32Array {
    const buf = new Uint32Array(n);
    const k = sel === null ? tableMatchAll(codes, n, table, buf) : tableMatchSel(codes, sel, n, table, buf);
    // A view when it keeps most of the buffer (no copy), else a copy (the buffer is freed).
    return 4 * k >= n ? buf.subarray(0, k) : buf.slice(0, k);
}

function tableMatchAll(codes: Uint32Array, n: number, table: Uint8Array, buf: Uint32Array): number {
    let k = 0;
    for (let i = 0; i < n; i++) {
        buf[k] = i;
        k += table[codes[i]];
    }
    return k;
}

function tableMatchSel(codes: Uint32Array, sel: Uint32Array, n: number, table: Uint8Array, buf: Uint32Array): number {
    let k = 0;
    for (let i = 0; i < n; i++) {
        buf[k] = i;
        k += table[codes[sel[i]]];
    }
    return k;
}

/** How many of the logical rows tableMatchRows would list (a third of its time: nothing is written). */
export function tableCountRows(codes: Uint32Array, sel: Uint32Array | null, n: number, table: Uint8Array): number {
    return sel === null ? tableCountAll(codes, n, table) : tableCountSel(codes, sel, n, table);
}

function tableCountAll(codes: Uint32Array, n: number, table: Uint8Array): number {
    let k = 0;
    for (let i = 0; i < n; i++) k += table[codes[i]];
    return k;
}

function tableCountSel(codes: Uint32Array, sel: Uint32Array, n: number, table: Uint8Array): number {
    let k = 0;
    for (let i = 0; i < n; i++) k += table[codes[sel[i]]];
    return k;
}
