/**
 * Queries on worker threads (server/query): replicas answer exactly like the main thread's engine,
 * and a heavy query is stopped by its time limit or by its client going away, never holding up
 * ingest or other requests. No timings are asserted: every check is about order and outcome.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, TOKEN, type TestService } from '../http/helpers.js';
import { spawnServer } from '../http/spawn.js';

/** Three passes over 2M rows (~3.5 s each here): long enough to watch, with a check point between passes. */
const HEAVY = `print i = range(1, 2000000) | mv-expand i${" | where hash_sha256(tostring(i)) != 'x'".repeat(3)} | count`;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const RANGE = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' };

let services: TestService[] = [];
afterEach(async () => {
    await Promise.all(services.map(s => s.stop()));
    services = [];
});

/**
 * A service whose query workers have started: until one has, queries run on the main thread
 * (pool.ts, whileStarting), and these tests are about the workers.
 */
async function service(opts: Parameters<typeof startService>[0]): Promise<TestService> {
    const s = await startService(opts);
    services.push(s);
    if (opts?.queryWorkers !== 0) await until(() => statsOf(s).idle === statsOf(s).workers, 'the query workers have started');
    return s;
}

function ndjson(events: object[]): string {
    return events.map(e => JSON.stringify(e)).join('\n');
}

/** Events whose fields exercise every kind of column a replica must follow (growth, widening, dictionaries, dynamics). */
function events(from: number, n: number, round: number): object[] {
    return Array.from({ length: n }, (_, k) => {
        const i = from + k;
        const e: Record<string, unknown> = {
            _time: new Date(T0 + i * 1000).toISOString(),
            s: `s${i % (37 * round)}`,
            n: round === 1 ? i : i + 0.5, // long, then widened to real
            ok: i % 3 === 0,
            obj: { k: `k${i % 5}`, deep: { v: i % 7 } },
            arr: [i, `a${i % 4}`, { z: i % 2 === 0 }],
        };
        if (round > 1) e.added = `new${i % 11}`; // a field that appears later
        if (i % 10 === 0) e.s = null;
        return e;
    });
}

const QUERIES = [
    "['d'] | count",
    "['d'] | summarize c = count(), total = sum(n), m = avg(n), ds = dcount(s), ok = countif(ok) by obj.k | order by obj.k asc",
    "['d'] | where s startswith 's1' | project _time, s, n, obj.deep.v, arr, added | order by _time asc | take 40",
    "['d'] | extend first = arr[1] | summarize c = count() by tostring(first), added | order by c desc, added asc",
    "['d'] | summarize count() by bin(_time, 1h) | order by _time asc",
    "['d'] | project-away _sysTime | take 7",
    "['e'] | summarize count() by s | order by s asc",
];

/** A response without what legitimately differs between two services: elapsed times, and ingest times (legacy matches). */
function comparable(json: unknown): unknown {
    return JSON.parse(JSON.stringify(json), (k, v: unknown) => (k === 'elapsedTime' || k === '_sysTime' ? undefined : v));
}

async function ingest(s: TestService, dataset: string, body: object[]): Promise<void> {
    const r = await s.raw('POST', `/v1/datasets/${dataset}/ingest`, ndjson(body), { 'content-type': 'application/x-ndjson' });
    expect(r.status, r.text).toBe(200);
}

async function answers(s: TestService): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const apl of QUERIES) {
        const r = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...RANGE });
        out.push({ apl, status: r.status, body: comparable(r.json) });
        const legacy = await s.call('POST', '/v1/datasets/_apl?format=legacy', { apl, ...RANGE });
        out.push({ apl, format: 'legacy', status: legacy.status, body: comparable(legacy.json) });
    }
    const legacy = await s.call('POST', '/v1/datasets/d/query', { ...RANGE, aggregations: [{ op: 'count', alias: 'n' }], groupBy: ['obj.k'] });
    out.push({ legacy: true, status: legacy.status, body: comparable(legacy.json) });
    return out;
}

/** Feeds a service in rounds, reading everything after each, so each round's answers come from a delta. */
async function history(s: TestService): Promise<unknown[]> {
    const seen: unknown[] = [];
    for (const name of ['d', 'e']) expect((await s.call('POST', '/v2/datasets', { name })).status).toBe(200);
    await ingest(s, 'd', events(0, 1500, 1));
    seen.push(await answers(s));
    await ingest(s, 'd', events(1500, 3000, 2));
    await ingest(s, 'e', events(0, 50, 1));
    seen.push(await answers(s));
    // A dataset deleted and made again: the replica must drop what it held.
    expect((await s.call('DELETE', '/v2/datasets/d')).status).toBe(204);
    expect((await s.call('POST', '/v2/datasets', { name: 'd' })).status).toBe(200);
    await ingest(s, 'd', events(7000, 300, 3));
    seen.push(await answers(s));
    return seen;
}

function statsOf(s: TestService) {
    const stats = s.svc.data.engine.queryStats();
    if (!stats) throw new Error('queries are not running on workers');
    return stats;
}

/** Waits (bounded by count, not asserted on time) until `ok` holds. */
async function until(ok: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 3000; i++) {
        if (ok()) return;
        await new Promise(r => setTimeout(r, 10));
    }
    throw new Error(`gave up waiting until ${what}`);
}

describe('query workers answer like the main thread', () => {
    it('the same responses after every round of ingest, delete and re-create', async () => {
        const onWorkers = await history(await service({ queryWorkers: 2 }));
        const onMain = await history(await service({ queryWorkers: 0 }));
        expect(onWorkers).toEqual(onMain);
        // The comparison is not vacuous: the rounds did change the answers.
        expect(onMain[0]).not.toEqual(onMain[1]);
        expect(onMain[1]).not.toEqual(onMain[2]);
    });
});

describe('runaway queries', () => {
    it(`${HEAVY} with a 300 ms limit on a worker: 400 query timeout, and the next query answers`, async () => {
        const s = await service({ queryWorkers: 1, queryTimeoutMs: 300 });
        const before = statsOf(s).timedOut;
        const r = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: HEAVY });
        expect(r.status).toBe(400);
        expect(r.json.detail.errorType).toBe('timeout');
        expect(r.json.message).toMatch(/time limit of 300 ms \(apl serve --query-timeout\)/);
        expect(statsOf(s).timedOut).toBe(before + 1);
        const after = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: 'print x = 1' });
        expect(after.status).toBe(200);
    });

    it(`${HEAVY} with a 300 ms limit on the main thread: stopped at the next operator`, async () => {
        const s = await service({ queryWorkers: 0, queryTimeoutMs: 300 });
        const r = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: HEAVY });
        expect(r.status).toBe(400);
        expect(r.json.detail.errorType).toBe('timeout');
    });

    it(`${HEAVY}, its client gone: the work stops and the worker serves the next query`, async () => {
        const s = await service({ queryWorkers: 1 });
        const warmed = statsOf(s).completed;
        const ac = new AbortController();
        const request = fetch(`${s.url}/v1/datasets/_apl?format=tabular`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ apl: HEAVY }),
            signal: ac.signal,
        }).catch((e: unknown) => e);
        await until(() => statsOf(s).running === 1, 'the query runs');
        ac.abort();
        expect(await request).toBeInstanceOf(Error);
        await until(() => statsOf(s).running === 0, 'the worker is free');
        expect(statsOf(s)).toMatchObject({ cancelled: 1, completed: warmed });
        const after = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: 'print x = 1' });
        expect(after.status).toBe(200);
    });

    it(`while ${HEAVY} runs, ingest, /v2/user and a light query answer`, async () => {
        const s = await service({ queryWorkers: 2 });
        expect((await s.call('POST', '/v2/datasets', { name: 'd' })).status).toBe(200);
        const ac = new AbortController();
        let heavyDone = false;
        const heavy = fetch(`${s.url}/v1/datasets/_apl?format=tabular`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ apl: HEAVY }),
            signal: ac.signal,
        })
            .catch(() => undefined)
            .finally(() => (heavyDone = true));
        await until(() => statsOf(s).running === 1, 'the heavy query runs');
        await ingest(s, 'd', [{ msg: 'acknowledged while a heavy query runs' }]);
        expect((await s.call('GET', '/v2/user')).status).toBe(200);
        const light = await s.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['d'] | count", startTime: 'now-1h', endTime: 'now+1h' });
        expect(light.status).toBe(200);
        expect(light.json.tables[0].columns[0]).toEqual([1]);
        expect(heavyDone).toBe(false);
        ac.abort();
        await heavy;
    });

    it('a legacy body nested 100,000 levels is a 400 from the worker, not a clone failure', async () => {
        const s = await service({ queryWorkers: 1 });
        expect((await s.call('POST', '/v2/datasets', { name: 'd' })).status).toBe(200);
        const filter = '{"op":"not","children":['.repeat(100_000) + '{"op":"==","field":"a","value":1}' + ']}'.repeat(100_000);
        const r = await s.raw('POST', '/v1/datasets/d/query', `{"startTime":"2026-11-01T00:00:00Z","endTime":"2026-11-02T00:00:00Z","filter":${filter}}`, { 'content-type': 'application/json' });
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/nested too deeply/);
        expect(statsOf(s).replaced).toBe(0);
    });
});

describe('apl serve stops on SIGTERM while a query runs', () => {
    it('exits 0, the running query is refused, and an ingest acknowledged before the signal is kept', async () => {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'apl-sigterm-'));
        const args = ['--no-samples', '--query-timeout', '600000'];
        const server = await spawnServer({ dataDir, token: TOKEN, args, bundled: true });
        const call = (p: string, body: string, type = 'application/json') =>
            fetch(server.url + p, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type }, body });
        expect((await call('/v2/datasets', '{"name":"d"}')).status).toBe(200);
        expect((await call('/v1/datasets/d/ingest', '{"n":1}', 'application/x-ndjson')).status).toBe(200);
        const endless = `print i = range(1, 2000000) | mv-expand i${" | where hash_sha256(tostring(i)) != 'x'".repeat(200)} | count`;
        const heavy = call('/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: endless })).then(r => r.status, () => 'connection closed');
        // Give the request time to reach a worker (a wait, not a measurement: queued or running, the
        // query must be refused either way).
        await new Promise(r => setTimeout(r, 300));
        const exit = server.stop();
        expect(await exit).toBe(0);
        expect([503, 'connection closed']).toContain(await heavy);
        const again = await spawnServer({ dataDir, token: TOKEN, args, bundled: true });
        try {
            const r = await fetch(`${again.url}/v1/datasets/_apl?format=tabular`, {
                method: 'POST',
                headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
                body: JSON.stringify({ apl: "['d'] | count", startTime: 'now-1h', endTime: 'now+1h' }),
            });
            expect(((await r.json()) as { tables: { columns: unknown[][] }[] }).tables[0].columns[0]).toEqual([1]);
        } finally {
            await again.stop();
        }
    });
});
