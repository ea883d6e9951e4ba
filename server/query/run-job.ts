/**
 * Runs one query job on an engine and returns the response body as JSON text. The same code runs
 * in a query worker (query-worker.ts) and, with `queryWorkers: 0`, on the main thread
 * (server/http/engine-adapter.ts), so a query answers the same either way. An APL query is checked like
 * `apl check` does before it runs (server/http/apl-check.ts).
 */
import type { Engine, QueryInterruption, QueryOptions } from '../../language/index.js';
import { deserializePartial, legacyExecutor, provideParsingServices, serializePartial, type QueryEngine } from '../../language/index.js';
import { ServiceAplChecker } from '../http/apl-check.js';
import type { JobAnswer, QueryJob } from './protocol.js';
import type { StatusMessage } from '../../language/api/status.js';
import { mapQueryError } from './query-errors.js';

/** One checker per engine (a worker's replica, or the main thread's engine): its services are built once. */
const checkers = new WeakMap<Engine, ServiceAplChecker>();

export function checkerFor(engine: Engine): ServiceAplChecker {
    let checker = checkers.get(engine);
    if (!checker) checkers.set(engine, (checker = new ServiceAplChecker(engine)));
    return checker;
}

/**
 * This thread's evaluator parses with the services of `engine`'s query check, so the thread builds
 * one parser instead of two (about 40 ms of CPU each, on the path of the first answer after
 * start-up: issue 31). Call before anything on the thread parses.
 */
export function shareParser(engine: Engine): void {
    provideParsingServices(() => checkerFor(engine).services());
}

export async function runJob(engine: Engine, job: QueryJob, interrupt?: () => QueryInterruption | undefined): Promise<JobAnswer> {
    try {
        if (job.kind === 'apl' || job.kind === 'apl-part' || job.kind === 'apl-merge') {
            // `apl check`'s verdict first, against this engine's datasets: its errors, codes and
            // suggestions are the 400 (the check costs ~35 µs per character, hence here, off the event loop).
            // A parallel run is checked once, by its first part.
            if (job.kind === 'apl' || (job.kind === 'apl-part' && job.part.index === 0)) await checkerFor(engine).assertRunnable(job.apl);
            const req = job.request;
            const options: QueryOptions = {
                now: req.now,
                startTime: req.startNs,
                endTime: req.endNs,
                limit: req.limit,
                cursor: req.cursor,
                includeCursor: req.includeCursor,
                includeCursorField: req.includeCursorField,
                variables: req.variables,
                interrupt,
            };
            if (job.kind === 'apl-part') {
                const { run } = engine.run(job.apl, { ...options, partial: { plan: job.plan, part: job.part } });
                return serializePartial(run.partial ?? { kind: 'unsupported' });
            }
            if (job.kind === 'apl-merge') options.merge = { plan: job.plan, parts: job.parts.map(deserializePartial) };
            const result = req.format === 'tabular' ? await engine.query(job.apl, options) : await engine.queryLegacyFormat(job.apl, options);
            return { json: JSON.stringify(tellMissingData(result, req.missing)) };
        }
        // The legacy executor runs APL through `engine.query`: every one of those runs gets the interrupt.
        const interrupted: QueryEngine = { query: (apl, o) => engine.query(apl, { ...o, interrupt }) };
        return { json: JSON.stringify(tellMissingData(await legacyExecutor(interrupted, job.dataset, JSON.parse(job.bodyJson) as unknown), job.missing, [job.dataset])) };
    } catch (err) {
        throw mapQueryError(err);
    }
}

/** The code of the warning an answer over quarantined data carries (API.md §6.5: custom codes start with `apl_`). */
export const QUARANTINED_DATA_WARNING = 'apl_quarantined_data_warning';

interface AnswerWithStatus {
    status?: { isPartial?: boolean; messages?: StatusMessage[] | null };
    datasetNames?: string[];
}

/**
 * An answer that read a dataset with quarantined events is partial, and says what it lacks: one
 * warning per such dataset, whatever the number of tables or times the query read it.
 */
function tellMissingData<T>(result: T, missing: Record<string, string> | undefined, read?: string[]): T {
    if (!missing) return result;
    const answer = result as AnswerWithStatus;
    const status = answer.status;
    if (!status) return result;
    for (const name of new Set(read ?? answer.datasetNames ?? [])) {
        const msg = Object.prototype.hasOwnProperty.call(missing, name) ? missing[name] : undefined;
        if (msg === undefined) continue;
        status.isPartial = true;
        (status.messages ??= []).push({ priority: 'warn', count: 1, code: QUARANTINED_DATA_WARNING, msg });
    }
    return result;
}
