import { spawn, type ChildProcess } from 'node:child_process';
import { APL_BIN, REPO_ROOT } from './cli.js';

export interface AplServe {
    url: string;
    proc: ChildProcess;
    stdout(): string;
    stderr(): string;
    /** SIGTERM, then wait for the exit. */
    stop(): Promise<void>;
}

/**
 * Starts the BUILT `apl serve` (out/apl.cjs, or the launcher `bin` of another copy of out/) with
 * `args` and waits for its "listening on" banner.
 */
export function startAplServe(args: string[], env: NodeJS.ProcessEnv = {}, bin = APL_BIN): Promise<AplServe> {
    const proc = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, APL_TOKEN: '', AXIOM_TOKEN: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    const stop = async (): Promise<void> => {
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        const exited = new Promise(resolve => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        await exited;
    };
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            void stop();
            reject(new Error(`apl serve did not start: ${out}${err}`));
        }, 45_000);
        proc.stdout!.on('data', () => {
            const m = /listening on (http:\/\/\S+)/.exec(out);
            if (!m) return;
            clearTimeout(timer);
            resolve({ url: m[1], proc, stdout: () => out, stderr: () => err, stop });
        });
        proc.once('exit', code => {
            clearTimeout(timer);
            reject(new Error(`apl serve exited with ${code}: ${out}${err}`));
        });
    });
}
