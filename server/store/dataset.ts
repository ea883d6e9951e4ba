/**
 * One dataset's durable state: metadata, manifest, WAL segments, blocks, the in-memory WAL tail,
 * background compaction, recovery, snapshots. See FORMAT.md for the on-disk layout and the crash
 * argument. Used through Store (store.ts).
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { buildBatch, type AppendInput, type IngestParams } from '../ingest/ingest.js';
import { fromColumns, type ColumnarBatch } from '../ingest/columnar.js';
import type { FlatFields, NormalizedEvents } from '../../language/ingest/normalize-event.js';
import { BlockCorruptError, decodeBlock, readBlockFileHeader, type BlockHeader, type DecodedBlock } from './block.js';
import type { BlockInput } from './block.js';
import { keepFilter, runTailCompaction } from './compact.js';
import type { Compactor } from './compactor.js';
import { DatasetOpenError, StoreError } from './errors.js';
import { datasetDirName } from './dataset-dir.js';
import { AtomicWriteError, checkedJson, ensureDir, fsyncDir, readCheckedJsonIfExists, removeTempFiles, writeFileAtomic } from './fsutil.js';
import { batchIdHex, formatRowId } from '../../language/api/row-id.js';
import { FRAME_HEADER, frame, scanSegment, WalWriter, type BadRegion } from './wal.js';
import { encodeWalPayload, readRecord, type DecodedRecord } from './wal-record.js';
import { yieldToLoop } from './yield-to-loop.js';

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
    /**
     * A copy of the manifest's trims, written before the manifest: what a manifest rebuilt from the
     * blocks (after manifest.json was lost) needs to keep trimmed events hidden. Not part of the API.
     */
    trims?: Manifest['trims'];
}

export interface BlockInfo {
    file: string;
    rows: number;
    minTime: string;
    maxTime: string;
    firstSeq: number;
    lastSeq: number;
    bytes: number;
    /** The seq range (after, upto] the block's compaction covered (absent for older blocks). */
    covers?: [number, number];
}

/** Block file names: 8 hex digits, `.blk`. */
const BLOCK_FILE = /^[0-9a-f]{8}\.blk$/;

function blockInfo(file: string, h: BlockHeader, bytes: number): BlockInfo {
    return {
        file,
        rows: h.rows,
        minTime: h.minTime,
        maxTime: h.maxTime,
        firstSeq: h.firstSeq,
        lastSeq: h.lastSeq,
        bytes,
        ...(h.covers ? { covers: h.covers } : {}),
    };
}

/** Why a parsed manifest.json cannot be used, or undefined when it can. */
function manifestProblem(m: unknown): string | undefined {
    if (typeof m !== 'object' || m === null) return 'not an object';
    const o = m as Partial<Manifest>;
    if (o.v !== 1) return `unknown version ${JSON.stringify(o.v)}`;
    if (!Number.isSafeInteger(o.coveredSeq) || (o.coveredSeq as number) < 0) return 'bad coveredSeq';
    if (!Number.isSafeInteger(o.nextBlock) || (o.nextBlock as number) < 1) return 'bad nextBlock';
    if (!Array.isArray(o.blocks)) return 'no blocks list';
    for (const b of o.blocks as unknown[]) {
        const bi = b as Partial<BlockInfo> | null;
        if (typeof bi !== 'object' || bi === null || typeof bi.file !== 'string' || !BLOCK_FILE.test(bi.file) || !Number.isSafeInteger(bi.bytes)) return 'bad block entry';
    }
    if (o.trims !== undefined && !Array.isArray(o.trims)) return 'bad trims list';
    return undefined;
}

interface WalRecordRef extends DecodedRecord {
    segment: string;
}

interface WalSegment {
    name: string;
    file: string;
    format: 1 | 2;
    bad: BadRegion[];
    validBytes: number;
    recordSeqs: number[];
}

interface WalScan {
    segments: WalSegment[];
    records: WalRecordRef[];
}

async function readRange(file: string, offset: number, length: number): Promise<Buffer> {
    const fh = await fsp.open(file, 'r');
    try {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        return buf.subarray(0, bytesRead);
    } finally {
        await fh.close();
    }
}

/** What an ingest reports about the dataset's storage right after it: see `Dataset.counters()`. */
export interface DatasetCounters {
    walLength: number;
    blocks: number;
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

/** What the dataset endpoints report about a dataset's storage (see Store.health). */
export interface DatasetHealth {
    /** `degraded`: something was repaired or quarantined; `unavailable`: the dataset could not be opened. */
    status: 'ok' | 'degraded' | 'unavailable';
    /** What went wrong, each naming the file (and offset) concerned. */
    problems: string[];
    /** Damaged bytes kept aside, relative to the dataset directory, with their sizes. */
    quarantined: { file: string; bytes: number }[];
}

/** Compaction retry delay after `failures` consecutive failures: 1 s, doubling, at most 5 min. */
export function compactionBackoffMs(failures: number): number {
    if (failures <= 0) return 0;
    return Math.min(1000 * 2 ** (failures - 1), 5 * 60 * 1000);
}

export interface DatasetOptions {
    compactEvents: number;
    compactBytes: number;
    compress: boolean;
    now: () => bigint;
    blockCache: BlockCache;
    compactor: Compactor;
    log: (msg: string) => void;
    /**
     * A WAL tail of at least this many events is written into a block when the store closes (a
     * shutdown checkpoint, see `close`); 0: never.
     */
    checkpointEvents?: number;
    /** Called when a compaction has moved tail batches into a new block (after its manifest commit). */
    compacted?: (dataset: string) => void;
}

/**
 * A dataset as a reader that keeps its blocks on disk sees it (`Dataset.tieredView`): the blocks,
 * which of their rows are visible, and the WAL tail's batches, from one synchronous moment.
 */
export interface TieredView {
    blocks: readonly BlockInfo[];
    /** Retention's cut-off (ns) and the trims, as keepFilter applies them. */
    keep: { cutoff?: bigint; trims: { seq: number; before: bigint }[] };
    /** Events in the tail's batches (retention and trims not applied). */
    tailEvents: number;
    /** The tail's batches as of the view, built on call (a recovered batch is parsed from its body then). */
    tail(): TailPart[];
}

/**
 * A batch of the WAL tail. A batch appended by this process keeps the events the ingest path built
 * (`norm` flat, or `columnar` from an ingest worker: the same data its WAL record decodes to) and
 * no body; compaction encodes them without a parse. A batch recovered from the WAL keeps the
 * request body and parameters; its flat events are built on first read (memoised), and compaction
 * rebuilds them from the WAL segments.
 */
export interface TailBatch {
    seq: number;
    sysTime: bigint;
    params: IngestParams;
    /** The decompressed request body of a recovered batch; null when `norm` or `columnar` holds the events. */
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

const NO_EVENTS: NormalizedEvents = { times: new BigInt64Array(0), fields: [], failures: [] };

/**
 * The flat events of a tail batch that holds none: from its columns (a batch an ingest worker
 * prepared), or rebuilt from its body (a recovered batch). A body that no longer rebuilds (only a
 * change of the normalisation code between a crash and the restart can do that) yields no events
 * and is reported, rather than making every read of the dataset fail; compaction skips it the same
 * way (compact.ts), so what is served and what is compacted agree.
 */
function rebuild(tb: TailBatch, onError: (msg: string) => void): NormalizedEvents {
    if (tb.columnar) return { times: tb.columnar.times, fields: fromColumns(tb.columnar), failures: [] };
    try {
        return buildBatch(tb.body as Buffer, tb.params).batch;
    } catch (err) {
        onError(`write-ahead log record seq ${tb.seq} could not be rebuilt (${(err as Error).message}): its ${tb.count} events are not served`);
        return NO_EVENTS;
    }
}

function materialize(tb: TailBatch, onError: (msg: string) => void): NormalizedEvents {
    return (tb.norm ??= rebuild(tb, onError));
}

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
    /** What recovery did (for the log). */
    recoveryNotes: string[] = [];
    /** Problems found since this open (also logged): damage quarantined, metadata rebuilt. */
    problems: string[] = [];
    /** Files of quarantine/ that held events (all but a replaced manifest), with their sizes: what answers lack. */
    private readonly quarantinedData = new Map<string, number>();
    /** Consecutive failed compactions, and the timer of the next try (exponential backoff). */
    private compactFailures = 0;
    private retryTimer: NodeJS.Timeout | undefined;
    /** Block numbers used by failed compactions are never reused in this process (see compactNow). */
    private nextBlockFloor = 0;

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
        await ensureDir(path.join(tmpDir, 'wal'));
        await ensureDir(path.join(tmpDir, 'blocks'));
        await writeFileAtomic(path.join(tmpDir, 'meta.json'), checkedJson(meta, 1));
        await writeFileAtomic(path.join(tmpDir, 'manifest.json'), checkedJson(Dataset.emptyManifest()));
        await fsyncDir(path.join(tmpDir, 'wal'));
        await fsyncDir(path.join(tmpDir, 'blocks'));
        await fsyncDir(tmpDir);
    }

    /**
     * Opens and recovers a dataset directory. Throws DatasetOpenError (naming the file) when the
     * dataset cannot be opened; nothing is deleted then.
     */
    static async open(dir: string, opts: DatasetOptions): Promise<Dataset> {
        const metaFile = path.join(dir, 'meta.json');
        let meta: DatasetMeta | undefined;
        try {
            meta = await readCheckedJsonIfExists<DatasetMeta>(metaFile);
        } catch (err) {
            throw new DatasetOpenError(`${metaFile}: ${(err as Error).message.replace(`${metaFile}: `, '')}`);
        }
        if (!meta) throw new DatasetOpenError(`${metaFile} is missing`);
        if (typeof meta !== 'object' || typeof meta.name !== 'string') throw new DatasetOpenError(`${metaFile}: not a dataset description (no "name")`);
        if (datasetDirName(meta.name) !== path.basename(dir)) throw new DatasetOpenError(`${metaFile} names dataset "${meta.name}" but lives in directory "${path.basename(dir)}"`);
        meta.mapFields ??= [];
        const ds = new Dataset(dir, meta, Dataset.emptyManifest(), opts);
        await ds.recover();
        return ds;
    }

    private get walDir(): string {
        return path.join(this.dir, 'wal');
    }
    private get blockDir(): string {
        return path.join(this.dir, 'blocks');
    }
    private get quarantineDir(): string {
        return path.join(this.dir, 'quarantine');
    }
    private get manifestFile(): string {
        return path.join(this.dir, 'manifest.json');
    }

    private problem(msg: string): void {
        this.problems.push(msg);
        this.recoveryNotes.push(msg);
    }

    /** A problem found after open (logged once, and shown in the dataset's health). */
    private reportOnce(msg: string): void {
        if (this.problems.includes(msg)) return;
        this.problems.push(msg);
        this.opts.log(`dataset "${this.meta.name}": ${msg}`);
    }

    /** Writes `data` to quarantine/<name> (durably) and returns the relative path. */
    private async quarantineBytes(name: string, data: Buffer): Promise<string> {
        await ensureDir(this.quarantineDir);
        await writeFileAtomic(path.join(this.quarantineDir, name), data);
        this.noteQuarantined(name, data.length);
        return `quarantine/${name}`;
    }

    private noteQuarantined(name: string, bytes: number): void {
        if (!name.startsWith('manifest.json')) this.quarantinedData.set(`quarantine/${name}`, bytes);
    }

    /**
     * What every answer over this dataset lacks, in one sentence (undefined when nothing): the
     * quarantined files that held events, from this open and earlier ones, until they are removed.
     */
    missingData(): string | undefined {
        const files = [...this.quarantinedData.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
        if (files.length === 0) return undefined;
        const shown = files.slice(0, 5).map(([f, bytes]) => `${f} (${bytes.toLocaleString('en-US')} bytes)`);
        if (files.length > 5) shown.push(`${files.length - 5} more`);
        const what = files.length === 1 ? 'a damaged piece of its storage is' : `${files.length} damaged pieces of its storage are`;
        return `dataset "${this.meta.name}": ${what} quarantined, ${shown.join(', ')}: the events in ${files.length === 1 ? 'it' : 'them'} are not in this answer (see the dataset's storage health)`;
    }

    /** Moves a file of the dataset directory into quarantine/ (never deletes it). */
    private async quarantineFile(file: string, name: string): Promise<string> {
        await ensureDir(this.quarantineDir);
        const bytes = (await fsp.stat(file).catch(() => undefined))?.size ?? 0;
        await fsp.rename(file, path.join(this.quarantineDir, name));
        this.noteQuarantined(name, bytes);
        await fsyncDir(this.quarantineDir);
        await fsyncDir(path.dirname(file));
        return `quarantine/${name}`;
    }

    private async recover(): Promise<void> {
        await ensureDir(this.walDir);
        await ensureDir(this.blockDir);
        await removeTempFiles(this.dir);
        await removeTempFiles(this.blockDir);
        this.manifest = await this.loadManifest();
        await this.checkManifestBlocks();
        const wal = await this.scanWal();
        await this.settleOrphanBlocks(wal.records);
        await this.replay(wal);
        // What earlier opens quarantined is still missing from every answer.
        for (const q of (await datasetHealth(this.dir, [])).quarantined) this.noteQuarantined(q.file.slice('quarantine/'.length), q.bytes);
    }

    /** manifest.json, or one rebuilt from the blocks when it is missing or unreadable. */
    private async loadManifest(): Promise<Manifest> {
        let m: Manifest | undefined;
        let why: string;
        try {
            m = await readCheckedJsonIfExists<Manifest>(this.manifestFile);
            why = 'is missing';
        } catch (err) {
            why = (err as Error).message.replace(`${this.manifestFile}: `, 'is ').replace('is checksum mismatch', 'fails its checksum');
        }
        if (m !== undefined) {
            const bad = manifestProblem(m);
            if (bad === undefined) {
                m.trims ??= [];
                return m;
            }
            why = `is not a valid manifest (${bad})`;
        }
        return this.rebuildManifest(why);
    }

    /**
     * Rebuilds the manifest from the block files: each block is checked whole and carries its rows,
     * time range, seqs and (since `covers` exists) the seq range its compaction covered. Refuses
     * (DatasetOpenError) when a block is damaged or two blocks claim the same seqs; the blocks are
     * never deleted. The old file, if any, is kept in quarantine/.
     */
    private async rebuildManifest(why: string): Promise<Manifest> {
        const names = (await fsp.readdir(this.blockDir)).filter((f) => BLOCK_FILE.test(f)).sort();
        const blocks: BlockInfo[] = [];
        let coveredSeq = 0;
        let nextBlock = 1;
        for (const f of names) {
            let h: BlockHeader;
            try {
                h = await readBlockFileHeader(path.join(this.blockDir, f));
            } catch (err) {
                throw new DatasetOpenError(`${this.manifestFile} ${why}, and it cannot be rebuilt: ${(err as Error).message}`);
            }
            const bytes = (await fsp.stat(path.join(this.blockDir, f))).size;
            blocks.push(blockInfo(f, h, bytes));
            coveredSeq = Math.max(coveredSeq, h.covers?.[1] ?? h.lastSeq);
            nextBlock = Math.max(nextBlock, parseInt(f, 16) + 1);
        }
        const sorted = [...blocks].sort((a, b) => a.firstSeq - b.firstSeq);
        for (let i = 1; i < sorted.length; i++) {
            if (sorted[i].firstSeq <= sorted[i - 1].lastSeq) {
                throw new DatasetOpenError(
                    `${this.manifestFile} ${why}, and it cannot be rebuilt: blocks/${sorted[i - 1].file} and blocks/${sorted[i].file} both hold seqs ${sorted[i].firstSeq}..${Math.min(sorted[i].lastSeq, sorted[i - 1].lastSeq)}`,
                );
            }
        }
        const m: Manifest = { v: 1, coveredSeq, nextBlock, blocks, trims: [...(this.meta.trims ?? [])] };
        if (await fsp.stat(this.manifestFile).then(() => true, () => false)) {
            await this.quarantineFile(this.manifestFile, `manifest.json.${Date.now()}.bad`);
        }
        await writeFileAtomic(this.manifestFile, checkedJson(m));
        this.problem(`${this.manifestFile} ${why}: rebuilt it from ${blocks.length} block(s) (coveredSeq ${coveredSeq}, ${m.trims.length} trim(s) from meta.json)`);
        return m;
    }

    /** Every block the manifest lists must exist with its recorded size (checked whole when read). */
    private async checkManifestBlocks(): Promise<void> {
        // All at once: one round trip to the thread pool per block, one after the other, is what
        // made opening a dataset of many blocks slow (issue 31: 153 blocks at 10M events).
        const sizes = await Promise.all(this.manifest.blocks.map((b) => fsp.stat(path.join(this.blockDir, b.file)).then((st) => st.size, () => undefined)));
        this.manifest.blocks.forEach((b, i) => {
            const file = path.join(this.blockDir, b.file);
            const size = sizes[i];
            if (size === undefined) throw new DatasetOpenError(`${file} is missing (listed in ${this.manifestFile})`);
            if (size !== b.bytes) throw new DatasetOpenError(`${file} has ${size} bytes, ${this.manifestFile} says ${b.bytes}: the block is damaged`);
        });
    }

    /** Reads every segment: intact records in seq order, and the damaged regions. */
    private async scanWal(): Promise<WalScan> {
        const segs = (await fsp.readdir(this.walDir)).filter((f) => f.endsWith('.wal')).sort();
        const out: WalScan = { segments: [], records: [] };
        let maxSeq = 0;
        for (const seg of segs) {
            const scan = await scanSegment(path.join(this.walDir, seg));
            const segment: WalSegment = { name: seg, file: scan.file, format: scan.format, bad: [...scan.bad], validBytes: scan.validBytes, recordSeqs: [] };
            for (const rec of scan.records) {
                const dec = readRecord(rec);
                if (dec === undefined || dec.header.seq <= maxSeq) {
                    // Intact framing but a payload that makes no sense, or a seq out of order (the
                    // log's seqs strictly increase): damaged.
                    segment.bad.push({ kind: 'record', offset: rec.offset, length: FRAME_HEADER + rec.payload.length, seq: rec.seq });
                    segment.bad.sort((a, b) => a.offset - b.offset);
                    continue;
                }
                maxSeq = dec.header.seq;
                out.records.push({ ...dec, segment: seg });
                segment.recordSeqs.push(dec.header.seq);
            }
            out.segments.push(segment);
        }
        return out;
    }

    /**
     * Block files the manifest does not list (the argument is in FORMAT.md, "Orphan blocks"):
     * - a block whose compaction started at the manifest's coveredSeq is a compaction that crashed
     *   between writing its block and committing the manifest: commit it now (adopt);
     * - a block all of whose rows the manifest's trims or the retention period hide is what a trim
     *   or retention sweep left when it crashed between its manifest write and the unlink: delete;
     * - a block without `covers` (older format) all of whose batches are intact records of the WAL
     *   above coveredSeq is a crashed compaction's: delete (the WAL replays them);
     * - anything else (a damaged block, or data found nowhere else) goes to quarantine/, reported.
     */
    private async settleOrphanBlocks(records: WalRecordRef[]): Promise<void> {
        const known = new Set(this.manifest.blocks.map((b) => b.file));
        const orphans: { file: string; header: BlockHeader | undefined; error?: string; bytes: number }[] = [];
        for (const f of (await fsp.readdir(this.blockDir)).sort()) {
            if (known.has(f)) continue;
            const file = path.join(this.blockDir, f);
            const bytes = (await fsp.stat(file)).size;
            try {
                orphans.push({ file: f, header: await readBlockFileHeader(file), bytes });
            } catch (err) {
                orphans.push({ file: f, header: undefined, error: (err as Error).message, bytes });
            }
        }
        if (orphans.length === 0) return;
        const walSeqs = new Set(records.map((r) => r.header.seq));
        let manifest = this.manifest;
        // Adopt first (largest covered range wins when a retried compaction left two).
        for (;;) {
            const cands = orphans.filter((o) => o.header?.covers && o.header.covers[0] === manifest.coveredSeq && o.header.covers[1] > manifest.coveredSeq);
            if (cands.length === 0) break;
            cands.sort((a, b) => b.header!.covers![1] - a.header!.covers![1]);
            const o = cands[0];
            const h = o.header!;
            manifest = {
                ...manifest,
                coveredSeq: h.covers![1],
                nextBlock: Math.max(manifest.nextBlock, parseInt(o.file, 16) + 1),
                blocks: [...manifest.blocks, blockInfo(o.file, h, o.bytes)],
            };
            orphans.splice(orphans.indexOf(o), 1);
            this.recoveryNotes.push(`adopted blocks/${o.file} (seqs ${h.covers![0] + 1}..${h.covers![1]}): its compaction had not committed the manifest`);
        }
        if (manifest !== this.manifest) {
            await writeFileAtomic(this.manifestFile, checkedJson(manifest));
            this.manifest = manifest;
        }
        const keep = keepFilter(this.retentionCutoffString(), manifest.trims);
        for (const o of orphans) {
            const file = path.join(this.blockDir, o.file);
            const h = o.header;
            const seqs = h?.batches.map((b) => b[0]) ?? [];
            // A failed compaction's block whose batches a later (committed) try of the same range holds.
            const subsumed = h?.covers !== undefined && manifest.blocks.some((b) => b.covers !== undefined && b.covers[0] === h.covers![0] && b.covers[1] >= h.covers![1]);
            const allHidden = h !== undefined && h.lastSeq <= manifest.coveredSeq && keep !== undefined && seqs.every((seq) => !keep(seq, BigInt(h.maxTime)));
            const inWal = h !== undefined && seqs.length > 0 && seqs.every((seq) => seq > manifest.coveredSeq && walSeqs.has(seq));
            if (h !== undefined && (allHidden || inWal || subsumed)) {
                await fsp.rm(file, { force: true });
                this.recoveryNotes.push(`removed leftover block ${o.file} (${allHidden ? 'its rows are all trimmed or past retention' : inWal ? 'its batches are all in the write-ahead log' : 'a retried compaction wrote the same batches again'})`);
                continue;
            }
            const q = await this.quarantineFile(file, `block-${o.file}`);
            this.problem(
                o.error !== undefined
                    ? `blocks/${o.file} is not listed in the manifest and is damaged (${o.error}): moved to ${q}`
                    : `blocks/${o.file} (seqs ${h!.firstSeq}..${h!.lastSeq}, ${h!.rows} rows) is not listed in the manifest and its batches are not all in the write-ahead log: moved to ${q}, not served`,
            );
        }
        await fsyncDir(this.blockDir);
    }

    private retentionCutoffString(): string | null {
        const c = this.retentionCutoff();
        return c === undefined ? null : c.toString();
    }

    /** Builds the WAL tail from the scan, quarantines damage, and opens the active segment. */
    private async replay(wal: WalScan): Promise<void> {
        const covered = this.manifest.coveredSeq;
        let maxSeq = covered;
        for (const t of this.manifest.trims) maxSeq = Math.max(maxSeq, t.seq);
        for (const b of this.manifest.blocks) maxSeq = Math.max(maxSeq, b.lastSeq);
        for (const r of wal.records) {
            if (r.header.seq > maxSeq) maxSeq = r.header.seq;
            if (r.header.seq <= covered) continue;
            this.pushTail({
                seq: r.header.seq,
                sysTime: r.params.receiveTimeNs,
                params: r.params,
                body: Buffer.from(r.body), // own copy: do not pin the whole segment buffer
                bytes: r.body.length,
                count: r.header.n,
                minTime: BigInt(r.header.lo),
                maxTime: BigInt(r.header.hi),
            });
        }
        let appendTo: { file: string; validBytes: number } | undefined;
        for (let i = 0; i < wal.segments.length; i++) {
            const seg = wal.segments[i];
            const last = i === wal.segments.length - 1;
            let damaged = false;
            for (const bad of seg.bad) {
                if (bad.kind === 'torn') {
                    this.recoveryNotes.push(`${seg.name}: dropped ${bad.length} bytes at offset ${bad.offset} of an interrupted append (never acknowledged)`);
                    continue;
                }
                if (bad.seq !== undefined && bad.seq <= covered && bad.kind === 'record') {
                    this.recoveryNotes.push(`${seg.name}: damaged record seq ${bad.seq} at offset ${bad.offset} was compacted into a block before: ignored`);
                    continue;
                }
                damaged = true;
                if (bad.seq !== undefined) maxSeq = Math.max(maxSeq, bad.seq);
                const data = await readRange(seg.file, bad.offset, bad.length);
                const q = await this.quarantineBytes(`${seg.name}.${bad.offset}.bad`, data);
                const what = bad.kind === 'record' ? `record seq ${bad.seq} (checksum mismatch)` : `${bad.length} bytes with no intact record header`;
                this.problem(`wal/${seg.name}: ${what} at offset ${bad.offset} is damaged: its bytes are in ${q}; the events in it are not served`);
                // Damage past the last intact record of the log hides how many seqs it held: skip
                // as many as could fit, so no seq is ever given out twice.
                if (last && bad.kind === 'garbage' && bad.offset >= seg.validBytes) maxSeq += Math.ceil(bad.length / FRAME_HEADER) + 1;
            }
            const allCovered = seg.recordSeqs.every((q) => q <= covered) && !damaged;
            if (!last) {
                if (allCovered) await fsp.rm(seg.file, { force: true });
            } else if (seg.format === 2 && !damaged) {
                appendTo = { file: seg.file, validBytes: seg.validBytes };
            }
        }
        this.nextSeq = maxSeq + 1;
        let nameSeq = this.nextSeq;
        const lastSeg = wal.segments[wal.segments.length - 1];
        if (!appendTo && lastSeg) nameSeq = Math.max(nameSeq, parseInt(lastSeg.name, 16) + 1);
        this.wal = await WalWriter.open(this.walDir, appendTo, nameSeq);
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
            // The events the ingest path built, flat or as columns: compaction encodes these instead
            // of re-parsing the WAL, and reads of flat events rebuild them from the columns. Only
            // with neither is the body kept, like a recovered batch's.
            body: prep.batch || prep.columnar ? null : prep.body,
            bytes: prep.body.length,
            norm: prep.batch,
            columnar: prep.batch ? undefined : prep.columnar,
            count: n,
            minTime: prep.minTime,
            maxTime: prep.maxTime,
        };
        await this.wal.append(frame(seq, encodeWalPayload(seq, prep), prep.bodyCrc), () => this.pushTail(tb));
        this.maybeCompact();
        return { seq, batchId: batchIdHex(seq), ingested: n };
    }

    get walLength(): number {
        return this.tailEvents;
    }

    /** Events in the blocks and the WAL tail, retention and trims not applied (no file-system access, nothing parsed). */
    eventCount(): number {
        let n = this.tailEvents;
        for (const b of this.manifest.blocks) n += b.rows;
        return n;
    }

    /** The live WAL tail length and block count (no file-system access, unlike `stats()`). */
    counters(): DatasetCounters {
        return { walLength: this.tailEvents, blocks: this.manifest.blocks.length };
    }

    private maybeCompact(): void {
        if (this.compacting || this.closed || this.retryTimer) return;
        if (this.tailEvents >= this.opts.compactEvents || this.tailBytes >= this.opts.compactBytes) {
            this.compacting = this.exclusive(() => this.compactNow())
                .then(
                    () => {
                        this.compactFailures = 0;
                    },
                    (err: unknown) => this.compactionFailed(err),
                )
                .finally(() => {
                    this.compacting = null;
                    this.maybeCompact();
                });
        }
    }

    /** After a failed compaction, the next try waits (exponential backoff, capped); appends go on meanwhile. */
    private compactionFailed(err: unknown): void {
        this.compactFailures++;
        const delay = compactionBackoffMs(this.compactFailures);
        this.opts.log(`compaction of ${this.meta.name} failed (${describeError(err)}); try ${this.compactFailures + 1} in ${delay / 1000} s`);
        if (this.closed) return;
        this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            this.maybeCompact();
        }, delay);
        this.retryTimer.unref();
    }

    /** Consecutive failed compactions so far and the delay before the next automatic try (ms). */
    get compactionState(): { failures: number; retryInMs: number } {
        return { failures: this.compactFailures, retryInMs: compactionBackoffMs(this.compactFailures) };
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

    /** Whether `close(true)` compacts the tail: big enough to be worth it, and at most what two compactions would take. */
    private checkpointDue(): boolean {
        const min = this.opts.checkpointEvents ?? 0;
        if (min <= 0 || this.tailEvents < min || this.compactFailures > 0) return false;
        return this.tailEvents <= 2 * this.opts.compactEvents && this.tailBytes <= 2 * this.opts.compactBytes;
    }

    /** `closing`: the shutdown checkpoint, which runs after `close` has begun. */
    private async compactNow(closing = false): Promise<void> {
        if ((this.closed && !closing) || this.tail.length === 0) return;
        const afterSeq = this.manifest.coveredSeq;
        let coveredSeq = afterSeq;
        const noteCovered = (): void => {
            if (this.tail.length) coveredSeq = this.tail[this.tail.length - 1].seq;
        };
        await this.wal.drain();
        // An empty active segment means the tail is all in older segments already (a retry after a
        // failure): no new segment per try.
        if (this.wal.bytes === 0) noteCovered();
        else await this.wal.rotate(this.nextSeq, noteCovered);
        if (coveredSeq <= afterSeq) return;
        const activeSeg = path.basename(this.wal.activeFile);
        const segments = (await fsp.readdir(this.walDir))
            .filter((f) => f.endsWith('.wal') && f < activeSeg)
            .sort()
            .map((f) => path.join(this.walDir, f));
        // A failed try's block number is not reused: a manifest may name it if only the directory
        // fsync of that try's manifest write failed.
        const blockNo = Math.max(this.manifest.nextBlock, this.nextBlockFloor);
        this.nextBlockFloor = blockNo + 1;
        const file = `${blockNo.toString(16).padStart(8, '0')}.blk`;
        const outFile = path.join(this.blockDir, file);
        const cutoff = this.retentionCutoff();
        const job = {
            compress: this.opts.compress,
            retentionCutoff: cutoff === undefined ? null : cutoff.toString(),
            trims: this.manifest.trims,
            outFile,
            afterSeq,
            uptoSeq: coveredSeq,
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
            : await this.opts.compactor.run({ ...job, segments });
        const manifest: Manifest = { ...this.manifest, coveredSeq, nextBlock: this.manifest.nextBlock, blocks: this.manifest.blocks.slice() };
        if (res.header) {
            manifest.nextBlock = blockNo + 1;
            manifest.blocks.push(blockInfo(file, res.header, res.bytes));
        }
        let durable = true;
        try {
            await writeFileAtomic(this.manifestFile, checkedJson(manifest));
        } catch (err) {
            if (!(err instanceof AtomicWriteError && err.renamed)) {
                // Not committed: the block is referenced by nothing; remove it (the batches stay in the WAL).
                if (res.header) await fsp.rm(outFile, { force: true }).catch(() => undefined);
                throw err;
            }
            // The new manifest replaced the old one but the directory fsync failed: it is what the
            // store reads now, yet a crash could bring the old one back, so keep the old segments
            // (a later compaction removes them) and report.
            durable = false;
            this.opts.log(`compaction of ${this.meta.name}: manifest written but not made durable (${describeError(err)}); keeping the covered WAL segments`);
        }
        // Switch the in-memory view in one synchronous step (snapshots keep the old arrays).
        this.manifest = manifest;
        const rest = this.tail.filter((b) => b.seq > coveredSeq);
        this.tail = [];
        this.tailEvents = 0;
        this.tailBytes = 0;
        for (const b of rest) this.pushTail(b);
        if (res.header) this.opts.compacted?.(this.meta.name);
        if (!durable) return;
        // Old segments only hold records <= coveredSeq now.
        for (const seg of segments) await fsp.rm(seg, { force: true });
        await fsyncDir(this.walDir);
    }

    /**
     * The blocks (not opened) and the tail's batches as of now, see TieredView. `memoise`: a
     * recovered batch keeps the events parsed from its body (as a snapshot read does), for a
     * reader that is followed by a full load of the same tail (the start-up's view from disk).
     */
    tieredView(memoise = false): TieredView {
        this.checkOpen();
        const keep = this.keepFilter();
        const tail = this.tail.slice(); // appended to in place: copy the batch references
        return {
            blocks: this.manifest.blocks,
            keep: { cutoff: this.retentionCutoff(), trims: this.manifest.trims.map((t) => ({ seq: t.seq, before: BigInt(t.before) })) },
            tailEvents: this.tailEvents,
            tail: () => tail.map((tb) => tailPart(tb, keep, (msg) => this.reportOnce(msg), true, memoise)),
        };
    }

    /**
     * The tail's batches recovered from the WAL whose events are not built yet, for a reader that
     * builds them elsewhere (the service, on its ingest workers) before it reads the tail: `built`
     * keeps the columns with the batch, as a batch the ingest path parsed on a worker keeps them.
     */
    unparsedTail(): { body: Buffer; params: IngestParams; built(columns: ColumnarBatch): void }[] {
        this.checkOpen();
        return this.tail
            .filter((tb) => tb.body !== null && !tb.norm && !tb.columnar)
            .map((tb) => ({
                body: tb.body as Buffer,
                params: tb.params,
                built: (columns: ColumnarBatch) => {
                    // The count the WAL record states: anything else is not this batch's events.
                    if (!tb.norm && !tb.columnar && columns.times.length === tb.count) tb.columnar = columns;
                },
            }));
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
        return new Snapshot(this.meta.name, refs, tail, keep, this.opts.blockCache, (msg) => this.reportOnce(msg));
    }

    /** Waits until no snapshot is between reading the manifest and opening its block files. */
    private async noOpeningSnapshots(): Promise<void> {
        while (this.openingSnapshots > 0) await new Promise<void>((r) => this.openingWaiters.push(r));
    }

    /**
     * What the dataset holds as queries see it: with trims or a retention period, the events they
     * hide are not counted and do not widen the time range (they stay on disk until a compaction).
     */
    async stats(): Promise<DatasetStats> {
        const { events, minTime, maxTime } = await this.kept();
        const walBytes = await sumSizes(this.walDir);
        const bytesOnDisk = walBytes + (await sumSizes(this.blockDir)) + (await sumSizes(this.dir));
        return { name: this.meta.name, events, bytesOnDisk, blocks: this.manifest.blocks.length, walLength: this.tailEvents, walBytes, minTime, maxTime };
    }

    /**
     * The events queries see and their time range, as `stats()` gives them, without the sizes on
     * disk (a stat of every file: the start-up's count of the events on disk needs none).
     */
    async kept(): Promise<Pick<DatasetStats, 'events' | 'minTime' | 'maxTime'>> {
        this.checkOpen();
        let events = this.tailEvents;
        let minTime: bigint | null = null;
        let maxTime: bigint | null = null;
        if (this.keepFilter() === undefined) {
            const widen = (lo: bigint, hi: bigint): void => {
                if (minTime === null || lo < minTime) minTime = lo;
                if (maxTime === null || hi > maxTime) maxTime = hi;
            };
            for (const b of this.manifest.blocks) {
                events += b.rows;
                widen(BigInt(b.minTime), BigInt(b.maxTime));
            }
            for (const b of this.tail) widen(b.minTime, b.maxTime);
        } else {
            const snapshot = await this.snapshot();
            try {
                ({ events, minTime, maxTime } = await snapshot.kept());
            } finally {
                await snapshot.release();
            }
        }
        return { events, minTime, maxTime };
    }

    async writeMeta(meta: DatasetMeta): Promise<void> {
        await writeFileAtomic(path.join(this.dir, 'meta.json'), checkedJson(meta, 1));
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
            // meta.json keeps a copy first: a manifest rebuilt from the blocks needs it.
            await this.writeMeta({ ...this.meta, trims });
            const upto = this.nextSeq - 1;
            const dropped = await this.dropBlocks({ ...this.manifest, trims }, (b) => b.lastSeq <= upto && BigInt(b.maxTime) < before);
            // The WAL tail would keep the hidden events on disk until the next compaction: compact
            // now, so that the bytes the dataset reports are what is left.
            if (this.tail.some((b) => b.seq <= upto && b.minTime < before)) await this.compactNow().catch((err: unknown) => this.compactionFailed(err));
            return dropped;
        });
    }

    /**
     * Takes a listed block out of service because it failed a check (its header's checksum, its
     * row count): the manifest drops it first (committed), then the file moves to quarantine/, and
     * the problem is reported. Its events are no longer served; answers say so (missingData).
     */
    async quarantineBlock(file: string, why: string): Promise<void> {
        this.checkOpen();
        await this.exclusive(async () => {
            if (!this.manifest.blocks.some((b) => b.file === file)) return;
            const next = { ...this.manifest, blocks: this.manifest.blocks.filter((b) => b.file !== file) };
            await writeFileAtomic(this.manifestFile, checkedJson(next));
            this.manifest = next;
            await this.noOpeningSnapshots();
            const q = await this.quarantineFile(path.join(this.blockDir, file), `block-${file}`);
            this.opts.blockCache.evictPrefix(this.cacheKey);
            const msg = `blocks/${file} ${why}: moved to ${q}, its events are not served`;
            this.problems.push(msg);
            this.opts.log(`dataset "${this.meta.name}": ${msg}`);
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
        await writeFileAtomic(path.join(this.dir, 'manifest.json'), checkedJson(next));
        this.manifest = next;
        await this.noOpeningSnapshots();
        for (const b of gone) await fsp.rm(path.join(this.blockDir, b.file), { force: true });
        if (gone.length) await fsyncDir(this.blockDir);
        this.opts.blockCache.evictPrefix(this.cacheKey);
        return { blocksDeleted: gone.length };
    }

    /**
     * Stops accepting writes, waits for in-flight appends and maintenance, closes the WAL.
     * `checkpoint` (a store closing, not a dataset being deleted): a WAL tail of at least
     * `checkpointEvents` events is first compacted into a block, so that the next open reads block
     * headers and parses no tail (like PostgreSQL's shutdown checkpoint). A crash skips this and
     * leaves the tail, which is replayed as before. The shutdown's extra time is one compaction
     * (the tail is at most a compaction's worth unless compaction had fallen behind: then, and
     * after a failed compaction, nothing is done here).
     */
    async close(checkpoint = false): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
        await this.wal.drain();
        await this.maintenance;
        if (checkpoint && this.checkpointDue()) {
            const started = performance.now();
            const events = this.tailEvents;
            await this.exclusive(() => this.compactNow(true)).then(
                () => this.opts.log(`dataset ${this.meta.name}: wrote its write-ahead log tail of ${events} events into a block at shutdown (${Math.round(performance.now() - started)} ms)`),
                (err: unknown) => this.opts.log(`dataset ${this.meta.name}: the shutdown checkpoint failed (${describeError(err)}); its write-ahead log tail is replayed at the next start`),
            );
        }
        await this.wal.close();
        await this.noOpeningSnapshots();
        this.opts.blockCache.evictPrefix(this.cacheKey);
    }
}

function describeError(err: unknown): string {
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e === 'object' && typeof e.message === 'string') return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
    return String(err);
}

/** The health of an opened dataset: its problems since open and the files in its quarantine/. */
export async function datasetHealth(dir: string, problems: readonly string[]): Promise<DatasetHealth> {
    const quarantined: { file: string; bytes: number }[] = [];
    for (const e of await fsp.readdir(path.join(dir, 'quarantine'), { withFileTypes: true }).catch(() => [])) {
        if (!e.isFile()) continue;
        const st = await fsp.stat(path.join(dir, 'quarantine', e.name)).catch(() => undefined);
        quarantined.push({ file: `quarantine/${e.name}`, bytes: st?.size ?? 0 });
    }
    quarantined.sort((a, b) => (a.file < b.file ? -1 : 1));
    return { status: problems.length || quarantined.length ? 'degraded' : 'ok', problems: [...problems], quarantined };
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
export type SnapshotPart = { kind: 'block'; block: DecodedBlock; select?: Uint32Array } | TailPart;

/** A batch of the WAL tail: flat events, or (`tieredView` only) the columns a worker parsed it into. */
export type TailPart =
    | { kind: 'batch'; seq: number; sysTime: bigint; times: BigInt64Array; fields: FlatFields[]; select?: Uint32Array }
    | { kind: 'columns'; seq: number; sysTime: bigint; batch: ColumnarBatch; select?: Uint32Array };

/** The rows of a tail batch that retention/trim keep, or undefined when all are kept. */
function keptRows(seq: number, times: BigInt64Array, keep: ((seq: number, t: bigint) => boolean) | undefined): Uint32Array | undefined {
    if (!keep) return undefined;
    const kept = new Uint32Array(times.length);
    let n = 0;
    for (let r = 0; r < times.length; r++) if (keep(seq, times[r])) kept[n++] = r;
    return n < times.length ? kept.subarray(0, n) : undefined;
}

/** A tail batch as a part: its normalised events (rebuilt if needed, not memoised), or its columns when allowed and held. */
function tailPart(tb: TailBatch, keep: ((seq: number, t: bigint) => boolean) | undefined, onError: (msg: string) => void, columns = false, memoise = false): TailPart {
    if (columns && !tb.norm && tb.columnar) return { kind: 'columns', seq: tb.seq, sysTime: tb.sysTime, batch: tb.columnar, select: keptRows(tb.seq, tb.columnar.times, keep) };
    const { times, fields } = memoise ? materialize(tb, onError) : (tb.norm ?? rebuild(tb, onError));
    return { kind: 'batch', seq: tb.seq, sysTime: tb.sysTime, times, fields, select: keptRows(tb.seq, times, keep) };
}

/** A consistent view of a dataset: the blocks and WAL tail that existed when it was taken. */
export class Snapshot {
    private released = false;
    constructor(
        readonly dataset: string,
        private readonly blocks: BlockRef[],
        private readonly tail: TailBatch[],
        private readonly keep: ((seq: number, t: bigint) => boolean) | undefined,
        private readonly cache: BlockCache,
        private readonly onRebuildError: (msg: string) => void = () => undefined,
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
        let dec: DecodedBlock;
        try {
            dec = decodeBlock(buf);
            if (dec.rows !== ref.info.rows) throw new BlockCorruptError(`holds ${dec.rows} rows, the manifest says ${ref.info.rows}`);
        } catch (err) {
            // Name the file: a damaged block makes the dataset unavailable until it is dealt with.
            throw new BlockCorruptError(`dataset "${this.dataset}": blocks/${ref.info.file} is damaged (${(err as Error).message})`);
        }
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
            const { times, fields } = materialize(tb, this.onRebuildError);
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
        for (const tb of this.tail) yield tailPart(tb, keep, this.onRebuildError, true);
    }

    /**
     * The number of events retention/trim keep and their time range. The keep filter hides more
     * the older an event and the smaller its batch's seq, so a block or batch whose first seq and
     * earliest time are kept is kept whole, and one whose last seq and latest time are hidden is
     * hidden whole: only the others are read.
     */
    async kept(): Promise<{ events: number; minTime: bigint | null; maxTime: bigint | null }> {
        const keep = this.keep;
        let events = 0;
        let minTime: bigint | null = null;
        let maxTime: bigint | null = null;
        const widen = (lo: bigint, hi: bigint): void => {
            if (minTime === null || lo < minTime) minTime = lo;
            if (maxTime === null || hi > maxTime) maxTime = hi;
        };
        const countRows = (times: BigInt64Array, seqOf: (row: number) => number): void => {
            for (let i = 0; i < times.length; i++) {
                if (keep && !keep(seqOf(i), times[i])) continue;
                events++;
                widen(times[i], times[i]);
            }
        };
        for (const ref of this.blocks) {
            const { rows, firstSeq, lastSeq } = ref.info;
            const lo = BigInt(ref.info.minTime);
            const hi = BigInt(ref.info.maxTime);
            if (!keep || keep(firstSeq, lo)) {
                events += rows;
                widen(lo, hi);
            } else if (keep(lastSeq, hi)) {
                const b = await this.load(ref, false);
                countRows(b.times, (i) => b.batchSeqs[b.batchIdx[i]]);
            }
        }
        for (const tb of this.tail) {
            if (!keep || keep(tb.seq, tb.minTime)) {
                events += tb.count;
                widen(tb.minTime, tb.maxTime);
            } else if (keep(tb.seq, tb.maxTime)) {
                countRows(tb.norm?.times ?? tb.columnar?.times ?? materialize(tb, this.onRebuildError).times, () => tb.seq);
            }
        }
        return { events, minTime, maxTime };
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
