/**
 * One ingest path: the same files (NDJSON, a JSON array, CSV) with odd timestamps, reserved names,
 * nesting and nulls go through `apl run --data` (the built bin), through a spawned `apl serve`
 * (HTTP ingest), and through the library's `engine.ingest`, and every query answers the same:
 * the same fields, types, values and failed events.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../language/eval/engine.js';
import { REPO, spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-one-ingest-path';
const RANGE = { startTime: '1900-01-01T00:00:00Z', endTime: '2200-01-01T00:00:00Z' };

const EVENTS: Record<string, unknown>[] = [
    { _time: '2026-11-01T10:00:00+02:00', k: 'offset', n: 1, s: 'a', obj: { a: { b: 1 }, c: null }, arr: [1, { x: 2 }] },
    { _time: 1793000000, k: 'epoch-s', n: 2.5, s: null, _sysTime: 'mine', _source: 'src', _rowID: 'r', _cursor: 'c', _blockInfo: 'b' },
    { _time: 1793000000123, k: 'epoch-ms', n: -3, flag: true, obj: { a: { b: 2 } } },
    { _time: '01/Nov/2026:10:00:00 +0000', k: 'clf', n: 4 },
    { _time: '2026-11-01T00:00:00.123456789Z', k: 'nanos', n: 5, deep: { x: { y: { z: 'deep' } } } },
    { _time: '1793000000', k: 'epoch-text', n: 6 },
    { _time: 'not a time', k: 'bad', n: 7 },
    { _time: '9999-12-31T23:59:59Z', k: 'out-of-range', n: 8 },
    { _time: '0001-01-01T00:00:00Z', k: 'year-one', n: 9 },
];

const CSV = [
    '_time,k,units,flag,code,city',
    '2026-11-01T00:00:01Z,c1,5,true,007,Berlin',
    '2026-11-01T00:00:02Z,c2,10,false,10,',
    '1793000000,c3,,TRUE,42,Paris',
    'nope,c4,1,false,1,x',
].join('\n');

const QUERIES: Record<'json' | 'csv', string[]> = {
    json: [
        "['d'] | project-away _sysTime | order by k asc",
        "['d'] | summarize c = count(), total = sum(n), m = max(n) by key = tostring(obj.a.b) | order by key asc",
        "['d'] | getschema",
    ],
    csv: [
        "['d'] | project-away _sysTime | order by k asc",
        "['d'] | summarize m = max(units), s = sum(units), n = countif(flag) by key = tostring(code) | order by key asc",
        "['d'] | getschema",
    ],
};

let dir: string;
let server: ChildServer;

beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apl-one-path-'));
    writeFileSync(path.join(dir, 'events.ndjson'), EVENTS.map(e => JSON.stringify(e)).join('\n'));
    writeFileSync(path.join(dir, 'events.json'), JSON.stringify(EVENTS));
    writeFileSync(path.join(dir, 'events.csv'), CSV);
    server = await spawnServer({ dataDir: path.join(dir, 'data'), token: TOKEN, bundled: true });
});
afterAll(async () => {
    await server?.stop();
});

interface Table {
    fields: { name: string; type: string }[];
    columns: unknown[][];
}

function tableOf(json: { tables: Table[] }): Table {
    const t = json.tables[0]!;
    return { fields: t.fields.map(f => ({ name: f.name, type: f.type })), columns: t.columns };
}

async function http(method: string, route: string, body: string, type = 'application/json'): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON replies
    const r = await fetch(server.url + route, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type }, body });
    return { status: r.status, json: await r.json().catch(() => undefined) };
}

/** `apl run --data d=FILE` for each query: the tables, and the skipped events it lists on stderr. */
function viaRun(file: string, queries: string[]): { tables: Table[]; failures: string[] } {
    const run = (q: string, format: string) =>
        spawnSync(process.execPath, [path.join(REPO, 'out/apl.cjs'), 'run', '--data', `d=${file}`, '--format', format, q], { encoding: 'utf8' });
    const tables = queries.map(q => {
        const r = run(q, 'tabular');
        // Exit 1 says events were skipped (listed on stderr); the result is still printed.
        expect([0, 1], r.stderr).toContain(r.status);
        return tableOf(JSON.parse(r.stdout) as { tables: Table[] });
    });
    const stderr = run("['d'] | count", 'json').stderr;
    return { tables, failures: stderr.split('\n').filter(l => l.startsWith('  ')).map(l => l.trim()).sort() };
}

/** Ingest FILE into a fresh dataset of the spawned service, then the queries. */
async function viaServe(name: string, body: string, type: string, queries: string[]): Promise<{ tables: Table[]; failures: string[] }> {
    expect((await http('POST', '/v2/datasets', JSON.stringify({ name }))).status).toBe(200);
    const ingest = await http('POST', `/v1/datasets/${name}/ingest`, body, type);
    expect(ingest.status).toBe(200);
    const tables: Table[] = [];
    for (const q of queries) {
        const r = await http('POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: q.replaceAll("['d']", `['${name}']`), ...RANGE }));
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        tables.push(tableOf(r.json));
    }
    return { tables, failures: (ingest.json.failures as { error: string }[]).map(f => f.error).sort() };
}

describe('the same events through apl run, apl serve and engine.ingest', () => {
    for (const [file, type] of [['events.ndjson', 'application/x-ndjson'], ['events.json', 'application/json'], ['events.csv', 'text/csv']] as const) {
        it(`${file}: identical fields, values and failed events`, async () => {
            const queries = QUERIES[file.endsWith('.csv') ? 'csv' : 'json'];
            const run = viaRun(path.join(dir, file), queries);
            const body = readFileSync(path.join(dir, file), 'utf8');
            const serve = await viaServe(file.replace(/\W/g, '-'), body, type, queries);
            expect(serve.tables).toEqual(run.tables);
            expect(serve.failures).toEqual(run.failures);
            // Bad and out-of-range times fail the event on every path; nothing is re-timed silently.
            expect(run.failures.length).toBeGreaterThanOrEqual(file.endsWith('.csv') ? 1 : 3);
            expect(run.failures.join('\n')).toMatch(/cannot parse timestamp/);
        });
    }

    it('engine.ingest (the library) stores what apl serve stores', async () => {
        const engine = createEngine();
        const counts = engine.ingest('d', EVENTS.map(e => structuredClone(e)));
        const serve = await viaServe('library-compare', JSON.stringify(EVENTS), 'application/json', QUERIES.json);
        const tables: Table[] = [];
        for (const q of QUERIES.json) tables.push(tableOf((await engine.query(q, RANGE)) as unknown as { tables: Table[] }));
        expect(tables).toEqual(serve.tables);
        expect(counts.failures.map(f => f.error).sort()).toEqual(serve.failures);
        // Reserved names are renamed one way: `_sysTime` → `_user_sysTime` (not `_user__sysTime`).
        const names = tables[0]!.fields.map(f => f.name);
        expect(names).toContain('_user_sysTime');
        expect(names).not.toContain('_user__sysTime');
    });

    it('CSV columns are typed the same way on every path: max(units) is 10 and sum(units) 15 (the row with a bad time fails)', async () => {
        const serve = await viaServe('csv-typing', CSV, 'text/csv', ["['d'] | summarize m = max(units), s = sum(units)"]);
        expect(serve.tables[0]!.columns).toEqual([[10], [15]]);
    });
});
