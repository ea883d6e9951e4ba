/**
 * `APL: Start Local Service`: runs the bundled `apl serve` (dist/apl-cli.cjs) as a child process on
 * a free loopback port, over a data directory in the extension's global storage (the sample datasets
 * are loaded on its first start), with a token generated for this window and passed through the
 * environment (never on the command line, where `ps` shows it). Stopped when the window closes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export interface RunningService {
    url: string;
    token: string;
    pid: number;
}

export class LocalService {
    private child: ChildProcess | undefined;
    private running: RunningService | undefined;

    constructor(
        private readonly distDir: string,
        private readonly dataDir: string,
        private readonly log: (line: string) => void,
    ) {}

    get current(): RunningService | undefined {
        return this.running;
    }

    async start(timeoutMs = 60_000): Promise<RunningService> {
        if (this.running) return this.running;
        const token = `xaat-${randomBytes(16).toString('hex')}`;
        // --parent-pid: a killed extension host (no deactivate, no SIGTERM) must not leave the service
        // running and its data directory locked.
        const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--data', this.dataDir, '--parent-pid', String(process.pid)];
        const child = fork(join(this.distDir, 'apl-cli.cjs'), args, {
            // apl serve takes AXIOM_TOKEN before APL_TOKEN: the user's own AXIOM_TOKEN must not replace this one.
            env: { ...process.env, AXIOM_TOKEN: token, APL_TOKEN: token },
            stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        });
        this.child = child;
        const url = await new Promise<string>((resolve, reject) => {
            let out = '';
            const timer = setTimeout(() => fail(new Error(`apl serve did not start within ${timeoutMs / 1000} s`)), timeoutMs);
            const fail = (e: Error) => {
                clearTimeout(timer);
                child.kill();
                reject(e);
            };
            child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
                out += chunk;
                const m = /listening on (http:\/\/\S+)/.exec(out);
                if (m) {
                    clearTimeout(timer);
                    resolve(m[1]);
                }
            });
            child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.log(chunk.trimEnd()));
            child.once('exit', code => fail(new Error(`apl serve exited with code ${code} before it was ready`)));
            child.once('error', e => fail(e));
        });
        child.on('exit', () => {
            if (this.child === child) {
                this.child = undefined;
                this.running = undefined;
            }
        });
        this.running = { url, token, pid: child.pid! };
        this.log(`apl serve listening on ${url} (data: ${this.dataDir})`);
        return this.running;
    }

    stop(): void {
        this.child?.kill('SIGTERM');
        this.child = undefined;
        this.running = undefined;
    }
}
