/**
 * Runs WAL-rebuild compaction jobs on a worker thread, so that parsing + column encoding does not
 * compete with ingest on the main thread. Only batches recovered from the WAL after a restart need
 * them: batches appended by this process are encoded from their in-memory events on the main thread
 * (dataset.ts, `runTailCompaction`), which measured cheaper for the main thread than gathering
 * columns and posting them here. If the worker cannot start (e.g. a bundle without the worker file),
 * jobs run on the main thread instead, yielding to the event loop every few thousand rows.
 *
 * Under TypeScript sources (tests, `tsx`), the worker boots through tsx's ESM loader.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-boot.js';
import { runCompactJob, type CompactJob, type CompactResult } from './compact.js';
import { yieldToLoop } from './yield-to-loop.js';

interface Pending {
    resolve: (r: CompactResult) => void;
    reject: (e: unknown) => void;
    job: CompactJob;
}

class WorkerUnavailable extends Error {}

type Reply = { ready: true } | { id: number; ok: boolean; result?: CompactResult; error?: string };

/**
 * One worker thread. It says `ready` once its module loaded: a worker that dies before that cannot
 * start here (the caller compacts on the main thread instead); one that dies later (a crash, an
 * unreadable message) fails the jobs it had, and the next job starts a new worker.
 */
export class Compactor {
    private worker: Worker | undefined;
    private ready = false;
    private broken: boolean;
    private pending = new Map<number, Pending>();
    private nextId = 1;

    constructor(
        useWorker: boolean,
        private readonly log: (msg: string) => void,
    ) {
        this.broken = !useWorker;
    }

    async run(job: CompactJob): Promise<CompactResult> {
        if (!this.broken) {
            try {
                return await this.viaWorker(job);
            } catch (err) {
                if (!(err instanceof WorkerUnavailable)) throw err;
                this.broken = true;
                this.log(`compaction worker unavailable (${err.message}); compacting on the main thread`);
            }
        }
        let n = 0;
        return runCompactJob(job, () => (++n % 4 === 0 ? yieldToLoop() : Promise.resolve()));
    }

    private start(): Worker {
        if (this.worker) return this.worker;
        const w = startWorker(import.meta.url, 'compact-worker', 'compact-worker');
        this.ready = false;
        w.unref();
        w.on('message', (msg: Reply) => {
            if ('ready' in msg) {
                if (this.worker === w) this.ready = true;
                return;
            }
            const p = this.pending.get(msg.id);
            if (!p) return;
            this.pending.delete(msg.id);
            if (this.pending.size === 0) w.unref();
            if (msg.ok && msg.result) p.resolve(msg.result);
            else p.reject(new Error(`compaction failed: ${msg.error ?? 'unknown error'}`));
        });
        const fail = (why: string, stop: boolean): void => {
            if (this.worker !== w) return;
            const started = this.ready;
            this.worker = undefined;
            this.ready = false;
            const pend = [...this.pending.values()];
            this.pending.clear();
            for (const p of pend) p.reject(started ? new Error(`compaction worker stopped: ${why}`) : new WorkerUnavailable(why));
            if (stop) void w.terminate();
        };
        w.on('error', (err) => fail(err instanceof Error ? err.message : String(err), true));
        w.on('exit', (code) => fail(`worker exited with code ${code}`, false));
        // A reply that cannot be deserialised names no job: fail them all (they are retried) and
        // start afresh.
        w.on('messageerror', (err) => fail(`unreadable reply from the worker (${err instanceof Error ? err.message : String(err)})`, true));
        this.worker = w;
        return w;
    }

    private viaWorker(job: CompactJob): Promise<CompactResult> {
        let w: Worker;
        try {
            w = this.start();
        } catch (err) {
            return Promise.reject(new WorkerUnavailable(err instanceof Error ? err.message : String(err)));
        }
        const id = this.nextId++;
        return new Promise<CompactResult>((resolve, reject) => {
            this.pending.set(id, { resolve, reject, job });
            w.ref(); // keep the process alive while a job is running
            w.postMessage({ id, job });
        });
    }

    async close(): Promise<void> {
        const w = this.worker;
        this.worker = undefined;
        this.broken = true;
        if (w) await w.terminate();
    }
}
