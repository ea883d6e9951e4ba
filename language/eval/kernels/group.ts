/**
 * Group-id kernels: dense group numbers (in order of first appearance) from dictionary codes,
 * small-range integers and binned times, without hashing or materialising key values. Module-level
 * functions over typed arrays so their optimized code survives major GCs (see select.ts).
 */
import { msOfWords } from './time.js';

/**
 * Group ids of dictionary codes; `dictLen` bounds the codes. Returns the number of groups;
 * first[g] receives group g's first row (first has dictLen slots). With and without a selection
 * are separate loops, each with its own type feedback (see kernels/aggregate.ts).
 */
export function codeGroupIds(codes: Uint32Array, sel: Uint32Array | null, n: number, dictLen: number, ids: Uint32Array, first: Uint32Array): number {
    const map = new Int32Array(dictLen).fill(-1);
    return sel === null ? codeGroupIdsAll(codes, n, map, ids, first) : codeGroupIdsSel(codes, sel, n, map, ids, first);
}

function codeGroupIdsAll(codes: Uint32Array, n: number, map: Int32Array, ids: Uint32Array, first: Uint32Array): number {
    let card = 0;
    for (let i = 0; i < n; i++) {
        const c = codes[i];
        let g = map[c];
        if (g < 0) {
            g = map[c] = card++;
            first[g] = i;
        }
        ids[i] = g;
    }
    return card;
}

function codeGroupIdsSel(codes: Uint32Array, sel: Uint32Array, n: number, map: Int32Array, ids: Uint32Array, first: Uint32Array): number {
    let card = 0;
    for (let i = 0; i < n; i++) {
        const c = codes[sel[i]];
        let g = map[c];
        if (g < 0) {
            g = map[c] = card++;
            first[g] = i;
        }
        ids[i] = g;
    }
    return card;
}

/** Group ids of small byte values (bools: 0, 1, 2 = null). */
export function byteGroupIds(vals: Uint8Array, sel: Uint32Array | null, n: number, ids: Uint32Array): number {
    const map = new Int32Array(256).fill(-1);
    let card = 0;
    for (let i = 0; i < n; i++) {
        const c = vals[sel === null ? i : sel[i]];
        let g = map[c];
        if (g < 0) g = map[c] = card++;
        ids[i] = g;
    }
    return card;
}

/**
 * min and max of values that may key a dense table: out = [min, max]. False when a row is null,
 * NaN or (times) has a sub-millisecond part.
 */
export function denseKeyRange(vals: Float64Array, nulls: Uint8Array | null, sub: Int32Array | null, sel: Uint32Array | null, n: number, out: Float64Array): boolean {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
        const j = sel === null ? i : sel[i];
        if (nulls !== null && nulls[j] === 1) return false;
        const x = vals[j];
        if (x !== x || (sub !== null && sub[j] !== 0)) return false;
        if (x < min) min = x;
        if (x > max) max = x;
    }
    out[0] = min;
    out[1] = max;
    return true;
}

/**
 * Group ids through a dense table of `size` slots: slot (x - min) / step. Returns the number of
 * groups, or -1 when a value is off the step grid.
 */
export function denseGroupIds(vals: Float64Array, sel: Uint32Array | null, n: number, min: number, step: number, size: number, ids: Uint32Array): number {
    const table = new Int32Array(size).fill(-1);
    let card = 0;
    for (let i = 0; i < n; i++) {
        const x = (vals[sel === null ? i : sel[i]] - min) / step;
        if (x !== Math.floor(x)) return -1;
        let g = table[x];
        if (g < 0) g = table[x] = card++;
        ids[i] = g;
    }
    return card;
}

/**
 * Bins seen so far, numbered as groups in order of first appearance: a table over the bins
 * [base, base + length) that grows (doubling) towards each new bin, up to `maxBins`.
 */
class BinGroups {
    private table = new Int32Array(0);
    private base = 0;
    card = 0;
    /** Each group's first row; it grows with the groups (a block of 70k rows has a few bins, not 70k). */
    private first = new Uint32Array(16);

    constructor(private readonly maxBins: number) {}

    /** The groups found: their count and first rows. */
    grouping(): BinGrouping {
        return { card: this.card, first: this.first.subarray(0, this.card) };
    }

    /** Bin b's group (a new one gets row i as its first), or -1 when the bins would span more than maxBins. */
    groupOf(b: number, i: number): number {
        let off = b - this.base;
        if (off < 0 || off >= this.table.length) {
            const { table, base } = this;
            // Grow (doubling) towards b; the kept bins move to their new offsets.
            const from = table.length === 0 ? b : Math.min(base, b);
            const to = table.length === 0 ? b + 1 : Math.max(base + table.length, b + 1);
            if (to - from > this.maxBins) return -1;
            const size = Math.min(this.maxBins, Math.max(to - from, 2 * table.length, 64));
            const nextBase = b < base ? to - size : from;
            const next = new Int32Array(size).fill(-1);
            if (table.length > 0) next.set(table, base - nextBase);
            this.table = next;
            this.base = nextBase;
            off = b - nextBase;
        }
        let g = this.table[off];
        if (g < 0) {
            g = this.table[off] = this.card++;
            if (g === this.first.length) {
                const grown = new Uint32Array(2 * g);
                grown.set(this.first);
                this.first = grown;
            }
            this.first[g] = i;
        }
        return g;
    }
}

/** Groups of binned times: how many, and each one's first row (a view of length `card`). */
export interface BinGrouping {
    card: number;
    first: Uint32Array;
}

/**
 * Group ids of times binned by `step` ms (floor), straight from the millisecond column: the same
 * groups as binning first, without the binned column. Undefined when a row is null or the bins
 * span more than `maxBins`.
 */
export function binnedTimeGroupIds(ms: Float64Array, sel: Uint32Array | null, n: number, step: number, maxBins: number, ids: Uint32Array): BinGrouping | undefined {
    const bins = new BinGroups(maxBins);
    // The previous row's bin [lo, hi) and group: time-ordered rows mostly stay in it, and then
    // skip the division and the table. Only bins below 2^50 ms are used so (exact bounds).
    let lo = Infinity;
    let hi = -Infinity;
    let g = 0;
    for (let i = 0; i < n; i++) {
        const m = ms[sel === null ? i : sel[i]];
        if (m >= lo && m < hi) {
            ids[i] = g;
            continue;
        }
        if (m !== m) return undefined;
        const b = Math.floor(m / step);
        g = bins.groupOf(b, i);
        if (g < 0) return undefined;
        ids[i] = g;
        if (m > -(2 ** 50) && m < 2 ** 50) {
            lo = b * step;
            hi = lo + step;
        } else {
            lo = Infinity;
            hi = -Infinity;
        }
    }
    return bins.grouping();
}

/**
 * binnedTimeGroupIds over times as stored, int64 ns (little-endian: `words` is their Int32Array
 * view, low word first), without splitting every row into ms and ns first: a row within the
 * previous row's bin costs two comparisons of words, only a row in another bin is converted.
 * Blocks keep their rows in time order, so that is about one row a bin.
 */
export function binnedNsGroupIds(words: Int32Array, sel: Uint32Array | null, n: number, step: number, maxBins: number, ids: Uint32Array): BinGrouping | undefined {
    const bins = new BinGroups(maxBins);
    // The previous row's bin [start, end) as (high word, low word unsigned); empty at first.
    let sHi = 1;
    let sLo = 0;
    let eHi = 0;
    let eLo = 0;
    let g = 0;
    for (let i = 0; i < n; i++) {
        const s = sel === null ? i : sel[i];
        const lo = words[2 * s] >>> 0;
        const hi = words[2 * s + 1];
        if ((hi > sHi || (hi === sHi && lo >= sLo)) && (hi < eHi || (hi === eHi && lo < eLo))) {
            ids[i] = g;
            continue;
        }
        const b = Math.floor(msOfWords(lo, hi) / step);
        g = bins.groupOf(b, i);
        if (g < 0) return undefined;
        ids[i] = g;
        const start = b * step;
        // Bounds only where start · 10^6 and end · 10^6 ns are int64s (years 1685 to 2255).
        if (start > -9e12 && start + step < 9e12) {
            nsWords(start);
            sHi = SCRATCH_WORDS[1];
            sLo = SCRATCH_WORDS[0] >>> 0;
            nsWords(start + step);
            eHi = SCRATCH_WORDS[1];
            eLo = SCRATCH_WORDS[0] >>> 0;
        } else {
            sHi = 1;
            sLo = eHi = eLo = 0;
        }
    }
    return bins.grouping();
}

const SCRATCH_NS = new BigInt64Array(1);
const SCRATCH_WORDS = new Int32Array(SCRATCH_NS.buffer);

/** Writes the int64 ns of whole milliseconds `ms` into SCRATCH_WORDS (little-endian; once a bin). */
function nsWords(ms: number): void {
    SCRATCH_NS[0] = BigInt(ms) * 1_000_000n;
}

/** Combined ids of two groupings through a dense table of card·nextCard slots. */
export function combineIdsDense(ids: Uint32Array, next: Uint32Array, nextCard: number, n: number, size: number, out: Uint32Array): number {
    const map = new Int32Array(size).fill(-1);
    let count = 0;
    for (let i = 0; i < n; i++) {
        const key = ids[i] * nextCard + next[i];
        let g = map[key];
        if (g < 0) g = map[key] = count++;
        out[i] = g;
    }
    return count;
}

/** The first row of each group. */
export function firstRows(ids: Uint32Array, n: number, card: number): Uint32Array {
    const first = new Uint32Array(card).fill(0xffffffff);
    let left = card;
    for (let i = 0; i < n && left > 0; i++) {
        const g = ids[i];
        if (first[g] === 0xffffffff) {
            first[g] = i;
            left--;
        }
    }
    return first;
}
