import { parseArgs } from 'node:util';
import { Issues } from '../../../language/apl-issue-codes.js';
import { checkText } from '../../../language/check.js';
import { StaticSchemaProvider } from '../../../language/schema/static-schema-provider.js';
import { typeFromAxiomFieldType } from '../../../language/types/apl-types.js';
import { formatDiagnosticText, type CliDiagnostic } from '../diagnostic-format.js';
import { AplQueryError, createEngine, type Engine } from '../../../language/eval/engine.js';
import { generateSample, SAMPLE_DATASET_NAMES } from '../../../language/samples/index.js';
import { CliError } from '../cli-error.js';
import { LARGE_FILE_BYTES, loadDataFile, parseDataSpec, parseSampleSpec, type DataSpec, type Progress, type SampleSpec } from '../load-data.js';
import { parseIntOption, parseOutputFormat, queryTextFrom, type QueryText } from '../options.js';
import { writeResult } from '../output.js';
import { formatQueryError } from '../query-error.js';
import { resolveTimeRange } from '../time-arg.js';
import { statSync } from 'node:fs';
import { localFileReader } from '../local-file-reader.js';
import { chooseQueryBlocks, queryBlockHeader } from '../query-block-choice.js';
import { readInput } from '../read-input.js';
import { exportKindOf } from '../../notebook/notebook-export.js';
import { localRunner, notebookText, readNotebook, runNotebookCells, serviceRunner } from './run-notebook.js';
import { clientFrom, CONNECTION_OPTIONS, warnAboutTokenArgument } from '../connection.js';
import { DEFAULT_PARALLEL_MIN_ROWS, startParallelRunner, type InProcessParallel } from '../../../server/query/parallel-runner.js';

export const DEFAULT_SAMPLE_ROWS = 10_000;

export const RUN_USAGE = `apl run [--data NAME=PATH]... [--timestamp-field F] [--timestamp-format LAYOUT]
        [--sample NAME[:ROWS]]... [--seed N] [--format table|json|csv|tabular|legacy] [--csv-exact]
        [--start TIME] [--end TIME] [--limit N] [--width N]
        (QUERY | --file F [--line N | --block N] | --notebook F.aplnb [--update] [--export OUT] [--url URL])

Runs an APL query locally, over files or the sample datasets, with the reference evaluator.
Exit code 0: ok; 1: the query has an error (printed as file:line:col with the problem);
2: usage or I/O error (a missing or unreadable data file, a bad time).
  --data NAME=PATH     load PATH as dataset NAME (repeatable): NDJSON, a JSON array, or CSV with a
                       header row (cells typed as numbers or booleans where they parse); .gz is fine.
                       Events are read as 'apl ingest' sends them to a service: nested objects
                       flattened (geo.city), and events without a time get the load time.
  --timestamp-field F  the field of --data events that holds the event time (default _time)
  --timestamp-format L its format as a Go layout, e.g. 2006-01-02T15:04:05Z07:00 (default: RFC 3339
                       or a Unix epoch, as the service guesses)
  --sample NAME[:ROWS] generate a sample dataset with ROWS events (default ${DEFAULT_SAMPLE_ROWS.toLocaleString('en-US')}). Without --data,
                       the samples the query names are generated on demand:
                       ${SAMPLE_DATASET_NAMES.join(', ')}
  --seed N             seed of the sample generators and of the sample operator (default 1): the same
                       seed gives the same rows
  --format             table (default; fitted to the terminal), json (array of row objects), csv,
                       tabular or legacy (the service's result JSON)
  --csv-exact          with --format csv: the data exactly; by default a text that starts with =, +, -,
                       @, a tab or a carriage return gets a leading ' so that a spreadsheet does not run it
  --start, --end       time range over _time: RFC 3339, a date, or now-1h / now-7d (default: all)
  --limit N            most rows to return (default 1000; at most 50000)
  --width N            fit tables to N columns (default: the terminal width)
  --file F             read the query from F ('-' for standard input). A blank line separates queries,
                       as in the editor: a file of several blocks runs each in turn, with a header
  --line N             run only the query block that holds line N (as the editor's Run does)
  --block N            run only the N-th query block (from 1)
  --notebook F         run every APL cell of notebook F (.aplnb) in order, each with the let
                       statements and '// as NAME' results of the cells above it (docs/notebooks.md);
                       a cell's own time range applies unless --start/--end is given
  --update             with --notebook: write each cell's result (its first rows) back into F
  --export OUT         with --notebook: write the notebook with its results to OUT.md (each chart an
                       SVG file beside it) or OUT.ipynb (Jupyter)
  --url URL            with --notebook: run the cells on that service (apl serve or Axiom) instead of
                       locally; the token from $AXIOM_TOKEN (or --token), the org from $AXIOM_ORG_ID`;

export async function runRun(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            data: { type: 'string', multiple: true, short: 'd' },
            sample: { type: 'string', multiple: true },
            seed: { type: 'string' },
            'timestamp-field': { type: 'string' },
            'timestamp-format': { type: 'string' },
            format: { type: 'string' },
            'csv-exact': { type: 'boolean', default: false },
            start: { type: 'string' },
            end: { type: 'string' },
            limit: { type: 'string' },
            width: { type: 'string' },
            file: { type: 'string', short: 'f' },
            line: { type: 'string' },
            block: { type: 'string' },
            notebook: { type: 'string' },
            update: { type: 'boolean', default: false },
            export: { type: 'string' },
            ...CONNECTION_OPTIONS,
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(RUN_USAGE + '\n');
        return 0;
    }
    const format = parseOutputFormat(values.format);
    if (values['csv-exact'] && format !== 'csv') throw new CliError('--csv-exact goes with --format csv');
    const data = (values.data ?? []).map(parseDataSpec);
    const dupe = data.find((d, i) => data.findIndex(o => o.name === d.name) !== i);
    if (dupe) throw new CliError(`--data: dataset '${dupe.name}' is given twice`);
    const samples = (values.sample ?? []).map(s => parseSampleSpec(s, SAMPLE_DATASET_NAMES));
    const seed = values.seed !== undefined ? parseIntOption('--seed', values.seed) : 1;
    const limit = values.limit !== undefined ? parseIntOption('--limit', values.limit, 1, 50_000) : undefined;
    const width = values.width !== undefined ? parseIntOption('--width', values.width, 20) : undefined;
    const timestamps: TimestampOptions = { field: values['timestamp-field'], format: values['timestamp-format'] };
    if (data.length === 0 && (timestamps.field !== undefined || timestamps.format !== undefined)) {
        throw new CliError('--timestamp-field and --timestamp-format apply to --data files');
    }
    if (timestamps.field !== undefined && timestamps.field.trim() === '') throw new CliError('--timestamp-field must not be empty');
    if (values.update && values.notebook === undefined) throw new CliError('--update goes with --notebook');
    if (values.export !== undefined && values.notebook === undefined) throw new CliError('--export goes with --notebook');
    const exportKind = values.export === undefined ? undefined : exportKindOf(values.export);
    if (values.export !== undefined && exportKind === undefined) throw new CliError(`--export: '${values.export}' is not a .md or .ipynb file`);
    const exportTo = values.export !== undefined && exportKind !== undefined ? { path: values.export, kind: exportKind } : undefined;
    const remote = values.url !== undefined;
    if ((remote || values.token !== undefined || values['org-id'] !== undefined) && values.notebook === undefined) {
        throw new CliError("--url, --token and --org-id go with --notebook (for one query on a service: apl query)");
    }
    if (remote && (values.data !== undefined || values.sample !== undefined)) throw new CliError('--url runs the cells on a service: --data and --sample are for running them locally');
    if (values.notebook !== undefined && (positionals.length > 0 || values.file !== undefined || values.line !== undefined || values.block !== undefined)) {
        throw new CliError('--notebook runs the notebook\'s cells: give no query, --file, --line or --block with it');
    }
    if (values.notebook !== undefined && format === 'legacy') throw new CliError('--format legacy is for one query, not a notebook');
    const notebookFile = values.notebook !== undefined ? readInput(values.notebook) : undefined;
    const notebook = notebookFile ? readNotebook(notebookFile.name, notebookFile.text) : undefined;
    const query = notebook ? { name: notebookFile!.name, text: notebookText(notebook) } : queryTextFrom(positionals, values.file, RUN_USAGE);
    const blocks = notebook ? [] : chooseQueryBlocks(query, { line: values.line, block: values.block, format });
    const range = resolveTimeRange({ start: values.start, end: values.end });
    assertDataFilesExist(data);

    if (notebook && remote) {
        warnAboutTokenArgument(values, err, 'run');
        const run = { format, width, limit, csvExact: values['csv-exact'] === true, start: values.start, end: values.end, update: values.update === true, exportTo };
        return runNotebookCells(notebookFile!, notebook, serviceRunner(clientFrom(values)), run, out, err);
    }
    // Columns on SharedArrayBuffer: query worker threads read them as they are (parallelOver).
    const engine = createEngine({ externalData: localFileReader(), sharedMemory: true });
    const status = progressLine(err);
    try {
        for (const d of data) await loadData(engine, d, timestamps, err, status);
        for (const s of samplesToLoad(query.text, data, samples)) {
            if (data.some(d => d.name === s.name)) continue;
            loadSample(engine, s, seed, status);
        }
    } finally {
        status(undefined);
    }
    const parallel = await parallelOver(engine);
    try {
        return await runQueries();
    } finally {
        await parallel?.close();
    }

    async function runQueries(): Promise<number> {
        if (notebook) {
            const run = { format, width, limit, csvExact: values['csv-exact'] === true, start: values.start, end: values.end, update: values.update === true, exportTo };
            return runNotebookCells(notebookFile!, notebook, localRunner(engine), run, out, err);
        }
        const options = { startTime: range.startTime, endTime: range.endTime, limit };
        const schema = loadedSchema(engine);
        let failed = false;
        for (const [i, block] of blocks.entries()) {
            if (blocks.length > 1) out.write(`${i > 0 ? '\n' : ''}${queryBlockHeader(block, i, blocks.length)}\n`);
            // What `apl check` says of the block against the loaded datasets: its notes, and its words for an error.
            const diagnostics = (await checkText(block.text, { schema })).map(d => shiftLines(d as CliDiagnostic, block.startLine));
            for (const d of diagnostics) if (d.code === Issues.TakeAfterTimeBins.code) err.write(formatDiagnosticText(query.name, query.text, d) + '\n');
            try {
                if (format === 'legacy') {
                    writeResult(out, format, { legacy: await engine.queryLegacyFormat(block.text, options) }, { width });
                } else {
                    writeResult(out, format, { tabular: await engine.query(block.text, options) }, { width, err, command: 'run', csvExact: values['csv-exact'] });
                }
            } catch (e) {
                if (!(e instanceof AplQueryError)) throw e;
                // The block's text starts at its first line: its lines shift by startLine, its columns are the file's.
                reportQueryError(e, query, block.startLine, engine, err, diagnostics);
                failed = true;
            }
        }
        return failed ? 1 : 0;
    }
}

/**
 * Query worker threads for a large dataset (server/query/parallel-runner.ts): planned queries
 * (count, summarize, top) over it run in parts on every core. Undefined for small data, where
 * starting the workers costs more than it saves.
 */
async function parallelOver(engine: Engine): Promise<InProcessParallel | undefined> {
    if (!engine.datasets().some(name => (engine.stats(name)?.rows ?? 0) >= DEFAULT_PARALLEL_MIN_ROWS)) return undefined;
    return startParallelRunner(engine);
}

/**
 * The evaluator's error, in `apl check`'s words when the checker found an unknown field at the same
 * place ("did you mean", with the whole name underlined).
 */
function reportQueryError(e: AplQueryError, query: QueryText, lineShift: number, engine: Engine, err: NodeJS.WritableStream, diagnostics: CliDiagnostic[]): number {
    const line = e.line + lineShift;
    const same = diagnostics.find(d => d.code === Issues.UnknownField.code && d.range.start.line + 1 === line && d.range.start.character + 1 === e.column);
    const endColumn = same && same.range.end.line === same.range.start.line ? same.range.end.character + 1 : undefined;
    err.write(formatQueryError(query.name, query.text, same ? same.message : e.detail, { line, column: e.column, endColumn }) + '\n');
    if (/unknown dataset/i.test(e.detail)) {
        const names = engine.datasets();
        err.write(
            names.length
                ? `loaded datasets: ${names.join(', ')}\n`
                : `no datasets are loaded: use --data NAME=PATH, or query a sample dataset (${SAMPLE_DATASET_NAMES.join(', ')})\n`,
        );
    }
    return 1;
}

/** The loaded datasets and their fields, as a schema for the checker (so it knows what the evaluator knows). */
export function loadedSchema(engine: Engine): StaticSchemaProvider {
    return new StaticSchemaProvider(engine.datasets().map(name => ({
        name,
        fields: engine.fields(name).map(f => ({ name: f.name, type: typeFromAxiomFieldType(f.type) })),
    })));
}

function shiftLines(d: CliDiagnostic, lines: number): CliDiagnostic {
    return { ...d, range: { start: { ...d.range.start, line: d.range.start.line + lines }, end: { ...d.range.end, line: d.range.end.line + lines } } };
}

/** Checks that every `--data` file exists before loading any (fail fast, exit 2). */
export function assertDataFilesExist(data: readonly DataSpec[]): void {
    for (const d of data) {
        try {
            statSync(d.path);
        } catch (e) {
            const code = (e as NodeJS.ErrnoException).code;
            throw new CliError(`--data ${d.name}=${d.path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
        }
    }
}

/** Explicit `--sample`s, plus (without `--data`) every sample dataset the query text names. */
export function samplesToLoad(text: string, data: DataSpec[], samples: SampleSpec[]): SampleSpec[] {
    const out = new Map<string, SampleSpec>();
    for (const s of samples) out.set(s.name, s);
    if (data.length === 0) {
        for (const name of SAMPLE_DATASET_NAMES) if (!out.has(name) && text.includes(name)) out.set(name, { name });
    }
    return [...out.values()];
}

export function loadSample(engine: Engine, s: SampleSpec, seed: number, status: Progress): void {
    const rows = s.rows ?? DEFAULT_SAMPLE_ROWS;
    if (rows >= 100_000) status(`generating ${s.name} (${rows.toLocaleString('en-US')} events)`);
    engine.createDataset(s.name);
    engine.ingest(s.name, generateSample(s.name, { rows, seed }));
}

const CHUNK = 50_000;

export interface TimestampOptions {
    field?: string;
    format?: string;
}

/**
 * Loads one `--data` file through `engine.ingest`, the service's normaliser
 * (language/ingest/normalize-event.ts): the same time field and layout handling, flattening and
 * reserved names, so a query gives the same answer here as after `apl ingest` into `apl serve`.
 */
export async function loadData(engine: Engine, d: DataSpec, timestamps: TimestampOptions, err: NodeJS.WritableStream, status: Progress, command = 'run'): Promise<void> {
    let large = false;
    try {
        large = statSync(d.path).size >= LARGE_FILE_BYTES;
    } catch {
        // loadDataFile reports it
    }
    const progress = large ? status : undefined;
    const file = await loadDataFile(d, progress);
    engine.createDataset(d.name);
    const total = file.events.length;
    const problems: string[] = file.failures.map(f => f.error);
    let skipped = file.failures.length;
    const now = BigInt(Date.now()) * 1_000_000n;
    for (let i = 0; i < total; i += CHUNK) {
        const counts = engine.ingest(d.name, file.events.slice(i, i + CHUNK), { timestampField: timestamps.field, timestampFormat: timestamps.format, now });
        skipped += counts.failed;
        for (const f of counts.failures) problems.push(f.error);
        if (progress) progress(`loading ${d.name}: ${Math.min(total, i + CHUNK).toLocaleString('en-US')} / ${total.toLocaleString('en-US')} events`);
        if (progress) await new Promise(resolve => setImmediate(resolve));
    }
    if (skipped > 0) {
        status(undefined);
        err.write(`apl ${command}: --data ${d.name}=${d.path}: skipped ${skipped} event(s):\n`);
        for (const p of problems.slice(0, 5)) err.write(`  ${p}\n`);
        if (problems.length > 5) err.write(`  … and ${problems.length - 5} more\n`);
    }
}

/** A one-line status on stderr when it is a terminal (overwritten in place); a no-op otherwise. */
export function progressLine(err: NodeJS.WritableStream): Progress {
    const tty = (err as NodeJS.WriteStream).isTTY === true;
    let shown = false;
    return text => {
        if (!tty) return;
        if (text === undefined) {
            if (shown) err.write('\r\x1b[K');
            shown = false;
            return;
        }
        const cols = (err as NodeJS.WriteStream).columns ?? 80;
        err.write(`\r\x1b[K${text.length >= cols ? text.slice(0, cols - 2) + '…' : text}`);
        shown = true;
    };
}
