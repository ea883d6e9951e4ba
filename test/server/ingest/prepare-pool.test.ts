/**
 * The ingest worker pool: a body is parsed on a worker, and when no worker can start the request is
 * parsed on the main thread instead, with the same result and one line in the log that says so.
 */
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { paddedBody } from '../../../server/ingest/padded-body.js';
import { IngestWorkers } from '../../../server/ingest/prepare-pool.js';
import { ndjsonRequest as request } from './ndjson-request.js';

let pool: IngestWorkers | undefined;
afterEach(async () => {
    await pool?.close();
    pool = undefined;
});

describe('IngestWorkers', () => {
    it('{"a":1}\\n{"a":"x"} on a worker: columns', async () => {
        const log: string[] = [];
        pool = new IngestWorkers(1, (m) => log.push(m));
        const prep = await pool.prepare(request('{"a":1}\n{"a":"x"}'), { maxBodyBytes: 1 << 20, mapFields: [] });
        expect('columnar' in prep && prep.columnar.times.length).toBe(2);
        expect(prep.count).toBe(2);
        expect(log).toEqual([]);
    });

    it('a body of 100 KB parsed on a worker comes back with its crc32 (the WAL record checksums it with that)', async () => {
        pool = new IngestWorkers(1, () => undefined);
        const text = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ id: `id-${i}`, n: i, s: 'é'.repeat(i % 7) })).join('\n');
        const want = crc32(Buffer.from(text));
        for (let i = 0; i < 3; i++) {
            // In memory of its own as the service's body parser reads it: copied to the worker
            // while it starts, then handed over and back.
            const body = paddedBody(Buffer.byteLength(text));
            body.write(text);
            const prep = await pool.prepare(request(body), { maxBodyBytes: 1 << 22, mapFields: [] });
            expect(prep.count).toBe(1500);
            expect(prep.bodyCrc).toBe(want);
            expect(crc32(prep.body)).toBe(want);
        }
    });

    it('{"a":1} with a worker that cannot start: parsed on the main thread, logged once', async () => {
        const log: string[] = [];
        // A heap too small to load the worker's module: it dies before it is ready.
        pool = new IngestWorkers(1, (m) => log.push(m), 1);
        for (let i = 0; i < 3; i++) {
            const prep = await pool.prepare(request('{"a":1}'), { maxBodyBytes: 1 << 20, mapFields: [] });
            expect(prep.batch?.fields).toEqual([{ a: 1 }]);
        }
        expect(log.filter((m) => /ingest worker unavailable/.test(m))).toHaveLength(1);
    });
});
