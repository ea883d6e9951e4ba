/**
 * Where `apl mcp` reads datasets and runs queries: a service (`apl serve` or Axiom, through the HTTP
 * client) or local files and the sample datasets (the reference evaluator, as `apl run` does). Both
 * answer the same questions in the same shapes, so the tools do not care which one they talk to.
 */
import { AplClient } from '../api/client.js';
import { AplApiError } from '../api/errors.js';
import { rowCount, tableRows } from '../api/rows.js';
import { AplQueryError, createEngine, type Engine } from '../../language/eval/engine.js';
import type { FieldSchema } from '../../language/schema/schema-provider.js';
import { generateSample, SAMPLE_DATASET_NAMES } from '../../language/samples/index.js';
import { typeFromAxiomFieldType } from '../../language/types/apl-types.js';
import { loadDataFile, type DataSpec } from '../cli/load-data.js';
import { localFileReader } from '../cli/local-file-reader.js';
import { DEFAULT_SAMPLE_ROWS, samplesToLoad } from '../cli/commands/run.js';

/** A problem the agent caused or can act on: its message is sent back as the tool's error. */
export class ToolProblem extends Error {
    override readonly name: string = 'ToolProblem';
}

/** The dataset asked for does not exist at the source. */
export class UnknownDatasetProblem extends ToolProblem {
    override readonly name = 'UnknownDatasetProblem';
}

export interface RunOptions {
    startTime?: string;
    endTime?: string;
    /** Rows to return (the total is still counted). */
    maxRows: number;
    timeoutMs: number;
}

export interface RunOutcome {
    columns: { name: string; type: string }[];
    rows: Record<string, unknown>[];
    /** Rows of the result (the source may itself stop at its own limit: then isPartial or the status says so). */
    total: number;
    isPartial: boolean;
    elapsedMs: number;
    rowsExamined: number;
    rowsMatched: number;
    /** The source's own warnings (status messages). */
    messages: string[];
}

export interface DataSource {
    /** `service` (a URL) or `local` (files and samples). */
    readonly kind: 'service' | 'local';
    /** What it is, for the agent: the service's URL without credentials, or "local files". */
    readonly description: string;
    datasets(): Promise<{ name: string; description?: string }[]>;
    /** The fields of a dataset; a ToolProblem when it does not exist. */
    fields(dataset: string): Promise<FieldSchema[]>;
    run(query: string, options: RunOptions): Promise<RunOutcome>;
    ingest(dataset: string, events: Record<string, unknown>[]): Promise<{ ingested: number; failed: number }>;
}

/** Fills a RunOutcome from a tabular result (the service's and the evaluator's have the same shape). */
function outcomeOf(result: { status?: { elapsedTime?: number; rowsExamined?: number; rowsMatched?: number; isPartial?: boolean; messages?: { priority: string; msg: string }[] | null }; tables?: { fields: { name: string; type: string }[]; columns: unknown[][] | null }[] }, maxRows: number, elapsedMs: number): RunOutcome {
    const table = result.tables?.[0] ?? { fields: [], columns: [] };
    const total = rowCount(table);
    const shown = { fields: table.fields, columns: (table.columns ?? []).map(c => c.slice(0, maxRows)) };
    const status = result.status;
    return {
        columns: table.fields.map(f => ({ name: f.name, type: f.type })),
        rows: tableRows(shown),
        total,
        isPartial: status?.isPartial === true,
        // The status's elapsedTime is in microseconds; the wall clock of the call is what the agent waited.
        elapsedMs,
        rowsExamined: status?.rowsExamined ?? 0,
        rowsMatched: status?.rowsMatched ?? 0,
        messages: (status?.messages ?? []).filter(m => m.priority === 'warn' || m.priority === 'error').map(m => `${m.priority}: ${m.msg}`),
    };
}

/** A service error as an agent should read it: the position of a query error, the status otherwise. */
function serviceProblem(e: unknown): never {
    if (!(e instanceof AplApiError)) throw e;
    const detail = (e.body as { detail?: { line?: unknown; column?: unknown; message?: unknown } } | undefined)?.detail;
    if (e.status === 400 && detail && typeof detail.line === 'number' && typeof detail.column === 'number') {
        throw new ToolProblem(`line ${detail.line}, column ${detail.column}: ${typeof detail.message === 'string' ? detail.message : e.message}`);
    }
    if (e.status === 0) throw new ToolProblem(`the service did not answer: ${e.message}`);
    const hint = e.status === 401 ? ' (the server was started without a valid token: set AXIOM_TOKEN)' : e.status === 403 ? ' (the token lacks permission for this)' : '';
    throw new ToolProblem(`the service answered ${e.status}: ${e.message}${hint}`);
}

export function serviceSource(client: AplClient): DataSource {
    return {
        kind: 'service',
        description: client.url,
        async datasets() {
            try {
                return (await client.datasets.list()).map(d => ({ name: d.name, ...(d.description ? { description: d.description } : {}) }));
            } catch (e) {
                return serviceProblem(e);
            }
        },
        async fields(dataset) {
            try {
                return (await client.datasets.fields(dataset)).map(f => ({ name: f.name, type: typeFromAxiomFieldType(f.type), ...(f.description ? { description: f.description } : {}), ...(f.unit ? { unit: f.unit } : {}) }));
            } catch (e) {
                if (e instanceof AplApiError && e.status === 404) throw new UnknownDatasetProblem(`unknown dataset '${dataset}' (list_datasets names the datasets)`);
                return serviceProblem(e);
            }
        },
        async run(query, options) {
            const started = Date.now();
            try {
                const result = await client.query(query, { format: 'tabular', startTime: options.startTime, endTime: options.endTime, timeoutMs: options.timeoutMs });
                return outcomeOf(result, options.maxRows, Date.now() - started);
            } catch (e) {
                if (e instanceof AplApiError && e.status === 0 && /timed out/.test(e.message)) throw new ToolProblem(`the query did not finish within the time limit of ${options.timeoutMs} ms`);
                return serviceProblem(e);
            }
        },
        async ingest(dataset, events) {
            try {
                const status = await client.ingest(dataset, events);
                return { ingested: status.ingested, failed: status.failed };
            } catch (e) {
                return serviceProblem(e);
            }
        },
    };
}

/** Rows the local evaluator returns at most per query (as `apl run --limit`'s ceiling). */
const LOCAL_RESULT_LIMIT = 50_000;

/**
 * The reference evaluator over `data` files (loaded once, at start) and the sample datasets, generated
 * on first use with `apl run`'s defaults (10,000 rows, seed 1), so the same query gives `apl run`'s rows.
 */
export async function localSource(data: DataSpec[]): Promise<DataSource> {
    const engine: Engine = createEngine({ externalData: localFileReader() });
    for (const d of data) {
        const file = await loadDataFile(d);
        engine.createDataset(d.name);
        engine.ingest(d.name, file.events);
    }
    const ensureSamples = (text: string) => {
        for (const s of samplesToLoad(text, data, [])) {
            if (engine.datasets().includes(s.name)) continue;
            engine.createDataset(s.name);
            engine.ingest(s.name, generateSample(s.name, { rows: DEFAULT_SAMPLE_ROWS, seed: 1 }));
        }
    };
    const known = () => [...new Set([...engine.datasets(), ...(data.length === 0 ? SAMPLE_DATASET_NAMES : [])])];
    return {
        kind: 'local',
        description: data.length > 0 ? `local files (${data.map(d => d.name).join(', ')})` : 'the sample datasets, generated locally',
        datasets() {
            return Promise.resolve(known().map(name => ({ name })));
        },
        fields(dataset) {
            if (!known().includes(dataset)) return Promise.reject(new UnknownDatasetProblem(`unknown dataset '${dataset}'; known: ${known().join(', ')}`));
            ensureSamples(dataset);
            return Promise.resolve(engine.fields(dataset).map(f => ({ name: f.name, type: typeFromAxiomFieldType(f.type) })));
        },
        async run(query, options) {
            ensureSamples(query);
            const started = Date.now();
            const deadline = started + options.timeoutMs;
            try {
                const result = await engine.query(query, {
                    startTime: options.startTime,
                    endTime: options.endTime,
                    limit: LOCAL_RESULT_LIMIT,
                    interrupt: () => (Date.now() > deadline ? { kind: 'timeout', message: `the query did not finish within the time limit of ${options.timeoutMs} ms` } : undefined),
                });
                return outcomeOf(result, options.maxRows, Date.now() - started);
            } catch (e) {
                if (!(e instanceof AplQueryError)) throw e;
                if (e.kind === 'timeout') throw new ToolProblem(`the query did not finish within the time limit of ${options.timeoutMs} ms`);
                const unknown = /unknown dataset/i.test(e.message) ? `; known datasets: ${known().join(', ')}` : '';
                throw new ToolProblem(`line ${e.line}, column ${e.column}: ${e.detail}${unknown}`);
            }
        },
        ingest(dataset, events) {
            if (!engine.datasets().includes(dataset)) engine.createDataset(dataset);
            const counts = engine.ingest(dataset, events);
            return Promise.resolve({ ingested: counts.ingested, failed: counts.failed });
        },
    };
}
