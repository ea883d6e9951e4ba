/**
 * The service's HTTP server, bound first (issue 31): `apl serve` listens on its port before it
 * opens its data directory, so that a busy port is found before anything is written, and answers
 * `503 the service is starting` (with `Retry-After: 1`) until the fastify app is ready, then hands
 * every request to it on the same server and the same connections.
 *
 * Before, the service listened for an instant to find the port busy and closed again (a probe): a
 * connection that landed in that instant was reset rather than refused or answered.
 */
import * as http from 'node:http';
import { guardedHttpServer, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS } from './connection-guard.js';

export const STARTING_MESSAGE = 'the service is starting; retry shortly';

/** How long a start that failed waits for the connections it answered to finish before it cuts them. */
const CLOSE_GRACE_MS = 1000;

export interface EarlyServer {
    readonly server: http.Server;
    /** For fastify's `serverFactory`: notes fastify's handler and gives it this server. */
    factory(handler: http.RequestListener): http.Server;
    /** Hands requests to the handler `factory` noted, from now on (once the app is ready). */
    open(): void;
    /** Stops listening and closes every connection (a start that failed). */
    close(): Promise<void>;
}

/** The service's HTTP server (not yet listening): the connection guard and the timeouts. */
export function serviceHttpServer(handler: http.RequestListener, maxConnections: number): http.Server {
    const server = guardedHttpServer(handler, {
        maxConnections,
        // No limit on a whole request's time (a slow upload of a big body must succeed): the
        // headers have a deadline, and the body must keep moving (app.ts, bodyIdleTimeout).
        http: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 1000 },
    });
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    return server;
}

/** Listens on `host:port` (throws EADDRINUSE, EACCES, … as `listen` does) and answers 503 until `open()`. */
export async function listenEarly(host: string, port: number, maxConnections: number): Promise<EarlyServer> {
    let handle: http.RequestListener = answerStarting;
    let app: http.RequestListener | undefined;
    const server = serviceHttpServer((req, res) => handle(req, res), maxConnections);
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
            server.off('error', reject);
            resolve();
        });
    });
    return {
        server,
        factory(handler) {
            app = handler;
            return server;
        },
        open() {
            if (app === undefined) throw new Error('the app gave the early server no handler');
            handle = app;
        },
        close: () =>
            new Promise<void>((resolve) => {
                // The 503s already written go out; an upload still being read gets a moment to end.
                server.close(() => resolve());
                server.closeIdleConnections();
                setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
            }),
    };
}

/** The answer while the service starts: the body is read to its end (and dropped), the connection kept. */
function answerStarting(req: http.IncomingMessage, res: http.ServerResponse): void {
    const body = JSON.stringify({ message: STARTING_MESSAGE });
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'content-length': Buffer.byteLength(body) });
    res.end(body);
}
