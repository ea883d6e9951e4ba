/**
 * Issue 31, end to end: `apl serve` in a child process restarted over a data directory with block
 * files only (after a clean stop, which writes any WAL tail into a block) and again with a WAL tail (after
 * a crash) answers the queries sent right after it listens (while its events load into
 * memory they are read from the files) exactly as it answers them once everything is loaded. The
 * in-process test (test/server/http/answers-during-load.test.ts) holds the load to prove the "while";
 * here the real process runs free, and every answer must equal the loaded one either way.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-e2e-first-answer';
const DS = 'first';
/** At least two compactions' worth (65,536 events each, the store's compaction size). */
const EVENTS = 150_000;
/** Events ingested before the crash: the WAL tail the restart after it reads. */
const CRASH_TAIL = 20_000;
const BATCH = 10_000;
const T0 = Date.parse('2024-03-01T00:00:00Z');
const RANGE = { startTime: '2024-03-01T00:00:00Z', endTime: '2024-03-03T00:00:00Z' };

const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-first-answer-'));
let server: ChildServer | undefined;

afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
});

async function post(url: string, route: string, body: string, type = 'application/json'): Promise<{ status: number; json: Record<string, unknown> & { status?: Record<string, unknown>; tables?: { columns: unknown[][] }[] } }> {
    const res = await fetch(url + route, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type }, body });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : {} };
}

/** Drops the statistics of how rows were read (see answers-during-load.test.ts). */
function comparable(json: unknown): unknown {
    const drop = new Set(['elapsedTime', 'blocksExamined', 'blocksSkipped', 'minBlockTime', 'rowsExamined', 'rowsMatched', 'cacheStatus']);
    return JSON.parse(JSON.stringify(json), (k, v: unknown) => (drop.has(k) ? undefined : v));
}

const QUERIES = [
    `['${DS}'] | summarize n = count(), total = sum(n) by s | order by s asc`,
    `['${DS}'] | where n % 97 == 5 | project _time, n, s | take 30`,
    `['${DS}'] | where _time >= datetime(2024-03-01T20:00:00Z) | summarize count() by bin(_time, 1h) | order by _time asc`,
];

/** Each query's answer, then two pages by cursor of the events in time order. */
async function answers(url: string): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const apl of QUERIES) {
        const r = await post(url, '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl, ...RANGE }));
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        out.push(comparable(r.json));
    }
    const paged = `['${DS}'] | sort by _time asc | project _time, n`;
    const p1 = await post(url, '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: paged, ...RANGE, limit: 500 }));
    expect(p1.status).toBe(200);
    const p2 = await post(url, '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: paged, ...RANGE, limit: 500, cursor: p1.json.status!.maxCursor }));
    expect(p2.status).toBe(200);
    out.push(comparable(p1.json), comparable(p2.json));
    return out;
}

/** Ingests events [from, to) in batches of BATCH. */
async function ingest(url: string, from: number, to: number): Promise<void> {
    for (let start = from; start < to; start += BATCH) {
        const body = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
            const n = start + k;
            return JSON.stringify({ _time: new Date(T0 + n * 1000).toISOString(), n, s: `s${n % 13}` });
        }).join('\n');
        expect((await post(url, `/v1/datasets/${DS}/ingest`, body, 'application/x-ndjson')).status).toBe(200);
    }
}

/** The bytes of the dataset's WAL segments: 0 when every record is in a block. */
function walBytes(): number {
    const wal = path.join(dir, 'datasets', DS, 'wal');
    return readdirSync(wal).reduce((n, f) => n + statSync(path.join(wal, f)).size, 0);
}

/** Restarts the service and checks that its first answers equal those once its `events` are loaded. */
async function restartAndCompare(events: number): Promise<void> {
    server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
    const first = await answers(server.url);
    const count = await post(server.url, '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: `['${DS}'] | count`, ...RANGE }));
    expect(count.json.tables![0].columns[0]).toEqual([events]);
    // Loaded: the service says so once (app.ts).
    for (let i = 0; i < 6000 && !/loaded \d+ events/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(server.output()).toMatch(new RegExp(`loaded ${events} events of 1 dataset`));
    expect(first).toEqual(await answers(server.url));
}

describe('apl serve right after a restart', () => {
    it('answers the queries sent at once exactly as after its events are loaded, after a clean stop (every event in blocks, the WAL tail checkpointed) and after a crash (a WAL tail left)', async () => {
        server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
        expect((await post(server.url, '/v2/datasets', JSON.stringify({ name: DS }))).status).toBe(200);
        await ingest(server.url, 0, EVENTS);
        await server.stop();
        // Every event is in a block: the compactions' (65,536 events or more each) and, when they
        // left a tail, the stop's checkpoint block. How many there are depends on when each
        // compaction began (a batch that lands before its WAL rotation joins it): a second compaction
        // that starts at the last batch leaves no tail, so no checkpoint (checkpoint.test.ts tests that).
        expect(readdirSync(path.join(dir, 'datasets', DS, 'blocks')).length).toBeGreaterThanOrEqual(2);
        expect(walBytes()).toBe(0);
        await restartAndCompare(EVENTS);

        await ingest(server.url, EVENTS, EVENTS + CRASH_TAIL);
        await server.kill();
        expect(walBytes()).toBeGreaterThan(0);
        await restartAndCompare(EVENTS + CRASH_TAIL);
    }, 300_000);
});
