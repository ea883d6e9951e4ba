/**
 * The embedded store: `openStore(dir, options) → Store`. One directory per dataset under
 * `<dir>/datasets/`, hashed API tokens in `<dir>/tokens.json`. See FORMAT.md.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { formatDatetime } from '../../language/values.js';
import { DEFAULT_MAX_BODY_BYTES } from '../ingest/decode-body.js';
import { ingestStatus, nowNs, prepareIngest, type IngestRequest, type IngestStatus, type AppendInput } from '../ingest/ingest.js';
import { Compactor } from './compactor.js';
import { BlockCache, Dataset, type DatasetMeta, type DatasetStats, type Snapshot, type StoredEvent } from './dataset.js';
import { StoreError, validateDatasetName } from './errors.js';
import { fsyncDir } from './fsutil.js';
import { TokenStore } from './tokens.js';

export type { DatasetMeta, DatasetStats, StoredEvent, SnapshotPart } from './dataset.js';
export { Snapshot } from './dataset.js';
export { StoreError, validateDatasetName } from './errors.js';
export { TokenStore, type TokenInfo } from './tokens.js';
export { formatRowId, batchRowIds, parseRowId, batchIdHex } from './row-id.js';

export interface StoreOptions {
    /** Compact the WAL tail into a block after this many events (default 65,536). */
    compactEvents?: number;
    /** … or after this many body bytes (default 64 MiB). */
    compactBytes?: number;
    /** Deflate block sections (default true). */
    compress?: boolean;
    /** Bound on a decompressed ingest body (default 100 MiB). */
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

export class Store {
    private datasets = new Map<string, Dataset>();
    private creating = new Set<string>();
    private sweepTimer: NodeJS.Timeout | undefined;
    private closed = false;

    private constructor(
        readonly dir: string,
        readonly tokens: TokenStore,
        private readonly opts: Required<StoreOptions>,
        private readonly blockCache: BlockCache,
        private readonly compactor: Compactor,
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
        };
        const root = path.resolve(dir);
        await fsp.mkdir(path.join(root, 'datasets'), { recursive: true });
        await acquireLock(root);
        const store = new Store(root, await TokenStore.open(root, { log: opts.log }), opts, new BlockCache(opts.blockCacheSize), new Compactor(opts.compactInWorker, opts.log));
        const dsRoot = path.join(root, 'datasets');
        for (const e of await fsp.readdir(dsRoot, { withFileTypes: true })) {
            if (!e.isDirectory()) continue;
            const p = path.join(dsRoot, e.name);
            if (e.name.startsWith('.')) {
                // interrupted create (.new-*) or delete (.trash-*)
                await fsp.rm(p, { recursive: true, force: true });
                continue;
            }
            const ds = await Dataset.open(p, store.dsOptions());
            for (const note of ds.recoveryNotes) opts.log(`recovery ${e.name}: ${note}`);
            store.datasets.set(ds.name, ds);
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
        };
    }

    private ds(name: string): Dataset {
        if (this.closed) throw new StoreError('closed', 'store is closed');
        const ds = this.datasets.get(name);
        if (!ds) throw new StoreError('not_found', `dataset "${name}" not found`);
        return ds;
    }

    listDatasets(): DatasetMeta[] {
        return [...this.datasets.values()].map((d) => ({ ...d.meta })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }

    hasDataset(name: string): boolean {
        return this.datasets.has(name);
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
            await Dataset.initDir(tmp, meta);
            const final = path.join(dsRoot, name);
            await fsp.rename(tmp, final);
            await fsyncDir(dsRoot);
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
        await ds.writeMeta(meta);
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
        const res = await this.ds(name).append(prep);
        return {
            ...ingestStatus({ ingested: res.ingested, failures: prep.failures, processedBytes: prep.processedBytes, receiveTimeNs: prep.params.receiveTimeNs, walLength: ds.walLength }),
            batchId: res.batchId,
        };
    }

    /** Appends an already prepared batch (see prepareIngest). */
    append(name: string, prep: AppendInput): Promise<{ seq: number; batchId: string; ingested: number }> {
        return this.ds(name).append(prep);
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
        for (const ds of this.datasets.values()) await ds.close();
        this.datasets.clear();
        await this.compactor.close();
        await fsp.rm(path.join(this.dir, 'LOCK'), { force: true });
    }
}

/** Opens (creating if needed) a data directory and recovers every dataset in it. */
export function openStore(dir: string, options: StoreOptions = {}): Promise<Store> {
    return Store.open(dir, options);
}

/** One process per data directory: a LOCK file with the owner's pid (stale locks are taken over). */
async function acquireLock(root: string): Promise<void> {
    const lock = path.join(root, 'LOCK');
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            await fsp.writeFile(lock, String(process.pid), { flag: 'wx' });
            return;
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const pid = Number((await fsp.readFile(lock, 'utf8').catch(() => '')).trim());
        if (pid && pid !== process.pid && isAlive(pid)) {
            throw new Error(`data directory ${root} is in use by process ${pid} (remove ${lock} if that is wrong)`);
        }
        await fsp.rm(lock, { force: true });
    }
    throw new Error(`could not lock data directory ${root}`);
}

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}
