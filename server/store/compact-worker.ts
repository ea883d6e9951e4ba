/** Worker-thread entry: runs compaction jobs posted by Compactor (compactor.ts). */
import { parentPort } from 'node:worker_threads';
import { runCompactJob, type CompactJob } from './compact.js';

const port = parentPort;
if (port) {
    // Tells the Compactor the module loaded (a worker that dies before this could not start at all).
    port.postMessage({ ready: true });
    port.on('message', (msg: { id: number; job: CompactJob }) => {
        runCompactJob(msg.job).then(
            (result) => port.postMessage({ id: msg.id, ok: true, result }),
            (err: unknown) => port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
        );
    });
}
