/**
 * Parses + normalises ingest bodies on worker threads, so the service's main thread only does
 * HTTP, the WAL append, the engine append and the reply. The worker hands back the events as
 * columns (typed arrays, transferred; strings as a per-column dictionary + Uint32Array codes), which
 * the engine appends with `appendColumns`. The raw (decompressed) body still goes to the WAL
 * unchanged. A body read into memory of its own (padded-body.ts: the service's body parser does so
 * for large ones) is transferred to the worker, not copied, and handed back for the WAL.
 *
 * Every whole-request error (415/413/400) is thrown in the same order as `prepareIngest`. If a
 * worker cannot start, or fails a body with anything but an IngestError, or its reply cannot be
 * read, the request is prepared on the main thread (`prepareIngest`) instead — same result. A
 * worker that dies while it holds requests fails them (503: nothing was stored, retry), since
 * what killed it may be the body, and the next request starts a new worker.
 *
 * Under TypeScript sources (tests, `tsx`) the worker boots through tsx's ESM loader; in the CommonJS
 * bundles it is `ingest-worker.cjs` beside the bundle (esbuild.mjs).
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-boot.js';
import type { ColumnarBatch } from './columnar.js';
import { PAD_BYTES, writePadding } from './ndjson-columns.js';
import { IngestError } from '../../language/ingest/errors.js';
import { decodeIngestRequest, prepareDecoded, prepareIngest, processedBytes, type IngestParams, type IngestRequest, type PreparedIngest, type PrepareOptions } from './ingest.js';
import { startTrace } from '../start-trace.js';
import { returnedBody, transferableBody } from './padded-body.js';

/** A request prepared on a worker: like PreparedIngest, with columns instead of per-event objects. */
export interface ColumnarPrepared extends Omit<PreparedIngest, 'batch'> {
    batch?: undefined;
    columnar: ColumnarBatch;
}

/** What the pool posts: the body's bytes (its memory transferred), and whether to hand that memory back. */
export interface BodyRequest {
    id: number;
    body: Uint8Array;
    params: IngestParams;
    returnBody: boolean;
}

/**
 * What a worker answers. A body handed over whole comes back first in a message of its own, so
 * that it is here even when the result cannot be read (the request is then parsed here).
 */
export type WorkerReply =
    | { ready: true }
    | { id: number; body: Uint8Array }
    | { id: number; ok: true; result: ColumnarBatch; /** crc32 of the body it parsed. */ bodyCrc: number }
    | { id: number; ok: false; status?: 400 | 404 | 413 | 415; error: string };

/** A worker's columns, with the body as it is here now (the same bytes, maybe other memory). */
interface Parsed {
    columnar: ColumnarBatch;
    body: Buffer;
    /** crc32 of `body`, as the worker computed it. */
    bodyCrc?: number;
}

interface Pending {
    resolve: (r: Parsed) => void;
    reject: (e: unknown) => void;
    /** The body, once it is here: at once when a copy was posted, else when the worker hands it back. */
    returned: Buffer | undefined;
}

/** The reply could not be read, and the request's body is here again: parse it on the main thread. */
class ReplyUnreadable extends Error {
    constructor(
        message: string,
        readonly body: Buffer,
    ) {
        super(message);
    }
}

/** The worker failed the body with something but an IngestError: parse it on the main thread. */
class WorkerFailed extends Error {
    constructor(
        message: string,
        readonly body: Buffer,
    ) {
        super(message);
    }
}

/** The worker could not start: parse on the main thread from now on. */
class WorkerUnavailable extends Error {}

/** A started worker died with this request in hand. */
export class IngestWorkerDied extends Error {
    override readonly name = 'IngestWorkerDied';
    readonly status = 503;
}

class Slot {
    worker: Worker | undefined;
    ready = false;
    broken = false;
    /** That the slot's worker could not start has been logged. */
    reported = false;
    /** In posting order: the worker answers one message at a time, so replies come in this order. */
    pending = new Map<number, Pending>();
}

export class IngestWorkers {
    private readonly slots: Slot[];
    private nextId = 1;
    private rr = 0;
    private closed = false;

    constructor(
        size: number,
        private readonly log: (msg: string) => void,
        /** Heap bound of each worker (MB): a body that needs more kills the worker, not the service. */
        private readonly heapMb?: number,
    ) {
        this.slots = Array.from({ length: Math.max(0, size) }, () => new Slot());
    }

    /** prepareIngest, with the parse on a worker when one is available. */
    async prepare(req: IngestRequest, opts: PrepareOptions): Promise<PreparedIngest | ColumnarPrepared> {
        const slot = this.pick();
        if (slot === undefined) return prepareIngest(req, opts);
        const { params, body } = await decodeIngestRequest(req, opts);
        let parsed: Parsed;
        try {
            parsed = await this.run(slot, body, params);
        } catch (err) {
            if (err instanceof IngestError || err instanceof IngestWorkerDied) throw err;
            if (err instanceof WorkerUnavailable) {
                // `fail` has marked the slot broken already: `reported` says whether this was logged.
                if (!slot.reported && !this.closed) this.log(`ingest worker unavailable (${err.message}); parsing on the main thread`);
                slot.reported = true;
                slot.broken = true;
            } else this.log(`ingest worker failed (${String(err)}); parsing on the main thread`);
            // The body as it is now (a body handed over whole came back in other memory).
            const here = err instanceof ReplyUnreadable || err instanceof WorkerFailed ? err.body : body;
            return prepareDecoded(params, here);
        }
        const { columnar } = parsed;
        return {
            params,
            body: parsed.body,
            bodyCrc: parsed.bodyCrc,
            columnar,
            count: columnar.times.length,
            failures: columnar.failures,
            minTime: columnar.minTime,
            maxTime: columnar.maxTime,
            processedBytes: processedBytes(parsed.body, params),
        };
    }

    /**
     * The columns of a stored (decompressed) body under its stored parameters, parsed on a worker:
     * what the ingest path built for it (the service's recovered WAL tail). Undefined when no
     * worker can (the caller builds the events itself, and reports what fails).
     */
    async columns(body: Buffer, params: IngestParams): Promise<ColumnarBatch | undefined> {
        const slot = this.pick();
        if (slot === undefined) return undefined;
        try {
            return (await this.run(slot, body, params)).columnar;
        } catch (err) {
            if (err instanceof WorkerUnavailable) slot.broken = true;
            return undefined;
        }
    }

    /**
     * Starts up to `n` workers now rather than at their first body (the service does, when it has
     * WAL tails to parse as it starts). A worker that cannot start is noted as at its first use.
     */
    prestart(n: number): void {
        for (const slot of this.slots.slice(0, Math.max(0, n))) {
            if (slot.broken || this.closed) continue;
            try {
                this.start(slot);
            } catch {
                slot.broken = true;
            }
        }
    }

    private pick(): Slot | undefined {
        if (this.closed) return undefined;
        const n = this.slots.length;
        let best: Slot | undefined;
        for (let k = 0; k < n; k++) {
            const s = this.slots[(this.rr + k) % n];
            if (s.broken) continue;
            if (best === undefined || s.pending.size < best.pending.size) best = s;
        }
        this.rr = (this.rr + 1) % Math.max(1, n);
        return best;
    }

    private run(slot: Slot, body: Buffer, params: IngestParams): Promise<Parsed> {
        let w: Worker;
        try {
            w = this.start(slot);
        } catch (err) {
            return Promise.reject(new WorkerUnavailable(err instanceof Error ? err.message : String(err)));
        }
        const id = this.nextId++;
        // A body in memory of its own (padded-body.ts) goes over as it is and comes back for the WAL,
        // once the worker is known to have started (a worker that cannot start would lose it, and
        // the request is then parsed here). Else a private copy of the bytes, transferred (the body
        // itself stays here for the WAL): its own memory (never the shared pool), not zeroed first
        // since every byte is written, with the padding the worker's byte scanner reads it in place with.
        const whole = slot.ready ? transferableBody(body) : undefined;
        let mem: ArrayBuffer;
        if (whole !== undefined) mem = whole;
        else {
            const copy = Buffer.allocUnsafeSlow(body.length + PAD_BYTES);
            body.copy(copy);
            writePadding(copy, body.length);
            mem = copy.buffer as ArrayBuffer;
        }
        const msg: BodyRequest = { id, body: new Uint8Array(mem, 0, body.length), params, returnBody: whole !== undefined };
        return new Promise<Parsed>((resolve, reject) => {
            slot.pending.set(id, { resolve, reject, returned: whole === undefined ? body : undefined });
            w.ref();
            w.postMessage(msg, [mem]);
        });
    }

    private start(slot: Slot): Worker {
        if (slot.worker) return slot.worker;
        const limits = this.heapMb === undefined ? undefined : { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: Math.max(4, Math.floor(this.heapMb / 8)) };
        const w = startWorker(import.meta.url, 'prepare-worker', 'ingest-worker', limits);
        slot.ready = false;
        w.unref();
        w.on('message', (msg: WorkerReply) => {
            if ('ready' in msg) {
                if (slot.worker === w) slot.ready = true;
                startTrace('ingest worker ready');
                return;
            }
            const p = slot.pending.get(msg.id);
            if (!p) return;
            if ('body' in msg) {
                p.returned = returnedBody(msg.body.buffer as ArrayBuffer, msg.body.byteLength);
                return;
            }
            slot.pending.delete(msg.id);
            if (slot.pending.size === 0) w.unref();
            const body = p.returned;
            if (body === undefined) p.reject(new IngestWorkerDied('the ingest worker answered without handing the body back; nothing of it was stored'));
            else if (msg.ok) p.resolve({ columnar: msg.result, body, bodyCrc: msg.bodyCrc });
            else if (msg.status !== undefined) p.reject(new IngestError(msg.status, msg.error));
            else p.reject(new WorkerFailed(msg.error, body));
        });
        const fail = (why: string): void => {
            if (slot.worker !== w) return;
            slot.worker = undefined;
            const started = slot.ready;
            slot.ready = false;
            // Before `ready` the worker could not start at all; after, it died working: the next
            // request gets a new one.
            if (!started) slot.broken = true;
            const pend = [...slot.pending.values()];
            slot.pending.clear();
            for (const p of pend) {
                p.reject(started ? new IngestWorkerDied(`the ingest worker stopped while parsing this request (${why}); nothing of it was stored`) : new WorkerUnavailable(why));
            }
            void w.terminate();
        };
        w.on('error', (err) => fail(err instanceof Error ? err.message : String(err)));
        w.on('exit', (code) => fail(`worker exited with code ${code}`));
        // A reply that cannot be deserialised names no request; the oldest one is its owner.
        w.on('messageerror', (err) => {
            const first = slot.pending.entries().next();
            if (first.done) return;
            const [id, p] = first.value;
            slot.pending.delete(id);
            if (slot.pending.size === 0) w.unref();
            const why = `unreadable reply (${err instanceof Error ? err.message : String(err)})`;
            // The body's own message was the unreadable one: it is lost, and nothing was stored.
            if (p.returned === undefined) p.reject(new IngestWorkerDied(`the ingest worker's ${why} lost the request's body; nothing of it was stored`));
            else p.reject(new ReplyUnreadable(why, p.returned));
        });
        slot.worker = w;
        return w;
    }

    async close(): Promise<void> {
        this.closed = true;
        const ws = this.slots.map((s) => s.worker).filter((w): w is Worker => w !== undefined);
        for (const s of this.slots) s.worker = undefined;
        await Promise.all(ws.map((w) => w.terminate()));
    }
}
