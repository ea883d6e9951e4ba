/**
 * Runs the service as a child process (`node --import tsx server/http/main.ts`, what `apl serve`
 * does) on a free loopback port, for the end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain .mjs module without type declarations (the plugin the real bundles use)
import { noSketchProtobuf } from '../../../scripts/bundles.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ChildServer {
    url: string;
    proc: ChildProcess;
    output(): string;
    /** SIGTERM and wait for exit. */
    stop(): Promise<number | null>;
    /** SIGKILL and wait for exit. */
    kill(): Promise<void>;
}

let bundle: Promise<string> | undefined;

/**
 * Bundles server/http/main.ts (and its compaction, ingest and query workers beside it) with esbuild, once per
 * test process, exactly as esbuild.mjs bundles the CLI: a bundled start takes ~1.5 s where tsx
 * needs several seconds on a loaded machine, which matters for the kill/restart loops.
 */
export function serveBundle(): Promise<string> {
    bundle ??= (async () => {
        const esbuild = await import('esbuild');
        const outdir = path.join(mkdtempSync(path.join(tmpdir(), 'apl-serve-bundle-')), 'server', 'http');
        mkdirSync(outdir, { recursive: true });
        await esbuild.build({
            absWorkingDir: REPO,
            bundle: true,
            platform: 'node',
            target: 'node20',
            format: 'cjs',
            logLevel: 'error',
            external: ['@duckdb/node-api', 'vscode'],
            // Named as scripts/bundles.mjs names them: the service looks for these files beside its bundle.
            entryPoints: {
                main: 'server/http/main.ts',
                'compact-worker': 'server/store/compact-worker.ts',
                'ingest-worker': 'server/ingest/prepare-worker.ts',
                'query-worker': 'server/query/query-worker.ts',
            },
            outdir,
            outExtension: { '.js': '.cjs' },
            plugins: [noSketchProtobuf],
        });
        return path.join(outdir, 'main.cjs');
    })();
    return bundle;
}

export async function spawnServer(opts: { dataDir: string; token?: string; args?: string[]; timeoutMs?: number; bundled?: boolean }): Promise<ChildServer> {
    const entry = opts.bundled ? [await serveBundle()] : ['--import', 'tsx', path.join(REPO, 'server/http/main.ts')];
    const args = [...entry, '--host', '127.0.0.1', '--port', '0', '--data', opts.dataDir];
    if (opts.token) args.push('--token', opts.token);
    args.push(...(opts.args ?? ['--no-samples']));
    const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, APL_TOKEN: '', AXIOM_TOKEN: '' } });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), opts.timeoutMs ?? 45_000);
        const check = (): void => {
            const m = /listening on (http:\/\/[^\s]+)/.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve(m[1]);
            }
        };
        proc.stdout!.on('data', check);
        proc.once('exit', (code) => {
            clearTimeout(timer);
            reject(new Error(`server exited with ${code} before listening:\n${out}`));
        });
    });
    return {
        url,
        proc,
        output: () => out,
        async stop() {
            if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
            proc.kill('SIGTERM');
            return exited;
        },
        async kill() {
            if (proc.exitCode !== null || proc.signalCode !== null) return;
            proc.kill('SIGKILL');
            await exited;
        },
    };
}
