/**
 * A small, fast, seeded PRNG (mulberry32) plus the sampling helpers the sample-data generators need.
 * Deterministic across platforms: only 32-bit integer arithmetic and IEEE doubles.
 */
export class Rng {
    private state: number;
    private spareNormal = Number.NaN;

    constructor(seed: number) {
        // Mix the seed once so that nearby seeds (1, 2, 3) give unrelated streams.
        this.state = hashSeed(seed);
    }

    /** A uniform double in [0, 1). */
    next(): number {
        let t = (this.state = (this.state + 0x6d2b79f5) | 0);
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }

    /** A uniform unsigned 32-bit integer. */
    uint32(): number {
        let t = (this.state = (this.state + 0x6d2b79f5) | 0);
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return (t ^ (t >>> 14)) >>> 0;
    }

    /** A uniform integer in [0, n). */
    int(n: number): number {
        return Math.floor(this.next() * n);
    }

    /** A uniform integer in [lo, hi] (both inclusive). */
    range(lo: number, hi: number): number {
        return lo + Math.floor(this.next() * (hi - lo + 1));
    }

    chance(p: number): boolean {
        return this.next() < p;
    }

    pick<T>(items: readonly T[]): T {
        return items[Math.floor(this.next() * items.length)];
    }

    /** A standard normal deviate (Box-Muller; the second of each pair is kept for the next call). */
    normal(): number {
        const spare = this.spareNormal;
        if (spare === spare) {
            this.spareNormal = Number.NaN;
            return spare;
        }
        let u = this.next();
        if (u < 1e-300) u = 1e-300;
        const r = Math.sqrt(-2 * Math.log(u));
        const theta = 2 * Math.PI * this.next();
        this.spareNormal = r * Math.sin(theta);
        return r * Math.cos(theta);
    }

    /** Log-normal with the given median and sigma (of the underlying normal). */
    logNormal(median: number, sigma: number): number {
        return median * Math.exp(sigma * this.normal());
    }

    /** `n` lowercase hex digits. */
    hex(n: number): string {
        let out = '';
        while (n >= 8) {
            out += HEX8(this.uint32());
            n -= 8;
        }
        if (n > 0) out += HEX8(this.uint32()).slice(0, n);
        return out;
    }

    /** A random (version 4) UUID. */
    uuid(): string {
        const a = HEX8(this.uint32());
        const b = HEX8(this.uint32());
        const c = HEX8(this.uint32());
        const d = HEX8(this.uint32());
        const variant = '89ab'[this.uint32() & 3];
        return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
    }

    /** A child generator with its own stream, so adding draws in one place does not shift another. */
    fork(salt: number): Rng {
        return new Rng((this.uint32() ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
    }
}

function hashSeed(seed: number): number {
    // splitmix32-style finaliser over the integer part (and the fraction, if any).
    let h = (Math.floor(seed) ^ Math.floor((seed % 1) * 0x100000000)) | 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) | 0;
}

const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function HEX8(v: number): string {
    return BYTE_HEX[v >>> 24] + BYTE_HEX[(v >>> 16) & 255] + BYTE_HEX[(v >>> 8) & 255] + BYTE_HEX[v & 255];
}

/**
 * Weighted choice over a fixed set in O(log n): build once, then `sample(rng)` returns an index.
 */
export class WeightedIndex {
    private readonly cumulative: Float64Array;

    constructor(weights: readonly number[]) {
        if (weights.length === 0) throw new Error('WeightedIndex needs at least one weight');
        this.cumulative = new Float64Array(weights.length);
        let sum = 0;
        for (let i = 0; i < weights.length; i++) {
            sum += Math.max(0, weights[i]);
            this.cumulative[i] = sum;
        }
        for (let i = 0; i < weights.length; i++) this.cumulative[i] /= sum;
        this.cumulative[weights.length - 1] = 1;
    }

    get size(): number {
        return this.cumulative.length;
    }

    sample(rng: Rng): number {
        return this.indexOf(rng.next());
    }

    /** The index for a uniform `u` in [0, 1). */
    indexOf(u: number): number {
        const c = this.cumulative;
        let lo = 0;
        let hi = c.length - 1;
        while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (c[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }
}

/** Zipf-like weights 1/(k+1)^s for k = 0..n-1: a few very popular items and a long tail. */
export function zipfWeights(n: number, s = 1): number[] {
    const out = new Array<number>(n);
    for (let k = 0; k < n; k++) out[k] = 1 / Math.pow(k + 1, s);
    return out;
}

/** A weighted picker over values: `new WeightedPool([['GET', 60], ['POST', 20]])`. */
export class WeightedPool<T> {
    readonly values: readonly T[];
    private readonly index: WeightedIndex;

    constructor(entries: ReadonlyArray<readonly [T, number]>) {
        this.values = entries.map(e => e[0]);
        this.index = new WeightedIndex(entries.map(e => e[1]));
    }

    sample(rng: Rng): T {
        return this.values[this.index.sample(rng)];
    }
}
