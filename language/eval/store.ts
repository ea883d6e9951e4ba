/**
 * In-memory datasets: append-friendly column builders with type widening, row ids, and consistent
 * snapshots for queries.
 *
 * Each field is a growable column (typed arrays doubled on demand). A query takes a `Snapshot`:
 * the row count and a view of every column at that moment. Appends after the snapshot write past
 * its row count (or into a new, larger buffer), and a type change replaces the field's column with
 * a new object, so a snapshot never sees rows or types that arrived after it was taken.
 */
import { parseDatetime, parseGoDuration } from '../values.js';
import type { ScalarType } from './columns.js';
import { BoolColumn, type Column, ConstColumn, DynColumn, FnColumn, NumColumn, StrColumn, TimeColumn, splitNs } from './columns.js';
import type { AplValue, JsonValue } from '../values.js';

const RESERVED = new Set(['_blockInfo', '_cursor', '_rowID', '_rowId', '_source', '_sysTime']);

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
    /** Receive time (ns since epoch); also `_sysTime`. Default now. */
    now?: bigint;
    /** Fields added to every event (X-Axiom-Event-Labels). */
    labels?: Record<string, unknown>;
}

export interface IngestFailure {
    timestamp: string;
    error: string;
}

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
    index = new Map<string, number>();
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
    /** Declared type (sample schema / map field); values are converted to it. */
    constructor(
        readonly name: string,
        readonly declared: ScalarType | undefined,
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
        switch (this.kind) {
            case 'string': {
                const c = new Uint32Array(cap);
                c.set(this.codes.subarray(0, this.length));
                this.codes = c;
                break;
            }
            case 'long': case 'real': case 'datetime': case 'timespan': {
                const v = new Float64Array(cap);
                v.set(this.vals.subarray(0, this.length));
                this.vals = v;
                if (this.kind === 'datetime' || this.kind === 'timespan') {
                    const s = new Int32Array(cap);
                    s.set(this.sub.subarray(0, this.length));
                    this.sub = s;
                } else if (this.nulls) {
                    const nn = new Uint8Array(cap);
                    nn.set(this.nulls.subarray(0, this.length));
                    this.nulls = nn;
                }
                break;
            }
            case 'bool': {
                const b = new Uint8Array(cap);
                b.set(this.bools.subarray(0, this.length));
                this.bools = b;
                break;
            }
            default: break;
        }
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
                this.nulls ??= new Uint8Array(this.vals.length);
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
        this.index = new Map();
        this.dict = [''];
    }

    append(row: number, value: unknown): void {
        if (this.length < row) this.padTo(row);
        // Fast paths: the value has the column's current type.
        const kind = this.kind;
        if (kind === 'string') {
            if (typeof value === 'string' && this.declared === undefined) {
                if (this.length === this.codes.length) this.grow(this.length + 1);
                let c = this.index.get(value);
                if (c === undefined) {
                    c = this.dict.length;
                    this.dict.push(value);
                    this.index.set(value, c);
                }
                this.codes[this.length++] = c;
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
                    let c = this.index.get(value);
                    if (c === undefined) {
                        c = this.dict.length;
                        this.dict.push(value);
                        this.index.set(value, c);
                    }
                    this.codes[this.length++] = c;
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
                let c = this.index.get(s);
                if (c === undefined) {
                    c = this.dict.length;
                    this.dict.push(s);
                    this.index.set(s, c);
                }
                this.codes[this.length] = c;
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
            case 'string': return new StrColumn(this.codes.subarray(0, n), this.dict, n, this.index);
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

    byteSize(): number {
        switch (this.kind) {
            case 'string': return this.codes.byteLength + this.dict.reduce((s, x) => s + x.length * 2 + 16, 0);
            case 'long': case 'real': return this.vals.byteLength + (this.nulls?.byteLength ?? 0);
            case 'datetime': case 'timespan': return this.vals.byteLength + this.sub.byteLength;
            case 'bool': return this.bools.byteLength;
            default: return this.dyn.length * 32;
        }
    }
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
            const ns = parseTimeValue(v);
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

/**
 * Parses an ingested timestamp: RFC 3339 / ISO 8601 text (fast path for
 * `YYYY-MM-DDTHH:MM:SS[.fffffffff](Z|±hh:mm)`), or a Unix epoch number in s, ms, µs or ns
 * (chosen by magnitude). Returns ns since the epoch.
 */
export function parseTimeValue(v: unknown): bigint | undefined {
    if (typeof v === 'string') return parseTimeParts(v) ? BigInt(PT_MS) * 1_000_000n + BigInt(PT_SUB) : undefined;
    if (typeof v === 'number' && Number.isFinite(v)) {
        const a = Math.abs(v);
        if (a < 1e11) return BigInt(Math.round(v * 1e3)) * 1_000_000n; // seconds (to the ms)
        if (a < 1e14) return BigInt(Math.round(v * 1e3)) * 1000n; // ms (to the µs)
        if (a < 1e17) return BigInt(Math.round(v)) * 1000n; // µs
        return BigInt(Math.round(v)); // ns
    }
    if (typeof v === 'bigint') return v;
    return undefined;
}

function d2(s: string, i: number): number {
    return (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
}

/** Result registers of `parseTimeParts` (ms since epoch, integer; ns within the ms). */
let PT_MS = 0;
let PT_SUB = 0;

/**
 * Parses an ingested timestamp into (PT_MS, PT_SUB) without allocating; false when it is not a time.
 * Fast path for `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±hh:mm)`.
 */
function parseTimeParts(v: unknown): boolean {
    if (typeof v === 'string') {
        const s = v;
        const n = s.length;
        if (n >= 20 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45 && (s.charCodeAt(10) === 84 || s.charCodeAt(10) === 32) && s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58) {
            const y = d2(s, 0) * 100 + d2(s, 2);
            let p = 19;
            let frac = 0;
            let digits = 0;
            if (s.charCodeAt(p) === 46) {
                p++;
                while (p < n) {
                    const c = s.charCodeAt(p);
                    if (c < 48 || c > 57) break;
                    if (digits < 9) {
                        frac = frac * 10 + (c - 48);
                        digits++;
                    }
                    p++;
                }
            }
            let offsetMin = 0;
            if (p < n) {
                const z = s.charCodeAt(p);
                if (z === 90 || z === 122) {
                    if (p + 1 !== n) return fallbackTime(s);
                } else if ((z === 43 || z === 45) && (n - p === 6 || n - p === 5)) {
                    const hh = d2(s, p + 1);
                    const mm = d2(s, n - 2);
                    offsetMin = (z === 45 ? -1 : 1) * (hh * 60 + mm);
                } else return fallbackTime(s);
            }
            const ms = Date.UTC(y, d2(s, 5) - 1, d2(s, 8), d2(s, 11), d2(s, 14), d2(s, 17)) - offsetMin * 60000;
            if (ms !== ms) return false;
            for (let k = digits; k < 9; k++) frac *= 10;
            const extraMs = Math.floor(frac / 1_000_000);
            PT_MS = ms + extraMs;
            PT_SUB = frac - extraMs * 1_000_000;
            return true;
        }
        return fallbackTime(s);
    }
    const ns = parseTimeValue(v);
    if (ns === undefined) return false;
    const [a, b] = splitNs(ns);
    PT_MS = a;
    PT_SUB = b;
    return true;
}

function fallbackTime(s: string): boolean {
    const ns = parseTimeText(s);
    if (ns === undefined) return false;
    const [a, b] = splitNs(ns);
    PT_MS = a;
    PT_SUB = b;
    return true;
}

function parseTimeText(s: string): bigint | undefined {
    const t = s.trim();
    if (/^-?\d+(\.\d+)?$/.test(t)) return parseTimeValue(Number(t));
    return parseDatetime(t);
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

export interface ParsedCursor {
    raw: string;
    ns: bigint;
    batch: string;
    seq: number;
}

export function parseCursor(raw: string): ParsedCursor | undefined {
    const m = /^([0-9a-z]+)-([0-9a-f]+)-([0-9a-f]+)$/.exec(raw.trim());
    if (!m) return undefined;
    let ns = 0n;
    for (const ch of m[1]) ns = ns * 36n + BigInt(parseInt(ch, 36));
    return { raw, ns, batch: m[2], seq: parseInt(m[3], 16) };
}

export function formatRowId(ns: bigint, batch: string, seq: number): string {
    const t = ns < 0n ? '0' : ns.toString(36);
    return `${t.padStart(13, '0')}-${batch}-${seq.toString(16).padStart(8, '0')}`;
}

let batchCounter = 0;
let lastBatchMs = 0;

/** A fresh 16-hex batch id; ids increase over time within a process. */
export function newBatchId(): string {
    let ms = Date.now();
    if (ms <= lastBatchMs) ms = lastBatchMs;
    else batchCounter = 0;
    lastBatchMs = ms;
    const id = (BigInt(ms) << 20n) | BigInt(batchCounter++ & 0xfffff);
    return id.toString(16).padStart(16, '0').slice(-16);
}

export class DatasetStore {
    rows = 0;
    private readonly fields = new Map<string, FieldColumn>();
    private readonly fieldOrder: FieldColumn[] = [];
    // system columns
    private timeMs = new Float64Array(1024);
    private timeSub = new Int32Array(1024);
    private sysMs = new Float64Array(1024);
    private sysSub = new Int32Array(1024);
    private batchOf = new Uint32Array(1024);
    private seqOf = new Uint32Array(1024);
    private readonly batches: string[] = [];
    private readonly rowIdOverrides = new Map<number, string>();
    private sortedAsc = true;
    private orderCache: { rows: number; order: Uint32Array } | undefined;
    private readonly declared: Record<string, ScalarType>;
    private readonly mapFields: Set<string>;
    readonly created = new Date();

    constructor(
        readonly name: string,
        hints: DatasetSchemaHints = {},
    ) {
        this.declared = { ...(hints.fieldTypes ?? {}) };
        this.mapFields = new Set(hints.mapFields ?? []);
        for (const m of this.mapFields) this.declared[m] = 'dynamic';
    }

    private ensureCapacity(n: number): void {
        if (n <= this.timeMs.length) return;
        let cap = this.timeMs.length;
        while (cap < n) cap *= 2;
        const g = <T extends Float64Array | Int32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
            const b = make(cap);
            b.set(a.subarray(0, this.rows) as never);
            return b;
        };
        this.timeMs = g(this.timeMs, c => new Float64Array(c));
        this.timeSub = g(this.timeSub, c => new Int32Array(c));
        this.sysMs = g(this.sysMs, c => new Float64Array(c));
        this.sysSub = g(this.sysSub, c => new Int32Array(c));
        this.batchOf = g(this.batchOf, c => new Uint32Array(c));
        this.seqOf = g(this.seqOf, c => new Uint32Array(c));
    }

    private field(name: string): FieldColumn {
        let f = this.fields.get(name);
        if (f === undefined) {
            f = new FieldColumn(name, this.declared[name]);
            this.fields.set(name, f);
            this.fieldOrder.push(f);
        }
        return f;
    }

    private setTime(row: number, ms: number, sub: number, sms: number, ssub: number): void {
        this.timeMs[row] = ms;
        this.timeSub[row] = sub;
        this.sysMs[row] = sms;
        this.sysSub[row] = ssub;
        if (this.sortedAsc && row > 0) {
            const pm = this.timeMs[row - 1];
            if (ms < pm || (ms === pm && sub < this.timeSub[row - 1])) this.sortedAsc = false;
            else if (ms === pm && sub === this.timeSub[row - 1] && this.batchOf[row] === this.batchOf[row - 1] && this.seqOf[row] < this.seqOf[row - 1]) this.sortedAsc = false;
        }
    }

    /** Appends events as a client sends them (nested objects flattened into dotted fields). */
    ingest(events: Iterable<Record<string, unknown>>, options: IngestOptions = {}): IngestCounts {
        const now = options.now ?? BigInt(Date.now()) * 1_000_000n;
        const tsField = options.timestampField || '_time';
        const [nowMs, nowSub] = splitNs(now);
        const fallbacks = options.timestampFallbacks ?? [];
        const batchId = newBatchId();
        const batchIndex = this.batches.length;
        this.batches.push(batchId);
        let seq = 0;
        let failed = 0;
        const failures: IngestFailure[] = [];
        const mapFields = this.mapFields;
        const labels = options.labels ? Object.entries(options.labels) : [];
        for (const ev of events) {
            if (ev === null || typeof ev !== 'object' || Array.isArray(ev)) {
                failed++;
                failures.push({ timestamp: new Date(Number(now / 1_000_000n)).toISOString(), error: 'event is not a JSON object' });
                continue;
            }
            const row = this.rows;
            this.ensureCapacity(row + 1);
            this.batchOf[row] = batchIndex;
            this.seqOf[row] = seq++;
            let tsRaw: unknown = ev[tsField];
            let tsName = tsField;
            if (tsRaw === undefined) {
                for (const f of fallbacks) {
                    if (ev[f] !== undefined) {
                        tsRaw = ev[f];
                        tsName = f;
                        break;
                    }
                }
            }
            const ok = tsRaw !== undefined && parseTimeParts(tsRaw);
            if (ok) this.setTime(row, PT_MS, PT_SUB, nowMs, nowSub);
            else this.setTime(row, nowMs, nowSub, nowMs, nowSub);
            const ns = ok ? 0n : undefined;
            for (const key in ev) {
                if (key === '_time' && tsName === '_time' && ns !== undefined) continue;
                const value = ev[key];
                const name = RESERVED.has(key) ? `_user_${key}` : key === '_time' ? '_user_time' : key;
                if (value !== null && typeof value === 'object' && !Array.isArray(value) && !mapFields.has(name)) this.flattenInto(row, name, value as Record<string, unknown>);
                else this.field(name).append(row, value);
            }
            for (const [k, v] of labels) this.field(k).append(row, v);
            this.rows = row + 1;
        }
        this.finishBatch();
        return { ingested: seq, failed, failures };
    }

    private readonly nestedNames = new Map<string, Map<string, string>>();

    private childName(prefix: string, key: string): string {
        let m = this.nestedNames.get(prefix);
        if (m === undefined) {
            m = new Map();
            this.nestedNames.set(prefix, m);
        }
        let name = m.get(key);
        if (name === undefined) {
            name = `${prefix}.${key}`;
            m.set(key, name);
        }
        return name;
    }

    private flattenInto(row: number, prefix: string, obj: Record<string, unknown>): void {
        for (const key in obj) {
            const name = this.childName(prefix, key);
            const value = obj[key];
            if (value !== null && typeof value === 'object' && !Array.isArray(value) && !this.mapFields.has(name)) this.flattenInto(row, name, value as Record<string, unknown>);
            else this.field(name).append(row, value);
        }
    }

    /**
     * Appends pre-normalised records (from the durable store): flat field names, `_time`,
     * `_sysTime` and `_rowId` given (the row id is kept exactly).
     */
    ingestFlat(records: Iterable<Record<string, unknown>>): IngestCounts {
        const now = BigInt(Date.now()) * 1_000_000n;
        const localBatches = new Map<string, number>();
        let generated: number | undefined;
        let genSeq = 0;
        let n = 0;
        for (const rec of records) {
            const row = this.rows;
            this.ensureCapacity(row + 1);
            const t = parseTimeValue(rec._time) ?? now;
            const st = parseTimeValue(rec._sysTime) ?? now;
            const [tm, tsub] = splitNs(t);
            const [sm, ssub] = splitNs(st);
            const rid = typeof rec._rowId === 'string' ? rec._rowId : typeof rec._rowID === 'string' ? rec._rowID : undefined;
            const parsed = rid === undefined ? undefined : parseCursor(rid);
            if (parsed && parsed.batch.length === 16 && formatRowId(t, parsed.batch, parsed.seq) === rid) {
                let b = localBatches.get(parsed.batch);
                if (b === undefined) {
                    b = this.batches.indexOf(parsed.batch);
                    if (b < 0) {
                        b = this.batches.length;
                        this.batches.push(parsed.batch);
                    }
                    localBatches.set(parsed.batch, b);
                }
                this.batchOf[row] = b;
                this.seqOf[row] = parsed.seq;
            } else {
                if (generated === undefined) {
                    generated = this.batches.length;
                    this.batches.push(newBatchId());
                }
                this.batchOf[row] = generated;
                this.seqOf[row] = genSeq++;
                if (rid !== undefined) this.rowIdOverrides.set(row, rid);
            }
            this.setTime(row, tm, tsub, sm, ssub);
            for (const key in rec) {
                if (key === '_time' || key === '_sysTime' || key === '_rowId' || key === '_rowID') continue;
                this.field(key).append(row, rec[key]);
            }
            this.rows = row + 1;
            n++;
        }
        // Row ids given from outside may break the ascending order check done in setTime.
        if (localBatches.size > 0) this.sortedAsc = false;
        this.finishBatch();
        return { ingested: n, failed: 0, failures: [] };
    }

    private finishBatch(): void {
        for (const f of this.fieldOrder) f.padTo(this.rows);
        this.orderCache = undefined;
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

    stats(): { name: string; rows: number; fields: number; bytes: number; minTime?: string; maxTime?: string } {
        let bytes = this.rows * (8 + 4 + 8 + 4 + 4 + 4);
        for (const f of this.fieldOrder) bytes += f.byteSize();
        const snap = this.snapshot();
        const min = snap.minTime();
        const max = snap.maxTime();
        const fmt = (ns: bigint | undefined) => (ns === undefined ? undefined : new Date(Number(ns / 1_000_000n)).toISOString());
        return { name: this.name, rows: this.rows, fields: this.fieldOrder.length + 2, bytes, minTime: fmt(min), maxTime: fmt(max) };
    }

    snapshot(): Snapshot {
        const n = this.rows;
        const store = this;
        const fields = this.fieldList().map(f => ({ name: f.name, type: f.type }));
        const views = new Map<string, Column>();
        const time = new TimeColumn('datetime', this.timeMs.subarray(0, n), this.timeSub.subarray(0, n), n);
        const sysTime = new TimeColumn('datetime', this.sysMs.subarray(0, n), this.sysSub.subarray(0, n), n);
        const batchOf = this.batchOf.subarray(0, n);
        const seqOf = this.seqOf.subarray(0, n);
        const batches = this.batches.slice();
        const overrides = this.rowIdOverrides;
        // Batch ids compared as strings, precomputed as ranks.
        const rankOrder = batches.map((_, i) => i).sort((a, b) => (batches[a] < batches[b] ? -1 : batches[a] > batches[b] ? 1 : 0));
        const batchRank = new Uint32Array(batches.length);
        rankOrder.forEach((b, r) => (batchRank[b] = r));
        const cmp = (a: number, b: number): number => {
            const d = time.ms[a] - time.ms[b];
            if (d !== 0) return d < 0 ? -1 : 1;
            const s = time.sub[a] - time.sub[b];
            if (s !== 0) return s;
            const r = batchRank[batchOf[a]] - batchRank[batchOf[b]];
            if (r !== 0) return r;
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
        const order = new Uint32Array(n);
        for (let i = 0; i < n; i++) order[i] = i;
        let sorted = this.sortedAsc && n === this.rows;
        if (!sorted) {
            sorted = true;
            for (let i = 1; i < n; i++) {
                if (cmp(i - 1, i) > 0) {
                    sorted = false;
                    break;
                }
            }
        }
        if (!sorted) order.sort(cmp);
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
