/**
 * The service's view of the reference evaluator: one in-memory engine per process, fed on the main
 * thread, whose queries run on a pool of worker threads over replicas of it (server/query). This
 * adapter is the only file of server/http that knows the engine's API; the rest sees `EngineAdapter`.
 */
import type { DatasetMeta } from '../store/store.js';

export type { ColumnarChunk, DatasetLoader, FlatBatch } from '../../language/index.js';
import { availableParallelism } from 'node:os';
import { AplQueryError, createEngine, SAMPLE_DATASETS, type ColumnarChunk, type DatasetLoader, type Engine, type FlatBatch, type QueryLimits } from '../../language/index.js';
import { DEFAULT_QUERY_TIMEOUT_MS, QueryPool, type QueryPoolStats } from '../query/pool.js';
import { interruption, type JobAnswer, type QuerySpec } from '../query/protocol.js';
import { runJob, shareParser } from '../query/run-job.js';
import { DEFAULT_PARALLEL_MIN_ROWS, runParallel } from '../query/parallel-run.js';
import { DEFAULT_PAGE_SIZE } from './paging.js';
import { coldBlockReader } from '../query/cold-reader.js';
import { startTrace } from '../start-trace.js';

export interface FieldInfo {
    name: string;
    type: string;
    description?: string;
    unit?: string;
    hidden?: boolean;
}

export interface AplQueryRequest {
    format: 'tabular' | 'legacy';
    /** Server time of the request (ns): `now` in APL and in relative times. */
    now: bigint;
    startNs?: bigint;
    endNs?: bigint;
    cursor?: string;
    includeCursor: boolean;
    /** Tabular: a `_cursor` column per table of dataset rows. Legacy: no change (matches have `_rowId`). */
    includeCursorField: boolean;
    /** The request body's limit (absent = none). */
    limit?: number;
    variables?: Record<string, unknown>;
    /** Per dataset, what its quarantined storage keeps out of answers (Store.missingData): told in the answer. */
    missing?: Record<string, string>;
}

export interface EngineAdapter {
    /** Creates the dataset, or replaces its contents with nothing. */
    resetDataset(name: string, meta: DatasetMeta): void;
    updateMeta(name: string, meta: DatasetMeta): void;
    deleteDataset(name: string): void;
    /** One stored ingest batch: row r's id is (times[r], batch seq, r). */
    appendBatch(name: string, batch: FlatBatch): void;
    /** The same, given column by column (an ingest batch prepared on a worker). */
    appendColumns(name: string, chunk: ColumnarChunk): void;
    /**
     * Rebuilds a dataset's copy off to the side (blocks column by column, then the WAL tail);
     * `commit()` swaps it in, so queries see either the old copy or the complete new one.
     */
    beginLoad(name: string, meta: DatasetMeta, rowsHint?: number): DatasetLoader;
    rowCount(name: string): number;
    fields(name: string): FieldInfo[];
    /** Runs an APL query; resolves with the response body as JSON text. `signal` cancels it. */
    queryApl(apl: string, req: AplQueryRequest, signal?: AbortSignal): Promise<string>;
    /** Runs a legacy query given as the JSON text of its body (checked to parse). */
    queryLegacy(dataset: string, bodyJson: string, opts: { now: bigint; missing?: Record<string, string> }, signal?: AbortSignal): Promise<string>;
    /** Settles once queries run where they will (a query worker is ready; at once without workers). */
    queriesStarted(): Promise<void>;
    /**
     * Starts the query workers (they wait for this, or for a query that needs one: the service
     * starts them once its first answers can be given, issue 31). Idempotent.
     */
    startQueryWorkers(): void;
    /**
     * Builds the main thread's parser and evaluator with a query of nothing, so that the first
     * query answered here while the workers start (whileStarting) does not pay for it.
     */
    warmUp(): Promise<void>;
    /** The query pool's counters (undefined when queries run on the main thread). */
    queryStats(): QueryPoolStats | undefined;
    /** Bytes of a dataset's in-memory copy (its blocks on disk not counted). */
    memoryBytes(name: string): number;
    close(): Promise<void>;
}

export interface EngineAdapterOptions {
    maxResultRows: number;
    defaultLimit?: number;
    /**
     * Query worker threads (server/query/pool.ts). Default: one per core. 0 runs queries on the main
     * thread, with the time limit checked cooperatively only.
     */
    queryWorkers?: number;
    /**
     * A query over a dataset of at least this many rows runs on every idle worker at once when its
     * shape allows (server/query/parallel-run.ts). Default DEFAULT_PARALLEL_MIN_ROWS.
     */
    parallelMinRows?: number;
    /** Per-query time limit in ms (default 60 s). */
    queryTimeoutMs?: number;
    /** Bounds of a query's intermediate results (default DEFAULT_QUERY_LIMITS). */
    limits?: Partial<QueryLimits>;
    /** The store's `<data dir>/datasets`: where the blocks of datasets kept on disk are read. */
    datasetsDir?: string;
    /** Bytes of blocks read from disk kept in memory, for all query threads together (default 256 MiB each). */
    coldCacheBytes?: number;
    /** Each query worker's young generation in MB (memoryPlan; default: from its heap limit). */
    workerYoungMb?: number;
    log?: (msg: string) => void;
}

/**
 * How long a query may run on the main thread while the query workers start (pool.ts,
 * whileStarting): the first queries after start-up answer there at once, and one that needs longer
 * stops and waits for a worker, so the main thread (HTTP, ingest, the background load) is never
 * held up for long.
 */
const STARTING_SLICE_MS = 100;

/** The sample schemas' units and descriptions, for the fields lists (language/samples). */
const SAMPLE_FIELD_META = new Map<string, Map<string, { description?: string; unit?: string }>>(
    SAMPLE_DATASETS.map((d) => [d.name, new Map(d.fields.map((f) => [f.name, { description: f.description, unit: f.unit }]))]),
);

export function createEngineAdapter(opts: EngineAdapterOptions): EngineAdapter {
    const defaultLimit = opts.defaultLimit ?? DEFAULT_PAGE_SIZE;
    const workers = opts.queryWorkers ?? availableParallelism();
    const timeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const coldReader = opts.datasetsDir === undefined ? undefined : coldBlockReader(opts.datasetsDir);
    // Each query thread has its own cache (the main thread's serves queries only without workers).
    const coldCacheBytes = opts.coldCacheBytes === undefined ? undefined : Math.floor(opts.coldCacheBytes / Math.max(1, workers));
    const engine: Engine = createEngine({ maxLimit: opts.maxResultRows, defaultLimit, limits: opts.limits, sharedMemory: workers > 0, coldReader, coldCacheBytes });
    shareParser(engine);
    /** Without workers: the deadline and the client's going away are checked between operators. */
    const inProcess = (job: QuerySpec, signal?: AbortSignal): Promise<JobAnswer> => {
        const deadline = performance.now() + timeoutMs;
        return runJob(engine, { ...job, timeoutMs }, () =>
            signal?.aborted ? interruption('cancelled', timeoutMs) : performance.now() > deadline ? interruption('timeout', timeoutMs) : undefined,
        );
    };
    const pool =
        workers > 0
            ? new QueryPool(engine, {
                  workers,
                  timeoutMs,
                  maxResultRows: opts.maxResultRows,
                  defaultLimit,
                  limits: opts.limits,
                  datasetsDir: opts.datasetsDir,
                  coldCacheBytes,
                  workerYoungMb: opts.workerYoungMb,
                  log: opts.log ?? (() => undefined),
                  fallback: inProcess,
                  deferStart: true,
                  whileStarting: (job, signal) => {
                      // A slice of the main thread: a query that needs more gives way to the workers,
                      // once one has started (until then giving way would only make it wait, and
                      // throw away what this thread did: the first query builds its parser here).
                      const deadline = performance.now() + STARTING_SLICE_MS;
                      startTrace('query on main thread');
                      let gaveWay = false;
                      return runJob(engine, { ...job, timeoutMs }, () => {
                          if (signal?.aborted) return interruption('cancelled', timeoutMs);
                          if (performance.now() <= deadline) return undefined;
                          // Too long for this thread: the workers start now if they have not yet.
                          pool?.startWorkers();
                          if (!pool?.workerStarted()) return undefined;
                          gaveWay = true;
                          return interruption('cancelled', timeoutMs);
                      }).then(a => a.json, (err: unknown) => {
                          if (gaveWay && err instanceof AplQueryError && err.kind === 'cancelled') return undefined;
                          throw err;
                      });
                  },
              })
            : undefined;
    const minRows = opts.parallelMinRows ?? DEFAULT_PARALLEL_MIN_ROWS;
    const run = (job: QuerySpec, signal?: AbortSignal): Promise<string> =>
        pool ? (runParallel(pool, engine, job, minRows, signal) ?? pool.run(job, signal)) : inProcess(job, signal).then(a => a.json);
    const hints = (meta: DatasetMeta) => ({ mapFields: meta.mapFields });
    return {
        resetDataset(name, meta) {
            engine.deleteDataset(name);
            engine.createDataset(name, hints(meta));
        },
        updateMeta() {
            // Map fields only change how later events are flattened, which ingest does.
        },
        deleteDataset(name) {
            engine.deleteDataset(name);
        },
        appendBatch(name, batch) {
            engine.ingestBatch(name, batch);
        },
        appendColumns(name, chunk) {
            engine.appendColumns(name, chunk);
        },
        beginLoad(name, meta, rowsHint) {
            return engine.loadDataset(name, { hints: hints(meta), rows: rowsHint });
        },
        rowCount(name) {
            return engine.stats(name)?.rows ?? 0;
        },
        fields(name) {
            const extra = SAMPLE_FIELD_META.get(name);
            return engine.fields(name).map((f) => {
                const m = extra?.get(f.name);
                return { name: f.name, type: f.type, description: m?.description ?? '', unit: m?.unit ?? '', hidden: false };
            });
        },
        queryApl(apl, req, signal) {
            return run({ kind: 'apl', apl, request: req }, signal);
        },
        queryLegacy(dataset, bodyJson, o, signal) {
            return run({ kind: 'legacy', dataset, bodyJson, now: o.now, missing: o.missing }, signal);
        },
        queriesStarted() {
            return pool?.started ?? Promise.resolve();
        },
        startQueryWorkers() {
            pool?.startWorkers();
        },
        async warmUp() {
            const warm = { format: 'tabular' as const, now: BigInt(Date.now()) * 1_000_000n, includeCursor: false, includeCursorField: false };
            startTrace('warm-up');
            await inProcess({ kind: 'apl', apl: 'print warm = 1', request: warm }).catch(() => undefined);
            startTrace('warmed up');
        },
        queryStats() {
            return pool?.stats();
        },
        memoryBytes(name) {
            return engine.memoryBytes(name);
        },
        async close() {
            await pool?.close();
        },
    };
}
