/**
 * Off-main-thread ingest preparation: parse + normalise a decompressed body (the same steps as
 * `buildBatch`) and turn the flat events into columns (the engine's `ColumnarChunk` encodings,
 * the same classification as the store's block encoder), so a worker thread can hand them back as
 * transferable typed arrays instead of cloning one object per event.
 */
import type { JsonValue } from '../../language/values.js';
import { buildBatch, timeRange, type IngestParams } from './ingest.js';
import type { FlatFields } from '../../language/ingest/normalize-event.js';
import type { EventFailure } from '../../language/ingest/parse-events.js';
import { hashSlot, MAX_PROBES, ProbeTable, stringHash } from '../../language/eval/string-index.js';
import type { StringNumbering } from '../../language/eval/tables.js';

/** One column, as `ColumnChunk` of language/eval/tables.ts. */
export type BatchColumn =
    | { name: string; kind: 'f64'; values: Float64Array; present: Uint8Array | null }
    | { name: string; kind: 'bool'; values: Uint8Array }
    | {
        name: string;
        kind: 'str';
        dict: string[];
        codes: Uint32Array;
        /** `stringHash` of each entry (always made here) */
        hashes?: Int32Array;
        /** The engine's numbers for the entries, left here when the service's engine appended the batch (compaction merges by them). */
        numbered?: StringNumbering;
    }
    | { name: string; kind: 'json'; values: (JsonValue | null)[] };

export interface ColumnarBatch {
    times: BigInt64Array;
    columns: BatchColumn[];
    failures: EventFailure[];
    minTime: bigint;
    maxTime: bigint;
}

/** Which JSON kinds a column has seen (bit flags), to choose its encoding. */
export const KIND_NUM = 1;
export const KIND_STR = 2;
export const KIND_BOOL = 4;
export const KIND_OTHER = 8;

/**
 * One column being gathered, written in place in its final encoding: the first value decides it
 * (number → f64, string → str, boolean → bool, anything else → json), and a value of another kind
 * turns what was written into json values (rare: a field whose type changes within one request).
 */
type FieldBuilder =
    | { kind: 'f64'; values: Float64Array; present: Uint8Array; count: number }
    /**
     * `index` (string → code) is made when a string comes as a string; until then every entry came
     * by its bytes, and `bytes` alone knows them (a unique column then costs no Map work at all).
     * `bytes` is 'off' once the byte dictionary gave up (ByteDict.find): strings then go by string.
     * `hashes[i]` is `stringHash(dict[i])`, known from the scan for strings read by their bytes: the
     * engine indexes the dictionary with them instead of hashing every string again.
     */
    | { kind: 'str'; codes: Uint32Array; dict: string[]; hashes: Int32Array; index: Map<string, number> | null; bytes: ByteDict | null | 'off' }
    | { kind: 'bool'; values: Uint8Array }
    | { kind: 'json'; values: (JsonValue | null)[] };

/**
 * A column of a `ColumnSet`. Its builder is replaced when the column turns into json, so whoever
 * holds the column (the shape caches) keeps the right builder.
 */
export interface Column {
    readonly name: string;
    b: FieldBuilder;
}

/**
 * How many strings each str column's dictionary held at the end of the last body this thread
 * read (by column name, at most MAX_HINTS names): the next body's column starts with room for as
 * many, so a column of unique values (an id) does not grow its tables step by step in every
 * request. Capacity only, never what is stored.
 */
const dictHints = new Map<string, number>();
const MAX_HINTS = 4096;

function dictHint(name: string, rows: number): number {
    return Math.min(dictHints.get(name) ?? 0, rows);
}

function newBuilder(v: JsonValue, n: number, name: string): FieldBuilder {
    switch (typeof v) {
        case 'number': return { kind: 'f64', values: new Float64Array(n), present: new Uint8Array((n + 7) >> 3), count: 0 };
        case 'string': return { kind: 'str', codes: new Uint32Array(n), dict: [], hashes: new Int32Array(Math.max(16, dictHint(name, n))), index: null, bytes: null };
        case 'boolean': return { kind: 'bool', values: new Uint8Array(n).fill(2) };
        default: return { kind: 'json', values: new Array<JsonValue | null>(n).fill(null) };
    }
}

/** The value of a column at row r, or undefined when absent. */
export function columnValue(column: BatchColumn, r: number): JsonValue | undefined {
    switch (column.kind) {
        case 'f64':
            return column.present === null || ((column.present[r >> 3] >> (r & 7)) & 1) === 1 ? column.values[r] : undefined;
        case 'str':
            return column.codes[r] === 0 ? undefined : column.dict[column.codes[r] - 1];
        case 'bool':
            return column.values[r] === 2 ? undefined : column.values[r] === 1;
        default: {
            const v = column.values[r];
            return v === null ? undefined : v;
        }
    }
}

/** The builder as json values, with the values written so far (rows before `upto`). */
function asJson(bl: FieldBuilder, n: number, upto: number): FieldBuilder {
    const values = new Array<JsonValue | null>(n).fill(null);
    // A builder is laid out as the column it becomes (a str builder's extra fields are ignored).
    for (let r = 0; r < upto; r++) values[r] = columnValue(bl as BatchColumn, r) ?? null;
    return { kind: 'json', values };
}

/** Writes `v` at `row`; returns false when `v` is not of the builder's kind. */
function put(bl: FieldBuilder, v: JsonValue, row: number): boolean {
    switch (bl.kind) {
        case 'f64':
            if (typeof v !== 'number') return false;
            bl.values[row] = v;
            bl.present[row >> 3] |= 1 << (row & 7);
            bl.count++;
            return true;
        case 'str':
            if (typeof v !== 'string') return false;
            bl.codes[row] = stringIndex(bl).get(v) ?? addString(bl, v, stringHash(v));
            return true;
        case 'bool':
            if (typeof v !== 'boolean') return false;
            bl.values[row] = v ? 1 : 0;
            return true;
        case 'json':
            bl.values[row] = v;
            return true;
    }
}

type StrBuilder = FieldBuilder & { kind: 'str' };

/** The builder's string → code index, made from its dictionary the first time it is needed. */
function stringIndex(bl: StrBuilder): Map<string, number> {
    if (bl.index === null) {
        bl.index = new Map();
        for (let i = 0; i < bl.dict.length; i++) bl.index.set(bl.dict[i], i + 1);
    }
    return bl.index;
}

/** Adds a new string (its hash `h`) to a str builder's dictionary; its code. */
function addString(bl: StrBuilder, v: string, h: number): number {
    bl.dict.push(v);
    const c = bl.dict.length;
    if (c > bl.hashes.length) bl.hashes = resized(bl.hashes, c * 2);
    bl.hashes[c - 1] = h;
    bl.index?.set(v, c);
    return c;
}

/** A typed array of `n` elements holding `a`'s first elements (n ≥ a.length: grows; else cuts). */
function resized<T extends Float64Array | Uint8Array | Uint32Array | Int32Array>(a: T, n: number): T {
    if (n <= a.length) return a.slice(0, n) as T;
    const out = new (a.constructor as new (n: number) => T)(n);
    out.set(a);
    return out;
}

/**
 * `a` cut to its first `n` elements: a view when the room left over is small (the byte scanner
 * sizes its columns by an estimate of the body's events, and copying every column at the end was
 * a measurable share of its time), a copy when it would pin much more memory than it holds.
 */
export function fitted<T extends Float64Array | Uint8Array | Uint32Array | Int32Array | BigInt64Array>(a: T, n: number): T {
    if (n >= a.length) return a;
    return a.length - n <= (n >> 2) + 64 ? (a.subarray(0, n) as T) : (a.slice(0, n) as T);
}

/** The typed arrays a builder holds one element (or one bit) per row in. */
type RowArray = Float64Array | Uint8Array | Uint32Array | Int32Array;

/**
 * Gives the builder `n` rows: `sized` makes each typed array `n` long (`fitted` to finish a column,
 * `resized` to make room); rows added are absent (bool 2, json null; f64 and str are absent at 0).
 */
function setRows(bl: FieldBuilder, n: number, sized: <T extends RowArray>(a: T, n: number) => T): void {
    switch (bl.kind) {
        case 'f64':
            bl.values = sized(bl.values, n);
            bl.present = sized(bl.present, (n + 7) >> 3);
            break;
        case 'str':
            bl.codes = sized(bl.codes, n);
            break;
        case 'bool': {
            const old = bl.values.length;
            bl.values = sized(bl.values, n);
            if (n > old) bl.values.fill(2, old);
            break;
        }
        case 'json': {
            const old = bl.values.length;
            bl.values.length = n;
            if (n > old) bl.values.fill(null, old);
            break;
        }
    }
}

/**
 * The columns of one request being gathered, in order of first appearance, with room for `rows`
 * events (`reserve` makes more).
 */
export class ColumnSet {
    private readonly byName = new Map<string, Column>();
    private readonly list: Column[] = [];

    constructor(private rows: number) {}

    /** The column `name`, made (its encoding chosen by `first`, its first value) when new. */
    column(name: string, first: JsonValue): Column {
        let col = this.byName.get(name);
        if (col === undefined) {
            col = { name, b: newBuilder(first, this.rows, name) };
            this.byName.set(name, col);
            this.list.push(col);
        }
        return col;
    }

    /** Makes room for at least `rows` events. */
    reserve(rows: number): void {
        if (rows <= this.rows) return;
        this.rows = Math.max(rows, this.rows * 2);
        for (const col of this.list) setRows(col.b, this.rows, resized);
    }

    /** Writes `v` (not null) at `row`, turning the column into json when `v` is of another kind. */
    put(col: Column, v: JsonValue, row: number): void {
        if (put(col.b, v, row)) return;
        col.b = asJson(col.b, this.rows, row);
        put(col.b, v, row);
    }

    /** A flat event's fields at `row` (null and undefined values are absent). */
    putFields(ev: FlatFields, row: number): void {
        for (const k in ev) {
            const v = ev[k];
            if (v === null || v === undefined) continue;
            this.put(this.column(k, v), v, row);
        }
    }

    /**
     * The string held by `bytes[start, end)` (ASCII, no escapes: the bytes are the string) at
     * `row`, looked up by its bytes (hash `h`; `view` reads `bytes`) so a string seen before is not
     * made again.
     */
    putAscii(col: Column, bytes: Buffer, view: DataView, start: number, end: number, h: number, row: number): void {
        const bl = col.b;
        if (bl.kind === 'str' && bl.bytes !== 'off') {
            const dict = bl.bytes ?? new ByteDict(bytes, view, dictHint(col.name, this.rows));
            bl.bytes = dict;
            let c = dict.find(start, end, h);
            if (c >= 0) {
                if (c === 0) {
                    // New to the byte dictionary: new to the column too, unless strings came as strings.
                    const v = latin1(bytes, start, end);
                    c = (bl.index === null ? undefined : bl.index.get(v)) ?? addString(bl, v, h);
                    // The string has its code; past MAX_PROBES the next ones go by string (below).
                    if (!dict.add(start, end, h, c)) bl.bytes = 'off';
                }
                bl.codes[row] = c;
                return;
            }
            // Too many strings share this hash (the hash is not keyed: a body can be made so):
            // this column's strings go by string from now on (V8's Map hashes with a seed).
            bl.bytes = 'off';
        }
        this.put(col, latin1(bytes, start, end), row);
    }

    /** The finished columns of `n` events. */
    finish(n: number): BatchColumn[] {
        const out: BatchColumn[] = [];
        for (const { name, b } of this.list) {
            if (n < this.rows) setRows(b, n, fitted);
            else if (n > this.rows) setRows(b, n, resized);
            if (b.kind === 'f64') out.push({ name, kind: 'f64', values: b.values, present: b.count === n ? null : b.present });
            else if (b.kind === 'str') {
                if (dictHints.size >= MAX_HINTS && !dictHints.has(name)) dictHints.clear();
                dictHints.set(name, b.dict.length);
                out.push({ name, kind: 'str', dict: b.dict, codes: b.codes, hashes: fitted(b.hashes, b.dict.length) });
            }
            else if (b.kind === 'bool') out.push({ name, kind: 'bool', values: b.values });
            else out.push({ name, kind: 'json', values: b.values });
        }
        return out;
    }
}

function latin1(bytes: Buffer, start: number, end: number): string {
    return bytes.toString('latin1', start, end);
}

/** The `len` bytes at `a` and at `b` are the same (four at a time). */
export function sameBytes(bytes: Uint8Array, view: DataView, a: number, b: number, len: number): boolean {
    let k = 0;
    for (; k + 4 <= len; k += 4) if (view.getInt32(a + k) !== view.getInt32(b + k)) return false;
    for (; k < len; k++) if (bytes[a + k] !== bytes[b + k]) return false;
    return true;
}

/**
 * A str column's strings by their bytes in the request body (open addressing on a byte hash), so
 * that a repeated value (a method, a status, a user agent) costs a hash and a compare, not a new
 * string and a Map lookup. Only for strings whose bytes are their characters (ASCII, no escapes):
 * distinct bytes are then distinct strings, so one string never gets two codes.
 */
export class ByteDict {
    /** Entry + 1 by its hash. */
    private readonly table: ProbeTable;
    private starts: Int32Array;
    private lens: Int32Array;
    private codes: Uint32Array;
    private size = 0;

    /** `expected`: how many strings are likely to come (room made for them up front). */
    constructor(
        private readonly bytes: Uint8Array,
        private readonly view: DataView,
        expected = 0,
    ) {
        const n = Math.max(32, expected);
        this.table = new ProbeTable(expected);
        this.starts = new Int32Array(n);
        this.lens = new Int32Array(n);
        this.codes = new Uint32Array(n);
    }

    /**
     * The code of the string at `bytes[start, end)`, 0 when not here, -1 when the search gave up
     * after MAX_PROBES slots (strings crafted to share a hash would make every lookup walk them all).
     */
    find(start: number, end: number, h: number): number {
        const slots = this.table.slots;
        const mask = (slots.length >> 1) - 1;
        const len = end - start;
        for (let s = hashSlot(h, mask), probes = 0; ; s = (s + 1) & mask) {
            const e = slots[s << 1] - 1;
            if (e < 0) return 0;
            if (slots[(s << 1) + 1] === h && this.lens[e] === len && sameBytes(this.bytes, this.view, this.starts[e], start, len)) return this.codes[e];
            if (++probes === MAX_PROBES) return -1;
        }
    }

    /** Adds the string at `bytes[start, end)` (not here: `find` gave 0) with its code; false when the table gave up (as `find` does). */
    add(start: number, end: number, h: number, code: number): boolean {
        if (this.size === this.starts.length) {
            const n = this.size * 2;
            this.starts = resized(this.starts, n);
            this.lens = resized(this.lens, n);
            this.codes = resized(this.codes, n);
        }
        const e = this.size++;
        this.starts[e] = start;
        this.lens[e] = end - start;
        this.codes[e] = code;
        return this.table.add(e + 1, h);
    }
}

/**
 * The columns of the previous event's fields, by position: events of one batch mostly have the
 * same fields in the same order, so a field name is compared with the one at its position (the
 * same string, as JSON.parse gives keys) before it is looked up.
 */
interface Shape {
    keys: string[];
    columns: Column[];
}

/** Columns of flat events, fields in order of first appearance (null/undefined = absent). */
export function toColumns(fields: readonly FlatFields[]): BatchColumn[] {
    const n = fields.length;
    const set = new ColumnSet(n);
    const shape: Shape = { keys: [], columns: [] };
    for (let row = 0; row < n; row++) {
        const ev = fields[row];
        let j = 0;
        for (const k in ev) {
            const v = ev[k];
            if (v === null || v === undefined) continue;
            let col: Column;
            if (shape.keys[j] === k) col = shape.columns[j];
            else {
                col = set.column(k, v);
                shape.keys[j] = k;
                shape.columns[j] = col;
            }
            set.put(col, v, row);
            j++;
        }
    }
    return set.finish(n);
}

/**
 * The flat events of a columnar batch, the inverse of `toColumns`: each event's fields in the
 * columns' order, which keeps every field's first appearance where it was.
 */
export function fromColumns(batch: Pick<ColumnarBatch, 'times' | 'columns'>): FlatFields[] {
    const n = batch.times.length;
    const fields: FlatFields[] = Array.from({ length: n }, () => ({}));
    for (const c of batch.columns) {
        for (let r = 0; r < n; r++) {
            const v = columnValue(c, r);
            if (v !== undefined) fields[r][c.name] = v;
        }
    }
    return fields;
}

/** `buildBatch` + min/max time + columns. Throws IngestError exactly where prepareIngest does. */
export function buildColumnarBatch(body: Buffer, params: IngestParams): ColumnarBatch {
    const { batch, failures } = buildBatch(body, params);
    return { times: batch.times, columns: toColumns(batch.fields), failures, ...timeRange(batch.times) };
}

/** The transferable buffers of a columnar batch. */
export function transferList(b: ColumnarBatch): ArrayBuffer[] {
    const list: ArrayBuffer[] = [b.times.buffer as ArrayBuffer];
    for (const c of b.columns) {
        if (c.kind === 'f64') {
            list.push(c.values.buffer as ArrayBuffer);
            if (c.present) list.push(c.present.buffer as ArrayBuffer);
        } else if (c.kind === 'bool') list.push(c.values.buffer as ArrayBuffer);
        else if (c.kind === 'str') {
            list.push(c.codes.buffer as ArrayBuffer);
            if (c.hashes) list.push(c.hashes.buffer as ArrayBuffer);
        }
    }
    return list;
}
