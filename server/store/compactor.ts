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

const yieldToLoop = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

interface Pending {
    resolve: (r: CompactResult) => void;
    reject: (e: unknown) => void;
    job: CompactJob;
}

class WorkerUnavailable extends Error {}

export class Compactor {
    private worker: Worker | undefined;
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
        w.unref();
        w.on('message', (msg: { id: number; ok: boolean; result?: CompactResult; error?: string }) => {
            const p = this.pending.get(msg.id);
            if (!p) return;
            this.pending.delete(msg.id);
            if (this.pending.size === 0) w.unref();
            if (msg.ok && msg.result) p.resolve(msg.result);
            else p.reject(new Error(`compaction failed: ${msg.error ?? 'unknown error'}`));
        });
        const fail = (why: string): void => {
            if (this.worker === w) this.worker = undefined;
            const pend = [...this.pending.values()];
            this.pending.clear();
            for (const p of pend) p.reject(new WorkerUnavailable(why));
        };
        w.on('error', (err) => fail(err instanceof Error ? err.message : String(err)));
        w.on('exit', (code) => fail(`worker exited with code ${code}`));
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
