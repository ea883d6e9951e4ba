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

/** What the sketch of an `ExactOrSketch` state can do. */
interface Sketch<S> {
    readonly bytes: number;
    clone(): S;
    merge(o: S): void;
}

/**
 * A group's state: exact data (`E`) while it fits the budget, a sketch (`S`) after. A state made
 * by `share()` shares the data of the part that made it until it first changes (copy on write).
 */
abstract class ExactOrSketch<E, S extends Sketch<S>> {
    /** False while the data are shared with the state this one was made from. */
    protected owned = false;

    protected constructor(
        protected data: E | undefined,
        protected sketch: S | undefined,
        public bytes: number,
    ) {}

    get exact(): boolean {
        return this.data !== undefined;
    }

    /** About how many bytes the state takes once a sketch (to choose which states become sketches). */
    abstract get sketchBytes(): number;

    /** A copy of exact data this state may change. */
    protected abstract copyData(d: E): E;
    /** Adds `from` to `into` (this state's own); returns the change in bytes. */
    protected abstract addData(into: E, from: E): number;
    protected abstract newSketch(): S;
    protected abstract addToSketch(sketch: S, d: E): void;

    /** Adds `o`'s values; returns the change in bytes. */
    mergeFrom(o: this): number {
        const before = this.bytes;
        if (o.data !== undefined && this.data !== undefined) {
            if (!this.owned) this.data = this.copyData(this.data);
            this.bytes += this.addData(this.data, o.data);
        } else {
            if (this.data !== undefined) this.toSketch();
            if (!this.owned) this.sketch = this.sketch!.clone();
            if (o.data !== undefined) this.addToSketch(this.sketch!, o.data);
            else this.sketch!.merge(o.sketch!);
            this.bytes = this.sketch!.bytes;
        }
        this.owned = true;
        return this.bytes - before;
    }

    /** Becomes a sketch; returns the change in bytes. */
    toSketch(): number {
        const before = this.bytes;
        if (this.data === undefined) return 0;
        const sketch = this.newSketch();
        this.addToSketch(sketch, this.data);
        this.data = undefined;
        this.sketch = sketch;
        this.owned = true;
        this.bytes = sketch.bytes;
        return this.bytes - before;
    }
}

/**
 * A group's distinct values, exact: its strings as they are (no key made for them, and a string
 * keeps the hash V8 computed for it once), and the canonical keys of its other values. A part's
 * strings may come as a list known to have no repeats (`exactList`): made without a set, they go
 * into one only when another part is merged into them.
 */
interface DistinctKeys {
    strings: ReadonlySet<string> | readonly string[];
    others: ReadonlySet<string>;
}

const NO_OTHERS: ReadonlySet<string> = new Set<string>();

/** The key a string has among the others' and in a sketch (what canonicalKey gives it). */
const stringKey = (s: string): string => `s:${s}`;

/** A register (0–64) as one printable character ('0'–'p'): a sketch's registers as a string of its own length. */
const REGISTER_CHAR = 0x30;

function registersText(r: Uint8Array): string {
    let out = '';
    for (let i = 0; i < r.length; i += 4096) out += String.fromCharCode(...r.subarray(i, i + 4096).map(v => v + REGISTER_CHAR));
    return out;
}

/** A DistinctState as JSON: exact (its strings and the canonical keys of its other values) or a sketch (base64 registers). */
export interface DistinctStateJson {
    /** The HyperLogLog precision. */
    $distinct: number;
    strings?: string[];
    others?: string[];
    /** One character per register (registersText). */
    registers?: string;
}

/** A group's distinct values (DistinctKeys), or a HyperLogLog once the budget says so. */
export class DistinctState extends ExactOrSketch<DistinctKeys, HyperLogLog> {
    private constructor(keys: DistinctKeys | undefined, hll: HyperLogLog | undefined, readonly precision: number, bytes: number) {
        super(keys, hll, bytes);
    }

    static exact(strings: Set<string>, others: Set<string>, precision: number): DistinctState {
        const s = new DistinctState({ strings, others }, undefined, precision, 64 + keysBytes(strings) + keysBytes(others));
        s.owned = true;
        return s;
    }

    /** Strings with no repeats among them: kept as they are (not owned: a merge into the state copies them into a set first). */
    static exactList(strings: readonly string[], precision: number): DistinctState {
        return new DistinctState({ strings, others: NO_OTHERS }, undefined, precision, 64 + keysBytes(strings));
    }

    get sketchBytes(): number {
        return (1 << this.precision) + 64;
    }

    /** A state for a merge to fold into: it shares this one's data until it changes. */
    share(): DistinctState {
        return new DistinctState(this.data, this.sketch, this.precision, this.bytes);
    }

    protected copyData(keys: DistinctKeys): DistinctKeys {
        return { strings: new Set(keys.strings), others: new Set(keys.others) };
    }

    protected addData(into: DistinctKeys, from: DistinctKeys): number {
        // copyData made both sets this state's own before any merge into it.
        return addKeys(into.strings as Set<string>, from.strings) + addKeys(into.others as Set<string>, from.others);
    }

    protected newSketch(): HyperLogLog {
        return new HyperLogLog(this.precision);
    }

    protected addToSketch(hll: HyperLogLog, keys: DistinctKeys): void {
        for (const k of keys.strings) hll.add(stringKey(k));
        for (const k of keys.others) hll.add(k);
    }

    /** The state as JSON (a part of a parallel run between threads, parallel.ts): its values, or its sketch's registers. */
    toJSON(): DistinctStateJson {
        const d = this.data;
        if (d !== undefined) return { $distinct: this.precision, strings: [...d.strings], others: [...d.others] };
        return { $distinct: this.precision, registers: registersText(this.sketch!.registers) };
    }

    /** The state `toJSON` gave. */
    static fromJSON(j: DistinctStateJson): DistinctState {
        if (j.registers === undefined) {
            return DistinctState.exact(new Set(j.strings), new Set(j.others), j.$distinct);
        }
        const hll = new HyperLogLog(j.$distinct);
        const text = j.registers;
        if (text.length !== hll.registers.length) throw new Error(`a dcount sketch of precision ${j.$distinct} has ${hll.registers.length} registers, not ${text.length}`);
        for (let i = 0; i < text.length; i++) hll.registers[i] = text.charCodeAt(i) - REGISTER_CHAR;
        const s = new DistinctState(undefined, hll, j.$distinct, hll.bytes);
        s.owned = true;
        return s;
    }

    result(): number {
        const d = this.data;
        if (d === undefined) return this.sketch!.estimate();
        const strings = Array.isArray(d.strings) ? d.strings.length : (d.strings as ReadonlySet<string>).size;
        return strings + d.others.size;
    }
}

/** Adds `from` to `into`; returns the bytes that took. */
function addKeys(into: Set<string>, from: Iterable<string>): number {
    let bytes = 0;
    for (const k of from) {
        const size = into.size;
        into.add(k);
        if (into.size !== size) bytes += keyBytes(k);
    }
    return bytes;
}

function keysBytes(keys: Iterable<string>): number {
    let bytes = 0;
    for (const k of keys) bytes += keyBytes(k);
    return bytes;
}

/** A group's numbers: all of them (in chunks that are never changed), or a quantile sketch. */
export class QuantileState extends ExactOrSketch<Float64Array[], QuantileSketch> {
    private constructor(chunks: Float64Array[] | undefined, sketch: QuantileSketch | undefined, bytes: number) {
        super(chunks, sketch, bytes);
    }

    static exact(values: Float64Array): QuantileState {
        const s = new QuantileState([values], undefined, 64 + 8 * values.length);
        s.owned = true;
        return s;
    }

    get sketchBytes(): number {
        // A sketch's size depends on the values' spread, not their number: about 1,400 buckets for 1e-3..1e9.
        return 4096;
    }

    share(): QuantileState {
        return new QuantileState(this.data, this.sketch, this.bytes);
    }

    protected copyData(chunks: Float64Array[]): Float64Array[] {
        return chunks.slice();
    }

    protected addData(into: Float64Array[], from: Float64Array[]): number {
        let bytes = 0;
        for (const c of from) {
            into.push(c);
            bytes += 8 * c.length + 16;
        }
        return bytes;
    }

    protected newSketch(): QuantileSketch {
        return new QuantileSketch();
    }

    protected addToSketch(sketch: QuantileSketch, chunks: Float64Array[]): void {
        for (const c of chunks) sketch.addAll(c);
    }

    /** The nearest-rank value of each rank (rank ⌈p·n/100⌉ clamped to [1, n], as nearestRank does). */
    results(ranks: readonly number[]): (number | null)[] {
        const sketch = this.sketch;
        const n = this.data ? this.data.reduce((s, c) => s + c.length, 0) : sketch!.count;
        const rankOf = (p: number) => (n === 0 || !Number.isFinite(p) ? 0 : Math.min(n, Math.max(1, Math.ceil((p * n) / 100))));
        if (sketch) return ranks.map(p => (rankOf(p) === 0 ? null : sketch.atRank(rankOf(p))));
        const all = new Float64Array(n);
        let at = 0;
        for (const c of this.data!) {
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
    const keep = (i: number) => !pred || vget(pred, i) === true;
    if (!x.c && x.col instanceof StrColumn) {
        // Dictionary codes first: a string is taken once per group, not once per row. The
        // dictionary's strings are distinct, so each group's are too: lists, not sets.
        const lists: string[][] = Array.from({ length: G }, () => []);
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
            lists[g].push(col.dict[c]);
        }
        return lists.map(l => DistinctState.exactList(l, precision));
    }
    const strings: Set<string>[] = Array.from({ length: G }, () => new Set<string>());
    const others: Set<string>[] = Array.from({ length: G }, () => new Set<string>());
    for (let i = 0; i < n; i++) {
        if (!keep(i)) continue;
        const v = vget(x, i);
        if (typeof v === 'string') strings[gids[i]].add(v);
        else if (v !== null && v !== undefined) others[gids[i]].add(canonicalKey(v));
    }
    return strings.map((s, g) => DistinctState.exact(s, others[g], precision));
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
