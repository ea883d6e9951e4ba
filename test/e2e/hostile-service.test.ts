/**
 * Hostile queries against a real `apl serve` child process: nesting, size, exploding intermediate
 * results, catastrophic regexes, externaldata of the server's own files. Each gets the right 4xx
 * with a clear message (never a 5xx, which clients retry), and afterwards the process is alive and
 * a valid query from another client answers correctly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-e2e-hostile';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-hostile-'));
let server: ChildServer;

const nest = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);

async function post(p: string, body: unknown): Promise<{ status: number; json: { message?: string; detail?: { line?: number; column?: number; errorType?: string } } & Record<string, unknown> }> {
    const res = await fetch(`${server.url}${p}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : {} };
}

/**
 * A POST whose answer may come before the body is sent (a 413 on Content-Length): read as curl does,
 * from the early response. fetch reports such a refusal as EPIPE.
 */
function postEarly(p: string, body: unknown): Promise<{ status: number; json: { message?: string } & Record<string, unknown> }> {
    const data = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
        const req = request(`${server.url}${p}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': data.length } }, res => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
                const text = Buffer.concat(chunks).toString('utf8');
                resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} });
            });
            res.on('error', reject);
        });
        // The service may stop reading while the rest of the body is still on its way: its answer
        // still comes (server/http/refused-body.ts). A connection that ends without one fails the test.
        let answered = false;
        req.once('response', () => (answered = true));
        req.on('error', e => ((e as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(e)));
        req.once('close', () => (answered ? undefined : reject(new Error('the connection closed without an answer'))));
        req.end(data);
    });
}

const apl = (q: string) => post('/v1/datasets/_apl?format=tabular', { apl: q, startTime: '2000-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z' });

async function ingest(ds: string, events: unknown[]): Promise<void> {
    const res = await fetch(`${server.url}/v1/datasets/${ds}/ingest`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-ndjson' }, body: events.map(e => JSON.stringify(e)).join('\n') });
    expect(res.status).toBe(200);
}

/** The process is alive, and another client's valid query answers correctly. */
async function stillAnswers(): Promise<void> {
    expect(server.proc.exitCode).toBeNull();
    const r = await apl("['few'] | where i < 10 | count");
    expect(r.status).toBe(200);
    expect((r.json.tables as { columns: unknown[][] }[])[0].columns[0]).toEqual([10]);
}

beforeAll(async () => {
    server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
    for (const name of ['few', 'wide', 'long']) {
        const res = await fetch(`${server.url}/v2/datasets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
        expect(res.status).toBe(200);
    }
    await ingest('few', Array.from({ length: 200 }, (_, i) => ({ i })));
    await ingest('wide', Array.from({ length: 50_000 }, (_, i) => ({ k: 1, i })));
    await ingest('long', [{ a: 'a'.repeat(30) + 'b' }, { a: 'x'.repeat(36) }, { a: 'a'.repeat(5000) + 'b' }]);
}, 120_000);

afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
});

interface Case {
    name: string;
    send: () => ReturnType<typeof post>;
    status: number;
    message: RegExp;
    /** 1-based position the error names, when it has one. */
    at?: [number, number];
}

const CASES: Case[] = [
    { name: 'print ((((…1…)))) × 50', send: () => apl(`print ${nest('(', '1', ')', 50)}`), status: 400, message: /nested too deeply.*\(line 1, column (3\d|4\d)\)$/ },
    { name: 'print ((((…1…)))) × 10000', send: () => apl(`print ${nest('(', '1', ')', 10_000)}`), status: 400, message: /nested too deeply/ },
    { name: 'print - - - …1 × 10000', send: () => apl(`print ${'- '.repeat(10_000)}1`), status: 400, message: /nested too deeply/ },
    { name: 'print dynamic([[[…]]]) × 10000', send: () => apl(`print dynamic(${nest('[', '1', ']', 10_000)})`), status: 400, message: /nested too deeply/ },
    { name: 'print true or true or … × 20000', send: () => apl(`print ${Array(20_000).fill('true').join(' or ')}`), status: 400, message: /nested too deeply/ },
    { name: 'print x = "<5 MB>"', send: () => apl(`print x = "${'a'.repeat(5 * 1024 * 1024)}"`), status: 413, message: /the APL query is too long: 5,242,892 characters, the limit is 262,144/ },
    { name: "['few'] | where i == 1 | where i == 1 … (5.5 MB)", send: () => apl("['few'] " + '| where i == 1 '.repeat(400_000)), status: 413, message: /too long/ },
    { name: "['wide'] | join kind=inner (['wide']) on k (50k × 50k)", send: () => apl("['wide'] | join kind=inner (['wide']) on k | count"), status: 400, message: /join would produce more than 10,000,000 rows/, at: [1, 12] },
    { name: "['few'] | extend r = range(1, 1048576) | mv-expand r (200 rows)", send: () => apl("['few'] | extend r = range(1, 1048576) | mv-expand r | count"), status: 400, message: /mv-expand would produce more than/ },
    { name: 'union of the 50k dataset 250 times', send: () => apl(`union ${Array(250).fill("['wide']").join(', ')} | count`), status: 400, message: /union would produce more than/ },
    { name: "print s = strrep(strrep(strrep('abcdefgh', 1024), 1024), 1024)", send: () => apl("print s = strrep(strrep(strrep('abcdefgh', 1024), 1024), 1024)"), status: 400, message: /more than 16,777,216/, at: [1, 11] },
    { name: "externaldata (a:string) ['tokens.json']", send: () => apl("externaldata (a:string) ['tokens.json']"), status: 400, message: /externaldata is not available here: this engine reads no files or URLs/, at: [1, 25] },
    { name: "externaldata (a:string) ['/proc/self/environ']", send: () => apl("externaldata (a:string) ['/proc/self/environ']"), status: 400, message: /externaldata is not available here: this engine reads no files or URLs/ },
    { name: "externaldata (a:string) ['/dev/zero']", send: () => apl("externaldata (a:string) ['/dev/zero']"), status: 400, message: /externaldata is not available here: this engine reads no files or URLs/ },
    { name: "externaldata (a:string) ['/no/such/file']", send: () => apl("externaldata (a:string) ['/no/such/file']"), status: 400, message: /externaldata is not available here: this engine reads no files or URLs/ },
    { name: "print n = countof_regex('(a', 'x')", send: () => apl("print n = countof_regex('(a', 'x')"), status: 400, message: /invalid regular expression '\(a'/, at: [1, 11] },
    {
        name: 'declare query_parameters(n:long = 0); print n with 1,001 variables',
        send: () => post('/v1/datasets/_apl?format=tabular', { apl: 'declare query_parameters(n:long = 0); print n', variables: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`v${i}`, i])) }),
        status: 400,
        message: /^invalid variables: 1,001 names, the limit is 1,000$/,
    },
    {
        name: 'declare query_parameters(s:string = ""); print s with a 2 MiB variable',
        send: () => post('/v1/datasets/_apl?format=tabular', { apl: 'declare query_parameters(s:string = ""); print strlen(s)', variables: { s: 'x'.repeat(2 * 1024 * 1024) } }),
        status: 400,
        message: /^invalid variables: 2,097,160 bytes of JSON, the limit is 1,048,576$/,
    },
    {
        name: 'print 1 with 40 MiB of variables (the body past the query limit)',
        send: () => postEarly('/v1/datasets/_apl?format=tabular', { apl: 'print 1', variables: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`v${i}`, 'x'.repeat(100_000)])) }),
        status: 413,
        message: /^the APL query request is too large: the limit is 8,388,608 bytes \(the APL text at most 262,144 characters, variables at most 1,048,576 bytes of JSON\)$/,
    },
    {
        name: 'a legacy query whose filter nests 100,000 levels',
        send: () => {
            // Built as text: JSON.stringify itself overflows on 100,000 levels.
            const filter = '{"op":"and","children":['.repeat(100_000) + '{"op":"==","field":"i","value":1}' + ']}'.repeat(100_000);
            return post('/v1/datasets/few/query', `{"startTime":"2000-01-01T00:00:00Z","endTime":"2100-01-01T00:00:00Z","filter":${filter}}`);
        },
        status: 400,
        message: /nested too deeply|too deep/,
    },
];

describe('apl serve under hostile queries', () => {
    for (const c of CASES) {
        it(`${c.name}: ${c.status}, then the service still answers`, async () => {
            const r = await c.send();
            expect(r.status).toBe(c.status);
            expect(r.json.message).toMatch(c.message);
            if (c.at) expect([r.json.detail?.line, r.json.detail?.column]).toEqual(c.at);
            await stillAnswers();
        }, 120_000);
    }

    it('declare query_parameters(n:long = 0); print n with 1,000 variables (the limit) answers with the value', async () => {
        const variables = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [i === 0 ? 'n' : `v${i}`, i === 0 ? 5 : i]));
        const r = await post('/v1/datasets/_apl?format=tabular', { apl: 'declare query_parameters(n:long = 0); print n', variables });
        expect(r.status).toBe(200);
        expect((r.json.tables as { columns: unknown[][] }[])[0].columns[0]).toEqual([5]);
    });

    it("['long'] | where a matches regex '(a+)+$' answers at once (linear-time regexes)", async () => {
        const r = await apl("['long'] | where a matches regex '(a+)+$' | count");
        expect(r.status).toBe(200);
        expect((r.json.tables as { columns: unknown[][] }[])[0].columns[0]).toEqual([0]);
        const m = await apl("['long'] | where a matches regex '^(a+)+b$' | count");
        expect((m.json.tables as { columns: unknown[][] }[])[0].columns[0]).toEqual([2]);
    }, 60_000);

    it('a legacy regexp filter over a 36-character value answers at once', async () => {
        const r = await post('/v1/datasets/long/query', { startTime: '2000-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z', filter: { op: 'regexp', field: 'a', value: '^(x|x)*y$' } });
        expect(r.status).toBe(200);
        expect(r.json.matches).toEqual([]);
    }, 60_000);

    it('30 valid queries sent together with 30 too-deep ones all answer correctly (the shared parser is never left broken)', async () => {
        const deep = Array.from({ length: 30 }, () => apl(`print ${nest('(', '1', ')', 60)}`));
        const valid = Array.from({ length: 30 }, (_, i) => apl(`['few'] | where i < ${i + 1} | count`));
        const [bad, good] = await Promise.all([Promise.all(deep), Promise.all(valid)]);
        expect(bad.map(r => r.status)).toEqual(Array(30).fill(400));
        expect(good.map(r => (r.json.tables as { columns: unknown[][] }[])[0].columns[0][0])).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
        await stillAnswers();
    }, 120_000);

    describe('an error echoes at most 200 characters of what the request sent, with an ellipsis', () => {
        const X = 'Z'.repeat(100_000);
        const U = 'Z'.repeat(6_000); // URLs and headers: under Node's 16 KiB header limit
        async function send(p: string, init: RequestInit): Promise<{ status: number; message: string }> {
            const res = await fetch(`${server.url}${p}`, { ...init, headers: { ...auth, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
            const text = await res.text();
            return { status: res.status, message: (JSON.parse(text) as { message: string }).message };
        }
        const ECHOES: [string, () => Promise<{ status: number; message: string }>][] = [
            ["['<100,000 Z>'] | count", () => apl(`['${X}'] | count`).then(r => ({ status: r.status, message: String(r.json.message) }))],
            ["['few'] | where <100,000 Z> == 1", () => apl(`['few'] | where ${X} == 1`).then(r => ({ status: r.status, message: String(r.json.message) }))],
            ['print <100,000 Z>(1)', () => apl(`print ${X}(1)`).then(r => ({ status: r.status, message: String(r.json.message) }))],
            ['print 1 <100,000 Z>', () => apl(`print 1 ${X}`).then(r => ({ status: r.status, message: String(r.json.message) }))],
            ['startTime <100,000 Z>', () => post('/v1/datasets/_apl?format=tabular', { apl: "['few'] | count", startTime: X }).then(r => ({ status: r.status, message: String(r.json.message) }))],
            ['POST /v2/datasets {"name":"<100,000 Z>"}', () => send('/v2/datasets', { method: 'POST', body: JSON.stringify({ name: X }) })],
            ['a JSON body broken after 100,000 characters', () => send('/v2/datasets', { method: 'POST', body: `{"name":"${X}` })],
            ['GET /v2/datasets/<6,000 Z>', () => send(`/v2/datasets/${U}`, { method: 'GET' })],
            ['GET /v1/<6,000 Z> (no such route)', () => send(`/v1/${U}`, { method: 'GET' })],
            ['Content-Type: text/<6,000 Z>', () => send('/v2/datasets', { method: 'POST', body: '{}', headers: { 'content-type': `text/${U}` } })],
            ['POST /v1/datasets/<6,000 Z>/ingest', () => send(`/v1/datasets/${U}/ingest`, { method: 'POST', body: '{}' })],
        ];
        for (const [name, run] of ECHOES) {
            it(name, async () => {
                const r = await run();
                expect(r.status).toBeGreaterThanOrEqual(400);
                expect(r.status).toBeLessThan(500);
                expect(r.message.length, r.message.slice(0, 300)).toBeLessThanOrEqual(600);
                expect(r.message).not.toContain('Z'.repeat(201));
            }, 60_000);
        }
    });

    it('nothing was logged as an internal error', () => {
        expect(server.output()).not.toMatch(/internal error|RangeError/);
    });
});
