/**
 * The embedded APL engine: in-memory columnar datasets plus the reference evaluator.
 *
 * ```ts
 * const engine = createEngine();
 * engine.ingest('logs', [{ _time: '2024-01-01T00:00:00Z', status: 200 }]);
 * const result = await engine.query("['logs'] | summarize count() by status", { startTime: 'now-1d' });
 * ```
 *
 * - `query` returns the tabular shape (API.md §4.3), `queryLegacyFormat` the APL-in-legacy shape
 *   (§4.4). Both carry the full status (§4.5) and support cursor paging (§10).
 * - Queries read a snapshot: the row count of every dataset is fixed when the query starts.
 * - APL errors throw `AplQueryError` (line/column, 1-based).
 * - The legacy query endpoint (`queryLegacy`) runs through an executor registered with
 *   `setLegacyExecutor` (the APL → legacy compiler lives in language/legacy/).
 */
import { type ColumnarChunk, DatasetStore, type DatasetSchemaHints, type FlatBatch, type IngestCounts, type IngestOptions, type Snapshot } from './tables.js';
import type * as ast from '../generated/ast.js';
import { isTimeSort, parseCached, runQuery, type DataAccess, type ExternalDataReader, type QueryRun, type RunOptions } from './query.js';
import { fieldsUpTo, neededFields } from './needed-columns.js';
import { countedSources } from './weighted-counts.js';
import { ColdBlockCache, blockKey, sourceZone, mergeColdFields, pickBlocks, rangeHoldsBlock, showsWholeBlock, type ColdAccess, type ColdBlock, type ColdBlockReader, type ColdDataset } from './cold-blocks.js';
import { TopBound, skippedPart, sourcesLargestFirst, topByField } from './top-by-range.js';
export type { ColdBlock, ColdBlockReader, ColdDataset, ColdField, ColdKeep } from './cold-blocks.js';
import { SummaryFold, combinePartialStats, planPartition, topWalksFewZones, type PartialResult, type PartitionPlan, type PartitionSpec } from './parallel.js';
export { deserializePartial, partialIsUnsupported, serializePartial, type PartialResult, type PartitionPlan, type PartitionSpec } from './parallel.js';
import { renderLegacy, renderTabular, type AplLegacyResult, type FieldMeta, type RenderContext, type TabularResult } from './result.js';
import { AplQueryError } from './errors.js';
import { isResourceError, type QueryInterruption, type QueryLimits } from './budget.js';
import type { EngineDelta, EngineSyncState } from './replica.js';
import { parseTimeExpression } from '../values.js';
import { SAMPLE_DATASETS } from '../samples/sample-datasets.js';
import { ConstColumn, NumColumn, type ScalarType } from './columns.js';
import type { Frame } from './frame.js';

export { AplQueryError } from './errors.js';
export type { TabularResult, AplLegacyResult, QueryStatus, TabularTable, TabularField, LegacyMatch, LegacyEntryGroup, LegacyInterval } from './result.js';
export type { IngestCounts, IngestOptions, DatasetSchemaHints, IngestFailure, FlatBatch, ColumnarChunk, ColumnChunk } from './tables.js';
export type { QueryRun, ExternalDataReader } from './query.js';
export { DEFAULT_QUERY_LIMITS, isResourceError, type QueryLimits, type QueryInterruption } from './budget.js';
export { newSyncState, type EngineDelta, type EngineSyncState } from './replica.js';
export { ExternalDataError } from './query.js';
export { formatRowId, parseCursor, batchIdHex } from '../api/row-id.js';

export interface EngineOptions {
    /** Server maximum rows per result (default 50000). */
    maxLimit?: number;
    /** Rows per result when neither the query nor the request limits them (default 1000). */
    defaultLimit?: number;
    /**
     * Extra event fields tried for `_time` when an event has none (e.g. `['timestamp', 'time']`).
     * Default none: like Axiom, only `_time` (or the request's `timestamp-field`) is used.
     */
    timestampFallbacks?: string[];
    /** Clock (default `Date.now`). */
    clock?: () => number;
    /** Apply the field types of the built-in sample datasets when a dataset has a sample name (default true). */
    sampleSchemas?: boolean;
    /**
     * Reads `externaldata` sources. Default none: `externaldata` is refused, since the engine does no
     * I/O of its own (the service must never read its own files for a query).
     */
    externalData?: ExternalDataReader;
    /**
     * Bounds of every intermediate result of a query (rows, and cells = rows × columns); past them the
     * query fails with an AplQueryError of kind `limit`. Default DEFAULT_QUERY_LIMITS (10M rows, 100M cells).
     */
    limits?: Partial<QueryLimits>;
    /**
     * Keep datasets on SharedArrayBuffer so replicas in query worker threads read them without a
     * copy (`exportChanges` / `applyChanges`, eval/replica.ts). Default false.
     */
    sharedMemory?: boolean;
    /** Rows per block of a dataset scan (block pruning and `blocksExamined`, eval/zone-maps.ts). Default 65,536. */
    zoneRows?: number;
    /** Skip the blocks a query's leading `where` terms rule out (default true). */
    pruneBlocks?: boolean;
    /**
     * Reads the blocks of datasets that keep events on disk (`DatasetLoader.setCold`,
     * cold-blocks.ts). Without one, such a dataset cannot be queried.
     */
    coldReader?: ColdBlockReader;
    /** Bytes of blocks read from disk kept in memory (the LRU of cold-blocks.ts), default 256 MiB. */
    coldCacheBytes?: number;
}

export type TimeInput = string | Date | bigint | number | null | undefined;

export interface QueryOptions {
    /** RFC 3339, `now`, `now-1h`, a Date, ns (bigint) or ms (number). Filters `_time >= startTime`. */
    startTime?: TimeInput;
    /** Exclusive upper bound of `_time`. */
    endTime?: TimeInput;
    limit?: number;
    cursor?: string;
    includeCursor?: boolean;
    /**
     * Add a `_cursor` column (each row's cursor, as accepted by `cursor`) to the tabular tables
     * whose rows are dataset events. No effect on `queryLegacyFormat`: matches carry `_rowId`.
     */
    includeCursorField?: boolean;
    /** The query's `now()` (default: the engine clock). */
    now?: TimeInput;
    /** Values for `declare query_parameters` and free names; a `let` in the query wins. */
    variables?: Record<string, unknown>;
    /** Seed for `sample` (default 1). */
    seed?: number;
    /**
     * Asked at the evaluator's check points: a reason to stop (the query's deadline passed, its
     * client went away) ends the query with an AplQueryError of that kind.
     */
    interrupt?: () => QueryInterruption | undefined;
    /** A part of a parallel run (`planParallel`): `run` leaves its result in `run.partial`. */
    partial?: { plan: PartitionPlan; part: PartitionSpec };
    /** The merge of a parallel run: the parts' results (`run.partial` of each part). */
    merge?: { plan: PartitionPlan; parts: PartialResult[] };
}

export interface DatasetStats {
    name: string;
    rows: number;
    fields: number;
    bytes: number;
    minTime?: string;
    maxTime?: string;
}

/**
 * Runs parts of a parallel plan off the engine's thread (server/query/parallel-runner.ts: query
 * worker threads over the engine's shared columns). With one set (`setParallelRunner`), `query`
 * and `queryLegacyFormat` split a plannable query over a large dataset: the runner's parts and one
 * more on the engine's own thread meanwhile, then their merge.
 */
export interface ParallelRunner {
    /** Scans of fewer rows run as one job. */
    minRows: number;
    /** How many parts it can start now (its idle workers). */
    capacity(): number;
    /** Starts the parts at once, over the same rows; undefined when it cannot now. */
    runParts(apl: string, plan: PartitionPlan, parts: PartitionSpec[], times: { now: bigint; startTime?: bigint; endTime?: bigint; variables?: Record<string, unknown> }): Promise<PartialResult[]> | undefined;
}

/** Runs a legacy query (`POST /v1/datasets/{id}/query`) against the engine. */
export type LegacyExecutor = (engine: Engine, dataset: string, query: unknown, options?: QueryOptions) => Promise<unknown>;

export interface Engine {
    ingest(dataset: string, events: Iterable<Record<string, unknown>>, options?: IngestOptions): IngestCounts;
    /** Pre-normalised records with `_time`, `_sysTime` and `_rowId` given (row ids kept exactly). */
    ingestFlat(dataset: string, records: Iterable<Record<string, unknown>>): IngestCounts;
    /**
     * One batch of flat, normalised events (the service's ingest batch): row r's id is
     * `formatRowId(times[r], batchIdHex(batchSeq), r)`, stored as parts and formatted on output.
     */
    ingestBatch(dataset: string, batch: FlatBatch): IngestCounts;
    /** Rows given column by column (the durable store's blocks). Returns the rows added. */
    appendColumns(dataset: string, chunk: ColumnarChunk): number;
    /**
     * Builds a dataset's new contents off to the side: queries keep seeing the current copy (or
     * none) until `commit()` replaces it in one step. Appends may be spread over many ticks.
     */
    loadDataset(name: string, options?: { hints?: DatasetSchemaHints; rows?: number }): DatasetLoader;
    query(apl: string, options?: QueryOptions): Promise<TabularResult>;
    queryLegacyFormat(apl: string, options?: QueryOptions): Promise<AplLegacyResult>;
    /**
     * How the query could run in parallel over parts of its dataset scan (language/eval/parallel.ts),
     * or undefined when it runs as one job (also when it does not parse, or its dataset has fewer
     * than `minRows` rows: splitting a small scan costs more than it saves).
     */
    planParallel(apl: string, minRows?: number, range?: { startTime?: bigint; endTime?: bigint }): PartitionPlan | undefined;
    /** Synchronous core used by both: the raw frames and statistics. */
    run(apl: string, options?: QueryOptions): { run: QueryRun; ctx: RenderContext };
    queryLegacy(dataset: string, query: unknown, options?: QueryOptions): Promise<unknown>;
    setLegacyExecutor(executor: LegacyExecutor): void;
    /** Where `query` and `queryLegacyFormat` run the parts of a parallel plan (none: every query runs on this thread). */
    setParallelRunner(runner: ParallelRunner | undefined): void;
    createDataset(name: string, hints?: DatasetSchemaHints): void;
    hasDataset(name: string): boolean;
    datasets(): string[];
    fields(dataset: string): { name: string; type: string }[];
    deleteDataset(name: string): boolean;
    stats(dataset: string): DatasetStats | undefined;
    /** A consistent read view of a dataset (row count fixed now). */
    snapshot(dataset: string): Snapshot | undefined;
    /**
     * What a replica of this engine (in a query worker) needs to catch up, given what it holds
     * (`state`, updated in place). Needs `sharedMemory`.
     */
    exportChanges(state: EngineSyncState): EngineDelta;
    /** Makes this engine a replica: applies a delta from another engine's `exportChanges`. */
    applyChanges(delta: EngineDelta): void;
    /** A dataset's in-memory size (its blocks on disk not counted); cheap: O(fields). */
    memoryBytes(dataset: string): number;
    /** The blocks read from disk and held in memory now, their bound, and the reads so far. */
    coldCacheStats(): { bytes: number; blocks: number; capacity: number; reads: number };
}

/** A dataset being (re)built; see `Engine.loadDataset`. */
export interface DatasetLoader {
    ingestBatch(batch: FlatBatch): IngestCounts;
    appendColumns(chunk: ColumnarChunk): number;
    readonly rows: number;
    /**
     * The events of the dataset that stay on disk (read per query through the engine's
     * `coldReader`); the rows appended to the loader are the rest. Default none.
     */
    setCold(cold: ColdDataset | undefined): void;
    /** Makes the new contents the dataset (replacing any current copy). */
    commit(): void;
}

const NS_PER_MS = 1_000_000n;

/** Parses a request time: RFC 3339, `now`, `now-1h`/`now+30m`/`now-1d`/`now-1w`, Date, ns bigint, ms number. */
export function parseTimeInput(v: TimeInput, nowNs: bigint, what = 'time'): bigint | undefined {
    if (v === null || v === undefined || v === '') return undefined;
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') return BigInt(Math.round(v)) * NS_PER_MS;
    if (v instanceof Date) return BigInt(v.getTime()) * NS_PER_MS;
    const parsed = parseTimeExpression(v, nowNs);
    if (!parsed.ok) throw new AplQueryError(`invalid ${what} '${v}': ${parsed.problem}`, 1, 1, 'semantic');
    return parsed.ns;
}

/** Default bound of the blocks read from disk kept in memory. */
export const DEFAULT_COLD_CACHE_BYTES = 256 * 1024 * 1024;

export function createEngine(options: EngineOptions = {}): Engine {
    const stores = new Map<string, DatasetStore>();
    /** Datasets with events on disk: their blocks, and a version that replicas follow. */
    const colds = new Map<string, { cold: ColdDataset; version: number }>();
    let coldVersions = 0;
    const memory = { shared: options.sharedMemory === true };
    const clock = options.clock ?? Date.now;
    const maxLimit = options.maxLimit ?? 50_000;
    const defaultLimit = options.defaultLimit ?? 1000;
    let legacyExecutor: LegacyExecutor | undefined;
    let parallelRunner: ParallelRunner | undefined;
    const sampleHints = new Map<string, DatasetSchemaHints>();
    if (options.sampleSchemas !== false) {
        for (const d of SAMPLE_DATASETS) {
            const fieldTypes: Record<string, ScalarType> = {};
            const mapFields: string[] = [];
            for (const f of d.fields) {
                if (f.name === '_time' || f.name === '_sysTime') continue;
                if (f.map) mapFields.push(f.name);
                else if (f.type === 'timespan' || f.type === 'datetime') fieldTypes[f.name] = f.type;
            }
            sampleHints.set(d.name, { fieldTypes, mapFields });
        }
    }

    const coldCache = new ColdBlockCache(options.coldCacheBytes ?? DEFAULT_COLD_CACHE_BYTES, options.coldReader, name => sampleHints.get(name));
    const setCold = (name: string, cold: ColdDataset | undefined): void => {
        coldCache.forget(name, cold && new Set(cold.blocks.map(b => blockKey(cold, b))));
        if (cold && cold.blocks.length > 0) colds.set(name, { cold, version: ++coldVersions });
        else colds.delete(name);
    };
    /** `reads`: the fields the query reads (needed-columns.ts), undefined for all. */
    const coldAccess = (name: string, reads: ReadonlySet<string> | undefined): ColdAccess | undefined => {
        const c = colds.get(name)?.cold;
        return c && { blocks: c.blocks, fields: fieldsOf(name), load: block => coldCache.load(name, c, block, reads), loadRows: (block, rows) => coldCache.loadRows(name, c, block, rows, reads), rowsUnread: block => coldCache.rowsUnread(name, c, block), loadCounted: block => coldCache.loadCounted(name, c, block, reads), valueCounts: block => coldCache.valueCounts(name, c, block, reads), capacity: coldCache.capacity };
    };
    /** A dataset's fields: its in-memory rows' and its blocks'. */
    const fieldsOf = (name: string) => {
        const s = stores.get(name);
        return s ? mergeColdFields(s.fieldList(), colds.get(name)?.cold) : [];
    };

    const storeFor = (name: string): DatasetStore => {
        let s = stores.get(name);
        if (!s) {
            s = new DatasetStore(name, sampleHints.get(name), memory);
            stores.set(name, s);
        }
        return s;
    };

    const fieldsMeta = (names: string[]): Record<string, FieldMeta[]> => {
        const out: Record<string, FieldMeta[]> = {};
        for (const n of names) {
            if (stores.has(n)) out[n] = fieldsOf(n).map(f => ({ name: f.name, type: f.axiomType, unit: '', hidden: false, description: '' }));
        }
        return out;
    };

    const engine: Engine = {
        ingest(dataset, events, opts = {}) {
            const now = BigInt(clock()) * NS_PER_MS;
            return storeFor(dataset).ingest(events, { now, timestampFallbacks: options.timestampFallbacks, ...opts });
        },
        ingestFlat(dataset, records) {
            return storeFor(dataset).ingestFlat(records);
        },
        ingestBatch(dataset, batch) {
            return storeFor(dataset).ingestBatch(batch);
        },
        appendColumns(dataset, chunk) {
            return storeFor(dataset).appendColumns(chunk);
        },
        loadDataset(name, o = {}) {
            const store = new DatasetStore(name, { ...sampleHints.get(name), ...o.hints }, memory);
            if (o.rows !== undefined && o.rows > 0) store.reserve(o.rows);
            let done = false;
            let cold: ColdDataset | undefined;
            const check = () => {
                if (done) throw new Error(`dataset ${name}: load already committed`);
            };
            return {
                ingestBatch(batch) {
                    check();
                    return store.ingestBatch(batch);
                },
                appendColumns(chunk) {
                    check();
                    return store.appendColumns(chunk);
                },
                get rows() {
                    return store.rows;
                },
                setCold(c) {
                    check();
                    cold = c;
                },
                commit() {
                    check();
                    done = true;
                    stores.set(name, store);
                    setCold(name, cold);
                },
            };
        },
        run(apl, opts = {}) {
            const started = performance.now();
            coldCache.startQuery();
            const nowNs = parseTimeInput(opts.now, BigInt(clock()) * NS_PER_MS, 'now') ?? BigInt(clock()) * NS_PER_MS;
            const startTime = parseTimeInput(opts.startTime, nowNs, 'startTime');
            const endTime = parseTimeInput(opts.endTime, nowNs, 'endTime');
            // Snapshots are taken once per dataset per query.
            const snaps = new Map<string, Snapshot | undefined>();
            // Blocks read from disk decode only the fields the query reads.
            const parsed = colds.size > 0 ? parseCached(apl) : undefined;
            const reads = parsed && parsed.problems.length === 0 ? neededFields(parsed.model) : undefined;
            const data = {
                snapshot(name: string) {
                    if (!snaps.has(name)) snaps.set(name, stores.get(name)?.snapshot());
                    return snaps.get(name);
                },
                datasetNames: () => [...stores.keys()],
                cold: (name: string) => coldAccess(name, reads),
            };
            const runOpts: RunOptions = {
                now: nowNs,
                startTime,
                endTime,
                cursor: opts.cursor || undefined,
                includeCursor: opts.includeCursor,
                limit: opts.limit,
                maxLimit,
                defaultLimit,
                variables: opts.variables,
                seed: opts.seed,
                externalData: options.externalData,
                limits: options.limits,
                interrupt: opts.interrupt,
                zoneRows: options.zoneRows,
                pruneBlocks: options.pruneBlocks,
                partial: opts.partial,
                merge: opts.merge,
            };
            let run: QueryRun;
            try {
                const share = opts.partial;
                if (share && colds.has(share.plan.dataset)) run = runColdShare(apl, data, runOpts, share);
                else {
                    if (colds.size > 0 && !opts.partial && !opts.merge) {
                        const merge = runColdParts(apl, data, runOpts, reads);
                        if (merge) runOpts.merge = merge;
                    }
                    run = runQuery(apl, data, runOpts);
                }
            } catch (e) {
                // What the guards did not foresee still fails this query alone, as a limit.
                if (isResourceError(e)) throw new AplQueryError(`the query needs more memory or stack than one query may use (${e.message})`, 1, 1, 'limit');
                throw e;
            }
            const ctx: RenderContext = {
                startTime,
                endTime,
                now: nowNs,
                elapsedMicros: (performance.now() - started) * 1000,
                fieldsMeta: fieldsMeta(run.stats.datasets),
                includeCursorField: opts.includeCursorField === true,
            };
            return { run, ctx };
        },
        planParallel(apl, minRows = 0, range = {}) {
            const { model, problems } = parseCached(apl);
            const plan = problems.length > 0 ? undefined : planPartition(model, name => stores.has(name), name => (colds.has(name) ? 'blocks' : 'threads'));
            if (!plan) return undefined;
            const store = stores.get(plan.dataset)!;
            const cold = colds.get(plan.dataset)?.cold;
            if (cold) {
                // Blocks on disk: each part runs its share of the blocks (runColdShare). A `top` runs
                // in one job, which reads its blocks largest first and stops early (top-by-range.ts).
                if (plan.kind === 'top') return undefined;
                const blocks = pickBlocks(cold.blocks, range.startTime, range.endTime, []);
                const rows = blocks.reduce((sum, b) => sum + b.rows, store.rows);
                return blocks.length >= 2 && rows >= minRows ? plan : undefined;
            }
            if (store.rows < minRows) return undefined;
            // A small top over a numeric field reads a few zones in one run (parallel.ts topWalksFewZones).
            if (plan.kind === 'top' && topWalksFewZones(model, plan, name => store.snapshot().column(name), store.rows)) return undefined;
            return plan;
        },
        async query(apl, opts) {
            const started = performance.now();
            const { run, ctx } = engine.run(apl, await withParallelParts(apl, opts));
            const result = renderTabular(run, ctx);
            result.status.elapsedTime = Math.max(1, Math.round((performance.now() - started) * 1000));
            return result;
        },
        async queryLegacyFormat(apl, opts) {
            const started = performance.now();
            const { run, ctx } = engine.run(apl, await withParallelParts(apl, opts));
            const result = renderLegacy(run, ctx);
            result.status.elapsedTime = Math.max(1, Math.round((performance.now() - started) * 1000));
            return result;
        },
        async queryLegacy(dataset, query, opts) {
            if (!legacyExecutor) throw new Error('legacy queries are not available: no legacy executor is registered (setLegacyExecutor)');
            return legacyExecutor(engine, dataset, query, opts);
        },
        setLegacyExecutor(executor) {
            legacyExecutor = executor;
        },
        setParallelRunner(runner) {
            parallelRunner = runner;
        },
        createDataset(name, hints) {
            if (stores.has(name)) return;
            const merged: DatasetSchemaHints = { ...sampleHints.get(name), ...hints };
            stores.set(name, new DatasetStore(name, merged, memory));
        },
        hasDataset: name => stores.has(name),
        datasets: () => [...stores.keys()].sort(),
        fields(dataset) {
            return fieldsOf(dataset).map(f => ({ name: f.name, type: f.axiomType }));
        },
        deleteDataset(name) {
            setCold(name, undefined);
            return stores.delete(name);
        },
        stats(dataset) {
            const s = stores.get(dataset)?.stats();
            const c = colds.get(dataset)?.cold;
            return s && c ? withCold(s, c, fieldsOf(dataset).length) : s;
        },
        memoryBytes: name => stores.get(name)?.byteSize() ?? 0,
        coldCacheStats: () => ({ bytes: coldCache.bytes, blocks: coldCache.blocks, capacity: coldCache.capacity, reads: coldCache.reads }),
        snapshot(dataset) {
            return stores.get(dataset)?.snapshot();
        },
        exportChanges(state) {
            const delta: EngineDelta = { datasets: [], deleted: [], cold: [] };
            for (const name of state.datasets.keys()) if (!stores.has(name)) delta.deleted.push(name);
            for (const name of delta.deleted) state.datasets.delete(name);
            for (const name of state.cold.keys()) {
                if (!colds.has(name)) {
                    delta.cold!.push({ name, cold: null });
                    state.cold.delete(name);
                }
            }
            for (const [name, c] of colds) {
                if (state.cold.get(name) === c.version) continue;
                delta.cold!.push({ name, cold: c.cold });
                state.cold.set(name, c.version);
            }
            for (const [name, store] of stores) {
                const { delta: d, state: st } = store.exportDelta(state.datasets.get(name));
                state.datasets.set(name, st);
                delta.datasets.push(d);
            }
            return delta;
        },
        applyChanges(delta) {
            for (const name of delta.deleted) stores.delete(name);
            for (const d of delta.datasets) {
                let store = stores.get(d.name);
                if (d.full || store === undefined) {
                    store = new DatasetStore(d.name);
                    stores.set(d.name, store);
                }
                store.applyDelta(d);
            }
            for (const c of delta.cold ?? []) setCold(c.name, c.cold ?? undefined);
        },
    };
    return engine;

    /**
     * The options to run `apl` with: with the parts' results to merge when the parallel runner
     * takes the query (a plannable query over a large dataset, no cursor), its part 0 run here
     * meanwhile; else as given. Times are fixed first, so every part reads the same range.
     */
    async function withParallelParts(apl: string, opts: QueryOptions = {}): Promise<QueryOptions> {
        const runner = parallelRunner;
        if (!runner || opts.partial || opts.merge || opts.cursor) return opts;
        const workers = runner.capacity();
        if (workers < 1) return opts;
        const plan = engine.planParallel(apl, runner.minRows);
        // The runner's workers share this engine's columns, not its blocks on disk.
        if (!plan || colds.has(plan.dataset)) return opts;
        const now = parseTimeInput(opts.now, BigInt(clock()) * NS_PER_MS, 'now') ?? BigInt(clock()) * NS_PER_MS;
        const fixed: QueryOptions = { ...opts, now, startTime: parseTimeInput(opts.startTime, now, 'startTime'), endTime: parseTimeInput(opts.endTime, now, 'endTime') };
        const count = workers + 1;
        const specs = Array.from({ length: workers }, (_, i) => ({ index: i + 1, count }));
        const pending = runner.runParts(apl, plan, specs, { now, startTime: fixed.startTime as bigint | undefined, endTime: fixed.endTime as bigint | undefined, variables: opts.variables });
        if (!pending) return opts;
        // This thread's error (the query's own) wins over the parts'.
        pending.catch(() => undefined);
        const mine = engine.run(apl, { ...fixed, partial: { plan, part: { index: 0, count } } }).run.partial;
        let others: PartialResult[];
        try {
            others = await pending;
        } catch {
            return fixed; // a part failed (its worker died, say): the query runs as one job
        }
        const parts = [mine ?? { kind: 'unsupported' as const }, ...others];
        return parts.some(p => p.kind === 'unsupported') ? fixed : { ...fixed, merge: { plan, parts } };
    }

    /**
     * A mergeable query (parallel.ts) over a dataset with blocks on disk: one part per source (each
     * block the query needs, then the in-memory rows), run one after the other, so that one block at
     * a time is in memory; their merge is the query's answer. Undefined: it runs as one scan.
     */
    function runColdParts(apl: string, data: DataAccess, runOpts: RunOptions, reads: ReadonlySet<string> | undefined): RunOptions['merge'] {
        const { model, problems } = parseCached(apl);
        // The parts run here, in this thread: dcount and percentile merge too (merge-states.ts).
        const plan = problems.length > 0 ? undefined : planPartition(model, name => stores.has(name), 'blocks');
        if (!plan || !colds.has(plan.dataset)) return undefined;
        // `sort by _time | take N` streams the sources newest first instead (query.ts streamCold).
        const ops = ((model.statements[0] as ast.QueryStatement).body as ast.Pipeline).operators;
        const sort = ops[plan.opIndex - 1];
        if (plan.kind === 'top' && sort?.$type === 'SortOperator' && isTimeSort(sort as ast.SortOperator)) return undefined;
        // A summarize's parts are merged as they come, so that one part's states at a time are held
        // beside the merged ones; the states of dcount and percentile stay exact within half of the
        // blocks' share of memory (the other half holds the block being read), sketches past it.
        let fold: SummaryFold | undefined;
        const runPart = (over: DataAccess, k: number): { p: PartialResult; sources: number; blocks?: readonly ColdBlock[] } | undefined => {
            const { p, run } = runColdSource(apl, over, runOpts, plan, k);
            return takePart(p, run);
        };
        const takePart = (part: PartialResult, run: QueryRun): { p: PartialResult; sources: number; blocks?: readonly ColdBlock[] } | undefined => {
            if (part.kind === 'unsupported') return undefined;
            let p: PartialResult = part;
            if (p.kind === 'summarize') {
                fold ??= new SummaryFold(p, coldCache.capacity / 2);
                fold.add(p);
                p = { ...p, groups: [] };
            }
            return { p, sources: run.coldSources ?? 1, blocks: run.coldBlocks };
        };
        /** The parts of every source (the first run tells how many), or of those `only` names into `into`. */
        const runParts = (over: DataAccess, only?: ReadonlySet<number>, into: PartialResult[] = []): PartialResult[] | undefined => {
            if (only) {
                for (const k of only) {
                    const r = runPart(over, k);
                    if (!r) return undefined;
                    into[k] = r.p;
                }
                return into;
            }
            // In source order: part k is source k's, unless sources ran together over their value counts (a count or summarize, which needs no order).
            const all = eachColdPart(apl, over, runOpts, plan, 0, 1, (p, run) => {
                const r = takePart(p, run);
                if (r) into.push(r.p);
                return r !== undefined;
            });
            return all ? into : undefined;
        };
        if (plan.kind === 'top') {
            const parts = topByKeysFirst(apl, ops[plan.opIndex], plan, data, runOpts, reads, runParts, runPart);
            if (parts) return { plan, parts };
        }
        const parts = runParts(data);
        return parts && { plan, parts, fold };
    }

    /**
     * Source k of a dataset with blocks on disk (a block, or the rows in memory after them) as a
     * part of `plan`, its zone numbers made distinct across sources.
     */
    function runColdSource(apl: string, over: DataAccess, runOpts: RunOptions, plan: PartitionPlan, k: number): { p: PartialResult; run: QueryRun } {
        const run = runQuery(apl, over, { ...runOpts, partial: { plan, part: { index: 0, count: 1 }, coldSource: k } });
        const p = run.partial ?? { kind: 'unsupported' };
        if (p.kind === 'unsupported') return { p, run };
        // Zone numbers are per source: make them distinct, so the merge counts every block read (and skipped).
        p.stats.blocks = p.stats.blocks.map(b => sourceZone(k, b));
        if (p.stats.skipped) p.stats.skipped = p.stats.skipped.map(b => sourceZone(k, b));
        return { p, run };
    }

    /**
     * Sources `first`, `first + step`, … of a dataset with blocks on disk as parts of `plan`, each
     * given to `take` (false: stop; the plan does not hold). After the first source, which tells how
     * many there are, the blocks that can run over their value counts run as one part
     * (weighted-counts.ts countedSources), and the rest one by one. False when `take` stopped.
     */
    function eachColdPart(apl: string, data: DataAccess, runOpts: RunOptions, plan: PartitionPlan, first: number, step: number, take: (p: PartialResult, run: QueryRun) => boolean): boolean {
        let together: ReadonlySet<number> | undefined;
        for (let k = first, sources = k + 1; k < sources; k += step) {
            if (together?.has(k)) continue;
            const { p, run } = runColdSource(apl, data, runOpts, plan, k);
            if (!take(p, run)) return false;
            sources = run.coldSources ?? 1;
            const cold = k === first && run.coldBlocks ? data.cold?.(plan.dataset) : undefined;
            if (!cold) continue;
            const rest: number[] = [];
            for (let j = first + step; j < sources; j += step) rest.push(j);
            const ops = ((parseCached(apl).model.statements[0] as ast.QueryStatement).body as ast.Pipeline).operators;
            const counted = countedSources(plan, ops, cold, run.coldBlocks!, rest, runOpts);
            if (!counted) continue;
            const run2 = runQuery(apl, data, { ...runOpts, partial: { plan, part: { index: 0, count: 1 }, counted } });
            if (!take(run2.partial ?? { kind: 'unsupported' }, run2)) return false;
            together = new Set(counted.taken.map(t => t.source));
        }
        return true;
    }

    /**
     * A part of a parallel run over a dataset with blocks on disk (the service's query workers,
     * server/query/parallel-run.ts): the sources k ≡ part.index (mod part.count), run one after
     * the other as runColdParts runs them all, as one part. Sources are dealt round-robin, so each
     * worker reads (and caches) the same blocks on every run while the blocks stay the same.
     */
    function runColdShare(apl: string, data: DataAccess, runOpts: RunOptions, share: { plan: PartitionPlan; part: PartitionSpec }): QueryRun {
        const { plan, part } = share;
        const parts: Exclude<PartialResult, { kind: 'unsupported' }>[] = [];
        let fold: SummaryFold | undefined;
        let last: QueryRun | undefined;
        // A part past the last source runs an empty one (sources.ts scanCold).
        const whole = eachColdPart(apl, data, runOpts, plan, part.index, part.count, (p, run) => {
            last = run;
            if (p.kind === 'unsupported') return false;
            // A summarize's groups go into the fold at once; only its statistics stay. The merge keeps
            // exact states within half of a worker's blocks' share of memory, as runColdParts does, and
            // each part within its own share of that: past it the part makes its sketches itself, in
            // parallel, and sends them rather than numbers the merge would have to sketch alone.
            if (p.kind === 'summarize') (fold ??= new SummaryFold(p, coldCache.capacity / 2 / part.count)).add(p);
            parts.push(p.kind === 'summarize' ? { ...p, groups: [] } : p);
            return true;
        });
        if (!whole) return { ...last!, partial: { kind: 'unsupported' } };
        const stats = combinePartialStats(parts);
        const first = parts[0];
        const partial: PartialResult =
            first.kind === 'count'
                ? { kind: 'count', count: parts.reduce((n, p) => n + (p.kind === 'count' ? p.count : 0), 0), stats }
                : first.kind === 'summarize'
                  ? fold!.asPart(stats, coldCache.capacity / 2)
                  : { kind: 'unsupported' }; // a `top` runs in one job (planParallel)
        return { ...last!, partial };
    }

    /**
     * A `top` (or `sort | take`) over blocks on disk whose rows have more fields than its `where`s
     * and keys: every source is read for those fields only, and the merge of those narrow rows (the
     * query up to its top, each row tagged with its source) names the sources that hold the
     * winners; only those are read again whole. The sources left out hold no winner, so the merge
     * of the rest picks the same rows in the same order. Undefined: run every part whole.
     */
    function topByKeysFirst(
        apl: string,
        top: ast.TabularOperator,
        plan: PartitionPlan,
        data: DataAccess,
        runOpts: RunOptions,
        reads: ReadonlySet<string> | undefined,
        runParts: (over: DataAccess, only?: ReadonlySet<number>, into?: PartialResult[]) => PartialResult[] | undefined,
        runPart: (over: DataAccess, k: number) => { p: PartialResult; sources: number; blocks?: readonly ColdBlock[] } | undefined,
    ): PartialResult[] | undefined {
        const keys = fieldsUpTo(parseCached(apl).model, plan.opIndex);
        const end = top.$cstNode?.end;
        if (!keys || end === undefined || (reads && [...reads].every(f => keys.has(f))) || fieldsOf(plan.dataset).some(f => f.name === SOURCE_TAG || f.name === ROW_TAG)) return undefined;
        const narrow: DataAccess = { ...data, cold: name => coldAccess(name, keys) };
        const byField = plan.opIndex === 0 ? topByField(top) : undefined;
        const cold = colds.get(plan.dataset)?.cold;
        // A block left unread must have every row in the answer's range and visible: its rows are then all matched.
        const whole = (b: ColdBlock): boolean => cold !== undefined && showsWholeBlock(cold.keep, b) && rangeHoldsBlock(b, runOpts);
        const first = byField ? largestFirst(narrow, byField, plan.dataset, runPart, whole) : runParts(narrow);
        if (!first) return undefined;
        const tagged = first.map((p, k) => (p.kind === 'top' && p.frame ? { ...p, frame: tagSource(p.frame, k, p.rows) } : p));
        const upToTop = runQuery(apl.slice(0, end), narrow, { ...runOpts, limit: undefined, merge: { plan, parts: tagged } });
        const tag = upToTop.tables[0]?.find(SOURCE_TAG);
        const rowTag = upToTop.tables[0]?.find(ROW_TAG);
        if (!tag || !rowTag) return undefined;
        const winners = new Set<number>();
        /** Per winning source, its rows in the answer. */
        const answerRows = new Map<number, number[]>();
        for (let i = 0; i < upToTop.tables[0].length; i++) {
            const k = tag.data.get(tag.sel ? tag.sel[i] : i) as number;
            winners.add(k);
            let rows = answerRows.get(k);
            if (rows === undefined) answerRows.set(k, (rows = []));
            rows.push(rowTag.data.get(rowTag.sel ? rowTag.sel[i] : i) as number);
        }
        // No row at all: the merge still needs one source's (empty) rows for the fields; the rows in memory (the last source) are the cheapest.
        if (winners.size === 0) winners.add(first.length - 1);
        // The others keep their statistics (what they read) and give no rows.
        const parts = first.map(p => (p.kind === 'top' ? { ...p, rows: [], frame: undefined } : p));
        // A winning block is read again for its rows in the answer alone, where the reader can read
        // rows without the rest of the block (ColdAccess.loadRows): the same query over them picks
        // them all, in the same order (they are in time order, as in the block).
        const picked = new Map<string, Uint32Array>();
        for (const [k, rows] of answerRows) {
            const p = first[k];
            if (p.kind === 'top' && p.source) picked.set(p.source, Uint32Array.from(rows).sort());
        }
        const wide: DataAccess = {
            ...data,
            cold: name => {
                const a = data.cold?.(name);
                if (!a || name !== plan.dataset) return a;
                return { ...a, load: b => (picked.has(b.id) ? a.loadRows(b, picked.get(b.id)!) : undefined) ?? a.load(b) };
            },
        };
        const again = runParts(wide, winners, parts);
        // Their statistics stay those of their narrow reads, which scanned every row the query covers.
        if (again) for (const k of winners) if (first[k].kind === 'top' && again[k]?.kind === 'top') again[k] = { ...again[k], stats: first[k].stats };
        return again;
    }
}

/**
 * The narrow parts of a `top N by f` (top-by-range.ts): the first source tells the blocks; then the
 * rows in memory and the blocks by their largest value of f, largest first, each left unread once
 * N values above its largest are found.
 */
function largestFirst(
    narrow: DataAccess,
    key: { field: string; count: number },
    dataset: string,
    runPart: (over: DataAccess, k: number) => { p: PartialResult; sources: number; blocks?: readonly ColdBlock[] } | undefined,
    whole: (block: ColdBlock) => boolean,
): PartialResult[] | undefined {
    const r0 = runPart(narrow, 0);
    if (!r0) return undefined;
    const parts: PartialResult[] = [r0.p];
    const blocks = r0.blocks ?? [];
    const bound = new TopBound(key.field, key.count);
    bound.add(r0.p);
    // Sources are the blocks and then the rows in memory; without blocks the one source was all.
    const order = r0.sources === blocks.length + 1 ? sourcesLargestFirst(blocks, key.field, 1) : Array.from({ length: r0.sources - 1 }, (_, i) => i + 1);
    for (const k of order) {
        if (k < blocks.length && whole(blocks[k]) && !bound.mayHold(blocks[k])) {
            parts[k] = skippedPart(blocks[k], k, dataset, sourceZone);
            continue;
        }
        const r = runPart(narrow, k);
        if (!r) return undefined;
        parts[k] = r.p;
        bound.add(r.p);
    }
    return parts;
}

/** Columns naming the source of a `top`'s narrow rows and each one's row in it (topByKeysFirst; a scan's concatenation keeps the visible ones). */
const SOURCE_TAG = '$coldsource';
const ROW_TAG = '$coldrow';

/** The part's rows, tagged with source `k` and their rows in it (`rows`, as the part lists them). */
function tagSource(frame: Frame, k: number, rows: readonly number[]): Frame {
    return frame.with([
        ...frame.cols,
        { name: SOURCE_TAG, type: 'long', data: new ConstColumn('long', k, frame.length), sel: null },
        { name: ROW_TAG, type: 'long', data: new NumColumn('long', Float64Array.from(rows), null, frame.length), sel: null },
    ]);
}

/** A dataset's statistics with its blocks on disk counted in. */
function withCold(s: DatasetStats, c: ColdDataset, fields: number): DatasetStats {
    let rows = s.rows;
    let min = s.minTime === undefined ? undefined : BigInt(Date.parse(s.minTime)) * NS_PER_MS;
    let max = s.maxTime === undefined ? undefined : BigInt(Date.parse(s.maxTime)) * NS_PER_MS;
    for (const b of c.blocks) {
        rows += b.rows;
        if (min === undefined || b.minTime < min) min = b.minTime;
        if (max === undefined || b.maxTime > max) max = b.maxTime;
    }
    const iso = (ns: bigint | undefined) => (ns === undefined ? undefined : new Date(Number(ns / NS_PER_MS)).toISOString());
    return { ...s, rows, fields, minTime: iso(min), maxTime: iso(max) };
}
