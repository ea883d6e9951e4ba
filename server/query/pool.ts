/**
 * The query pool: queries run on worker threads, so the main thread only does HTTP, ingest and
 * the engine's appends, and a heavy query never stalls an ingest acknowledgement or a light
 * request. Each worker holds a replica of the engine whose columns are the main engine's own
 * SharedArrayBuffers; the rest (dictionaries, dynamic values, …) comes as a delta with each job
 * (language/eval/replica.ts), with every dataset's row count fixed at dispatch.
 *
 * - One job per worker at a time; others wait in a bounded FIFO queue (full: 429).
 * - Time limit: at the deadline the job's interrupt flag is set (Atomics), and the evaluator stops
 *   at its next check point with a `timeout` error. A worker that does not stop within `graceMs`
 *   (stuck in one long step) is terminated and replaced; its replacement gets a full sync.
 * - Cancellation (the client went away): a queued job is dropped, a running one is interrupted the
 *   same way.
 * - A worker that dies (out of memory under `resourceLimits`, a crash) fails only its job, with
 *   a 4xx for a query that needed too much memory, and is replaced.
 */
import { availableParallelism, totalmem } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { AplQueryError, newSyncState, type Engine, type EngineSyncState, type QueryLimits } from '../../language/index.js';
import { startWorker } from '../worker-boot.js';
import { HttpError } from '../http/errors.js';
import { INTERRUPT_CANCEL, INTERRUPT_NONE, INTERRUPT_TIMEOUT, interruption, type JobAnswer, type QueryJob, type QuerySpec, type WorkerReply, type WorkerRequest, type WorkerSetup } from './protocol.js';
import { deserializeError } from './query-errors.js';
import { startTrace } from '../start-trace.js';

export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/** A worker's young generation for a memory of `mb` MB (its heap limit, or --memory-limit): a sixteenth of it, 16 to 64 MB. */
export function youngGenerationMb(mb: number): number {
    return Math.max(16, Math.min(64, Math.floor(mb / 16)));
}

const MAX_START_FAILURES = 3;

export interface QueryPoolOptions {
    /** Worker threads (default: one per core, at least 1). */
    workers?: number;
    /** Per-query time limit (default 60 s). */
    timeoutMs?: number;
    /** How long a worker may take to stop after being asked before it is terminated (default 2 s). */
    graceMs?: number;
    /** Queries that may wait for a worker (default 256). */
    maxQueued?: number;
    /** Heap limit of each worker in MB (default a quarter of the machine's memory, at most 4 GiB). */
    workerHeapMb?: number;
    /** Young generation of each worker in MB (default a sixteenth of its heap limit, 16 to 64). */
    workerYoungMb?: number;
    maxResultRows: number;
    defaultLimit: number;
    limits?: Partial<QueryLimits>;
    /** Where the store's datasets are, for the blocks that datasets keep on disk (cold-reader.ts). */
    datasetsDir?: string;
    /** Bytes of those blocks each worker keeps in memory. */
    coldCacheBytes?: number;
    log: (msg: string) => void;
    /**
     * Runs a query on the main thread when no worker can start at all (a worker file missing from
     * a broken install): the service keeps answering, and says so in the log once.
     */
    fallback: (spec: QuerySpec, signal?: AbortSignal) => Promise<JobAnswer>;
    /**
     * Runs a query on the main thread while no worker has started yet (the first half second or
     * so of the service), so that the first answer after start-up does not wait for the workers.
     * Resolves undefined when the query gave way (it ran too long for the main thread): it then
     * waits for a worker like any other. Absent: queries always wait for a worker.
     */
    whileStarting?: (spec: QuerySpec, signal?: AbortSignal) => Promise<string | undefined>;
    /**
     * Start no worker until `startWorkers()` (or a query that has to wait for one): the service
     * starts them once its first answers can be given (issue 31), so that their start-up does not
     * compete with its own for the cores. Default false: they start at once.
     */
    deferStart?: boolean;
}

export interface QueryPoolStats {
    workers: number;
    running: number;
    queued: number;
    completed: number;
    timedOut: number;
    cancelled: number;
    /** Workers terminated or lost and replaced. */
    replaced: number;
    /** Groups of jobs started together (the parts of parallel queries). */
    together: number;
    /** Started workers without a job. */
    idle: number;
}

interface Job {
    id: number;
    job: QueryJob;
    resolve: (answer: JobAnswer) => void;
    reject: (err: unknown) => void;
    signal?: AbortSignal;
    onAbort?: () => void;
    /** Why the pool asked this job to stop, if it did. */
    stopping?: 'timeout' | 'cancelled';
    timer?: NodeJS.Timeout;
    killTimer?: NodeJS.Timeout;
}

interface Slot {
    worker: Worker;
    /** The worker loaded its module (it said so). */
    ready: boolean;
    interrupt: Int32Array;
    sync: EngineSyncState;
    current?: Job;
}

export class QueryPool {
    private readonly slots: Slot[] = [];
    private readonly queue: Job[] = [];
    private nextId = 1;
    private closed = false;
    /** Workers that died before they were ready, in a row; past MAX_START_FAILURES the pool gives up. */
    private startFailures = 0;
    private broken = false;
    private readonly counters = { completed: 0, timedOut: 0, cancelled: 0, replaced: 0, together: 0 };
    private readonly timeoutMs: number;
    private readonly graceMs: number;
    private readonly maxQueued: number;
    private readonly heapMb: number;
    /** Each worker's young generation (MB). */
    readonly youngMb: number;
    /** Workers the pool runs (once started). */
    private readonly size: number;
    private settleStarted!: () => void;
    /** Set by a worker (Atomics) once it can run queries: see `workerStarted`. */
    private readonly startedFlag = new Int32Array(new SharedArrayBuffer(4));
    /**
     * Settles once a worker is ready to run queries (or none ever will: the pool gave up, or it
     * closed). The service holds back its background load until then (data-plane.ts).
     */
    readonly started = new Promise<void>(resolve => (this.settleStarted = resolve));

    constructor(
        private readonly engine: Engine,
        private readonly opts: QueryPoolOptions,
    ) {
        this.timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
        this.graceMs = opts.graceMs ?? 2000;
        this.maxQueued = opts.maxQueued ?? 256;
        this.heapMb = opts.workerHeapMb ?? Math.min(4096, Math.max(256, Math.floor(totalmem() / 4 / 2 ** 20)));
        this.youngMb = opts.workerYoungMb ?? youngGenerationMb(this.heapMb);
        this.size = Math.max(1, opts.workers ?? availableParallelism());
        if (!opts.deferStart) this.startWorkers();
    }

    /** Starts the workers, when they have not started yet (see `deferStart`). */
    startWorkers(): void {
        if (this.closed || this.broken || this.slots.length > 0) return;
        startTrace('query workers starting');
        // One now, the others once it is ready (onReply): each start is 150-250 ms of CPU, and on a
        // machine of two cores all of them at once would leave the main thread, answering the
        // first queries meanwhile (whileStarting), a share of one core (issue 31).
        this.slots.push(this.startSlot());
        // Jobs that gave way before there were workers.
        this.dispatch();
    }

    /** Worker threads started so far, ready or not (for tests and diagnostics). */
    get startedWorkers(): number {
        return this.slots.length;
    }

    /** The workers after the first (see startWorkers). */
    private startTheRest(): void {
        if (this.closed || this.broken) return;
        while (this.slots.length < this.size) this.slots.push(this.startSlot());
        this.dispatch();
    }

    /**
     * Whether some worker has started, as the workers say through shared memory: a query running on
     * the main thread sees it without waiting for the worker's message (which this thread reads
     * only once that query is done).
     */
    workerStarted(): boolean {
        return Atomics.load(this.startedFlag, 0) === 1;
    }

    stats(): QueryPoolStats {
        const idle = this.broken ? 0 : this.slots.filter(s => s.ready && !s.current).length;
        return { workers: this.broken ? 0 : this.size, running: this.slots.filter(s => s.current).length, queued: this.queue.length, idle, ...this.counters };
    }

    /** Runs a job; resolves with the response body (JSON text). `signal` cancels it. */
    run(job: QuerySpec, signal?: AbortSignal): Promise<string> {
        if (this.closed) return Promise.reject(new HttpError(503, 'the service is stopping'));
        if (this.broken) return this.opts.fallback(job, signal).then(a => a.json);
        if (signal?.aborted) return Promise.reject(stopped('cancelled', this.timeoutMs));
        const whileStarting = this.opts.whileStarting;
        if (whileStarting && job.kind !== 'apl-part' && job.kind !== 'apl-merge' && !this.slots.some(s => s.ready)) {
            return whileStarting(job, signal).then(json => json ?? this.enqueue(job, signal).then(a => a.json));
        }
        return this.enqueue(job, signal).then(a => a.json);
    }

    /** Queues a job for the next free worker. */
    private enqueue(job: QuerySpec, signal?: AbortSignal): Promise<JobAnswer> {
        if (this.closed) return Promise.reject(new HttpError(503, 'the service is stopping'));
        if (this.broken) return this.opts.fallback(job, signal);
        if (signal?.aborted) return Promise.reject(stopped('cancelled', this.timeoutMs));
        if (this.queue.length >= this.maxQueued && !this.slots.some(s => !s.current)) {
            return Promise.reject(new HttpError(429, `query limit exceeded: ${this.slots.length} queries are running and ${this.queue.length} are waiting; try again shortly`));
        }
        return new Promise<JobAnswer>((resolve, reject) => {
            this.queue.push(this.newJob(job, resolve, reject, signal));
            // A job that waits for a worker: they start now if they have not.
            this.startWorkers();
            this.dispatch();
        });
    }

    /** Workers without a job, when none waits in the queue (0 when the pool is broken or closed). */
    idleWorkers(): number {
        if (this.closed || this.broken || this.queue.length > 0) return 0;
        return this.slots.filter(s => s.ready && !s.current).length;
    }

    /**
     * Starts every job now, each on its own idle worker, in one synchronous step, so all of them
     * read the same rows (the parts of a parallel run); undefined when there are not enough idle
     * workers. Each job keeps its own time limit and cancellation.
     */
    runTogether(jobs: QuerySpec[], signal?: AbortSignal): Promise<JobAnswer>[] | undefined {
        if (jobs.length > this.idleWorkers() || signal?.aborted) return undefined;
        const idle = this.slots.filter(s => s.ready && !s.current);
        this.counters.together++;
        return jobs.map((job, i) => new Promise<JobAnswer>((resolve, reject) => {
            this.start(idle[i], this.newJob(job, resolve, reject, signal));
        }));
    }

    /** A job that `signal` cancels, queued or running. */
    private newJob(job: QuerySpec, resolve: (answer: JobAnswer) => void, reject: (err: unknown) => void, signal?: AbortSignal): Job {
        const j: Job = { id: this.nextId++, job: { ...job, timeoutMs: this.timeoutMs }, resolve, reject, signal };
        if (signal) {
            j.onAbort = () => this.cancel(j);
            signal.addEventListener('abort', j.onAbort, { once: true });
        }
        return j;
    }

    /** Stops every worker; running and queued jobs fail with 503. */
    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        this.settleStarted();
        for (const j of this.queue.splice(0)) this.finish(j, new HttpError(503, 'the service is stopping'));
        await Promise.all(
            this.slots.map(async s => {
                if (s.current) this.finish(s.current, new HttpError(503, 'the service is stopping'));
                s.current = undefined;
                await s.worker.terminate();
            }),
        );
    }

    private startSlot(): Slot {
        const interrupt = new Int32Array(new SharedArrayBuffer(4));
        const setup: WorkerSetup = {
            maxResultRows: this.opts.maxResultRows,
            defaultLimit: this.opts.defaultLimit,
            limits: this.opts.limits,
            interrupt,
            started: this.startedFlag,
            datasetsDir: this.opts.datasetsDir,
            coldCacheBytes: this.opts.coldCacheBytes,
        };
        const worker = startWorker(import.meta.url, 'query-worker', 'query-worker', {
            maxOldGenerationSizeMb: this.heapMb,
            maxYoungGenerationSizeMb: this.youngMb,
        }, setup);
        worker.unref();
        const slot: Slot = { worker, ready: false, interrupt, sync: newSyncState() };
        worker.on('message', (msg: WorkerReply) => this.onReply(slot, msg));
        worker.on('error', (err: Error) => this.onDeath(slot, err));
        worker.on('messageerror', (err: Error) => this.onDeath(slot, err));
        worker.on('exit', code => this.onDeath(slot, new Error(`query worker exited with code ${code}`)));
        return slot;
    }

    private dispatch(): void {
        for (const slot of this.slots) {
            if (this.queue.length === 0) return;
            if (slot.current) continue;
            if (!this.start(slot, this.queue.shift()!)) return;
        }
    }

    /** Hands a job to an idle worker; false when the worker had to be replaced. */
    private start(slot: Slot, j: Job): boolean {
        slot.current = j;
        Atomics.store(slot.interrupt, 0, INTERRUPT_NONE);
        // The delta fixes every dataset's row count now: the query sees what was acknowledged
        // before it was dispatched.
        const msg: WorkerRequest = { id: j.id, delta: this.engine.exportChanges(slot.sync), job: j.job };
        j.timer = setTimeout(() => this.stop(slot, j, 'timeout'), this.timeoutMs);
        try {
            slot.worker.postMessage(msg);
        } catch (err) {
            // The request could not be cloned (too deeply nested, say): the worker's sync state
            // was already advanced, so it is replaced, and the job fails as the query's fault.
            this.replace(slot, new HttpError(400, `invalid query: it cannot be passed to a query worker (${(err as Error).message})`));
            return false;
        }
        return true;
    }

    private onReply(slot: Slot, msg: WorkerReply): void {
        if ('ready' in msg) {
            slot.ready = true;
            startTrace('query worker ready');
            this.settleStarted();
            this.startFailures = 0;
            this.startTheRest();
            return;
        }
        const j = slot.current;
        if (!j || j.id !== msg.id) return;
        slot.current = undefined;
        if (msg.ok) {
            this.counters.completed++;
            this.finish(j, undefined, { json: msg.json, shared: msg.shared });
        } else {
            const err = deserializeError(msg.error);
            if (err instanceof AplQueryError && (err.kind === 'timeout' || err.kind === 'cancelled')) this.count(err.kind);
            this.finish(j, err);
        }
        this.dispatch();
    }

    /** Asks the running job to stop; terminates its worker when it does not within the grace period. */
    private stop(slot: Slot, j: Job, why: 'timeout' | 'cancelled'): void {
        if (slot.current !== j || j.stopping) return;
        j.stopping = why;
        Atomics.store(slot.interrupt, 0, why === 'timeout' ? INTERRUPT_TIMEOUT : INTERRUPT_CANCEL);
        j.killTimer = setTimeout(() => {
            if (slot.current !== j) return;
            this.opts.log(`query worker did not stop within ${this.graceMs} ms of its ${why === 'timeout' ? 'time limit' : 'cancellation'}: terminating it`);
            this.replace(slot, stopped(why, this.timeoutMs));
            this.count(why);
        }, this.graceMs);
    }

    private cancel(j: Job): void {
        const at = this.queue.indexOf(j);
        if (at >= 0) {
            this.queue.splice(at, 1);
            this.count('cancelled');
            this.finish(j, stopped('cancelled', this.timeoutMs));
            return;
        }
        const slot = this.slots.find(s => s.current === j);
        if (slot) this.stop(slot, j, 'cancelled');
    }

    private count(kind: 'timeout' | 'cancelled'): void {
        if (kind === 'timeout') this.counters.timedOut++;
        else this.counters.cancelled++;
    }

    /** A worker that died on its own: its job fails (4xx when it ran out of memory), a new one takes its place. */
    private onDeath(slot: Slot, err: Error): void {
        if (this.closed || !this.slots.includes(slot)) return;
        if (!slot.ready && ++this.startFailures >= MAX_START_FAILURES) return this.giveUp(err);
        const oom = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
        this.opts.log(`query worker lost (${err.message}); starting a new one`);
        const failure = oom
            ? new HttpError(400, `invalid query: it needs more memory than a query may use (${this.heapMb} MB); filter, project or summarize earlier`)
            : new HttpError(500, `the query worker running this query failed: ${err.message}`);
        this.replace(slot, failure);
    }

    /** No worker can start: queries run on the main thread from now on (the queue drains there). */
    private giveUp(err: Error): void {
        this.broken = true;
        this.settleStarted();
        this.opts.log(`query workers cannot start (${err.message}); running queries on the main thread`);
        const slots = this.slots.splice(0);
        for (const s of slots) void s.worker.terminate().catch(() => undefined);
        for (const j of [...slots.flatMap(s => (s.current ? [s.current] : [])), ...this.queue.splice(0)]) {
            clearTimeout(j.timer);
            this.opts.fallback(j.job, j.signal).then(j.resolve, j.reject);
        }
    }

    private replace(slot: Slot, failure: unknown): void {
        const i = this.slots.indexOf(slot);
        if (i < 0) return;
        const j = slot.current;
        slot.current = undefined;
        this.slots[i] = this.startSlot();
        this.counters.replaced++;
        void slot.worker.terminate().catch(() => undefined);
        if (j) this.finish(j, failure);
        this.dispatch();
    }

    private finish(j: Job, err: unknown, answer?: JobAnswer): void {
        clearTimeout(j.timer);
        clearTimeout(j.killTimer);
        if (j.signal && j.onAbort) j.signal.removeEventListener('abort', j.onAbort);
        if (err !== undefined) j.reject(err);
        else j.resolve(answer ?? { json: '' });
    }
}

function stopped(kind: 'timeout' | 'cancelled', timeoutMs: number): AplQueryError {
    return new AplQueryError(interruption(kind, timeoutMs).message, 1, 1, kind);
}
