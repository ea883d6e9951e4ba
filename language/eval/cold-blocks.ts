/**
 * Datasets larger than memory: a dataset whose older events stay in its store's blocks on disk
 * ("cold" blocks) and only the newest (the write-ahead log's tail) in an in-memory table.
 *
 * The engine reads a cold block through an injected `ColdBlockReader` (language/ does no I/O) when
 * a query needs it, turns it into a small in-memory table, and keeps it in an LRU bounded by bytes
 * (`ColdBlockCache`). A query picks the blocks it needs by their time spans (the request's time
 * range and the leading `where` terms on `_time`) before anything is read; inside a block the
 * usual per-zone pruning applies. How the blocks are combined is the engine's business
 * (engine.ts: block by block for the mergeable shapes of parallel.ts, else one concatenated scan).
 */
import type { ScalarType } from './columns.js';
import { DatasetStore, type ColumnarChunk, type DatasetSchemaHints, type Snapshot } from './tables.js';
import { AplQueryError } from './errors.js';
import { Datetime } from '../values.js';
import type { PruneTerm } from './zone-maps.js';
import { readsField } from './needed-columns.js';
import { chunkSnapshot } from './chunk-snapshot.js';

/** A field of a cold block, as its header describes it (so a schema needs no read of the block). */
export interface ColdField {
    name: string;
    type: ScalarType;
    /** Axiom's type name (`integer`, `float`, `string`, …). */
    axiomType: string;
}

/** One block of a dataset on disk. */
export interface ColdBlock {
    /** The block's name in its reader (the store's file name). */
    id: string;
    rows: number;
    /** Span of `_time`, ns. */
    minTime: bigint;
    maxTime: bigint;
    fields: readonly ColdField[];
    /** Per field, the smallest and largest value (numbers, or strings in code unit order), for skipping the block unread. */
    ranges?: Readonly<Record<string, { min: number; max: number } | { min: string; max: string }>>;
    /** Per string field with few values: each value and its rows (the rest are null), for answering from the header alone (`loadCounted`). */
    counts?: Readonly<Record<string, readonly (readonly [string, number])[]>>;
    /** String fields with more values, whose values and rows the block stores apart from their rows' codes (ColdBlockReader.valueRows). */
    valueRows?: readonly string[];
}

/** A block's one field (or none) as its distinct values and each one's rows: see ColdAccess.valueCounts. */
export interface ValueCounts {
    /** Undefined: the query reads no field of the block; `values` is then [null], all its rows. */
    field: string | undefined;
    values: (string | null)[];
    rows: number[];
}

/** Which rows of the blocks are visible: retention's cut-off and the trims (API E9). */
export interface ColdKeep {
    /** Rows before this time (ns) are past retention. */
    cutoff?: bigint;
    /** Rows of batches up to `seq` and before `before` (ns) were trimmed. */
    trims: readonly { seq: number; before: bigint }[];
}

/** The cold part of a dataset: its blocks, oldest first, and which of their rows are visible. */
export interface ColdDataset {
    blocks: readonly ColdBlock[];
    keep: ColdKeep;
    /** The dataset's schema hints (its map fields), for the tables its blocks are read into. */
    hints?: DatasetSchemaHints;
    /**
     * Which incarnation of the dataset this is: a dataset deleted and made again reuses block
     * names, so cached blocks are told apart by it. Default 0.
     */
    epoch?: number;
}

/** A zone of a source of a scan over blocks on disk, numbered apart from every other source's (parts count blocks by these). */
export const sourceZone = (source: number, zone: number): number => source * 2 ** 24 + zone;

/** A block's identity in the cache: its incarnation and name. */
export function blockKey(cold: ColdDataset, block: ColdBlock): string {
    return `${cold.epoch ?? 0}:${block.id}`;
}

/** Reads a block (the service reads its file). */
export interface ColdBlockReader {
    /**
     * The block's rows, or undefined when it is gone (a trim or retention removed it: no row of it
     * is visible). `field`: the fields to decode (default all; the rest may be left out).
     */
    read(dataset: string, block: ColdBlock, field?: (name: string) => boolean): ColumnarChunk | undefined;
    /**
     * The block's rows `rows` alone (ascending), in that order, reading only what holds them; undefined
     * when the block is gone. Absent: such a read reads the block (`read`).
     */
    readRows?(dataset: string, block: ColdBlock, rows: Uint32Array, field?: (name: string) => boolean): ColumnarChunk | undefined;
    /**
     * The block's rows without reading them (its file's presence; 0 when it is gone, as `read`
     * would find). Lets a `count` of blocks the query covers whole answer from their headers.
     * Absent: such a count reads the blocks.
     */
    rows?(dataset: string, block: ColdBlock): number;
    /**
     * The values of a field the block lists in `valueRows`, and each one's rows, read without the
     * rows' codes; undefined when the block is gone or has none for it. Absent: such a block is read.
     */
    valueRows?(dataset: string, block: ColdBlock, field: string): { values: string[]; rows: Uint32Array } | undefined;
}

/** What a query reads of a dataset's cold part (engine.ts makes it, sources.ts scans it). */
export interface ColdAccess {
    blocks: readonly ColdBlock[];
    /** The dataset's fields (its blocks' and its in-memory rows'): every source is scanned with all of them. */
    fields: readonly ColdField[];
    /** The block as a table (read on a cache miss), undefined when it is gone. Only the fields the query reads may be there. */
    load(block: ColdBlock): { snapshot: Snapshot; bytes: number; fullBytes: number } | undefined;
    /**
     * The block's rows `rows` (ascending; all of them visible) as a table of those rows alone, not
     * cached: a few rows a query picked by other fields. Undefined when the block is gone, or the
     * reader can only read it whole.
     */
    loadRows(block: ColdBlock, rows: Uint32Array): { snapshot: Snapshot; bytes: number; fullBytes: number } | undefined;
    /**
     * The block's visible rows when they are known without reading it (every row visible, and a
     * reader that can tell the block is still there), else undefined.
     */
    rowsUnread(block: ColdBlock): number | undefined;
    /**
     * The field the query reads, made from the block's header counts without reading it, when the
     * query reads one field of the block (or none), the header has its counts, and the query reads
     * no system field: its values in no particular row order, with no times or row ids (for a scan
     * that needs no order and covers every row of the block). Undefined: the block must be read.
     */
    loadCounted(block: ColdBlock): { snapshot: Snapshot } | undefined;
    /**
     * What loadCounted makes, as each value and its rows instead of a row each (weighted-counts.ts):
     * the block's rows whose field is `values[k]` number `rows[k]` (null: the field is null or absent).
     */
    valueCounts(block: ColdBlock): ValueCounts | undefined;
    /** Bytes of blocks one scan may hold at once (the cache's bound). */
    capacity: number;
}

/**
 * A block's chunk as a table: its own arrays when every row is visible and the snapshot can take
 * them (chunk-snapshot.ts; `grew` hears what it makes later), else a store's copy of the rows `select`.
 */
function chunkTable(dataset: string, chunk: ColumnarChunk, select: Uint32Array | undefined, hints: DatasetSchemaHints, grew?: (bytes: number) => void): { snapshot: Snapshot; bytes: number; fullBytes: number } {
    const direct = select === undefined ? chunkSnapshot(dataset, chunk, hints, grew) : undefined;
    if (direct) return direct;
    const store = new DatasetStore(dataset, hints);
    store.reserve(chunk.rows);
    store.appendColumns({ ...chunk, select });
    const bytes = store.byteSize();
    return { snapshot: store.snapshot(), bytes, fullBytes: bytes };
}

/** The rows of a chunk the keep rules leave visible, or undefined when all of them are. */
function visibleRows(chunk: ColumnarChunk, keep: ColdKeep): Uint32Array | undefined {
    if (keep.cutoff === undefined && keep.trims.length === 0) return undefined;
    const seqs = chunk.batches.map(b => Number(b.seq));
    const out = new Uint32Array(chunk.rows);
    let n = 0;
    for (let i = 0; i < chunk.rows; i++) {
        const t = chunk.times[i];
        if (keep.cutoff !== undefined && t < keep.cutoff) continue;
        const seq = seqs[chunk.batchOf[i]];
        let hidden = false;
        for (const tr of keep.trims) if (seq <= tr.seq && t < tr.before) hidden = true;
        if (!hidden) out[n++] = i;
    }
    return n === chunk.rows ? undefined : out.subarray(0, n);
}

/** Whether a time range [startTime, endTime) holds every row of a block (by its span; ns). */
export function rangeHoldsBlock(block: ColdBlock, range: { startTime?: bigint; endTime?: bigint }): boolean {
    return (range.startTime === undefined || block.minTime >= range.startTime) && (range.endTime === undefined || block.maxTime < range.endTime);
}

/** Whether the keep rules leave every row of a block visible (its oldest row is past the cut-off and every trim). */
export function showsWholeBlock(keep: ColdKeep, block: ColdBlock): boolean {
    return (keep.cutoff === undefined || block.minTime >= keep.cutoff) && keep.trims.every(t => block.minTime >= t.before);
}

function keepKey(keep: ColdKeep): string {
    return `${keep.cutoff ?? ''};${keep.trims.map(t => `${t.seq}<${t.before}`).join(',')}`;
}

interface CachedBlock {
    snapshot: Snapshot;
    /** Its memory now (a block read in place makes its times, row ids and orders when a query reads them). */
    bytes: number;
    /** Its memory once all of that is made: what a scan that holds it may come to hold. */
    fullBytes: number;
    dataset: string;
    block: string;
    /** The query that used it last (`ColdBlockCache.startQuery`). */
    query: number;
    /** Whether the cache holds it (a block a scan could not keep is still that scan's). */
    cached: boolean;
}

/**
 * Cold blocks read into in-memory tables, least recently used first out, bounded by `capacity`
 * bytes (the tables' own size estimate). A block that is in use by a running query stays alive
 * through that query's references even after it leaves the cache; `ColdScan` bounds those.
 */
export class ColdBlockCache {
    private readonly map = new Map<string, CachedBlock>();
    /** Value counts read from blocks' sections, least recently used first (valueCounts). */
    private readonly counted = new Map<string, CachedCounts>();
    private countedBytes = 0;
    private used = 0;
    /** The current query's number (`startQuery`). */
    private query = 0;
    /** Blocks read from the reader since creation (tests and the bench read it). */
    reads = 0;
    /** Reads of some rows of a block (loadRows). */
    rowReads = 0;

    constructor(
        readonly capacity: number,
        private readonly reader: ColdBlockReader | undefined,
        private readonly hints: (dataset: string) => DatasetSchemaHints | undefined,
    ) {}

    get bytes(): number {
        return this.used;
    }

    get blocks(): number {
        return this.map.size;
    }

    /**
     * The block as a table, read on a miss; undefined when the block is gone. `fields`: the names a
     * query reads (needed-columns.ts): the other fields are not decoded. Default all.
     */
    load(dataset: string, cold: ColdDataset, block: ColdBlock, fields?: ReadonlySet<string>): CachedBlock | undefined {
        // Keyed by the block's fields read, not the names asked for: queries naming other names (`_time`, a field this block lacks) share it.
        const read = fields && fieldsRead(block, fields);
        const key = `${dataset}\u0000${blockKey(cold, block)}\u0000${keepKey(cold.keep)}\u0000${read ? read.sort().join('\u0001') : '*'}`;
        const hit = this.hit(key);
        if (hit) return hit;
        if (!this.reader) throw new Error(`dataset ${dataset}: it has blocks on disk, and this engine has no reader for them`);
        const chunk = this.reader.read(dataset, block, fields && (name => readsField(fields, name)));
        if (chunk === undefined) return undefined;
        this.reads++;
        const hints = { ...this.hints(dataset), ...cold.hints };
        const select = visibleRows(chunk, cold.keep);
        const base = { dataset, block: blockKey(cold, block), query: this.query, cached: false };
        // The snapshot tells the entry what it makes later (its times and orders, on first use; never while it is made).
        const grew = (bytes: number): void => this.grew(key, entry, bytes);
        const entry: CachedBlock = { ...base, ...chunkTable(dataset, chunk, select, hints, grew) };
        this.admit(key, entry);
        return entry;
    }

    /** The cached block of `key`, now the most recently used and this query's; undefined on a miss. */
    private hit(key: string): CachedBlock | undefined {
        const hit = this.map.get(key);
        if (hit) {
            this.map.delete(key);
            this.map.set(key, hit);
            hit.query = this.query;
        }
        return hit;
    }

    /** Keeps the block if room can be made for it (`makeRoom`). */
    private admit(key: string, entry: CachedBlock): void {
        if (!this.makeRoom(entry.bytes)) return;
        this.map.set(key, entry);
        this.used += entry.bytes;
        entry.cached = true;
    }

    /** A new query begins: the blocks it reads may push out those of earlier queries, not its own (see `makeRoom`). */
    startQuery(): void {
        this.query++;
    }

    /**
     * Makes room for `bytes` by dropping the least recently used blocks of earlier queries; false
     * when that is not enough. A scan of more blocks than the cache holds then keeps the blocks it
     * read first instead of each pushing out the one before: run again, it finds those (a least
     * recently used cache would have dropped each block just before the scan came back to it).
     */
    private makeRoom(bytes: number): boolean {
        while (this.used + bytes > this.capacity && this.map.size > 0) {
            const [oldest, e] = this.map.entries().next().value as [string, CachedBlock];
            if (e.query === this.query) return false;
            this.map.delete(oldest);
            this.used -= e.bytes;
            e.cached = false;
        }
        // A block larger than the whole cache is still kept alone, as the one in use.
        return this.used + bytes <= this.capacity || this.map.size === 0;
    }

    /** A block read in place made its times, row ids or an order (chunk-snapshot.ts): counted, and room made or the block let go. */
    private grew(key: string, entry: CachedBlock, bytes: number): void {
        const wasCached = entry.cached;
        if (wasCached) {
            // Out at its old size, then in again at its new one (it may not push itself out).
            this.map.delete(key);
            this.used -= entry.bytes;
            entry.cached = false;
        }
        entry.bytes += bytes;
        if (wasCached) this.admit(key, entry);
    }

    /** The block's rows `rows` alone, read for this query only (see ColdAccess.loadRows). */
    loadRows(dataset: string, cold: ColdDataset, block: ColdBlock, rows: Uint32Array, fields?: ReadonlySet<string>): CachedBlock | undefined {
        if (this.reader?.readRows === undefined || !showsWholeBlock(cold.keep, block)) return undefined;
        const chunk = this.reader.readRows(dataset, block, rows, fields && (name => readsField(fields, name)));
        if (chunk === undefined) return undefined;
        this.rowReads++;
        const base = { dataset, block: blockKey(cold, block), query: this.query, cached: false };
        return { ...base, ...chunkTable(dataset, chunk, undefined, { ...this.hints(dataset), ...cold.hints }) };
    }

    /** The block's field among `fields` from its header counts (see ColdAccess.loadCounted). */
    loadCounted(dataset: string, cold: ColdDataset, block: ColdBlock, fields: ReadonlySet<string> | undefined): CachedBlock | undefined {
        const names = countedFields(block, fields);
        if (names === undefined) return undefined;
        const key = `${dataset}\u0000${blockKey(cold, block)}\u0000${keepKey(cold.keep)}\u0000#${names.sort().join('\u0001')}`;
        const hit = this.hit(key);
        if (hit) return hit;
        const chunk = countedChunk(block, names);
        const made = chunk && chunkSnapshot(dataset, chunk, { ...this.hints(dataset), ...cold.hints });
        if (!made) return undefined;
        const entry: CachedBlock = { snapshot: made.snapshot, bytes: made.bytes, fullBytes: made.bytes, dataset, block: blockKey(cold, block), query: this.query, cached: false };
        this.admit(key, entry);
        return entry;
    }

    /** The block's field among `fields` as its values and their rows, from its header or its section of them (see ColdAccess.valueCounts). */
    valueCounts(dataset: string, cold: ColdDataset, block: ColdBlock, fields: ReadonlySet<string> | undefined): ValueCounts | undefined {
        const names = countedFields(block, fields, this.reader?.valueRows !== undefined);
        if (names === undefined) return undefined;
        const field = names[0] as string | undefined;
        if (field === undefined || block.counts?.[field] !== undefined) return trustedCounts(block, field, field === undefined ? [] : block.counts![field]);
        // From the block's section of them: kept like a block read (a few kilobytes, where the block is megabytes).
        const key = `${dataset}\u0000${blockKey(cold, block)}\u0000${field}`;
        const hit = this.counted.get(key);
        if (hit) {
            this.counted.delete(key);
            this.counted.set(key, hit);
            return hit.counts;
        }
        const read = this.reader!.valueRows!(dataset, block, field);
        const counts = read && trustedCounts(block, field, read.values.map((v, k) => [v, read.rows[k]] as const));
        if (counts === undefined) return undefined;
        let bytes = 64;
        for (const v of counts.values) bytes += 2 * (v?.length ?? 0) + 32;
        this.admitCounts(key, { counts, bytes, dataset, block: blockKey(cold, block) });
        return counts;
    }

    /**
     * Keeps value counts read from a block in the cache's bytes, at most a sixteenth of them: the
     * oldest counts go first, then the blocks of earlier queries (makeRoom); else they are not kept.
     */
    private admitCounts(key: string, entry: CachedCounts): void {
        for (const [k, e] of this.counted) {
            if (this.countedBytes + entry.bytes <= this.capacity / 16) break;
            this.dropCounts(k, e);
        }
        if (this.countedBytes + entry.bytes > this.capacity / 16 || !this.makeRoom(entry.bytes)) return;
        this.counted.set(key, entry);
        this.countedBytes += entry.bytes;
        this.used += entry.bytes;
    }

    private dropCounts(key: string, e: CachedCounts): void {
        this.counted.delete(key);
        this.countedBytes -= e.bytes;
        this.used -= e.bytes;
    }

    /** The block's visible rows without reading it (see ColdAccess.rowsUnread). */
    rowsUnread(dataset: string, cold: ColdDataset, block: ColdBlock): number | undefined {
        if (this.reader?.rows === undefined || !showsWholeBlock(cold.keep, block)) return undefined;
        return this.reader.rows(dataset, block);
    }

    /**
     * Drops the blocks of a dataset that are not in `keep` (all of them when it is deleted: its
     * block names may be reused). A reload after a compaction keeps the blocks it still lists.
     */
    forget(dataset: string, keep?: ReadonlySet<string>): void {
        for (const [k, e] of this.map) {
            if (e.dataset === dataset && !keep?.has(e.block)) {
                this.map.delete(k);
                this.used -= e.bytes;
            }
        }
        for (const [k, e] of this.counted) if (e.dataset === dataset && !keep?.has(e.block)) this.dropCounts(k, e);
    }
}

/**
 * A block's values of `field` and their rows as ValueCounts, the rest of its rows null; undefined
 * when they come to more rows than the block has (a header or a section not to trust).
 */
function trustedCounts(block: ColdBlock, field: string | undefined, counts: readonly (readonly [string, number])[]): ValueCounts | undefined {
    let listed = 0;
    for (const c of counts) listed += c[1];
    if (counts.some(c => !(Number.isInteger(c[1]) && c[1] >= 0)) || listed > block.rows) return undefined;
    // A value of no rows is no group.
    const kept = counts.filter(c => c[1] > 0);
    const values: (string | null)[] = kept.map(c => c[0]);
    const rows = kept.map(c => c[1]);
    if (listed < block.rows) {
        values.push(null);
        rows.push(block.rows - listed);
    }
    return { field, values, rows };
}

/** Value counts read from a block's section (ColdBlockCache.valueCounts), with their size. */
interface CachedCounts {
    counts: ValueCounts;
    bytes: number;
    dataset: string;
    block: string;
}

/** Fields every block has without a column of its own: a query that reads one needs the block. */
const SYSTEM_FIELDS = new Set(['_time', '_sysTime', '_rowId', '_rowID']);

/**
 * The block's fields among those a query reads, when its header counts can stand for them: one
 * field at most (the counts of two fields do not say which of their values share a row), with
 * counts, and no system field. None: the rows alone (`summarize count()`), which every header gives.
 */
function countedFields(block: ColdBlock, fields: ReadonlySet<string> | undefined, inSections = false): string[] | undefined {
    if (fields === undefined || [...fields].some(f => SYSTEM_FIELDS.has(f))) return undefined;
    const names = fieldsRead(block, fields);
    const counted = (name: string) => block.counts?.[name] !== undefined || (inSections && block.valueRows?.includes(name) === true);
    return names.length > 1 || !names.every(counted) ? undefined : names;
}

/** The block's columns among the names a query reads. */
function fieldsRead(block: ColdBlock, names: ReadonlySet<string>): string[] {
    return block.fields.filter(f => !SYSTEM_FIELDS.has(f.name) && readsField(names, f.name)).map(f => f.name);
}

/**
 * The block's fields `names` (one at most: see loadCounted) as columns made from its header
 * counts: each value's rows in a run, the nulls last. Times and row ids are not there: reading
 * them throws. Undefined when the counts come to more rows than the block has (a header to distrust).
 */
function countedChunk(block: ColdBlock, names: readonly string[]): ColumnarChunk | undefined {
    const n = block.rows;
    const columns: ColumnarChunk['columns'][number][] = [];
    for (const name of names) {
        const counts = block.counts![name];
        const codes = new Uint32Array(n);
        let at = 0;
        for (let k = 0; k < counts.length; k++) {
            const rows = counts[k][1];
            if (!(Number.isInteger(rows) && rows >= 0 && at + rows <= n)) return undefined;
            codes.fill(k + 1, at, at + rows);
            at += rows;
        }
        columns.push({ name, kind: 'str', dict: counts.map(c => c[0]), codes });
    }
    const none = (): never => {
        throw new Error(`block ${block.id}: made from its header's counts, it has no times or row ids`);
    };
    return {
        rows: n,
        get times() {
            return none();
        },
        get batchOf() {
            return none();
        },
        get rowInBatch() {
            return none();
        },
        batches: [],
        columns,
        flatStrings: true,
    };
}

/** Whether a block whose field lies in `r` may hold a row where `field op value` holds. */
function rangeMayMatch(r: { min: number; max: number } | { min: string; max: string }, t: PruneTerm): boolean {
    const v = t.value;
    // Only a value of the range's own type decides (a string field compared with a number, say, is left to the filter).
    if (typeof v !== typeof r.min || (typeof v !== 'number' && typeof v !== 'string')) return true;
    const { min, max } = r;
    switch (t.op) {
        case '==': return v >= min && v <= max;
        case '<': return min < v;
        case '<=': return min <= v;
        case '>': return max > v;
        case '>=': return max >= v;
    }
}

/**
 * The blocks a scan needs: those whose `_time` span meets the request's range [start, end) and the
 * leading `where` terms on `_time`, and whose value ranges (block headers) the other terms allow.
 */
export function pickBlocks(blocks: readonly ColdBlock[], start: bigint | undefined, end: bigint | undefined, terms: readonly PruneTerm[]): ColdBlock[] {
    let lo = start;
    let hi = end; // exclusive
    for (const t of terms) {
        if (t.field !== '_time' || !(t.value instanceof Datetime)) continue;
        const v = t.value.ns;
        if (t.op === '>' || t.op === '>=' || t.op === '==') lo = lo === undefined || v > lo ? v : lo;
        if (t.op === '<' && (hi === undefined || v < hi)) hi = v;
        if ((t.op === '<=' || t.op === '==') && (hi === undefined || v + 1n < hi)) hi = v + 1n;
    }
    const byRange = terms.filter(t => t.field !== '_time');
    return blocks.filter(b => {
        if ((lo !== undefined && b.maxTime < lo) || (hi !== undefined && b.minTime >= hi)) return false;
        for (const t of byRange) {
            const r = b.ranges?.[t.field];
            if (r !== undefined && !rangeMayMatch(r, t)) return false;
        }
        return true;
    });
}

/**
 * The blocks one scan holds at once (a concatenated scan reads all it needs before it runs): a
 * query that would hold more than the cache may stops here, naming the bound, instead of taking
 * the service's memory.
 */
export class ColdScan {
    private held = 0;
    constructor(private readonly capacity: number) {}

    /** A block of `bytes` is scanned: the scan holds it, and (concatenated with the others) a copy of its rows. */
    hold(bytes: number): void {
        this.held += 2 * bytes;
        if (this.held > this.capacity) {
            throw new AplQueryError(
                `the query needs more of the dataset's blocks in memory at once than the memory limit allows (${mb(this.held)} of ${mb(this.capacity)}): ` +
                    'narrow its time range, or aggregate (count, summarize with count/sum/min/max/avg/dcount/percentile, top) so that it runs block by block',
                1,
                1,
                'limit',
            );
        }
    }
}

const mb = (n: number): string => (n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KB` : `${(n / (1024 * 1024)).toFixed(1)} MB`);

/** Two descriptions of one field as one column holding both kinds of values would describe it. */
function widen(had: ColdField, f: ColdField): ColdField {
    if (had.type === f.type && had.axiomType === f.axiomType) return had;
    const numeric = (had.type === 'long' || had.type === 'real') && (f.type === 'long' || f.type === 'real');
    if (numeric) return had.type === 'long' && f.type === 'long' ? had : { name: f.name, type: 'real', axiomType: had.axiomType === 'float' && f.axiomType === 'float' ? 'float' : 'integer|float' };
    // The kinds seen, as the in-memory column lists them: sorted.
    const kinds = [...new Set([...had.axiomType.split('|'), ...f.axiomType.split('|')])].filter(k => k !== '').sort();
    return { name: f.name, type: 'dynamic', axiomType: kinds.join('|') };
}

/** The blocks' fields merged, once per cold list (a query asks per scan, and per block part). */
const blockFields = new WeakMap<ColdDataset, Map<string, ColdField>>();

function fieldsOfBlocks(cold: ColdDataset): Map<string, ColdField> {
    let out = blockFields.get(cold);
    if (!out) {
        out = new Map();
        for (const b of cold.blocks) for (const f of b.fields) out.set(f.name, out.has(f.name) ? widen(out.get(f.name)!, f) : f);
        blockFields.set(cold, out);
    }
    return out;
}

/** The fields of a dataset: its blocks' and its in-memory part's, types widened as one table holding all would. */
export function mergeColdFields(hot: readonly ColdField[], cold: ColdDataset | undefined): ColdField[] {
    if (!cold) return [...hot];
    const out = new Map(fieldsOfBlocks(cold));
    for (const f of hot) out.set(f.name, out.has(f.name) ? widen(out.get(f.name)!, f) : f);
    const system = ['_time', '_sysTime'];
    const rest = [...out.values()].filter(f => !system.includes(f.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...system.map(name => ({ name, type: 'datetime' as ScalarType, axiomType: 'datetime' })), ...rest];
}
