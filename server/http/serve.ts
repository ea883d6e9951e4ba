/**
 * `apl serve`: everything the CLI needs, so the CLI is a thin wrapper.
 *
 *   await runServe({ host, port, dataDir, token, samples, maxBodyBytes })
 *
 * Resolves the defaults (loopback, port 8686, `APL_DATA_DIR` or ./.apl-data, `APL_TOKEN`), starts
 * the service, prints the banner and closes cleanly on SIGINT/SIGTERM (the store fsyncs every
 * acknowledged batch, so a hard kill loses nothing acknowledged either).
 */
import { createService, DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, type Service, type ServiceOptions } from './app.js';

export interface ServeOptions {
    host?: string;
    port?: number;
    /** `--data DIR`. */
    dataDir?: string;
    /** `--token TOKEN` (repeatable); default `APL_TOKEN`. */
    token?: string | string[];
    /** `--no-samples` → false. */
    samples?: boolean;
    maxBodyBytes?: number;
    maxResultRows?: number;
    sampleRows?: number;
    /** Where the banner goes (default stdout). */
    out?: (text: string) => void;
    /** Diagnostics (default stderr). */
    log?: (msg: string) => void;
    /** Install SIGINT/SIGTERM handlers that close the service and exit (default true). */
    handleSignals?: boolean;
}

/**
 * The start-up text. It shows a token only when it generated one (that is the only way to learn
 * it); a token given with --token/APL_TOKEN is never echoed (stdout often ends up in logs).
 */
export function banner(service: Pick<Service, 'url' | 'dataDir' | 'generatedToken' | 'samplesLoaded' | 'recovered'>): string {
    const token = service.generatedToken ?? '<your token>';
    const lines = [
        `APL Dataset Query and Ingest Service listening on ${service.url}`,
        `  data directory: ${service.dataDir} (${service.recovered.datasets} datasets, ${service.recovered.events} events recovered)`,
    ];
    if (service.samplesLoaded.length) lines.push(`  sample datasets loaded: ${service.samplesLoaded.join(', ')}`);
    if (service.generatedToken) {
        lines.push(
            '',
            `  API token (shown once, only its hash is stored): ${service.generatedToken}`,
            '  Keep it: it is not printed again. Pass --token or APL_TOKEN to use your own instead.',
        );
    }
    lines.push(
        '',
        'curl:',
        `  export AXIOM_URL=${service.url} AXIOM_TOKEN=${token}`,
        `  curl -s -X POST "$AXIOM_URL/v2/datasets" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/json' -d '{"name":"my-logs"}'`,
        `  curl -s -X POST "$AXIOM_URL/v1/datasets/my-logs/ingest" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/x-ndjson' --data-binary $'{"level":"info","msg":"hello"}\\n{"level":"error","msg":"boom"}'`,
        `  curl -s -X POST "$AXIOM_URL/v1/datasets/_apl?format=tabular" -H "Authorization: Bearer $AXIOM_TOKEN" -H 'Content-Type: application/json' -d '{"apl":"[\\"my-logs\\"] | summarize count() by level","startTime":"now-1d","endTime":"now"}'`,
        '',
        '@axiomhq/js:',
        `  import { Axiom } from '@axiomhq/js';`,
        `  const axiom = new Axiom({ token: '${token}', url: '${service.url}' });`,
        `  axiom.ingest('my-logs', [{ level: 'info', msg: 'hello' }]); await axiom.flush();`,
        `  const res = await axiom.query("['my-logs'] | where level == 'error'");`,
        '',
        `axiom-go / axiom CLI: AXIOM_URL=${service.url} AXIOM_TOKEN=${token} (see docs/service.md)`,
    );
    return lines.join('\n') + '\n';
}

export async function runServe(options: ServeOptions = {}): Promise<Service> {
    const out = options.out ?? ((t: string) => process.stdout.write(t));
    const tokens: string[] = [];
    const given = options.token === undefined ? [] : Array.isArray(options.token) ? options.token : [options.token];
    tokens.push(...given.filter((t) => t !== ''));
    if (tokens.length === 0 && process.env.APL_TOKEN) tokens.push(process.env.APL_TOKEN);
    const svcOptions: ServiceOptions = {
        host: options.host ?? DEFAULT_HOST,
        port: options.port ?? DEFAULT_PORT,
        dataDir: options.dataDir,
        tokens,
        samples: options.samples ?? true,
        sampleRows: options.sampleRows,
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        maxResultRows: options.maxResultRows,
        log: options.log,
    };
    const service = await createService(svcOptions);
    out(banner(service));
    if (options.handleSignals !== false) {
        let stopping = false;
        const stop = (signal: NodeJS.Signals): void => {
            if (stopping) {
                process.exit(130);
            }
            stopping = true;
            out(`received ${signal}, shutting down\n`);
            service.close().then(
                () => process.exit(0),
                (err: unknown) => {
                    process.stderr.write(`error while shutting down: ${String(err)}\n`);
                    process.exit(1);
                },
            );
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
    }
    return service;
}
