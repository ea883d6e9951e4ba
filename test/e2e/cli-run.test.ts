/** `apl run` and `apl translate` as real processes (the BUILT out/apl.cjs). */
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runApl, scratchDir } from '../support/cli.js';

const { dir, file } = scratchDir('apl-run-');

const NDJSON = [
    { _time: '2024-01-01T00:00:00Z', level: 'info', status: 200, msg: 'hello' },
    { _time: '2024-01-01T00:00:01Z', level: 'error', status: 500, msg: 'boom' },
    { _time: '2024-01-01T00:00:02Z', level: 'info', status: 201, msg: 'created' },
]
    .map(e => JSON.stringify(e))
    .join('\n');

let ndjson: string;
let jsonArray: string;
let csv: string;

beforeAll(() => {
    ndjson = file('events.ndjson', NDJSON + '\n');
    jsonArray = file('events.json', JSON.stringify([{ a: 1, b: 'x' }, { a: 2, b: 'y' }, { a: 3, b: 'z' }]));
    csv = file('people.csv', 'name,age,admin,zip\nalice,31,true,007\n"bob, jr",45,false,10\n');
});

describe('apl run', () => {
    it('queries a sample dataset generated on demand (table format, N rows footer)', () => {
        const r = runApl(['run', "['sample-http-logs'] | summarize count() by method | sort by method asc"], { env: { COLUMNS: '80' } });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const lines = r.stdout.trimEnd().split('\n');
        expect(lines[0]).toMatch(/^method\s+count_$/);
        expect(lines[1]).toMatch(/^─+\s+─+$/);
        expect(lines.slice(2, 6).map(l => l.split(/\s+/)[0])).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
        expect(lines.at(-1)).toBe('4 rows');
        const total = lines.slice(2, 6).reduce((a, l) => a + Number(l.split(/\s+/)[1]), 0);
        expect(total).toBe(10_000);
    });

    it('--sample NAME:ROWS sets the size; json prints row objects', () => {
        const r = runApl(['run', '--sample', 'otel-demo-traces:250', '--format', 'json', "['otel-demo-traces'] | summarize n = count()"]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual([{ n: 250 }]);
    });

    it('--data with NDJSON: each output format', () => {
        const q = 'logs | where status >= 200 | project _time, level, status | sort by _time asc';
        const json = runApl(['run', '--data', `logs=${ndjson}`, '--format', 'json', q]);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toEqual([
            { _time: '2024-01-01T00:00:00Z', level: 'info', status: 200 },
            { _time: '2024-01-01T00:00:01Z', level: 'error', status: 500 },
            { _time: '2024-01-01T00:00:02Z', level: 'info', status: 201 },
        ]);

        const csvOut = runApl(['run', '--data', `logs=${ndjson}`, '--format', 'csv', q]);
        expect(csvOut.stdout).toBe('_time,level,status\n2024-01-01T00:00:00Z,info,200\n2024-01-01T00:00:01Z,error,500\n2024-01-01T00:00:02Z,info,201\n');

        const tabular = runApl(['run', '--data', `logs=${ndjson}`, '--format', 'tabular', q]);
        const t = JSON.parse(tabular.stdout);
        expect(t.format).toBe('tabular');
        expect(t.status.rowsMatched).toBe(3);
        expect(t.tables[0].fields.map((f: { name: string }) => f.name)).toEqual(['_time', 'level', 'status']);
        expect(t.tables[0].columns[2]).toEqual([200, 500, 201]);

        const legacy = runApl(['run', '--data', `logs=${ndjson}`, '--format', 'legacy', "logs | where level == 'info'"]);
        const l = JSON.parse(legacy.stdout);
        expect(l.format).toBe('legacy');
        expect(l.matches).toHaveLength(2);
        expect(l.buckets).toEqual({ series: [], totals: [] });

        const table = runApl(['run', '--data', `logs=${ndjson}`, '--width', '30', 'logs | project msg, level, status, _time'], {});
        expect(table.code).toBe(0);
        const lines = table.stdout.trimEnd().split('\n');
        expect(table.stdout).toMatch(/^3 rows\b/m);
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
        // What does not fit at a readable width is left out, and the footer says so.
        expect(table.stdout).toMatch(/^msg\s+level\s+status$/m);
        expect(table.stdout).toMatch(/1 of 4 columns not\s+shown/);
    });

    it('--data with a JSON array, a gzipped file and a CSV (typed cells)', () => {
        const r = runApl(['run', '--data', `t=${jsonArray}`, '--format', 'json', 't | summarize s = sum(a), n = count()']);
        expect(JSON.parse(r.stdout)).toEqual([{ s: 6, n: 3 }]);

        const gz = file('events.ndjson.gz', gzipSync(NDJSON));
        const g = runApl(['run', '--data', `g=${gz}`, '--format', 'csv', 'g | summarize n = count()']);
        expect(g.stdout).toBe('n\n3\n');

        const c = runApl(['run', '--data', `people=${csv}`, '--format', 'json', 'people | project name, age, admin, zip, next = age + 1 | sort by age asc']);
        expect(c.code).toBe(0);
        expect(JSON.parse(c.stdout)).toEqual([
            { name: 'alice', age: 31, admin: true, zip: '007', next: 32 },
            { name: 'bob, jr', age: 45, admin: false, zip: '10', next: 46 },
        ]);
    });

    it('--timestamp-field and --timestamp-format read the event time as apl ingest does', () => {
        const logs = file('stamped.ndjson', ['{"ts":"02/01/2024 10:30","n":1}', '{"ts":"03/01/2024 11:00","n":2}', '{"ts":"bad","n":3}'].join('\n'));
        const r = runApl(['run', '--data', `logs=${logs}`, '--timestamp-field', 'ts', '--timestamp-format', '02/01/2006 15:04', '--format', 'json', "['logs'] | project _time, n"]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual([
            { _time: '2024-01-03T11:00:00Z', n: 2 },
            { _time: '2024-01-02T10:30:00Z', n: 1 },
        ]);
        expect(r.stderr).toContain('skipped 1 event(s)');
        expect(r.stderr).toContain('cannot parse timestamp field "ts": "bad"');
    });

    it('--seed N: the same seed gives the same sample rows, another seed others', () => {
        const q = "['sample-http-logs'] | project id | take 3";
        const a = runApl(['run', '--seed', '7', '--sample', 'sample-http-logs:50', '--format', 'csv', q]);
        const b = runApl(['run', '--seed', '7', '--sample', 'sample-http-logs:50', '--format', 'csv', q]);
        const c = runApl(['run', '--seed', '8', '--sample', 'sample-http-logs:50', '--format', 'csv', q]);
        expect(a.code).toBe(0);
        expect(a.stdout).toBe(b.stdout);
        expect(c.stdout).not.toBe(a.stdout);
    });

    it('--timestamp-field without --data is a usage error', () => {
        const r = runApl(['run', '--timestamp-field', 'ts', "['sample-http-logs'] | count"]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('apply to --data files');
    });

    it('reads the query from --file and reports skipped lines on stderr', () => {
        const bad = file('bad.ndjson', '{"a":1}\nnot json\n{"a":2}\n');
        const q = file('q.apl', 'd | summarize sum(a)\n');
        const r = runApl(['run', '--data', `d=${bad}`, '--file', q, '--format', 'csv']);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe('sum_a\n3\n');
        expect(r.stderr).toContain('skipped 1 event(s)');
        expect(r.stderr).toContain('line 2');
    });

    it('a bad query exits 1 with file:line:col, the source line and a caret under the whole name', () => {
        const r = runApl(['run', '--data', `logs=${ndjson}`, 'logs\n| where nosuch > 1']);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        const [first, source, caret] = r.stderr.split('\n');
        expect(first).toBe("<query>:2:9: error: The field 'nosuch' does not exist here.");
        expect(source).toBe('2 | | where nosuch > 1');
        expect(caret).toBe(`  | ${' '.repeat(8)}^^^^^^`);

        const syntax = runApl(['run', "['sample-http-logs'] | wher x"]);
        expect(syntax.code).toBe(1);
        expect(syntax.stderr).toMatch(/^<query>:1:24: error: syntax error/);

        const unknown = runApl(['run', '--data', `logs=${ndjson}`, "['nope'] | take 1"]);
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('loaded datasets: logs');
    });

    it('usage and I/O errors exit 2', () => {
        const cases: [string[], RegExp][] = [
            [['run', '--data', `x=${join(dir, 'missing.ndjson')}`, 'x'], /missing\.ndjson: no such file/],
            [['run', '--data', 'nopath', 'x'], /NAME=PATH/],
            [['run', '--start', 'yesterday', 'x'], /--start 'yesterday'/],
            [['run', '--format', 'xml', 'x'], /--format must be one of/],
            [['run', '--sample', 'nope', 'x'], /unknown sample dataset/],
            [['run'], /missing the query/],
            [['run', '--bogus', 'x'], /^apl run: unknown option '--bogus'\nRun 'apl run --help' for the options\.\n$/],
            [['run', '--file', join(dir, 'nope.apl')], /nope\.apl: no such file/],
        ];
        for (const [args, message] of cases) {
            const r = runApl(args);
            expect(r.code, args.join(' ')).toBe(2);
            expect(r.stderr, args.join(' ')).toMatch(message);
            expect(r.stdout).toBe('');
        }
    });
});

describe('apl run says what apl check says', () => {
    it("logs | where levl == 'error'  →  'did you mean' and the whole name underlined, as apl check does", () => {
        const r = runApl(['run', '--data', `logs=${ndjson}`, "logs | where levl == 'error'"]);
        expect(r.code).toBe(1);
        const [first, , caret] = r.stderr.split('\n');
        expect(first).toBe("<query>:1:14: error: The field 'levl' does not exist here. Did you mean 'level'?");
        expect(caret).toBe(`  | ${' '.repeat(13)}^^^^`);
    });

    it("['sample-http-logs'] | summarize count() by bin(_time, 1h) | take 2  →  APL0016's note on stderr, the result on stdout", () => {
        const r = runApl(['run', '--format', 'csv', "['sample-http-logs'] | summarize count() by bin(_time, 1h) | take 2"]);
        expect(r.code).toBe(0);
        expect(r.stderr.split('\n')[0]).toMatch(/^<query>:1:62: info APL0016 /);
        expect(r.stdout.split('\n')[0]).toBe('_time,count_');
    });
});

const BLOCKS = "logs\n| where level == 'error'\n| project msg\n\nlogs\n| summarize n = count()\n\nlogs | where nosuch > 1\n";

describe('apl run --file runs query blocks (a blank line separates queries)', () => {
    it(BLOCKS, () => {
        const path = file('blocks.apl', BLOCKS);
        const r = runApl(['run', '--data', `logs=${ndjson}`, '--file', path]);
        expect(r.code).toBe(1);
        expect(r.stdout).toContain('── query 1 of 3 · lines 1–3 ──\nmsg');
        expect(r.stdout).toContain('boom');
        expect(r.stdout).toContain('── query 2 of 3 · lines 5–6 ──\n');
        expect(r.stdout).toContain('── query 3 of 3 · line 8 ──');
        // The third block's error at its file position.
        expect(r.stderr.split('\n')[0]).toBe(`${path}:8:14: error: The field 'nosuch' does not exist here.`);
    });

    it('--line 6 and --block 2  →  only the second block, no header', () => {
        const path = file('blocks2.apl', BLOCKS);
        for (const choice of [['--line', '6'], ['--block', '2']]) {
            const r = runApl(['run', '--data', `logs=${ndjson}`, '--file', path, '--format', 'csv', ...choice]);
            expect(r, choice.join(' ')).toMatchObject({ code: 0, stdout: 'n\n3\n' });
        }
    });

    it('--line 4 (a blank line), --block 9, and several blocks with --format json  →  exit 2 with the blocks listed', () => {
        const path = file('blocks3.apl', BLOCKS);
        const cases: [string[], string][] = [
            [['--line', '4'], 'apl run: --line 4: no query on that line'],
            [['--block', '9'], `apl run: --block 9: ${path} holds 3 query block(s)`],
            [['--format', 'json'], `apl run: ${path} holds 3 query blocks (lines 1–3, lines 5–6, line 8): choose one with --block N or --line N`],
        ];
        for (const [args, message] of cases) {
            const r = runApl(['run', '--data', `logs=${ndjson}`, '--file', path, ...args]);
            expect(r.code, args.join(' ')).toBe(2);
            expect(r.stderr, args.join(' ')).toContain(message);
        }
    });
});

describe('apl translate', () => {
    it('prints the legacy query JSON', () => {
        const r = runApl([
            'translate',
            '--start',
            '2024-01-01T00:00:00Z',
            '--end',
            '2024-01-02T00:00:00Z',
            "['logs'] | where status == 500 | summarize count() by bin(_time, 1h)",
        ]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const out = JSON.parse(r.stdout);
        expect(out.dataset).toBe('logs');
        expect(out.query).toMatchObject({
            startTime: '2024-01-01T00:00:00Z',
            endTime: '2024-01-02T00:00:00Z',
            resolution: '1h0m0s',
            filter: { op: '==', field: 'status', value: 500 },
            aggregations: [{ op: 'count', field: '*' }],
        });
        const body = runApl(['translate', '--body', '--start', '2024-01-01', '--end', '2024-01-02', "['logs'] | take 5"]);
        expect(JSON.parse(body.stdout)).toMatchObject({ startTime: '2024-01-01T00:00:00Z', limit: 5 });
    });

    it('exits 1 with line:col for a construct that has no legacy form', () => {
        const r = runApl(['translate', "['logs']\n| join kind=inner (['other']) on id"]);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^<query>:2:3: error: .*join/);
        expect(r.stderr.split('\n')[1]).toBe("2 | | join kind=inner (['other']) on id");
    });

    it('usage errors exit 2', () => {
        expect(runApl(['translate']).code).toBe(2);
        expect(runApl(['translate', '--end', 'soon', 'x']).code).toBe(2);
    });
});
