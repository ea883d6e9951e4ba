/**
 * One dataset's durable state: metadata, manifest, WAL segments, blocks, the in-memory WAL tail,
 * background compaction, recovery, snapshots. See FORMAT.md for the on-disk layout and the crash
 * argument. Used through Store (store.ts).
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { buildBatch, type AppendInput, type IngestParams } from '../ingest/ingest.js';
import type { ColumnarBatch } from '../ingest/columnar.js';
import type { FlatFields, NormalizedEvents } from '../ingest/normalize-event.js';
import { decodeBlock, type DecodedBlock } from './block.js';
import type { BlockInput } from './block.js';
import { keepFilter, runTailCompaction } from './compact.js';
import type { Compactor } from './compactor.js';
import { StoreError } from './errors.js';
import { fsyncDir, readJsonIfExists, removeTempFiles, writeFileAtomic } from './fsutil.js';
import { batchIdHex, formatRowId } from './row-id.js';
import { frame, scanSegment, WalWriter } from './wal.js';
import { decodeWalPayload, encodeWalPayload } from './wal-record.js';

export interface DatasetMeta {
    name: string;
    kind: string;
    description: string;
    who: string;
    /** RFC 3339 */
    created: string;
    /** RFC 3339 */
    updatedAt: string;
    retentionDays: number;
    useRetentionPeriod: boolean;
    mapFields: string[];
}

export interface BlockInfo {
    file: string;
    rows: number;
    minTime: string;
    maxTime: string;
    firstSeq: number;
    lastSeq: number;
    bytes: number;
}

export interface Manifest {
    v: 1;
    /** Every WAL record with seq <= coveredSeq is in a block (or was dropped by retention/trim). */
    coveredSeq: number;
    nextBlock: number;
    blocks: BlockInfo[];
    /** Trims: events of batches with seq <= seq and _time < before (ns) are gone. */
    trims: { seq: number; before: string }[];
}

/** One stored event as the query engine sees it. `fields` is shared: do not mutate. */
export interface StoredEvent {
    _time: bigint;
    _sysTime: bigint;
    _rowId: string;
    fields: FlatFields;
}

export interface DatasetStats {
    name: string;
    events: number;
    bytesOnDisk: number;
    blocks: number;
    /** Events in the WAL tail (not yet compacted). */
    walLength: number;
    walBytes: number;
    minTime: bigint | null;
    maxTime: bigint | null;
}

export interface DatasetOptions {
    compactEvents: number;
    compactBytes: number;
    compress: boolean;
    now: () => bigint;
    blockCache: BlockCache;
    compactor: Compactor;
    log: (msg: string) => void;
}

/**
 * A batch of the WAL tail. A batch appended by this process keeps the normalised events the ingest
 * path built (`norm`, the same data its WAL record decodes to) and no body; compaction encodes them
 * without a parse. A batch recovered from the WAL keeps the request body and parameters; its flat
 * events are built on first read (memoised), and compaction rebuilds them from the WAL segments.
 */
export interface TailBatch {
    seq: number;
    sysTime: bigint;
    params: IngestParams;
    /** The decompressed request body; null once `norm` holds the events. */
    body: Buffer | null;
    /** Body size, for the compactBytes threshold. */
    bytes: number;
    count: number;
    minTime: bigint;
    maxTime: bigint;
    norm?: NormalizedEvents;
    /** The same events as columns, when the ingest path built them on a worker (no `norm` then). */
    columnar?: ColumnarBatch;
}

function materialize(tb: TailBatch): NormalizedEvents {
    return (tb.norm ??= buildBatch(tb.body as Buffer, tb.params).batch);
}

const yieldToLoop = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/** Rows encoded between yields when compacting the in-memory tail on the main thread. */
const TAIL_COMPACT_YIELD_ROWS = 2048;

const NS_PER_DAY = 86_400_000_000_000n;

/** Small LRU of decoded blocks, shared by all datasets of a store. */
export class BlockCache {
    private map = new Map<string, DecodedBlock>();
    constructor(private readonly capacity: number) {}
    get(key: string): DecodedBlock | undefined {
        const b = this.map.get(key);
        if (b) {
            this.map.delete(key);
            this.map.set(key, b);
        }
        return b;
    }
    set(key: string, b: DecodedBlock): void {
        if (this.capacity <= 0) return;
        this.map.set(key, b);
        while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
    }
    evictPrefix(prefix: string): void {
        for (const k of [...this.map.keys()]) if (k.startsWith(prefix)) this.map.delete(k);
    }
}

let instanceCounter = 0;

export class Dataset {
    meta: DatasetMeta;
    private manifest: Manifest;
    private tail: TailBatch[] = [];
    private tailEvents = 0;
    private tailBytes = 0;
    private nextSeq = 1;
    private wal!: WalWriter;
    private compacting: Promise<void> | null = null;
    private maintenance: Promise<unknown> = Promise.resolve();
    private openingSnapshots = 0;
    private openingWaiters: (() => void)[] = [];
    private closed = false;
    /** Cache key prefix, unique per opened instance (a re-created dataset never sees old entries). */
    private readonly cacheKey = `${++instanceCounter}:`;
    recoveryNotes: string[] = [];

    private constructor(
        public dir: string,
        meta: DatasetMeta,
        manifest: Manifest,
        private readonly opts: DatasetOptions,
    ) {
        this.meta = meta;
        this.manifest = manifest;
    }

    get name(): string {
        return this.meta.name;
    }

    static emptyManifest(): Manifest {
        return { v: 1, coveredSeq: 0, nextBlock: 1, blocks: [], trims: [] };
    }

    /** Creates the directory structure under `tmpDir` (the caller renames it into place). */
    static async initDir(tmpDir: string, meta: DatasetMeta): Promise<void> {
        await fsp.mkdir(path.join(tmpDir, 'wal'), { recursive: true });
        await fsp.mkdir(path.join(tmpDir, 'blocks'), { recursive: true });
        await writeFileAtomic(path.join(tmpDir, 'meta.json'), JSON.stringify(meta, null, 1));
        await writeFileAtomic(path.join(tmpDir, 'manifest.json'), JSON.stringify(Dataset.emptyManifest()));
        await fsyncDir(path.join(tmpDir, 'wal'));
        await fsyncDir(path.join(tmpDir, 'blocks'));
        await fsyncDir(tmpDir);
    }

    /** Opens and recovers a dataset directory. */
    static async open(dir: string, opts: DatasetOptions): Promise<Dataset> {
        const meta = await readJsonIfExists<DatasetMeta>(path.join(dir, 'meta.json'));
        if (!meta) throw new Error(`${dir}: missing meta.json`);
        meta.mapFields ??= [];
        const manifest = (await readJsonIfExists<Manifest>(path.join(dir, 'manifest.json'))) ?? Dataset.emptyManifest();
        manifest.trims ??= [];
        const ds = new Dataset(dir, meta, manifest, opts);
        await ds.recover();
        return ds;
    }

    private get walDir(): string {
        return path.join(this.dir, 'wal');
    }
    private get blockDir(): string {
        return path.join(this.dir, 'blocks');
    }

    private async recover(): Promise<void> {
        await fsp.mkdir(this.walDir, { recursive: true });
        await fsp.mkdir(this.blockDir, { recursive: true });
        await removeTempFiles(this.dir);
        await removeTempFiles(this.blockDir);
        // Blocks not in the manifest come from a compaction that crashed before its manifest write.
        const known = new Set(this.manifest.blocks.map((b) => b.file));
        for (const f of await fsp.readdir(this.blockDir)) {
            if (!known.has(f)) {
                await fsp.rm(path.join(this.blockDir, f), { force: true });
                this.recoveryNotes.push(`removed orphan block ${f}`);
            }
        }
        const segs = (await fsp.readdir(this.walDir)).filter((f) => f.endsWith('.wal')).sort();
        let maxSeq = this.manifest.coveredSeq;
        let last: { file: string; validBytes: number } | undefined;
        for (let i = 0; i < segs.length; i++) {
            const file = path.join(this.walDir, segs[i]);
            const scan = await scanSegment(file);
            if (scan.validBytes !== scan.totalBytes) {
                this.recoveryNotes.push(`${segs[i]}: ignored ${scan.totalBytes - scan.validBytes} bytes of torn/corrupt tail`);
                if (i < segs.length - 1) {
                    await fsp.truncate(file, scan.validBytes);
                }
            }
            let allCovered = true;
            for (const payload of scan.records) {
                const { header, params, body } = decodeWalPayload(payload);
                if (header.seq <= this.manifest.coveredSeq) continue;
                allCovered = false;
                if (header.seq > maxSeq) maxSeq = header.seq;
                this.pushTail({
                    seq: header.seq,
                    sysTime: params.receiveTimeNs,
                    params,
                    body: Buffer.from(body), // own copy: do not pin the whole segment buffer
                    bytes: body.length,
                    count: header.n,
                    minTime: BigInt(header.lo),
                    maxTime: BigInt(header.hi),
                });
            }
            if (i < segs.length - 1) {
                if (allCovered) await fsp.rm(file, { force: true });
            } else {
                last = { file, validBytes: scan.validBytes };
            }
        }
        this.nextSeq = maxSeq + 1;
        this.wal = await WalWriter.open(this.walDir, last, this.nextSeq);
        await fsyncDir(this.walDir);
    }

    private pushTail(b: TailBatch): void {
        this.tail.push(b);
        this.tailEvents += b.count;
        this.tailBytes += b.bytes;
    }

    private checkOpen(): void {
        if (this.closed) throw new StoreError('not_found', `dataset "${this.meta.name}" not found`);
    }

    /** Appends a prepared ingest batch; resolves once it is durable (and visible to new snapshots). */
    async append(prep: AppendInput): Promise<{ seq: number; batchId: string; ingested: number }> {
        this.checkOpen();
        const n = prep.count;
        if (n === 0) return { seq: 0, batchId: '', ingested: 0 };
        // Backpressure: when compaction cannot keep up, let the WAL tail (kept in memory) stop growing.
        while (this.compacting && this.tailEvents > this.opts.compactEvents * 8) await this.compacting;
        this.checkOpen();
        const seq = this.nextSeq++;
        const tb: TailBatch = {
            seq,
            sysTime: prep.params.receiveTimeNs,
            params: prep.params,
            // The events the ingest path built: compaction encodes these instead of re-parsing the WAL.
            // Without them (parsed off the main thread), keep the body, like a recovered batch.
            body: prep.batch ? null : prep.body,
            bytes: prep.body.length,
            norm: prep.batch,
            columnar: prep.batch ? undefined : prep.columnar,
            count: n,
            minTime: prep.minTime,
            maxTime: prep.maxTime,
        };
        await this.wal.append(frame(encodeWalPayload(seq, prep)), () => this.pushTail(tb));
        this.maybeCompact();
        return { seq, batchId: batchIdHex(seq), ingested: n };
    }

    get walLength(): number {
        return this.tailEvents;
    }

    private maybeCompact(): void {
        if (this.compacting || this.closed) return;
        if (this.tailEvents >= this.opts.compactEvents || this.tailBytes >= this.opts.compactBytes) {
            this.compacting = this.exclusive(() => this.compactNow())
                .catch((err: unknown) => this.opts.log(`compaction of ${this.meta.name} failed: ${String(err)}`))
                .finally(() => {
                    this.compacting = null;
                    this.maybeCompact();
                });
        }
    }

    /** Serialises maintenance (compaction, retention, trim, delete, close). */
    private exclusive<T>(fn: () => Promise<T>): Promise<T> {
        const run = this.maintenance.then(fn, fn);
        this.maintenance = run.catch(() => undefined);
        return run;
    }

    /** Forces a compaction of the current WAL tail (waits for a running one first). */
    async compact(): Promise<void> {
        this.checkOpen();
        await this.exclusive(() => this.compactNow());
    }

    private keepFilter(): ((seq: number, t: bigint) => boolean) | undefined {
        const cutoff = this.retentionCutoff();
        return keepFilter(cutoff === undefined ? null : cutoff.toString(), this.manifest.trims);
    }

    private retentionCutoff(): bigint | undefined {
        const m = this.meta;
        if (!m.useRetentionPeriod || !(m.retentionDays > 0)) return undefined;
        return this.opts.now() - BigInt(Math.floor(m.retentionDays)) * NS_PER_DAY;
    }

    private async compactNow(): Promise<void> {
        if (this.closed || this.tail.length === 0) return;
        const afterSeq = this.manifest.coveredSeq;
        let coveredSeq = afterSeq;
        await this.wal.rotate(this.nextSeq, () => {
            if (this.tail.length) coveredSeq = this.tail[this.tail.length - 1].seq;
        });
        const activeSeg = path.basename(this.wal.activeFile);
        const segments = (await fsp.readdir(this.walDir))
            .filter((f) => f.endsWith('.wal') && f < activeSeg)
            .sort()
            .map((f) => path.join(this.walDir, f));
        const file = `${this.manifest.nextBlock.toString(16).padStart(8, '0')}.blk`;
        const cutoff = this.retentionCutoff();
        const job = {
            compress: this.opts.compress,
            retentionCutoff: cutoff === undefined ? null : cutoff.toString(),
            trims: this.manifest.trims,
            outFile: path.join(this.blockDir, file),
        };
        // The batches of (afterSeq, coveredSeq]: exactly the records of the older segments that the
        // manifest does not cover yet (appends after the rotation go to the new segment and have a
        // larger seq). If all of them still hold the events the ingest path built, encode those.
        // Columns (batches parsed on a worker) only without a keep filter: with one, a block's
        // column order could differ from the flat events' (first appearance among kept rows).
        const filtered = keepFilter(job.retentionCutoff, job.trims) !== undefined;
        const inputs: BlockInput[] = [];
        for (const b of this.tail) {
            if (b.seq <= afterSeq || b.seq > coveredSeq) continue;
            if (b.norm) inputs.push({ seq: b.seq, sysTime: b.sysTime, times: b.norm.times, fields: b.norm.fields });
            else if (b.columnar && !filtered) inputs.push({ seq: b.seq, sysTime: b.sysTime, times: b.columnar.times, columns: b.columnar.columns });
            else {
                inputs.length = 0;
                break;
            }
        }
        const res = inputs.length
            ? await runTailCompaction(inputs, job, yieldToLoop, TAIL_COMPACT_YIELD_ROWS)
            : await this.opts.compactor.run({ ...job, segments, afterSeq, uptoSeq: coveredSeq });
        const manifest: Manifest = { ...this.manifest, coveredSeq, blocks: this.manifest.blocks.slice() };
        if (res.header) {
            manifest.nextBlock = this.manifest.nextBlock + 1;
            manifest.blocks.push({
                file,
                rows: res.header.rows,
                minTime: res.header.minTime,
                maxTime: res.header.maxTime,
                firstSeq: res.header.firstSeq,
                lastSeq: res.header.lastSeq,
                bytes: res.bytes,
            });
        }
        await writeFileAtomic(path.join(this.dir, 'manifest.json'), JSON.stringify(manifest));
        // Switch the in-memory view in one synchronous step (snapshots keep the old arrays).
        this.manifest = manifest;
        const rest = this.tail.filter((b) => b.seq > coveredSeq);
        this.tail = [];
        this.tailEvents = 0;
        this.tailBytes = 0;
        for (const b of rest) this.pushTail(b);
        // Old segments only hold records <= coveredSeq now.
        for (const seg of segments) await fsp.rm(seg, { force: true });
        await fsyncDir(this.walDir);
    }

    /** Consistent point-in-time view. Call release() when done (scan() does it for you). */
    async snapshot(): Promise<Snapshot> {
        this.checkOpen();
        const blocks = this.manifest.blocks; // replaced (never mutated) by compaction/trim
        const tail = this.tail.slice(); // appended to in place: copy the batch references
        const keep = this.keepFilter();
        // Open the uncached blocks now: an open handle survives a later unlink/rename.
        this.openingSnapshots++;
        const refs: BlockRef[] = [];
        try {
            for (const b of blocks) {
                const key = this.cacheKey + b.file;
                const cached = this.opts.blockCache.get(key);
                refs.push({ info: b, key, cached, fh: cached ? undefined : await fsp.open(path.join(this.blockDir, b.file), 'r') });
            }
        } catch (err) {
            for (const r of refs) await r.fh?.close();
            throw err;
        } finally {
            if (--this.openingSnapshots === 0) for (const w of this.openingWaiters.splice(0)) w();
        }
        return new Snapshot(this.meta.name, refs, tail, keep, this.opts.blockCache);
    }

    /** Waits until no snapshot is between reading the manifest and opening its block files. */
    private async noOpeningSnapshots(): Promise<void> {
        while (this.openingSnapshots > 0) await new Promise<void>((r) => this.openingWaiters.push(r));
    }

    async stats(): Promise<DatasetStats> {
        this.checkOpen();
        let events = this.tailEvents;
        let minTime: bigint | null = null;
        let maxTime: bigint | null = null;
        const widen = (lo: bigint, hi: bigint): void => {
            if (minTime === null || lo < minTime) minTime = lo;
            if (maxTime === null || hi > maxTime) maxTime = hi;
        };
        for (const b of this.manifest.blocks) {
            events += b.rows;
            widen(BigInt(b.minTime), BigInt(b.maxTime));
        }
        for (const b of this.tail) widen(b.minTime, b.maxTime);
        let bytesOnDisk = 0;
        const walBytes = await sumSizes(this.walDir);
        bytesOnDisk += walBytes + (await sumSizes(this.blockDir)) + (await sumSizes(this.dir));
        return { name: this.meta.name, events, bytesOnDisk, blocks: this.manifest.blocks.length, walLength: this.tailEvents, walBytes, minTime, maxTime };
    }

    async writeMeta(meta: DatasetMeta): Promise<void> {
        await writeFileAtomic(path.join(this.dir, 'meta.json'), JSON.stringify(meta, null, 1));
        this.meta = meta;
    }

    /**
     * Trim (API E9): events ingested so far with _time older than `now - maxDuration` go away.
     * Whole blocks are deleted; the rest are hidden at read time and dropped at the next compaction.
     */
    async trim(maxDurationNs: bigint): Promise<{ blocksDeleted: number }> {
        this.checkOpen();
        return this.exclusive(async () => {
            await this.wal.drain();
            const before = this.opts.now() - maxDurationNs;
            const trims = [...this.manifest.trims, { seq: this.nextSeq - 1, before: before.toString() }];
            return this.dropBlocks({ ...this.manifest, trims }, (b) => b.lastSeq <= this.nextSeq - 1 && BigInt(b.maxTime) < before);
        });
    }

    /** Retention sweep: deletes blocks entirely older than the retention period. */
    async sweepRetention(): Promise<{ blocksDeleted: number }> {
        if (this.closed) return { blocksDeleted: 0 };
        return this.exclusive(async () => {
            const cutoff = this.retentionCutoff();
            if (cutoff === undefined) return { blocksDeleted: 0 };
            return this.dropBlocks({ ...this.manifest }, (b) => BigInt(b.maxTime) < cutoff);
        });
    }

    private async dropBlocks(next: Manifest, drop: (b: BlockInfo) => boolean): Promise<{ blocksDeleted: number }> {
        const gone = next.blocks.filter(drop);
        next.blocks = next.blocks.filter((b) => !drop(b));
        await writeFileAtomic(path.join(this.dir, 'manifest.json'), JSON.stringify(next));
        this.manifest = next;
        await this.noOpeningSnapshots();
        for (const b of gone) await fsp.rm(path.join(this.blockDir, b.file), { force: true });
        if (gone.length) await fsyncDir(this.blockDir);
        this.opts.blockCache.evictPrefix(this.cacheKey);
        return { blocksDeleted: gone.length };
    }

    /** Stops accepting writes, waits for in-flight appends and maintenance, closes the WAL. */
    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        await this.wal.drain();
        await this.maintenance;
        await this.wal.close();
        await this.noOpeningSnapshots();
        this.opts.blockCache.evictPrefix(this.cacheKey);
    }
}

async function sumSizes(dir: string): Promise<number> {
    let total = 0;
    for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (e.isFile()) total += (await fsp.stat(path.join(dir, e.name)).catch(() => ({ size: 0 }))).size;
    }
    return total;
}

interface BlockRef {
    info: BlockInfo;
    key: string;
    cached: DecodedBlock | undefined;
    fh: FileHandle | undefined;
}

/** One part of a snapshot, see `Snapshot.parts()`. */
export type SnapshotPart =
    | { kind: 'block'; block: DecodedBlock; select?: Uint32Array }
    | { kind: 'batch'; seq: number; sysTime: bigint; times: BigInt64Array; fields: FlatFields[]; select?: Uint32Array };

/** A consistent view of a dataset: the blocks and WAL tail that existed when it was taken. */
export class Snapshot {
    private released = false;
    constructor(
        readonly dataset: string,
        private readonly blocks: BlockRef[],
        private readonly tail: TailBatch[],
        private readonly keep: ((seq: number, t: bigint) => boolean) | undefined,
        private readonly cache: BlockCache,
    ) {}

    /** Upper bound of the number of events (exact unless retention/trim hides some). */
    get size(): number {
        let n = 0;
        for (const b of this.blocks) n += b.info.rows;
        for (const b of this.tail) n += b.count;
        return n;
    }

    private async load(ref: BlockRef, cache = true): Promise<DecodedBlock> {
        if (ref.cached) return ref.cached;
        if (this.released || !ref.fh) throw new Error('snapshot already released');
        const { size } = await ref.fh.stat();
        const buf = Buffer.allocUnsafe(size);
        let off = 0;
        while (off < size) {
            const { bytesRead } = await ref.fh.read(buf, off, size - off, off);
            if (bytesRead === 0) break;
            off += bytesRead;
        }
        const dec = decodeBlock(buf);
        if (cache) {
            ref.cached = dec;
            this.cache.set(ref.key, dec);
        }
        return dec;
    }

    /** All events: blocks first (in compaction order), then the WAL tail, each in ingest order. */
    async *events(): AsyncGenerator<StoredEvent> {
        const keep = this.keep;
        for (const ref of this.blocks) {
            const b = await this.load(ref);
            const cols = b.columns;
            for (let i = 0; i < b.rows; i++) {
                const t = b.times[i];
                const bi = b.batchIdx[i];
                const seq = b.batchSeqs[bi];
                if (keep && !keep(seq, t)) continue;
                const fields: FlatFields = {};
                for (let c = 0; c < cols.length; c++) {
                    const v = cols[c].get(i);
                    if (v !== undefined) fields[cols[c].name] = v;
                }
                yield { _time: t, _sysTime: b.batchSysTimes[bi], _rowId: formatRowId(t, seq, b.rowIdx[i]), fields };
            }
        }
        for (const tb of this.tail) {
            const { times, fields } = materialize(tb);
            for (let r = 0; r < fields.length; r++) {
                const t = times[r];
                if (keep && !keep(tb.seq, t)) continue;
                yield { _time: t, _sysTime: tb.sysTime, _rowId: formatRowId(t, tb.seq, r), fields: fields[r] };
            }
        }
    }

    /**
     * The same events as `events()`, part by part for a columnar reader: each block decoded whole
     * (not added to the block cache, so a full read does not pin the dataset), then each WAL tail
     * batch (its normalised events built if needed, not memoised). `select` lists the rows that
     * retention/trim keep when some are hidden; absent = all.
     */
    async *parts(): AsyncGenerator<SnapshotPart> {
        const keep = this.keep;
        for (const ref of this.blocks) {
            const b = await this.load(ref, false);
            let select: Uint32Array | undefined;
            if (keep) {
                const kept = new Uint32Array(b.rows);
                let n = 0;
                for (let i = 0; i < b.rows; i++) if (keep(b.batchSeqs[b.batchIdx[i]], b.times[i])) kept[n++] = i;
                if (n < b.rows) select = kept.subarray(0, n);
            }
            yield { kind: 'block', block: b, select };
        }
        for (const tb of this.tail) {
            const { times, fields } = tb.norm ?? buildBatch(tb.body as Buffer, tb.params).batch;
            let select: Uint32Array | undefined;
            if (keep) {
                const kept = new Uint32Array(fields.length);
                let n = 0;
                for (let r = 0; r < fields.length; r++) if (keep(tb.seq, times[r])) kept[n++] = r;
                if (n < fields.length) select = kept.subarray(0, n);
            }
            yield { kind: 'batch', seq: tb.seq, sysTime: tb.sysTime, times, fields, select };
        }
    }

    async toArray(): Promise<StoredEvent[]> {
        const out: StoredEvent[] = [];
        for await (const e of this.events()) out.push(e);
        return out;
    }

    async release(): Promise<void> {
        if (this.released) return;
        this.released = true;
        for (const r of this.blocks) await r.fh?.close();
    }
}
