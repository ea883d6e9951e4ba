// Makes the V8 code caches the bins start with (bin/code-cache.ts), by running each built bin
// once with APL_WRITE_CODE_CACHE=1 through what a typical short use runs, so the cache holds that code:
// - out/language-server.v8-cache: a first language-server session (open a query, diagnostics,
//   completion, hover, signature help, formatting, semantic tokens);
// - out/apl-cli.v8-cache: `apl check` of a query with a problem in it;
// - out/apl-cli.serve.v8-cache: `apl serve` restarted on a data directory it filled (recovery, a
//   dataset list, an ingest, a query, a clean stop);
// - out/query-worker.v8-cache and out/ingest-worker.v8-cache: the service's worker threads in that
//   same session (a query; the recovered WAL tail and an ingest parsed), which they save after
//   their work (server/worker-launcher.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import rpc from 'vscode-jsonrpc/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;

/** The folder of the built bins: out/ of the clone unless the build is staged elsewhere (esbuild.mjs). */
let binDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'out');
const QUERY = `let threshold = 500;
['sample-http-logs']
| where _time > ago(1d) and toint(status) >= threshold
| extend duration_ms = req_duration_ms, city = ['geo.city']
| summarize count(), avg(duration_ms), percentile(duration_ms, 95) by bin(_time, 1h), city
| order by count_ desc
| take 10
`;

export async function warmCodeCaches(outDir = binDir) {
    binDir = outDir;
    await warmLanguageServer();
    warmCli();
    await warmServe();
}

async function warmServe() {
    const cache = join(binDir, 'apl-cli.serve.v8-cache');
    const data = mkdtempSync(join(tmpdir(), 'apl-warm-serve-'));
    try {
        // The first session fills the directory; the second, which starts on it, writes the cache.
        await serveSession(data, false);
        await serveSession(data, true);
    } finally {
        rmSync(data, { recursive: true, force: true });
    }
    expectCache(cache);
    for (const worker of ['query-worker', 'ingest-worker']) expectCache(join(binDir, `${worker}.v8-cache`));
}

/**
 * One `apl serve` on a loopback port: list, create (first time), ingest, query, then SIGTERM. One
 * query worker, so that the worker whose cache is saved last is the one that ran the query.
 */
async function serveSession(data, writeCache) {
    const token = 'xaat-warm-up';
    const env = { ...process.env, AXIOM_TOKEN: token, APL_TOKEN: token, ...(writeCache ? { APL_WRITE_CODE_CACHE: '1' } : {}) };
    const child = spawn(process.execPath, [join(binDir, 'apl.cjs'), 'serve', '--host', '127.0.0.1', '--port', '0', '--data', data, '--no-samples', '--query-workers', '1'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise(resolve => child.on('exit', resolve));
    let out = '';
    child.stderr.on('data', d => (out += d));
    try {
        const url = await new Promise((resolve, reject) => {
            child.stdout.on('data', d => {
                out += d;
                const m = /listening on (http:\/\/\S+)/.exec(out);
                if (m) resolve(m[1]);
            });
            child.on('exit', code => reject(new Error(`apl serve in the warm-up exited ${code}: ${out}`)));
        });
        const call = async (method, path, body, type = 'application/json') => {
            const res = await fetch(url + path, { method, body, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
            if (!res.ok) throw new Error(`${method} ${path} in the warm-up: HTTP ${res.status} ${await res.text()}`);
            return res.json();
        };
        await call('GET', '/v2/datasets');
        if (!writeCache) await call('POST', '/v2/datasets', JSON.stringify({ name: 'warm-up' }));
        const events = Array.from({ length: 100 }, (_, i) => JSON.stringify({ status: String(200 + (i % 3) * 100), uri: `/api/${i % 7}`, ms: i * 1.5 })).join('\n');
        await call('POST', '/v1/datasets/warm-up/ingest', events, 'application/x-ndjson');
        await call('POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: "['warm-up'] | summarize count(), avg(ms) by status" }));
    } finally {
        child.kill('SIGTERM');
        await exited;
    }
}

function warmCli() {
    const cache = join(binDir, 'apl-cli.v8-cache');
    const r = spawnSync(process.execPath, [join(binDir, 'apl.cjs'), 'check', '-'], {
        input: `${QUERY}| where status ==\n`,
        env: { ...process.env, APL_WRITE_CODE_CACHE: '1' },
        encoding: 'utf8',
    });
    // Exit 1: the query has a problem on purpose, so that the diagnostic output is warmed too.
    if (r.status !== 1) throw new Error(`apl check in the warm-up exited ${r.status}: ${r.stderr}`);
    expectCache(cache);
}

function expectCache(cache) {
    if (!existsSync(cache) || readFileSync(cache).length === 0) throw new Error(`the warm-up wrote no ${cache}`);
}

async function warmLanguageServer() {
    const bin = join(binDir, 'apl-language-server.cjs');
    const cache = join(binDir, 'language-server.v8-cache');
    const child = spawn(process.execPath, [bin, '--stdio'], { env: { ...process.env, APL_WRITE_CODE_CACHE: '1' }, stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise(resolve => child.on('exit', resolve));
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const uri = 'file:///warm-up/query.apl';
    const diagnostics = new Promise(resolve => connection.onNotification('textDocument/publishDiagnostics', resolve));
    connection.listen();
    const at = (line, character) => ({ textDocument: { uri }, position: { line, character } });
    try {
        await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
        await connection.sendNotification('initialized', {});
        await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text: QUERY } });
        await diagnostics;
        await connection.sendRequest('textDocument/completion', at(2, 8));
        await connection.sendRequest('textDocument/hover', at(4, 15));
        await connection.sendRequest('textDocument/signatureHelp', at(2, 28));
        await connection.sendRequest('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
        await connection.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri } });
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
    } finally {
        await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 10_000))]);
        connection.dispose();
        child.kill();
    }
    expectCache(cache);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await warmCodeCaches();
