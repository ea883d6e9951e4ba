/**
 * How the UI suites' test proxies pass a request on to `apl serve` and its answer back.
 *
 * Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection and are never passed on. Passing
 * the service's `Keep-Alive: timeout=30` back made the extension keep an idle connection to the
 * proxy for up to 30 s while the proxy (Node's default) closes it after 5 s: a request sent on it
 * in between was reset (seen as "ECONNRESET" in a CI run of results-grid).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
/** fetch sets these itself: the length of what it sends, and it decodes what it receives. */
const REQUEST_OWN = new Set([...HOP_BY_HOP, 'host', 'content-length']);
const RESPONSE_OWN = new Set([...HOP_BY_HOP, 'content-length', 'content-encoding']);

/** Sends `req` (its body read already) to `target`, and the answer to `res`; 502 when the service cannot be reached. */
export function forward(target: string, req: IncomingMessage, res: ServerResponse, body: Buffer, answered?: () => void): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !REQUEST_OWN.has(k)) headers[k] = v;
    fetch(new URL(req.url ?? '/', target), { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body })
        .then(async r => {
            const out: Record<string, string> = {};
            r.headers.forEach((v, k) => {
                if (!RESPONSE_OWN.has(k)) out[k] = v;
            });
            res.writeHead(r.status, out);
            res.end(Buffer.from(await r.arrayBuffer()));
            answered?.();
        })
        .catch((e: unknown) => {
            res.writeHead(502);
            res.end(String(e));
        });
}
