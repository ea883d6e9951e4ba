/**
 * One APL query over several query workers at once (language/eval/parallel.ts has the plan): each
 * idle worker runs a part of the dataset scan up to the plan's mergeable step, then one worker
 * merges the parts and runs the rest. Small scans, paged queries (a cursor) and shapes the plan
 * does not cover run as one job.
 */
import { partialIsUnsupported, type Engine } from '../../language/index.js';
import type { QueryPool } from './pool.js';
import type { QuerySpec } from './protocol.js';

/**
 * Scans smaller than this run as one job. On 2 cores (`npm run bench -- --only scale`) splitting
 * is about even at 1M rows and halves Q1, Q2 and Q7 at 10M.
 */
export const DEFAULT_PARALLEL_MIN_ROWS = 2_000_000;

/** Queries longer than this are not planned on the main thread (the plan parses the query). */
const MAX_PLANNED_LENGTH = 4096;

/** Runs the query in parts when it can, else undefined (the caller runs it as one job). */
export function runParallel(pool: QueryPool, engine: Engine, job: QuerySpec, minRows: number, signal?: AbortSignal): Promise<string> | undefined {
    if (job.kind !== 'apl' || job.request.cursor || job.apl.length > MAX_PLANNED_LENGTH) return undefined;
    const n = pool.idleWorkers();
    if (n < 2) return undefined;
    const plan = engine.planParallel(job.apl, minRows, { startTime: job.request.startNs, endTime: job.request.endNs });
    if (!plan) return undefined;
    const { apl, request } = job;
    const parts = pool.runTogether(Array.from({ length: n }, (_, index) => ({ kind: 'apl-part' as const, apl, request, plan, part: { index, count: n } })), signal);
    if (!parts) return undefined;
    return Promise.all(parts).then(answers =>
        // A part whose data do not fit the plan (a sum over strings) sends the query back to one job.
        answers.some(partialIsUnsupported) ? pool.run(job, signal) : pool.run({ kind: 'apl-merge', apl, request, plan, parts: answers }, signal),
    );
}
