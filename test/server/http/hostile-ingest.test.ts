/**
 * The hostile-input table for the service's ingest side, against a real `apl serve` process: deep
 * nesting, wide events, a huge CSV header, out-of-range times, a BOM before a JSON array, a dataset
 * past its field limit, bad dataset names, impossible dates (2025-02-30), a zstd body whose checksum
 * does not match, dataset names that differ only in case. Each case ends by checking that the
 * process is alive and that a valid query from another client still answers with the data it had.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from './spawn.js';

const TOKEN = 'xaat-hostile-ingest';
let server: ChildServer;
let dir: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are arbitrary JSON
async function call(method: string, p: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string }> {
    const res = await fetch(server.url + p, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers }, body, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        json = undefined;
    }
    return { status: res.status, json, text };
}

const nd = { 'content-type': 'application/x-ndjson' };
const js = { 'content-type': 'application/json' };

async function count(ds: string): Promise<number> {
    const r = await call('POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: `['${ds}'] | count`, startTime: '1600-01-01T00:00:00Z', endTime: '2300-01-01T00:00:00Z' }), js);
    expect(r.status, r.text).toBe(200);
    return r.json.tables[0].columns[0][0] as number;
}

/** The process is alive, and another client's valid query answers with what `keep` had. */
async function stillServing(): Promise<void> {
    expect(server.proc.exitCode).toBeNull();
    expect(server.proc.signalCode).toBeNull();
    expect(await count('keep')).toBe(20);
}

beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apl-hostile-'));
    server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
    for (const ds of ['keep', 'h']) expect((await call('POST', '/v2/datasets', JSON.stringify({ name: ds }), js)).status).toBe(200);
    const r = await call('POST', '/v1/datasets/keep/ingest', Array.from({ length: 20 }, (_, i) => JSON.stringify({ i })).join('\n'), nd);
    expect(r.json.ingested).toBe(20);
}, 90_000);

afterAll(async () => {
    await server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

const nest = (depth: number, open: string, close: string, leaf = '1'): string => open.repeat(depth) + leaf + close.repeat(depth);

interface PerEvent {
    name: string;
    body: string | Buffer;
    headers?: Record<string, string>;
    query?: string;
    /** expected failure reason */
    failure: RegExp;
}

const PER_EVENT: PerEvent[] = [
    { name: 'an array nested 5,000 levels in a 10 KB body', body: `{"a":${nest(5000, '[', ']')}}`, failure: /field "a" is nested more than 100 levels/ },
    { name: 'an array nested 100,000 levels', body: `{"a":${nest(100_000, '[', ']')}}`, failure: /field "a" is nested more than 100 levels/ },
    { name: 'objects nested 5,000 levels', body: `{"o":${nest(5000, '{"x":', '}')}}`, failure: /field "o(\.x)+" is nested more than 100 levels/ },
    { name: 'an object inside an array nested 200 levels', body: `{"m":[${nest(200, '{"y":', '}')}]}`, failure: /field "m" is nested more than 100 levels/ },
    { name: 'one event with 80,000 keys', body: JSON.stringify(Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, i]))), failure: /more than 1024 fields.*at most 1024 fields per event/ },
    { name: 'one event with 1,000,000 keys', body: JSON.stringify(Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, 1]))), failure: /at most 1024 fields per event/ },
    { name: 'nested objects flattening to 2,000 fields', body: JSON.stringify({ n: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])) }), failure: /at most 1024 fields per event/ },
    { name: '_time 0001-01-01', body: '{"_time":"0001-01-01"}', failure: /timestamp field "_time" is out of range: "0001-01-01"; supported times are 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z/ },
    { name: '_time 9999-12-31T23:59:59Z', body: '{"_time":"9999-12-31T23:59:59Z"}', failure: /out of range: "9999-12-31T23:59:59Z"/ },
    { name: '_time 2262-04-12', body: '{"_time":"2262-04-12"}', failure: /out of range: "2262-04-12"/ },
    { name: '_time 1e30 (a number)', body: '{"_time":1e30}', failure: /out of range: 1e\+30/ },
    { name: '_time -1e30', body: '{"_time":-1e30}', failure: /out of range: -1e\+30/ },
    { name: '_time 2025-02-30 (a date that does not exist)', body: '{"_time":"2025-02-30"}', failure: /timestamp field "_time" is not a real date: "2025-02-30" \(2025-02 has 28 days\)/ },
    { name: '_time 2023-02-29T10:00:00Z (not a leap year)', body: '{"_time":"2023-02-29T10:00:00Z"}', failure: /not a real date: "2023-02-29T10:00:00Z" \(2023-02 has 28 days\)/ },
    { name: '_time 2025-04-31 12:00:00.5+02:00', body: '{"_time":"2025-04-31 12:00:00.5+02:00"}', failure: /not a real date: "2025-04-31 12:00:00.5\+02:00" \(2025-04 has 30 days\)/ },
    { name: 'a timestamp-field value out of range', body: '{"ts":"1500-01-01T00:00:00Z"}', query: '?timestamp-field=ts', failure: /timestamp field "ts" is out of range/ },
];

describe('per-event limits: the event fails alone (200, in failures), nothing is stored for it', () => {
    for (const c of PER_EVENT) {
        it(c.name, async () => {
            const before = await count('h');
            const r = await call('POST', `/v1/datasets/h/ingest${c.query ?? ''}`, c.body, { ...nd, ...c.headers });
            expect(r.status, r.text).toBe(200);
            expect(r.json).toMatchObject({ ingested: 0, failed: 1 });
            expect(r.json.failures[0].error).toMatch(c.failure);
            expect(await count('h')).toBe(before);
            await stillServing();
        });
    }
});

describe('times at the ends of the supported range are stored exactly', () => {
    it.each(['1677-09-21T00:12:43.145224192Z', '2262-04-11T23:47:16.854775807Z', '1900-01-01T00:00:00.000000001Z'])('%s', async (t) => {
        const r = await call('POST', '/v1/datasets/h/ingest', JSON.stringify({ _time: t, edge: t }), nd);
        expect(r.json).toMatchObject({ ingested: 1, failed: 0 });
        const q = await call('POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: `['h'] | where edge == '${t}' | project _time`, startTime: '1600-01-01T00:00:00Z', endTime: '2300-01-01T00:00:00Z' }), js);
        expect(q.status, q.text).toBe(200);
        expect(q.json.tables[0].columns[0]).toEqual([t]);
        await stillServing();
    });
});

describe('whole-request limits: a clear 4xx naming the problem', () => {
    it('a CSV header of 100,000 columns → 400 before any row is built', async () => {
        const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',');
        const r = await call('POST', '/v1/datasets/h/ingest', `${header}\n${'1,'.repeat(99_999)}1\n`, { 'content-type': 'text/csv' });
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/CSV header: 100000 columns; at most 1024 fields per event/);
        await stillServing();
    });

    it('labels nested past the limit → 400', async () => {
        const r = await call('POST', '/v1/datasets/h/ingest', '{"x":1}', { ...nd, 'x-axiom-event-labels': `{"l":${nest(150, '[', ']')}}` });
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/X-Axiom-Event-Labels.*nested more than 100 levels/);
        await stillServing();
    });

    it('a dataset past 4,096 fields → 400 naming the limit, nothing of that request stored', async () => {
        expect((await call('POST', '/v2/datasets', JSON.stringify({ name: 'wide' }), js)).status).toBe(200);
        const wide = (from: number): string => JSON.stringify(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${from + i}`, i])));
        for (let k = 0; k < 4; k++) expect((await call('POST', '/v1/datasets/wide/ingest', wide(k * 1000), nd)).json.ingested).toBe(1);
        const r = await call('POST', '/v1/datasets/wide/ingest', `${wide(4000)}\n{"f1":2}`, nd);
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/dataset "wide" has 4000 fields and this request would add 1000 more.*at most 4096 fields/);
        expect(await count('wide')).toBe(4);
        // Known fields still go in.
        expect((await call('POST', '/v1/datasets/wide/ingest', '{"f1":2}', nd)).json.ingested).toBe(1);
        await stillServing();
    });

    it.each(['-lead', 'trail-', '-', 'a_b'])('dataset name %j → 400', async (name) => {
        const r = await call('POST', '/v2/datasets', JSON.stringify({ name }), js);
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/invalid dataset name/);
        await stillServing();
    });

    it('datasets big and BIG, con and CON (names differing in case, names Windows reserves) are distinct, also after a restart', async () => {
        const names = ['big', 'BIG', 'con', 'CON'];
        for (const [i, name] of names.entries()) {
            expect((await call('POST', '/v2/datasets', JSON.stringify({ name }), js)).status).toBe(200);
            const r = await call('POST', `/v1/datasets/${name}/ingest`, Array.from({ length: i + 1 }, () => '{"x":1}').join('\n'), nd);
            expect(r.json.ingested).toBe(i + 1);
        }
        const dirs = readdirSync(path.join(dir, 'datasets'));
        expect(new Set(dirs.map((d) => d.toLowerCase())).size).toBe(dirs.length);
        await server.kill();
        server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
        for (const [i, name] of names.entries()) expect(await count(name), name).toBe(i + 1);
        await stillServing();
    });
});

describe('encodings', () => {
    it('a JSON array after a UTF-8 byte-order mark is accepted like NDJSON after one', async () => {
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        const arr = await call('POST', '/v1/datasets/h/ingest', Buffer.concat([bom, Buffer.from('[{"bom":1},{"bom":2}]')]), js);
        expect(arr.status, arr.text).toBe(200);
        expect(arr.json).toMatchObject({ ingested: 2, failed: 0 });
        const lines = await call('POST', '/v1/datasets/h/ingest', Buffer.concat([bom, Buffer.from('{"bom":3}\n{"bom":4}')]), nd);
        expect(lines.json).toMatchObject({ ingested: 2, failed: 0 });
        await stillServing();
    });

    it('a zstd body whose content checksum does not match → 400, nothing stored', async () => {
        const before = await count('h');
        const good = execFileSync('zstd', ['-q', '-c', '--check'], { input: Buffer.from('{"z":1}\n{"z":2}\n') });
        const bad = Buffer.from(good);
        bad[bad.length - 2] ^= 0x40;
        const r = await call('POST', '/v1/datasets/h/ingest', bad, { ...nd, 'content-encoding': 'zstd' });
        expect(r.status, r.text).toBe(400);
        expect(r.json.message).toMatch(/invalid zstd body: content checksum mismatch/);
        expect(await count('h')).toBe(before);
        const ok = await call('POST', '/v1/datasets/h/ingest', good, { ...nd, 'content-encoding': 'zstd' });
        expect(ok.json).toMatchObject({ ingested: 2, failed: 0 });
        await stillServing();
    });

    it('after all of the above, DELETE and a later ingest answer at once', async () => {
        expect((await call('DELETE', '/v2/datasets/h')).status).toBe(204);
        expect((await call('POST', '/v1/datasets/keep/ingest', '{"late":1}', nd)).json.ingested).toBe(1);
        expect(await count('keep')).toBe(21);
        expect(server.proc.exitCode).toBeNull();
    });
});
