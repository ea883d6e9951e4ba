/**
 * Messages between the query pool (pool.ts, main thread) and a query worker (query-worker.ts).
 * Everything here crosses `postMessage`: plain data, bigints, and typed arrays on
 * SharedArrayBuffers (shared, not copied).
 */
import type { EngineDelta, PartitionPlan, PartitionSpec, QueryLimits } from '../../language/index.js';
import type { AplQueryRequest } from '../http/engine-adapter.js';

/** What a worker's engine is built with (the same as the main thread's query settings). */
export interface WorkerSetup {
    maxResultRows: number;
    defaultLimit: number;
    limits?: Partial<QueryLimits>;
    /**
     * Int32Array on a SharedArrayBuffer: slot 0 is set by the pool to ask the running query to stop
     * (INTERRUPT_* below); the worker reads it with Atomics.load at the evaluator's check points.
     */
    interrupt: Int32Array;
    /**
     * Int32Array on a SharedArrayBuffer shared by the pool's workers: a worker sets slot 0 to 1
     * once it can run queries, before it says so by message, so that a query running on the main
     * thread meanwhile (pool.ts whileStarting) sees it without a turn of the event loop.
     */
    started: Int32Array;
    /** Where the store's datasets are, for blocks read from disk (cold-reader.ts); none = no such reads. */
    datasetsDir?: string;
    /** Bytes of blocks read from disk this worker keeps in memory. */
    coldCacheBytes?: number;
}

export const INTERRUPT_NONE = 0;
export const INTERRUPT_TIMEOUT = 1;
export const INTERRUPT_CANCEL = 2;

/** Why a query stopped, in the words the client reads (the same whether the worker stopped itself or was ended). */
export function interruption(kind: 'timeout' | 'cancelled', timeoutMs: number): { kind: 'timeout' | 'cancelled'; message: string } {
    if (kind === 'cancelled') return { kind, message: 'the query was cancelled: its client went away or the service is stopping' };
    const limit = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
    return { kind, message: `the query ran longer than the time limit of ${limit} (apl serve --query-timeout) and was stopped` };
}

/**
 * A query as the routes ask for it. A legacy body travels as its JSON text: a structured clone of
 * a deeply nested object would overflow the stack in `postMessage`, and the text is flat.
 */
export type QuerySpec =
    | { kind: 'apl'; apl: string; request: AplQueryRequest }
    | { kind: 'legacy'; dataset: string; bodyJson: string; now: bigint; missing?: Record<string, string> }
    /** A part of a parallel run (language/eval/parallel.ts); answers the part's result (serializePartial). */
    | { kind: 'apl-part'; apl: string; request: AplQueryRequest; plan: PartitionPlan; part: PartitionSpec }
    /** The merge of a parallel run: the parts' results, then the response body as for `apl`. */
    | { kind: 'apl-merge'; apl: string; request: AplQueryRequest; plan: PartitionPlan; parts: JobAnswer[] };

/**
 * What a job answers: the response body (JSON text, serialised off the main thread), or a part's
 * JSON and the buffers of its exact states, which postMessage shares rather than copies.
 */
export interface JobAnswer {
    json: string;
    shared?: SharedArrayBuffer[];
}

/** A query as a worker runs it: with the time limit it runs under (for its error message). */
export type QueryJob = QuerySpec & { timeoutMs: number };

/** main → worker: catch up with the engine, then run the job. */
export interface WorkerRequest {
    id: number;
    delta: EngineDelta;
    job: QueryJob;
}

/** A thrown error, rebuilt as the same class on the main thread (query-errors.ts). */
export type SerializedError =
    | { type: 'apl'; detail: string; line: number; column: number; kind: string }
    | { type: 'http'; status: number; message: string; extra?: Record<string, unknown> }
    | { type: 'legacy'; path: string; message: string }
    | { type: 'error'; message: string };

/** worker → main: the job's answer, or its error. */
export type WorkerReply = { ready: true } | ({ id: number; ok: true } & JobAnswer) | { id: number; ok: false; error: SerializedError };
