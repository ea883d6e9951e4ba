/**
 * A request refused before its body is read in full (a Content-Length past the route's limit, a
 * chunked body that went past it) gets its answer even when its client is still sending.
 *
 * fastify marks such a reply `Connection: close`, and Node closes the socket once the answer is
 * written. Bytes the client sends after that make its kernel receive a reset, which can discard
 * the unread answer: the client sees "connection reset" instead of the 413 and its reason. The
 * cure is the one web servers call a lingering close: keep reading, and drop, the rest of the body.
 */
import type { FastifyInstance } from 'fastify';

/** Past this many bytes a refused body is not drained but cut off (its client may lose the answer). */
export const DRAIN_LIMIT_BYTES = 1024 * 1024 * 1024;

export function drainRefusedBodies(app: FastifyInstance): void {
    app.addHook('onSend', async (req, reply, payload) => {
        const raw = req.raw;
        // Only a refused body: a service that is closing also says `Connection: close`, and means it.
        if (reply.statusCode !== 413 || raw.complete || raw.destroyed || reply.getHeader('connection') !== 'close') return payload;
        const declared = Number(req.headers['content-length']);
        if (declared > DRAIN_LIMIT_BYTES) return payload;
        // Kept alive: Node reads the body to its end and the connection serves the next request.
        reply.removeHeader('connection');
        let drained = 0;
        raw.on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > DRAIN_LIMIT_BYTES) raw.socket.destroy();
        });
        raw.resume();
        return payload;
    });
}
