/**
 * A large ingest body is read into memory of its own (padded-body.ts) and handed to an ingest
 * worker without a copy: the request's Buffer is detached by the transfer, and the pool gets the
 * same bytes back for the WAL. Any other Buffer is copied, as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IngestWorkers } from '../../../server/ingest/prepare-pool.js';
import { crc32 } from 'node:zlib';
import { paddedBody, releaseBody, transferableBody, PADDED_BODY_MIN } from '../../../server/ingest/padded-body.js';
import { ndjsonRequest as request } from './ndjson-request.js';

/** NDJSON of `n` events (600 or more: past PADDED_BODY_MIN bytes), each with a distinct id. */
function bigNdjson(n: number): string {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(JSON.stringify({ _time: `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}Z`, id: `id-${i}`, method: i % 3 ? 'GET' : 'POST', ms: i / 7, ok: i % 2 === 0, geo: { city: `c${i % 5}` } }));
    const text = lines.join('\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(PADDED_BODY_MIN);
    return text;
}

function padded(text: string): Buffer {
    const b = paddedBody(Buffer.byteLength(text));
    b.write(text, 'utf8');
    return b;
}

const opts = { maxBodyBytes: 1 << 24, mapFields: [] };

let pool: IngestWorkers | undefined;
afterEach(async () => {
    await pool?.close();
    pool = undefined;
});

describe('padded request bodies', () => {
    it('only memory made by paddedBody is transferable, and only whole', () => {
        const text = '{"a":1}\n'.repeat(10_000);
        expect(transferableBody(padded(text))).toBeInstanceOf(ArrayBuffer);
        expect(transferableBody(Buffer.from(text))).toBeUndefined();
        // A small Buffer lives in Node's shared pool: never detached.
        expect(transferableBody(Buffer.from('{"a":1}'))).toBeUndefined();
        // A part of a padded body is not the body.
        expect(transferableBody(padded(text).subarray(0, 100))).toBeUndefined();
        // Its padding overwritten (a body that was changed in place): not handed over as it is.
        const b = padded(text);
        Buffer.from(b.buffer, 0, b.length + 1)[b.length] = 0x20;
        expect(transferableBody(b)).toBeUndefined();
    });

    it('5,000 events in a padded body: handed to the worker without a copy, the same bytes back for the WAL', async () => {
        pool = new IngestWorkers(1, () => undefined);
        // The first body starts the worker (a body goes over whole only to a worker known to run).
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        const text = bigNdjson(5_000);
        const req = request(padded(text));
        const prep = await pool.prepare(req, opts);
        expect('columnar' in prep && prep.columnar.times.length).toBe(5_000);
        expect(prep.failures).toEqual([]);
        expect(req.body.length).toBe(0); // detached: it went to the worker
        expect(prep.body.toString('utf8')).toBe(text);
        expect(prep.processedBytes).toBe(Buffer.byteLength(text));
        // What came back can go again.
        const again = await pool.prepare(request(prep.body), opts);
        expect(again.count).toBe(5_000);
        expect(again.body.toString('utf8')).toBe(text);
    });

    it('5,000 events in an ordinary Buffer: copied for the worker, the request keeps its bytes', async () => {
        pool = new IngestWorkers(1, () => undefined);
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        const text = bigNdjson(5_000);
        const req = request(Buffer.from(text));
        const prep = await pool.prepare(req, opts);
        expect(prep.count).toBe(5_000);
        expect(req.body.toString('utf8')).toBe(text);
        expect(prep.body).toBe(req.body);
    });

    it('a body back from the worker, once released, is the memory of the next body of about its size; nothing else is kept', async () => {
        pool = new IngestWorkers(1, () => undefined);
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        const text = bigNdjson(2_000);
        const prep = await pool.prepare(request(padded(text)), opts);
        const mem = prep.body.buffer;
        releaseBody(prep.body);
        const next = paddedBody(Buffer.byteLength(text) - 10);
        expect(next.buffer).toBe(mem);
        // A Buffer that did not come back from a worker is never kept (it may be anyone's).
        const mine = padded(text);
        releaseBody(mine);
        expect(paddedBody(Buffer.byteLength(text)).buffer).not.toBe(mine.buffer);
        // Released twice: kept once.
        const again = await pool.prepare(request(padded(text)), opts);
        releaseBody(again.body);
        releaseBody(again.body);
        expect(paddedBody(Buffer.byteLength(text)).buffer).toBe(again.body.buffer);
        expect(paddedBody(Buffer.byteLength(text)).buffer).not.toBe(again.body.buffer);
    });

    it('30 bodies of 700 to 3,000 events, each released and its memory used again: every one parsed as itself', async () => {
        pool = new IngestWorkers(2, () => undefined);
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        const sizes = Array.from({ length: 30 }, (_, i) => [3_000, 700, 2_500, 900, 1_400][i % 5] + i);
        // Four in flight, as the service has them: released memory goes to the bodies that follow.
        for (let i = 0; i < sizes.length; i += 4) {
            await Promise.all(
                sizes.slice(i, i + 4).map(async (n) => {
                    const text = bigNdjson(n);
                    const prep = await pool!.prepare(request(padded(text)), opts);
                    expect(prep.count).toBe(n);
                    expect(prep.failures).toEqual([]);
                    expect('columnar' in prep && prep.columnar.times.length).toBe(n);
                    expect(prep.body.toString('utf8')).toBe(text);
                    expect(prep.bodyCrc).toBe(crc32(Buffer.from(text)));
                    releaseBody(prep.body);
                }),
            );
        }
    });

    it('a padded body whose line fails: the failure named, the body back', async () => {
        pool = new IngestWorkers(1, () => undefined);
        await pool.prepare(request(Buffer.from('{"a":1}')), opts);
        const text = `${bigNdjson(3_000)}\nnot json`;
        const prep = await pool.prepare(request(padded(text)), opts);
        expect(prep.count).toBe(3_000);
        expect(prep.failures.map((f) => f.index)).toEqual([3_000]);
        expect(prep.body.toString('utf8')).toBe(text);
    });
});
