/**
 * Issue 31: a client that connects to a starting `apl serve` (the built CLI) is never reset. Before
 * its data directory is open the service listens on its port (it used to listen for an instant to
 * find the port busy and close again, and a connection that landed in that instant was reset); from
 * then on every connection gets an answer: `503` with the message "the service is starting" and
 * `Retry-After: 1` until it is ready, then the real one. Before it listens, a connect is refused.
 * A start that fails after listening (a data directory in use) says why, answers nothing but 503
 * meanwhile, and leaves the port free and the other server's lock in place.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APL_BIN, REPO_ROOT } from '../support/cli.js';

const TOKEN = 'xaat-e2e-start-connections';
const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-start-connections-'));
const children: ChildProcess[] = [];

afterAll(async () => {
    for (const c of children) {
        if (c.exitCode === null && c.signalCode === null) {
            c.kill('SIGTERM');
            await new Promise(r => c.once('exit', r));
        }
    }
    rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
            const port = (s.address() as AddressInfo).port;
            s.close(() => resolve(port));
        });
        s.once('error', reject);
    });
}

/** What one attempt met: a refused connect, an answer (its status and message), or anything else (an error code). */
type Outcome = { kind: 'refused' } | { kind: 'answer'; status: number; message?: string; retryAfter?: string } | { kind: 'failed'; code: string };

/** GET /v2/datasets on a new connection. */
function attempt(port: number): Promise<Outcome> {
    return new Promise(resolve => {
        const req = request({ host: '127.0.0.1', port, path: '/v2/datasets', agent: false, headers: { authorization: `Bearer ${TOKEN}` } }, res => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => {
                let message: string | undefined;
                try {
                    message = (JSON.parse(text) as { message?: string }).message;
                } catch {
                    message = undefined;
                }
                resolve({ kind: 'answer', status: res.statusCode ?? 0, message, retryAfter: res.headers['retry-after'] });
            });
            res.on('error', (err: NodeJS.ErrnoException) => resolve({ kind: 'failed', code: err.code ?? err.message }));
        });
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'failed', code: err.code ?? err.message }));
        req.end();
    });
}

function serve(port: number, data: string): { child: ChildProcess; banner: Promise<boolean>; output: () => string } {
    const child = spawn(process.execPath, [APL_BIN, 'serve', '--port', String(port), '--data', data, '--no-samples'], {
        cwd: REPO_ROOT,
        env: { ...process.env, AXIOM_TOKEN: TOKEN, APL_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    // true once it says it listens; false when it exits first.
    const banner = new Promise<boolean>(resolve => {
        child.stdout!.on('data', () => {
            if (out.includes('listening on http://')) resolve(true);
        });
        child.once('exit', () => resolve(false));
    });
    return { child, banner, output: () => out };
}

/** Attempts from `loops` clients in a row each, from before the spawn until the banner, then one more each. */
async function pollThroughStart(port: number, data: string, loops = 6): Promise<{ outcomes: Outcome[]; started: boolean; child: ChildProcess; output: () => string }> {
    const outcomes: Outcome[] = [];
    let done = false;
    const s = serve(port, data);
    const clients = Array.from({ length: loops }, async () => {
        while (!done) outcomes.push(await attempt(port));
        outcomes.push(await attempt(port));
    });
    const started = await s.banner;
    done = true;
    await Promise.all(clients);
    return { outcomes, started, child: s.child, output: s.output };
}

async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await new Promise(r => child.once('exit', r));
}

describe('connections to a starting apl serve', () => {
    it('each start, new data directory or restart: every connection is refused or answered (503 "starting" or the answer), never reset', async () => {
        const data = path.join(dir, 'restarts');
        for (let start = 0; start < 4; start++) {
            const port = await freePort();
            const r = await pollThroughStart(port, data);
            expect(r.started, r.output()).toBe(true);
            const failed = r.outcomes.filter(o => o.kind === 'failed');
            expect(failed, `start ${start}: ${JSON.stringify(failed)}`).toEqual([]);
            for (const o of r.outcomes) {
                if (o.kind !== 'answer') continue;
                if (o.status === 503) expect(o).toEqual({ kind: 'answer', status: 503, message: 'the service is starting; retry shortly', retryAfter: '1' });
                else expect(o.status).toBe(200);
            }
            // The attempts made after the banner were answered.
            expect(r.outcomes.filter(o => o.kind === 'answer' && o.status === 200).length).toBeGreaterThanOrEqual(1);
            await stop(r.child);
        }
    });

    it('apl serve on a data directory in use: exits with the reason, its port is free again, the running one keeps its lock and answers', async () => {
        const data = path.join(dir, 'in-use');
        const first = serve(await freePort(), data);
        expect(await first.banner, first.output()).toBe(true);
        const firstUrl = /listening on (http:\/\/\S+)/.exec(first.output())![1]!;
        const lockFiles = readdirSync(data).sort();

        const port = await freePort();
        const r = await pollThroughStart(port, data, 2);
        expect(r.started).toBe(false);
        await new Promise(resolve => (r.child.exitCode !== null ? resolve(undefined) : r.child.once('exit', resolve)));
        expect(r.child.exitCode).not.toBe(0);
        expect(r.output()).toMatch(/in use by another running apl server/);
        // (No claim about resets here: closing a listening socket resets the connections the kernel
        // had queued and the process not yet accepted, as any server that stops does.)
        expect(r.outcomes.some(o => o.kind === 'answer' && o.status !== 503)).toBe(false);
        // Nothing listens there any more, and the data directory holds the same files.
        expect(await attempt(port)).toEqual({ kind: 'refused' });
        expect(readdirSync(data).sort()).toEqual(lockFiles);
        const res = await fetch(`${firstUrl}/v2/datasets`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.status).toBe(200);
        await stop(first.child);
    });
});
