/**
 * `apl serve --parent-pid PID` does not outlive the process that started it (the extension host
 * passes its own pid): a parent killed with SIGKILL (no deactivate, no SIGTERM to the child) still
 * ends the service, which releases the data directory's lock, so a new `apl serve` on the same
 * directory starts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAplServe } from '../support/apl-serve.js';
import { APL_BIN, REPO_ROOT } from '../support/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-parent-'));
let orphanPid: number | undefined;

afterAll(() => {
    // Only if the test failed and left it running: the pid of the service this file started.
    if (orphanPid !== undefined) {
        try {
            process.kill(orphanPid, 'SIGKILL');
        } catch {
            // already gone
        }
    }
    rmSync(dir, { recursive: true, force: true });
});

/** A parent process that starts `apl serve --parent-pid <its pid>`, prints the service's pid and then waits forever. */
const PARENT = `
const { spawn } = require('node:child_process');
const [bin, dir] = process.argv.slice(1);
const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data', dir, '--no-samples', '--parent-pid', String(process.pid)], { stdio: ['ignore', 'inherit', 'inherit'] });
process.stdout.write('service pid ' + child.pid + '\\n');
child.on('exit', (code) => process.stdout.write('service exited with ' + code + '\\n'));
setInterval(() => {}, 1 << 30);
`;

describe('apl serve --parent-pid', () => {
    it('stops when its parent is killed with SIGKILL, and releases the data directory', async () => {
        const parent = spawn(process.execPath, ['-e', PARENT, APL_BIN, dir], {
            cwd: REPO_ROOT,
            env: { ...process.env, AXIOM_TOKEN: 'xaat-e2e-parent', APL_TOKEN: '' },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
        parent.stderr.on('data', (d: Buffer) => (out += d.toString()));
        // The service writes to the same pipe (inherited): it closes once the service has exited too.
        const pipeClosed = new Promise<void>(resolve => parent.stdout.once('close', () => resolve()));
        await new Promise<void>((resolve, reject) => {
            parent.stdout.on('data', () => {
                if (/listening on http:\/\//.test(out)) resolve();
                if (/service exited/.test(out)) reject(new Error(`apl serve did not start: ${out}`));
            });
            void pipeClosed.then(() => reject(new Error(`apl serve did not start: ${out}`)));
        });
        orphanPid = Number(/service pid (\d+)/.exec(out)![1]);

        parent.kill('SIGKILL');
        await pipeClosed;
        expect(out).toMatch(new RegExp(`the parent process ${parent.pid} has ended, shutting down`));
        orphanPid = undefined;

        // The lock is released: a new service on the same directory starts.
        const next = await startAplServe(['--data', dir, '--no-samples'], { AXIOM_TOKEN: 'xaat-e2e-parent' });
        await next.stop();
        expect(next.stdout()).toMatch(/listening on http:\/\//);
    }, 90_000);
});
