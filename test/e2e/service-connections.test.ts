/**
 * Idle connections cannot lock everyone out of a real `apl serve` (the built CLI), started under a
 * low open-file limit (256, as on a machine whose hard limit is low): hundreds of idle,
 * unauthenticated loopback sockets are bounded by the connection cap, each one closed to make room
 * is told why (503), and a client can still query.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAplServe } from '../support/apl-serve.js';
import { APL_BIN, REPO_ROOT } from '../support/cli.js';

const TOKEN = 'xaat-e2e-connections';
const IDLE = 400;
/** What the service keeps under an open-file limit of 256 (connection-guard.ts: the limit less 128 reserved). */
const CAP_UNDER_256 = 128;
const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-connections-'));
let proc: ChildProcess;
let url: string;
let port: number;

interface IdleSocket {
    socket: net.Socket;
    received: string;
    closed: Promise<void>;
}

const idle: IdleSocket[] = [];

function openIdle(): Promise<IdleSocket> {
    return new Promise((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        const s: IdleSocket = { socket, received: '', closed: new Promise(r => socket.once('close', () => r())) };
        socket.on('data', (d: Buffer) => (s.received += d.toString()));
        socket.on('error', () => undefined);
        socket.once('connect', () => resolve(s));
        socket.once('error', reject);
    });
}

beforeAll(async () => {
    // `ulimit -n` in sh sets the soft and the hard limit: Node cannot raise it past 256.
    proc = spawn('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, APL_BIN, 'serve', '--port', '0', '--data', dir, '--no-samples'], {
        cwd: REPO_ROOT,
        env: { ...process.env, AXIOM_TOKEN: TOKEN, APL_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    url = await new Promise<string>((resolve, reject) => {
        proc.stdout!.on('data', () => {
            const m = /listening on (http:\/\/\S+)/.exec(out);
            if (m) resolve(m[1]);
        });
        proc.once('exit', code => reject(new Error(`apl serve exited with ${code}: ${out}`)));
    });
    port = Number(new URL(url).port);
}, 60_000);

afterAll(async () => {
    for (const s of idle) s.socket.destroy();
    if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise(r => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
    }
    rmSync(dir, { recursive: true, force: true });
});

describe('apl serve under an open-file limit of 256', () => {
    it(`${IDLE} idle connections: the ones past the cap are told why, and a client still queries`, async () => {
        for (let i = 0; i < IDLE; i++) idle.push(await openIdle());
        // Every socket past the cap is closed to make room, with the 503 that says why.
        const told = idle.map(s => s.closed.then(() => /^HTTP\/1\.1 503 /.test(s.received) && /too many open connections/.test(s.received)));
        let refused = 0;
        await new Promise<void>(resolve => {
            for (const t of told) {
                void t.then(ok => {
                    if (ok && ++refused === IDLE - CAP_UNDER_256) resolve();
                });
            }
        });
        expect(proc.exitCode).toBeNull();
        const res = await fetch(`${url}/v1/datasets/_apl?format=tabular`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ apl: 'print x = 1' }),
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { tables: { columns: unknown[][] }[] };
        expect(body.tables[0].columns[0]).toEqual([1]);
        const refusal = idle.find(s => s.received.startsWith('HTTP/1.1 503'))!.received;
        expect(refusal).toMatch(/Retry-After: 1/);
        expect(refusal).toContain('"message":"too many open connections: the service holds at most 128 (apl serve --max-connections); retry shortly"');
    }, 120_000);
});

describe('apl serve --max-connections 2', () => {
    it('both connections busy (request bodies still arriving): a new client gets 503 "too many open connections"', async () => {
        const server = await startAplServe(['--data', mkdtempSync(path.join(tmpdir(), 'apl-e2e-busy-')), '--no-samples', '--max-connections', '2'], { AXIOM_TOKEN: TOKEN });
        const busy: net.Socket[] = [];
        try {
            const { port: busyPort } = new URL(server.url);
            for (let i = 0; i < 2; i++) {
                const socket = net.connect({ host: '127.0.0.1', port: Number(busyPort) });
                busy.push(socket);
                socket.on('error', () => undefined);
                let got = '';
                // Node answers `100 Continue` as it hands the request to the service: from then on the connection is busy.
                const continued = new Promise<void>(resolve => socket.on('data', (d: Buffer) => ((got += d.toString()), /100 Continue/.test(got) && resolve())));
                socket.write(`POST /v1/datasets/few/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n{"a":`);
                await continued;
            }
            const res = await fetch(`${server.url}/v1/datasets/_apl?format=tabular`, {
                method: 'POST',
                headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
                body: JSON.stringify({ apl: 'print x = 1' }),
            });
            expect(res.status).toBe(503);
            expect(res.headers.get('retry-after')).toBe('1');
            expect(((await res.json()) as { message: string }).message).toBe('too many open connections: the service holds at most 2 (apl serve --max-connections); retry shortly');
            expect(server.proc.exitCode).toBeNull();
        } finally {
            for (const s of busy) s.destroy();
            await server.stop();
        }
    }, 60_000);
});
