/**
 * Bounds the service's open connections, so that idle sockets cannot take every file descriptor
 * (and with them the data directory's files, the workers and every other client).
 *
 *   const server = guardedHttpServer(handler, { maxConnections: 1024, ... });
 *
 * At the cap, a new connection first takes the place of the connection that has been idle the
 * longest (no request in progress: an idle keep-alive socket, or one that never sent a request),
 * as nginx reuses idle keep-alive connections; only when every connection is busy is the new one
 * refused, with a plain 503 that says why. A refused or evicted socket that never sent a request
 * gets the same 503, so the client learns what happened instead of meeting a reset.
 *
 * The timeouts that reap idle sockets are the server's own options (see serverTimeouts below).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';

/** The cap when neither the option nor the descriptor limit says less. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Descriptors kept for everything but client sockets: WAL and block files, workers, pipes. */
const RESERVED_DESCRIPTORS = 128;
/** A refused socket is drained (so that the 503 is not lost to a reset) for at most this long. */
const REFUSED_LINGER_MS = 2000;
/** Refused sockets drained at once at most (see refuse). */
const MAX_LINGERING = 16;

/**
 * Idle keep-alive sockets close after this. Not Node's 5 s: a client whose event loop is busy for a
 * few seconds (a script building a big body) then reuses a socket the service is closing, and sees a
 * reset. Idle sockets cannot lock anyone out at any value: at the cap the longest idle one goes.
 * (fastify's default, 72 s, held them for long.)
 */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** A client must send its request headers within this. */
export const HEADERS_TIMEOUT_MS = 15_000;
/**
 * A request body must keep arriving: a body that stalls this long is cut off. A slow but moving
 * upload of any size is never cut off (there is deliberately no limit on the whole request's time).
 */
export const BODY_IDLE_TIMEOUT_MS = 60_000;

/** The soft limit on open files (Linux /proc; undefined where unknown). Node raises it to the hard limit at start. */
export function openFileLimit(): number | undefined {
    try {
        const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
        return m ? Number(m[1]) : undefined;
    } catch {
        return undefined;
    }
}

/** The default cap: DEFAULT_MAX_CONNECTIONS, less when the descriptor limit would not leave room for the rest. */
export function defaultMaxConnections(limit = openFileLimit()): number {
    if (limit === undefined) return DEFAULT_MAX_CONNECTIONS;
    return Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, limit - RESERVED_DESCRIPTORS));
}

export function refusalBody(maxConnections: number): string {
    return JSON.stringify({ message: `too many open connections: the service holds at most ${maxConnections} (apl serve --max-connections); retry shortly` });
}

interface Tracked {
    /** Requests in progress on the socket. */
    busy: number;
    /** Whether a request was ever received on it. */
    used: boolean;
    /** An ordinal of when it last became idle (smaller = idle longer). */
    idleSince: number;
}

export interface GuardOptions {
    maxConnections: number;
    /** Passed to http.createServer (timeouts and so on). */
    http?: http.ServerOptions;
}

/** An HTTP server (for fastify's serverFactory) that holds at most `maxConnections` sockets. */
export function guardedHttpServer(handler: http.RequestListener, options: GuardOptions): http.Server {
    const server = http.createServer(options.http ?? {}, handler);
    // http.Server's own connection listener (it sets up the HTTP parser): a refused socket never
    // reaches it, so no request on it is ever parsed or answered twice.
    const httpListeners = server.listeners('connection') as ((socket: net.Socket) => void)[];
    server.removeAllListeners('connection');
    const sockets = new Map<net.Socket, Tracked>();
    let clock = 0;
    const refusal = refusalResponse(options.maxConnections);
    const lingering: Lingering = { count: 0 };

    server.on('connection', (socket: net.Socket) => {
        if (sockets.size >= options.maxConnections && !evictLongestIdle(sockets, refusal, lingering)) {
            refuse(socket, refusal, lingering);
            return;
        }
        sockets.set(socket, { busy: 0, used: false, idleSince: clock++ });
        socket.once('close', () => sockets.delete(socket));
        for (const l of httpListeners) l.call(server, socket);
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        const t = sockets.get(req.socket);
        if (!t) return;
        t.busy++;
        t.used = true;
        res.once('close', () => {
            t.busy--;
            if (t.busy === 0) t.idleSince = clock++;
        });
    });
    return server;
}

function refusalResponse(maxConnections: number): string {
    const body = refusalBody(maxConnections);
    return (
        'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Retry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
}

/** Closes the socket idle the longest to make room; false when every socket is busy. */
function evictLongestIdle(sockets: Map<net.Socket, Tracked>, refusal: string, lingering: Lingering): boolean {
    let oldest: [net.Socket, Tracked] | undefined;
    for (const entry of sockets) {
        if (entry[1].busy === 0 && (!oldest || entry[1].idleSince < oldest[1].idleSince)) oldest = entry;
    }
    if (!oldest) return false;
    const [socket, t] = oldest;
    sockets.delete(socket);
    // An idle keep-alive socket is closed as its keep-alive timeout would close it (clients expect
    // that); one that never sent a request is told why.
    if (t.used) socket.destroy();
    else refuse(socket, refusal, lingering);
    return true;
}

/** Refused sockets that are still open to be drained, per server. */
interface Lingering {
    count: number;
}

/**
 * Answers the plain 503 and closes, reading (and dropping) what the client sends meanwhile so that
 * a reset does not swallow the answer. Each of those holds a descriptor until its client closes:
 * past MAX_LINGERING of them (a burst of connections under a low open-file limit), a refused socket
 * is closed as soon as its 503 is written, so that the burst cannot use up the descriptors and make
 * the process drop connections unanswered (EMFILE).
 */
function refuse(socket: net.Socket, refusal: string, lingering: Lingering): void {
    socket.on('error', () => undefined);
    if (lingering.count >= MAX_LINGERING) {
        socket.end(refusal, () => socket.destroy());
        return;
    }
    lingering.count++;
    socket.once('close', () => lingering.count--);
    socket.resume();
    socket.end(refusal);
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}
