/**
 * Request bodies read into memory of their own, with the byte scanner's padding after them, so
 * the ingest pool hands them to a worker by transfer (no copy) and gets them back for the WAL.
 *
 * Before, a 540 KB NDJSON body was copied twice on the main thread: fastify joined the socket's
 * chunks into one Buffer, and the pool copied that into padded memory it could transfer. Now the
 * body parser (server/http/body.ts) copies the chunks once, straight into memory made here.
 *
 * Only memory made here is ever transferred: a Buffer's ArrayBuffer may be Node's shared pool (or
 * another Buffer's), and detaching it would empty every Buffer over it.
 */
import { PAD_BYTES, writePadding } from './ndjson-columns.js';

/** The ArrayBuffers made by `paddedBody` that nothing but their body refers to. */
const own = new WeakSet<ArrayBuffer>();

/** Bodies smaller than this are read the ordinary way (a copy to hand over costs little). */
export const PADDED_BODY_MIN = 64 * 1024;

/** Memory for a body of `len` bytes (filled by the caller), the padding after it already written. */
export function paddedBody(len: number): Buffer {
    const mem = Buffer.allocUnsafeSlow(len + PAD_BYTES);
    writePadding(mem, len);
    own.add(mem.buffer as ArrayBuffer);
    return mem.subarray(0, len);
}

/**
 * `body`'s ArrayBuffer when it can be transferred to a worker as it is: made by `paddedBody` for a
 * body of this length, with its padding intact. Transferring it detaches `body` (and forgets it
 * here: the memory that comes back is a new ArrayBuffer).
 */
export function transferableBody(body: Buffer): ArrayBuffer | undefined {
    const mem = body.buffer;
    if (mem instanceof SharedArrayBuffer || !own.has(mem) || body.byteOffset !== 0 || mem.byteLength !== body.length + PAD_BYTES) return undefined;
    const pad = new Uint8Array(mem, body.length, PAD_BYTES);
    if (pad[0] !== 0x0a) return undefined;
    for (let i = 1; i < PAD_BYTES; i++) if (pad[i] !== 0) return undefined;
    own.delete(mem);
    return mem;
}

/** A body that came back from a worker (its memory as `transferableBody` gave it): transferable again. */
export function returnedBody(mem: ArrayBuffer, len: number): Buffer {
    own.add(mem);
    return Buffer.from(mem, 0, len);
}
