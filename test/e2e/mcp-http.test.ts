/**
 * `apl mcp --http PORT`, the streamable HTTP transport of the BUILT bin: sessions are independent
 * (each its own query budget), and requests that a web page could forge are refused: another Origin
 * (the MCP specification's check) and a Host that is not this server (DNS rebinding).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APL_BIN, REPO_ROOT } from '../support/cli.js';

interface HttpServer {
    proc: ChildProcess;
    url: URL;
    stop(): Promise<void>;
}

/** Starts the BUILT `apl mcp --http 0` with `args` and waits for its address. */
async function startHttp(args: string[]): Promise<HttpServer> {
    const proc = spawn(process.execPath, [APL_BIN, 'mcp', '--http', '0', ...args], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<URL>((resolve, reject) => {
        proc.stderr!.on('data', (b: Buffer) => {
            stderr += b.toString();
            const m = /listening on (http:\/\/\S+?);/.exec(stderr);
            if (m) resolve(new URL(m[1]));
        });
        proc.once('exit', code => reject(new Error(`apl mcp exited with ${code}: ${stderr}`)));
    });
    const stop = async () => {
        if (proc.exitCode !== null) return;
        const exited = new Promise(resolve => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        await exited;
    };
    return { proc, url, stop };
}

let server: HttpServer;
let url: URL;

beforeAll(async () => {
    server = await startHttp(['--query-budget', '1']);
    url = server.url;
});

afterAll(async () => {
    await server?.stop();
});

async function connect(at: URL = url): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(at);
    const client = new Client({ name: 'apl-tools-http-test', version: '0.0.0' });
    await client.connect(transport);
    return { client, transport };
}

const INITIALIZE = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A raw POST of an initialize request with the given headers: the status code. */
function rawInitialize(headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, res => {
            res.resume();
            resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(INITIALIZE);
    });
}

describe('apl mcp --http', () => {
    it('two concurrent sessions: their own ids, tools and query budgets', async () => {
        const [a, b] = await Promise.all([connect(), connect()]);
        expect(a.transport.sessionId).toBeDefined();
        expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
        const [ra, rb] = (await Promise.all([
            a.client.callTool({ name: 'run_apl', arguments: { query: "print x = 'a'" } }),
            b.client.callTool({ name: 'run_apl', arguments: { query: "print x = 'b'" } }),
        ])) as CallToolResult[];
        expect(ra.structuredContent).toMatchObject({ rows: [{ x: 'a' }] });
        expect(rb.structuredContent).toMatchObject({ rows: [{ x: 'b' }] });
        // --query-budget 1 is per session: each one's second query is refused, and only its own.
        const again = (await a.client.callTool({ name: 'run_apl', arguments: { query: 'print 1' } })) as CallToolResult;
        expect(again.isError).toBe(true);
        const check = (await b.client.callTool({ name: 'check_apl', arguments: { query: 'print 1' } })) as CallToolResult;
        expect(check.structuredContent).toMatchObject({ valid: true });
        await Promise.all([a.client.close(), b.client.close()]);
    });

    it('a request from a page of another origin is refused (403)', async () => {
        expect(await rawInitialize({ origin: 'http://evil.example' })).toBe(403);
        expect(await rawInitialize({ origin: 'null' })).toBe(403);
    });

    it('a loopback origin is accepted', async () => {
        expect(await rawInitialize({ origin: `http://localhost:${url.port}` })).toBe(200);
    });

    it('a Host that is not this server (DNS rebinding) is refused (403)', async () => {
        expect(await rawInitialize({ host: `evil.example:${url.port}` })).toBe(403);
    });

    it('listens on loopback only by default', () => {
        expect(url.hostname).toBe('127.0.0.1');
    });
});

describe('apl mcp --http --max-sessions 1', () => {
    it('a new session ends the least recently used one; its client is told (404), the new one goes on', async () => {
        const small = await startHttp(['--max-sessions', '1']);
        try {
            const a = await connect(small.url);
            const b = await connect(small.url);
            await expect(a.client.callTool({ name: 'check_apl', arguments: { query: 'print 1' } })).rejects.toThrow(/404|session/i);
            const check = (await b.client.callTool({ name: 'check_apl', arguments: { query: 'print 1' } })) as CallToolResult;
            expect(check.structuredContent).toMatchObject({ valid: true });
            await b.client.close();
        } finally {
            await small.stop();
        }
    });
});
