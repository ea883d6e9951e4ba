/**
 * The service's data plane: the durable store plus ONE in-memory query engine per process.
 *
 * - Start-up reads metadata only (`recover`); the server listens at once, and then the engine is
 *   fed from the store in the background (`loadInBackground`), one dataset at a time: blocks column
 *   by column, then the WAL tail batch by batch, with the store's row ids (time, batch seq, row)
 *   kept exactly, so cursors survive restarts. Lists of datasets answer from metadata at once.
 * - Before that load, each dataset gets a view from disk (`viewFromDisk`): its blocks' headers and
 *   its WAL tail, the way a dataset kept on disk is served (cold-tier.ts). Queries answer from it
 *   (`readable`, `allReadable`) while the load runs, reading the blocks they need from their files:
 *   the whole dataset as it is on disk, never a part of it. Ingests, trims and the other requests
 *   that need a dataset's events wait for its load (`loaded`, `allLoaded`), so nothing changes the
 *   dataset under that view; the load's commit replaces it in one step.
 * - An ingest request is decoded and validated, appended to the store (written + fsynced), then
 *   the same batch is fed into the engine, and only then acknowledged. A query therefore sees
 *   every acknowledged event, and each batch appears atomically (the engine append is synchronous).
 * - Delete and trim rebuild the engine's copy under an exclusive per-dataset lock; ingests take it
 *   shared, so concurrent appends still group-commit in the WAL.
 */
import { availableParallelism } from 'node:os';
import { prepareIngest, ingestStatus, type IngestRequest, type IngestStatus, type PreparedIngest } from '../ingest/ingest.js';
import type { ColumnarBatch } from '../ingest/columnar.js';
import { IngestWorkers, type ColumnarPrepared } from '../ingest/prepare-pool.js';
import { releaseBody } from '../ingest/padded-body.js';
import type { NormalizedEvents } from '../../language/index.js';
import { type DatasetMeta, type Store, type CreateDatasetInput, type UpdateDatasetInput } from '../store/store.js';
import { StoreError } from '../store/errors.js';
import { AplQueryError, DEFAULT_MAX_FIELDS_PER_DATASET } from '../../language/index.js';
import { KeyedRwLock } from './rwlock.js';
import { datasetNotFound, HttpError } from './errors.js';
import type { ColumnarChunk, DatasetLoader, EngineAdapter } from './engine-adapter.js';
import type { TailPart, TieredView } from '../store/store.js';
import { blockChunk } from '../query/cold-reader.js';
import { BlockDamagedError, BlockHeaders, EST_BYTES_PER_EVENT, coldBlock, memoryPlan } from './cold-tier.js';
import { startTrace } from '../start-trace.js';
import { yieldToLoop } from '../store/yield-to-loop.js';

export interface DataPlaneOptions {
    maxBodyBytes: number;
    log: (msg: string) => void;
    /** Distinct fields a dataset may have (default DEFAULT_MAX_FIELDS_PER_DATASET). */
    maxFieldsPerDataset?: number;
    /** Worker threads that parse ingest bodies (0 = parse on the main thread). Default min(2, CPUs). */
    ingestWorkers?: number;
    /** Heap bound of each ingest worker (MB); default Node's. */
    ingestWorkerHeapMb?: number;
    /**
     * For tests: awaited after each part (block or WAL batch) a background load fed to the engine,
     * so a test can hold a dataset half loaded without relying on timing.
     */
    afterLoadPart?: (dataset: string, part: number) => Promise<void> | void;
    /**
     * Bytes the service may hold (cold-tier.ts): datasets whose events do not fit the engine's share
     * keep their blocks on disk. Undefined: every dataset is held in memory whole.
     */
    memoryLimit?: number;
    /** The store's `<data dir>/datasets` (for the block headers of datasets kept on disk). */
    datasetsDir?: string;
}

/** A stored dataset whose events are not in the engine yet. */
interface PendingLoad {
    done: Promise<void>;
    settle(): void;
    fail(err: Error): void;
}

function pendingLoad(): PendingLoad {
    let settle!: () => void;
    let fail!: (err: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
        settle = resolve;
        fail = reject;
    });
    done.catch(() => undefined); // nobody may be waiting when it fails
    return { done, settle, fail };
}

/** Thrown inside a background load when the service stops: not damage, so nothing is marked. */
class LoadStopped extends Error {}

/** An ingest batch prepared as columns, as the engine's chunk: row r is (times[r], seq, r). */
function columnsChunk(seq: number, sysTime: bigint, c: ColumnarBatch, select?: Uint32Array, numberStrings = false): ColumnarChunk {
    const n = c.times.length;
    const rowInBatch = new Uint32Array(n);
    for (let i = 0; i < n; i++) rowInBatch[i] = i;
    // The worker's dictionaries arrive through postMessage: fresh, flat strings.
    return { rows: n, times: c.times, batchOf: new Uint32Array(n), rowInBatch, batches: [{ seq, sysTime }], columns: c.columns, select, flatStrings: true, numberStrings };
}

/** Feeds a WAL tail batch (flat events or columns) to a dataset being loaded. */
function feedTailPart(loader: DatasetLoader, part: TailPart): void {
    if (part.kind === 'columns') loader.appendColumns(columnsChunk(part.seq, part.sysTime, part.batch, part.select));
    else loader.ingestBatch({ times: part.times, fields: part.fields, sysTime: part.sysTime, batchSeq: part.seq, select: part.select });
}

/** How long the background load waits for a query worker to start (loadInBackground). */
const WORKER_START_WAIT_MS = 5000;

export class DataPlane {
    private readonly locks = new KeyedRwLock();
    /** Bumped on delete, so a batch acknowledged by a deleted dataset never reaches a new one. */
    private readonly generation = new Map<string, number>();
    private genCounter = 0;
    /** Total events fed to the engine (recovery + ingest), for the banner and tests. */
    eventsLoaded = 0;
    private readonly workers: IngestWorkers | undefined;
    /** Per dataset: its field names, plus those of ingests in flight (see reserveFields). */
    private readonly fieldNames = new Map<string, Set<string>>();
    private readonly maxFields: number;
    /** Datasets found at start whose events are not in the engine yet, in load order. */
    private readonly pending = new Map<string, PendingLoad>();
    /**
     * Per dataset of `pending`: settles once queries can read it, from its view from disk or,
     * when there is none (a damaged block header), once it is loaded.
     */
    private readonly readablePending = new Map<string, PendingLoad>();
    /** Datasets that queries read from disk now, until their load commits. */
    private readonly servedFromDisk = new Set<string>();
    private background: Promise<void> = Promise.resolve();
    private stopping = false;
    private waiting = 0;
    /** Datasets whose blocks stay on disk (until they are deleted). */
    private readonly onDisk = new Set<string>();
    /** Datasets with a reload after a compaction queued. */
    private readonly reloadQueued = new Set<string>();
    private readonly headers: BlockHeaders | undefined;

    constructor(
        readonly store: Store,
        readonly engine: EngineAdapter,
        private readonly opts: DataPlaneOptions,
    ) {
        this.maxFields = opts.maxFieldsPerDataset ?? DEFAULT_MAX_FIELDS_PER_DATASET;
        const n = opts.ingestWorkers ?? Math.min(2, availableParallelism());
        this.workers = n > 0 ? new IngestWorkers(n, opts.log, opts.ingestWorkerHeapMb) : undefined;
        if (opts.datasetsDir !== undefined) this.headers = new BlockHeaders(opts.datasetsDir);
        if (opts.memoryLimit !== undefined) {
            if (opts.datasetsDir === undefined) throw new Error('a memory limit needs the datasets directory');
            store.onCompacted((name) => this.afterCompaction(name));
        }
    }

    /** Whether a dataset keeps its blocks on disk: once its events would not fit beside the others in memory. */
    keepsOnDisk(name: string): boolean {
        return this.onDisk.has(name);
    }

    /** The bytes of the datasets held in memory whole (but `except`), and the largest of them. */
    private heldInMemory(except?: string): { bytes: number; largest?: { name: string; bytes: number } } {
        let bytes = 0;
        let largest: { name: string; bytes: number } | undefined;
        for (const m of this.store.listDatasets()) {
            if (m.name === except || this.onDisk.has(m.name) || this.pending.has(m.name)) continue;
            const b = this.engine.memoryBytes(m.name);
            bytes += b;
            if (!largest || b > largest.bytes) largest = { name: m.name, bytes: b };
        }
        return { bytes, largest };
    }

    /** Whether a dataset about to be (re)loaded keeps its blocks on disk: decided once, when it would not fit beside the others. */
    private decideOnDisk(name: string): boolean {
        const limit = this.opts.memoryLimit;
        if (limit === undefined) return false;
        if (this.onDisk.has(name)) return true;
        const events = this.store.eventCount(name);
        if (this.heldInMemory(name).bytes + events * EST_BYTES_PER_EVENT <= memoryPlan(limit).inMemoryBytes) return false;
        this.onDisk.add(name);
        this.opts.log(`dataset ${name}: ${events} events do not fit the memory limit beside the others; its blocks stay on disk and are read per query`);
        return true;
    }

    /**
     * A compaction moved tail batches into a block. A dataset kept on disk reloads (its in-memory
     * part is the WAL tail, and those rows are now in the block); one held in memory moves to disk
     * when the datasets in memory have outgrown their share.
     */
    private afterCompaction(name: string): void {
        if (this.stopping) return; // the shutdown checkpoint: nothing to reload
        let target: string | undefined = this.onDisk.has(name) ? name : undefined;
        if (target === undefined) {
            const { bytes: held, largest } = this.heldInMemory();
            const limit = this.opts.memoryLimit!;
            const share = memoryPlan(limit).inMemoryBytes;
            if (held <= share || !largest) return;
            target = largest.name;
            this.onDisk.add(target);
            // Both figures: what was held reads as the share otherwise (it overshoots it by up to a compaction's worth).
            const n = (v: number) => v.toLocaleString('en-US');
            this.opts.log(`dataset ${target}: the datasets in memory hold ${n(held)} bytes, past their share of ${n(share)} bytes (half of --memory-limit ${n(limit)}); its blocks stay on disk from now on`);
        }
        const t = target;
        if (this.reloadQueued.has(t)) return;
        this.reloadQueued.add(t);
        setImmediate(() => {
            this.locks
                .exclusive(t, async () => {
                    this.reloadQueued.delete(t);
                    if (this.store.hasDataset(t) && !this.pending.has(t)) await this.loadDataset(t);
                })
                .catch((err: unknown) => this.opts.log(`reloading ${t} after a compaction failed: ${String(err)}`));
        });
    }

    /**
     * Start-up, metadata only: notes every stored dataset as not loaded yet, so that requests which
     * need its events wait for `loadInBackground`. Counts the events on disk (manifests + WAL tail).
     */
    async recover(): Promise<{ datasets: number; events: number }> {
        const names: string[] = [];
        for (const meta of this.store.listDatasets()) {
            if (!this.store.hasDataset(meta.name)) continue; // could not be opened: reported by the store
            this.generation.set(meta.name, ++this.genCounter);
            this.pending.set(meta.name, pendingLoad());
            this.readablePending.set(meta.name, pendingLoad());
            names.push(meta.name);
        }
        const stats = await Promise.all(names.map((name) => this.store.kept(name)));
        // The WAL tails are parsed on the ingest workers right after the server listens, before any
        // query over them can answer: the workers start now, while the server is being built.
        const tailBatches = names.reduce((n, name) => n + this.store.unparsedTail(name).length, 0);
        this.workers?.prestart(tailBatches);
        return { datasets: names.length, events: stats.reduce((sum, s) => sum + s.events, 0) };
    }

    /**
     * Feeds the stored events into the engine, one dataset at a time, yielding to the event loop
     * between parts so requests keep being answered. Call once, after the server listens. A
     * dataset whose load fails (a damaged block) goes out of service (423, files untouched).
     */
    loadInBackground(): Promise<{ datasets: number; events: number }> {
        const run = async (): Promise<{ datasets: number; events: number }> => {
            let events = 0;
            let datasets = 0;
            // First every dataset's view from disk (headers and WAL tails: quick), so that a query
            // over any of them answers without waiting for the loads below.
            for (const [name, r] of [...this.readablePending]) {
                if (this.stopping) break;
                try {
                    if (this.store.hasDataset(name) && (await this.locks.exclusive(name, () => this.viewFromDisk(name)))) {
                        this.readablePending.delete(name);
                        r.settle();
                    }
                } catch (err) {
                    // Decides nothing: the load below meets the same problem and reports it.
                    this.opts.log(`dataset ${name}: no view from disk while it loads (${String(err)}); its queries wait for the load`);
                }
            }
            // The first answers can be given now: the query workers start (issue 31: until here their
            // start-up took the cores from this one's).
            this.engine.startQueryWorkers();
            // Queries answer from those views meanwhile; the loads below (block decoding on this
            // thread) wait until a query worker has started, so that they take neither its
            // start-up's share of the cores nor the event loop from the first answers.
            // At most WORKER_START_WAIT_MS: a worker that hangs while starting delays nothing for long.
            await Promise.race([this.engine.queriesStarted(), new Promise<void>((r) => setTimeout(r, WORKER_START_WAIT_MS).unref())]);
            for (const [name, p] of [...this.pending]) {
                if (this.stopping) break;
                let stopped = false;
                try {
                    // Exclusive: no ingest, trim or delete of this dataset runs meanwhile.
                    if (this.store.hasDataset(name)) {
                        events += await this.locks.exclusive(name, () => this.loadDataset(name, true));
                        datasets++;
                    }
                } catch (err) {
                    if (err instanceof LoadStopped) stopped = true;
                    else await this.outOfService(name, err).catch((e: unknown) => this.opts.log(`taking ${name} out of service failed: ${String(e)}`));
                }
                if (stopped) break; // its waiters get stopLoading's 503
                this.servedFromDisk.delete(name);
                if (!this.onDisk.has(name)) this.headers?.forget(name);
                this.pending.delete(name);
                p.settle();
                const r = this.readablePending.get(name);
                this.readablePending.delete(name);
                r?.settle();
            }
            return { datasets, events };
        };
        const result = run();
        this.background = result.then(() => undefined, (err: unknown) => this.opts.log(`loading the stored datasets failed: ${String(err)}`));
        return result;
    }

    /**
     * A dataset found at start, as queries may read it while it loads: its blocks stay on disk
     * (their headers read and checked, the blocks themselves read per query), its WAL tail goes
     * into the engine; false when a block header does not check out (then queries wait for the
     * load, which reports it). The WAL tail's events parsed here stay with their batches, so the
     * load that follows does not parse them again.
     */
    private async viewFromDisk(name: string): Promise<boolean> {
        const headers = this.headers;
        if (headers === undefined) return false;
        const meta = this.store.getDataset(name);
        // Nothing changes the dataset meanwhile (ingests and trims wait for its load), but a view
        // is taken again when a compaction of the tail at open added a block while headers were read.
        let view = this.store.tieredView(name, true);
        // The WAL tail's batches are built on the ingest workers while the headers are read.
        const tailBuilt = this.buildTailOnWorkers(name);
        for (;;) {
            try {
                await headers.readAll(name, view.blocks, undefined, () => this.stopping);
            } catch (err) {
                if (err instanceof BlockDamagedError) return false;
                throw err;
            }
            if (this.stopping) return false;
            const again = this.store.tieredView(name, true);
            if (again.blocks === view.blocks) break;
            view = again;
        }
        startTrace('headers read ' + name);
        await tailBuilt;
        startTrace('tail built ' + name);
        this.commitTiered(name, meta, view, headers);
        startTrace('view committed ' + name);
        this.servedFromDisk.add(name);
        return true;
    }

    /**
     * Builds the events of the WAL tail batches recovered at start on the ingest workers, in
     * parallel and off the main thread (the columns stay with their batches, for every later read
     * of the tail). A batch no worker builds is built on the main thread when it is read.
     */
    private async buildTailOnWorkers(name: string): Promise<void> {
        const workers = this.workers;
        if (workers === undefined) return;
        await Promise.all(
            this.store.unparsedTail(name).map(async (b) => {
                const columns = await workers.columns(b.body, b.params);
                if (columns !== undefined) b.built(columns);
            }),
        );
    }

    /** Whether queries over some dataset read it from its files now, while it loads. */
    get answersFromDisk(): boolean {
        return this.servedFromDisk.size > 0;
    }

    /**
     * Runs a query that may read datasets from disk while they load. Read from disk, a query that
     * needs more blocks in memory at once than the block cache holds is refused (AplQueryError
     * `limit`); while the datasets load that is no reason to refuse it: it waits for the loads
     * and runs again, in memory.
     */
    async whileLoading<T>(run: () => Promise<T>): Promise<T> {
        if (!this.answersFromDisk) return run();
        try {
            return await run();
        } catch (err) {
            if (!(err instanceof AplQueryError && err.kind === 'limit')) throw err;
            await this.allLoaded();
            return run();
        }
    }

    /** A damaged block: the dataset goes out of service (423, files untouched), the others serve. */
    private async outOfService(name: string, err: unknown): Promise<void> {
        this.generation.delete(name);
        this.engine.deleteDataset(name);
        await this.store.markUnavailable(name, err);
    }

    /** Requests waiting for a start-up load right now (for tests and diagnostics). */
    get waitingForLoad(): number {
        return this.waiting;
    }

    /** Resolves once the dataset's stored events are in the engine (at once for any other name). */
    loaded(name: string): Promise<void> {
        return this.wait(this.pending.get(name)?.done);
    }

    /** Waits for `done` (nothing to wait for when undefined), counted in `waitingForLoad`. */
    private async wait(done: Promise<unknown> | undefined): Promise<void> {
        if (done === undefined) return;
        this.waiting++;
        try {
            await done;
        } finally {
            this.waiting--;
        }
    }

    /** Resolves once every dataset found at start is in the engine (queries that may name any). */
    async allLoaded(): Promise<void> {
        for (const name of [...this.pending.keys()]) await this.loaded(name);
    }

    /**
     * Resolves once queries can read the dataset whole: from its view from disk while it loads,
     * or loaded (at once for any other name).
     */
    readable(name: string): Promise<void> {
        return this.wait(this.readablePending.get(name)?.done);
    }

    /** `readable` for every dataset found at start (queries that may name any). */
    async allReadable(): Promise<void> {
        for (const name of [...this.readablePending.keys()]) await this.readable(name);
    }

    /** `readable`, then the dataset's metadata: 404, or 423 when it cannot be read. */
    async readableDataset(name: string): Promise<DatasetMeta> {
        await this.readable(name);
        return this.getDataset(name);
    }

    /** The dataset's metadata once its events are loaded: 404, or 423 when its load failed. */
    async loadedDataset(name: string): Promise<DatasetMeta> {
        await this.loaded(name);
        return this.getDataset(name);
    }

    /** Stops the background load; requests still waiting for it get 503. */
    async stopLoading(): Promise<void> {
        this.stopping = true;
        await this.background;
        const err = new HttpError(503, 'the service is shutting down');
        for (const p of this.pending.values()) p.fail(err);
        for (const p of this.readablePending.values()) p.fail(err);
    }

    /**
     * (Re)builds the engine's copy of one dataset from a store snapshot, streaming: each block goes
     * in column by column, then each WAL tail batch, into a copy built off to the side that
     * replaces the current one in one synchronous step (queries see the old copy or the new one).
     * `background`: the start-up load, which yields between parts and stops when the service does.
     */
    private async loadDataset(name: string, background = false): Promise<number> {
        this.fieldNames.delete(name);
        if (this.decideOnDisk(name)) return this.loadKeepingBlocksOnDisk(name, background);
        const snap = await this.store.snapshot(name);
        let loader: DatasetLoader;
        try {
            loader = this.engine.beginLoad(name, this.store.getDataset(name), snap.size);
            let n = 0;
            for await (const part of snap.parts()) {
                if (part.kind === 'block') loader.appendColumns({ ...blockChunk(part.block), select: part.select });
                else feedTailPart(loader, part);
                if (background) {
                    // Let requests in between parts; the half-built copy stays invisible until commit.
                    await this.opts.afterLoadPart?.(name, n++);
                    await yieldToLoop();
                    if (this.stopping) throw new LoadStopped();
                }
            }
        } finally {
            await snap.release();
        }
        loader.commit();
        this.eventsLoaded += loader.rows;
        return loader.rows;
    }

    /** Gives the engine a dataset kept on disk as `view` has it: the WAL tail's batches, and its blocks as `headers` describe them. */
    private commitTiered(name: string, meta: DatasetMeta, view: TieredView, headers: BlockHeaders): DatasetLoader {
        const loader = this.engine.beginLoad(name, meta, view.tailEvents);
        for (const part of view.tail()) feedTailPart(loader, part);
        const mapFields = new Set(meta.mapFields);
        loader.setCold({
            blocks: view.blocks.map((b) => coldBlock(b, headers.get(name, b.file), mapFields)),
            keep: view.keep,
            hints: { mapFields: meta.mapFields },
            epoch: this.generation.get(name),
        });
        loader.commit();
        return loader;
    }

    /**
     * A dataset kept on disk: the engine gets its WAL tail's batches and the list of its blocks
     * (their headers read once), from one synchronous view of the store, so no batch is in both.
     */
    private async loadKeepingBlocksOnDisk(name: string, background: boolean): Promise<number> {
        const headers = this.headers!;
        const meta = this.store.getDataset(name);
        let view = this.store.tieredView(name);
        for (;;) {
            if (view.blocks.every((b) => headers.has(name, b.file))) break;
            // A header that fails its check decides nothing: the block leaves service, reported,
            // and answers over the dataset say what they lack.
            const quarantine = (err: BlockDamagedError) => this.store.quarantineBlock(name, err.file, `is damaged (${err.why})`);
            await headers.readAll(name, view.blocks, quarantine, () => background && this.stopping);
            if (background && this.stopping) throw new LoadStopped();
            view = this.store.tieredView(name); // a compaction may have added a block meanwhile
        }
        const loader = this.commitTiered(name, meta, view, headers);
        this.eventsLoaded += loader.rows;
        return loader.rows + view.blocks.reduce((s, b) => s + b.rows, 0);
    }

    listDatasets(): DatasetMeta[] {
        return this.store.listDatasets();
    }

    getDataset(name: string): DatasetMeta {
        try {
            return this.store.getDataset(name);
        } catch (err) {
            if (err instanceof StoreError && err.code === 'not_found') throw datasetNotFound(name);
            throw err;
        }
    }

    hasDataset(name: string): boolean {
        return this.store.hasDataset(name);
    }

    /**
     * Runs a query; when it fails because a dataset is unknown to the engine and that dataset is
     * one the store could not open, answers the store's 423 (which says why) instead of a 404.
     */
    async explainUnknownDataset<T>(run: () => Promise<T>): Promise<T> {
        try {
            return await run();
        } catch (err) {
            if (err instanceof HttpError && err.status === 404) {
                for (const m of this.store.listDatasets()) {
                    const named = new RegExp(`(^|[^A-Za-z0-9-])${m.name}([^A-Za-z0-9-]|$)`).test(err.message);
                    if (named && !this.store.hasDataset(m.name)) this.store.getDataset(m.name); // throws 423
                }
            }
            throw err;
        }
    }

    async createDataset(input: CreateDatasetInput): Promise<DatasetMeta> {
        const meta = await this.store.createDataset(input);
        this.fieldNames.delete(meta.name);
        this.generation.set(meta.name, ++this.genCounter);
        this.engine.resetDataset(meta.name, meta);
        return meta;
    }

    async updateDataset(name: string, patch: UpdateDatasetInput): Promise<DatasetMeta> {
        // After the load: a dataset whose load fails must keep its files as they are.
        await this.loadedDataset(name);
        const meta = await this.store.updateDataset(name, patch);
        this.engine.updateMeta(name, meta);
        return meta;
    }

    async deleteDataset(name: string): Promise<void> {
        await this.loadedDataset(name);
        await this.locks.exclusive(name, async () => {
            this.generation.delete(name);
            this.fieldNames.delete(name);
            this.onDisk.delete(name);
            this.headers?.forget(name);
            this.engine.deleteDataset(name);
            await this.store.deleteDataset(name);
        });
        for (const fn of this.deletedListeners) {
            // The dataset is gone already: a listener's failure is reported, not turned into an error.
            await fn(name).catch((err: unknown) => this.opts.log(`after deleting dataset ${name}: ${String(err)}`));
        }
    }

    private readonly deletedListeners: ((name: string) => Promise<unknown>)[] = [];

    /** Runs `fn` after each dataset deletion (annotations drop the dataset from their lists). */
    onDatasetDeleted(fn: (name: string) => Promise<unknown>): void {
        this.deletedListeners.push(fn);
    }

    /** API E9: drops events older than now - maxDuration, in the store and in the engine. */
    async trim(name: string, maxDurationNs: bigint): Promise<void> {
        await this.loadedDataset(name);
        await this.locks.exclusive(name, async () => {
            await this.store.trim(name, maxDurationNs);
            await this.loadDataset(name);
        });
    }

    /**
     * One ingest request: decode + validate (IngestError 400/413/415 for the whole request; bad
     * events become `failures`), durable append, engine feed, IngestStatus.
     */
    async ingest(name: string, req: IngestRequest): Promise<IngestStatus> {
        // The engine append must follow the start-up load of the dataset (which then holds its lock).
        await this.loaded(name);
        const meta = this.getDataset(name);
        return this.locks.shared(name, async () => {
            const gen = this.generation.get(name);
            const blocksBefore = this.store.counters(name).blocks;
            const popts = { maxBodyBytes: this.opts.maxBodyBytes, mapFields: meta.mapFields };
            const prep: PreparedIngest | ColumnarPrepared = this.workers ? await this.workers.prepare(req, popts) : await prepareIngest(req, popts);
            const reserved = this.reserveFields(name, prep);
            let res: { seq: number; batchId: string; ingested: number };
            try {
                res = await this.store.append(name, prep);
            } catch (err) {
                const known = this.fieldNames.get(name);
                for (const f of reserved) known?.delete(f);
                if (err instanceof StoreError && err.code === 'not_found') throw datasetNotFound(name);
                throw err;
            }
            if (res.ingested > 0 && gen !== undefined && this.generation.get(name) === gen) {
                try {
                    if (prep.batch) this.feed(name, res.seq, prep.batch, prep.params.receiveTimeNs);
                    else this.feedColumns(name, res.seq, prep.columnar, prep.params.receiveTimeNs);
                } catch (err) {
                    // The batch is durable: acknowledge it (a 5xx would make clients resend it and
                    // duplicate it), and rebuild the engine's copy from the store right after.
                    this.opts.log(`feeding ${name} batch ${res.batchId} to the engine failed (${String(err)}); rebuilding from the store`);
                    this.rebuildSoon(name);
                }
            }
            // Written, synced and fed: nothing reads the body any more, and the memory a worker handed
            // it back in can take a later request's body (padded-body.ts).
            if (!prep.batch) releaseBody(prep.body);
            const after = this.store.counters(name);
            const status = ingestStatus({
                ingested: res.ingested,
                failures: prep.failures,
                processedBytes: prep.processedBytes,
                receiveTimeNs: prep.params.receiveTimeNs,
                walLength: after.walLength,
            });
            status.blocksCreated = Math.max(0, after.blocks - blocksBefore);
            return status;
        });
    }

    /**
     * Notes the new field names a batch brings, before it is appended (synchronously, so
     * concurrent ingests cannot pass the limit together); throws 400 naming the limit when the
     * dataset would have more than `maxFieldsPerDataset` fields. Returns the names added.
     */
    private reserveFields(name: string, prep: PreparedIngest | ColumnarPrepared): string[] {
        let known = this.fieldNames.get(name);
        if (known === undefined) {
            known = new Set(this.engine.fields(name).map((f) => f.name));
            known.delete('_time');
            known.delete('_sysTime');
            this.fieldNames.set(name, known);
        }
        const fresh = new Set<string>();
        if (prep.batch) {
            for (const ev of prep.batch.fields) for (const k in ev) if (!known.has(k)) fresh.add(k);
        } else {
            for (const c of prep.columnar.columns) if (!known.has(c.name)) fresh.add(c.name);
        }
        if (fresh.size === 0) return [];
        if (known.size + fresh.size > this.maxFields) {
            const some = [...fresh].slice(0, 5).map((f) => JSON.stringify(f)).join(', ');
            throw new StoreError(
                'too_many_fields',
                `dataset "${name}" has ${known.size} fields and this request would add ${fresh.size} more (${some}${fresh.size > 5 ? ', …' : ''}); a dataset may have at most ${this.maxFields} fields, so nothing of the request was stored`,
            );
        }
        for (const f of fresh) known.add(f);
        return [...fresh];
    }

    private rebuildSoon(name: string): void {
        setImmediate(() => {
            this.locks
                .exclusive(name, async () => {
                    if (this.store.hasDataset(name)) await this.loadDataset(name);
                })
                .catch((err: unknown) => this.opts.log(`rebuilding ${name} failed: ${String(err)}`));
        });
    }

    /**
     * Appends the batch prepareIngest built (the one parse of the body; identical to what the store
     * rebuilds from its WAL record with `buildBatch`) to the engine.
     */
    private feed(name: string, seq: number, batch: NormalizedEvents, sys: bigint): void {
        // Row r's id is (times[r], seq, r), as the store formats it (formatRowId): the engine keeps
        // the parts and formats the id only when a query outputs it.
        this.engine.appendBatch(name, { times: batch.times, fields: batch.fields, sysTime: sys, batchSeq: seq });
        this.eventsLoaded += batch.fields.length;
    }

    /** The same as `feed`, for a batch a worker prepared as columns: row r is (times[r], seq, r). */
    private feedColumns(name: string, seq: number, c: ColumnarBatch, sys: bigint): void {
        // The engine leaves its numbers for the batch's strings on the columns, which the store's
        // WAL tail holds too: compaction then merges the batches' dictionaries by number.
        this.engine.appendColumns(name, columnsChunk(seq, sys, c, undefined, true));
        this.eventsLoaded += c.times.length;
    }

    async close(): Promise<void> {
        await this.stopLoading();
        await this.workers?.close();
        await this.store.close();
    }
}
