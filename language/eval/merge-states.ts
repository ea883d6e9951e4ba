/**
 * The mergeable states of dcount and percentile for a summarize that runs part by part (parallel.ts;
 * over blocks on disk, engine.ts runs one part per block, one after the other, in one thread).
 *
 * A part's state is exact: the 64-bit hashes of the canonical keys of its distinct values (those
 * the catalogue's dcount accumulator counts; see DistinctKeys), or its numbers (the nearest-rank
 * percentile of the fast path). The merge keeps them exact while they fit its budget, so that the
 * answer is the in-memory one; past it, the largest states become sketches (sketches.ts:
 * HyperLogLog over the same hashes, a 1%-relative quantile sketch) and the answer says it is an
 * estimate. Only numbers are percentiled this way: datetimes, timespans and mixed values leave the
 * query to one scan (PartitionUnsupported), as before.
 *
 * Both cross threads (toPortable): the parts of a dataset's blocks run on several query workers. Exact
 * states go as SharedArrayBuffers beside the part's JSON, sketches in it.
 */
import { canonicalKey } from '../runtime-values.js';
import type { AplValue } from '../values.js';
import { NumColumn, StrColumn } from './columns.js';
import { type Vec, vget } from './expr.js';
import { bucketValuesByGroup, quickselect } from './kernels/aggregate.js';
import { HyperLogLog, QuantileSketch, QUANTILE_RELATIVE_ACCURACY, hllPrecision, hllStandardError, keyHash64, type QuantileSketchJson } from './sketches.js';

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
 * A group's distinct values, exact: the 64-bit hashes of their canonical keys (keyHash64, the hash
 * a HyperLogLog takes), as (high, low) word pairs. Two values count as one only when all 64 bits of
 * their hashes agree: for a million distinct values the chance that any two do is about 3 in 10^8.
 * A set of 8-byte numbers instead of one of strings: a merge compares numbers, never strings, and
 * no string is kept. A part's hashes may come as a list known to have no repeats (`exactList`):
 * made without a table, they go into one only when another part is merged into them.
 */
type DistinctKeys = HashSet64 | Uint32Array;

/** What a state counts beside its data (the object, its fields). */
const STATE_BYTES = 64;

/** Hashes of 64 bits, open addressing (linear probing) in a Uint32Array of (high, low) pairs; (0, 0) marks a free slot and is kept aside. */
class HashSet64 {
    private table: Uint32Array;
    private mask: number;
    private hasZero = false;
    size = 0;

    /** The table's bytes: 16 to 32 a hash, since it is kept at most half full and doubles. */
    get bytes(): number {
        return this.table.byteLength;
    }

    constructor(expected: number) {
        let cap = 16;
        while (cap < 2 * expected) cap *= 2;
        this.table = new Uint32Array(2 * cap);
        this.mask = cap - 1;
    }

    static of(pairs: Uint32Array): HashSet64 {
        const set = new HashSet64(pairs.length / 2);
        set.addPairs(pairs);
        return set;
    }

    clone(): HashSet64 {
        const c = new HashSet64(0);
        c.table = this.table.slice();
        c.mask = this.mask;
        c.hasZero = this.hasZero;
        c.size = this.size;
        return c;
    }

    /** Adds a hash; false when it was there. */
    add(hi: number, lo: number): boolean {
        if (hi === 0 && lo === 0) {
            if (this.hasZero) return false;
            this.hasZero = true;
            this.size++;
            return true;
        }
        const t = this.table;
        for (let i = lo & this.mask; ; i = (i + 1) & this.mask) {
            const h = t[2 * i];
            const l = t[2 * i + 1];
            if (h === 0 && l === 0) {
                t[2 * i] = hi;
                t[2 * i + 1] = lo;
                if (++this.size * 2 > this.mask + 1) this.grow();
                return true;
            }
            if (h === hi && l === lo) return false;
        }
    }

    /** Adds (high, low) pairs; returns how many were new. */
    addPairs(pairs: Uint32Array): number {
        const before = this.size;
        for (let i = 0; i < pairs.length; i += 2) this.add(pairs[i], pairs[i + 1]);
        return this.size - before;
    }

    /** Its hashes as (high, low) pairs. */
    pairs(): Uint32Array {
        const out = new Uint32Array(2 * this.size);
        let k = 0;
        if (this.hasZero) k = 2; // (0, 0): already zeros
        const t = this.table;
        for (let i = 0; i < t.length; i += 2) {
            if (t[i] === 0 && t[i + 1] === 0) continue;
            out[k++] = t[i];
            out[k++] = t[i + 1];
        }
        return out;
    }

    private grow(): void {
        const old = this.table;
        this.table = new Uint32Array(2 * old.length);
        this.mask = old.length - 1;
        const zero = this.hasZero;
        this.size = zero ? 1 : 0;
        for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.add(old[i], old[i + 1]);
    }
}

const pairsOf = (keys: DistinctKeys): Uint32Array => (keys instanceof HashSet64 ? keys.pairs() : keys);
const countOf = (keys: DistinctKeys): number => (keys instanceof HashSet64 ? keys.size : keys.length / 2);

/** A register (0–64) as one printable character ('0'–'p'): a sketch's registers as a string of its own length. */
const REGISTER_CHAR = 0x30;

function registersText(r: Uint8Array): string {
    let out = '';
    for (let i = 0; i < r.length; i += 4096) out += String.fromCharCode(...r.subarray(i, i + 4096).map(v => v + REGISTER_CHAR));
    return out;
}

/**
 * A copy of `a` on memory another thread can read: a part's exact states go to the merge's thread
 * by postMessage, which shares a SharedArrayBuffer instead of copying it (and a text form would be
 * made, copied and parsed several times over: at 5M events, 140 MB more resident for a percentile).
 */
function sharedCopy(chunks: readonly (Uint32Array | Float64Array)[], shared: SharedArrayBuffer[]): number {
    const buf = new SharedArrayBuffer(chunks.reduce((n, c) => n + c.byteLength, 0));
    const bytes = new Uint8Array(buf);
    let at = 0;
    for (const c of chunks) {
        bytes.set(new Uint8Array(c.buffer, c.byteOffset, c.byteLength), at);
        at += c.byteLength;
    }
    return shared.push(buf) - 1;
}

/** Buffer `i` of `shared`, which must hold whole elements of `size` bytes. */
function sharedAt(shared: readonly SharedArrayBuffer[], i: number | undefined, size: number, what: string): SharedArrayBuffer {
    const buf = i === undefined ? undefined : shared[i];
    if (buf === undefined || buf.byteLength % size !== 0) throw new Error(`${what} are not in the part's shared buffer ${String(i)}`);
    return buf;
}

/** A DistinctState between threads: exact (its hashes: the index of their buffer among the part's shared ones) or a sketch (registersText). */
export interface DistinctStateJson {
    /** The HyperLogLog precision. */
    $distinct: number;
    hashes?: number;
    registers?: string;
}

/** A group's distinct values (DistinctKeys), or a HyperLogLog once the budget says so. */
export class DistinctState extends ExactOrSketch<DistinctKeys, HyperLogLog> {
    private constructor(keys: DistinctKeys | undefined, hll: HyperLogLog | undefined, readonly precision: number, bytes: number) {
        super(keys, hll, bytes);
    }

    /** The state of strings and of other values' canonical keys (the strings as their keys, `s:` + string). */
    static exact(strings: Iterable<string>, others: Iterable<string>, precision: number): DistinctState {
        const set = new HashSet64(0);
        const h = new Uint32Array(2);
        for (const k of strings) {
            keyHash64(k, true, h, 0);
            set.add(h[0], h[1]);
        }
        for (const k of others) {
            keyHash64(k, false, h, 0);
            set.add(h[0], h[1]);
        }
        return DistinctState.ofSet(set, precision);
    }

    private static ofSet(set: HashSet64, precision: number): DistinctState {
        const s = new DistinctState(set, undefined, precision, STATE_BYTES + set.bytes);
        s.owned = true;
        return s;
    }

    /** Strings with no repeats among them. */
    static exactList(strings: readonly string[], precision: number): DistinctState {
        const pairs = new Uint32Array(2 * strings.length);
        for (let i = 0; i < strings.length; i++) keyHash64(strings[i], true, pairs, 2 * i);
        return DistinctState.exactHashes(pairs, precision);
    }

    /** Hashes (keyHash64 pairs) with no repeats among them: kept as they are (not owned: a merge into the state puts them in a table first). */
    static exactHashes(pairs: Uint32Array, precision: number): DistinctState {
        return new DistinctState(pairs, undefined, precision, STATE_BYTES + pairs.byteLength);
    }

    get sketchBytes(): number {
        return (1 << this.precision) + 64;
    }

    /** A state for a merge to fold into: it shares this one's data until it changes. */
    share(): DistinctState {
        return new DistinctState(this.data, this.sketch, this.precision, this.bytes);
    }

    protected copyData(keys: DistinctKeys): DistinctKeys {
        return keys instanceof HashSet64 ? keys.clone() : HashSet64.of(keys);
    }

    protected addData(into: DistinctKeys, from: DistinctKeys): number {
        // copyData made it this state's own table before any merge into it. The change is against
        // what was counted before: a list's 8 bytes a hash may have become a table's 16 to 32.
        const set = into as HashSet64;
        set.addPairs(pairsOf(from));
        return STATE_BYTES + set.bytes - this.bytes;
    }

    protected newSketch(): HyperLogLog {
        return new HyperLogLog(this.precision);
    }

    protected addToSketch(hll: HyperLogLog, keys: DistinctKeys): void {
        const p = pairsOf(keys);
        for (let i = 0; i < p.length; i += 2) hll.addHash(p[i], p[i + 1]);
    }

    /** The state for another thread (a part of a parallel run, parallel.ts): its hashes in `shared`, or its sketch's registers. */
    toPortable(shared: SharedArrayBuffer[]): DistinctStateJson {
        const d = this.data;
        if (d !== undefined) return { $distinct: this.precision, hashes: sharedCopy([pairsOf(d)], shared) };
        return { $distinct: this.precision, registers: registersText(this.sketch!.registers) };
    }

    /** The state `toPortable` gave, with the same `shared` buffers. */
    static fromPortable(j: DistinctStateJson, shared: readonly SharedArrayBuffer[]): DistinctState {
        if (j.registers === undefined) return DistinctState.ofSet(HashSet64.of(new Uint32Array(sharedAt(shared, j.hashes, 8, "a dcount state's hashes"))), j.$distinct);
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
        return d === undefined ? this.sketch!.estimate() : countOf(d);
    }
}

/** A group's numbers: all of them (in chunks that are never changed), or a quantile sketch. */
export class QuantileState extends ExactOrSketch<Float64Array[], QuantileSketch> {
    private constructor(chunks: Float64Array[] | undefined, sketch: QuantileSketch | undefined, bytes: number) {
        super(chunks, sketch, bytes);
    }

    static exact(values: Float64Array): QuantileState {
        const s = new QuantileState([values], undefined, STATE_BYTES + 8 * values.length);
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

    /** The state for another thread (a part of a parallel run, parallel.ts): its numbers in `shared`, or its sketch. */
    toPortable(shared: SharedArrayBuffer[]): QuantileStateJson {
        const chunks = this.data;
        if (chunks === undefined) return { $quantile: 1, sketch: this.sketch!.toJSON() };
        return { $quantile: 1, values: sharedCopy(chunks, shared) };
    }

    /** The state `toPortable` gave, with the same `shared` buffers. */
    static fromPortable(j: QuantileStateJson, shared: readonly SharedArrayBuffer[]): QuantileState {
        if (j.sketch !== undefined) {
            const sketch = QuantileSketch.fromJSON(j.sketch);
            const s = new QuantileState(undefined, sketch, sketch.bytes);
            s.owned = true;
            return s;
        }
        return QuantileState.exact(new Float64Array(sharedAt(shared, j.values, 8, "a percentile state's numbers")));
    }

    /** The nearest-rank value of each rank (rank ⌈p·n/100⌉ clamped to [1, n], as nearestRank does). */
    results(ranks: readonly number[]): (number | null)[] {
        const sketch = this.sketch;
        const n = this.data ? this.data.reduce((s, c) => s + c.length, 0) : sketch!.count;
        const rankOf = (p: number) => (n === 0 || !Number.isFinite(p) ? 0 : Math.min(n, Math.max(1, Math.ceil((p * n) / 100))));
        if (sketch) return ranks.map(p => (rankOf(p) === 0 ? null : sketch.atRank(rankOf(p))));
        const all = concatChunks(this.data!);
        if (ranks.length === 1) return [rankOf(ranks[0]) === 0 ? null : quickselect(all, rankOf(ranks[0]) - 1)];
        all.sort();
        return ranks.map(p => (rankOf(p) === 0 ? null : all[rankOf(p) - 1]));
    }
}

/** A QuantileState between threads: exact (its numbers: the index of their buffer among the part's shared ones) or a sketch. */
export interface QuantileStateJson {
    $quantile: 1;
    values?: number;
    sketch?: QuantileSketchJson;
}

function concatChunks(chunks: readonly Float64Array[]): Float64Array {
    const all = new Float64Array(chunks.reduce((s, c) => s + c.length, 0));
    let at = 0;
    for (const c of chunks) {
        all.set(c, at);
        at += c.length;
    }
    return all;
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
        // Dictionary codes first: a string is taken once per group, not once per row, and hashed once
        // per part. The dictionary's strings are distinct, so each group's are too: lists, not sets.
        const lists: number[][] = Array.from({ length: G }, () => []);
        const col = x.col;
        // Hashes a block on disk stored: its dictionary is not made at all.
        const known = col.keyHashes;
        const D = known ? known.length / 2 + 1 : col.dict.length;
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
            lists[g].push(c);
        }
        const hashes = new Uint32Array(2 * D);
        if (known) hashes.set(known, 2);
        const hashed = new Uint8Array(D).fill(known ? 1 : 0);
        return lists.map(codes => {
            const out = new Uint32Array(2 * codes.length);
            for (let j = 0; j < codes.length; j++) {
                const c = codes[j];
                if (hashed[c] === 0) {
                    keyHash64(col.dict[c], true, hashes, 2 * c);
                    hashed[c] = 1;
                }
                out[2 * j] = hashes[2 * c];
                out[2 * j + 1] = hashes[2 * c + 1];
            }
            return DistinctState.exactHashes(out, precision);
        });
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
        // Each group's numbers in a buffer of their own: a merge keeps a state's chunks past the part,
        // and a view of `all` would keep every group's numbers while the budget counts its own only
        // (a fold whose large groups became sketches held the small ones' whole parts: at 20M events
        // on disk, 63 MB of a query worker against a budget of 16).
        return Array.from({ length: G }, (_, g) => QuantileState.exact(G === 1 ? all : all.slice(counts[g], counts[g + 1])));
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
