/** Worker-thread entry: parses + normalises ingest bodies posted by IngestWorker (prepare-pool.ts). */
import { parentPort } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { transferList, type ColumnarBatch } from './columnar.js';
import { prepareColumns } from './ndjson-columns.js';
import { IngestError } from '../../language/ingest/errors.js';
import type { BodyRequest, WorkerReply } from './prepare-pool.js';
import { saveCodeCacheNow } from '../../bin/code-cache.js';

const port = parentPort;
if (port) {
    // Tells the pool the module loaded (a worker that dies before this could not start at all).
    port.postMessage({ ready: true });
    port.on('message', (msg: BodyRequest) => {
        try {
            const body = Buffer.from(msg.body.buffer, msg.body.byteOffset, msg.body.byteLength);
            let result: ColumnarBatch;
            let bodyCrc: number;
            try {
                result = prepareColumns(body, msg.params);
                // The WAL record's checksum of the body, here rather than on the service's main thread.
                bodyCrc = crc32(body);
            } finally {
                // The body's memory back to the pool, for the WAL (the result holds none of it).
                if (msg.returnBody) port.postMessage({ id: msg.id, body: msg.body } satisfies WorkerReply, [msg.body.buffer as ArrayBuffer]);
            }
            port.postMessage({ id: msg.id, ok: true, result, bodyCrc } satisfies WorkerReply, transferList(result));
        } catch (err) {
            if (err instanceof IngestError) port.postMessage({ id: msg.id, ok: false, status: err.status, error: err.message });
            else port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
        }
        // Only in the build's warm-up: the code cache then holds the parse path too.
        saveCodeCacheNow();
    });
}
