/**
 * The embedded store: `openStore(dir, options) → Store`. One directory per dataset under
 * `<dir>/datasets/`, hashed API tokens in `<dir>/tokens.json`. See FORMAT.md.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { formatDatetime } from '../../language/values.js';
import { isValidDatasetName } from '../../language/dataset-name.js';
import { DEFAULT_MAX_BODY_BYTES } from '../ingest/decode-body.js';
import { ingestStatus, nowNs, prepareIngest, type IngestRequest, type IngestStatus, type AppendInput } from '../ingest/ingest.js';
import { Compactor } from './compactor.js';
import { BlockCache, Dataset, datasetHealth, type DatasetCounters, type DatasetHealth, type DatasetMeta, type DatasetStats, type Snapshot, type StoredEvent, type TieredView } from './dataset.js';
import { datasetDirName, datasetNameOfDir } from './dataset-dir.js';
import { diskFullError, readOnlyError, StoreError, validateDatasetName } from './errors.js';
import { ensureDir, fsyncDir, isDiskFull, isReadOnly, readCheckedJsonIfExists, writeProbe } from './fsutil.js';
import { acquireDirLock, type DirLock } from './lock.js';
import { TokenStore } from './tokens.js';

export type { DatasetCounters, DatasetHealth, DatasetMeta, DatasetStats, StoredEvent, SnapshotPart, TieredView, TailPart, BlockInfo } from './dataset.js';
export { Snapshot, compactionBackoffMs } from './dataset.js';
export { DatasetOpenError, StoreError, validateDatasetName } from './errors.js';
export { DirLockedError } from './lock.js';
export { TokenStore, type TokenInfo } from './tokens.js';
export { formatRowId, batchIdHex } from '../../language/api/row-id.js';

export interface StoreOptions {
    /** Compact the WAL tail into a block after this many events (default 65,536). */
    compactEvents?: number;
    /** … or after this many body bytes (default 64 MiB). */
    compactBytes?: number;
    /** Deflate block sections (default true). */
    compress?: boolean;
    /** Bound on a decompressed ingest body (default `DEFAULT_MAX_BODY_BYTES`, 64 MiB). */
    maxBodyBytes?: number;
    /** Decoded blocks kept in memory (default 16). */
    blockCacheSize?: number;
    /** Run the retention sweep every N ms (default 0: only when sweepRetention() is called). */
    retentionSweepMs?: number;
    /** Clock (ns since the epoch); tests override it. */
    now?: () => bigint;
    /** Run compaction on a worker thread (default true; falls back to the main thread). */
    compactInWorker?: boolean;
    /** Where background problems are reported (default console.error). */
    log?: (msg: string) => void;
    /**
     * `close()` compacts a dataset's WAL tail of at least this many events into a block, so that the
     * next open parses no tail (default 4,096; 0: never). See Dataset.close.
     */
    checkpointEvents?: number;
}

export interface CreateDatasetInput {
    name: string;
    description?: string;
    kind?: string;
    who?: string;
    retentionDays?: number;
    useRetentionPeriod?: boolean;
    mapFields?: string[];
}

export type UpdateDatasetInput = Partial<Pick<DatasetMeta, 'description' | 'retentionDays' | 'useRetentionPeriod' | 'mapFields'>>;

export interface IngestResult extends IngestStatus {
    /** 16-hex batch id (the WAL sequence number); '' when nothing was stored. */
    batchId: string;
}

/** A dataset directory that could not be opened: reported on its endpoints, its files untouched. */
interface UnavailableDataset {
    dir: string;
    /** Its meta.json when that could be read, for the datasets list. */
    meta: DatasetMeta;
    reason: string;
}

/**
 * The smallest WAL tail `close()` writes into a block: below it, parsing the tail at the next start
 * costs less than a block would (a few ms).
 */
const DEFAULT_CHECKPOINT_EVENTS = 4096;

export class Store {
    private datasets = new Map<string, Dataset>();
    private unavailable = new Map<string, UnavailableDataset>();
    private creating = new Set<string>();
    private sweepTimer: NodeJS.Timeout | undefined;
    private closed = false;

    private constructor(
        readonly dir: string,
        readonly tokens: TokenStore,
        private readonly opts: Required<StoreOptions>,
        private readonly blockCache: BlockCache,
        private readonly compactor: Compactor,
        private readonly lock: DirLock,
    ) {}

    /** @internal use openStore */
    static async open(dir: string, options: StoreOptions = {}): Promise<Store> {
        const opts: Required<StoreOptions> = {
            compactEvents: options.compactEvents ?? 65_536,
            compactBytes: options.compactBytes ?? 64 * 1024 * 1024,
            compress: options.compress ?? true,
            maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
            blockCacheSize: options.blockCacheSize ?? 16,
            retentionSweepMs: options.retentionSweepMs ?? 0,
            now: options.now ?? nowNs,
            compactInWorker: options.compactInWorker ?? true,
            log: options.log ?? ((m) => console.error(`[apl-store] ${m}`)),
            checkpointEvents: options.checkpointEvents ?? DEFAULT_CHECKPOINT_EVENTS,
        };
        const root = path.resolve(dir);
        await ensureDir(path.join(root, 'datasets'));
        const lock = await acquireDirLock(root);
        // Said once at start-up, so that an operator sees it before the first refused write.
        const readOnly = await writeProbe(path.join(root, 'datasets'));
        if (readOnly) {
            opts.log(`warning: data directory ${root} is read-only (${readOnly}): creating datasets and ingest answer 507, and a dataset whose files must be opened for writing is unavailable, until it is writable`);
        }
        let store: Store;
        try {
            const tokens = await TokenStore.open(root, { log: opts.log, lenient: true });
            store = new Store(root, tokens, opts, new BlockCache(opts.blockCacheSize), new Compactor(opts.compactInWorker, opts.log), lock);
        } catch (err) {
            await lock.release();
            throw err;
        }
        const dsRoot = path.join(root, 'datasets');
        for (const e of await fsp.readdir(dsRoot, { withFileTypes: true })) {
            if (!e.isDirectory()) continue;
            let p = path.join(dsRoot, e.name);
            if (e.name.startsWith('.')) {
                // interrupted create (.new-*) or delete (.trash-*)
                await fsp.rm(p, { recursive: true, force: true });
                continue;
            }
            // The previous layout named a directory exactly as its dataset (`BIG`, `CON`): move it to
            // the name that cannot collide (dataset-dir.ts), unless that is taken.
            let name = datasetNameOfDir(e.name);
            if (isValidDatasetName(e.name) && datasetDirName(e.name) !== e.name) {
                const target = path.join(dsRoot, datasetDirName(e.name));
                if (!(await fsp.stat(target).catch(() => undefined))) {
                    await fsp.rename(p, target);
                    await fsyncDir(dsRoot);
                    opts.log(`dataset "${e.name}": directory renamed to ${path.basename(target)} (names that differ only in case, and names Windows reserves, get distinct directories)`);
                    p = target;
                    name = e.name;
                }
            }
            try {
                const ds = await Dataset.open(p, store.dsOptions());
                for (const note of ds.recoveryNotes) opts.log(`recovery ${name}: ${note}`);
                store.datasets.set(ds.name, ds);
            } catch (err) {
                // One dataset that cannot be opened must not stop the others; its files stay as they are.
                await store.markUnavailable(name, err, p);
            }
        }
        if (opts.retentionSweepMs > 0) {
            store.sweepTimer = setInterval(() => {
                store.sweepRetention().catch((err: unknown) => opts.log(`retention sweep failed: ${String(err)}`));
            }, opts.retentionSweepMs);
            store.sweepTimer.unref();
        }
        return store;
    }

    private dsOptions() {
        return {
            compactEvents: this.opts.compactEvents,
            compactBytes: this.opts.compactBytes,
            compress: this.opts.compress,
            now: this.opts.now,
            blockCache: this.blockCache,
            compactor: this.compactor,
            log: this.opts.log,
            checkpointEvents: this.opts.checkpointEvents,
            compacted: (name: string) => {
                for (const fn of this.compactedListeners) fn(name);
            },
        };
    }

    private readonly compactedListeners: ((dataset: string) => void)[] = [];

    /** Runs `fn` after each compaction that wrote a block (synchronously, right after its commit). */
    onCompacted(fn: (dataset: string) => void): void {
        this.compactedListeners.push(fn);
    }

    /** See Dataset.quarantineBlock. */
    quarantineBlock(name: string, file: string, why: string): Promise<void> {
        return this.ds(name).quarantineBlock(file, why);
    }

    /** See Dataset.unparsedTail. */
    unparsedTail(name: string): ReturnType<Dataset['unparsedTail']> {
        return this.ds(name).unparsedTail();
    }

    /** See Dataset.tieredView. */
    tieredView(name: string, memoise = false): TieredView {
        return this.ds(name).tieredView(memoise);
    }

    private ds(name: string): Dataset {
        if (this.closed) throw new StoreError('closed', 'store is closed');
        const ds = this.datasets.get(name);
        if (!ds) {
            const u = this.unavailable.get(name);
            if (u) throw unavailableError(name, u);
            throw new StoreError('not_found', `dataset "${name}" not found`);
        }
        return ds;
    }

    /**
     * Takes a dataset out of service because its files cannot be read (at open, or when a block
     * turns out damaged while loading): logged, reported on its endpoints (423), files untouched.
     */
    async markUnavailable(name: string, err: unknown, dir = path.join(this.dir, 'datasets', datasetDirName(name))): Promise<void> {
        const reason = err instanceof Error ? err.message : String(err);
        const open = this.datasets.get(name);
        this.datasets.delete(name);
        if (open) await open.close().catch(() => undefined);
        let meta: DatasetMeta | undefined;
        try {
            meta = await readCheckedJsonIfExists<DatasetMeta>(path.join(dir, 'meta.json'));
        } catch {
            meta = undefined;
        }
        if (!meta || typeof meta !== 'object' || meta.name !== name) meta = placeholderMeta(name, (await fsp.stat(dir).catch(() => undefined))?.mtime);
        meta.mapFields ??= [];
        this.unavailable.set(name, { dir, meta, reason });
        this.opts.log(`dataset "${name}" is unavailable: ${reason}. Its files are kept as they are; repair or move them and restart (see server/store/FORMAT.md, "Repair").`);
    }

    /** Datasets that could be opened, plus those that could not (their endpoints answer 423). */
    listDatasets(): DatasetMeta[] {
        const all = [...this.datasets.values()].map((d) => ({ ...d.meta }));
        for (const u of this.unavailable.values()) all.push({ ...u.meta });
        return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }

    /** True for a usable dataset (an unavailable one answers 423 on every use, see getDataset). */
    hasDataset(name: string): boolean {
        return this.datasets.has(name);
    }

    /**
     * Per dataset with quarantined events, what answers over it lack (Dataset.missingData); undefined
     * when no dataset has any. Kept in memory: cheap enough for every query.
     */
    missingData(): Record<string, string> | undefined {
        let out: Record<string, string> | undefined;
        for (const [name, ds] of this.datasets) {
            const missing = ds.missingData();
            if (missing !== undefined) (out ??= {})[name] = missing;
        }
        return out;
    }

    /** The storage health the dataset endpoints report. Throws 404 for an unknown dataset. */
    async health(name: string): Promise<DatasetHealth> {
        const u = this.unavailable.get(name);
        if (u) return { ...(await datasetHealth(u.dir, [u.reason])), status: 'unavailable' };
        const ds = this.ds(name);
        return datasetHealth(ds.dir, ds.problems);
    }

    /** Throws StoreError('not_found') (404) when missing. */
    getDataset(name: string): DatasetMeta {
        return { ...this.ds(name).meta };
    }

    async createDataset(input: CreateDatasetInput): Promise<DatasetMeta> {
        if (this.closed) throw new StoreError('closed', 'store is closed');
        validateDatasetName(input.name);
        const name = input.name;
        if (this.datasets.has(name) || this.creating.has(name)) throw new StoreError('exists', `dataset "${name}" already exists`);
        if (this.unavailable.has(name)) throw new StoreError('exists', `dataset "${name}" already exists (it is unavailable: ${this.unavailable.get(name)!.reason})`);
        this.creating.add(name);
        try {
            const now = formatDatetime(this.opts.now());
            const retentionDays = Math.max(0, Math.floor(input.retentionDays ?? 0));
            const meta: DatasetMeta = {
                name,
                kind: input.kind || 'axiom:events:v1',
                description: input.description ?? '',
                who: input.who ?? '',
                created: now,
                updatedAt: now,
                retentionDays,
                useRetentionPeriod: retentionDays > 0 && (input.useRetentionPeriod ?? true),
                mapFields: [...(input.mapFields ?? [])],
            };
            const dsRoot = path.join(this.dir, 'datasets');
            const tmp = path.join(dsRoot, `.new-${randomBytes(6).toString('hex')}`);
            const final = path.join(dsRoot, datasetDirName(name));
            try {
                await Dataset.initDir(tmp, meta);
                await fsp.rename(tmp, final);
                await fsyncDir(dsRoot);
            } catch (err) {
                await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
                if (isDiskFull(err)) throw diskFullError(`creating dataset "${name}"`, err);
                // A recursive mkdir on a read-only file system can fail with ENOENT: ask the directory.
                const readOnly = isReadOnly(err) ? (err as NodeJS.ErrnoException).code : await writeProbe(dsRoot).catch(() => undefined);
                if (readOnly) throw readOnlyError(`creating dataset "${name}"`, { code: readOnly });
                throw err;
            }
            const ds = await Dataset.open(final, this.dsOptions());
            this.datasets.set(name, ds);
            return { ...meta };
        } finally {
            this.creating.delete(name);
        }
    }

    async updateDataset(name: string, patch: UpdateDatasetInput): Promise<DatasetMeta> {
        const ds = this.ds(name);
        const meta: DatasetMeta = { ...ds.meta };
        if (patch.description !== undefined) meta.description = patch.description;
        if (patch.retentionDays !== undefined) meta.retentionDays = Math.max(0, Math.floor(patch.retentionDays));
        if (patch.useRetentionPeriod !== undefined) meta.useRetentionPeriod = patch.useRetentionPeriod;
        if (patch.mapFields !== undefined) meta.mapFields = [...patch.mapFields];
        // API.md §7.2: useRetentionPeriod becomes false when retentionDays is 0.
        if (meta.retentionDays === 0) meta.useRetentionPeriod = false;
        meta.updatedAt = formatDatetime(this.opts.now());
        try {
            await ds.writeMeta(meta);
        } catch (err) {
            if (isDiskFull(err)) throw diskFullError(`updating dataset "${name}"`, err);
            throw err;
        }
        return { ...meta };
    }

    /** Removes the dataset and all its files (rename to a trash dir first, so it is atomic). */
    async deleteDataset(name: string): Promise<void> {
        const ds = this.ds(name);
        this.datasets.delete(name);
        await ds.close();
        const dsRoot = path.join(this.dir, 'datasets');
        const trash = path.join(dsRoot, `.trash-${randomBytes(6).toString('hex')}`);
        await fsp.rename(ds.dir, trash);
        await fsyncDir(dsRoot);
        await fsp.rm(trash, { recursive: true, force: true });
    }

    /**
     * The whole ingest request: decode, parse, normalise, append durably, build IngestStatus.
     * Throws IngestError (400/413/415) or StoreError (404).
     */
    async ingest(name: string, req: IngestRequest): Promise<IngestResult> {
        const ds = this.ds(name);
        const prep = await prepareIngest(req, { maxBodyBytes: this.opts.maxBodyBytes, mapFields: ds.meta.mapFields, receiveTimeNs: this.opts.now() });
        const res = await this.append(name, prep);
        return {
            ...ingestStatus({ ingested: res.ingested, failures: prep.failures, processedBytes: prep.processedBytes, receiveTimeNs: prep.params.receiveTimeNs, walLength: ds.walLength }),
            batchId: res.batchId,
        };
    }

    /** Appends an already prepared batch (see prepareIngest). A full disk is a StoreError 507. */
    async append(name: string, prep: AppendInput): Promise<{ seq: number; batchId: string; ingested: number }> {
        try {
            return await this.ds(name).append(prep);
        } catch (err) {
            if (isDiskFull(err)) throw diskFullError(`writing to the write-ahead log of dataset "${name}"`, err);
            throw err;
        }
    }

    /** A consistent snapshot; call `release()` when done. */
    snapshot(name: string): Promise<Snapshot> {
        return this.ds(name).snapshot();
    }

    /** All events of a dataset (blocks + WAL tail) as one consistent snapshot. */
    async scan(name: string): Promise<StoredEvent[]> {
        const snap = await this.snapshot(name);
        try {
            return await snap.toArray();
        } finally {
            await snap.release();
        }
    }

    stats(name: string): Promise<DatasetStats> {
        return this.ds(name).stats();
    }

    /** `stats()` without the sizes on disk (see Dataset.kept). */
    kept(name: string): Promise<Pick<DatasetStats, 'events' | 'minTime' | 'maxTime'>> {
        return this.ds(name).kept();
    }

    /** See Dataset.eventCount. */
    eventCount(name: string): number {
        return this.ds(name).eventCount();
    }

    /** A dataset's WAL tail length and block count, read live (cheap, unlike `stats()`); zeros when it is not open. */
    counters(name: string): DatasetCounters {
        return this.datasets.get(name)?.counters() ?? { walLength: 0, blocks: 0 };
    }

    compact(name: string): Promise<void> {
        return this.ds(name).compact();
    }

    /** API E9: forget events older than now - maxDuration (ns). */
    trim(name: string, maxDurationNs: bigint): Promise<{ blocksDeleted: number }> {
        if (maxDurationNs < 0n) throw new StoreError('invalid_argument', 'maxDuration must not be negative');
        return this.ds(name).trim(maxDurationNs);
    }

    async sweepRetention(): Promise<void> {
        for (const ds of [...this.datasets.values()]) await ds.sweepRetention();
    }

    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        if (this.sweepTimer) clearInterval(this.sweepTimer);
        for (const ds of this.datasets.values()) await ds.close(true);
        this.datasets.clear();
        await this.compactor.close();
        await this.lock.release();
    }
}

/** Opens (creating if needed) a data directory and recovers every dataset in it. */
export function openStore(dir: string, options: StoreOptions = {}): Promise<Store> {
    return Store.open(dir, options);
}

function unavailableError(name: string, u: UnavailableDataset): StoreError {
    return new StoreError('unavailable', `dataset "${name}" is unavailable: ${u.reason}. Its files are kept as they are; repair or move them and restart the server`);
}

/** What the datasets list shows for an unavailable dataset whose meta.json cannot be read. */
function placeholderMeta(name: string, mtime: Date | undefined): DatasetMeta {
    const at = (mtime ?? new Date(0)).toISOString();
    return { name, kind: 'axiom:events:v1', description: '', who: '', created: at, updatedAt: at, retentionDays: 0, useRetentionPeriod: false, mapFields: [] };
}
