import { parseArgs } from 'node:util';
import { explainQuery, measureNote, measureStages, type Explanation, type StageMeasure, type StageQueryRunner, type StageTable } from '../../../language/explain.js';
import { checkServices, type DocumentQueryBlock } from '../../../language/check.js';
import { AplQueryError, createEngine } from '../../../language/eval/engine.js';
import { queryInfo } from '../../../language/lsp/apl-query-info.js';
import { SAMPLE_DATASET_NAMES } from '../../../language/samples/index.js';
import { StaticSchemaProvider } from '../../../language/schema/static-schema-provider.js';
import type { DatasetSchema, SchemaProvider } from '../../../language/schema/schema-provider.js';
import { typeFromAxiomFieldType } from '../../../language/types/apl-types.js';
import { AplApiError } from '../../api/errors.js';
import type { AplClient } from '../../api/client.js';
import { CliError } from '../cli-error.js';
import { clientFrom, CONNECTION_OPTIONS, CONNECTION_USAGE, warnAboutTokenArgument } from '../connection.js';
import { parseDataSpec, parseSampleSpec } from '../load-data.js';
import { localFileReader } from '../local-file-reader.js';
import { parseIntOption, parseOutputFormat } from '../options.js';
import { chooseQueryBlocks, queryBlockHeader } from '../query-block-choice.js';
import { readInput } from '../read-input.js';
import { renderTable, rowObject, terminalWidth, type RenderTable } from '../render.js';
import { terminalLines, terminalText } from '../terminal-text.js';
import { resolveTimeRange } from '../time-arg.js';
import { assertDataFilesExist, loadData, loadedSchema, loadSample, progressLine, samplesToLoad, type TimestampOptions } from './run.js';

export const DEFAULT_EXPLAIN_ROWS = 3;

export const EXPLAIN_USAGE = `apl explain [--data NAME=PATH]... [--sample NAME[:ROWS]]... [--seed N]
            [--url URL] [--token TOKEN] [--org-id ID] [--rows N] [--start TIME] [--end TIME]
            [--format table|json] [--width N] [--line N | --block N] FILE

Explains a query stage by stage: for its source and each '| operator', the columns after it (names
and types), the number of rows after it and its first rows. Each stage runs as its own bounded query
(the query up to it with '| count', and with '| take N' for the rows shown): the whole query never
runs unbounded. Locally (the default) over --data files or the sample datasets the query names, with
the reference evaluator; with --url against a service (apl serve or Axiom).
Exit code 0: ok; 1: a stage failed (its message is shown, the later stages are not run) or the
query has a syntax error; 2: usage or I/O error.
  --data NAME=PATH     load PATH as dataset NAME (repeatable), as 'apl run' does
  --sample NAME[:ROWS] generate a sample dataset (as 'apl run'): ${SAMPLE_DATASET_NAMES.join(', ')}
  --seed N             seed of the sample generators (default 1)
${CONNECTION_USAGE}
                   (--url runs the stages against that service instead of locally)
  --rows N         rows shown after each stage (default ${DEFAULT_EXPLAIN_ROWS}; 0 counts only)
  --start, --end   time range over _time: RFC 3339, a date, or now-1h / now-7d (default: all)
  --format         table (default) or json (one object: the stages, their columns, rows and first rows)
  --width N        fit tables to N columns (default: the terminal width)
  --line N         explain the query block that holds line N (a blank line separates queries)
  --block N        explain the N-th query block (from 1)
  FILE             the query file ('-' for standard input)`;

export async function runExplain(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            ...CONNECTION_OPTIONS,
            data: { type: 'string', multiple: true, short: 'd' },
            sample: { type: 'string', multiple: true },
            seed: { type: 'string' },
            rows: { type: 'string' },
            start: { type: 'string' },
            end: { type: 'string' },
            format: { type: 'string' },
            width: { type: 'string' },
            line: { type: 'string' },
            block: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(EXPLAIN_USAGE + '\n');
        return 0;
    }
    const format = parseOutputFormat(values.format, ['table', 'json']);
    if (positionals.length !== 1) throw new CliError(`give one query file (or '-' for standard input), not ${positionals.length}\nRun 'apl explain --help' for the options.`);
    const remote = values.url !== undefined;
    if (remote && (values.data !== undefined || values.sample !== undefined)) throw new CliError('--url runs the stages on a service: --data and --sample are for running them locally');
    const rows = values.rows !== undefined ? parseIntOption('--rows', values.rows, 0, 100) : DEFAULT_EXPLAIN_ROWS;
    const width = values.width !== undefined ? parseIntOption('--width', values.width, 20) : undefined;
    const seed = values.seed !== undefined ? parseIntOption('--seed', values.seed) : 1;
    const range = resolveTimeRange({ start: values.start, end: values.end });
    const query = readInput(positionals[0]);
    const blocks = chooseQueryBlocks(query, { line: values.line, block: values.block, format });

    let where: Where;
    if (remote) {
        warnAboutTokenArgument(values, err, 'explain');
        where = await serviceWhere(clientFrom(values), blocks, range);
    } else {
        where = await localWhere(values.data ?? [], values.sample ?? [], seed, query.text, range, err);
    }

    const results: BlockExplanation[] = [];
    let failed = false;
    for (const block of blocks) {
        const explanation = explainQuery(block.text, block.text.length - 1, checkServices(where.schema));
        if (!explanation || explanation.stages.length === 0) throw new CliError(`${query.name}: ${queryBlockHeader(block, 0, 1).replace(/[─ ]+/g, ' ').trim()}: ${explanation?.problem ?? 'no query'}`);
        if (!explanation.syntaxOk) {
            err.write(`apl explain: ${terminalText(query.name)}: the query has a syntax error (see apl check ${terminalText(query.name)}); nothing was run\n`);
            failed = true;
            results.push({ block, explanation, measures: [] });
            continue;
        }
        const measures = await measureStages(explanation.stages, placedIn(where.run, query.name, block), rows);
        if (measures.some(m => m.error !== undefined)) failed = true;
        results.push({ block, explanation, measures });
    }

    if (format === 'json') {
        const json = results.map(r => blockJson(r, where.label, rows));
        out.write(JSON.stringify(json.length === 1 ? json[0] : json, null, 2) + '\n');
    } else {
        out.write(`Ran ${terminalText(where.label)}. ${terminalText(measureNote(rows).replace(/`/g, "'"))}\n\n`);
        const tableWidth = width ?? terminalWidth(out);
        results.forEach((r, i) => {
            if (results.length > 1) out.write(`\n${queryBlockHeader(r.block, i, results.length)}\n`);
            writeBlockTable(out, r, tableWidth);
        });
    }
    return failed ? 1 : 0;
}

interface BlockExplanation {
    block: DocumentQueryBlock;
    explanation: Explanation;
    measures: StageMeasure[];
}

/** Where the stages run: the schema for the columns, and the runner of their bounded queries. */
interface Where {
    label: string;
    schema: SchemaProvider;
    run: StageQueryRunner;
}

async function localWhere(dataArgs: string[], sampleArgs: string[], seed: number, text: string, range: { startTime?: string; endTime?: string }, err: NodeJS.WritableStream): Promise<Where> {
    const data = dataArgs.map(parseDataSpec);
    const samples = sampleArgs.map(s => parseSampleSpec(s, SAMPLE_DATASET_NAMES));
    assertDataFilesExist(data);
    const engine = createEngine({ externalData: localFileReader() });
    const status = progressLine(err);
    const timestamps: TimestampOptions = {};
    try {
        for (const d of data) await loadData(engine, d, timestamps, err, status, 'explain');
        for (const s of samplesToLoad(text, data, samples)) if (!data.some(d => d.name === s.name)) loadSample(engine, s, seed, status);
    } finally {
        status(undefined);
    }
    const loaded = engine.datasets();
    return {
        label: loaded.length ? `locally over ${loaded.join(', ')}` : 'locally (no datasets loaded)',
        schema: loadedSchema(engine),
        // An AplQueryError goes up as it is: the caller places it in the file.
        run: apl => engine.query(apl, { startTime: range.startTime, endTime: range.endTime }),
    };
}

async function serviceWhere(client: AplClient, blocks: readonly DocumentQueryBlock[], range: { startTime?: string; endTime?: string }): Promise<Where> {
    // The columns of the datasets the queries read, as the service has them (a dataset it lacks stays unknown: open).
    const names = new Set(blocks.flatMap(b => queryInfo(b.text, checkServices()).blocks.flatMap(info => info.datasets ?? [])));
    const datasets: DatasetSchema[] = [];
    for (const name of names) {
        try {
            const fields = await client.datasets.fields(name);
            datasets.push({ name, fields: fields.map(f => ({ name: f.name, type: typeFromAxiomFieldType(f.type ?? '') })) });
        } catch (e) {
            if (!(e instanceof AplApiError) || e.status === 0) throw serviceError(e);
        }
    }
    return {
        label: `against ${client.url}`,
        schema: new StaticSchemaProvider(datasets),
        run: async apl => {
            try {
                return await client.query(apl, { format: 'tabular', startTime: range.startTime, endTime: range.endTime });
            } catch (e) {
                if (e instanceof AplApiError && e.status !== 0) throw new Error(`${e.status} ${e.message}`, { cause: e });
                throw serviceError(e);
            }
        },
    };
}

/** The evaluator's errors at the file's line and column (`q.apl:3:9: …`): a prefix starts at its block's first line. */
function placedIn(run: StageQueryRunner, name: string, block: DocumentQueryBlock): StageQueryRunner {
    return async apl => {
        try {
            return await run(apl);
        } catch (e) {
            if (e instanceof AplQueryError) throw new Error(`${name}:${e.line + block.startLine}:${e.column}: ${e.detail}`, { cause: e });
            throw e;
        }
    };
}

/** The service cannot be reached (or another I/O problem): exit 2 with reportApiError's words. */
function serviceError(e: unknown): unknown {
    if (e instanceof AplApiError && e.status === 0) return new CliError(e.message);
    return e;
}

function columnsText(columns: readonly { name: string; type: string }[], open: boolean): string {
    const shown = columns.map(c => `${c.name}: ${c.type}`).join(', ');
    return open ? (shown ? `${shown}, …` : '…') : shown;
}

/** The per-stage table (stage, text, columns after, rows), then each stage's first rows. */
function writeBlockTable(out: NodeJS.WritableStream, r: BlockExplanation, width: number | undefined): void {
    const { explanation, measures } = r;
    const byIndex = new Map(measures.map(m => [m.index, m]));
    let previous: string | undefined;
    const table: RenderTable = {
        fields: [{ name: 'stage', type: 'integer' }, { name: 'operator', type: 'string' }, { name: 'rows', type: 'integer' }, { name: 'columns after', type: 'string' }],
        columns: [[], [], [], []],
    };
    for (const stage of explanation.stages) {
        const m = byIndex.get(stage.index);
        const columns = columnsText(stage.columns, stage.open);
        table.columns![0].push(stage.index);
        table.columns![1].push(oneLine(stage.text));
        table.columns![2].push(m?.rows ?? (m?.error !== undefined ? 'failed' : m?.skipped ? 'not run' : null));
        table.columns![3].push(columns === previous ? '(same)' : `(${stage.columns.length}${stage.open ? '+' : ''}) ${columns}`);
        previous = columns;
    }
    out.write(renderTable(table, { width, footer: false }));
    for (const stage of explanation.stages) {
        const m = byIndex.get(stage.index);
        if (!m) continue;
        if (m.error !== undefined) {
            out.write(`\nstage ${stage.index} (${terminalText(oneLine(stage.text))}) failed: ${terminalLines(m.error)}\n`);
            continue;
        }
        if (!m.sample) continue;
        const shown = sampleRowCount(m.sample);
        out.write(`\nstage ${stage.index} · ${terminalText(oneLine(stage.text))} · ${shown} of ${(m.rows ?? 0).toLocaleString('en-US')} rows\n`);
        if (shown > 0) out.write(renderTable(m.sample as RenderTable, { width, footer: false }));
    }
}

function blockJson(r: BlockExplanation, where: string, rows: number): unknown {
    const byIndex = new Map(r.measures.map(m => [m.index, m]));
    return {
        block: { startLine: r.block.startLine + 1, endLine: r.block.endLine + 1 },
        ran: where,
        note: measureNote(rows),
        syntaxOk: r.explanation.syntaxOk,
        stages: r.explanation.stages.map(stage => {
            const m = byIndex.get(stage.index);
            return {
                stage: stage.index,
                operator: stage.keyword ?? null,
                text: stage.text,
                // 1-based lines in the file, as the other commands print them.
                line: stage.range.start.line + r.block.startLine + 1,
                column: stage.range.start.character + 1,
                columns: stage.columns,
                open: stage.open,
                rows: m?.rows ?? null,
                ...(m?.sample ? { firstRows: rowsOf(m.sample) } : {}),
                ...(m?.error !== undefined ? { error: m.error } : {}),
                ...(m?.skipped ? { skipped: true } : {}),
            };
        }),
    };
}

function sampleRowCount(t: StageTable): number {
    return t.columns?.[0]?.length ?? 0;
}

function rowsOf(t: StageTable): Record<string, unknown>[] {
    const n = sampleRowCount(t);
    return Array.from({ length: n }, (_, i) => rowObject(t as RenderTable, i));
}

/** A stage's text on one line (a stage may span lines). */
function oneLine(text: string): string {
    return text.replace(/\s*\n\s*/g, ' ');
}

