/**
 * `apl serve`: everything the CLI needs, so the CLI is a thin wrapper.
 *
 *   await runServe({ host, port, dataDir, token, samples, maxBodyBytes })
 *
 * Resolves the defaults (loopback, port 8686, `APL_DATA_DIR` or ./.apl-data, `AXIOM_TOKEN` or `APL_TOKEN`), starts
 * the service, prints the banner and closes cleanly on SIGINT/SIGTERM (the store fsyncs every
 * acknowledged batch, so a hard kill loses nothing acknowledged either).
 *
 * This module is the CLI's only way into server/: `apl token` administers the same data directory
 * through the two names re-exported below.
 */
import * as os from 'node:os';
import { createService, DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, type Service, type ServiceOptions } from './app.js';

export { resolveDataDir } from './app.js';
export { TokenStore } from '../store/tokens.js';
/** APL_START_TRACE=1's milestones (issue 31), from the CLI's serve command on. */
export { startTrace } from '../start-trace.js';

export interface ServeOptions {
    host?: string;
    port?: number;
    /** `--data DIR`. */
    dataDir?: string;
    /** `--token TOKEN` (repeatable); default `AXIOM_TOKEN`, else `APL_TOKEN`. */
    token?: string | string[];
    /** `--no-samples` → false. */
    samples?: boolean;
    maxBodyBytes?: number;
    maxResultRows?: number;
    sampleRows?: number;
    /** `--query-timeout`: the time limit of one query in ms (default 60 s). */
    queryTimeoutMs?: number;
    /** `--query-workers`: worker threads that run queries (default one per core; 0 = the main thread). */
    queryWorkers?: number;
    /** `--memory-limit`: bytes the service may hold (default half of the machine's memory). */
    memoryLimit?: number;
    /** `--max-connections`: open connections at most (default 1,024, less under a low descriptor limit). */
    maxConnections?: number;
    /** `--parent-pid`: stop (as on SIGTERM) when this process is gone, e.g. the editor that started the service. */
    parentPid?: number;
    /** Where the banner goes (default stdout). */
    out?: (text: string) => void;
    /** Diagnostics (default stderr). */
    log?: (msg: string) => void;
    /** Warnings about the options, one line each (default stderr). */
    warn?: (text: string) => void;
    /** Install SIGINT/SIGTERM handlers that close the service and exit (default true). */
    handleSignals?: boolean;
}

/**
 * Where the tokens the service accepts came from: what the banner may say about them. From the
 * environment, the variable's name: the one the `apl` commands and the official clients read
 * (AXIOM_TOKEN), or its older alias.
 */
export type TokenSource = 'argument' | 'stored' | TokenVariable;

/** The token variables, the winner first when both are set. */
export const TOKEN_VARIABLES = ['AXIOM_TOKEN', 'APL_TOKEN'] as const;
export type TokenVariable = (typeof TOKEN_VARIABLES)[number];

function isVariable(source: TokenSource): source is TokenVariable {
    return (TOKEN_VARIABLES as readonly string[]).includes(source);
}

/**
 * The start-up banner. It shows a token only when the service generated it (once, at the first
 * start); a token given by the user is never echoed (it would end up in terminal logs), and a
 * stored one cannot be: only its hash is kept.
 */
export function banner(
    service: Pick<Service, 'url' | 'host' | 'port' | 'dataDir' | 'generatedToken' | 'samplesLoaded' | 'recovered'>,
    tokenSource: TokenSource = 'stored',
    interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string {
    const token = service.generatedToken ?? (isVariable(tokenSource) ? `$${tokenSource}` : '<your token>');
    const lines = [`APL Dataset Query and Ingest Service listening on ${service.url}`];
    if (WILDCARD_HOSTS.has(service.host)) {
        lines.push(`  listening on every network interface (${service.host}), reachable from other machines at:`);
        for (const address of interfaceAddresses(interfaces, service.host === '0.0.0.0')) lines.push(`    http://${address}:${service.port}`);
    }
    const { datasets, events } = service.recovered;
    // The events load into memory after the server listens: requests that need them wait for it.
    lines.push(`  data directory: ${service.dataDir} (${datasets} datasets, ${events} events${events > 0 ? ', loading into memory' : ''})`);
    if (service.samplesLoaded.length) lines.push(`  sample datasets loaded: ${service.samplesLoaded.join(', ')}`);
    if (service.generatedToken) {
        lines.push(
            '',
            `  API token (shown once, only its hash is stored): ${service.generatedToken}`,
            '  Keep it: it is not printed again. Set AXIOM_TOKEN to use your own instead.',
        );
    } else if (tokenSource === 'stored') {
        lines.push(
            '',
            '  API tokens are stored hashed, so they cannot be shown again. To make a new one:',
            `    apl token create --data ${shellQuote(service.dataDir)}`,
        );
    }
    lines.push(
        '',
        'Set these in your shell: the apl commands, curl and the official clients read them.',
        `  export AXIOM_URL=${service.url} AXIOM_TOKEN=${token}`,
        '',
        'curl:',
        `  curl -s -X POST "$AXIOM_URL/v2/datasets" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/json' -d '{"name":"my-logs"}'`,
        `  curl -s -X POST "$AXIOM_URL/v1/datasets/my-logs/ingest" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/x-ndjson' --data-binary $'{"level":"info","msg":"hello"}\\n{"level":"error","msg":"boom"}'`,
        `  curl -s -X POST "$AXIOM_URL/v1/datasets/_apl?format=tabular" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/json' -d '{"apl":"[\\"my-logs\\"] | summarize count() by level","startTime":"now-1d","endTime":"now"}'`,
        '',
        'apl (npx apl inside the project folder):',
        `  apl datasets list`,
        `  printf '{"level":"warn","msg":"disk full"}\\n' | apl ingest my-logs -`,
        `  apl query "['my-logs'] | summarize count() by level"`,
        '',
        '@axiomhq/js:',
        `  import { Axiom } from '@axiomhq/js';`,
        `  const axiom = new Axiom({ token: process.env.AXIOM_TOKEN, url: '${service.url}' });`,
        `  axiom.ingest('my-logs', [{ level: 'info', msg: 'hello' }]); await axiom.flush();`,
        `  const res = await axiom.query("['my-logs'] | where level == 'error'");`,
        '',
        `axiom-go / axiom CLI: AXIOM_URL=${service.url} AXIOM_TOKEN=${token} (see docs/service.md)`,
    );
    return lines.join('\n') + '\n';
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** The addresses of this machine's interfaces (IPv4 only for 0.0.0.0; both for `::`). */
function interfaceAddresses(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]>, ipv4Only: boolean): string[] {
    const out: string[] = [];
    for (const infos of Object.values(interfaces)) {
        for (const i of infos ?? []) {
            if (i.family === 'IPv4') out.push(i.address);
            else if (!ipv4Only && !i.address.startsWith('fe80:')) out.push(`[${i.address}]`);
        }
    }
    return out;
}

function shellQuote(s: string): string {
    return /^[\w./:@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The official Go clients (axiom-go, the axiom CLI) refuse tokens without these prefixes. */
export const OFFICIAL_TOKEN_PREFIXES = ['xaat-', 'xapt-'] as const;

/**
 * Warnings about the tokens the service is told to accept, for stderr. They never contain the
 * token itself: only which one (by position) is meant.
 */
export function tokenWarnings(tokens: readonly string[], source: TokenSource): string[] {
    const from = isVariable(source) ? source : '--token';
    const unprefixed = tokens.map((t, i) => ({ t, i })).filter(({ t }) => !OFFICIAL_TOKEN_PREFIXES.some(p => t.startsWith(p)));
    return unprefixed.map(({ i }) => {
        const which = tokens.length > 1 ? `the ${ordinal(i + 1)} ${from} token` : `the ${from} token`;
        return (
            `warning: ${which} does not start with xaat- or xapt-. This service accepts it, but axiom-go and the ` +
            `axiom CLI refuse such tokens before sending a request. Use a token like the ones 'apl token create' makes.`
        );
    });
}

function ordinal(n: number): string {
    return n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`;
}

export async function runServe(options: ServeOptions = {}): Promise<Service> {
    const out = options.out ?? ((t: string) => process.stdout.write(t));
    const warn = options.warn ?? ((text: string) => process.stderr.write(text + '\n'));
    const tokens: string[] = [];
    const given = options.token === undefined ? [] : Array.isArray(options.token) ? options.token : [options.token];
    tokens.push(...given.filter((t) => t !== ''));
    let source: TokenSource = tokens.length > 0 ? 'argument' : 'stored';
    const variable = tokens.length === 0 ? TOKEN_VARIABLES.find((name) => process.env[name]) : undefined;
    if (variable !== undefined) {
        tokens.push(process.env[variable]!);
        source = variable;
    }
    for (const w of tokenWarnings(tokens, source)) warn(w);
    const svcOptions: ServiceOptions = {
        host: options.host ?? DEFAULT_HOST,
        port: options.port ?? DEFAULT_PORT,
        dataDir: options.dataDir,
        tokens,
        samples: options.samples ?? true,
        sampleRows: options.sampleRows,
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        maxResultRows: options.maxResultRows,
        queryTimeoutMs: options.queryTimeoutMs,
        queryWorkers: options.queryWorkers,
        memoryLimit: options.memoryLimit,
        maxConnections: options.maxConnections,
        log: options.log,
    };
    const service = await createService(svcOptions);
    out(banner(service, source));
    if (options.handleSignals !== false || options.parentPid !== undefined) {
        let stopping = false;
        const stop = (reason: string): void => {
            if (stopping) {
                process.exit(130);
            }
            stopping = true;
            out(`${reason}, shutting down\n`);
            service.close().then(
                () => process.exit(0),
                (err: unknown) => {
                    process.stderr.write(`error while shutting down: ${String(err)}\n`);
                    process.exit(1);
                },
            );
        };
        if (options.handleSignals !== false) {
            process.on('SIGINT', () => stop('received SIGINT'));
            process.on('SIGTERM', () => stop('received SIGTERM'));
        }
        if (options.parentPid !== undefined) watchParent(options.parentPid, () => stop(`the parent process ${options.parentPid} has ended`));
    }
    return service;
}

/** How often `--parent-pid` is checked: the data directory's lock is released at most this long after the parent ends. */
const PARENT_CHECK_MS = 1000;

/**
 * Calls `gone` once process `pid` has ended (as the language server watches `--clientProcessId`).
 * When `pid` is this process's parent, being re-parented also means it ended: a parent killed but
 * not yet reaped still answers signal 0.
 */
export function watchParent(pid: number, gone: () => void): void {
    const wasParent = process.ppid === pid;
    const timer = setInterval(() => {
        if (isRunning(pid) && !(wasParent && process.ppid !== pid)) return;
        clearInterval(timer);
        gone();
    }, PARENT_CHECK_MS);
    timer.unref();
}

function isRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        // EPERM: it exists, owned by another user.
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}
