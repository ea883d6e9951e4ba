// Makes the V8 code caches the bins start with (bin/code-cache.ts), by running each built bin
// once with APL_WRITE_CODE_CACHE=1 through what a typical short use runs, so the cache holds that code:
// - out/language-server.v8-cache: a first language-server session (open a query, diagnostics,
//   completion, hover, signature help, formatting, semantic tokens);
// - out/apl-cli.v8-cache: `apl check` of a query with a problem in it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import rpc from 'vscode-jsonrpc/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const QUERY = `let threshold = 500;
['sample-http-logs']
| where _time > ago(1d) and toint(status) >= threshold
| extend duration_ms = req_duration_ms, city = ['geo.city']
| summarize count(), avg(duration_ms), percentile(duration_ms, 95) by bin(_time, 1h), city
| order by count_ desc
| take 10
`;

export async function warmCodeCaches() {
    await warmLanguageServer();
    warmCli();
}

function warmCli() {
    const cache = join(root, 'out', 'apl-cli.v8-cache');
    const r = spawnSync(process.execPath, [join(root, 'out', 'apl.cjs'), 'check', '-'], {
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
    const bin = join(root, 'out', 'apl-language-server.cjs');
    const cache = join(root, 'out', 'language-server.v8-cache');
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
