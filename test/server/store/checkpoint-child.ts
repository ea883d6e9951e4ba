/**
 * Child process for checkpoint.test.ts: ingests `<events>` events in batches of 100 into dataset
 * `cp` (no compaction: the tail stays in the WAL), prints `DONE` once all are acknowledged, and
 * waits to be killed.
 * Usage: node --import tsx checkpoint-child.ts <dataDir> <events>
 */
import { openStore } from '../../../server/store/store.js';

const [dir, events] = process.argv.slice(2);
const store = await openStore(dir, { compactEvents: 1_000_000, checkpointEvents: 100, log: (m) => process.stderr.write(`${m}\n`) });
await store.createDataset({ name: 'cp' });
for (let from = 0; from < Number(events); from += 100) {
    const lines = Array.from({ length: 100 }, (_, k) => JSON.stringify({ _time: new Date(Date.UTC(2024, 0, 1) + (from + k) * 1000).toISOString(), i: from + k, s: `v${(from + k) % 7}` }));
    await store.ingest('cp', { body: Buffer.from(lines.join('\n')), contentType: 'application/x-ndjson' });
}
process.stdout.write('DONE\n');
setInterval(() => undefined, 1000);
