/**
 * Content-Encoding handling for ingest bodies (API.md §3.2): gzip, zstd, or identity (the header
 * absent, empty, or `identity`). `deflate` is accepted too (cheap, and some proxies use it).
 *
 * The size bound is measured AFTER decompression and enforced while streaming, so a small
 * compressed "bomb" is stopped as soon as its output passes the limit; the output is never fully
 * materialised.
 */
import { createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { Decompress } from 'fzstd';
import { IngestError } from '../../language/ingest/errors.js';
import { xxh64 } from './xxh64.js';

/**
 * The one default bound on a decompressed ingest body, for the service (`apl serve --max-body-bytes`),
 * the store and `prepareIngest` alike (API.md gives no number for /ingest, U7; 64 MiB is ours).
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export type ContentEncoding = 'identity' | 'gzip' | 'zstd' | 'deflate';

/** Normalises a Content-Encoding header value; throws 415 for anything we cannot decode. */
export function parseContentEncoding(header: string | string[] | undefined | null): ContentEncoding {
    const raw = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
    if (raw === '' || raw === 'identity') return 'identity';
    if (raw === 'gzip' || raw === 'x-gzip') return 'gzip';
    if (raw === 'zstd') return 'zstd';
    if (raw === 'deflate') return 'deflate';
    throw new IngestError(415, `unsupported Content-Encoding "${raw}": use gzip, zstd or identity`);
}

function tooLarge(maxBytes: number): IngestError {
    return new IngestError(413, `request body too large: more than ${maxBytes} bytes after decompression`);
}

/**
 * Returns the decompressed body. Throws IngestError: 413 when the decompressed size passes
 * `maxBytes`, 400 for a corrupt or truncated gzip/zstd stream, 415 for an unknown encoding.
 */
export async function decodeBody(
    body: Buffer,
    contentEncoding: string | string[] | undefined | null,
    maxBytes: number = DEFAULT_MAX_BODY_BYTES,
): Promise<Buffer> {
    const enc = parseContentEncoding(contentEncoding);
    switch (enc) {
        case 'identity':
            if (body.length > maxBytes) throw tooLarge(maxBytes);
            return body;
        case 'gzip':
            return inflateStream(createGunzip(), body, maxBytes, 'gzip');
        case 'deflate':
            return inflateStream(createInflate(), body, maxBytes, 'deflate');
        case 'zstd':
            return decodeZstd(body, maxBytes);
    }
}

function inflateStream(stream: Transform, body: Buffer, maxBytes: number, what: string): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let total = 0;
        let done = false;
        const fail = (err: IngestError): void => {
            if (done) return;
            done = true;
            stream.destroy();
            reject(err);
        };
        stream.on('data', (chunk: Buffer) => {
            if (done) return;
            total += chunk.length;
            if (total > maxBytes) {
                fail(tooLarge(maxBytes));
                return;
            }
            chunks.push(chunk);
        });
        stream.on('error', (err: NodeJS.ErrnoException) => {
            fail(new IngestError(400, `invalid ${what} body: ${err.message}${err.code ? ` (${err.code})` : ''}`));
        });
        stream.on('end', () => {
            if (done) return;
            done = true;
            resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
        });
        if (body.length === 0) {
            fail(new IngestError(400, `invalid ${what} body: empty`));
            return;
        }
        stream.end(body);
    });
}

/** Zstandard frame magic and skippable-frame magic range. */
const ZSTD_MAGIC = 0xfd2fb528;

/** One frame found by checkZstdFrames: its bytes, and where its content checksum is (-1: none). */
interface ZstdFrame {
    start: number;
    end: number;
    checksumAt: number;
}

/**
 * Walks the zstd frame headers (without decompressing) so that a frame that declares a window or
 * content size past the limit is refused BEFORE fzstd allocates a window buffer of that size
 * (fzstd allocates up to ~2 GiB for a hostile header). Returns the data frames found (skippable
 * frames are left out) and where the walk stopped; structural problems past that point are left to
 * fzstd.
 */
function checkZstdFrames(buf: Buffer, maxBytes: number): { frames: ZstdFrame[]; stop: number } {
    const frames: ZstdFrame[] = [];
    const windowCap = Math.max(maxBytes, 8 * 1024 * 1024) + 1024;
    let p = 0;
    while (p + 4 <= buf.length) {
        const magic = buf.readUInt32LE(p);
        if ((magic & 0xfffffff0) === 0x184d2a50) {
            if (p + 8 > buf.length) break;
            p += 8 + buf.readUInt32LE(p + 4);
            continue;
        }
        if (magic !== ZSTD_MAGIC || p + 5 > buf.length) break;
        const flg = buf[p + 4];
        const fcf = flg >> 6;
        const ss = (flg >> 5) & 1;
        const cc = (flg >> 2) & 1;
        const df = flg & 3;
        let q = p + 5;
        let windowSize = 0;
        if (!ss) {
            if (q >= buf.length) break;
            const wd = buf[q++];
            const wb = 2 ** (10 + (wd >> 3));
            windowSize = wb + (wb / 8) * (wd & 7);
        }
        q += df === 3 ? 4 : df;
        const fsb = fcf ? 1 << fcf : ss;
        let contentSize = -1;
        if (fsb) {
            if (q + fsb > buf.length) break;
            if (fsb === 1) contentSize = buf[q];
            else if (fsb === 2) contentSize = buf.readUInt16LE(q) + 256;
            else if (fsb === 4) contentSize = buf.readUInt32LE(q);
            else contentSize = Number(buf.readBigUInt64LE(q));
            q += fsb;
        }
        if (ss) windowSize = contentSize;
        if (contentSize > maxBytes || windowSize > windowCap) throw tooLarge(maxBytes);
        // Skip the blocks: 3-byte header each (last flag, type, size); RLE blocks carry 1 byte.
        let complete = false;
        while (q + 3 <= buf.length) {
            const bh = buf[q] | (buf[q + 1] << 8) | (buf[q + 2] << 16);
            const type = (bh >> 1) & 3;
            q += 3 + (type === 1 ? 1 : bh >>> 3);
            if (bh & 1) {
                complete = true;
                break;
            }
        }
        const end = q + (cc ? 4 : 0);
        if (!complete || end > buf.length) break;
        frames.push({ start: p, end, checksumAt: cc ? q : -1 });
        p = end;
    }
    return { frames, stop: p };
}

function decodeZstd(body: Buffer, maxBytes: number): Buffer {
    if (body.length === 0) throw new IngestError(400, 'invalid zstd body: empty');
    const { frames, stop } = checkZstdFrames(body, maxBytes);
    const chunks: Uint8Array[] = [];
    const budget = { total: 0 };
    // Each whole frame is decoded on its own so that its output can be checked against its content
    // checksum (fzstd does not verify it); whatever the walk could not frame goes to fzstd as is,
    // which reports what is wrong with it.
    const checks: { from: number; to: number; expected: number }[] = [];
    for (const f of frames) {
        const from = budget.total;
        decodeZstdPiece(body.subarray(f.start, f.end), maxBytes, chunks, budget);
        if (f.checksumAt >= 0) checks.push({ from, to: budget.total, expected: body.readUInt32LE(f.checksumAt) });
    }
    if (stop < body.length || frames.length === 0) decodeZstdPiece(body.subarray(stop), maxBytes, chunks, budget);
    const out = Buffer.allocUnsafe(budget.total);
    let o = 0;
    for (const c of chunks) {
        out.set(c, o);
        o += c.length;
    }
    for (const c of checks) {
        const actual = Number(xxh64(out.subarray(c.from, c.to)) & 0xffffffffn);
        if (actual !== c.expected) {
            throw new IngestError(400, 'invalid zstd body: content checksum mismatch (the body is damaged)');
        }
    }
    return out;
}

/** Decodes `piece` with fzstd, appending to `chunks` and counting against `maxBytes`. */
function decodeZstdPiece(piece: Buffer, maxBytes: number, chunks: Uint8Array[], budget: { total: number }): void {
    let ended = false;
    let produced = 0;
    const LIMIT = Symbol('limit');
    const dec = new Decompress((data, final) => {
        budget.total += data.length;
        produced += data.length;
        if (budget.total > maxBytes) throw LIMIT;
        // fzstd reuses nothing it hands out, but copy-free keeping is safe: each block is fresh.
        if (data.length) chunks.push(data);
        if (final) ended = true;
    });
    try {
        // Push in slices so that the output bound is checked often (one zstd block is ≤128 KiB).
        const STEP = 64 * 1024;
        for (let off = 0; off < piece.length; off += STEP) {
            const end = Math.min(piece.length, off + STEP);
            dec.push(piece.subarray(off, end), end === piece.length);
        }
    } catch (err) {
        if (err === LIMIT) throw tooLarge(maxBytes);
        throw new IngestError(400, `invalid zstd body: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!ended && produced === 0) {
        // fzstd signals completion through `final`; a stream that never finished is truncated.
        throw new IngestError(400, 'invalid zstd body: truncated stream');
    }
}
