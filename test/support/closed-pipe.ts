import { spawn } from 'node:child_process';
import { APL_BIN, REPO_ROOT, type CliResult } from './cli.js';

/**
 * Runs the built `apl` like `apl … | head -c N`: reads the first bytes of its standard output, then
 * closes the pipe while the command is still writing. Returns how it ended and what it printed.
 */
export function runAplIntoClosedPipe(args: string[], env: NodeJS.ProcessEnv = {}, keepBytes = 200): Promise<CliResult & { head: string }> {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [APL_BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let head = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => {
            if (head.length >= keepBytes) return;
            head += b.toString();
            if (head.length >= keepBytes) child.stdout.destroy();
        });
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('error', reject);
        child.on('close', code => resolve({ code, stdout: head, stderr, head }));
    });
}
