/**
 * Start-up reads metadata only and the stored events load into the engine after the server
 * listens. A test hook (`afterLoadPart`) holds a dataset half loaded, so what requests see during
 * the load is tested by state, not by timing: lists answer at once; queries answer at once from the
 * datasets' files with the full data; fields, ingests and a damaged block's 423 wait for the load
 * and then see the full data.
 */
import { promises as fsp, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataset, ndjson, rows, startService, type Reply, type TestService } from './helpers.js';

const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

const services: TestService[] = [];
afterEach(async () => {
    for (const s of services.splice(0)) await s.stop().catch(() => undefined);
});

function events(from: number, n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, k) => ({ _time: new Date(Date.parse('2024-01-01T00:00:00Z') + (from + k) * 1000).toISOString(), i: from + k, s: `v${(from + k) % 3}` }));
}

async function ingest(t: TestService, ds: string, from: number, n: number): Promise<Reply> {
    return t.raw('POST', `/v1/datasets/${ds}/ingest`, ndjson(events(from, n)), { 'content-type': 'application/x-ndjson' });
}

/** Dataset `a`: 3 blocks of 20 events and a WAL tail of 2 batches of 20; `b`: a WAL tail of 7. */
async function filled(): Promise<TestService> {
    const t = await startService({ store: { compactInWorker: false } });
    services.push(t);
    await createDataset(t, 'a');
    await createDataset(t, 'b');
    for (let k = 0; k < 5; k++) {
        expect((await ingest(t, 'a', k * 20, 20)).status).toBe(200);
        if (k < 3) await t.svc.data.store.compact('a');
    }
    expect((await ingest(t, 'b', 0, 7)).status).toBe(200);
    expect(readdirSync(path.join(t.dir, 'datasets', 'a', 'blocks'))).toHaveLength(3);
    return t;
}

/** A gate the background load waits at after the first part of dataset `ds`. */
function holdAfterFirstPart(ds: string) {
    let reached!: () => void;
    let release!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    const open = new Promise<void>((r) => (release = r));
    return {
        atGate,
        release,
        afterLoadPart: async (dataset: string, part: number) => {
            if (dataset !== ds || part !== 0) return;
            reached();
            await open;
        },
    };
}

/** Waits (bounded by count, not asserted on time) until `n` requests wait for a load. */
async function waiting(t: TestService, n: number): Promise<void> {
    for (let i = 0; i < 3000; i++) {
        if (t.svc.data.waitingForLoad >= n) return;
        await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`gave up waiting for ${n} requests to wait for the load (${t.svc.data.waitingForLoad} do)`);
}

const count = (t: TestService, ds: string) => t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: `['${ds}'] | count`, ...RANGE });
const countOf = (r: Reply) => Object.values(rows(r.json)[0])[0];
const legacy = (t: TestService, ds: string) => t.call('POST', `/v1/datasets/${ds}/query`, { ...RANGE });
const all = (t: TestService, ds: string) => t.call('POST', '/v1/datasets/_apl?format=legacy', { apl: `['${ds}']`, ...RANGE });

describe('start-up loads the stored events in the background', () => {
    it('lists and queries answer at once while a dataset is half loaded, with the full data; fields and info wait for the load', async () => {
        const t = await filled();
        const before = { all: (await all(t, 'a')).json, fields: (await t.call('GET', '/v2/datasets/a/fields')).json, info: (await t.call('GET', '/v1/datasets/a/info')).json };
        expect(before.all.matches).toHaveLength(100);

        const gate = holdAfterFirstPart('a');
        await t.restart({ afterLoadPart: gate.afterLoadPart });
        await gate.atGate;
        // Metadata only: the list does not wait for the load.
        const list = await t.call('GET', '/v2/datasets');
        expect(list.status).toBe(200);
        expect(list.json.map((d: { name: string }) => d.name)).toEqual(['a', 'b']);

        // Queries: from the files, while the load is held.
        const [a, b, leg] = [await all(t, 'a'), await count(t, 'b'), await legacy(t, 'a')];
        expect(t.svc.data.answersFromDisk).toBe(true);
        expect(a.json.matches).toEqual(before.all.matches);
        expect(countOf(b)).toBe(7);
        expect(leg.status).toBe(200);
        expect(leg.json.matches).toHaveLength(100);

        const pending = [t.call('GET', '/v2/datasets/a/fields'), t.call('GET', '/v1/datasets/a/info'), t.call('GET', '/v1/datasets/_fields')];
        await waiting(t, pending.length);
        gate.release();
        const [fields, info, allFields] = await Promise.all(pending);
        expect(t.svc.data.answersFromDisk).toBe(false);
        expect(fields.json).toEqual(before.fields);
        expect(info.json.numEvents).toBe(100);
        expect(info.json.fields).toEqual(before.info.fields);
        expect(Object.keys(allFields.json).sort()).toEqual(['a', 'b']);
        expect(allFields.json.a).toEqual(before.fields);
        expect(await t.svc.loaded).toEqual({ datasets: 2, events: 107 });
    });

    it('an ingest sent during the load is neither lost nor duplicated, and survives a restart', async () => {
        const t = await filled();
        const gate = holdAfterFirstPart('a');
        await t.restart({ afterLoadPart: gate.afterLoadPart });
        await gate.atGate;
        const sent = [ingest(t, 'a', 100, 10), ingest(t, 'b', 7, 3)];
        await waiting(t, sent.length);
        gate.release();
        for (const r of await Promise.all(sent)) expect(r.status, r.text).toBe(200);

        const check = async () => {
            const a = (await all(t, 'a')).json.matches as { _rowId: string; data: { i: number } }[];
            expect(a.map((m) => m.data.i).sort((x, y) => x - y)).toEqual(Array.from({ length: 110 }, (_, k) => k));
            expect(new Set(a.map((m) => m._rowId)).size).toBe(110);
            expect(countOf(await count(t, 'b'))).toBe(10);
        };
        await check();
        await t.restart({ afterLoadPart: undefined });
        await check();
    });

    it('a damaged block found by the load gives 423 to the requests that waited for it; files untouched', async () => {
        const t = await filled();
        await createDataset(t, 'c');
        expect((await ingest(t, 'c', 0, 40)).status).toBe(200);
        await t.svc.data.store.compact('c');
        await t.svc.close();
        const blocks = path.join(t.dir, 'datasets', 'c', 'blocks');
        const [blk] = readdirSync(blocks);
        const data = await fsp.readFile(path.join(blocks, blk));
        data[Math.floor(data.length / 2)] ^= 0x20;
        await fsp.writeFile(path.join(blocks, blk), data);
        const dirBefore = readdirSync(path.join(t.dir, 'datasets', 'c'), { recursive: true }).sort();

        const gate = holdAfterFirstPart('a');
        await t.restart({ afterLoadPart: gate.afterLoadPart });
        await gate.atGate;
        const sent = [count(t, 'c'), legacy(t, 'c'), t.call('GET', '/v2/datasets/c'), ingest(t, 'c', 40, 5), t.call('PUT', '/v2/datasets/c', { description: 'x' })];
        await waiting(t, sent.length);
        expect((await t.call('GET', '/v2/datasets')).json.map((d: { name: string }) => d.name)).toEqual(['a', 'b', 'c']);
        gate.release();
        for (const r of await Promise.all(sent)) {
            expect(r.status, r.text).toBe(423);
            expect(r.json.message).toMatch(new RegExp(`dataset "c" is unavailable: .*blocks/${blk} is damaged`));
        }
        expect(countOf(await count(t, 'a'))).toBe(100);
        expect(await t.svc.loaded).toEqual({ datasets: 2, events: 107 });
        expect(readdirSync(path.join(t.dir, 'datasets', 'c'), { recursive: true }).sort()).toEqual(dirBefore);
        expect(await fsp.readFile(path.join(blocks, blk))).toEqual(data);
    });

    it('stopping the service during the load answers the waiting requests 503', async () => {
        const t = await filled();
        const gate = holdAfterFirstPart('a');
        await t.restart({ afterLoadPart: gate.afterLoadPart });
        await gate.atGate;
        const sent = t.call('GET', '/v2/datasets/a/fields');
        await waiting(t, 1);
        const closed = t.svc.close();
        gate.release();
        await closed;
        expect((await sent).status).toBe(503);
        // Nothing was lost by stopping half way.
        await t.restart({ afterLoadPart: undefined });
        expect(countOf(await count(t, 'a'))).toBe(100);
    });
});
