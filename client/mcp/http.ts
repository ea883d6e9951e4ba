/**
 * `apl mcp --http PORT`: the streamable HTTP transport, one MCP server per session (so each session
 * has its own query budget). It listens on loopback by default and refuses, before the SDK sees them,
 * requests whose Host is not this server's (DNS rebinding: a web page on evil.example resolved to
 * 127.0.0.1) and requests from a browser page of another origin (the MCP specification's Origin check).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** Sessions kept by default: a client that goes away without ending its session must not hold memory for ever. */
export const DEFAULT_MAX_SESSIONS = 32;
/** Largest JSON-RPC request body read (a query or a batch of events to ingest). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
    return host === 'localhost' || host === '::1' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** The host names a request may be addressed to: loopback names when bound to loopback, else the bound address too. */
function allowedHostNames(bindHost: string): Set<string> {
    const names = new Set(LOOPBACK_NAMES);
    if (!isLoopbackHost(bindHost)) names.add(isIP(bindHost) === 6 ? `[${bindHost}]` : bindHost);
    return names;
}

/** `host[:port]` → host (lower case, IPv6 kept in brackets). */
function hostOnly(value: string): string {
    const v = value.trim().toLowerCase();
    if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
    const colon = v.lastIndexOf(':');
    return colon >= 0 ? v.slice(0, colon) : v;
}

/** Why a request is refused (Host or Origin), or undefined. */
export function refusal(req: IncomingMessage, allowed: Set<string>): string | undefined {
    const host = req.headers.host;
    if (!host || !allowed.has(hostOnly(host))) return `Host '${host ?? ''}' is not this server`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
        let originHost: string;
        try {
            originHost = new URL(origin).host;
        } catch {
            return `Origin '${origin}' is not a URL`;
        }
        if (!allowed.has(hostOnly(originHost))) return `Origin '${origin}' is not allowed`;
    }
    return undefined;
}

function sendError(res: ServerResponse, status: number, message: string): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function readJson(req: IncomingMessage): Promise<unknown> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (b: Buffer) => {
            size += b.length;
            if (size > MAX_BODY_BYTES) {
                reject(new Error(`the request body is larger than ${MAX_BODY_BYTES} bytes`));
                req.destroy();
                return;
            }
            chunks.push(b);
        });
        req.on('end', () => {
            try {
                resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
                reject(new Error('the request body is not JSON'));
            }
        });
        req.on('error', reject);
    });
}

export interface McpHttpServer {
    server: Server;
    /** `http://host:port/mcp`. */
    url: string;
    close(): Promise<void>;
}

/**
 * Serves MCP at `/mcp` on `host:port`; `newSession` makes the server of each new session. At most
 * `maxSessions` sessions are kept: a new one ends the one used least recently (its client gets 404
 * and may start another, as the specification says).
 */
export async function serveMcpOverHttp(host: string, port: number, newSession: () => McpServer, log: (line: string) => void, maxSessions = DEFAULT_MAX_SESSIONS): Promise<McpHttpServer> {
    const allowed = allowedHostNames(host);
    // In the order of their last use (a Map keeps insertion order: a used session is moved to the end).
    const sessions = new Map<string, StreamableHTTPServerTransport>();

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
        const refused = refusal(req, allowed);
        if (refused) return sendError(res, 403, `Forbidden: ${refused}`);
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return sendError(res, 404, 'Not found: the MCP endpoint is /mcp');
        const sessionId = req.headers['mcp-session-id'];
        if (typeof sessionId === 'string') {
            const transport = sessions.get(sessionId);
            if (!transport) return sendError(res, 404, 'Unknown or ended session');
            sessions.delete(sessionId);
            sessions.set(sessionId, transport);
            return transport.handleRequest(req, res);
        }
        if (req.method !== 'POST') return sendError(res, 400, 'Bad request: no mcp-session-id header');
        let body: unknown;
        try {
            body = await readJson(req);
        } catch (e) {
            return sendError(res, 400, `Bad request: ${(e as Error).message}`);
        }
        if (!isInitializeRequest(body)) return sendError(res, 400, 'Bad request: a session starts with an initialize request');
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: id => {
                sessions.set(id, transport);
                for (const [oldest, old] of sessions) {
                    if (sessions.size <= maxSessions) break;
                    sessions.delete(oldest);
                    void old.close();
                }
            },
        });
        transport.onclose = () => {
            if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await newSession().connect(transport);
        await transport.handleRequest(req, res, body);
    };

    const server = createServer((req, res) => {
        handle(req, res).catch((e: unknown) => {
            log(`apl mcp: ${(e as Error).message}`);
            if (!res.headersSent) sendError(res, 500, 'Internal error');
        });
    });
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const url = `http://${isIP(host) === 6 ? `[${host}]` : host}:${boundPort}/mcp`;
    return {
        server,
        url,
        close: async () => {
            for (const t of sessions.values()) await t.close();
            await new Promise<void>(resolve => server.close(() => resolve()));
        },
    };
}
