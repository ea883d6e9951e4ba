/**
 * NDJSON bodies read from their bytes straight into columns: the ingest workers' fast lane.
 *
 * The general path decodes each line to a string, `JSON.parse`s it into an object, flattens that
 * into another object and copies the values into columns (`buildBatch` + `toColumns`). Here one
 * pass over the bytes does all three for the common event: nested objects are flattened as they
 * are read, numbers are read from their digits, and a string whose bytes are its characters (ASCII,
 * no escapes) is looked up by those bytes in its column's dictionary, so a repeated value (a
 * method, a status, a user agent) never becomes a string again.
 *
 * EXACTLY THE SAME RESULT: whatever this lane does not read the way `JSON.parse` + normalisation
 * would (a key that is an array index or `__proto__` or holds an escape, a duplicate name, a
 * timestamp that fails, a line that is not one object, a long string, deep nesting, a map field,
 * a number `JSON.parse` would make infinite) makes the line go the general way (`parseNdjsonLine`
 * + `normalizeEvents`), into the same columns. Requests with labels, a timestamp field or format,
 * a JSON array or CSV body go the general way whole (`scanNdjsonColumns` answers undefined). The
 * differential test (test/server/ingest/ndjson-columns.test.ts) holds the two to equality.
 */
import { buildColumnarBatch, ColumnSet, fitted, sameBytes, type Column, type ColumnarBatch } from './columnar.js';
import { HI, LO, timeRange, type IngestParams } from './ingest.js';
import type { JsonValue } from '../../language/values.js';
import { decodeLines, parseNdjsonLine, skipWsBytes, type EventFailure, type ParsedEvents, type RawEvent } from '../../language/ingest/parse-events.js';
import { epochToNs, MAX_STRING_BYTES, normalizeEvents, parseRfc3339Bytes, parseRfc3339Parts, parseTimeValue, renameReserved, type NormalizeOptions } from '../../language/ingest/normalize-event.js';
import { MAX_FIELDS_PER_EVENT, MAX_TIME_NS, MIN_TIME_NS } from '../../language/ingest/limits.js';

/** A flattened name met in this body: a column's, or a nested object's (the prefix of its fields). */
interface Slot {
    readonly name: string;
    /** The top-level `_time`: the event's time, not a field. */
    readonly isTime: boolean;
    /** A declared map field: its object is stored whole, which the general path does. */
    readonly isMap: boolean;
    /** The column, once a value was written under this name. */
    col: Column | undefined;
    /** The line that last met this name: meeting it twice in one line is a duplicate. */
    stamp: number;
}

/** How deep this lane reads nested objects and arrays (the limit of the general path is 100). */
const MAX_DEPTH = 32;
/** Longest string (bytes) read here; longer ones may need TOO_LONG, which the general path gives. */
const MAX_STRING = MAX_STRING_BYTES / 3;
/**
 * 2^53: digits accumulated below it are exact; an accumulation that passed it was rounded and
 * stays at or above it, so `mant < EXACT` means the digits were read exactly.
 */
const EXACT = 9007199254740992;
/** 10^k, exact as doubles for k ≤ 22: m / 10^k is then correctly rounded, as JSON.parse rounds. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/**
 * Seconds from the epoch whose nanoseconds fit an int64 with room to spare (about the years
 * 1685-2255): their time is made from numbers, without a BigInt. Others go the BigInt way, which
 * also checks the range.
 */
const SAFE_SECS = 9_000_000_000;
const TWO32 = 4294967296;
/** One int64 and its 32-bit halves, to split a BigInt time without arithmetic. */
const scratchTime = new BigInt64Array(1);
const scratchHalves = new Int32Array(scratchTime.buffer);

const enum Line {
    Fallback,
    Event,
    Blank,
}
const enum Rec {
    Num,
    Ascii,
    Value,
}

/**
 * The columnar batch of a decompressed body: this lane's when it takes the request, else the
 * general path's (`buildColumnarBatch`: `buildBatch` + `toColumns`), which gives the same result.
 */
export function prepareColumns(body: Buffer, params: IngestParams): ColumnarBatch {
    return scanNdjsonColumns(body, params) ?? buildColumnarBatch(body, params);
}

/** The fast lane alone: undefined when the request is not for it. */
export function scanNdjsonColumns(body: Buffer, params: IngestParams): ColumnarBatch | undefined {
    if (params.format === 'csv' || (params.labels !== undefined && params.labels.trim() !== '')) return undefined;
    if (params.timestampFormat || (params.timestampField && params.timestampField !== '_time')) return undefined;
    if (body[skipWsBytes(body)] === 0x5b /* [ */) return undefined; // a JSON array
    return new BodyScanner(body, params).scan();
}

/** What the scanner needs after a body: a newline, then zeros (see BodyScanner.body). */
export const PAD_BYTES = 8;

/** Writes that padding at `buf[len, len + PAD_BYTES)`, so a body handed over already padded is read in place. */
export function writePadding(buf: Uint8Array, len: number): void {
    buf.fill(0, len, len + PAD_BYTES);
    buf[len] = 0x0a;
}

/**
 * The body with its padding: in place when the bytes after it in its memory already are that
 * padding (the ingest pool writes it after its copy; only read, and the memory is not shared, so
 * nothing changes it during the synchronous scan), else a padded copy.
 */
function padded(original: Buffer): Buffer {
    const end = original.byteOffset + original.length;
    const mem = original.buffer;
    if (!(mem instanceof SharedArrayBuffer) && end + PAD_BYTES <= mem.byteLength) {
        const after = new Uint8Array(mem, end, PAD_BYTES);
        let ok = after[0] === 0x0a;
        for (let i = 1; i < PAD_BYTES && ok; i++) ok = after[i] === 0;
        if (ok) return Buffer.from(mem, original.byteOffset, original.length + PAD_BYTES);
    }
    return paddedCopy(original);
}

/** Bodies up to this size are copied into one buffer kept for the next (the scan is synchronous). */
const KEEP_COPY = 8 * 1024 * 1024;
let kept: Buffer | undefined;

/**
 * The body followed by its padding, in a copy. The result refers to no byte of the copy (every
 * string it holds is made from the bytes), so one thread reuses the copy's memory: a new 400 KB
 * buffer per request is external memory the garbage collector has to chase.
 */
function paddedCopy(original: Buffer): Buffer {
    const size = original.length + PAD_BYTES;
    let buf: Buffer;
    if (size > KEEP_COPY) buf = Buffer.allocUnsafe(size);
    else {
        if (kept === undefined || kept.length < size) kept = Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
        buf = kept.subarray(0, size);
    }
    original.copy(buf);
    writePadding(buf, original.length);
    return buf;
}

class BodyScanner {
    private readonly root: Slot = { name: '', isTime: false, isMap: false, col: undefined, stamp: 0 };
    private readonly slots = new Map<string, Slot>();
    private readonly mapFields: ReadonlySet<string> | null;
    /**
     * The body, then a newline and zeros: every line (the last too) ends at a newline, which no
     * loop reads past (it is a control byte in a string, not whitespace inside a line, not a digit),
     * and a 4-byte word can be read at any offset up to it.
     */
    private readonly body: Buffer;
    private readonly view: DataView;
    private readonly set: ColumnSet;
    private times: BigInt64Array;
    /** `times` as 32-bit halves (LO, HI of each row): a time is written without making a BigInt. */
    private halves: Int32Array;
    /** Cursor. */
    private p = 0;
    private stamp = 0;
    /** What `str` found out about the string it read. */
    private strHash = 0;
    private strHigh = false;
    private strEscaped = false;
    /** The line's time (the receive time unless it has `_time`), as the halves of its int64. */
    private timeLo = 0;
    private timeHi = 0;
    private readonly receiveLo: number;
    private readonly receiveHi: number;
    /** What `parseRfc3339Parts` read: seconds and nanoseconds. */
    private readonly parts = new Float64Array(2);
    /** The fields of the line being read, committed only once the whole line has been read. */
    private m = 0;
    private readonly recSlot: Slot[] = [];
    private readonly recKind = new Uint8Array(MAX_FIELDS_PER_EVENT);
    private readonly recNum = new Float64Array(MAX_FIELDS_PER_EVENT);
    private readonly recStart = new Int32Array(MAX_FIELDS_PER_EVENT);
    private readonly recEnd = new Int32Array(MAX_FIELDS_PER_EVENT);
    private readonly recHash = new Int32Array(MAX_FIELDS_PER_EVENT);
    private readonly recValue: JsonValue[] = [];
    /**
     * The previous lines' names by position (every key met, in order, nested ones included): a key
     * with the same parent and the same bytes as the one at its position is that slot.
     */
    private j = 0;
    private readonly shapeParent: Slot[] = [];
    private readonly shapeStart: number[] = [];
    private readonly shapeLen: number[] = [];
    private readonly shapeSlot: Slot[] = [];

    constructor(
        private readonly original: Buffer,
        private readonly params: IngestParams,
    ) {
        this.mapFields = params.mapFields && params.mapFields.length ? new Set(params.mapFields) : null;
        const body = padded(original);
        this.body = body;
        this.view = new DataView(body.buffer, body.byteOffset, body.byteLength);
        // Room for as many events as lines of the first one's length would make (it grows if need be).
        const first = original.indexOf(0x0a);
        const rows = first < 0 ? 1 : Math.ceil(original.length / Math.max(first + 1, 16)) + 16;
        this.set = new ColumnSet(rows);
        this.times = new BigInt64Array(rows);
        this.halves = new Int32Array(this.times.buffer);
        this.setTime(params.receiveTimeNs);
        this.receiveLo = this.timeLo;
        this.receiveHi = this.timeHi;
    }

    /** The line's time from a BigInt. */
    private setTime(t: bigint): void {
        scratchTime[0] = t;
        this.timeLo = scratchHalves[LO];
        this.timeHi = scratchHalves[HI];
    }

    /**
     * The line's time from whole seconds (|secs| < SAFE_SECS) and nanoseconds, exactly: secs * 1e9
     * passes 2^53, so it is made as (x * 2^22 + y) with x = ⌊secs / 2^22⌋ * 1e9 and
     * y = (secs mod 2^22) * 1e9 + nanos, both exact doubles, and then split at 2^32.
     */
    private setTimeParts(secs: number, nanos: number): void {
        const a = Math.floor(secs / 4194304);
        const x = a * 1e9;
        const y = (secs - a * 4194304) * 1e9 + nanos;
        const xh = Math.floor(x / 1024);
        const yh = Math.floor(y / TWO32);
        let lo = (x - xh * 1024) * 4194304 + (y - yh * TWO32);
        let hi = xh + yh;
        if (lo >= TWO32) {
            lo -= TWO32;
            hi++;
        }
        this.timeLo = lo | 0;
        this.timeHi = hi;
    }

    scan(): ColumnarBatch | undefined {
        const body = this.body;
        const parseFailures: EventFailure[] = [];
        const timeFailures: EventFailure[] = [];
        let lines: string[] | undefined;
        let row = 0;
        let index = 0; // values read (the body index of parse failures)
        let events = 0; // objects read (the index of normalisation failures)
        const limit = this.original.length; // the sentinel newline
        for (let s = 0, li = 0; ; li++) {
            const kind = this.line(s);
            let nl = this.p; // the line's end, unless it goes the general way
            if (kind === Line.Event) {
                this.commit(row++);
                index++;
                events++;
            } else if (kind === Line.Fallback) {
                // An application/json body is NDJSON only if its first line is a JSON value.
                if (li === 0 && this.params.format === 'json') return undefined;
                nl = body.indexOf(0x0a, s);
                lines ??= decodeLines(this.original);
                const parsed: ParsedEvents = { events: [], failures: parseFailures };
                const next = parseNdjsonLine(lines, li, index, parsed);
                index = next.index;
                row = this.general(parsed.events, row, events, timeFailures);
                events += parsed.events.length;
                for (; li < next.lastLine; li++) nl = body.indexOf(0x0a, nl + 1);
            } else if (li === 0 && this.params.format === 'json') return undefined;
            if (nl >= limit) break;
            s = nl + 1;
        }
        const times = fitted(this.times, row);
        const failures = timeFailures.length === 0 ? parseFailures : parseFailures.concat(timeFailures);
        return { times, columns: this.set.finish(row), failures, ...timeRange(times) };
    }

    /** Events the general path parsed, normalised and written from `row` on; the next row. */
    private general(parsed: RawEvent[], row: number, first: number, failures: EventFailure[]): number {
        if (parsed.length === 0) return row;
        const opts: NormalizeOptions = { timestampField: this.params.timestampField, mapFields: this.mapFields, receiveTimeNs: this.params.receiveTimeNs };
        const norm = normalizeEvents(parsed, opts);
        for (const f of norm.failures) failures.push({ index: first + f.index, error: f.error });
        for (let k = 0; k < norm.fields.length; k++, row++) {
            this.reserve(row + 1);
            this.set.putFields(norm.fields[k], row);
            this.times[row] = norm.times[k];
        }
        return row;
    }

    private reserve(rows: number): void {
        this.set.reserve(rows);
        if (rows > this.times.length) {
            const times = new BigInt64Array(Math.max(rows, this.times.length * 2));
            times.set(this.times);
            this.times = times;
            this.halves = new Int32Array(times.buffer);
        }
    }

    /** Writes the line just read at `row`. */
    private commit(row: number): void {
        this.reserve(row + 1);
        const set = this.set;
        for (let i = 0; i < this.m; i++) {
            const slot = this.recSlot[i];
            const kind = this.recKind[i] as Rec;
            const col = (slot.col ??= set.column(slot.name, kind === Rec.Num ? 0 : kind === Rec.Ascii ? '' : this.recValue[i]));
            if (kind === Rec.Num) set.put(col, this.recNum[i], row);
            else if (kind === Rec.Ascii) set.putAscii(col, this.body, this.view, this.recStart[i], this.recEnd[i], this.recHash[i], row);
            else set.put(col, this.recValue[i], row);
        }
        this.halves[2 * row + LO] = this.timeLo;
        this.halves[2 * row + HI] = this.timeHi;
    }

    /**
     * Reads the line from `s`: one event or a blank line (the cursor is then at the newline that
     * ends it), or one for the general path.
     */
    private line(s: number): Line {
        this.p = s;
        this.m = 0;
        this.j = 0;
        this.stamp++;
        this.timeLo = this.receiveLo;
        this.timeHi = this.receiveHi;
        this.ws();
        if (this.body[this.p] === 0x0a) return Line.Blank;
        if (this.body[this.p] !== 0x7b /* { */ || !this.object(this.root, 1)) return Line.Fallback;
        this.ws();
        return this.body[this.p] === 0x0a ? Line.Event : Line.Fallback;
    }

    /** Skips whitespace (within a line: the newline that ends it is not skipped). */
    private ws(): void {
        const body = this.body;
        let c = body[this.p];
        while (c === 0x20 || c === 0x09 || c === 0x0d) c = body[++this.p];
    }

    /** Reads the object at the cursor, its fields named under `parent`. */
    private object(parent: Slot, depth: number): boolean {
        const body = this.body;
        this.p++;
        this.ws();
        if (body[this.p] === 0x7d /* } */) {
            this.p++;
            return true;
        }
        for (;;) {
            if (body[this.p] !== 0x22) return false;
            const ks = this.p + 1;
            let slot = this.expected(parent, ks);
            if (slot === undefined) {
                const k = this.str(ks);
                if (k < 0 || this.strEscaped) return false;
                this.p = k + 1;
                slot = this.slotAt(parent, ks, k, this.strHigh);
            }
            if (slot === undefined || slot.stamp === this.stamp) return false;
            slot.stamp = this.stamp;
            this.ws();
            if (body[this.p] !== 0x3a /* : */) return false;
            this.p++;
            this.ws();
            if (!this.value(slot, depth)) return false;
            this.ws();
            const c = body[this.p++];
            if (c === 0x7d /* } */) return true;
            if (c !== 0x2c /* , */) return false;
            this.ws();
        }
    }

    /**
     * The slot at this key position in the previous lines, when the key starting at `ks` is the
     * same: its bytes and then the closing quote (a shape key holds no quote, backslash or control
     * byte, so that is the whole key). Moves past the key. One pass over the key, no scan before it.
     */
    private expected(parent: Slot, ks: number): Slot | undefined {
        const j = this.j;
        if (j >= this.shapeSlot.length || this.shapeParent[j] !== parent) return undefined;
        const len = this.shapeLen[j];
        if (this.body[ks + len] !== 0x22 || !sameBytes(this.body, this.view, this.shapeStart[j], ks, len)) return undefined;
        this.j = j + 1;
        this.p = ks + len + 1;
        return this.shapeSlot[j];
    }

    /**
     * The slot of the key `[ks, ke)` under `parent` (one `expected` did not know), remembered at
     * this position; undefined for a key this lane does not take.
     */
    private slotAt(parent: Slot, ks: number, ke: number, nonAscii: boolean): Slot | undefined {
        const j = this.j++;
        const len = ke - ks;
        const body = this.body;
        // Keys that JSON.parse orders first (array indexes) or that are an object's prototype.
        if (len > 0 && body[ks] >= 0x30 && body[ks] <= 0x39) return undefined;
        const key = body.toString(nonAscii ? 'utf8' : 'latin1', ks, ke);
        if (key === '__proto__') return undefined;
        const top = parent === this.root;
        const name = top ? (key.charCodeAt(0) === 95 /* _ */ ? renameReserved(key) : key) : `${parent.name}.${key}`;
        let slot = this.slots.get(name);
        if (slot === undefined) {
            slot = { name, isTime: top && key === '_time', isMap: this.mapFields !== null && this.mapFields.has(name), col: undefined, stamp: 0 };
            this.slots.set(name, slot);
        }
        this.shapeParent[j] = parent;
        this.shapeStart[j] = ks;
        this.shapeLen[j] = len;
        this.shapeSlot[j] = slot;
        return slot;
    }

    /** Reads the value at the cursor for `slot`. */
    private value(slot: Slot, depth: number): boolean {
        const body = this.body;
        const c = body[this.p];
        if (c === 0x22) return this.string(slot);
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number(slot);
        // (The general path flattens an object under the empty key as top-level fields.)
        if (c === 0x7b /* { */) return !slot.isTime && !slot.isMap && slot.name !== '' && depth < MAX_DEPTH && this.object(slot, depth + 1);
        if (c === 0x5b /* [ */) return !slot.isTime && this.array(slot);
        if (c === 0x74 /* t */ && this.word(0x72, 0x75, 0x65)) return !slot.isTime && this.record(slot, Rec.Value, true);
        if (c === 0x66 /* f */ && this.word(0x61, 0x6c, 0x73) && body[this.p] === 0x65) {
            this.p++;
            return !slot.isTime && this.record(slot, Rec.Value, false);
        }
        // null: no field (and no time: the receive time stays).
        return c === 0x6e /* n */ && this.word(0x75, 0x6c, 0x6c);
    }

    /** The three bytes after the cursor are a, b, c: moves past them. */
    private word(a: number, b: number, c: number): boolean {
        const p = this.p;
        if (this.body[p + 1] !== a || this.body[p + 2] !== b || this.body[p + 3] !== c) return false;
        this.p = p + 4;
        return true;
    }

    private record(slot: Slot, kind: Rec, v: JsonValue): boolean {
        const i = this.m;
        if (i === MAX_FIELDS_PER_EVENT) return false; // the general path fails the event, naming the count
        this.recSlot[i] = slot;
        this.recKind[i] = kind;
        this.recValue[i] = v;
        this.m = i + 1;
        return true;
    }

    /**
     * Finds the end of the string starting at `s` (after its opening quote): the offset of its
     * closing quote, or -1 when it is not a JSON string within the line (a control byte, the
     * line's end). Sets `strHash` (of its bytes, when it has no escapes), `strHigh` and `strEscaped`.
     * Four bytes at a time while a word holds no quote, backslash, control or non-ASCII byte.
     */
    private str(s: number): number {
        const body = this.body;
        const view = this.view;
        let k = s;
        let h = 0x811c9dc5 | 0;
        let high = false;
        for (;;) {
            const w = view.getInt32(k, true);
            const q = w ^ 0x22222222;
            const b = w ^ 0x5c5c5c5c;
            if (((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((w - 0x20202020) & ~w) | w) & 0x80808080) === 0) {
                h = Math.imul(h ^ w, 0x01000193);
                k += 4;
                continue;
            }
            // A word with a special byte: byte by byte up to it.
            let c = body[k];
            while (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) {
                h = Math.imul(h ^ c, 0x01000193);
                c = body[++k];
            }
            if (c === 0x22) break;
            if (c === 0x5c) return this.escaped(k);
            if (c < 0x20) return -1;
            high = true;
            h = Math.imul(h ^ c, 0x01000193);
            k++;
        }
        this.strHash = h;
        this.strHigh = high;
        this.strEscaped = false;
        return k;
    }

    /** The rest of a string from its first backslash at `k`: the offset of its closing quote, or -1. */
    private escaped(k: number): number {
        const body = this.body;
        this.strEscaped = true;
        for (;;) {
            const c = body[k];
            if (c === 0x22) return k;
            if (c < 0x20) return -1;
            if (c === 0x5c) {
                if (body[k + 1] < 0x20) return -1;
                k += 2;
            } else k++;
        }
    }

    /** The string between the quotes at `s - 1` and `k`, escapes decoded (JSON.parse's); undefined when an escape is invalid. */
    private unescaped(s: number, k: number): string | undefined {
        try {
            return JSON.parse(this.body.toString('utf8', s - 1, k + 1)) as string;
        } catch {
            return undefined;
        }
    }

    private string(slot: Slot): boolean {
        const body = this.body;
        const s = this.p + 1;
        const k = this.str(s);
        if (k < 0) return false;
        const escaped = this.strEscaped;
        const high = this.strHigh;
        const h = this.strHash;
        this.p = k + 1;
        if (k - s > MAX_STRING) return false;
        if (slot.isTime) {
            const parts = this.parts;
            if (!escaped && !high && parseRfc3339Parts(body, s, k, parts) && Math.abs(parts[0]) < SAFE_SECS) {
                this.setTimeParts(parts[0], parts[1]);
                return true;
            }
            let t = escaped || high ? undefined : parseRfc3339Bytes(body, s, k);
            if (t === undefined) {
                const text = escaped ? this.unescaped(s, k) : body.toString(high ? 'utf8' : 'latin1', s, k);
                if (text === undefined) return false;
                t = parseTimeValue(text, null);
            }
            if (t === undefined || t < MIN_TIME_NS || t > MAX_TIME_NS) return false;
            this.setTime(t);
            return true;
        }
        if (escaped) {
            const v = this.unescaped(s, k);
            return v !== undefined && this.record(slot, Rec.Value, v);
        }
        if (high) return this.record(slot, Rec.Value, body.toString('utf8', s, k));
        const i = this.m;
        if (!this.record(slot, Rec.Ascii, null)) return false;
        this.recStart[i] = s;
        this.recEnd[i] = k;
        this.recHash[i] = h;
        return true;
    }

    /** A JSON number (exactly the grammar: no leading zeros, no `+`, digits after `.` and `e`). */
    private number(slot: Slot): boolean {
        const body = this.body;
        const a = this.p;
        let p = a;
        const neg = body[p] === 0x2d;
        if (neg) p++;
        let mant = 0;
        let c = body[p];
        if (c === 0x30) {
            c = body[++p];
            if (c >= 0x30 && c <= 0x39) return false; // a leading zero
        } else if (c >= 0x31 && c <= 0x39) {
            do {
                mant = mant * 10 + (c - 0x30);
                c = body[++p];
            } while (c >= 0x30 && c <= 0x39);
        } else return false;
        let frac = 0;
        if (c === 0x2e /* . */) {
            c = body[++p];
            if (!(c >= 0x30 && c <= 0x39)) return false;
            do {
                mant = mant * 10 + (c - 0x30);
                frac++;
                c = body[++p];
            } while (c >= 0x30 && c <= 0x39);
        }
        let exp = false;
        if (c === 0x65 || c === 0x45) {
            exp = true;
            c = body[++p];
            if (c === 0x2b || c === 0x2d) c = body[++p];
            if (!(c >= 0x30 && c <= 0x39)) return false;
            do c = body[++p];
            while (c >= 0x30 && c <= 0x39);
        }
        this.p = p;
        let v: number;
        if (!exp && mant < EXACT && frac < POW10.length) {
            v = frac === 0 ? mant : mant / POW10[frac];
            if (neg) v = -v;
        } else {
            v = Number(body.toString('latin1', a, p)); // the sign included
            if (!Number.isFinite(v)) return false; // JSON.parse gives ±Infinity, which normalisation drops
        }
        if (slot.isTime) {
            const t = epochToNs(v);
            if (t === undefined || t < MIN_TIME_NS || t > MAX_TIME_NS) return false;
            this.setTime(t);
            return true;
        }
        const i = this.m;
        if (!this.record(slot, Rec.Num, null)) return false;
        this.recNum[i] = v;
        return true;
    }

    /** An array value: found by its brackets, then parsed whole (arrays are stored as they are). */
    private array(slot: Slot): boolean {
        const body = this.body;
        const a = this.p;
        let depth = 0;
        let k = a;
        for (;; k++) {
            const c = body[k];
            if (c === 0x0a) return false; // the line's end
            if (c === 0x22) {
                for (k++; body[k] !== 0x22; k++) {
                    if (body[k] === 0x0a) return false;
                    if (body[k] === 0x5c && body[k + 1] !== 0x0a) k++;
                }
            } else if (c === 0x5b || c === 0x7b) {
                if (++depth > MAX_DEPTH) return false;
            } else if (c === 0x5d || c === 0x7d) {
                if (--depth === 0) break;
            }
        }
        this.p = k + 1;
        let v: JsonValue;
        try {
            v = JSON.parse(body.toString('utf8', a, k + 1)) as JsonValue;
        } catch {
            return false;
        }
        return this.record(slot, Rec.Value, v);
    }
}
