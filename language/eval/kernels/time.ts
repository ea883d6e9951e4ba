/**
 * Time kernels over the millisecond part of a time column (see columns.ts: TimeColumn). Module-level
 * functions over typed arrays so their optimized code survives major GCs (see select.ts).
 */

/** out[i] = floor(ms / step) · step: `bin(t, step)` when step is whole milliseconds (NaN stays NaN). */
export function binMs(ms: Float64Array, sel: Uint32Array | null, n: number, step: number): Float64Array {
    const out = new Float64Array(n);
    if (sel === null) for (let i = 0; i < n; i++) out[i] = Math.floor(ms[i] / step) * step;
    else for (let i = 0; i < n; i++) out[i] = Math.floor(ms[sel[i]] / step) * step;
    return out;
}
