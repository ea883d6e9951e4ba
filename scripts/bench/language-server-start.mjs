// The bench's language-server start-up timings, in a small node process of their own. Spawned from
// the bench process (by then 400 MB of heap with Kusto's .NET runtime and the test data, and threads
// of its own), the same start measured 230 ms in the check section alone and 271 ms in a full run:
// the harness's share, not the server's.
//
// Usage: node language-server-start.mjs '<json>' with { starts: [{ key, command, args, snapshot?,
// plain? }], runs, text }; prints { [key]: ms[] } and, per environment, a bare `node -e ''` start
// under "bare" and "bare-plain". `plain`: without NODE_EXTRA_CA_CERTS. The starts alternate, run by
// run, so that a slow moment of the machine falls on all of them alike.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import rpc from 'vscode-jsonrpc/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;
const { starts, runs, text } = JSON.parse(process.argv[2]);
const plainEnv = { ...process.env };
delete plainEnv.NODE_EXTRA_CA_CERTS;
const envOf = start => (start.plain ? plainEnv : process.env);

/** Spawn → initialize → initialized → didOpen → first publishDiagnostics, in ms. */
async function startOnce(start) {
    const t0 = performance.now();
    const child = spawn(start.command, [...start.args, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: envOf(start) });
    let stderr = '';
    child.stderr.on('data', d => (stderr += d.toString()));
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    try {
        const diagnostics = new Promise((resolve, reject) => {
            connection.onNotification('textDocument/publishDiagnostics', () => resolve(performance.now() - t0));
            child.on('exit', code => reject(new Error(`the server exited (${code}) before publishing diagnostics: ${stderr.split('\n')[0]}`)));
            setTimeout(() => reject(new Error('no publishDiagnostics within 20 s')), 20_000).unref();
        });
        connection.listen();
        await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
        await connection.sendNotification('initialized', {});
        await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: 'file:///bench/query.apl', languageId: 'apl', version: 1, text } });
        const ms = await diagnostics;
        // Linux's /proc tells whether node runs from a snapshot blob: a figure must be of the start it names.
        if (start.snapshot !== undefined && readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').includes('--snapshot-blob') !== start.snapshot) {
            throw new Error(`${start.command} ${start.args.join(' ')} ${start.snapshot ? 'did not start from' : 'started from'} the start-up snapshot`);
        }
        return ms;
    } finally {
        connection.dispose();
        child.kill();
    }
}

/** A bare `node -e ''` spawn → exit, in ms. */
function bareOnce(start) {
    return new Promise((resolve, reject) => {
        const t0 = performance.now();
        const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env: envOf(start) });
        child.on('exit', () => resolve(performance.now() - t0));
        child.on('error', reject);
    });
}

const all = [...starts, { key: 'bare', bare: true }, ...(starts.some(s => s.plain) ? [{ key: 'bare-plain', bare: true, plain: true }] : [])];
const once = s => (s.bare ? bareOnce(s) : startOnce(s));
const samples = Object.fromEntries(all.map(s => [s.key, []]));
for (const s of all) await once(s); // warm the file-system cache
for (let i = 0; i < runs; i++) for (const s of i % 2 ? [...all].reverse() : all) samples[s.key].push(await once(s));
process.stdout.write(JSON.stringify(samples));
