/**
 * Child process for crash.test.ts: ingests batches continuously and prints `ACK <run> <batch> <n>`
 * after each batch is acknowledged (durable). The parent SIGKILLs it at a random moment.
 * Usage: node --import tsx crash-child.ts <dataDir> <run> <useWorker 0|1>
 */
import { gzipSync } from 'node:zlib';
import { openStore } from '../../../server/store/store.js';

const [dir, run, useWorker] = process.argv.slice(2);
const store = await openStore(dir, { compactEvents: 200, compactInWorker: useWorker === '1', log: (m) => process.stderr.write(`${m}\n`) });
if (!store.hasDataset('crash')) await store.createDataset({ name: 'crash' });
process.stdout.write('READY\n');

let batch = 0;
async function worker(): Promise<void> {
    for (;;) {
        const b = batch++;
        const n = 10 + (b % 50);
        const lines: string[] = [];
        for (let i = 0; i < n; i++) lines.push(JSON.stringify({ k: `${run}-${b}-${i}`, i, nested: { b, s: 'x'.repeat(i % 7) } }));
        const raw = Buffer.from(lines.join('\n'));
        const gz = b % 3 === 0;
        const res = await store.ingest('crash', { body: gz ? gzipSync(raw) : raw, contentType: 'application/x-ndjson', contentEncoding: gz ? 'gzip' : '' });
        if (res.ingested !== n) throw new Error(`batch ${b}: ingested ${res.ingested} of ${n}`);
        process.stdout.write(`ACK ${run} ${b} ${n}\n`);
    }
}
await Promise.all([worker(), worker(), worker()]);
