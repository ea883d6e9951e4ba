/**
 * The service's view of the reference evaluator: one in-memory engine per process. This adapter
 * is the only file of server/http that knows the engine's API; the rest sees `EngineAdapter`.
 */
import type { DatasetMeta } from '../store/store.js';

export type { ColumnarChunk, DatasetLoader, FlatBatch } from '../../language/engine.js';
import { AplQueryError, createEngine, type ColumnarChunk, type DatasetLoader, type Engine, type FlatBatch, type LegacyExecutor } from '../../language/engine.js';
import { legacyExecutor } from '../../language/legacy/execute.js';
import { SAMPLE_DATASETS } from '../../language/samples/index.js';
import { HttpError } from './errors.js';
import { isResourceError } from '../../language/eval/budget.js';
import { DEFAULT_PAGE_SIZE } from './paging.js';

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
}

export interface EngineAdapter {
    /** Creates the dataset, or replaces its contents with nothing. */
    resetDataset(name: string, meta: DatasetMeta): void;
    updateMeta(name: string, meta: DatasetMeta): void;
    deleteDataset(name: string): void;
    /** Rows from the store: flat fields plus `_time`/`_sysTime` (ns, bigint) and `_rowId`. */
    appendFlat(name: string, rows: Record<string, unknown>[]): void;
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
    queryApl(apl: string, req: AplQueryRequest): Promise<unknown>;
    queryLegacy(dataset: string, body: unknown, opts: { now: bigint }): Promise<unknown>;
}

export interface EngineAdapterOptions {
    maxResultRows: number;
    defaultLimit?: number;
}

/** The sample schemas' units and descriptions, for the fields lists (language/samples). */
const SAMPLE_FIELD_META = new Map<string, Map<string, { description?: string; unit?: string }>>(
    SAMPLE_DATASETS.map((d) => [d.name, new Map(d.fields.map((f) => [f.name, { description: f.description, unit: f.unit }]))]),
);

export function createEngineAdapter(opts: EngineAdapterOptions): EngineAdapter {
    const engine: Engine = createEngine({ maxLimit: opts.maxResultRows, defaultLimit: opts.defaultLimit ?? DEFAULT_PAGE_SIZE });
    engine.setLegacyExecutor(legacyExecutor as LegacyExecutor);
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
        appendFlat(name, rows) {
            engine.ingestFlat(name, rows);
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
        async queryApl(apl, req) {
            const options = {
                now: req.now,
                startTime: req.startNs,
                endTime: req.endNs,
                limit: req.limit,
                cursor: req.cursor,
                includeCursor: req.includeCursor,
                includeCursorField: req.includeCursorField,
                variables: req.variables,
            };
            try {
                return req.format === 'tabular' ? await engine.query(apl, options) : await engine.queryLegacyFormat(apl, options);
            } catch (err) {
                throw mapQueryError(err);
            }
        },
        async queryLegacy(dataset, body, o) {
            try {
                return await engine.queryLegacy(dataset, body, { now: o.now });
            } catch (err) {
                throw mapQueryError(err);
            }
        },
    };
}

/**
 * Unknown datasets are 404 (message contains "not found"); other evaluator errors stay typed (400).
 * A JavaScript size failure the guards did not foresee is still this query's fault, not the
 * service's: 400, never a 5xx that clients would retry.
 */
function mapQueryError(err: unknown): unknown {
    if (isResourceError(err)) return new HttpError(400, `invalid query: it is too large or too deeply nested to run (${err.message})`);
    if (err instanceof AplQueryError && /unknown (dataset|table)|dataset .* (does not exist|not found)/i.test(err.message)) {
        return new HttpError(404, `${err.detail} (line ${err.line}, column ${err.column}): not found`);
    }
    return err;
}
