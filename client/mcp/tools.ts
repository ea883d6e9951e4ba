/**
 * The tools of `apl mcp`. Each has a zod input schema (sent to the client as JSON schema), a structured
 * output with its own schema, and a readable text form of the same result. A problem the agent can act
 * on (a syntax error in a query to run, an unknown dataset, a limit) is a tool error (`isError`), never
 * a protocol error or a crash.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { checkServices, checkText, type AplDiagnostic } from '../../language/check.js';
import { translate, TranslationError } from '../../language/legacy/translate.js';
import type { AplFormatter } from '../../language/lsp/apl-formatter.js';
import { CliError } from '../cli/cli-error.js';
import { lookupCatalogueEntry, catalogueEntryView, type CatalogueEntryView } from './catalogue.js';
import { ToolProblem } from './data-source.js';
import { redactValue } from './redact.js';
import { SAMPLE_QUERY_SCHEMA, schemaForQuery, schemaFromInline, type QuerySchema } from './query-schema.js';
import { DEFAULT_RUN_ROWS, QueryBudget, timeArgument, type McpSettings } from './session.js';
import { pipelineStageSchemas } from './stage-schemas.js';

const position = z.object({ line: z.number().int(), character: z.number().int() });
const diagnosticShape = z.object({
    severity: z.enum(['error', 'warning', 'info', 'hint']),
    code: z.string().describe('stable APL code: APL1001 is a syntax error; see the apl://diagnostics resource'),
    message: z.string(),
    line: z.number().int().describe('1-based'),
    column: z.number().int().describe('1-based'),
    range: z.object({ start: position, end: position }).describe('0-based, as LSP and apl check --format json'),
    suggestion: z.string().optional().describe('the quick fix: the name to write instead'),
});
type Diagnostic = z.infer<typeof diagnosticShape>;
const column = z.object({ name: z.string(), type: z.string() });
const inlineSchema = z
    .record(z.string(), z.record(z.string(), z.string()))
    .describe('datasets and their fields with types, as the schema file\'s "datasets" object: {"logs": {"status": "integer", "uri": "string"}}');
const queryText = z.string().describe('the APL query');
const schemaFromText = z.string().describe('where the datasets and fields came from');

type Text = { type: 'text'; text: string };

function diagnosticsOf(list: AplDiagnostic[]): Diagnostic[] {
    return list.map(d => {
        const suggestion = (d.data as { suggestion?: unknown } | undefined)?.suggestion;
        return {
            severity: d.severity,
            code: d.code,
            message: d.message,
            line: d.range.start.line + 1,
            column: d.range.start.character + 1,
            range: d.range,
            ...(typeof suggestion === 'string' ? { suggestion } : {}),
        };
    });
}

function diagnosticLines(list: Diagnostic[]): string {
    return list.map(d => `${d.line}:${d.column}: ${d.severity} ${d.code} ${d.message}`).join('\n');
}

function columnsText(columns: { name: string; type: string }[], open: boolean): string {
    const list = columns.map(c => `${c.name}: ${c.type}`).join(', ');
    return open ? `${list}${list ? ', ' : ''}… (more columns may exist: the schema of a dataset is not known)` : list;
}

/** Registers the tools of one session on `server`. */
export function registerAplTools(server: McpServer, settings: McpSettings): void {
    const { source, limits, redact } = settings;
    const budget = new QueryBudget(limits.queryBudget);

    /** Runs a tool body: its result redacted; a ToolProblem (or anything else) a redacted tool error. */
    const guarded = <A>(body: (args: A) => Promise<{ text: string; structured: Record<string, unknown> }>) =>
        async (args: A): Promise<CallToolResult> => {
            try {
                const { text, structured } = await body(args);
                return { content: [{ type: 'text', text: redact(text) } satisfies Text], structuredContent: redactValue(structured, redact) };
            } catch (e) {
                const message = e instanceof ToolProblem || e instanceof CliError ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`;
                return { isError: true, content: [{ type: 'text', text: redact(message) }] };
            }
        };

    const querySchema = (text: string): Promise<QuerySchema> => schemaForQuery(text, settings);

    server.registerTool(
        'check_apl',
        {
            title: 'Check APL',
            description:
                'Validates an APL query offline: syntax, functions, argument types, and (with a schema) dataset and field names. Returns diagnostics with stable codes, 1-based positions and quick-fix suggestions. Nothing is run.',
            inputSchema: {
                query: queryText,
                schema: inlineSchema.optional(),
                useConnection: z.boolean().optional().describe("check dataset and field names against the connection's datasets (reads their fields, runs nothing)"),
                syntaxOnly: z.boolean().optional().describe('report only syntax errors'),
            },
            outputSchema: { valid: z.boolean().describe('no error (warnings allowed)'), diagnostics: z.array(diagnosticShape), schemaFrom: schemaFromText },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        guarded(async ({ query, schema, useConnection, syntaxOnly }: { query: string; schema?: Record<string, Record<string, string>>; useConnection?: boolean; syntaxOnly?: boolean }) => {
            const used = schema !== undefined ? schemaFromInline(schema) : useConnection ? await querySchema(query) : offlineSchema(settings);
            const list = await checkText(query, { schema: used.provider, syntaxOnly });
            const diagnostics = diagnosticsOf(list);
            const valid = !diagnostics.some(d => d.severity === 'error');
            const text = diagnostics.length === 0 ? 'No problems found.' : `${valid ? 'No errors' : 'Errors found'}:\n${diagnosticLines(diagnostics)}`;
            return { text, structured: { valid, diagnostics, schemaFrom: used.from } };
        }),
    );

    server.registerTool(
        'format_apl',
        {
            title: 'Format APL',
            description: "Formats an APL query as `apl fmt` does: one '| operator' per line, one space around binary operators. A query with a syntax error is returned unchanged, with the errors.",
            inputSchema: { query: queryText },
            outputSchema: { formatted: z.string(), changed: z.boolean(), diagnostics: z.array(diagnosticShape).describe('syntax errors that kept a block from being formatted') },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        guarded(async ({ query }: { query: string }) => {
            const diagnostics = diagnosticsOf(await checkText(query, { syntaxOnly: true }));
            const formatted = (checkServices().lsp.Formatter as AplFormatter).formatText(query);
            const changed = formatted !== query;
            const text = diagnostics.length > 0 ? `Not formatted where there are syntax errors:\n${diagnosticLines(diagnostics)}\n\n${formatted}` : formatted;
            return { text, structured: { formatted, changed, diagnostics } };
        }),
    );

    server.registerTool(
        'result_schema',
        {
            title: 'Result schema of an APL query',
            description: "The columns and types an APL query returns, computed from the datasets' fields without running it.",
            inputSchema: { query: queryText, schema: inlineSchema.optional() },
            outputSchema: { columns: z.array(column), open: z.boolean().describe('more columns may exist (a dataset whose fields are not known)'), schemaFrom: schemaFromText },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        guarded(async ({ query, schema }: { query: string; schema?: Record<string, Record<string, string>> }) => {
            await refuseSyntaxErrors(query, 'its columns are not known');
            const used = schema !== undefined ? schemaFromInline(schema) : await querySchema(query);
            const stages = pipelineStageSchemas(query, used.provider);
            if (!stages || stages.length === 0) throw new ToolProblem('the text has no query statement');
            const last = stages[stages.length - 1];
            return { text: columnsText(last.columns, last.open), structured: { columns: last.columns, open: last.open, schemaFrom: used.from } };
        }),
    );

    server.registerTool(
        'explain_apl',
        {
            title: 'Explain an APL query stage by stage',
            description:
                'The schema after each stage of an APL query (the source, then each | operator), without running it. With withRowCounts, also the rows after each stage, counted by running the query up to that stage (one query per stage, from the session budget).',
            inputSchema: {
                query: queryText,
                schema: inlineSchema.optional(),
                withRowCounts: z.boolean().optional(),
                start: z.string().optional().describe('with withRowCounts: start of the time range (RFC 3339, a date, now-1h)'),
                end: z.string().optional(),
            },
            outputSchema: {
                stages: z.array(z.object({
                    index: z.number().int(),
                    operator: z.string(),
                    text: z.string(),
                    line: z.number().int(),
                    column: z.number().int(),
                    columns: z.array(column),
                    open: z.boolean(),
                    rows: z.number().int().optional(),
                })),
                schemaFrom: schemaFromText,
            },
            annotations: { readOnlyHint: true, openWorldHint: true },
        },
        guarded(async ({ query, schema, withRowCounts, start, end }: { query: string; schema?: Record<string, Record<string, string>>; withRowCounts?: boolean; start?: string; end?: string }) => {
            await refuseSyntaxErrors(query, 'nothing is explained');
            const used = schema !== undefined ? schemaFromInline(schema) : await querySchema(query);
            const found = pipelineStageSchemas(query, used.provider);
            if (!found || found.length === 0) throw new ToolProblem('the text has no query statement');
            const stages = found.map(s => ({ index: s.index, operator: s.operator, text: s.text, line: s.start.line + 1, column: s.start.character + 1, columns: s.columns, open: s.open, rows: undefined as number | undefined }));
            if (withRowCounts) {
                budget.take(stages.length);
                const startTime = timeArgument(start, 'start');
                const endTime = timeArgument(end, 'end');
                for (const [i, s] of found.entries()) {
                    const outcome = await source.run(`${query.slice(0, s.endOffset)}\n| count`, { startTime, endTime, maxRows: 1, timeoutMs: limits.timeLimitMs });
                    // `| count` gives one row of one column (`count` here, `Count` in Kusto): its only value.
                    const n = Number(Object.values(outcome.rows[0] ?? {})[0]);
                    if (!Number.isFinite(n)) throw new ToolProblem(`counting the rows after stage ${i} gave no number`);
                    stages[i].rows = n;
                }
            }
            const text = stages
                .map(s => `${s.index === 0 ? s.text : `| ${s.text}`}${s.rows !== undefined ? `   (${s.rows} rows)` : ''}\n    → ${columnsText(s.columns, s.open)}`)
                .join('\n');
            return { text, structured: { stages, schemaFrom: used.from } };
        }),
    );

    server.registerTool(
        'list_datasets',
        {
            title: 'List datasets',
            description: `The datasets the server knows: ${settings.schemaFile ? `from the schema file ${settings.schemaFile.path}` : `from ${source.description}`}.`,
            inputSchema: {},
            outputSchema: { datasets: z.array(z.object({ name: z.string(), description: z.string().optional() })), from: z.string() },
            annotations: { readOnlyHint: true },
        },
        guarded(async () => {
            const datasets: { name: string; description?: string }[] = settings.schemaFile ? settings.schemaFile.provider.datasets().map(d => ({ name: d.name })) : await source.datasets();
            const from = settings.schemaFile ? `schema file ${settings.schemaFile.path}` : source.description;
            return { text: datasets.length ? datasets.map(d => `${d.name}${d.description ? ` — ${d.description}` : ''}`).join('\n') : 'No datasets.', structured: { datasets, from } };
        }),
    );

    server.registerTool(
        'dataset_fields',
        {
            title: 'Fields of a dataset',
            description: 'The fields of a dataset and their types (from the schema file when the server has one, else from the connection).',
            inputSchema: { dataset: z.string().describe('the dataset name') },
            outputSchema: { dataset: z.string(), fields: z.array(z.object({ name: z.string(), type: z.string(), description: z.string().optional(), unit: z.string().optional() })), from: z.string() },
            annotations: { readOnlyHint: true },
        },
        guarded(async ({ dataset }: { dataset: string }) => {
            let fields;
            if (settings.schemaFile) {
                const known = settings.schemaFile.provider.dataset(dataset);
                if (!known) throw new ToolProblem(`unknown dataset '${dataset}'; the schema file names ${settings.schemaFile.provider.datasets().map(d => d.name).join(', ')}`);
                fields = known.fields;
            } else {
                fields = await source.fields(dataset);
            }
            const list = fields.map(f => ({ name: f.name, type: f.type, ...(f.description ? { description: f.description } : {}), ...(f.unit ? { unit: f.unit } : {}) }));
            const from = settings.schemaFile ? `schema file ${settings.schemaFile.path}` : source.description;
            return { text: list.map(f => `${f.name}: ${f.type}`).join('\n'), structured: { dataset, fields: list, from } };
        }),
    );

    server.registerTool(
        'run_apl',
        {
            title: 'Run an APL query (read-only)',
            description: `Runs an APL query read-only against ${source.description} and returns at most maxRows rows (default ${DEFAULT_RUN_ROWS}, at most ${limits.maxRows}), the total row count, isPartial, the elapsed time and the rows examined. Each call uses one query of the session's budget (${limits.queryBudget}); each query stops after ${limits.timeLimitMs} ms.`,
            inputSchema: {
                query: queryText,
                maxRows: z.number().int().positive().optional().describe(`rows to return (default ${DEFAULT_RUN_ROWS}, at most ${limits.maxRows})`),
                start: z.string().optional().describe('start of the time range over _time: RFC 3339, a date, or now-1h'),
                end: z.string().optional().describe('end of the time range (exclusive)'),
            },
            outputSchema: {
                columns: z.array(column),
                rows: z.array(z.record(z.string(), z.unknown())),
                total: z.number().int().describe('rows of the result'),
                returned: z.number().int(),
                truncated: z.boolean().describe('fewer rows returned than the result has'),
                isPartial: z.boolean().describe('the source stopped early: the result is incomplete'),
                elapsedMs: z.number(),
                rowsExamined: z.number(),
                rowsMatched: z.number(),
                messages: z.array(z.string()),
                queriesLeft: z.number().int().describe("queries left in this session's budget"),
            },
            annotations: { readOnlyHint: true, openWorldHint: true },
        },
        guarded(async ({ query, maxRows, start, end }: { query: string; maxRows?: number; start?: string; end?: string }) => {
            const rows = maxRows ?? Math.min(DEFAULT_RUN_ROWS, limits.maxRows);
            if (rows > limits.maxRows) throw new ToolProblem(`maxRows ${rows} is above this server's row cap of ${limits.maxRows} (apl mcp --max-rows)`);
            const startTime = timeArgument(start, 'start');
            const endTime = timeArgument(end, 'end');
            await refuseSyntaxErrors(query, 'nothing was run');
            budget.take();
            const outcome = await source.run(query, { startTime, endTime, maxRows: rows, timeoutMs: limits.timeLimitMs });
            const structured = {
                ...outcome,
                returned: outcome.rows.length,
                truncated: outcome.rows.length < outcome.total,
                queriesLeft: budget.left,
            };
            const head = `${outcome.total} row(s)${structured.truncated ? `, first ${outcome.rows.length} shown` : ''}; ${outcome.elapsedMs} ms; ${outcome.rowsExamined} rows examined${outcome.isPartial ? '; PARTIAL result' : ''}`;
            const body = outcome.rows.map(r => JSON.stringify(r)).join('\n');
            return { text: [head, ...outcome.messages, body].filter(s => s !== '').join('\n'), structured };
        }),
    );

    server.registerTool(
        'translate_apl',
        {
            title: 'Translate APL to a legacy query',
            description: 'Translates an APL query to the legacy structured query JSON (POST /v1/datasets/{dataset}/query), as apl translate does.',
            inputSchema: { query: queryText, start: z.string().optional().describe('default 1970-01-01'), end: z.string().optional().describe('default now') },
            outputSchema: { dataset: z.string(), query: z.record(z.string(), z.unknown()) },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        guarded(({ query, start, end }: { query: string; start?: string; end?: string }) => {
            const startTime = timeArgument(start, 'start') ?? '1970-01-01T00:00:00Z';
            const endTime = timeArgument(end, 'end') ?? new Date().toISOString();
            try {
                const result = translate(query, { startTime, endTime });
                return Promise.resolve({ text: JSON.stringify(result, null, 2), structured: { dataset: result.dataset, query: result.query as unknown as Record<string, unknown> } });
            } catch (e) {
                if (!(e instanceof TranslationError)) throw e;
                throw new ToolProblem(`line ${e.range.start.line + 1}, column ${e.range.start.character + 1}: ${e.message}`);
            }
        }),
    );

    server.registerTool(
        'apl_reference',
        {
            title: 'APL reference',
            description: 'The catalogue entry of an APL function, aggregation, tabular operator or scalar operator: its signatures, description and an example.',
            inputSchema: { name: z.string().describe('e.g. strcat, count, summarize, has') },
            outputSchema: {
                entries: z.array(z.object({
                    kind: z.enum(['scalar function', 'aggregation', 'tabular operator', 'scalar operator']),
                    name: z.string(),
                    aliases: z.array(z.string()),
                    signatures: z.array(z.string()),
                    description: z.string(),
                    example: z.string(),
                    axiomOnly: z.boolean(),
                })),
            },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        guarded(({ name }: { name: string }) => {
            const entries: CatalogueEntryView[] = lookupCatalogueEntry(name.trim()).map(catalogueEntryView);
            const text = entries.map(e => `${e.name} (${e.kind})\n${e.signatures.join('\n')}\n${e.description}\nExample: ${e.example}`).join('\n\n');
            return Promise.resolve({ text, structured: { entries } });
        }),
    );

    if (settings.writableDatasets.length > 0) {
        server.registerTool(
            'ingest_events',
            {
                title: 'Ingest events',
                description: `Sends events into a dataset. Allowed only into: ${settings.writableDatasets.join(', ')} (apl mcp --allow-writes).`,
                inputSchema: {
                    dataset: z.string(),
                    events: z.array(z.record(z.string(), z.unknown())).min(1).max(10_000).describe('JSON objects; _time is the event time (now when absent)'),
                },
                outputSchema: { dataset: z.string(), ingested: z.number().int(), failed: z.number().int() },
                annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
            },
            guarded(async ({ dataset, events }: { dataset: string; events: Record<string, unknown>[] }) => {
                if (!settings.writableDatasets.includes(dataset)) throw new ToolProblem(`writing into '${dataset}' is not allowed; this server may write only into ${settings.writableDatasets.join(', ')}`);
                const counts = await source.ingest(dataset, events);
                return { text: `${counts.ingested} event(s) ingested into ${dataset}${counts.failed ? `, ${counts.failed} failed` : ''}`, structured: { dataset, ...counts } };
            }),
        );
    }
}

/** A ToolProblem listing the syntax errors of `query` (read as one query), when it has any. */
async function refuseSyntaxErrors(query: string, consequence: string): Promise<void> {
    const syntax = await checkText(query, { syntaxOnly: true, queryBlocks: false });
    if (syntax.length > 0) throw new ToolProblem(`the query has syntax errors (${consequence}):\n${diagnosticLines(diagnosticsOf(syntax))}`);
}

/** The schema used offline: the schema file, else the sample datasets' fields (as `apl check`). */
function offlineSchema(settings: McpSettings): QuerySchema {
    if (settings.schemaFile) return { provider: settings.schemaFile.provider, from: `schema file ${settings.schemaFile.path}` };
    return SAMPLE_QUERY_SCHEMA;
}
