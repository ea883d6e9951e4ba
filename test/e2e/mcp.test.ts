/**
 * `apl mcp` over stdio, driven by the MCP SDK's own client against the BUILT bin (out/apl.cjs): every
 * tool with good and bad input, its answers checked against `apl check` / `apl fmt` / `apl run` /
 * `apl query` / `apl translate` for the same input, and against a real `apl serve` on a real port.
 * A token set in the environment never appears in anything the server sends or logs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAplServe, type AplServe } from '../support/apl-serve.js';
import { runApl } from '../support/cli.js';
import { callTool, startAplMcp, type McpProcess } from '../support/mcp.js';

const TOKEN = 'xaat-mcp-test-secret-0123456789';
const TOOLS = ['apl_reference', 'check_apl', 'dataset_fields', 'explain_apl', 'format_apl', 'list_datasets', 'result_schema', 'run_apl', 'translate_apl'];

let dir: string;
let serve: AplServe;
let serviceEnv: Record<string, string>;
/** `apl mcp` with no connection: the sample datasets, locally. */
let local: McpProcess;
/** `apl mcp` against `apl serve`, the token in AXIOM_TOKEN. */
let service: McpProcess;
/** `apl mcp --data logs=FILE`: local files (the sample datasets are generated for the current minute: not comparable across processes). */
let files: McpProcess;
let logsFile: string;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
/** Everything any server sent: searched for the token at the end. */
const seen: string[] = [];
const started: McpProcess[] = [];

async function start(args: string[], env: Record<string, string> = {}): Promise<McpProcess> {
    const p = await startAplMcp(args, env);
    started.push(p);
    return p;
}

async function call(p: McpProcess, name: string, args: Record<string, unknown>) {
    const r = await callTool(p.client, name, args);
    seen.push(JSON.stringify(r));
    return r;
}

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apl-mcp-'));
    serve = await startAplServe(['--data', join(dir, 'data')], { AXIOM_TOKEN: TOKEN });
    serviceEnv = { AXIOM_URL: serve.url, AXIOM_TOKEN: TOKEN };
    logsFile = join(dir, 'logs.ndjson');
    const events = Array.from({ length: 1000 }, (_, i) => ({ _time: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(), method: METHODS[i % 7 % 4], status: i % 9 === 0 ? '500' : '200', uri: `/api/${i % 13}` }));
    writeFileSync(logsFile, events.map(e => JSON.stringify(e)).join('\n') + '\n');
    [local, service, files] = await Promise.all([start([]), start([], serviceEnv), start(['--data', `logs=${logsFile}`])]);
});

afterAll(async () => {
    for (const p of started) {
        seen.push(p.stderr());
        await p.close();
    }
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
});

describe('the tools', () => {
    it('lists the nine tools, each with an input and an output schema, and no write tool (read-only by default)', async () => {
        const { tools } = await local.client.listTools();
        expect(tools.map(t => t.name).sort()).toEqual(TOOLS);
        for (const t of tools) {
            expect(t.inputSchema.type).toBe('object');
            expect(t.outputSchema?.type).toBe('object');
        }
    });
});

describe('check_apl, as apl check --format json', () => {
    for (const query of [
        "['sample-http-logs'] | summarize cnt() by method",
        "['sample-http-logs'] | where",
        "['sample-http-logs'] | where status == 200 | project methd",
        "['sample-http-logs'] | summarize count() by bin_auto(_time)",
    ]) {
        it(query, async () => {
            const r = await call(local, 'check_apl', { query });
            const cli = JSON.parse(runApl(['check', '--format', 'json', '-'], { input: query }).stdout) as { diagnostics: { code: string; range: unknown; severity: string }[] }[];
            const expected = cli[0].diagnostics.map(d => ({ code: d.code, range: d.range, severity: d.severity }));
            const got = (r.structuredContent as { diagnostics: { code: string; range: unknown; severity: string }[] }).diagnostics;
            expect(got.map(d => ({ code: d.code, range: d.range, severity: d.severity }))).toEqual(expected);
            expect((r.structuredContent as { valid: boolean }).valid).toBe(!expected.some(d => d.severity === 'error'));
        });
    }

    it("['sample-http-logs'] | summarize cnt() by method: APL0001 with the quick fix 'count'", async () => {
        const r = await call(local, 'check_apl', { query: "['sample-http-logs'] | summarize cnt() by method" });
        expect((r.structuredContent as { diagnostics: unknown[] }).diagnostics).toEqual([expect.objectContaining({ code: 'APL0001', line: 1, column: 34, suggestion: 'count' })]);
        expect(r.text).toContain('APL0001');
    });

    it("['nosuch'] | take 1 with useConnection: the dataset the service lacks is APL0011", async () => {
        const r = await call(service, 'check_apl', { query: "['nosuch'] | take 1", useConnection: true });
        expect((r.structuredContent as { diagnostics: { code: string }[] }).diagnostics.map(d => d.code)).toEqual(['APL0011']);
        const offline = await call(service, 'check_apl', { query: "['nosuch'] | take 1" });
        expect((offline.structuredContent as { diagnostics: unknown[] }).diagnostics).toEqual([]);
    });

    it("['logs'] | where statuz == 200 with an inline schema: APL0012 suggesting status", async () => {
        const r = await call(local, 'check_apl', { query: "['logs'] | where statuz == 200", schema: { logs: { status: 'integer' } } });
        expect((r.structuredContent as { diagnostics: unknown[] }).diagnostics).toEqual([expect.objectContaining({ code: 'APL0012', suggestion: 'status' })]);
    });
});

describe('format_apl, as apl fmt', () => {
    for (const query of ["['sample-http-logs'] | where status=='200'|summarize count() by method", "['sample-http-logs'] | where"]) {
        it(query, async () => {
            const r = await call(local, 'format_apl', { query });
            const cli = runApl(['fmt', '-'], { input: query });
            expect((r.structuredContent as { formatted: string }).formatted).toBe(cli.stdout);
            const codes = (r.structuredContent as { diagnostics: { code: string }[] }).diagnostics.map(d => d.code);
            expect(codes).toEqual(cli.code === 0 ? [] : ['APL1001']);
        });
    }
});

describe('result_schema and explain_apl, without running', () => {
    it("['sample-http-logs'] | summarize n = count() by method: the columns run_apl returns", async () => {
        const query = "['sample-http-logs'] | summarize n = count() by method";
        for (const p of [local, service]) {
            const schema = await call(p, 'result_schema', { query });
            const run = await call(p, 'run_apl', { query });
            expect((schema.structuredContent as { columns: { name: string }[] }).columns).toEqual([{ name: 'method', type: 'string' }, { name: 'n', type: 'long' }]);
            expect((run.structuredContent as { columns: { name: string }[] }).columns.map(c => c.name)).toEqual(['method', 'n']);
        }
    });

    it("['logs'] | where status == '200' | project method, uri: the schema after each stage, and the rows after each as apl run counts them", async () => {
        const query = "['logs'] | where status == '200' | project method, uri";
        const r = await call(files, 'explain_apl', { query, withRowCounts: true });
        const stages = (r.structuredContent as { stages: { operator: string; columns: { name: string }[]; rows: number }[] }).stages;
        expect(stages.map(s => s.operator)).toEqual(['source', 'where', 'project']);
        expect(stages[0].columns.map(c => c.name)).toEqual(expect.arrayContaining(['_time', 'method', 'status', 'uri']));
        expect(stages[2].columns.map(c => c.name)).toEqual(['method', 'uri']);
        const count = (q: string) => (JSON.parse(runApl(['run', '--data', `logs=${logsFile}`, '--format', 'json', q]).stdout) as { count: number }[])[0].count;
        expect(stages.map(s => s.rows)).toEqual([count("['logs'] | count"), count("['logs'] | where status == '200' | count"), count("['logs'] | where status == '200' | count")]);
        expect(stages[1].rows).toBeLessThan(stages[0].rows);
    });

    it("['sample-http-logs'] | where: explain_apl and result_schema answer the syntax error as a tool error", async () => {
        for (const tool of ['explain_apl', 'result_schema']) {
            const r = await call(local, tool, { query: "['sample-http-logs'] | where" });
            expect(r.isError).toBe(true);
            expect(r.text).toContain('APL1001');
        }
    });

    it("let x = 1: no query statement, a tool error", async () => {
        const r = await call(local, 'result_schema', { query: 'let x = 1;' });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/no query statement/);
    });
});

describe('list_datasets and dataset_fields', () => {
    it('the service: the datasets and fields apl datasets reports', async () => {
        const r = await call(service, 'list_datasets', {});
        const cli = JSON.parse(runApl(['datasets', 'list', '--format', 'json'], { env: serviceEnv }).stdout) as { name: string }[];
        expect((r.structuredContent as { datasets: { name: string }[] }).datasets.map(d => d.name).sort()).toEqual(cli.map(d => d.name).sort());
        const fields = await call(service, 'dataset_fields', { dataset: 'sample-http-logs' });
        expect((fields.structuredContent as { fields: { name: string; type: string }[] }).fields).toContainEqual(expect.objectContaining({ name: 'method', type: 'string' }));
    });

    it('an unknown dataset is a tool error, locally and from the service', async () => {
        for (const p of [local, service]) {
            const r = await call(p, 'dataset_fields', { dataset: 'nosuch' });
            expect(r.isError).toBe(true);
            expect(r.text).toMatch(/unknown dataset 'nosuch'/);
        }
    });

    it('a service that does not answer: list_datasets is a tool error naming it', async () => {
        const p = await start(['--url', 'http://127.0.0.1:1'], { AXIOM_TOKEN: TOKEN });
        const r = await call(p, 'list_datasets', {});
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/did not answer/);
    });

    it('--schema FILE: the datasets and fields of the file', async () => {
        const file = join(dir, 'schema.json');
        writeFileSync(file, JSON.stringify({ datasets: { logs: { status: 'integer', uri: 'string' } } }));
        const p = await start(['--schema', file]);
        expect(((await call(p, 'list_datasets', {})).structuredContent as { datasets: unknown[] }).datasets).toEqual([{ name: 'logs' }]);
        const fields = (await call(p, 'dataset_fields', { dataset: 'logs' })).structuredContent as { fields: { name: string; type: string }[] };
        expect(fields.fields).toContainEqual({ name: 'status', type: 'long' });
    });
});

describe('run_apl', () => {
    const query = "['sample-http-logs'] | summarize n = count() by method | sort by method asc";
    const logsQuery = "['logs'] | summarize n = count() by method | sort by method asc";

    it(`${logsQuery}: over --data files, the rows of apl run --data`, async () => {
        const r = await call(files, 'run_apl', { query: logsQuery });
        const cli = JSON.parse(runApl(['run', '--data', `logs=${logsFile}`, '--format', 'json', logsQuery]).stdout) as unknown[];
        const s = r.structuredContent as { rows: unknown[]; total: number; isPartial: boolean; rowsExamined: number; elapsedMs: number; truncated: boolean };
        expect(s.rows).toEqual(cli);
        expect(s).toMatchObject({ total: 4, isPartial: false, rowsExamined: 1000, truncated: false });
        expect(s.elapsedMs).toBeGreaterThanOrEqual(0);
    });

    it(`${query}: against apl serve, the rows of apl query`, async () => {
        const r = await call(service, 'run_apl', { query });
        const cli = JSON.parse(runApl(['query', '--format', 'json', query], { env: serviceEnv }).stdout) as unknown[];
        const s = r.structuredContent as { rows: unknown[]; total: number; rowsExamined: number };
        expect(s.rows).toEqual(cli);
        expect(s.total).toBe(cli.length);
        expect(s.rowsExamined).toBeGreaterThan(0);
    });

    it("['sample-http-logs'] | take 500: 100 rows by default, the total and truncated", async () => {
        const s = (await call(local, 'run_apl', { query: "['sample-http-logs'] | take 500" })).structuredContent as { returned: number; total: number; truncated: boolean };
        expect(s).toMatchObject({ returned: 100, total: 500, truncated: true });
    });

    it("['logs'] | count from 2025-01-01T02:00:00Z to 2025-01-01T05:00:00Z: the count apl run gives for the range", async () => {
        const range = { start: '2025-01-01T02:00:00Z', end: '2025-01-01T05:00:00Z' };
        const s = (await call(files, 'run_apl', { query: "['logs'] | count", ...range })).structuredContent as { rows: unknown[] };
        expect(s.rows).toEqual([{ count: 180 }]);
        expect(s.rows).toEqual(JSON.parse(runApl(['run', '--data', `logs=${logsFile}`, '--format', 'json', '--start', range.start, '--end', range.end, "['logs'] | count"]).stdout));
    });

    it("['sample-http-logs'] | where: a syntax error is a tool error with APL1001, and nothing runs", async () => {
        const r = await call(local, 'run_apl', { query: "['sample-http-logs'] | where" });
        expect(r.isError).toBe(true);
        expect(r.text).toContain('APL1001');
    });

    it("['nosuch'] | take 1: an unknown dataset is a tool error, locally and from the service", async () => {
        for (const p of [local, service]) {
            const r = await call(p, 'run_apl', { query: "['nosuch'] | take 1" });
            expect(r.isError).toBe(true);
            expect(r.text).toMatch(/nosuch/);
        }
    });

    it("['sample-http-logs'] | take 1 with maxRows 1000000: above the row cap, a tool error", async () => {
        const r = await call(local, 'run_apl', { query: "['sample-http-logs'] | take 1", maxRows: 1_000_000 });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/row cap of 1000/);
    });

    it("['sample-http-logs'] | take 1 with start 'yesterday-ish': a bad time is a tool error naming it", async () => {
        const r = await call(local, 'run_apl', { query: "['sample-http-logs'] | take 1", start: 'yesterday-ish' });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/^start 'yesterday-ish'/);
    });

    it('a query past --time-limit is a tool error, and the server goes on answering', async () => {
        const p = await start(['--time-limit', '1']);
        // Generate the sample first (not timed), then a join that takes far longer than 1 ms.
        await call(p, 'dataset_fields', { dataset: 'sample-http-logs' });
        const r = await call(p, 'run_apl', { query: "['sample-http-logs'] | join kind=inner (['sample-http-logs'] | project method, u2 = uri) on method | summarize count() by u2" });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/time limit of 1 ms/);
        expect((await call(p, 'check_apl', { query: 'print 1' })).isError).toBeFalsy();
    });

    it('--query-budget 1: the second query of the session is a tool error', async () => {
        const p = await start(['--query-budget', '1']);
        expect((await call(p, 'run_apl', { query: 'print 1' })).isError).toBeFalsy();
        const second = await call(p, 'run_apl', { query: 'print 2' });
        expect(second.isError).toBe(true);
        expect(second.text).toMatch(/budget/);
    });
});

describe('translate_apl, as apl translate', () => {
    it("['sample-http-logs'] | where status == '500' | summarize count() by method", async () => {
        const query = "['sample-http-logs'] | where status == '500' | summarize count() by method";
        const range = { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' };
        const r = await call(local, 'translate_apl', { query, ...range });
        expect(r.structuredContent).toEqual(JSON.parse(runApl(['translate', '--start', range.start, '--end', range.end, query]).stdout));
    });

    it("['sample-http-logs'] | join (['b']) on id: no legacy form, a tool error at its position", async () => {
        const r = await call(local, 'translate_apl', { query: "['sample-http-logs'] | join (['b']) on id" });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/^line 1, column \d+/);
    });
});

describe('apl_reference', () => {
    it('strcat: its signature, description and example', async () => {
        const r = await call(local, 'apl_reference', { name: 'strcat' });
        const [entry] = (r.structuredContent as { entries: { kind: string; signatures: string[]; example: string }[] }).entries;
        expect(entry.kind).toBe('scalar function');
        expect(entry.signatures[0]).toMatch(/^strcat\(/);
        expect(entry.example).toContain('strcat');
    });

    it('count: the aggregation and the tabular operator', async () => {
        const r = await call(local, 'apl_reference', { name: 'count' });
        expect((r.structuredContent as { entries: { kind: string }[] }).entries.map(e => e.kind).sort()).toEqual(['aggregation', 'tabular operator']);
    });

    it('strcatt: a tool error suggesting strcat', async () => {
        const r = await call(local, 'apl_reference', { name: 'strcatt' });
        expect(r.isError).toBe(true);
        expect(r.text).toContain("'strcat'");
    });
});

describe('writes', () => {
    it('read-only (the default): an ingest call is refused, and nothing is written', async () => {
        const count = () => (JSON.parse(runApl(['query', '--format', 'json', "['sample-http-logs'] | count"], { env: serviceEnv }).stdout) as { count: number }[])[0].count;
        const before = count();
        const r = await call(service, 'ingest_events', { dataset: 'sample-http-logs', events: [{ a: 1 }] });
        expect(r.isError).toBe(true);
        expect(count()).toBe(before);
    });

    it('--allow-writes mcp-notes: ingest only into mcp-notes, and the events are there', async () => {
        runApl(['datasets', 'create', 'mcp-notes'], { env: serviceEnv });
        const p = await start(['--allow-writes', 'mcp-notes'], serviceEnv);
        expect((await p.client.listTools()).tools.map(t => t.name)).toContain('ingest_events');
        const ok = await call(p, 'ingest_events', { dataset: 'mcp-notes', events: [{ note: 'a' }, { note: 'b' }] });
        expect(ok.structuredContent).toEqual({ dataset: 'mcp-notes', ingested: 2, failed: 0 });
        const other = await call(p, 'ingest_events', { dataset: 'sample-http-logs', events: [{ note: 'c' }] });
        expect(other.isError).toBe(true);
        const rows = JSON.parse(runApl(['query', '--format', 'json', "['mcp-notes'] | project note | sort by note asc"], { env: serviceEnv }).stdout) as unknown[];
        expect(rows).toEqual([{ note: 'a' }, { note: 'b' }]);
    });
});

async function resourceText(uri: string): Promise<string> {
    const [content] = (await service.client.readResource({ uri })).contents;
    return 'text' in content ? content.text : '';
}

describe('resources and prompts', () => {
    it('the catalogue, the diagnostic codes and each dataset schema', async () => {
        const { resources } = await service.client.listResources();
        const uris = resources.map(r => r.uri);
        expect(uris).toEqual(expect.arrayContaining(['apl://catalogue', 'apl://diagnostics', 'apl://datasets/sample-http-logs/schema']));
        const codes = JSON.parse(await resourceText('apl://diagnostics')) as { code: string }[];
        expect(codes.map(c => c.code)).toEqual(expect.arrayContaining(['APL0001', 'APL0011', 'APL0012']));
        const catalogue = JSON.parse(await resourceText('apl://catalogue')) as { name: string }[];
        expect(catalogue.map(c => c.name)).toEqual(expect.arrayContaining(['strcat', 'summarize', 'count']));
        const schema = JSON.parse(await resourceText('apl://datasets/sample-http-logs/schema')) as { fields: { name: string }[] };
        expect(schema.fields.map(f => f.name)).toContain('method');
    });

    it('write_query attaches the schema; fix_query the diagnostics', async () => {
        const write = await service.client.getPrompt({ name: 'write_query', arguments: { task: 'errors per hour', dataset: 'sample-http-logs' } });
        expect(JSON.stringify(write.messages)).toContain('req_duration_ms');
        const fix = await local.client.getPrompt({ name: 'fix_query', arguments: { query: "['sample-http-logs'] | summarize cnt()" } });
        expect(JSON.stringify(fix.messages)).toContain('APL0001');
    });
});

describe('the token', () => {
    it(`print t = '${TOKEN}': a result holding the token is redacted`, async () => {
        const r = await call(service, 'run_apl', { query: `print t = '${TOKEN}'` });
        expect(r.isError).toBeFalsy();
        expect(JSON.stringify(r)).toContain('[redacted]');
    });

    it('never appears in a tool result, a resource, an error or the log', () => {
        // Runs after the others (vitest runs a file's tests in order): every answer so far, and the logs.
        const all = seen.join('\n') + started.map(p => p.stderr()).join('\n');
        expect(all.length).toBeGreaterThan(1000);
        expect(all).not.toContain(TOKEN);
    });
});
