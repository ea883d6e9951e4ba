/**
 * An ingest worker whose reply cannot be deserialised (the worker's 'messageerror' event): the
 * request it belonged to is neither hung nor lost nor stored twice. The pool parses that request on
 * the main thread (prepare-pool.ts, ReplyUnreadable), logs it, and keeps the worker for the next one.
 *
 * The unreadable reply is simulated at the worker's API edge: the reply to a request whose body
 * carries UNREADABLE_MARKER is delivered as 'messageerror' instead of 'message'.
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDataset, ndjson, rows, startService, type TestService } from './helpers.js';

const UNREADABLE_MARKER = 'reply-is-unreadable';

const posted: { id: number; unreadable: boolean }[] = [];

vi.mock('../../../server/worker-boot.js', async (importOriginal) => {
    const real = await importOriginal<typeof import('../../../server/worker-boot.js')>();
    return {
        ...real,
        startWorker: (...args: Parameters<typeof real.startWorker>): Worker => {
            const w = real.startWorker(...args);
            if (args[1] !== 'prepare-worker') return w;
            const unreadable = new Set<number>();
            const post = w.postMessage.bind(w);
            w.postMessage = (msg: { id: number; body: Uint8Array }, transfer?: Parameters<Worker['postMessage']>[1]) => {
                const isUnreadable = Buffer.from(msg.body).includes(UNREADABLE_MARKER);
                if (isUnreadable) unreadable.add(msg.id);
                posted.push({ id: msg.id, unreadable: isUnreadable });
                post(msg, transfer);
            };
            const on = w.on.bind(w);
            w.on = ((event: string, listener: (...a: unknown[]) => void) => {
                if (event !== 'message') return on(event, listener);
                return on('message', (reply: { id?: number; ok?: boolean }) => {
                    // The result is the unreadable message (a body handed back comes in one of its own first).
                    if (reply.id !== undefined && reply.ok !== undefined && unreadable.has(reply.id)) {
                        w.emit('messageerror', new Error('could not deserialize the reply'));
                        return;
                    }
                    listener(reply);
                });
            }) as typeof w.on;
            return w;
        },
    };
});

const services: TestService[] = [];
afterEach(async () => {
    for (const s of services.splice(0)) await s.stop().catch(() => undefined);
    posted.length = 0;
});

async function countOf(t: TestService, ds: string): Promise<number> {
    const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: `['${ds}'] | count` });
    expect(r.status, r.text).toBe(200);
    return Object.values(rows(r.json)[0])[0] as number;
}

describe('an ingest worker reply that cannot be read (messageerror)', () => {
    it('the request is answered from a main-thread parse, stored once, logged; the worker serves the next ingest', async () => {
        const logs: string[] = [];
        const t = await startService({ ingestWorkers: 1, log: (m) => logs.push(m) });
        services.push(t);
        await createDataset(t, 'x');
        const ingest = (events: unknown[]) => t.raw('POST', '/v1/datasets/x/ingest', ndjson(events), { 'content-type': 'application/x-ndjson' });

        const bad = await ingest([{ i: 0, s: UNREADABLE_MARKER }, { i: 1 }, { i: 2 }]);
        expect(bad.status, bad.text).toBe(200);
        expect(bad.json.ingested).toBe(3);
        expect(posted).toEqual([{ id: expect.any(Number), unreadable: true }]);
        expect(logs.join('\n')).toMatch(/ingest worker failed \(Error: unreadable reply \(could not deserialize the reply\)\); parsing on the main thread/);
        expect(await countOf(t, 'x')).toBe(3);

        const next = await ingest([{ i: 3 }, { i: 4 }]);
        expect(next.status, next.text).toBe(200);
        expect(next.json.ingested).toBe(2);
        expect(posted.map(p => p.unreadable)).toEqual([true, false]); // the same worker parsed it
        expect(await countOf(t, 'x')).toBe(5);
        expect(logs.filter(l => /ingest worker/.test(l))).toHaveLength(1);
    });

    it('a 1,500-event body handed over whole: parsed on the main thread from the bytes the worker handed back, stored once', async () => {
        const logs: string[] = [];
        const t = await startService({ ingestWorkers: 1, log: (m) => logs.push(m) });
        services.push(t);
        await createDataset(t, 'x');
        const ingest = (events: unknown[]) => t.raw('POST', '/v1/datasets/x/ingest', ndjson(events), { 'content-type': 'application/x-ndjson' });
        expect((await ingest([{ i: -1 }])).status).toBe(200); // the worker runs: large bodies go over whole

        const events = Array.from({ length: 1_500 }, (_, i) => ({ i, s: i === 7 ? UNREADABLE_MARKER : `value number ${i} of a body past 64 KiB` }));
        const bad = await ingest(events);
        expect(bad.status, bad.text).toBe(200);
        expect(bad.json.ingested).toBe(1_500);
        expect(logs.join('\n')).toMatch(/ingest worker failed \(Error: unreadable reply \(could not deserialize the reply\)\); parsing on the main thread/);
        expect(await countOf(t, 'x')).toBe(1_501);
        const sum = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['x'] | where i >= 0 | summarize s = sum(i), n = dcount(s)" });
        expect(rows(sum.json)[0]).toEqual({ s: (1_499 * 1_500) / 2, n: 1_500 });
    });
});
