/**
 * Columnar storage for the reference evaluator.
 *
 * Representations (chosen for speed in V8 and for nanosecond-exact times):
 * - string   -> `StrColumn`: dictionary encoded. `codes: Uint32Array`, code 0 is null, code k>0 is
 *               `dict[k]`. Equality with a constant is one integer compare per row; string
 *               predicates (`contains`, `has`, ...) run once per distinct value, then map codes.
 * - long     -> `NumColumn` with `Float64Array` values: integers are exact to ±2^53 (beyond that
 *               they round like a double); arithmetic wraps at 64 bits via `wrapLong`. Nulls are a
 *               `Uint8Array` validity map (`nulls[i] === 1`), absent when the column has no nulls.
 * - real     -> `NumColumn` (same layout; NaN and ±Inf are values, nulls are in the map).
 * - datetime / timespan -> `TimeColumn`: `ms: Float64Array` = floor(ns / 1e6) (whole milliseconds,
 *               exact) and `sub: Int32Array` = ns - ms·1e6 in [0, 1e6). Comparisons and bin() run
 *               on the float part alone in the common case (sub = 0), yet the value keeps full ns.
 *               Null is `ms = NaN`.
 * - bool     -> `BoolColumn`: `Uint8Array`, 0 false, 1 true, 2 null.
 * - dynamic  -> `DynColumn`: an array of run-time values (JSON, or `Datetime`/`Timespan`).
 */
import { Datetime, Timespan, type AplValue } from '../values.js';
import type { AplScalarType } from '../types/apl-types.js';
import type { StringLookup } from './string-index.js';

export type ScalarType = AplScalarType;

export interface Column {
    readonly type: ScalarType;
    readonly length: number;
    get(i: number): AplValue;
    isNull(i: number): boolean;
}

/**
 * Strings by dictionary code (0 null). Every maker keeps the dictionary's entries distinct (a value
 * has one code): group-by and dcount (merge-states.ts) compare codes, not strings.
 */
export class StrColumn implements Column {
    readonly type = 'string' as const;
    private lowerCache: string[] | undefined;
    private lowerCacheLen = -1;
    constructor(
        readonly codes: Uint32Array,
        readonly dict: string[],
        readonly length: number = codes.length,
        /** Optional value -> code index (the store's or the builder's). */
        readonly index?: StringLookup,
        /**
         * The 64-bit key hash (sketches.ts keyHash64) of each entry, code k at 2(k - 1), when they
         * are known without hashing (a block on disk stores them): dcount reads these, not `dict`.
         */
        readonly keyHashes?: Uint32Array,
    ) {}
    /** Other codes over this column's dictionary (a gather, a selection made dense). */
    withCodes(codes: Uint32Array, n: number): StrColumn {
        return new StrColumn(codes, this.dict, n, this.index, this.keyHashes);
    }
    /** The code of a string, or -1 when absent. */
    codeOf(s: string): number {
        if (this.index) return this.index.get(s) ?? -1;
        return this.dict.indexOf(s, 1);
    }
    get(i: number): AplValue {
        const c = this.codes[i];
        return c === 0 ? null : this.dict[c];
    }
    isNull(i: number): boolean {
        return this.codes[i] === 0;
    }
    /** Lower-cased dictionary, computed once per dictionary size. */
    lowerDict(): string[] {
        if (this.lowerCacheLen !== this.dict.length) {
            const old = this.lowerCache ?? [];
            const out = old.slice(0, Math.min(old.length, this.dict.length));
            for (let k = out.length; k < this.dict.length; k++) out.push(k === 0 ? '' : this.dict[k].toLowerCase());
            this.lowerCache = out;
            this.lowerCacheLen = this.dict.length;
        }
        return this.lowerCache!;
    }
}

export class NumColumn implements Column {
    constructor(
        readonly type: 'long' | 'real',
        readonly vals: Float64Array,
        readonly nulls: Uint8Array | null,
        readonly length: number = vals.length,
    ) {}
    get(i: number): AplValue {
        return this.nulls !== null && this.nulls[i] === 1 ? null : this.vals[i];
    }
    isNull(i: number): boolean {
        return this.nulls !== null && this.nulls[i] === 1;
    }
}

export class TimeColumn implements Column {
    constructor(
        readonly type: 'datetime' | 'timespan',
        readonly ms: Float64Array,
        readonly sub: Int32Array,
        readonly length: number = ms.length,
    ) {}
    /**
     * The times as stored, int64 ns as little-endian words (low word first), when the column was
     * made from them: a kernel that reads these leaves `ms` and `sub` unmade (LazyTimeColumn).
     */
    get nsWords(): Int32Array | undefined {
        return undefined;
    }
    get(i: number): AplValue {
        const m = this.ms[i];
        if (m !== m) return null;
        const ns = BigInt(m) * 1_000_000n + BigInt(this.sub[i]);
        return this.type === 'datetime' ? new Datetime(ns) : new Timespan(ns);
    }
    isNull(i: number): boolean {
        const m = this.ms[i];
        return m !== m;
    }
    ns(i: number): bigint {
        return BigInt(this.ms[i]) * 1_000_000n + BigInt(this.sub[i]);
    }
    /**
     * Splits the rows `idx` alone into `ms` and `sub` (n of them), when the column can without
     * splitting all of its rows (LazyTimeColumn: a few rows gathered out of a block); false: read `ms`.
     */
    splitRows(_idx: Uint32Array, _n: number, _ms: Float64Array, _sub: Int32Array): boolean {
        return false;
    }
}

export class BoolColumn implements Column {
    readonly type = 'bool' as const;
    constructor(
        readonly vals: Uint8Array,
        readonly length: number = vals.length,
    ) {}
    get(i: number): AplValue {
        const v = this.vals[i];
        return v === 2 ? null : v === 1;
    }
    isNull(i: number): boolean {
        return this.vals[i] === 2;
    }
}

export class DynColumn implements Column {
    constructor(
        readonly vals: AplValue[],
        readonly type: ScalarType = 'dynamic',
        readonly length: number = vals.length,
    ) {}
    get(i: number): AplValue {
        const v = this.vals[i];
        return v === undefined ? null : v;
    }
    isNull(i: number): boolean {
        const v = this.vals[i];
        return v === null || v === undefined;
    }
}

/** A column whose every row holds the same value (used for constants and missing fields). */
export class ConstColumn implements Column {
    constructor(
        readonly type: ScalarType,
        readonly value: AplValue,
        readonly length: number,
    ) {}
    get(): AplValue {
        return this.value;
    }
    isNull(): boolean {
        return this.value === null;
    }
}

/** A computed column (e.g. row ids): values come from a function of the physical row. */
export class FnColumn implements Column {
    constructor(
        readonly type: ScalarType,
        readonly fn: (i: number) => AplValue,
        readonly length: number,
    ) {}
    get(i: number): AplValue {
        return this.fn(i);
    }
    isNull(i: number): boolean {
        return this.fn(i) === null;
    }
}

// ---------------------------------------------------------------------------------------------
// Splitting ns into (ms, sub)

export function splitNs(ns: bigint): [number, number] {
    let ms = ns / 1_000_000n;
    let sub = ns - ms * 1_000_000n;
    if (sub < 0n) {
        sub += 1_000_000n;
        ms -= 1n;
    }
    return [Number(ms), Number(sub)];
}

export function joinNs(ms: number, sub: number): bigint {
    return BigInt(ms) * 1_000_000n + BigInt(sub);
}

// ---------------------------------------------------------------------------------------------
// Builders: turn a sequence of run-time values into a column of a known type.

export interface ColumnBuilder {
    push(v: AplValue): void;
    build(): Column;
}

export function builderFor(type: ScalarType | 'unknown', capacity = 16): ColumnBuilder {
    switch (type) {
        case 'string': return new StrBuilder();
        case 'long':
        case 'real': return new NumBuilder(type, capacity);
        case 'datetime':
        case 'timespan': return new TimeBuilder(type, capacity);
        case 'bool': return new BoolBuilder(capacity);
        default: return new DynBuilder();
    }
}

export class StrBuilder implements ColumnBuilder {
    private codes: Uint32Array;
    private n = 0;
    readonly dict: string[] = [''];
    readonly index = new Map<string, number>();
    constructor(capacity = 16) {
        this.codes = new Uint32Array(Math.max(16, capacity));
    }
    push(v: AplValue): void {
        if (this.n === this.codes.length) {
            const next = new Uint32Array(this.codes.length * 2);
            next.set(this.codes);
            this.codes = next;
        }
        if (v === null || v === undefined) {
            this.codes[this.n++] = 0;
            return;
        }
        const s = typeof v === 'string' ? v : valueToString(v);
        let c = this.index.get(s);
        if (c === undefined) {
            c = this.dict.length;
            this.dict.push(s);
            this.index.set(s, c);
        }
        this.codes[this.n++] = c;
    }
    build(): StrColumn {
        return new StrColumn(this.codes.subarray(0, this.n), this.dict, this.n, this.index);
    }
}

class NumBuilder implements ColumnBuilder {
    private vals: Float64Array;
    private nulls: Uint8Array | null = null;
    private n = 0;
    constructor(
        private readonly type: 'long' | 'real',
        capacity: number,
    ) {
        this.vals = new Float64Array(Math.max(16, capacity));
    }
    push(v: AplValue): void {
        if (this.n === this.vals.length) {
            const next = new Float64Array(this.vals.length * 2);
            next.set(this.vals);
            this.vals = next;
            if (this.nulls) {
                const nn = new Uint8Array(next.length);
                nn.set(this.nulls);
                this.nulls = nn;
            }
        }
        const x = toNumberOrNull(v);
        if (x === null) {
            this.nulls ??= new Uint8Array(this.vals.length);
            this.nulls[this.n] = 1;
        } else {
            this.vals[this.n] = this.type === 'long' ? Math.trunc(x) : x;
        }
        this.n++;
    }
    build(): NumColumn {
        return new NumColumn(this.type, this.vals.subarray(0, this.n), this.nulls ? this.nulls.subarray(0, this.n) : null, this.n);
    }
}

class TimeBuilder implements ColumnBuilder {
    private ms: Float64Array;
    private sub: Int32Array;
    private n = 0;
    constructor(
        private readonly type: 'datetime' | 'timespan',
        capacity: number,
    ) {
        this.ms = new Float64Array(Math.max(16, capacity));
        this.sub = new Int32Array(Math.max(16, capacity));
    }
    push(v: AplValue): void {
        if (this.n === this.ms.length) {
            const m = new Float64Array(this.ms.length * 2);
            m.set(this.ms);
            this.ms = m;
            const s = new Int32Array(this.sub.length * 2);
            s.set(this.sub);
            this.sub = s;
        }
        let ns: bigint | null = null;
        if (v instanceof Datetime || v instanceof Timespan) ns = v.ns;
        else if (typeof v === 'number' && Number.isFinite(v)) ns = BigInt(Math.trunc(v));
        if (ns === null) {
            this.ms[this.n] = NaN;
            this.sub[this.n] = 0;
        } else {
            const [a, b] = splitNs(ns);
            this.ms[this.n] = a;
            this.sub[this.n] = b;
        }
        this.n++;
    }
    build(): TimeColumn {
        return new TimeColumn(this.type, this.ms.subarray(0, this.n), this.sub.subarray(0, this.n), this.n);
    }
}

class BoolBuilder implements ColumnBuilder {
    private vals: Uint8Array;
    private n = 0;
    constructor(capacity: number) {
        this.vals = new Uint8Array(Math.max(16, capacity));
    }
    push(v: AplValue): void {
        if (this.n === this.vals.length) {
            const next = new Uint8Array(this.vals.length * 2);
            next.set(this.vals);
            this.vals = next;
        }
        this.vals[this.n++] = v === null || v === undefined ? 2 : v === true ? 1 : v === false ? 0 : truthy(v);
    }
    build(): BoolColumn {
        return new BoolColumn(this.vals.subarray(0, this.n), this.n);
    }
}

class DynBuilder implements ColumnBuilder {
    private readonly vals: AplValue[] = [];
    push(v: AplValue): void {
        this.vals.push(v === undefined ? null : v);
    }
    build(): DynColumn {
        return new DynColumn(this.vals);
    }
}

function truthy(v: AplValue): 0 | 1 | 2 {
    if (typeof v === 'number') return v !== 0 ? 1 : 0;
    if (typeof v === 'string') {
        if (/^(1|t|T|TRUE|true|True)$/.test(v)) return 1;
        if (/^(0|f|F|FALSE|false|False)$/.test(v)) return 0;
        return 2;
    }
    return 2;
}

export function toNumberOrNull(v: AplValue): number | null {
    if (typeof v === 'number') return v;
    if (v === null || v === undefined) return null;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v instanceof Datetime || v instanceof Timespan) return Number(v.ns);
    if (typeof v === 'string') {
        const t = v.trim();
        if (t === '') return null;
        const x = Number(t);
        return Number.isNaN(x) ? null : x;
    }
    return null;
}

export function valueToString(v: AplValue): string {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v instanceof Datetime || v instanceof Timespan) return v.toString();
    return JSON.stringify(v);
}

/** A column from an array of values of the given type. */
export function columnFromValues(type: ScalarType | 'unknown', values: readonly AplValue[]): Column {
    const b = builderFor(type, values.length);
    for (const v of values) b.push(v);
    return b.build();
}

/** Copies rows `idx` of `col` (physical indexes) into a new dense column. */
export function gatherColumn(col: Column, idx: Uint32Array | null, n: number): Column {
    if (idx === null && col.length === n) return col;
    if (col instanceof StrColumn) {
        const codes = new Uint32Array(n);
        const src = col.codes;
        if (idx) for (let i = 0; i < n; i++) codes[i] = src[idx[i]];
        else codes.set(src.subarray(0, n));
        return col.withCodes(codes, n);
    }
    if (col instanceof NumColumn) {
        const vals = new Float64Array(n);
        const src = col.vals;
        let nulls: Uint8Array | null = null;
        if (idx) for (let i = 0; i < n; i++) vals[i] = src[idx[i]];
        else vals.set(src.subarray(0, n));
        if (col.nulls) {
            nulls = new Uint8Array(n);
            const sn = col.nulls;
            if (idx) for (let i = 0; i < n; i++) nulls[i] = sn[idx[i]];
            else nulls.set(sn.subarray(0, n));
        }
        return new NumColumn(col.type, vals, nulls, n);
    }
    if (col instanceof TimeColumn) {
        const ms = new Float64Array(n);
        const sub = new Int32Array(n);
        if (idx && col.splitRows(idx, n, ms, sub)) return new TimeColumn(col.type, ms, sub, n);
        if (idx) {
            for (let i = 0; i < n; i++) {
                const j = idx[i];
                ms[i] = col.ms[j];
                sub[i] = col.sub[j];
            }
        } else {
            ms.set(col.ms.subarray(0, n));
            sub.set(col.sub.subarray(0, n));
        }
        return new TimeColumn(col.type, ms, sub, n);
    }
    if (col instanceof BoolColumn) {
        const vals = new Uint8Array(n);
        if (idx) for (let i = 0; i < n; i++) vals[i] = col.vals[idx[i]];
        else vals.set(col.vals.subarray(0, n));
        return new BoolColumn(vals, n);
    }
    if (col instanceof ConstColumn) return new ConstColumn(col.type, col.value, n);
    const out: AplValue[] = new Array(n);
    if (idx) for (let i = 0; i < n; i++) out[i] = col.get(idx[i]);
    else for (let i = 0; i < n; i++) out[i] = col.get(i);
    return col.type === 'dynamic' ? new DynColumn(out) : columnFromValues(col.type, out);
}
