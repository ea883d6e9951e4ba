/**
 * `apl explain FILE` as a real process (the BUILT out/apl.cjs): locally over `--data` files with the
 * reference evaluator, and against a real `apl serve` on a real port with `--url`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApl, scratchDir } from '../support/cli.js';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-explain-e2e';

const { dir, file } = scratchDir('apl-explain-');

const EVENTS = [
    { _time: '2024-01-01T00:00:00Z', level: 'error', ms: 120, msg: 'disk \u001b[31mfull\u0007' },
    { _time: '2024-01-01T00:00:01Z', level: 'info', ms: 5, msg: 'ok' },
    { _time: '2024-01-01T00:00:02Z', level: 'error', ms: 300, msg: 'timeout' },
    { _time: '2024-01-01T00:00:03Z', level: 'info', ms: 7, msg: 'ok' },
    { _time: '2024-01-01T00:00:04Z', level: 'warn', ms: 50, msg: 'slow' },
];
const NDJSON = EVENTS.map(e => JSON.stringify(e)).join('\n') + '\n';
const QUERY = "['logs']\n| where level == 'error'\n| extend s = ms / 1000.0\n| summarize n = count(), worst = max(ms) by level\n";

interface StageJson {
    stage: number;
    operator: string | null;
    text: string;
    line: number;
    columns: { name: string; type: string }[];
    rows: number | null;
    firstRows?: Record<string, unknown>[];
    error?: string;
    skipped?: boolean;
}


afterAll(() => {
});

describe('apl explain --data (the reference evaluator)', () => {
    it(`${QUERY.replace(/\n/g, ' ')}--format json`, () => {
        const r = runApl(['explain', '--data', `logs=${file('logs.ndjson', NDJSON)}`, '--format', 'json', '--rows', '2', file('q.apl', QUERY)]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const json = JSON.parse(r.stdout) as { note: string; ran: string; stages: StageJson[] };
        expect(json.ran).toBe('locally over logs');
        expect(json.note).toMatch(/\| count.*\| take 2/);
        expect(json.stages.map(s => [s.stage, s.operator, s.line, s.rows])).toEqual([
            [0, null, 1, 5],
            [1, 'where', 2, 2],
            [2, 'extend', 3, 2],
            [3, 'summarize', 4, 1],
        ]);
        expect(json.stages[2].columns.at(-1)).toEqual({ name: 's', type: 'real' });
        expect(json.stages[3].columns).toEqual([{ name: 'level', type: 'string' }, { name: 'n', type: 'long' }, { name: 'worst', type: 'long' }]);
        expect(json.stages[1].firstRows?.map(row => row.msg).sort()).toEqual(['disk \u001b[31mfull\u0007', 'timeout']);
        expect(json.stages[3].firstRows).toEqual([{ level: 'error', n: 2, worst: 300 }]);
    });

    it(`${QUERY.replace(/\n/g, ' ')}(table: the note, the per-stage table, the first rows with control characters escaped)`, () => {
        const r = runApl(['explain', '--data', `logs=${file('logs.ndjson', NDJSON)}`, '--width', '200', file('q.apl', QUERY)]);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^Ran locally over logs\. Each stage runs as its own bounded query: the query up to it with '\| count' for its rows and '\| take 3' for its first rows\./);
        expect(r.stdout).toMatch(/ 0 {2}\['logs'\] +5 {2}\(\d\+?\) _time: datetime/);
        expect(r.stdout).toMatch(/ 1 {2}where level == 'error' +2 {2}\(same\)/);
        expect(r.stdout).toMatch(/ 3 {2}summarize n = count\(\), worst = max\(ms\) by level +1 {2}\(3\) level: string, n: long, worst: long/);
        expect(r.stdout).toMatch(/stage 1 · where level == 'error' · 2 of 2 rows/);
        expect(r.stdout).toContain('disk \\033[31mfull\\a');
        // eslint-disable-next-line no-control-regex
        expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    });

    it("['logs'] ⏎ | where nosuchfield > 1 ⏎ | count, the second block of bad.apl (a failing stage: its message at the file's line, the later ones not run, exit 1)", () => {
        const r = runApl(['explain', '--data', `logs=${file('logs.ndjson', NDJSON)}`, '--format', 'json', '--block', '2', file('bad.apl', "['logs'] | take 1\n\n['logs']\n| where nosuchfield > 1\n| count")]);
        expect(r.code).toBe(1);
        const json = JSON.parse(r.stdout) as { stages: StageJson[] };
        expect(json.stages[0].rows).toBe(5);
        expect(json.stages[1].error).toMatch(/bad\.apl:4:9: .*nosuchfield/);
        expect(json.stages[2]).toMatchObject({ rows: null, skipped: true });
    });

    it("['logs'] | where (a syntax error: nothing runs, exit 1)", () => {
        const r = runApl(['explain', '--data', `logs=${file('logs.ndjson', NDJSON)}`, file('syntax.apl', "['logs'] | where")]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/syntax error.*nothing was run/);
    });

    it('two blocks: --block 2 explains the second', () => {
        const r = runApl(['explain', '--data', `logs=${file('logs.ndjson', NDJSON)}`, '--format', 'json', '--rows', '0', '--block', '2', file('two.apl', "['logs'] | take 1\n\n['logs']\n| count\n")]);
        expect(r.code).toBe(0);
        const json = JSON.parse(r.stdout) as { stages: StageJson[] };
        expect(json.stages.map(s => [s.text, s.line, s.rows, s.firstRows])).toEqual([
            ["['logs']", 3, 5, undefined],
            ['count', 4, 1, undefined],
        ]);
    });

    it('a missing query file is a usage error (exit 2)', () => {
        const r = runApl(['explain', join(dir, 'nope.apl')]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/nope\.apl: no such file/);
    });
});

describe('apl explain --url (a real apl serve)', () => {
    let server: ChildServer;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
        server = await spawnServer({ dataDir: join(dir, 'data'), token: TOKEN, bundled: true });
        env = { AXIOM_TOKEN: TOKEN };
        const ingest = runApl(['ingest', '--url', server.url, '--create', 'logs', file('svc.ndjson', NDJSON)], { env });
        expect(ingest.stderr + ingest.stdout).not.toMatch(/error/i);
        expect(ingest.code).toBe(0);
    }, 90_000);

    afterAll(async () => {
        await server?.stop();
    });

    it(`${QUERY.replace(/\n/g, ' ')}--url (the service's fields, the same counts as locally)`, () => {
        const r = runApl(['explain', '--url', server.url, '--format', 'json', '--rows', '1', file('q.apl', QUERY)], { env });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const json = JSON.parse(r.stdout) as { ran: string; note: string; stages: StageJson[] };
        expect(json.ran).toBe(`against ${server.url}`);
        expect(json.note).toMatch(/never runs unbounded/);
        expect(json.stages.map(s => s.rows)).toEqual([5, 2, 2, 1]);
        expect(json.stages[0].columns).toEqual(expect.arrayContaining([{ name: 'level', type: 'string' }, { name: 'ms', type: 'long' }]));
        expect(json.stages[3].firstRows).toEqual([{ level: 'error', n: 2, worst: 300 }]);
    });

    it("['nosuch'] | count --url (the service's refusal for the stage, exit 1)", () => {
        const r = runApl(['explain', '--url', server.url, '--format', 'json', file('nosuch.apl', "['nosuch'] | count")], { env });
        expect(r.code).toBe(1);
        const json = JSON.parse(r.stdout) as { stages: StageJson[] };
        expect(json.stages[0].error).toMatch(/^4\d\d /);
        expect(json.stages[1].skipped).toBe(true);
    });
});
