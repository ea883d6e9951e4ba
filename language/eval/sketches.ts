/**
 * Mergeable sketches for the aggregations whose exact state grows with the data (merge-states.ts
 * uses them once the exact states pass their memory budget):
 *
 * - `HyperLogLog`: distinct counts (dcount). Our own, because no maintained HyperLogLog library on
 *   npm fits (looked at 2026-11): bloom-filters 3.0.4 has one among its filters, with eight runtime
 *   dependencies, the raw estimator of 2007 with its 32-bit corrections, and counts reported wrong
 *   (Callidon/bloom-filters#69); hyperloglog 0.1.2 hashes with a native Node binding (no browser);
 *   hyperloglog-lite 1.0.2 with a 32-bit hash. This one follows Flajolet, Fusy, Gandouet, Meunier,
 *   "HyperLogLog: the analysis of a near-optimal cardinality estimation algorithm" (AofA 2007), with
 *   2^p one-byte registers over a 64-bit hash (so no large-range correction is needed) and the
 *   estimator of Ertl, "New cardinality estimation algorithms for HyperLogLog sketches"
 *   (arXiv:1702.01284, 2017, algorithm 6: the "improved raw estimator"), which needs no empirical
 *   bias tables and is unbiased from 0 to far past 2^32. Relative standard error 1.04/√(2^p):
 *   p = 14 (Kusto's default accuracy level) gives 0.81%. Merging is the registers' maximum:
 *   lossless. language/ does no I/O and runs in browsers too: the hash (MurmurHash3) is written
 *   out here.
 * - `QuantileSketch`: percentiles, over Datadog's DDSketch (@datadog/sketches-js; Masson, Rim, Lee,
 *   "DDSketch: a fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB
 *   2019) with relative accuracy α = 1% and unbounded buckets (their number grows with
 *   log(max/min), not with the count: values from 1e-3 to 1e9 take about 1,400): the value given
 *   for a rank is within α of the exact value at that rank, whatever the data and however the
 *   sketches were merged. Around the library: the infinities are counted beside it (its store
 *   cannot take one), min and max are exact, the merge adds bucket counts (lossless; not the
 *   library's merge, see mergeDDSketch), and values nearer 0 than 2.2e-308 count as 0 (the
 *   library's smallest bucket).
 */

import { DDSketch } from '@datadog/sketches-js';

/** One 32-bit block of MurmurHash3 x86_32 mixed into `h`. */
function murmurBlock(h: number, k: number): number {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3 x86_32's tail and finalisation: `tail` the last odd code unit (or -1), `units` the key's length. */
function murmurFinish(h: number, tail: number, units: number): number {
    if (tail >= 0) {
        let k = Math.imul(tail, 0xcc9e2d51);
        k = (k << 15) | (k >>> 17);
        h ^= Math.imul(k, 0x1b873593);
    }
    h ^= units * 2;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
}

/** MurmurHash3 x86_32 of a string's UTF-16 code units (two per 32-bit block). */
function murmur3(key: string, seed: number): number {
    let h = seed | 0;
    const n = key.length;
    let i = 0;
    for (; i + 1 < n; i += 2) h = murmurBlock(h, key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16));
    return murmurFinish(h, i < n ? key.charCodeAt(i) : -1, n);
}

const SEED_HI = 0x9747b28c;
const SEED_LO = 0x5bd1e995;

/** The block of a string's canonical key prefix `s:` (runtime-values.ts canonicalKey): its hash starts from this. */
const STRING_PREFIX_BLOCK = 0x73 | (0x3a << 16);
const STRING_HI = murmurBlock(SEED_HI, STRING_PREFIX_BLOCK);
const STRING_LO = murmurBlock(SEED_LO, STRING_PREFIX_BLOCK);

/**
 * The 64-bit hash of a canonical key (a HyperLogLog's hash: MurmurHash3 under two seeds), written to
 * out[at] (high word) and out[at + 1]. `ofString`: the key is the string's own canonical key
 * (`s:` + key) without making that string; both hashes in one pass over the code units.
 */
export function keyHash64(key: string, ofString: boolean, out: Uint32Array, at: number): void {
    let hi = ofString ? STRING_HI : SEED_HI | 0;
    let lo = ofString ? STRING_LO : SEED_LO | 0;
    const n = key.length;
    let i = 0;
    for (; i + 1 < n; i += 2) {
        const k = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16);
        hi = murmurBlock(hi, k);
        lo = murmurBlock(lo, k);
    }
    const tail = i < n ? key.charCodeAt(i) : -1;
    const units = ofString ? n + 2 : n;
    out[at] = murmurFinish(hi, tail, units);
    out[at + 1] = murmurFinish(lo, tail, units);
}

/** Registers per precision: Kusto's dcount accuracy levels 0–4 (1.6%, 0.8%, 0.4%, 0.28%, 0.2%). */
const PRECISION_BY_ACCURACY = [12, 14, 16, 17, 18];

/** The HyperLogLog precision for dcount's optional accuracy argument (default 1: p = 14). */
export function hllPrecision(accuracy: unknown): number {
    const level = typeof accuracy === 'number' && Number.isInteger(accuracy) && accuracy >= 0 && accuracy < PRECISION_BY_ACCURACY.length ? accuracy : 1;
    return PRECISION_BY_ACCURACY[level];
}

/** The relative standard error of a HyperLogLog of precision p: 1.04/√(2^p). */
export function hllStandardError(p: number): number {
    return 1.04 / Math.sqrt(2 ** p);
}

export class HyperLogLog {
    readonly registers: Uint8Array;

    constructor(readonly p: number) {
        this.registers = new Uint8Array(1 << p);
    }

    get bytes(): number {
        return this.registers.length + 64;
    }

    /** Adds a value by its canonical key (equal values, equal keys). */
    add(key: string): void {
        this.addHash(murmur3(key, SEED_HI), murmur3(key, SEED_LO));
    }

    /** Adds a value by its key's 64-bit hash (keyHash64: `add` of the key does the same). */
    addHash(hi: number, lo: number): void {
        const p = this.p;
        const idx = hi >>> (32 - p);
        // The rank: 1 + the leading zeros of the remaining 64 - p bits (hi's low 32 - p bits, then lo's 32).
        const rest = (hi << p) >>> 0;
        const rank = rest !== 0 ? Math.clz32(rest) + 1 : 32 - p + (lo === 0 ? 32 : Math.clz32(lo)) + 1;
        if (rank > this.registers[idx]) this.registers[idx] = rank;
    }

    merge(other: HyperLogLog): void {
        if (other.p !== this.p) throw new Error(`HyperLogLog precisions differ (${this.p}, ${other.p})`);
        const r = this.registers;
        const o = other.registers;
        for (let i = 0; i < r.length; i++) if (o[i] > r[i]) r[i] = o[i];
    }

    clone(): HyperLogLog {
        const c = new HyperLogLog(this.p);
        c.registers.set(this.registers);
        return c;
    }

    /** Ertl's improved raw estimator (arXiv:1702.01284, algorithm 6), rounded. */
    estimate(): number {
        const m = this.registers.length;
        const q = 64 - this.p;
        const hist = new Float64Array(q + 2);
        for (let i = 0; i < m; i++) hist[this.registers[i]]++;
        let z = m * tau(1 - hist[q + 1] / m);
        for (let k = q; k >= 1; k--) z = 0.5 * (z + hist[k]);
        z += m * sigma(hist[0] / m);
        return Math.round(m * m / (2 * Math.LN2 * z));
    }
}

function sigma(x: number): number {
    if (x === 1) return Infinity;
    let y = 1;
    let z = x;
    for (;;) {
        x *= x;
        const prev = z;
        z += x * y;
        y += y;
        if (z === prev) return z;
    }
}

function tau(x: number): number {
    if (x === 0 || x === 1) return 0;
    let y = 1;
    let z = 1 - x;
    for (;;) {
        x = Math.sqrt(x);
        const prev = z;
        y *= 0.5;
        z -= (1 - x) * (1 - x) * y;
        if (z === prev) return z / 3;
    }
}

/** The quantile sketch's relative accuracy α. */
export const QUANTILE_RELATIVE_ACCURACY = 0.01;

export class QuantileSketch {
    /** The finite values (the library's store cannot take an infinity). */
    private readonly finite = new DDSketch({ relativeAccuracy: QUANTILE_RELATIVE_ACCURACY });
    private posInf = 0;
    private negInf = 0;
    count = 0;
    min = Infinity;
    max = -Infinity;

    get bytes(): number {
        return 8 * (this.finite.store.bins.length + this.finite.negativeStore.bins.length) + 128;
    }

    /** Adds a number (NaN is not a value: the caller leaves it out, as the exact percentile does). */
    add(x: number): void {
        this.count++;
        if (x < this.min) this.min = x;
        if (x > this.max) this.max = x;
        if (x === Infinity) this.posInf++;
        else if (x === -Infinity) this.negInf++;
        else this.finite.accept(x);
    }

    addAll(values: Float64Array): void {
        for (let i = 0; i < values.length; i++) this.add(values[i]);
    }

    merge(o: QuantileSketch): void {
        mergeDDSketch(this.finite, o.finite);
        this.posInf += o.posInf;
        this.negInf += o.negInf;
        this.count += o.count;
        if (o.min < this.min) this.min = o.min;
        if (o.max > this.max) this.max = o.max;
    }

    clone(): QuantileSketch {
        const c = new QuantileSketch();
        c.merge(this);
        return c;
    }

    /** The sketch as JSON (a part of a parallel run between threads): its bins and counts, nothing lost. */
    toJSON(): QuantileSketchJson {
        const f = this.finite;
        const store = (st: DDSketch['store']): [number, number[]] => [st.offset, Array.from(st.bins)];
        return {
            gamma: f.mapping.gamma,
            pos: store(f.store),
            neg: store(f.negativeStore),
            finite: [f.zeroCount, f.count, f.sum, f.min, f.max].map(jsonNumber),
            all: [this.count, this.min, this.max, this.posInf, this.negInf].map(jsonNumber),
        };
    }

    /** The sketch `toJSON` gave. */
    static fromJSON(j: QuantileSketchJson): QuantileSketch {
        const q = new QuantileSketch();
        const bins = ([offset, bins]: [number, number[]]) => ({ offset, bins });
        const [zeroCount, count, sum, min, max] = j.finite.map(Number);
        mergeDDSketch(q.finite, { mapping: { gamma: j.gamma }, store: bins(j.pos), negativeStore: bins(j.neg), zeroCount, count, sum, min, max });
        [q.count, q.min, q.max, q.posInf, q.negInf] = j.all.map(Number);
        return q;
    }

    /**
     * The value at 1-based rank r of the sorted values (within α of the exact one; the smallest
     * and largest ranks are exact), or null when there is none.
     */
    atRank(r: number): number | null {
        const n = this.count;
        if (n === 0 || !(r >= 1 && r <= n)) return null;
        if (r === 1) return this.min;
        if (r === n) return this.max;
        if (r <= this.negInf) return -Infinity;
        const f = r - this.negInf;
        const c = this.finite.count;
        if (f > c) return Infinity;
        if (f === 1) return this.finite.min;
        if (f === c) return this.finite.max;
        // The library's rank for quantile q is q·(c - 1), 0-based; the middle of rank f - 1's unit
        // interval stays on that rank whatever the rounding of the division.
        const v = this.finite.getValueAtQuantile((f - 0.5) / (c - 1));
        return Math.min(this.max, Math.max(this.min, v));
    }
}

/**
 * Adds b's counts to a: a DDSketch of both. Not the library's `merge`: in @datadog/sketches-js
 * 2.1.1 (the latest) it leaves b's negative values out (DataDog/sketches-js#22, open), and its
 * store merge reads a top bucket 0 (the values in (1/γ, 1]) as "none" (`secondKey || key` in
 * DenseStore._extendRange), so that bucket falls out once the range grows. Each bucket of b is
 * added with the store's own `add`, which grows the range right; the summary fields are the
 * library's, kept as its merge keeps them.
 */
/** What `mergeDDSketch` reads of the sketch it adds: a DDSketch, or one rebuilt from its JSON. */
interface DDSketchParts {
    mapping: { gamma: number };
    store: { offset: number; bins: ArrayLike<number> };
    negativeStore: { offset: number; bins: ArrayLike<number> };
    zeroCount: number;
    count: number;
    sum: number;
    min: number;
    max: number;
}

/**
 * A QuantileSketch as JSON: the finite values' mapping, stores ([offset, bins]) and [zeroCount,
 * count, sum, min, max]; then every value's [count, min, max, +∞ count, -∞ count]. A number JSON has
 * no word for (an empty sketch's min is +∞) is its text.
 */
export interface QuantileSketchJson {
    gamma: number;
    pos: [number, number[]];
    neg: [number, number[]];
    finite: (number | string)[];
    all: (number | string)[];
}

function jsonNumber(x: number): number | string {
    return Number.isFinite(x) ? x : String(x);
}

function mergeDDSketch(a: DDSketch, b: DDSketchParts): void {
    if (a.mapping.gamma !== b.mapping.gamma) throw new Error(`quantile sketches of different accuracies (gamma ${a.mapping.gamma}, ${b.mapping.gamma})`);
    for (const [to, from] of [[a.store, b.store], [a.negativeStore, b.negativeStore]] as const) {
        const bins = from.bins;
        for (let i = 0; i < bins.length; i++) if (bins[i] !== 0) to.add(from.offset + i, bins[i]);
    }
    a.zeroCount += b.zeroCount;
    a.count += b.count;
    a.sum += b.sum;
    if (b.min < a.min) a.min = b.min;
    if (b.max > a.max) a.max = b.max;
}
