/**
 * Time kernels over the millisecond part of a time column (see columns.ts: TimeColumn), and over
 * times as stored (int64 ns). Module-level functions over typed arrays so their optimized code
 * survives major GCs (see select.ts).
 */
import { splitNs } from '../columns.js';

/** out[i] = floor(ms / step) · step: `bin(t, step)` when step is whole milliseconds (NaN stays NaN). */
export function binMs(ms: Float64Array, sel: Uint32Array | null, n: number, step: number): Float64Array {
    const out = new Float64Array(n);
    if (sel === null) for (let i = 0; i < n; i++) out[i] = Math.floor(ms[i] / step) * step;
    else for (let i = 0; i < n; i++) out[i] = Math.floor(ms[sel[i]] / step) * step;
    return out;
}

export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Splits ns times into (ms, ns within the ms) without BigInt arithmetic (msOfWords).
 * Rows of `sub` from `touched` on are still zero: a zero is not written there (see `timeSubTouched`).
 * Returns the new `touched`.
 */
export function splitTimes(times: BigInt64Array | readonly bigint[], sel: ArrayLike<number> | null, n: number, ms: Float64Array, sub: Int32Array, at: number, touched: number): number {
    if (times instanceof BigInt64Array && LITTLE_ENDIAN) return splitTimeWords(new Int32Array(times.buffer, times.byteOffset, times.length * 2), sel, n, ms, sub, at, touched);
    const dirty = at < touched;
    let wrote = false;
    for (let i = 0; i < n; i++) {
        const [a, b] = splitNs(times[sel === null ? i : sel[i]]);
        ms[at + i] = a;
        if (b !== 0 || dirty) {
            sub[at + i] = b;
            wrote = true;
        }
    }
    return wrote ? Math.max(touched, at + n) : touched;
}

/** splitTimes over int64 ns given as little-endian words (low word first; see TimeColumn.nsWords). */
export function splitTimeWords(w: Int32Array, sel: ArrayLike<number> | null, n: number, ms: Float64Array, sub: Int32Array, at: number, touched: number): number {
    const dirty = at < touched;
    let wrote = false;
    for (let i = 0; i < n; i++) {
        const s = sel === null ? i : sel[i];
        const lo = w[2 * s] >>> 0;
        const hi = w[2 * s + 1];
        const m = msOfWords(lo, hi);
        ms[at + i] = m;
        // The ns within the ms: what the whole ms leave of hi · 967296 + lo (exact doubles, as there).
        const rest = hi * 967296 + lo - (m - hi * 4294) * 1e6;
        if (rest !== 0 || dirty) {
            sub[at + i] = rest;
            wrote = true;
        }
    }
    return wrote ? Math.max(touched, at + n) : touched;
}

/**
 * floor(ns / 10^6) of an int64 ns given as its words (high signed, low unsigned), exact without
 * BigInt: the int64 is hi · 2^32 + lo, and 2^32 = 4294 · 10^6 + 967296, so every step stays an
 * exact double.
 */
export function msOfWords(lo: number, hi: number): number {
    const r = hi * 967296 + lo;
    const q = Math.floor(r / 1e6);
    const rest = r - q * 1e6;
    return hi * 4294 + (rest < 0 ? q - 1 : rest >= 1e6 ? q + 1 : q);
}
