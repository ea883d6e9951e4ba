import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { localSource, serviceSource, type DataSource } from '../../mcp/data-source.js';
import { DEFAULT_MAX_SESSIONS, isLoopbackHost, serveMcpOverHttp } from '../../mcp/http.js';
import { redactorFor } from '../../mcp/redact.js';
import { createAplMcpServer } from '../../mcp/server.js';
import { DEFAULT_LIMITS, type McpSettings } from '../../mcp/session.js';
import { CliError } from '../cli-error.js';
import { clientFrom, CONNECTION_ENV, CONNECTION_OPTIONS, CONNECTION_USAGE, envValue, warnAboutTokenArgument } from '../connection.js';
import { parseDataSpec } from '../load-data.js';
import { parseIntOption } from '../options.js';
import { helpPointer } from '../usage-error.js';
import { loadSchema } from './check.js';

export const MCP_USAGE = `apl mcp [--http PORT [--host ADDR] [--max-sessions N]] [--url URL] [--token TOKEN] [--org-id ID] [--local]
        [--data NAME=PATH]... [--schema FILE] [--time-limit MS] [--max-rows N] [--query-budget N]
        [--allow-writes DATASET]...

Runs a Model Context Protocol server for agents (Claude, Copilot, Cursor, …): tools to check, format,
explain, type and run APL, the catalogue and the diagnostic codes as resources. Over standard input
and output by default (the client starts 'apl mcp'), or streamable HTTP with --http.
Read-only: queries run, nothing is written, unless --allow-writes names a dataset.
  --http PORT          serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0: any port)
  --host ADDR          the address to listen on with --http (default 127.0.0.1; another address lets
                       other machines use the server and its connection: think twice)
  --max-sessions N     HTTP sessions kept (default ${DEFAULT_MAX_SESSIONS}); a new one ends the least recently used
${CONNECTION_USAGE}
                   A connection is used when --url or AXIOM_URL/APL_URL is set; without one (or with
                   --local or --data) queries run locally over the sample datasets and --data files.
  --local              run queries with the local evaluator even when a connection is configured
  --data NAME=PATH     load PATH as dataset NAME for local queries (repeatable; as apl run --data)
  --schema FILE        datasets and fields for check_apl, result_schema, list_datasets and dataset_fields
                       (a schema file, docs/schema-file.md) instead of asking the connection
  --time-limit MS      each query stops after MS milliseconds (default ${DEFAULT_LIMITS.timeLimitMs})
  --max-rows N         run_apl returns at most N rows a call (default ${DEFAULT_LIMITS.maxRows}; 100 unless the agent asks)
  --query-budget N     queries a session may run (default ${DEFAULT_LIMITS.queryBudget})
  --allow-writes DATASET  add the ingest_events tool, writing only into DATASET (repeatable)`;

export async function runMcpCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            ...CONNECTION_OPTIONS,
            http: { type: 'string' },
            host: { type: 'string' },
            'max-sessions': { type: 'string' },
            local: { type: 'boolean', default: false },
            data: { type: 'string', multiple: true },
            schema: { type: 'string' },
            'time-limit': { type: 'string' },
            'max-rows': { type: 'string' },
            'query-budget': { type: 'string' },
            'allow-writes': { type: 'string', multiple: true },
            'read-only': { type: 'boolean', default: false },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(MCP_USAGE + '\n');
        return 0;
    }
    if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}' (apl mcp takes only options)\n${helpPointer('mcp')}`);
    const writable = values['allow-writes'] ?? [];
    if (values['read-only'] && writable.length > 0) throw new CliError('--read-only and --allow-writes contradict each other');
    if ((values.host !== undefined || values['max-sessions'] !== undefined) && values.http === undefined) throw new CliError('--host and --max-sessions go with --http');
    const maxSessions = values['max-sessions'] !== undefined ? parseIntOption('--max-sessions', values['max-sessions'], 1) : DEFAULT_MAX_SESSIONS;
    const port = values.http !== undefined ? parseIntOption('--http', values.http, 0, 65_535) : undefined;
    const host = values.host ?? '127.0.0.1';
    const limits = {
        timeLimitMs: values['time-limit'] !== undefined ? parseIntOption('--time-limit', values['time-limit'], 1) : DEFAULT_LIMITS.timeLimitMs,
        maxRows: values['max-rows'] !== undefined ? parseIntOption('--max-rows', values['max-rows'], 1, 50_000) : DEFAULT_LIMITS.maxRows,
        queryBudget: values['query-budget'] !== undefined ? parseIntOption('--query-budget', values['query-budget'], 0) : DEFAULT_LIMITS.queryBudget,
    };
    const data = (values.data ?? []).map(parseDataSpec);
    warnAboutTokenArgument(values, err, 'mcp', 'the AXIOM_TOKEN environment variable in the MCP client\'s "env"');
    const token = values.token ?? envValue(process.env, CONNECTION_ENV.token)?.value;
    const redact = redactorFor([token]);
    const useService = !values.local && data.length === 0 && (values.url !== undefined || envValue(process.env, CONNECTION_ENV.url) !== undefined);
    const source: DataSource = useService ? serviceSource(clientFrom(values)) : await localSource(data);
    const schemaFile = values.schema !== undefined ? { path: values.schema, provider: loadSchema(values.schema) } : undefined;
    const settings: McpSettings = { source, schemaFile, limits, writableDatasets: writable, redact };
    const mode = writable.length > 0 ? `writes allowed into ${writable.join(', ')}` : 'read-only';

    if (port === undefined) {
        const server = createAplMcpServer(settings);
        const closed = new Promise<number>(resolve => {
            process.stdin.once('end', () => resolve(0));
            process.stdin.once('close', () => resolve(0));
        });
        await server.connect(new StdioServerTransport());
        err.write(redact(`apl mcp: serving MCP over stdio; queries run against ${source.description} (${mode})\n`));
        const code = await closed;
        await server.close();
        return code;
    }
    if (!isLoopbackHost(host)) err.write(`apl mcp: warning: listening on ${host}: other machines can use this server and its connection\n`);
    const http = await serveMcpOverHttp(host, port, () => createAplMcpServer(settings), line => err.write(redact(line) + '\n'), maxSessions);
    err.write(redact(`apl mcp: listening on ${http.url}; queries run against ${source.description} (${mode})\n`));
    return new Promise<number>(resolve => {
        const stop = () => {
            void http.close().then(() => resolve(0));
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
    });
}
