/**
 * The language server's start-up snapshot (server/lsp/snapshot.ts, snapshot-file.ts) and the POSIX
 * launcher that uses it (server/lsp/launcher.sh): the build makes one for this node; the launcher
 * starts from it only when node would accept it, and otherwise runs the bin as a script, which
 * then makes a new one in the background; every start answers the same.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { SNAPSHOT_BLOB, SNAPSHOT_STAMP, refreshSnapshotLater } from '../../server/lsp/snapshot-file.js';
import { REPO_ROOT } from '../support/cli.js';
import { LANGUAGE_SERVER_BIN, LANGUAGE_SERVER_STARTS, runsFromSnapshot } from '../support/language-server.js';

const OUT = join(REPO_ROOT, 'out');
/** What the bin needs beside it, without the snapshot. */
const BIN_FILES = ['apl-language-server.cjs', 'language-server.cjs', 'language-server.v8-cache', 'language-server-snapshot.cjs'];
const QUERY = "['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)";

/** A copy of the bin and its bundles in a directory of its own, with the build's snapshot when `withSnapshot`. */
function binCopy(withSnapshot: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'apl-ls-snapshot-'));
    for (const f of [...BIN_FILES, ...(withSnapshot ? [SNAPSHOT_BLOB, SNAPSHOT_STAMP] : [])]) copyFileSync(join(OUT, f), join(dir, f));
    return dir;
}

interface Started {
    snapshot: boolean;
    codes: string[];
}

/** The stderr of the last startOnce. */
let lastStderr = '';

/** Starts `command --stdio`, opens QUERY, and answers whether it ran from the snapshot and the diagnostics' codes. */
async function startOnce(command: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Started> {
    const child = spawn(command, [...args, '--stdio'], { env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A process that dies (V8 aborting on a damaged snapshot) fails the start at once.
    const died = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`the server exited (${code ?? signal}): ${stderr}`))));
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    try {
        return await Promise.race([session(rpc, () => runsFromSnapshot(child.pid!), () => stderr), died]);
    } finally {
        lastStderr = stderr;
        rpc.dispose();
        child.kill();
    }
}

async function session(rpc: MessageConnection, snapshot: () => boolean, stderr: () => string): Promise<Started> {
    const published = new Promise<PublishDiagnosticsParams>(resolve => rpc.onNotification('textDocument/publishDiagnostics', resolve));
    rpc.listen();
    await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null }).catch((e: unknown) => {
        throw new Error(`no answer to initialize (${String(e)}); stderr: ${stderr()}`);
    });
    const ranFromSnapshot = snapshot();
    await rpc.sendNotification('initialized', {});
    await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri: 'file:///snapshot/query.apl', languageId: 'apl', version: 1, text: QUERY } });
    const diagnostics = await published;
    return { snapshot: ranFromSnapshot, codes: diagnostics.diagnostics.map(d => String(d.code)) };
}

const posix = process.platform !== 'win32';

function flipByte(bytes: Buffer, at: number): Buffer {
    const copy = Buffer.from(bytes);
    copy[at] ^= 0xff;
    return copy;
}

/** The stamp's first field: the inode of the node binary that made the snapshot. */
const stampedNode = (dir: string): string => readFileSync(join(dir, SNAPSHOT_STAMP), 'utf8').split(' ')[0].trim();

describe.runIf(posix)('the start-up snapshot', () => {
    it('the build made one for this node: the stamp names its binary and the blob is newer', () => {
        expect(stampedNode(OUT)).toBe(String(statSync(process.execPath).ino));
        expect(statSync(join(OUT, SNAPSHOT_BLOB)).mtimeMs).toBeGreaterThan(statSync(process.execPath).mtimeMs);
    });

    it(`${QUERY} → the same diagnostics from the snapshot as from the script`, async () => {
        const [script, snapshot] = await Promise.all(LANGUAGE_SERVER_STARTS.map(s => startOnce(s.command, s.args)));
        expect(script).toEqual({ snapshot: false, codes: ['APL0013'] });
        expect(snapshot).toEqual({ snapshot: true, codes: ['APL0013'] });
    });

    it('through a symbolic link to the bin, as npm installs it in node_modules/.bin', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'apl-ls-link-'));
        symlinkSync(LANGUAGE_SERVER_BIN, join(dir, 'apl-language-server'));
        expect(await startOnce(join(dir, 'apl-language-server'))).toEqual({ snapshot: true, codes: ['APL0013'] });
    });

    it('a stamp that names another node binary → runs as a script', async () => {
        const dir = binCopy(true);
        writeFileSync(join(dir, SNAPSHOT_STAMP), '1\n');
        expect(await startOnce(join(dir, 'apl-language-server.cjs'))).toEqual({ snapshot: false, codes: ['APL0013'] });
    });

    it('a blob older than the node binary (node was replaced in place) → runs as a script', async () => {
        const dir = binCopy(true);
        utimesSync(join(dir, SNAPSHOT_BLOB), new Date('2000-01-01'), new Date('2000-01-01'));
        expect(await startOnce(join(dir, 'apl-language-server.cjs'))).toEqual({ snapshot: false, codes: ['APL0013'] });
    });

    /** A copy whose blob (the stamp unchanged) is `damage` of the build's: node would crash inside V8 on it. */
    function damagedBlob(damage: (blob: Buffer) => Buffer): string {
        const dir = binCopy(true);
        writeFileSync(join(dir, SNAPSHOT_BLOB), damage(readFileSync(join(OUT, SNAPSHOT_BLOB))));
        return join(dir, 'apl-language-server.cjs');
    }

    it.each([
        ['a flipped byte in the middle of the blob', (b: Buffer) => flipByte(b, Math.floor(b.length / 2))],
        ['a flipped byte near the start of the blob', (b: Buffer) => flipByte(b, 64)],
        ['a blob truncated to half', (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))],
        ['a blob of the same length from another file', (b: Buffer) => Buffer.concat([readFileSync(join(OUT, 'language-server.cjs')), Buffer.alloc(b.length)]).subarray(0, b.length)],
    ])('%s (the stamp unchanged) → runs as a script', async (_name, damage) => {
        expect(await startOnce(damagedBlob(damage))).toEqual({ snapshot: false, codes: ['APL0013'] });
    });

    it('a damaged code cache (no snapshot) → runs as a script, with the same diagnostics', async () => {
        const dir = binCopy(false);
        const cache = readFileSync(join(dir, 'language-server.v8-cache'));
        writeFileSync(join(dir, 'language-server.v8-cache'), flipByte(cache, Math.floor(cache.length / 2)));
        const env = { ...process.env, APL_CODE_CACHE_DEBUG: '1' };
        expect(await startOnce(join(dir, 'apl-language-server.cjs'), [], env)).toEqual({ snapshot: false, codes: ['APL0013'] });
        // `node`: on node ≥ 22.1, node's own compile cache instead (bin/code-cache.ts).
        expect(lastStderr).toMatch(/^code cache: (none|node) /);
    });

    it('NODE_OPTIONS with a V8 flag (node would refuse the snapshot) → runs as a script', async () => {
        const env = { ...process.env, NODE_OPTIONS: '--max-old-space-size=512' };
        expect(await startOnce(LANGUAGE_SERVER_BIN, [], env)).toEqual({ snapshot: false, codes: ['APL0013'] });
    });

    it('no snapshot → runs as a script; --make-snapshot makes one, and the next start uses it', async () => {
        const dir = binCopy(false);
        const bin = join(dir, 'apl-language-server.cjs');
        expect(await startOnce(bin)).toEqual({ snapshot: false, codes: ['APL0013'] });
        const made = spawnSync(bin, ['--make-snapshot'], { encoding: 'utf8' });
        expect(made.stderr).toBe('');
        expect(made.status).toBe(0);
        expect(stampedNode(dir)).toBe(String(statSync(process.execPath).ino));
        expect(await startOnce(bin)).toEqual({ snapshot: true, codes: ['APL0013'] });
    });

    it('refreshSnapshotLater makes one in the background; after a failure it does not try again for the same node', async () => {
        const dir = binCopy(false);
        expect(refreshSnapshotLater(dir, 0)).toBe(true);
        await expect.poll(() => existsSync(join(dir, SNAPSHOT_STAMP)), { timeout: 30_000, interval: 200 }).toBe(true);
        expect(await startOnce(join(dir, 'apl-language-server.cjs'))).toEqual({ snapshot: true, codes: ['APL0013'] });
        // A current one is not made again.
        expect(refreshSnapshotLater(dir, 0)).toBe(false);

        // Without the snapshot's bundle, making one fails.
        const broken = binCopy(false);
        rmSync(join(broken, 'language-server-snapshot.cjs'));
        const made = spawnSync(join(broken, 'apl-language-server.cjs'), ['--make-snapshot'], { encoding: 'utf8' });
        expect(made.status).toBe(1);
        expect(made.stderr).toMatch(/^apl-language-server: cannot make the start-up snapshot: node --build-snapshot exited with/);
        expect(existsSync(join(broken, SNAPSHOT_BLOB))).toBe(false);
        expect(refreshSnapshotLater(broken, 0)).toBe(false);
    });

    // root may write anywhere, so this says nothing when the tests run as root.
    it.skipIf(process.getuid?.() === 0)('a read-only directory: no snapshot is asked for, and the bin starts as a script', async () => {
        const dir = binCopy(false);
        spawnSync('chmod', ['a-w', dir]);
        try {
            expect(refreshSnapshotLater(dir, 0)).toBe(false);
            expect(await startOnce(join(dir, 'apl-language-server.cjs'))).toEqual({ snapshot: false, codes: ['APL0013'] });
        } finally {
            spawnSync('chmod', ['u+w', dir]);
        }
    });
});

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server transports ($name)', start => {
    it(`--socket=<port>: connects to the client's port and answers ${QUERY}`, async () => {
        const server = createServer();
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const connected = new Promise<import('node:net').Socket>(resolve => server.once('connection', resolve));
        const child = spawn(start.command, [...start.args, `--socket=${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
        try {
            const socket = await connected;
            const rpc = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
            try {
                expect(await session(rpc, () => runsFromSnapshot(child.pid!), () => '')).toEqual({ snapshot: start.snapshot, codes: ['APL0013'] });
            } finally {
                rpc.dispose();
            }
        } finally {
            child.kill();
            server.close();
        }
    });

    it('--clientProcessId=<pid>: exits when that process is gone', async () => {
        const client = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)']);
        const child = spawn(start.command, [...start.args, '--stdio', `--clientProcessId=${client.pid}`], { stdio: ['pipe', 'ignore', 'ignore'] });
        const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
        await new Promise(resolve => client.on('exit', resolve));
        // The check runs every 3 s.
        expect(await exited).toBe(1);
    }, 15_000);

    it('no transport → the usage on stderr, exit 2', () => {
        const r = spawnSync(start.command, [...start.args], { encoding: 'utf8' });
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(/^Usage: apl-language-server \(--stdio \| --node-ipc/);
    });

    it('--socket=0 → names the bad value, exit 2', () => {
        const r = spawnSync(start.command, [...start.args, '--socket=0'], { encoding: 'utf8' });
        expect(r.status).toBe(2);
        expect(r.stderr).toBe('apl-language-server: --socket=0: not a port number (1-65535)\n');
    });
});
