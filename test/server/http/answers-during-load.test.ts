/**
 * Issue 31, the first answer after start-up: a query sent while the stored events are still loading
 * answers from the datasets' files (block headers, blocks read per query, the WAL tail) and equals
 * the same query once everything is loaded. A real service on a real port with real block files;
 * the load is held half way by the test hook `afterLoadPart`, so "during the load" is a state the
 * test holds, not a timing.
 */
import { promises as fsp, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, startService, type Reply, type TestService } from './helpers.js';

const T0 = Date.parse('2024-01-01T00:00:00Z');
const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
/** Events per ingest request; the dataset gets 4 blocks of this many (a compaction after each) and a WAL tail of 2 batches. */
const BATCH = 250;

function events(from: number, n: number): Record<string, unknown>[] {
    // Three events per second: ties in _time, which the row ids order.
    return Array.from({ length: n }, (_, k) => {
        const i = from + k;
        return { _time: new Date(T0 + Math.floor(i / 3) * 1000).toISOString(), i, s: `v${i % 7}`, x: i % 5 === 0 ? null : i * 0.5, tags: { k: `k${i % 3}` } };
    });
}

/**
 * What may differ between two answers of the same query: the statistics of how the rows were read
 * (blocks read or skipped and the earliest of them, rows examined, rows matched before a `take`
 * stopped the scan, time, cache), never the rows, the cursors or the groups.
 */
function comparable(json: unknown): unknown {
    const drop = new Set(['elapsedTime', 'blocksExamined', 'blocksSkipped', 'minBlockTime', 'rowsExamined', 'rowsMatched', 'cacheStatus']);
    return JSON.parse(JSON.stringify(json), (k, v: unknown) => (drop.has(k) ? undefined : v));
}

const apl = (t: TestService, q: string, extra: Record<string, unknown> = {}, format = 'tabular') =>
    t.call('POST', `/v1/datasets/_apl?format=${format}`, { apl: q, ...RANGE, ...extra });

/** Pages through `q` by cursor (pages of `limit`), oldest first: every page's rows and cursors. */
async function pages(t: TestService, q: string, limit: number): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 20; n++) {
        const r = await apl(t, q, { limit, ...(cursor ? { cursor } : {}) });
        expect(r.status, r.text).toBe(200);
        out.push(comparable(r.json));
        const next = r.json.status.maxCursor as string | undefined;
        if (r.json.tables[0].columns[0].length < limit || !next || next === cursor) return out;
        cursor = next;
    }
    throw new Error('more than 20 pages');
}

/** The query shapes of the issue: aggregation, filter + take, time-filtered, legacy, cursor paging. */
const SHAPES: { name: string; run: (t: TestService) => Promise<unknown> }[] = [
    ...[
        "['a'] | summarize n = count(), total = sum(x), m = avg(i), d = dcount(s) by s, k = tostring(tags.k) | order by s asc, k asc",
        "['a'] | count",
        "['a'] | where i % 11 == 3 and s != 'v2' | project _time, i, s, x | take 25",
        "['a'] | where s == 'v4' | order by i desc | take 10",
        "['a'] | where _time >= datetime(2024-01-01T00:03:00Z) and _time < datetime(2024-01-01T00:04:10Z) | summarize count(), sum(i) by bin(_time, 10s) | order by _time asc",
        "['a'] | top 5 by x desc",
    ].map((q) => ({
        name: q,
        run: async (t: TestService) => {
            const r = await apl(t, q);
            expect(r.status, r.text).toBe(200);
            return comparable(r.json);
        },
    })),
    {
        name: "['a'] | project _time, i | take 40 (request time range: the last part of the events only)",
        run: async (t) => {
            const r = await apl(t, "['a'] | project _time, i | take 40", { startTime: '2024-01-01T00:05:00Z', endTime: '2024-01-01T00:06:00Z' });
            expect(r.status, r.text).toBe(200);
            return comparable(r.json);
        },
    },
    {
        name: "['a'] | where s == 'v1' (legacy format)",
        run: async (t) => {
            const r = await apl(t, "['a'] | where s == 'v1'", {}, 'legacy');
            expect(r.status, r.text).toBe(200);
            return comparable(r.json);
        },
    },
    {
        name: "['a'] | sort by _time asc | project _time, i (pages of 100 by cursor)",
        run: (t) => pages(t, "['a'] | sort by _time asc | project _time, i", 100),
    },
];

let t: TestService;
let release: () => void = () => undefined;
const during = new Map<string, unknown>();
/** The query workers ready when the load into memory fed its first part. */
let readyAtFirstPart: number | undefined;

beforeAll(async () => {
    t = await startService({ store: { compactInWorker: false } });
    await createDataset(t, 'a');
    const ingest = async (from: number): Promise<void> => {
        const r: Reply = await t.raw('POST', '/v1/datasets/a/ingest', ndjson(events(from, BATCH)), { 'content-type': 'application/x-ndjson' });
        expect(r.status, r.text).toBe(200);
    };
    for (let k = 0; k < 6; k++) {
        await ingest(k * BATCH);
        if (k < 4) await t.svc.data.store.compact('a');
    }
    expect(readdirSync(path.join(t.dir, 'datasets', 'a', 'blocks'))).toHaveLength(4);

    // Restart, and hold the load after its first block: every query below is answered meanwhile.
    let atGate!: () => void;
    const reached = new Promise<void>((r) => (atGate = r));
    const open = new Promise<void>((r) => (release = r));
    await t.restart({
        afterLoadPart: async (dataset, part) => {
            if (dataset !== 'a' || part !== 0) return;
            readyAtFirstPart = t.svc.data.engine.queryStats()?.idle;
            atGate();
            await open;
        },
    });
    await reached;
    expect(t.svc.data.answersFromDisk).toBe(true);
    for (const s of SHAPES) during.set(s.name, await s.run(t));
    // Still held: those answers came from the files, not from a loaded copy.
    expect(t.svc.data.answersFromDisk).toBe(true);
    release();
    await t.svc.loaded;
    expect(t.svc.data.answersFromDisk).toBe(false);
}, 240_000);

afterAll(async () => {
    release();
    await t?.stop();
});

describe('a query answered while the stored events load equals the same query after the load', () => {
    for (const s of SHAPES) {
        it(s.name, async () => {
            const after = await s.run(t);
            expect(during.get(s.name)).toEqual(after);
        });
    }

    it('the load into memory begins once a query worker has started (the views from disk answer meanwhile)', () => {
        expect(readyAtFirstPart).toBeGreaterThanOrEqual(1);
    });

    it("['a'] | count answers 1,500 during the load and after it (the whole dataset, never a part)", async () => {
        const counted = during.get("['a'] | count") as { tables: { columns: unknown[][] }[] };
        expect(counted.tables[0].columns[0]).toEqual([6 * BATCH]);
    });
});

describe('a damaged block read during the load', () => {
    // A bare `count` would answer from the block headers (which check out) without reading the block.
    it("['c'] | summarize sum(i): 423 naming the block file, the service keeps serving the other datasets", async () => {
        const s = await startService({ store: { compactInWorker: false } });
        try {
            for (const name of ['b', 'c']) {
                await createDataset(s, name);
                const r = await s.raw('POST', `/v1/datasets/${name}/ingest`, ndjson(events(0, BATCH)), { 'content-type': 'application/x-ndjson' });
                expect(r.status, r.text).toBe(200);
                await s.svc.data.store.compact(name);
            }
            await s.svc.close();
            const blocks = path.join(s.dir, 'datasets', 'c', 'blocks');
            const [blk] = readdirSync(blocks);
            const data = await fsp.readFile(path.join(blocks, blk));
            data[data.length - 9] ^= 0x20; // in the data, past the header (which checks out)
            await fsp.writeFile(path.join(blocks, blk), data);

            let open!: () => void;
            const held = new Promise<void>((r) => (open = r));
            await s.restart({ afterLoadPart: async (dataset) => (dataset === 'b' ? held : undefined) });
            const r = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['c'] | summarize sum(i)", ...RANGE });
            expect(r.status, r.text).toBe(423);
            expect(r.json.message).toContain(`blocks/${blk} is damaged`);
            const b = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['b'] | count", ...RANGE });
            expect(b.status, b.text).toBe(200);
            expect(b.json.tables[0].columns[0]).toEqual([BATCH]);
            open();
            expect(await s.svc.loaded).toEqual({ datasets: 1, events: BATCH });
            expect(await fsp.readFile(path.join(blocks, blk))).toEqual(data);
        } finally {
            await s.stop();
        }
    }, 120_000);
});
