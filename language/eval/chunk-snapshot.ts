/**
 * A snapshot straight over a columnar chunk (a block read from disk: cold-blocks.ts), without
 * copying it into a `DatasetStore` first.
 *
 * A whole-block aggregation (`where status == "500" | count`, `summarize count() by status`) reads
 * only its fields' codes and values: copying the block into a store also split every row's time,
 * mapped every row's batch and re-coded every string, which cost more than the query. Here a
 * field's column is the chunk's own arrays; `_time` is split, and the row ids' parts read, on first
 * use; the order and the row ids are the store's: (_time, batch id, row in batch).
 *
 * Only chunks whose columns map to the store's without a decision of its own: every row visible,
 * no `json` column (mixed kinds widen value by value), no field with a declared type (map fields,
 * schema hints). For any other chunk `chunkSnapshot` returns undefined and the caller copies it.
 */
import { BoolColumn, type Column, ConstColumn, NumColumn, StrColumn, TimeColumn, splitNs, type ScalarType } from './columns.js';
import type { ColumnarChunk, ColumnChunk, DatasetSchemaHints, Snapshot } from './tables.js';
import { LITTLE_ENDIAN, splitTimes } from './kernels/time.js';
import { batchIdHex, formatRowId, type ParsedCursor } from '../api/row-id.js';
import type { StringLookup } from './string-index.js';
import type { AplValue } from '../values.js';
import { timeOrder } from './kernels/sort.js';

/** Bytes per row of what the snapshot may make besides its fields: times (the block's 8 and split 12), system times (12), row id parts (8), three orders (4 each). */
const FULL_EXTRA_BYTES_PER_ROW = 20 + 12 + 8 + 3 * 4;

export interface ChunkSnapshot {
    snapshot: Snapshot;
    /** Its size in memory now: the fields' columns. What it makes later (times, row ids, orders) is told to `grew`. */
    bytes: number;
    /** Its size once everything is made, as a store holding the chunk would count it. */
    fullBytes: number;
}

/**
 * The chunk as a snapshot without a copy, or undefined when it must be copied into a store (see the
 * file comment). `grew` hears of the memory it takes later (times split, row ids read, orders made).
 */
export function chunkSnapshot(dataset: string, chunk: ColumnarChunk, hints: DatasetSchemaHints = {}, grew: (bytes: number) => void = () => {}): ChunkSnapshot | undefined {
    if (chunk.select !== undefined) return undefined;
    const declared = new Set([...Object.keys(hints.fieldTypes ?? {}), ...(hints.mapFields ?? [])]);
    const n = chunk.rows;
    const cols = new Map<string, Column>();
    const fields: { name: string; type: ScalarType }[] = [];
    let bytes = 0;
    for (const c of chunk.columns) {
        if (c.name === '_time' || c.name === '_sysTime' || c.name === '_rowId' || c.name === '_rowID') continue;
        if (c.kind === 'json' || declared.has(c.name) || cols.has(c.name)) return undefined;
        const col = columnOf(c, n, grew);
        cols.set(c.name, col);
        fields.push({ name: c.name, type: col.type });
        bytes += columnBytes(col);
    }
    // As a store lists them: the system times, then the fields by name.
    fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    fields.unshift({ name: '_time', type: 'datetime' }, { name: '_sysTime', type: 'datetime' });

    // A scan makes a column of every field, the times included: they are read when a query reads
    // them, and split only when it needs them so (a binned time key reads them as stored).
    let storedRead = false;
    const stored = (): BigInt64Array | readonly bigint[] => {
        // The block's decoded section is kept for it.
        if (!storedRead) grew(8 * n);
        storedRead = true;
        return chunk.times;
    };
    const time = new LazyTimeColumn(
        n,
        () => {
            const ms = new Float64Array(n);
            const sub = new Int32Array(n);
            splitTimes(stored(), null, n, ms, sub, 0, 0);
            grew(12 * n);
            return [ms, sub];
        },
        () => {
            const times = stored();
            return times instanceof BigInt64Array && LITTLE_ENDIAN ? new Int32Array(times.buffer, times.byteOffset, 2 * n) : undefined;
        },
        (idx, m, ms, sub) => splitTimes(stored(), idx, m, ms, sub, 0, 0),
    );
    // Row ids and the order are the store's: (_time, batch id, row in batch), the batch ids as 16 hex digits.
    const batchIds = chunk.batches.map(b => batchIdHex(b.seq));
    let ids: { batchOf: Uint32Array; seqOf: Uint32Array } | undefined;
    const rowIds = (): { batchOf: Uint32Array; seqOf: Uint32Array } => {
        if (ids === undefined) {
            ids = { batchOf: chunk.batchOf, seqOf: chunk.rowInBatch };
            grew(8 * n);
        }
        return ids;
    };
    // A row's system time is its batch's.
    const batchSysTimes = (): [Float64Array, Int32Array] => {
        const nb = chunk.batches.length;
        const bms = new Float64Array(nb);
        const bsub = new Int32Array(nb);
        for (let j = 0; j < nb; j++) [bms[j], bsub[j]] = splitNs(chunk.batches[j].sysTime);
        return [bms, bsub];
    };
    const sysTime = new LazyTimeColumn(
        n,
        () => {
            const [bms, bsub] = batchSysTimes();
            const { batchOf } = rowIds();
            const ms = new Float64Array(n);
            const sub = new Int32Array(n);
            for (let i = 0; i < n; i++) {
                ms[i] = bms[batchOf[i]];
                sub[i] = bsub[batchOf[i]];
            }
            grew(12 * n);
            return [ms, sub];
        },
        undefined,
        (idx, m, ms, sub) => {
            const [bms, bsub] = batchSysTimes();
            const { batchOf } = rowIds();
            for (let i = 0; i < m; i++) {
                ms[i] = bms[batchOf[idx[i]]];
                sub[i] = bsub[batchOf[idx[i]]];
            }
        },
    );
    const compareRows = (a: number, b: number): number => {
        const d = time.ms[a] - time.ms[b];
        if (d !== 0) return d < 0 ? -1 : 1;
        const s = time.sub[a] - time.sub[b];
        if (s !== 0) return s;
        const { batchOf, seqOf } = rowIds();
        const ba = batchIds[batchOf[a]];
        const bb = batchIds[batchOf[b]];
        if (ba !== bb) return ba < bb ? -1 : 1;
        return seqOf[a] - seqOf[b];
    };
    let asc: Uint32Array | undefined;
    let desc: Uint32Array | undefined;
    let rank: Uint32Array | undefined;
    let spread: number | undefined;
    const ascOrder = (): Uint32Array => {
        if (asc === undefined) {
            // Rows the chunk says are in order: their times stay unread.
            if (chunk.inTimeOrder === true) {
                asc = new Uint32Array(n);
                for (let i = 0; i < n; i++) asc[i] = i;
            } else asc = timeOrder(time.ms, n, compareRows);
            grew(4 * n);
        }
        return asc;
    };
    const descOrder = (): Uint32Array => {
        if (desc === undefined) {
            const a = ascOrder();
            desc = new Uint32Array(n);
            for (let i = 0; i < n; i++) desc[i] = a[n - 1 - i];
            grew(4 * n);
        }
        return desc;
    };
    return {
        bytes,
        fullBytes: bytes + n * FULL_EXTRA_BYTES_PER_ROW,
        snapshot: {
            dataset,
            rows: n,
            fields,
            time,
            sysTime,
            column(name: string): Column | undefined {
                if (name === '_time') return time;
                if (name === '_sysTime') return sysTime;
                return cols.get(name);
            },
            ascOrder,
            descOrder,
            descRank(): Uint32Array {
                if (rank === undefined) {
                    const d = descOrder();
                    rank = new Uint32Array(n);
                    for (let i = 0; i < n; i++) rank[d[i]] = i;
                    grew(4 * n);
                }
                return rank;
            },
            orderSpread(): number {
                if (spread === undefined && chunk.inTimeOrder === true) spread = 0;
                if (spread === undefined) {
                    const a = ascOrder();
                    spread = 0;
                    for (let i = 0; i < n; i++) spread = Math.max(spread, a[i] > i ? a[i] - i : i - a[i]);
                }
                return spread;
            },
            rowId(i: number): string {
                const { batchOf, seqOf } = rowIds();
                return formatRowId(time.ns(i), batchIds[batchOf[i]], seqOf[i]);
            },
            compareRows,
            compareWithCursor(i: number, c: ParsedCursor): number {
                const ns = time.ns(i);
                if (ns !== c.ns) return ns < c.ns ? -1 : 1;
                const { batchOf, seqOf } = rowIds();
                const b = batchIds[batchOf[i]];
                if (b !== c.batch) return b < c.batch ? -1 : 1;
                return seqOf[i] - c.seq;
            },
            minTime: () => (n === 0 ? undefined : time.ns(ascOrder()[0])),
            maxTime: () => (n === 0 ? undefined : time.ns(ascOrder()[n - 1])),
        },
    };
}

/** A chunk's column as the store's view of it would be: same type, same values, the chunk's arrays where they can be shared. */
function columnOf(c: Exclude<ColumnChunk, { kind: 'json' }>, n: number, grew: (bytes: number) => void): Column {
    switch (c.kind) {
        case 'str': {
            let any = false;
            for (let i = 0; i < n && !any; i++) any = c.codes[i] !== 0;
            // A store's field with no value is 'string' and all null.
            if (!any) return new ConstColumn('string', null, n);
            // The store's dictionaries hold code 0 (null) at index 0: chunk code k is dict[k - 1].
            if (c.keyHashes !== undefined) return new LazyDictColumn(c.codes.subarray(0, n), n, new LazyDict(() => ['', ...c.dict], c.valueAt, grew), c.keyHashes);
            const dict = ['', ...c.dict];
            return new StrColumn(c.codes.subarray(0, n), dict, n, lazyIndex(dict));
        }
        case 'f64': {
            const { values, present } = c;
            let bits = 0;
            let absent = 0;
            for (let i = 0; i < n; i++) {
                if (present !== null && ((present[i >> 3] >> (i & 7)) & 1) === 0) absent++;
                else bits |= Number.isInteger(values[i]) ? 1 : 2;
            }
            if (bits === 0) return new ConstColumn('string', null, n);
            const type = bits & 2 ? 'real' : 'long';
            if (absent === 0) return new NumColumn(type, values.subarray(0, n), null, n);
            // The store keeps 0 under a null (kernels that read values unmasked rely on it).
            const vals = values.slice(0, n);
            const nulls = new Uint8Array(n);
            for (let i = 0; i < n; i++) {
                if (((present![i >> 3] >> (i & 7)) & 1) === 0) {
                    nulls[i] = 1;
                    vals[i] = 0;
                }
            }
            return new NumColumn(type, vals, nulls, n);
        }
        case 'bool': {
            let any = false;
            for (let i = 0; i < n && !any; i++) any = c.values[i] !== 2;
            if (!any) return new ConstColumn('string', null, n);
            // 0 false, 1 true, 2 absent: the store's encoding too.
            return new BoolColumn(c.values.subarray(0, n), n);
        }
    }
}

/** Value → code over a dictionary, made on the first lookup (most queries never look a value up). */
function lazyIndex(dict: readonly string[]): StringLookup {
    let map: Map<string, number> | undefined;
    return {
        get(s: string): number | undefined {
            if (map === undefined) {
                map = new Map();
                // The first code of a value wins, as `indexOf` finds it (a block's dictionary holds each value once).
                for (let k = dict.length - 1; k >= 1; k--) map.set(dict[k], k);
            }
            return map.get(s);
        },
    };
}

/** A dictionary's strings as a store counts them, and the block's own array of them beside ours. */
const dictBytes = (dict: readonly string[]): number => dict.reduce((s, x) => s + x.length * 2 + 72 + 8, 0);

function columnBytes(col: Column): number {
    // A dictionary not made yet: its key hashes (what it takes once made is told to `grew` then).
    if (col instanceof LazyDictColumn) return col.codes.byteLength + col.keyHashes.byteLength;
    if (col instanceof StrColumn) return col.codes.byteLength + dictBytes(col.dict);
    if (col instanceof NumColumn) return col.vals.byteLength + (col.nulls?.byteLength ?? 0);
    if (col instanceof BoolColumn) return col.vals.byteLength;
    return 0;
}

/**
 * A block's string column whose dictionary is made when first read (its section parsed): a
 * dcount of it reads the block's key hashes instead (merge-states.ts distinctStates), and a large
 * dictionary (an id per event) is most of what reading such a column costs.
 */
class LazyDictColumn extends StrColumn {
    declare readonly keyHashes: Uint32Array;

    constructor(codes: Uint32Array, n: number, private readonly lazy: LazyDict, keyHashes: Uint32Array) {
        super(codes, NO_DICT, n, undefined, keyHashes);
        // Accessors over the fields StrColumn set: made on first use, then kept (by `lazy`, which gathered copies share).
        Object.defineProperty(this, 'dict', { get: (): string[] => lazy.dict() });
        Object.defineProperty(this, 'index', { get: (): StringLookup => lazy.index() });
    }

    override get(i: number): AplValue {
        const c = this.codes[i];
        return c === 0 ? null : this.lazy.valueAt(c);
    }

    /** The same dictionary, still unmade: a `top`'s few rows copied out read only their values' parts. */
    override withCodes(codes: Uint32Array, n: number): StrColumn {
        return new LazyDictColumn(codes, n, this.lazy, this.keyHashes);
    }
}

/** A block's dictionary made on first use (`make`: with the null entry at 0), or one value at a time where the block can. */
class LazyDict {
    private made: string[] | undefined;
    private lookup: StringLookup | undefined;

    constructor(
        private readonly make: () => string[],
        private readonly one: ((k: number) => string) | undefined,
        private readonly grew: (bytes: number) => void,
    ) {}

    dict(): string[] {
        if (this.made === undefined) {
            this.made = this.make();
            this.grew(dictBytes(this.made));
        }
        return this.made;
    }

    index(): StringLookup {
        return (this.lookup ??= lazyIndex(this.dict()));
    }

    valueAt(k: number): AplValue {
        return this.made !== undefined || this.one === undefined ? this.dict()[k] : this.one(k);
    }
}

const NO_DICT: string[] = [''];

const NO_MS = new Float64Array(0);
const NO_SUB = new Int32Array(0);

/**
 * A datetime column whose arrays are made on first use. Its `ms` and `sub` start as accessors and
 * become plain properties once made, so the kernels that read them row by row pay nothing more.
 */
class LazyTimeColumn extends TimeColumn {
    private words: Int32Array | null | undefined;
    private made = false;

    constructor(
        n: number,
        make: () => [Float64Array, Int32Array],
        /** The times as stored, as words (read on first use: a block's times are decoded then). */
        private readonly stored?: () => Int32Array | undefined,
        /** Splits some rows alone (see splitRows). */
        private readonly pick?: (idx: Uint32Array, n: number, ms: Float64Array, sub: Int32Array) => void,
    ) {
        super('datetime', NO_MS, NO_SUB, n);
        const fill = (): void => {
            const [ms, sub] = make();
            this.made = true;
            Object.defineProperty(this, 'ms', { value: ms, enumerable: true });
            Object.defineProperty(this, 'sub', { value: sub, enumerable: true });
        };
        for (const key of ['ms', 'sub'] as const) {
            Object.defineProperty(this, key, {
                configurable: true,
                enumerable: true,
                get: () => {
                    fill();
                    return this[key];
                },
            });
        }
    }

    override get nsWords(): Int32Array | undefined {
        if (this.words === undefined) this.words = this.stored?.() ?? null;
        return this.words ?? undefined;
    }

    /** A few rows (an eighth of the column at most) are split alone until the column is made; past that, it is made. */
    override splitRows(idx: Uint32Array, n: number, ms: Float64Array, sub: Int32Array): boolean {
        if (this.made || this.pick === undefined || n * 8 > this.length) return false;
        this.pick(idx, n, ms, sub);
        return true;
    }

    /** A row's time from the stored words while the column is unmade (a binary search over a block's rows reads a few). */
    override ns(i: number): bigint {
        const w = this.made ? undefined : this.nsWords;
        return w === undefined ? super.ns(i) : (BigInt(w[2 * i + 1]) << 32n) | BigInt(w[2 * i] >>> 0);
    }
}
