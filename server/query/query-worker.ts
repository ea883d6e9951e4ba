/**
 * Query worker thread: a replica of the service's engine (its columns shared through
 * SharedArrayBuffers, the rest kept up to date by the deltas that come with each job, see
 * language/eval/replica.ts) that runs one query at a time for the pool (pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine, type QueryInterruption } from '../../language/index.js';
import { interruption, INTERRUPT_NONE, INTERRUPT_TIMEOUT, type WorkerReply, type WorkerRequest, type WorkerSetup } from './protocol.js';
import { serializeError } from './query-errors.js';
import { runJob, shareParser } from './run-job.js';
import { coldBlockReader } from './cold-reader.js';
import { saveCodeCacheNow } from '../../bin/code-cache.js';

const WARM_UP_REQUEST = { format: 'tabular' as const, now: 0n, includeCursor: false, includeCursorField: false };

const port = parentPort;
if (port) {
    const setup = workerData as WorkerSetup;
    const engine = createEngine({
        maxLimit: setup.maxResultRows,
        defaultLimit: setup.defaultLimit,
        limits: setup.limits,
        sampleSchemas: false,
        coldReader: setup.datasetsDir === undefined ? undefined : coldBlockReader(setup.datasetsDir),
        coldCacheBytes: setup.coldCacheBytes,
    });
    shareParser(engine);
    let timeoutMs = 0;
    const interrupt = (): QueryInterruption | undefined => {
        const v = Atomics.load(setup.interrupt, 0);
        if (v === INTERRUPT_NONE) return undefined;
        return interruption(v === INTERRUPT_TIMEOUT ? 'timeout' : 'cancelled', timeoutMs);
    };
    const reply = (r: WorkerReply): void => port.postMessage(r);
    // Load the parser and evaluator before saying ready: until a worker is ready the pool answers
    // on the main thread (pool.ts, whileStarting), so the first job here is not the slow one. Jobs
    // that arrive meanwhile wait in the port's queue.
    const ready = (): void => {
        Atomics.store(setup.started, 0, 1);
        reply({ ready: true });
        saveCodeCacheNow();
    };
    const warmUp = runJob(engine, { kind: 'apl', apl: 'print warm = 1', timeoutMs: 0, request: WARM_UP_REQUEST }).then(ready, ready);
    port.on('message', (msg: WorkerRequest) => {
        void (async () => {
            await warmUp;
            try {
                engine.applyChanges(msg.delta);
                timeoutMs = msg.job.timeoutMs;
                reply({ id: msg.id, ok: true, ...(await runJob(engine, msg.job, interrupt)) });
            } catch (err) {
                reply({ id: msg.id, ok: false, error: serializeError(err) });
            }
            // Only in the build's warm-up: the code cache then holds the query path too.
            saveCodeCacheNow();
        })();
    });
}

