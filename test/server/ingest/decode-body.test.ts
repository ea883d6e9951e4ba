import { execFileSync } from 'node:child_process';
import { gzipSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, parseContentEncoding } from '../../../server/ingest/decode-body.js';
import { IngestError } from '../../../language/ingest/errors.js';

/** Compresses with Debian's zstd CLI (apt-get install zstd). */
function zstd(data: Buffer, ...args: string[]): Buffer {
    return execFileSync('zstd', ['-q', '-c', ...args], { input: data, maxBuffer: 1 << 30 });
}

async function expectIngestError(p: Promise<unknown>, status: number, re?: RegExp): Promise<void> {
    const err = await p.then(
        () => undefined,
        (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).status).toBe(status);
    if (re) expect((err as IngestError).message).toMatch(re);
}

const ndjson = Buffer.from('{"a":1}\n{"a":2}\n');

describe('decodeBody', () => {
    it('passes identity through for absent, empty and "identity" headers', async () => {
        expect(await decodeBody(ndjson, undefined)).toBe(ndjson);
        expect(await decodeBody(ndjson, '')).toBe(ndjson);
        expect(await decodeBody(ndjson, 'identity')).toBe(ndjson);
    });

    it('decodes gzip (also multi-member) and deflate', async () => {
        expect((await decodeBody(gzipSync(ndjson), 'gzip')).toString()).toBe(ndjson.toString());
        const two = Buffer.concat([gzipSync('{"a":1}\n'), gzipSync('{"a":2}\n')]);
        expect((await decodeBody(two, 'GZIP')).toString()).toBe(ndjson.toString());
        expect((await decodeBody(deflateSync(ndjson), 'deflate')).toString()).toBe(ndjson.toString());
    });

    it('decodes zstd produced by the zstd CLI, including multi-frame and large input', async () => {
        expect((await decodeBody(zstd(ndjson), 'zstd')).toString()).toBe(ndjson.toString());
        const two = Buffer.concat([zstd(Buffer.from('{"a":1}\n')), zstd(Buffer.from('{"a":2}\n'))]);
        expect((await decodeBody(two, 'zstd')).toString()).toBe(ndjson.toString());
        const big = Buffer.from(Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ i, s: `v${i % 97}` })).join('\n'));
        expect((await decodeBody(zstd(big), 'zstd')).equals(big)).toBe(true);
    });

    it('rejects unsupported encodings with 415', async () => {
        await expectIngestError(decodeBody(ndjson, 'br'), 415, /Content-Encoding/);
        expect(() => parseContentEncoding('compress')).toThrow(IngestError);
    });

    it('stops a gzip bomb with 413, measured after decompression', async () => {
        const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // ~64 KiB compressed
        expect(bomb.length).toBeLessThan(200_000);
        await expectIngestError(decodeBody(bomb, 'gzip', 1024 * 1024), 413, /too large/);
    });

    it('stops a zstd bomb with 413', async () => {
        const bomb = zstd(Buffer.alloc(32 * 1024 * 1024));
        await expectIngestError(decodeBody(bomb, 'zstd', 1024 * 1024), 413);
        // streamed (no content size in the header): caught while decompressing
        const streamed = execFileSync('sh', ['-c', 'head -c 33554432 /dev/zero | zstd -q -c'], { maxBuffer: 1 << 26 });
        await expectIngestError(decodeBody(streamed, 'zstd', 1024 * 1024), 413);
    });

    it('rejects identity bodies over the limit with 413', async () => {
        await expectIngestError(decodeBody(Buffer.alloc(2048), '', 1024), 413);
    });

    it('answers 400 for truncated or corrupt gzip and zstd', async () => {
        const gz = gzipSync(Buffer.from(JSON.stringify({ x: 'y'.repeat(10_000) })));
        await expectIngestError(decodeBody(gz.subarray(0, gz.length - 20), 'gzip'), 400, /gzip/);
        await expectIngestError(decodeBody(Buffer.from('not gzip at all'), 'gzip'), 400, /gzip/);
        const zs = zstd(Buffer.from(JSON.stringify({ x: 'abc'.repeat(10_000) })));
        await expectIngestError(decodeBody(zs.subarray(0, zs.length - 10), 'zstd'), 400, /zstd/);
        await expectIngestError(decodeBody(Buffer.from('not zstd at all'), 'zstd'), 400, /zstd/);
    });

    it('answers 400 for a zstd frame whose content checksum does not match', async () => {
        const good = zstd(ndjson); // the zstd CLI writes the content checksum by default
        const badSum = Buffer.from(good);
        badSum[badSum.length - 1] ^= 0x01;
        await expectIngestError(decodeBody(badSum, 'zstd'), 400, /checksum/);
        // A damaged byte inside a raw (stored) block decodes fine; only the checksum can tell.
        // Incompressible bytes are stored raw, so a byte just before the checksum is content.
        let seed = 12345;
        const noise = Buffer.from(Array.from({ length: 4096 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24)));
        const raw = zstd(noise, '--check');
        const flipped = Buffer.from(raw);
        flipped[flipped.length - 4 - 10] ^= 0x20;
        await expectIngestError(decodeBody(flipped, 'zstd'), 400, /checksum/);
        const text = Buffer.from('{"a":1}\n'.repeat(100));
        const stored = zstd(text, '--no-check');
        // The second of two frames is damaged.
        const two = Buffer.concat([zstd(Buffer.from('{"a":1}\n')), badSum]);
        await expectIngestError(decodeBody(two, 'zstd'), 400, /checksum/);
        // Without a checksum there is nothing to verify: still accepted.
        expect((await decodeBody(stored, 'zstd')).equals(text)).toBe(true);
    });
});
