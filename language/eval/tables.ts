/**
 * In-memory datasets: append-friendly column builders with type widening, row ids, and consistent
 * snapshots for queries.
 *
 * Each field is a growable column (typed arrays doubled on demand, big ones grown in place: see
 * column-buffers.ts). A query takes a `Snapshot`: the row count and a view of every column at that
 * moment. Appends after the snapshot write past its row count, and a type change replaces the
 * field's column with a new object, so a snapshot never sees rows or types that arrived after it
 * was taken.
 */
import { parseGoDuration } from '../values.js';
import type { ScalarType } from './columns.js';
import { BoolColumn, type Column, ConstColumn, DynColumn, FnColumn, NumColumn, StrColumn, TimeColumn, splitNs } from './columns.js';
import type { AplValue, JsonValue } from '../values.js';
import { flattenLabels, normalizeEvents, parseTimeValue, type NormalizeOptions } from '../ingest/normalize-event.js';
import { batchIdHex, formatRowId, newBatchId, parseRowIdFast, type ParsedCursor } from '../api/row-id.js';
import type { IngestFailure } from '../api/ingest.js';
import { allocColumn, growColumn } from './column-buffers.js';
import { StringIndex, stringHash } from './string-index.js';
import { timeOrder } from './kernels/sort.js';
import { splitTimes } from './kernels/time.js';
import { decodeValue, encodeValue, type DatasetDelta, type DatasetSyncState, type FieldDelta, type FieldSyncState } from './replica.js';

/** Events normalised and appended as one batch by `ingest` (bounds the normaliser's arrays). */
const INGEST_CHUNK = 4096;

/** A time given as ns (bigint) or as the ingest path reads times (RFC 3339 text, an epoch number). */
function timeOf(v: unknown): bigint | undefined {
    return typeof v === 'bigint' ? v : parseTimeValue(v);
}

/** Field type hints: a sample dataset's schema, or what the caller declares. */
export interface DatasetSchemaHints {
    fieldTypes?: Record<string, ScalarType>;
    mapFields?: Iterable<string>;
}

export interface IngestOptions {
    /** The field holding the event time. Default `_time`; with the engine option more names may be tried. */
    timestampField?: string;
    /** Fallback names tried in order when `timestampField` is absent from an event. */
    timestampFallbacks?: readonly string[];
    /** A Go layout for the time field (`2006-01-02 15:04:05`), as the service's `timestamp-format`. */
    timestampFormat?: string;
    /** Receive time (ns since epoch); also `_sysTime`. Default now. */
    now?: bigint;
    /** Fields added to every event (X-Axiom-Event-Labels). */
    labels?: Record<string, unknown>;
}

export type { IngestFailure };

export interface IngestCounts {
    ingested: number;
    failed: number;
    failures: IngestFailure[];
}

/** One growable column of a dataset. */
class FieldColumn {
    kind: 'string' | 'long' | 'real' | 'bool' | 'datetime' | 'timespan' | 'dynamic' | 'empty' = 'empty';
    length = 0;
    // string
    codes: Uint32Array = new Uint32Array(0);
    dict: string[] = [''];
    /**
     * Two indexes of `dict`, each made from it the first time it is needed and kept in step after:
     * `hashed` for chunks (their strings come with hashes), `byValue` for strings appended one by one
     * (V8 keeps a string's hash in the string, and a value that repeats is often the same string,
     * where a hash computed in JS would be computed again every time). The service's ingest uses
     * the first alone, `engine.ingest` the second.
     */
    hashed: StringIndex | null = null;
    byValue: Map<string, number> | null = null;
    // numbers / times
    vals: Float64Array = new Float64Array(0);
    nulls: Uint8Array | null = null;
    sub: Int32Array = new Int32Array(0);
    // bool
    bools: Uint8Array = new Uint8Array(0);
    // dynamic
    dyn: AplValue[] = [];
    /** Every JSON type seen, for `fields()` (`integer|float`). */
    seen = new Set<string>();
    /** Numbers seen: 1 integer, 2 float (kept out of `seen` for speed). */
    seenBits = 0;
    /** Filled by `applyDelta` (a query worker's copy): `index` is not kept. */
    replica = false;
    /** Declared type (sample schema / map field); values are converted to it. */
    constructor(
        readonly name: string,
        readonly declared: ScalarType | undefined,
        /** Allocate on SharedArrayBuffer (see `typed`). */
        readonly shared = false,
    ) {}

    private capacity(): number {
        switch (this.kind) {
            case 'string': return this.codes.length;
            case 'long': case 'real': case 'datetime': case 'timespan': return this.vals.length;
            case 'bool': return this.bools.length;
            default: return Infinity;
        }
    }

    private grow(min: number): void {
        const cap = Math.max(min, 1024, this.capacity() === Infinity ? 0 : this.capacity() * 2);
        const n = this.length;
        const sh = this.shared;
        switch (this.kind) {
            case 'string': this.codes = growColumn(Uint32Array, this.codes, n, cap, sh); break;
            case 'long': case 'real': case 'datetime': case 'timespan':
                this.vals = growColumn(Float64Array, this.vals, n, cap, sh);
                if (this.kind === 'datetime' || this.kind === 'timespan') this.sub = growColumn(Int32Array, this.sub, n, cap, sh);
                else if (this.nulls) this.nulls = growColumn(Uint8Array, this.nulls, n, cap, sh);
                break;
            case 'bool': this.bools = growColumn(Uint8Array, this.bools, n, cap, sh); break;
            default: break;
        }
    }

    /** The code of `s` (appended one by one), added to the dictionary if new. */
    private codeFor(s: string): number {
        let m = this.byValue;
        if (m === null) {
            m = new Map();
            for (let c = 1; c < this.dict.length; c++) m.set(this.dict[c], c);
            this.byValue = m;
        }
        return m.get(s) ?? this.addString(s);
    }

    private hashedIndex(): StringIndex {
        if (this.hashed === null) {
            this.hashed = new StringIndex(this.dict, 0);
            for (let c = 1; c < this.dict.length; c++) this.hashed.add(this.dict[c], c);
        }
        return this.hashed;
    }

    /** Adds a string that is not in the dictionary yet (its hash `h`, when known); returns its code. */
    private addString(s: string, flat = false, h?: number): number {
        const c = this.dict.length;
        const own = flat ? s : ownString(s);
        this.dict.push(own);
        this.hashed?.add(own, c, h);
        this.byValue?.set(own, c);
        return c;
    }

    /** Pads with nulls up to `row`. */
    padTo(row: number): void {
        if (this.length >= row) return;
        if (this.kind === 'empty') {
            this.length = row;
            return;
        }
        if (this.capacity() < row) this.grow(row);
        switch (this.kind) {
            case 'string': this.codes.fill(0, this.length, row); break;
            case 'long': case 'real':
                this.nulls ??= allocColumn(Uint8Array, this.vals.length, this.shared);
                this.nulls.fill(1, this.length, row);
                break;
            case 'datetime': case 'timespan': this.vals.fill(NaN, this.length, row); break;
            case 'bool': this.bools.fill(2, this.length, row); break;
            case 'dynamic': for (let i = this.length; i < row; i++) this.dyn.push(null); break;
        }
        this.length = row;
    }

    private becomeKind(kind: FieldColumn['kind']): void {
        // Called when the column is still empty (all nulls so far): start the typed storage.
        const n = this.length;
        this.kind = kind;
        this.length = 0;
        this.padTo(n);
    }

    /** Switches to dynamic storage, keeping every value so far. */
    private widenToDynamic(): void {
        const n = this.length;
        const snap = this.view(n);
        const vals: AplValue[] = new Array(n);
        for (let i = 0; i < n; i++) vals[i] = snap.get(i);
        this.kind = 'dynamic';
        this.dyn = vals;
        // New arrays: old snapshots keep their views.
        this.codes = new Uint32Array(0);
        this.vals = new Float64Array(0);
        this.bools = new Uint8Array(0);
        this.sub = new Int32Array(0);
        this.nulls = null;
        this.dict = [''];
        this.hashed = null;
        this.byValue = null;
    }

    append(row: number, value: unknown): void {
        if (this.length < row) this.padTo(row);
        // Fast paths: the value has the column's current type.
        const kind = this.kind;
        if (kind === 'string') {
            if (typeof value === 'string' && this.declared === undefined) {
                if (this.length === this.codes.length) this.grow(this.length + 1);
                this.codes[this.length++] = this.codeFor(value);
                return;
            }
        } else if (kind === 'long' || kind === 'real') {
            if (typeof value === 'number' && this.declared === undefined && value - value === 0) {
                if (kind === 'long' && !Number.isInteger(value)) {
                    this.kind = 'real';
                    this.seenBits |= 2;
                } else this.seenBits |= Number.isInteger(value) ? 1 : 2;
                if (this.length === this.vals.length) this.grow(this.length + 1);
                this.vals[this.length++] = value;
                return;
            }
        } else if (kind === 'bool') {
            if (typeof value === 'boolean' && this.declared === undefined) {
                if (this.length === this.bools.length) this.grow(this.length + 1);
                this.bools[this.length++] = value ? 1 : 0;
                return;
            }
        }
        if (value === null || value === undefined) {
            this.padTo(row + 1);
            return;
        }
        const d = this.declared;
        if (d !== undefined && d !== 'dynamic' && this.kind !== 'dynamic') {
            const v = convertDeclared(d, value);
            if (v !== undefined) {
                if (this.kind === 'empty') this.becomeKind(d);
                if (this.kind === d || ((d === 'long' || d === 'real') && (this.kind === 'long' || this.kind === 'real'))) {
                    this.appendTyped(v);
                    return;
                }
            }
        }
        if (d === 'dynamic') {
            if (this.kind === 'empty') this.becomeKind('dynamic');
            this.seen.add(jsonKind(value));
            this.dyn.push(value as JsonValue);
            this.length++;
            return;
        }
        switch (typeof value) {
            case 'string': {
                if (this.kind !== 'string') this.seen.add('string');
                if (this.kind === 'empty') this.becomeKind('string');
                if (this.kind === 'string') {
                    if (this.length === this.codes.length) this.grow(this.length + 1);
                    this.codes[this.length++] = this.codeFor(value);
                    return;
                }
                break;
            }
            case 'number': {
                if (!Number.isFinite(value)) {
                    this.padTo(row + 1);
                    return;
                }
                const isInt = Number.isInteger(value);
                this.seenBits |= isInt ? 1 : 2;
                if (this.kind === 'empty') this.becomeKind(isInt ? 'long' : 'real');
                if (this.kind === 'long' || this.kind === 'real') {
                    if (!isInt) this.kind = 'real';
                    if (this.length === this.vals.length) this.grow(this.length + 1);
                    this.vals[this.length++] = value;
                    return;
                }
                break;
            }
            case 'boolean': {
                if (this.kind !== 'bool') this.seen.add('boolean');
                if (this.kind === 'empty') this.becomeKind('bool');
                if (this.kind === 'bool') {
                    if (this.length === this.bools.length) this.grow(this.length + 1);
                    this.bools[this.length++] = value ? 1 : 0;
                    return;
                }
                break;
            }
            case 'bigint': {
                this.append(row, Number(value));
                return;
            }
            default:
                this.seen.add(Array.isArray(value) ? 'array' : 'map');
                break;
        }
        if (this.kind !== 'dynamic') {
            if (this.kind === 'empty') this.becomeKind('dynamic');
            else this.widenToDynamic();
        }
        this.dyn.push(value as JsonValue);
        this.length++;
    }

    /**
     * Appends `n` rows of a columnar chunk starting at row `row0` (rows before it are padded).
     * Fast paths copy typed data when the column has no declared type and the chunk's kind fits
     * the column's storage; anything else goes value by value through `append` (same widening).
     */
    appendChunk(row0: number, n: number, col: ColumnChunk, sel: ArrayLike<number> | null, flatStrings = false, numberStrings = false): void {
        this.padTo(row0);
        if (this.declared === undefined) {
            if (col.kind === 'f64' && (this.kind === 'empty' || this.kind === 'long' || this.kind === 'real')) {
                this.appendF64(row0, n, col.values, col.present, sel);
                return;
            }
            if (col.kind === 'str' && (this.kind === 'empty' || this.kind === 'string')) {
                this.appendStr(row0, n, col, sel, flatStrings, numberStrings);
                return;
            }
            if (col.kind === 'bool' && (this.kind === 'empty' || this.kind === 'bool')) {
                this.appendBool(row0, n, col.values, sel);
                return;
            }
        }
        for (let i = 0; i < n; i++) {
            const v = chunkValue(col, sel === null ? i : sel[i]);
            if (v !== undefined) this.append(row0 + i, v);
        }
    }

    private appendF64(row0: number, n: number, values: Float64Array, present: Uint8Array | null, sel: ArrayLike<number> | null): void {
        let bits = 0;
        let absent = 0;
        for (let i = 0; i < n; i++) {
            const s = sel === null ? i : sel[i];
            if (present !== null && ((present[s >> 3] >> (s & 7)) & 1) === 0) absent++;
            else bits |= Number.isInteger(values[s]) ? 1 : 2;
        }
        if (bits === 0) return; // all absent: padded later
        if (this.kind === 'empty') this.becomeKind(bits & 2 ? 'real' : 'long');
        const end = row0 + n;
        if (this.vals.length < end) this.grow(end);
        const vals = this.vals;
        if (sel === null && absent === 0) vals.set(values.subarray(0, n), row0);
        else {
            for (let i = 0; i < n; i++) {
                const s = sel === null ? i : sel[i];
                vals[row0 + i] = values[s];
            }
        }
        if (absent > 0) {
            this.nulls ??= allocColumn(Uint8Array, vals.length, this.shared);
            const nulls = this.nulls;
            for (let i = 0; i < n; i++) {
                const s = sel === null ? i : sel[i];
                if (((present![s >> 3] >> (s & 7)) & 1) === 0) {
                    nulls[row0 + i] = 1;
                    vals[row0 + i] = 0;
                }
            }
        }
        if (bits & 2) this.kind = 'real';
        this.seenBits |= bits;
        this.length = end;
    }

    private appendStr(row0: number, n: number, col: ColumnChunk & { kind: 'str' }, sel: ArrayLike<number> | null, flat: boolean, number: boolean): void {
        const { dict, codes, hashes } = col;
        let any = false;
        for (let i = 0; i < n; i++) {
            if (codes[sel === null ? i : sel[i]] !== 0) {
                any = true;
                break;
            }
        }
        if (!any) return;
        if (this.kind === 'empty') {
            this.seen.add('string');
            this.becomeKind('string');
        }
        const end = row0 + n;
        if (this.codes.length < end) this.grow(end);
        const out = this.codes;
        const index = this.hashedIndex();
        // Chunk code k (1-based) -> our code, resolved on first use (unused entries add nothing).
        const map = new Uint32Array(dict.length + 1).fill(0xffffffff);
        map[0] = 0;
        for (let i = 0; i < n; i++) {
            const k = codes[sel === null ? i : sel[i]];
            let c = map[k];
            if (c === 0xffffffff) {
                const str = dict[k - 1];
                const h = hashes === undefined ? stringHash(str) : hashes[k - 1];
                map[k] = c = index.get(str, h) ?? this.addString(str, flat, h);
            }
            out[row0 + i] = c;
        }
        this.length = end;
        // Only a whole chunk: with a selection, entries of unselected rows have no code here.
        if (number && sel === null) col.numbered = { dict: this.dict, codes: map };
    }

    private appendBool(row0: number, n: number, values: Uint8Array, sel: ArrayLike<number> | null): void {
        let any = false;
        for (let i = 0; i < n; i++) {
            if (values[sel === null ? i : sel[i]] !== 2) {
                any = true;
                break;
            }
        }
        if (!any) return;
        if (this.kind === 'empty') {
            this.seen.add('boolean');
            this.becomeKind('bool');
        }
        const end = row0 + n;
        if (this.bools.length < end) this.grow(end);
        const out = this.bools;
        for (let i = 0; i < n; i++) {
            const v = values[sel === null ? i : sel[i]];
            out[row0 + i] = v === 1 ? 1 : v === 0 ? 0 : 2;
        }
        this.length = end;
    }

    private appendTyped(v: AplValue | bigint): void {
        if (this.length >= this.capacity()) this.grow(this.length + 1);
        switch (this.kind) {
            case 'datetime': case 'timespan': {
                const [ms, sub] = splitNs(v as bigint);
                this.vals[this.length] = ms;
                this.sub[this.length] = sub;
                break;
            }
            case 'long': case 'real': this.vals[this.length] = v as number; break;
            case 'bool': this.bools[this.length] = v ? 1 : 0; break;
            case 'string': {
                const s = v as string;
                this.codes[this.length] = this.codeFor(s);
                break;
            }
            default: this.dyn.push(v as AplValue); break;
        }
        this.length++;
    }

    type(): ScalarType {
        if (this.kind === 'empty') return this.declared ?? 'string';
        return this.kind;
    }

    /** A read-only view of the first `n` rows. */
    view(n: number): Column {
        switch (this.kind) {
            case 'empty': return new ConstColumn(this.type(), null, n);
            case 'string': return new StrColumn(this.codes.subarray(0, n), this.dict, n, this.replica ? undefined : (this.hashed ?? this.byValue ?? undefined));
            case 'long': case 'real': return new NumColumn(this.kind, this.vals.subarray(0, n), this.nulls ? this.nulls.subarray(0, n) : null, n);
            case 'datetime': case 'timespan': return new TimeColumn(this.kind, this.vals.subarray(0, n), this.sub.subarray(0, n), n);
            case 'bool': return new BoolColumn(this.bools.subarray(0, n), n);
            case 'dynamic': return new DynColumn(this.dyn.slice(0, n), 'dynamic', n);
        }
    }

    /** The type as Axiom reports it for `/fields`: `string`, `integer`, `float`, `integer|float`, ... */
    axiomType(): string {
        switch (this.kind) {
            case 'datetime': return 'datetime';
            case 'timespan': return 'timespan';
            case 'string': return 'string';
            case 'bool': return 'boolean';
            case 'long': return 'integer';
            case 'real': return this.seenBits & 1 ? 'integer|float' : 'float';
            case 'empty': return '';
            default: {
                const kinds = new Set(this.seen);
                if (this.seenBits & 1) kinds.add('integer');
                if (this.seenBits & 2) kinds.add('float');
                return [...kinds].sort().join('|');
            }
        }
    }

    /** The dictionary's strings so far counted by `dictBytes`: the array, how many, and their bytes. */
    private dictCounted: { dict: string[]; n: number; bytes: number } = { dict: [], n: 0, bytes: 0 };

    /** The dictionary's bytes (per entry: the string, header and up to 2 bytes a character, and its entry in `index`), counting only the strings added since the last call. */
    private dictBytes(): number {
        let c = this.dictCounted;
        if (c.dict !== this.dict || c.n > this.dict.length) c = this.dictCounted = { dict: this.dict, n: 0, bytes: 0 };
        for (; c.n < this.dict.length; c.n++) c.bytes += this.dict[c.n].length * 2 + 72;
        return c.bytes;
    }

    /**
     * The bytes the column's rows take: the rows written, not the room made for more (a growable
     * column's room is address space until written, see column-buffers.ts), so the figure grows
     * with the rows rather than jumping at each growth.
     */
    byteSize(): number {
        const n = this.length;
        switch (this.kind) {
            case 'string': return n * 4 + this.dictBytes();
            case 'long': case 'real': return n * (this.nulls ? 9 : 8);
            case 'datetime': case 'timespan': return n * 12;
            case 'bool': return n;
            default: return this.dyn.length * 32;
        }
    }
}

/**
 * A compact copy of a string a dictionary keeps. Values often arrive as cons or sliced strings
 * (built by concatenation, cut from a larger text) that keep their parts alive, and they sit on heap
 * pages full of the batch's garbage, which one kept string pins: a fresh flat copy avoids both.
 * Strings this short are never cons or sliced in V8.
 */
function ownString(s: string): string {
    return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

function jsonKind(v: unknown): string {
    if (Array.isArray(v)) return 'array';
    if (typeof v === 'object') return 'map';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
    if (typeof v === 'boolean') return 'boolean';
    return typeof v;
}

/** Converts an ingested JSON value to a declared type; undefined when it does not fit. */
function convertDeclared(type: ScalarType, v: unknown): AplValue | bigint | undefined {
    switch (type) {
        case 'timespan':
            if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.round(v));
            if (typeof v === 'string') return parseGoDuration(v) ?? (/^-?\d+$/.test(v) ? BigInt(v) : undefined);
            return undefined;
        case 'datetime': {
            const ns = timeOf(v);
            return ns === undefined ? undefined : ns;
        }
        case 'long':
        case 'real':
            return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
        case 'bool':
            return typeof v === 'boolean' ? v : undefined;
        case 'string':
            return typeof v === 'string' ? v : undefined;
        default:
            return undefined;
    }
}

/** A batch of flat events (the service's normalised ingest batch). */
export interface FlatBatch {
    /** `_time` per event, ns since the epoch. */
    times: BigInt64Array | readonly bigint[];
    /** Flat fields per event (dotted names; no `_time`/`_sysTime`). Not retained. */
    fields: readonly Record<string, unknown>[];
    /** `_sysTime` of every event (ns). */
    sysTime: bigint;
    /**
     * The batch id: row r's id is `formatRowId(times[r], hex16(batchSeq), r)`. A number/bigint is
     * formatted as 16 hex digits; a string must already be 16 hex digits. Default: a fresh id.
     */
    batchSeq?: number | bigint | string;
    /** Only these rows (ascending indexes into `fields`); row ids keep the original indexes. */
    select?: ArrayLike<number>;
}

/** One column of a columnar chunk (the durable store's block encodings). */
export type ColumnChunk =
    | { name: string; kind: 'f64'; values: Float64Array; /** bit i = row i has a value; null = all present */ present: Uint8Array | null }
    | { name: string; kind: 'bool'; /** 0 false, 1 true, 2 absent */ values: Uint8Array }
    | {
        name: string;
        kind: 'str';
        dict: readonly string[];
        /** 0 absent, k -> dict[k - 1] */
        codes: Uint32Array;
        /** `stringHash` of each entry of `dict`, when its maker knows them (the ingest workers do). */
        hashes?: Int32Array;
        /**
         * keyHash64 of each entry of `dict` as (high, low) pairs, when its maker knows them (a block
         * on disk stores them for a large dictionary): then `dict` may be made only when first read.
         */
        keyHashes?: Uint32Array;
        /** dict[k - 1] without making `dict`, when its maker can (a block on disk stores a large dictionary in parts). */
        valueAt?: (k: number) => string;
        /** Written by the engine when the chunk asks for it (`ColumnarChunk.numberStrings`). */
        numbered?: StringNumbering;
    }
    | { name: string; kind: 'json'; /** null = absent */ values: readonly unknown[] };

/**
 * What the engine's column made of a chunk's string column: `codes[k]` is entry k's code (1-based,
 * as the chunk's) in `dict`, the engine column's dictionary, or 0xffffffff for an entry no row
 * uses. `dict` is only ever appended to while the column uses it (a column that changes storage
 * starts a new array), so codes given against one `dict` stay that string's code: another holder
 * of several such chunks (the store compacting its WAL tail) can merge them by number, comparing
 * `dict` by identity, without hashing or comparing a string again.
 */
export interface StringNumbering {
    dict: readonly string[];
    codes: Uint32Array;
}

/** Rows in columnar form: row i has id (times[i], batches[batchOf[i]].seq, rowInBatch[i]). */
export interface ColumnarChunk {
    rows: number;
    times: BigInt64Array;
    batchOf: Uint32Array;
    rowInBatch: Uint32Array;
    batches: readonly { seq: number | bigint | string; sysTime: bigint }[];
    columns: readonly ColumnChunk[];
    /** Only these rows (ascending), default all. */
    select?: ArrayLike<number>;
    /** The rows are in a dataset's order (time, batch id, row in batch), as blocks written since they say so keep them: no order need be made. */
    inTimeOrder?: boolean;
    /**
     * The dictionaries' strings are flat and fresh (read from a message or a file, not built by
     * concatenation or cut from a larger text): kept as they are instead of copied (`ownString`).
     */
    flatStrings?: boolean;
    /** Leave each string column's `numbered` (the codes its entries got here) on the column. */
    numberStrings?: boolean;
}

function chunkValue(col: ColumnChunk, i: number): unknown {
    switch (col.kind) {
        case 'f64': return col.present === null || ((col.present[i >> 3] >> (i & 7)) & 1) !== 0 ? col.values[i] : undefined;
        case 'bool': return col.values[i] === 2 ? undefined : col.values[i] === 1;
        case 'str': return col.codes[i] === 0 ? undefined : col.dict[col.codes[i] - 1];
        case 'json': return col.values[i] === null ? undefined : col.values[i];
    }
}

/** A consistent view of a dataset for one query. */
export interface Snapshot {
    readonly dataset: string;
    readonly rows: number;
    readonly fields: { name: string; type: ScalarType }[];
    column(name: string): Column | undefined;
    /** Physical row indexes sorted by (_time, row id) ascending. */
    ascOrder(): Uint32Array;
    /** The reverse of `ascOrder` (newest first). */
    descOrder(): Uint32Array;
    /** Its inverse: rank[row] = the row's position in `descOrder` (for kernels that walk rows physically). */
    descRank(): Uint32Array;
    /**
     * The most any row's position in `ascOrder` is from its physical row (0: rows in time order):
     * positions [a, b) of the order lie in physical rows [a - spread, b + spread). Events that share
     * a millisecond but arrived out of order move a few rows; shuffled events, anywhere.
     */
    orderSpread(): number;
    rowId(i: number): string;
    /** Compares two physical rows by (_time, row id). */
    compareRows(a: number, b: number): number;
    /** Compares a physical row's id with a cursor string (<0: row before cursor). */
    compareWithCursor(i: number, cursor: ParsedCursor): number;
    time: TimeColumn;
    sysTime: TimeColumn;
    minTime(): bigint | undefined;
    maxTime(): bigint | undefined;
}

let storeInstances = 0;

export class DatasetStore {
    rows = 0;
    /** Unique per store object in this thread: a replica knows a reloaded dataset by a new id. */
    readonly instanceId = ++storeInstances;
    private readonly fields = new Map<string, FieldColumn>();
    private readonly fieldOrder: FieldColumn[] = [];
    /** Columns on SharedArrayBuffer, for query worker replicas (`exportDelta`). */
    private readonly shared: boolean;
    // system columns
    private timeMs: Float64Array;
    private timeSub: Int32Array;
    /**
     * Rows of `timeSub` / `sysSub` ever written; past them the arrays are still zero-filled. Sub-ms
     * parts are mostly 0 (clocks in ms), and a zero is not written over zeros, so pages that stay
     * all zero are never touched and the OS gives them no memory (see column-buffers.ts).
     */
    private timeSubTouched = 0;
    private sysSubTouched = 0;
    private sysMs: Float64Array;
    private sysSub: Int32Array;
    /** Row id parts: index into `batches` and the row's index within its batch. */
    private batchOf: Uint32Array;
    private seqOf: Uint32Array;
    /** Batch ids (16 hex digits), append-only: snapshots share the array. */
    private readonly batches: string[] = [];
    private readonly batchIndex = new Map<string, number>();
    /** True while every batch id added is greater than the one before (then rank = index). */
    private batchesAscending = true;
    private rankCache: Uint32Array | undefined;
    /** Row ids that are not in canonical form (kept verbatim; `ingestFlat` only). */
    private readonly rowIdOverrides = new Map<number, string>();
    /** Physical order is (_time, row id) order; kept exact by `checkOrder`. */
    private sortedAsc = true;
    private orderCache: { rows: number; order: Uint32Array } | undefined;
    private readonly declared: Record<string, ScalarType>;
    private readonly mapFields: Set<string>;
    /** Field lookup memo by key position in the previous flat record (records mostly share a shape). */
    private readonly shapeKeys: string[] = [];
    private readonly shapeCols: (FieldColumn | null)[] = [];
    readonly created = new Date();

    constructor(
        readonly name: string,
        hints: DatasetSchemaHints = {},
        options: { shared?: boolean } = {},
    ) {
        this.shared = options.shared === true;
        this.timeMs = allocColumn(Float64Array, 1024, this.shared);
        this.timeSub = allocColumn(Int32Array, 1024, this.shared);
        this.sysMs = allocColumn(Float64Array, 1024, this.shared);
        this.sysSub = allocColumn(Int32Array, 1024, this.shared);
        this.batchOf = allocColumn(Uint32Array, 1024, this.shared);
        this.seqOf = allocColumn(Uint32Array, 1024, this.shared);
        this.declared = { ...(hints.fieldTypes ?? {}) };
        this.mapFields = new Set(hints.mapFields ?? []);
        for (const m of this.mapFields) this.declared[m] = 'dynamic';
    }

    /** Makes room for `n` rows in the system columns (a loader that knows the size avoids regrowth). */
    reserve(n: number): void {
        this.ensureCapacity(n);
    }

    private ensureCapacity(n: number): void {
        if (n <= this.timeMs.length) return;
        let cap = this.timeMs.length;
        while (cap < n) cap *= 2;
        if (this.rows === 0) cap = Math.max(n, 1024);
        const rows = this.rows;
        const sh = this.shared;
        this.timeMs = growColumn(Float64Array, this.timeMs, rows, cap, sh);
        this.timeSub = growColumn(Int32Array, this.timeSub, rows, cap, sh);
        this.sysMs = growColumn(Float64Array, this.sysMs, rows, cap, sh);
        this.sysSub = growColumn(Int32Array, this.sysSub, rows, cap, sh);
        this.batchOf = growColumn(Uint32Array, this.batchOf, rows, cap, sh);
        this.seqOf = growColumn(Uint32Array, this.seqOf, rows, cap, sh);
    }

    /** Writes the event times of rows [row0, row0 + n). */
    private writeTimes(times: BigInt64Array | readonly bigint[], sel: ArrayLike<number> | null, n: number, row0: number): void {
        const touched = this.timeSubTouched;
        // Pessimistic while writing: a bad time that throws midway leaves every written row covered.
        this.timeSubTouched = Math.max(touched, row0 + n);
        this.timeSubTouched = splitTimes(times, sel, n, this.timeMs, this.timeSub, row0, touched);
    }

    private field(name: string): FieldColumn {
        let f = this.fields.get(name);
        if (f === undefined) {
            f = new FieldColumn(name, this.declared[name], this.shared);
            this.fields.set(name, f);
            this.fieldOrder.push(f);
        }
        return f;
    }

    /** The index of a batch id, added if new. */
    private addBatch(id: string): number {
        let b = this.batchIndex.get(id);
        if (b !== undefined) return b;
        b = this.batches.length;
        if (b > 0 && !(id > this.batches[b - 1])) this.batchesAscending = false;
        this.batches.push(id);
        this.batchIndex.set(id, b);
        return b;
    }

    /**
     * Keeps `sortedAsc` exact for appended rows [from, to): each row compared with the one before
     * by (_time, batch id, row in batch), the order `compareRows` uses.
     */
    private checkOrder(from: number, to: number): void {
        if (!this.sortedAsc) return;
        const ms = this.timeMs;
        const sub = this.timeSub;
        const bo = this.batchOf;
        const so = this.seqOf;
        for (let i = Math.max(from, 1); i < to; i++) {
            const a = ms[i - 1];
            const b = ms[i];
            if (b > a) continue;
            if (b === a) {
                const sa = sub[i - 1];
                const sb = sub[i];
                if (sb > sa) continue;
                if (sb === sa) {
                    const ba = bo[i - 1];
                    const bb = bo[i];
                    if (ba === bb ? so[i] >= so[i - 1] : this.batches[bb] > this.batches[ba]) continue;
                }
            }
            this.sortedAsc = false;
            return;
        }
    }

    /** Appends the fields of one flat record to row `row` (system names skipped). */
    private appendFlatFields(row: number, rec: Record<string, unknown>): void {
        const keys = this.shapeKeys;
        const cols = this.shapeCols;
        let k = 0;
        for (const key in rec) {
            let col: FieldColumn | null;
            if (keys[k] === key) col = cols[k];
            else {
                col = key === '_time' || key === '_sysTime' || key === '_rowId' || key === '_rowID' ? null : this.field(key);
                keys[k] = key;
                cols[k] = col;
            }
            k++;
            if (col !== null) col.append(row, rec[key]);
        }
    }

    /**
     * Appends events as a client sends them, normalised exactly as the service normalises an ingest
     * request (language/ingest/normalize-event.ts: time field, flattening, reserved names, limits),
     * so `apl run`, the library and `apl serve` store the same fields. Each chunk of events is one
     * batch (its own batch id), as one request is in the service.
     */
    ingest(events: Iterable<Record<string, unknown>>, options: IngestOptions = {}): IngestCounts {
        const now = options.now ?? BigInt(Date.now()) * 1_000_000n;
        const stamp = new Date(Number(now / 1_000_000n)).toISOString();
        const normalize: NormalizeOptions = {
            timestampField: options.timestampField,
            timestampFormat: options.timestampFormat,
            timestampFallbacks: options.timestampFallbacks,
            labels: options.labels ? flattenLabels(options.labels) : null,
            mapFields: this.mapFields,
            receiveTimeNs: now,
        };
        const counts: IngestCounts = { ingested: 0, failed: 0, failures: [] };
        const fail = (error: string): void => {
            counts.failed++;
            counts.failures.push({ timestamp: stamp, error });
        };
        let chunk: Record<string, unknown>[] = [];
        const flush = (): void => {
            const n = normalizeEvents(chunk, normalize);
            for (const f of n.failures) fail(f.error);
            counts.ingested += this.ingestBatch({ times: n.times, fields: n.fields, sysTime: now }).ingested;
            chunk = [];
        };
        for (const ev of events) {
            if (ev === null || typeof ev !== 'object' || Array.isArray(ev)) fail('event is not a JSON object');
            else if (chunk.push(ev) === INGEST_CHUNK) flush();
        }
        if (chunk.length > 0) flush();
        return counts;
    }

    /**
     * Appends one batch of flat events (already normalised: dotted names, no `_time`). Row r gets
     * the id (times[r], batch id, r); only the batch index and r are stored, the id string is
     * formatted when a query outputs it.
     */
    ingestBatch(batch: FlatBatch): IngestCounts {
        const sel = batch.select ?? null;
        const fields = batch.fields;
        const n = sel === null ? fields.length : sel.length;
        if (n === 0) return { ingested: 0, failed: 0, failures: [] };
        const row0 = this.rows;
        this.ensureCapacity(row0 + n);
        const b = this.addBatch(batch.batchSeq === undefined ? newBatchId() : batchIdHex(batch.batchSeq));
        const end = row0 + n;
        this.writeTimes(batch.times, sel, n, row0);
        const [sm, ss] = splitNs(batch.sysTime);
        this.sysMs.fill(sm, row0, end);
        if (ss !== 0 || row0 < this.sysSubTouched) {
            this.sysSub.fill(ss, row0, end);
            this.sysSubTouched = Math.max(this.sysSubTouched, end);
        }
        this.batchOf.fill(b, row0, end);
        const seqOf = this.seqOf;
        for (let i = 0; i < n; i++) {
            const r = sel === null ? i : sel[i];
            seqOf[row0 + i] = r;
            this.appendFlatFields(row0 + i, fields[r]);
        }
        this.rows = end;
        this.checkOrder(row0, end);
        this.finishBatch();
        return { ingested: n, failed: 0, failures: [] };
    }

    /** Appends rows given column by column (the durable store's blocks). Returns the rows added. */
    appendColumns(chunk: ColumnarChunk): number {
        const sel = chunk.select ?? null;
        const n = sel === null ? chunk.rows : sel.length;
        if (n === 0) return 0;
        const row0 = this.rows;
        const end = row0 + n;
        this.ensureCapacity(end);
        const nb = chunk.batches.length;
        const bmap = new Uint32Array(nb);
        const bms = new Float64Array(nb);
        const bsub = new Int32Array(nb);
        for (let j = 0; j < nb; j++) {
            const bt = chunk.batches[j];
            bmap[j] = this.addBatch(batchIdHex(bt.seq));
            [bms[j], bsub[j]] = splitNs(bt.sysTime);
        }
        this.writeTimes(chunk.times, sel, n, row0);
        const { batchOf, seqOf, sysMs, sysSub } = this;
        const writeSub = row0 < this.sysSubTouched || bsub.some(v => v !== 0);
        if (writeSub) this.sysSubTouched = Math.max(this.sysSubTouched, end);
        const cbo = chunk.batchOf;
        const crow = chunk.rowInBatch;
        for (let i = 0; i < n; i++) {
            const s = sel === null ? i : sel[i];
            const j = cbo[s];
            batchOf[row0 + i] = bmap[j];
            seqOf[row0 + i] = crow[s];
            sysMs[row0 + i] = bms[j];
            if (writeSub) sysSub[row0 + i] = bsub[j];
        }
        for (const col of chunk.columns) {
            const k = col.name;
            if (k === '_time' || k === '_sysTime' || k === '_rowId' || k === '_rowID') continue;
            this.field(k).appendChunk(row0, n, col, sel, chunk.flatStrings === true, chunk.numberStrings === true);
        }
        this.rows = end;
        this.checkOrder(row0, end);
        this.finishBatch();
        return n;
    }

    /**
     * Appends pre-normalised records: flat field names, `_time`, `_sysTime` and `_rowId` given
     * (the row id is kept exactly; a canonical one is stored as its parts like `ingestBatch`).
     */
    ingestFlat(records: Iterable<Record<string, unknown>>): IngestCounts {
        const now = BigInt(Date.now()) * 1_000_000n;
        let generated: number | undefined;
        let genSeq = 0;
        let lastBatch = '';
        let lastIndex = 0;
        const row0 = this.rows;
        for (const rec of records) {
            const row = this.rows;
            this.ensureCapacity(row + 1);
            const t = timeOf(rec._time) ?? now;
            const st = timeOf(rec._sysTime) ?? now;
            this.timeSubTouched = Math.max(this.timeSubTouched, row + 1);
            this.sysSubTouched = Math.max(this.sysSubTouched, row + 1);
            [this.timeMs[row], this.timeSub[row]] = splitNs(t);
            [this.sysMs[row], this.sysSub[row]] = splitNs(st);
            const rid = typeof rec._rowId === 'string' ? rec._rowId : typeof rec._rowID === 'string' ? rec._rowID : undefined;
            const parsed = rid === undefined ? undefined : parseRowIdFast(rid);
            // Canonical iff formatting (t, batch, seq) gives the same string: the time part must be t's.
            if (parsed !== undefined && parsed.ns === (t > 0n ? t : 0n)) {
                if (parsed.batch !== lastBatch) {
                    lastBatch = parsed.batch;
                    lastIndex = this.addBatch(parsed.batch);
                }
                this.batchOf[row] = lastIndex;
                this.seqOf[row] = parsed.seq;
            } else {
                generated ??= this.addBatch(newBatchId());
                this.batchOf[row] = generated;
                this.seqOf[row] = genSeq++;
                if (rid !== undefined) this.rowIdOverrides.set(row, rid);
            }
            this.appendFlatFields(row, rec);
            this.rows = row + 1;
        }
        this.checkOrder(row0, this.rows);
        this.finishBatch();
        return { ingested: this.rows - row0, failed: 0, failures: [] };
    }

    private finishBatch(): void {
        for (const f of this.fieldOrder) f.padTo(this.rows);
        this.orderCache = undefined;
    }

    /** Batch ranks in string order (identity while batch ids were added in ascending order). */
    private batchRanks(): Uint32Array | null {
        if (this.batchesAscending) return null;
        const nb = this.batches.length;
        const c = this.rankCache;
        if (c !== undefined && c.length === nb) return c;
        const batches = this.batches;
        const order = Array.from({ length: nb }, (_, i) => i).sort((a, b) => (batches[a] < batches[b] ? -1 : batches[a] > batches[b] ? 1 : 0));
        const rank = new Uint32Array(nb);
        for (let r = 0; r < nb; r++) rank[order[r]] = r;
        this.rankCache = rank;
        return rank;
    }

    /**
     * What a replica in another thread needs to catch up with this store (replica.ts): appended
     * entries since `state` and the buffers it does not hold, with the row count fixed now. Updates
     * `state` (or makes a new one) to what the replica holds after applying the delta.
     */
    exportDelta(state: DatasetSyncState | undefined): { delta: DatasetDelta; state: DatasetSyncState } {
        if (!this.shared) throw new Error(`dataset ${this.name}: a replica needs a store on shared memory`);
        const full = state === undefined || state.instanceId !== this.instanceId;
        const st: DatasetSyncState = full ? { instanceId: this.instanceId, rows: 0, batchesSent: 0, fields: new Map() } : state;
        const rows = this.rows;
        const delta: DatasetDelta = {
            name: this.name,
            instanceId: this.instanceId,
            full,
            rows,
            sortedAsc: this.sortedAsc,
            batchesAscending: this.batchesAscending,
            batches: { from: st.batchesSent, entries: this.batches.slice(st.batchesSent) },
            overrides: [],
            fields: [],
        };
        if (st.timeMs !== this.timeMs) {
            delta.system = { timeMs: this.timeMs, timeSub: this.timeSub, sysMs: this.sysMs, sysSub: this.sysSub, batchOf: this.batchOf, seqOf: this.seqOf };
            st.timeMs = this.timeMs;
        }
        if (this.rowIdOverrides.size > 0) for (const [row, id] of this.rowIdOverrides) if (row >= st.rows && row < rows) delta.overrides.push([row, id]);
        for (const f of this.fieldOrder) {
            const fd = exportField(f, st.fields.get(f.name));
            if (fd !== undefined) {
                delta.fields.push(fd.delta);
                st.fields.set(f.name, fd.state);
            }
        }
        st.rows = rows;
        st.batchesSent = this.batches.length;
        return { delta, state: st };
    }

    /** Brings this replica up to `delta` (made by `exportDelta` of the owning store). */
    applyDelta(delta: DatasetDelta): void {
        if (delta.system) {
            const y = delta.system;
            this.timeMs = y.timeMs;
            this.timeSub = y.timeSub;
            this.sysMs = y.sysMs;
            this.sysSub = y.sysSub;
            this.batchOf = y.batchOf;
            this.seqOf = y.seqOf;
        }
        // The row orders stay valid unless rows, batches (their ranks break time ties) or row-id
        // overrides changed: an empty delta (the usual one, between ingests) keeps them, so a
        // worker does not sort or reverse millions of rows per query.
        const reorder =
            delta.rows !== this.rows || delta.sortedAsc !== this.sortedAsc || delta.overrides.length > 0 || delta.batches.entries.length > 0 || delta.batches.from !== this.batches.length;
        this.batches.length = delta.batches.from;
        for (const b of delta.batches.entries) this.batches.push(b);
        this.batchesAscending = delta.batchesAscending;
        this.rankCache = undefined;
        for (const [row, id] of delta.overrides) this.rowIdOverrides.set(row, id);
        for (const fd of delta.fields) applyField(this.field(fd.name), fd);
        this.rows = delta.rows;
        this.sortedAsc = delta.sortedAsc;
        if (reorder) {
            this.orderCache = undefined;
            this.descCache = undefined;
            this.descRankCache = undefined;
        }
    }

    fieldList(): { name: string; type: ScalarType; axiomType: string }[] {
        const out = [
            { name: '_time', type: 'datetime' as ScalarType, axiomType: 'datetime' },
            { name: '_sysTime', type: 'datetime' as ScalarType, axiomType: 'datetime' },
        ];
        const rest = [...this.fieldOrder].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const f of rest) out.push({ name: f.name, type: f.type(), axiomType: f.axiomType() || 'string' });
        return out;
    }

    /** The table's size in memory (an estimate: typed arrays exactly, strings and dynamic values roughly). O(fields). */
    byteSize(): number {
        let bytes = this.rows * (8 + 4 + 8 + 4 + 4 + 4);
        for (const f of this.fieldOrder) bytes += f.byteSize();
        return bytes;
    }

    stats(): { name: string; rows: number; fields: number; bytes: number; minTime?: string; maxTime?: string } {
        const bytes = this.byteSize();
        const snap = this.snapshot();
        const min = snap.minTime();
        const max = snap.maxTime();
        const fmt = (ns: bigint | undefined) => (ns === undefined ? undefined : new Date(Number(ns / 1_000_000n)).toISOString());
        return { name: this.name, rows: this.rows, fields: this.fieldOrder.length + 2, bytes, minTime: fmt(min), maxTime: fmt(max) };
    }

    snapshot(): Snapshot {
        const n = this.rows;
        // The snapshot's methods are an object literal's, where `this` is the snapshot: they read the table through `store`.
        // eslint-disable-next-line @typescript-eslint/no-this-alias
        const store = this;
        const fields = this.fieldList().map(f => ({ name: f.name, type: f.type }));
        const views = new Map<string, Column>();
        const time = new TimeColumn('datetime', this.timeMs.subarray(0, n), this.timeSub.subarray(0, n), n);
        const sysTime = new TimeColumn('datetime', this.sysMs.subarray(0, n), this.sysSub.subarray(0, n), n);
        const batchOf = this.batchOf.subarray(0, n);
        const seqOf = this.seqOf.subarray(0, n);
        // Append-only: rows < n only reference the batches that exist now.
        const batches = this.batches;
        const overrides = this.rowIdOverrides;
        // Batch ids compare as strings: by index while they were added in order, else by rank.
        const batchRank = this.batchRanks();
        const cmp = (a: number, b: number): number => {
            const d = time.ms[a] - time.ms[b];
            if (d !== 0) return d < 0 ? -1 : 1;
            const s = time.sub[a] - time.sub[b];
            if (s !== 0) return s;
            const ba = batchOf[a];
            const bb = batchOf[b];
            if (ba !== bb) return batchRank === null ? ba - bb : batchRank[ba] - batchRank[bb];
            return seqOf[a] - seqOf[b];
        };
        const fieldByName = new Map(fields.map(f => [f.name, f]));
        return {
            dataset: this.name,
            rows: n,
            fields,
            time,
            sysTime,
            column(name: string): Column | undefined {
                if (name === '_time') return time;
                if (name === '_sysTime') return sysTime;
                if (!fieldByName.has(name)) return undefined;
                let v = views.get(name);
                if (v === undefined) {
                    v = store.fields.get(name)!.view(n);
                    views.set(name, v);
                }
                return v;
            },
            ascOrder(): Uint32Array {
                return store.ascOrder(n, cmp);
            },
            descOrder(): Uint32Array {
                return store.descOrder(n, cmp);
            },
            descRank(): Uint32Array {
                return store.descRank(n, cmp);
            },
            orderSpread(): number {
                return store.orderSpread(n, cmp);
            },
            rowId(i: number): string {
                const o = overrides.get(i);
                if (o !== undefined) return o;
                return formatRowId(time.ns(i), batches[batchOf[i]], seqOf[i]);
            },
            compareRows: cmp,
            compareWithCursor(i: number, c: ParsedCursor): number {
                const o = overrides.get(i);
                if (o !== undefined) return o < c.raw ? -1 : o > c.raw ? 1 : 0;
                const ns = time.ns(i);
                if (ns !== c.ns) return ns < c.ns ? -1 : 1;
                const b = batches[batchOf[i]];
                if (b !== c.batch) return b < c.batch ? -1 : 1;
                return seqOf[i] - c.seq;
            },
            minTime(): bigint | undefined {
                if (n === 0) return undefined;
                const o = store.ascOrder(n, cmp);
                return time.ns(o[0]);
            },
            maxTime(): bigint | undefined {
                if (n === 0) return undefined;
                const o = store.ascOrder(n, cmp);
                return time.ns(o[n - 1]);
            },
        };
    }

    private descCache: { rows: number; order: Uint32Array } | undefined;
    private descRankCache: { rows: number; rank: Uint32Array } | undefined;

    private spreadCache: { order: Uint32Array; spread: number } | undefined;

    private orderSpread(n: number, cmp: (a: number, b: number) => number): number {
        const order = this.ascOrder(n, cmp);
        const c = this.spreadCache;
        if (c && c.order === order) return c.spread;
        let spread = 0;
        for (let i = 0; i < n; i++) {
            const d = order[i] > i ? order[i] - i : i - order[i];
            if (d > spread) spread = d;
        }
        this.spreadCache = { order, spread };
        return spread;
    }

    private descRank(n: number, cmp: (a: number, b: number) => number): Uint32Array {
        const c = this.descRankCache;
        if (c && c.rows === n) return c.rank;
        const desc = this.descOrder(n, cmp);
        const rank = new Uint32Array(n);
        for (let i = 0; i < n; i++) rank[desc[i]] = i;
        this.descRankCache = { rows: n, rank };
        return rank;
    }

    private descOrder(n: number, cmp: (a: number, b: number) => number): Uint32Array {
        const c = this.descCache;
        if (c && c.rows === n) return c.order;
        const asc = this.ascOrder(n, cmp);
        const order = new Uint32Array(n);
        for (let i = 0; i < n; i++) order[i] = asc[n - 1 - i];
        this.descCache = { rows: n, order };
        return order;
    }

    private ascOrder(n: number, cmp: (a: number, b: number) => number): Uint32Array {
        const c = this.orderCache;
        if (c && c.rows === n) return c.order;
        let order: Uint32Array;
        if (this.sortedAsc && n === this.rows) {
            order = new Uint32Array(n);
            for (let i = 0; i < n; i++) order[i] = i;
        } else order = timeOrder(this.timeMs, n, cmp);
        this.orderCache = { rows: n, order };
        return order;
    }
}

/** Row ids over a snapshot (physical row index -> `_rowId`), computed on demand. */
export class RowIdColumn extends FnColumn {
    constructor(readonly snap: Snapshot) {
        super('string', i => snap.rowId(i), snap.rows);
    }
}

/** One field's delta against what a replica holds, or undefined when it holds all of it. */
function exportField(f: FieldColumn, st: FieldSyncState | undefined): { delta: FieldDelta; state: FieldSyncState } | undefined {
    if (st !== undefined && st.length === f.length && st.kind === f.kind && st.seenSize === f.seen.size && st.seenBits === f.seenBits && st.codes === f.codes && st.vals === f.vals && st.nulls === f.nulls && st.bools === f.bools && st.sub === f.sub && st.dict === f.dict && st.dictSent === f.dict.length && st.dyn === f.dyn && st.dynSent === f.dyn.length) {
        return undefined;
    }
    const d: FieldDelta = { name: f.name, kind: f.kind, length: f.length, seen: [...f.seen], seenBits: f.seenBits };
    if (st?.codes !== f.codes) d.codes = f.codes;
    if (st?.vals !== f.vals) d.vals = f.vals;
    if (st === undefined || st.nulls !== f.nulls) d.nulls = f.nulls;
    if (st?.sub !== f.sub) d.sub = f.sub;
    if (st?.bools !== f.bools) d.bools = f.bools;
    const dictFrom = st?.dict === f.dict ? st.dictSent : 0;
    if (dictFrom < f.dict.length || st?.dict !== f.dict) d.dict = { from: dictFrom, entries: f.dict.slice(dictFrom) };
    const dynFrom = st?.dyn === f.dyn ? st.dynSent : 0;
    if (dynFrom < f.dyn.length || st?.dyn !== f.dyn) d.dyn = { from: dynFrom, entries: f.dyn.slice(dynFrom).map(encodeValue) };
    const state: FieldSyncState = {
        codes: f.codes,
        vals: f.vals,
        nulls: f.nulls,
        sub: f.sub,
        bools: f.bools,
        dict: f.dict,
        dictSent: f.dict.length,
        dyn: f.dyn,
        dynSent: f.dyn.length,
        kind: f.kind,
        length: f.length,
        seenSize: f.seen.size,
        seenBits: f.seenBits,
    };
    return { delta: d, state };
}

function applyField(f: FieldColumn, d: FieldDelta): void {
    f.kind = d.kind;
    f.length = d.length;
    f.seen = new Set(d.seen);
    f.seenBits = d.seenBits;
    if (d.codes) f.codes = d.codes;
    if (d.vals) f.vals = d.vals;
    if (d.nulls !== undefined) f.nulls = d.nulls;
    if (d.sub) f.sub = d.sub;
    if (d.bools) f.bools = d.bools;
    if (d.dict) {
        if (d.dict.from === 0) f.dict = [];
        f.dict.length = d.dict.from;
        for (const e of d.dict.entries) f.dict.push(e);
        // A replica never ingests, and its columns look codes up without the map (codeOf's
        // linear search runs once per constant): one copy of the strings per worker is enough.
        f.replica = true;
    }
    if (d.dyn) {
        if (d.dyn.from === 0) f.dyn = [];
        f.dyn.length = d.dyn.from;
        for (const e of d.dyn.entries) f.dyn.push(decodeValue(e));
    }
}
