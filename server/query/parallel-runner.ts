/**
 * Parallel parts for an engine used in one process (`apl run`, the library): query worker
 * threads (the service's query pool, pool.ts) over the engine's shared columns run all parts of a
 * parallel plan but one, which the engine runs on its own thread meanwhile, then merges
 * (language/eval/engine.ts `setParallelRunner`). Small scans and other shapes run as before.
 */
import { availableParallelism } from 'node:os';
import { deserializePartial, type Engine, type ParallelRunner } from '../../language/index.js';
import { QueryPool } from './pool.js';
import { DEFAULT_PARALLEL_MIN_ROWS } from './parallel-run.js';

export { DEFAULT_PARALLEL_MIN_ROWS };

export interface InProcessParallel {
    runner: ParallelRunner;
    /** Queries run in parts so far. */
    runs(): number;
    /** Stops the worker threads (the engine goes on without them). */
    close(): Promise<void>;
}

/** How long `startParallelRunner` waits for its workers to load before going on without those not ready. */
const READY_WAIT_MS = 10_000;

/**
 * Starts `workers` query workers (default: one per core but the engine's own) for `engine`, which
 * must keep its columns on SharedArrayBuffer (`sharedMemory: true`), sets them as its parallel
 * runner and resolves once they are ready. Undefined on a single core: nothing to split over.
 */
export async function startParallelRunner(engine: Engine, options: { workers?: number; minRows?: number } = {}): Promise<InProcessParallel | undefined> {
    const workers = options.workers ?? availableParallelism() - 1;
    if (workers < 1) return undefined;
    const pool = new QueryPool(engine, {
        workers,
        maxResultRows: 50_000,
        defaultLimit: 1000,
        log: () => undefined,
        // No worker could start: the engine runs every query on its own thread.
        fallback: () => Promise.reject(new Error('the query workers did not start')),
    });
    const runner: ParallelRunner = {
        minRows: options.minRows ?? DEFAULT_PARALLEL_MIN_ROWS,
        capacity: () => pool.idleWorkers(),
        runParts(apl, plan, parts, times) {
            const request = { format: 'tabular' as const, now: times.now, startNs: times.startTime, endNs: times.endTime, includeCursor: false, includeCursorField: false, variables: times.variables };
            const answers = pool.runTogether(parts.map(part => ({ kind: 'apl-part' as const, apl, request, plan, part })));
            return answers && Promise.all(answers).then(all => all.map(deserializePartial));
        },
    };
    const deadline = Date.now() + READY_WAIT_MS;
    while (pool.stats().idle < workers && pool.stats().workers > 0 && Date.now() < deadline) await new Promise(r => setTimeout(r, 10));
    engine.setParallelRunner(runner);
    return {
        runner,
        runs: () => pool.stats().together,
        async close() {
            engine.setParallelRunner(undefined);
            await pool.close();
        },
    };
}
