import { parseArgs } from 'node:util';
import { runServe, startTrace } from '../../../server/http/serve.js';

/** The service's data directory and its tokens, for `apl token` (this file is the CLI's one import from server/). */
export { resolveDataDir, TokenStore } from '../../../server/http/serve.js';
import { CliError } from '../cli-error.js';
import { warnAboutTokenArgument } from '../connection.js';
import { helpPointer } from '../usage-error.js';
import { parseDurationOption, parseIntOption, parseSizeOption } from '../options.js';

export const SERVE_USAGE = `apl serve [--host 127.0.0.1] [--port 8686] [--data DIR] [--token TOKEN]... [--no-samples]
          [--max-body-bytes N] [--query-timeout D] [--query-workers N] [--memory-limit SIZE]
          [--max-connections N] [--parent-pid PID]

Runs the Dataset Query and Ingest Service: an Axiom-compatible HTTP endpoint over a local data
directory. Point the official clients (or apl query / apl ingest) at the URL it prints.
  --host HOST          interface to listen on (default 127.0.0.1, loopback only; 0.0.0.0 = every
                       interface, reachable from other machines)
  --port N             port (default 8686; 0 picks a free one)
  --data DIR           data directory (default APL_DATA_DIR or ./.apl-data)
  --token TOKEN        accept this API token (repeatable; default AXIOM_TOKEN, or its alias
                       APL_TOKEN). Prefer the variable or a stored token (apl token create): other
                       users can read process arguments.
                       Without any token and none stored, one is generated on the first start and
                       printed once. Tokens should start with xaat- or xapt- (axiom-go and the axiom
                       CLI refuse others)
  --no-samples         do not load the sample datasets on the first start
  --max-body-bytes N   largest ingest body after decompression (default 64 MiB)
  --query-timeout D    time limit of one query, as a duration (30s, 2m, 500ms; default 60s): a
                       query still running then is stopped and answers 400 "query timeout"
  --query-workers N    threads that run queries (default one per core). Queries never block
                       ingest or other requests; 0 runs them on the main thread (not advised)
  --memory-limit SIZE  memory the service may use for events (512m, 4g; default half of the
                       machine's memory). A dataset that does not fit keeps its blocks on disk,
                       and queries read the blocks they need (docs/service.md, "Memory")
  --max-connections N  open connections at most (default 1024, less under a low open-file limit). At
                       the cap the connection idle the longest is closed to make room; when all are
                       busy a new one gets 503 "too many open connections"
  --parent-pid PID     stop when process PID ends (what an editor that starts the service passes, so
                       that the service and its data directory's lock do not outlive it)
Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.`;

export async function runServeCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    startTrace('serve command');
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            host: { type: 'string' },
            port: { type: 'string' },
            data: { type: 'string' },
            token: { type: 'string', multiple: true },
            'no-samples': { type: 'boolean', default: false },
            'max-body-bytes': { type: 'string' },
            'query-timeout': { type: 'string' },
            'query-workers': { type: 'string' },
            'memory-limit': { type: 'string' },
            'max-connections': { type: 'string' },
            'parent-pid': { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(SERVE_USAGE + '\n');
        return 0;
    }
    if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}' (apl serve takes only options)\n${helpPointer('serve')}`);
    const port = values.port !== undefined ? parseIntOption('--port', values.port, 0, 65535) : undefined;
    warnAboutTokenArgument(values, err, 'serve', "AXIOM_TOKEN or a stored token ('apl token create')");
    const maxBodyBytes = values['max-body-bytes'] !== undefined ? parseIntOption('--max-body-bytes', values['max-body-bytes'], 1) : undefined;
    const queryTimeoutMs = values['query-timeout'] !== undefined ? parseDurationOption('--query-timeout', values['query-timeout']) : undefined;
    const queryWorkers = values['query-workers'] !== undefined ? parseIntOption('--query-workers', values['query-workers'], 0, 256) : undefined;
    const memoryLimit = values['memory-limit'] !== undefined ? parseSizeOption('--memory-limit', values['memory-limit'], 16 * 1024 * 1024) : undefined;
    const maxConnections = values['max-connections'] !== undefined ? parseIntOption('--max-connections', values['max-connections'], 1, 1_000_000) : undefined;
    const parentPid = values['parent-pid'] !== undefined ? parseIntOption('--parent-pid', values['parent-pid'], 1) : undefined;
    try {
        await runServe({
            host: values.host,
            port,
            dataDir: values.data,
            token: values.token,
            samples: !values['no-samples'],
            maxBodyBytes,
            queryTimeoutMs,
            queryWorkers,
            memoryLimit,
            maxConnections,
            parentPid,
            out: text => out.write(text),
            warn: text => err.write(`apl serve: ${text}\n`),
        });
    } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE') throw new CliError(`cannot listen on ${values.host ?? '127.0.0.1'}:${port ?? 8686}: the address is already in use (try --port)`);
        if (err.code === 'EACCES') throw new CliError(`cannot listen on port ${port ?? 8686}: permission denied`);
        if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw new CliError(`cannot listen on host '${values.host}': ${err.message}`);
        throw new CliError(`cannot start the service: ${err.message ?? String(e)}`);
    }
    // The listening server keeps the process alive; runServe handles SIGINT/SIGTERM.
    return 0;
}
