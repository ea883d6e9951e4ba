/**
 * The mergeable states of dcount and percentile for a summarize that runs part by part (parallel.ts;
 * over blocks on disk, engine.ts runs one part per block, one after the other, in one thread).
 *
 * A part's state is exact: the canonical keys of its distinct values (those the catalogue's dcount
 * accumulator counts), or its numbers (the nearest-rank percentile of the fast path). The merge
 * keeps them exact while they fit its budget, so that the answer is the in-memory one; past it,
 * the largest states become sketches (sketches.ts: HyperLogLog, a 1%-relative quantile sketch) and
 * the answer says it is an estimate. Only numbers are percentiled this way: datetimes, timespans
 * and mixed values leave the query to one scan (PartitionUnsupported), as before.
 *
 * The states are objects (sets, typed arrays) and never cross threads: only a plan made for parts
 * in one thread carries these aggregations (planPartition's `inThread`).
 */
import { canonicalKey } from '../runtime-values.js';
import type { AplValue } from '../values.js';
import { NumColumn, StrColumn } from './columns.js';
import { type Vec, vget } from './expr.js';
import { bucketValuesByGroup, quickselect } from './kernels/aggregate.js';
import { HyperLogLog, QuantileSketch, QUANTILE_RELATIVE_ACCURACY, hllPrecision, hllStandardError } from './sketches.js';

/** A set's memory per key beyond the key's characters (V8: string header, hash table slot, load factor). */
const SET_ENTRY_BYTES = 48;

const keyBytes = (k: string): number => SET_ENTRY_BYTES + 2 * k.length;

/** A group's distinct values: their canonical keys, or a HyperLogLog once the budget says so. */
export class DistinctState {
    /** Shared with the part that made it until this state first changes (copy on write). */
    private owned = false;

    private constructor(
        private keys: Set<string> | undefined,
        private hll: HyperLogLog | undefined,
        readonly precision: number,
        public bytes: number,
    ) {}

    static exact(keys: Set<string>, precision: number): DistinctState {
        let bytes = 64;
        for (const k of keys) bytes += keyBytes(k);
        const s = new DistinctState(keys, undefined, precision, bytes);
        s.owned = true;
        return s;
    }

    get exact(): boolean {
        return this.keys !== undefined;
    }

    get sketchBytes(): number {
        return (1 << this.precision) + 64;
    }

    /** A state for a merge to fold into: it shares this one's data until it changes. */
    share(): DistinctState {
        return new DistinctState(this.keys, this.hll, this.precision, this.bytes);
    }

    /** Adds `o`'s values; returns the change in bytes. */
    mergeFrom(o: DistinctState): number {
        const before = this.bytes;
        if (o.keys && this.keys) {
            if (!this.owned) this.keys = new Set(this.keys);
            for (const k of o.keys) {
                if (!this.keys.has(k)) {
                    this.keys.add(k);
                    this.bytes += keyBytes(k);
                }
            }
        } else {
            if (this.keys) this.toSketch();
            if (!this.owned) this.hll = this.hll!.clone();
            if (o.keys) for (const k of o.keys) this.hll!.add(k);
            else this.hll!.merge(o.hll!);
        }
        this.owned = true;
        return this.bytes - before;
    }

    /** Becomes a HyperLogLog; returns the change in bytes. */
    toSketch(): number {
        const before = this.bytes;
        if (!this.keys) return 0;
        const hll = new HyperLogLog(this.precision);
        for (const k of this.keys) hll.add(k);
        this.keys = undefined;
        this.hll = hll;
        this.owned = true;
        this.bytes = hll.bytes;
        return this.bytes - before;
    }

    result(): number {
        return this.keys ? this.keys.size : this.hll!.estimate();
    }
}

/** A group's numbers: all of them (in chunks that are never changed), or a quantile sketch. */
export class QuantileState {
    private owned = false;

    private constructor(
        private chunks: Float64Array[] | undefined,
        private sketch: QuantileSketch | undefined,
        public bytes: number,
    ) {}

    static exact(values: Float64Array): QuantileState {
        const s = new QuantileState([values], undefined, 64 + 8 * values.length);
        s.owned = true;
        return s;
    }

    get exact(): boolean {
        return this.chunks !== undefined;
    }

    get sketchBytes(): number {
        // A sketch's size depends on the values' spread, not their number: about 1,400 buckets for 1e-3..1e9.
        return 4096;
    }

    share(): QuantileState {
        return new QuantileState(this.chunks, this.sketch, this.bytes);
    }

    mergeFrom(o: QuantileState): number {
        const before = this.bytes;
        if (o.chunks && this.chunks) {
            if (!this.owned) this.chunks = this.chunks.slice();
            for (const c of o.chunks) {
                this.chunks.push(c);
                this.bytes += 8 * c.length + 16;
            }
        } else {
            if (this.chunks) this.toSketch();
            if (!this.owned) this.sketch = this.sketch!.clone();
            if (o.chunks) for (const c of o.chunks) this.sketch!.addAll(c);
            else this.sketch!.merge(o.sketch!);
            this.bytes = this.sketch!.bytes;
        }
        this.owned = true;
        return this.bytes - before;
    }

    toSketch(): number {
        const before = this.bytes;
        if (!this.chunks) return 0;
        const sketch = new QuantileSketch();
        for (const c of this.chunks) sketch.addAll(c);
        this.chunks = undefined;
        this.sketch = sketch;
        this.owned = true;
        this.bytes = sketch.bytes;
        return this.bytes - before;
    }

    /** The nearest-rank value of each rank (rank ⌈p·n/100⌉ clamped to [1, n], as nearestRank does). */
    results(ranks: readonly number[]): (number | null)[] {
        const n = this.chunks ? this.chunks.reduce((s, c) => s + c.length, 0) : this.sketch!.count;
        const rankOf = (p: number) => (n === 0 || !Number.isFinite(p) ? 0 : Math.min(n, Math.max(1, Math.ceil((p * n) / 100))));
        if (this.sketch) return ranks.map(p => (rankOf(p) === 0 ? null : this.sketch!.atRank(rankOf(p))));
        const all = new Float64Array(n);
        let at = 0;
        for (const c of this.chunks!) {
            all.set(c, at);
            at += c.length;
        }
        if (ranks.length === 1) return [rankOf(ranks[0]) === 0 ? null : quickselect(all, rankOf(ranks[0]) - 1)];
        all.sort();
        return ranks.map(p => (rankOf(p) === 0 ? null : all[rankOf(p) - 1]));
    }
}

export type MergeState = DistinctState | QuantileState;

/** What merged states say about their answer: estimated, and how. */
export function estimateNote(aggName: string, state: MergeState, budget: number): string {
    const kb = `${Math.round(budget / 1024).toLocaleString('en-US')} KB`;
    if (state instanceof DistinctState) {
        const se = (hllStandardError(state.precision) * 100).toFixed(2);
        return `${aggName} is an estimate (HyperLogLog, 2^${state.precision} registers: standard error ${se}%): the exact distinct values of its groups need more than the query's ${kb} for them`;
    }
    return `${aggName} is an estimate (a quantile sketch: within ${QUANTILE_RELATIVE_ACCURACY * 100}% of the exact value): every value of its groups needs more than the query's ${kb} for them`;
}

// ---------------------------------------------------------------------------------------------
// A part's states, per group

/**
 * dcount(x [, accuracy]) / dcountif(x, pred [, accuracy]): per group, the canonical keys of the
 * non-null values (of the rows where pred is true).
 */
export function distinctStates(vecs: readonly Vec[], conditional: boolean, gids: Uint32Array, G: number, n: number): DistinctState[] {
    const [x, pred] = conditional ? vecs : [vecs[0], undefined];
    const accuracy = vecs[conditional ? 2 : 1];
    const precision = hllPrecision(accuracy?.c ? accuracy.v : undefined);
    const sets: Set<string>[] = Array.from({ length: G }, () => new Set<string>());
    const keep = (i: number) => !pred || vget(pred, i) === true;
    if (!x.c && x.col instanceof StrColumn) {
        // Dictionary codes first: a string's key is made once per group, not once per row.
        const col = x.col;
        const D = col.dict.length;
        // Seen (group, code) pairs: a flag table when it is small, else a set of pair numbers.
        const flags = G * D <= 1 << 25 ? new Uint8Array(G * D) : undefined;
        const pairs = flags ? undefined : new Set<number>();
        for (let i = 0; i < n; i++) {
            const c = col.codes[x.sel ? x.sel[i] : i];
            if (c === 0 || !keep(i)) continue;
            const g = gids[i];
            const k = g * D + c;
            if (flags ? flags[k] === 1 : pairs!.has(k)) continue;
            if (flags) flags[k] = 1;
            else pairs!.add(k);
            sets[g].add(canonicalKey(col.dict[c]));
        }
    } else {
        for (let i = 0; i < n; i++) {
            if (!keep(i)) continue;
            const v = vget(x, i);
            if (v !== null && v !== undefined) sets[gids[i]].add(canonicalKey(v));
        }
    }
    return sets.map(s => DistinctState.exact(s, precision));
}

/** The constant ranks of a percentile call's rank arguments, or undefined when one is not constant. */
export function constantRanks(vecs: readonly Vec[]): number[] | undefined {
    const ranks: number[] = [];
    for (const r of vecs) {
        if (!r.c) return undefined;
        if (typeof r.v === 'number') ranks.push(r.v);
        else if (Array.isArray(r.v)) for (const x of r.v as AplValue[]) if (typeof x === 'number') ranks.push(x);
    }
    return ranks;
}

/**
 * percentile-like calls: per group, the numbers of `x` (null and NaN left out) of the rows where
 * pred (if any) is true. Undefined when a value is not a number (merged as numbers they would lose
 * their type or order).
 */
export function quantileStates(x: Vec, pred: Vec | undefined, gids: Uint32Array, G: number, n: number): QuantileState[] | undefined {
    if (x.c) {
        if (x.v !== null && typeof x.v !== 'number') return undefined;
    } else if (!pred && x.col instanceof NumColumn) {
        const counts = new Uint32Array(G + 1);
        const all = bucketValuesByGroup(x.col.vals, x.col.nulls, x.sel, gids, n, G, counts);
        return Array.from({ length: G }, (_, g) => QuantileState.exact(all.subarray(counts[g], counts[g + 1])));
    }
    const lists: number[][] = Array.from({ length: G }, () => []);
    for (let i = 0; i < n; i++) {
        if (pred && vget(pred, i) !== true) continue;
        const v = vget(x, i);
        if (v === null || v === undefined) continue;
        if (typeof v !== 'number') return undefined;
        if (v === v) lists[gids[i]].push(v);
    }
    return lists.map(l => QuantileState.exact(Float64Array.from(l)));
}
