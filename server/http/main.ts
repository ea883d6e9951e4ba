/**
 * Stand-alone entry of the service (what `apl serve` does), for tests and `node --import tsx`:
 *
 *   node --import tsx server/http/main.ts [--host 127.0.0.1] [--port 8686] [--data DIR]
 *        [--token TOKEN] [--no-samples] [--max-body-bytes N] [--max-result-rows N] [--sample-rows N]
 *        [--query-timeout MS] [--query-workers N] [--max-connections N] [--parent-pid PID]
 */
import { runServe, type ServeOptions } from './serve.js';

export function parseServeArgs(argv: readonly string[]): ServeOptions {
    const o: ServeOptions = {};
    const tokens: string[] = [];
    const num = (flag: string, v: string | undefined): number => {
        const n = Number(v);
        if (v === undefined || v.trim() === '' || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(v)}`);
        return n;
    };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const eq = a.indexOf('=');
        const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
        const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
        const value = (): string => {
            if (inline !== undefined) return inline;
            const v = argv[++i];
            if (v === undefined) throw new Error(`${flag} needs a value`);
            return v;
        };
        switch (flag) {
            case '--host': o.host = value(); break;
            case '--port': o.port = num(flag, value()); break;
            case '--data': o.dataDir = value(); break;
            case '--token': tokens.push(value()); break;
            case '--no-samples': o.samples = false; break;
            case '--max-body-bytes': o.maxBodyBytes = num(flag, value()); break;
            case '--max-result-rows': o.maxResultRows = num(flag, value()); break;
            case '--sample-rows': o.sampleRows = num(flag, value()); break;
            case '--query-timeout': o.queryTimeoutMs = num(flag, value()); break;
            case '--query-workers': o.queryWorkers = num(flag, value()); break;
            case '--max-connections': o.maxConnections = num(flag, value()); break;
            case '--parent-pid': o.parentPid = num(flag, value()); break;
            // The flag only: an inline value may be a secret (`--tokn=xaat-…`).
            default: throw new Error(`unknown option ${flag}`);
        }
    }
    if (tokens.length) o.token = tokens;
    return o;
}

const isMain = process.argv[1] !== undefined && /[\\/]server[\\/]http[\\/]main\.[cm]?[jt]s$/.test(process.argv[1]);
if (isMain) {
    let opts: ServeOptions;
    try {
        opts = parseServeArgs(process.argv.slice(2));
    } catch (err) {
        process.stderr.write(`apl serve: ${(err as Error).message}\n`);
        process.exit(2);
    }
    runServe(opts).catch((err: unknown) => {
        process.stderr.write(`apl serve: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
    });
}
