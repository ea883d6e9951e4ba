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
 *
 * The memory a worker hands back is used again for a later body once its request is done with it
 * (`releaseBody`): a new ArrayBuffer per body (and the one that came back, left to the collector)
 * made V8 count half a megabyte of external memory per request, which forced a scavenge of the
 * main thread's young generation ("external memory pressure") every 20 or so requests of 540 KB,
 * and each new allocation faulted its pages in again. (The socket's read chunks, copied into
 * the body, still count: about every 30 requests.)
 */
import { PAD_BYTES, writePadding } from './ndjson-columns.js';

/** The ArrayBuffers made or handed back here that nothing but their body refers to, and that body's length. */
const own = new WeakMap<ArrayBuffer, number>();

/** Memories that came back from a worker (`returnedBody`): only these are ever used again. */
const fromWorker = new WeakSet<ArrayBuffer>();

/** Bodies smaller than this are read the ordinary way (a copy to hand over costs little). */
export const PADDED_BODY_MIN = 64 * 1024;

/** Memories kept for later bodies, at most SPARE_COUNT of them and SPARE_BYTES in all. */
const spare: ArrayBuffer[] = [];
let spareBytes = 0;
const SPARE_COUNT = 8;
const SPARE_BYTES = 64 * 1024 * 1024;
/** A memory larger than this (a rare huge body) is left to the collector. */
const SPARE_MAX_EACH = 16 * 1024 * 1024;
/** Memory is made in steps of this, so that a kept one fits the next body of about the same size. */
const STEP = 64 * 1024;

/** Memory for a body of `len` bytes (filled by the caller), the padding after it already written. */
export function paddedBody(len: number): Buffer {
    const need = len + PAD_BYTES;
    let mem: ArrayBuffer | undefined;
    // A kept memory that fits, but not one more than twice the size (it would be held for a small body).
    for (let i = spare.length - 1; i >= 0; i--) {
        const m = spare[i];
        if (m.byteLength >= need && m.byteLength <= 2 * need + STEP) {
            mem = m;
            spare.splice(i, 1);
            spareBytes -= m.byteLength;
            break;
        }
    }
    const buf = mem !== undefined ? Buffer.from(mem) : Buffer.allocUnsafeSlow(Math.ceil(need / STEP) * STEP);
    writePadding(buf, len);
    own.set(buf.buffer as ArrayBuffer, len);
    return buf.subarray(0, len);
}

/**
 * `body`'s ArrayBuffer when it can be transferred to a worker as it is: made by `paddedBody` (or
 * handed back) for a body of this length, with its padding intact. Transferring it detaches `body`
 * (and forgets it here: the memory that comes back is a new ArrayBuffer).
 */
export function transferableBody(body: Buffer): ArrayBuffer | undefined {
    const mem = body.buffer;
    if (mem instanceof SharedArrayBuffer || own.get(mem) !== body.length || body.byteOffset !== 0 || mem.byteLength < body.length + PAD_BYTES) return undefined;
    const pad = new Uint8Array(mem, body.length, PAD_BYTES);
    if (pad[0] !== 0x0a) return undefined;
    for (let i = 1; i < PAD_BYTES; i++) if (pad[i] !== 0) return undefined;
    own.delete(mem);
    return mem;
}

/** A body that came back from a worker (its memory as `transferableBody` gave it): transferable again. */
export function returnedBody(mem: ArrayBuffer, len: number): Buffer {
    own.set(mem, len);
    fromWorker.add(mem);
    return Buffer.from(mem, 0, len);
}

/**
 * The request that `body` (as `returnedBody` gave it) came back for is done with it: its bytes are
 * durable and nothing holds them any more. Its memory is kept for a later body. Any other Buffer
 * is left alone.
 */
export function releaseBody(body: Buffer): void {
    const mem = body.buffer;
    if (mem instanceof SharedArrayBuffer || !fromWorker.has(mem) || own.get(mem) !== body.length || body.byteOffset !== 0) return;
    own.delete(mem);
    fromWorker.delete(mem);
    if (mem.byteLength > SPARE_MAX_EACH || spare.length >= SPARE_COUNT || spareBytes + mem.byteLength > SPARE_BYTES) return;
    spare.push(mem);
    spareBytes += mem.byteLength;
}
