import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runApl, scratchDir } from '../support/cli.js';

const { dir, file } = scratchDir('apl-check-');


describe('apl check', () => {
    it("['sample-http-logs'] | where status == '500' | count  →  exit 0, no output", () => {
        const ok = file('ok.apl', "['sample-http-logs'] | where status == '500' | count\n");
        const r = runApl(['check', ok]);
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe('');
        expect(r.code).toBe(0);
    });

    it("['sample-http-logs'] | where status ==  →  exit 1, file:line:col: error APL1001 with source line and caret", () => {
        const bad = file('bad.apl', "['sample-http-logs']\n| where status ==\n");
        const r = runApl(['check', bad]);
        expect(r.code).toBe(1);
        const [first, source, caret] = r.stdout.split('\n');
        expect(first).toBe(`${bad}:2:18: error APL1001 expected an expression after '==', found the end of the query`);
        expect(source).toBe('2 | | where status ==');
        expect(caret).toBe(`  | ${' '.repeat(17)}^`);
    });

    it('many files in one process: one good, one bad  →  exit 1 and only the bad one reported', () => {
        const ok = file('a.apl', 'print 1');
        const bad = file('b.apl', 'T | where (a');
        const r = runApl(['check', '--format', 'json', ok, bad]);
        expect(r.code).toBe(1);
        const reports = JSON.parse(r.stdout) as { file: string; diagnostics: { code: string; severity: string; range: unknown }[] }[];
        expect(reports.map(x => x.file)).toEqual([ok, bad]);
        expect(reports[0].diagnostics).toEqual([]);
        expect(reports[1].diagnostics).toEqual([
            {
                severity: 'error',
                code: 'APL1001',
                message: "expected ')' after 'a', found the end of the query",
                range: { start: { line: 0, character: 12 }, end: { line: 0, character: 12 } },
            },
        ]);
    });

    it('T | summarize sum("x")  →  a semantic error unless --syntax-only', () => {
        const f = file('sem.apl', 'T | summarize sum("x")');
        const full = runApl(['check', '--format', 'json', f]);
        expect(full.code).toBe(1);
        const codes = (JSON.parse(full.stdout) as { diagnostics: { code: string }[] }[])[0].diagnostics.map(d => d.code);
        expect(codes.length).toBeGreaterThan(0);
        expect(codes).not.toContain('APL1001');
        const syntax = runApl(['check', '--syntax-only', '--format', 'json', f]);
        expect(syntax.code).toBe(0);
        expect((JSON.parse(syntax.stdout) as { diagnostics: unknown[] }[])[0].diagnostics).toEqual([]);
    });

    it('- reads standard input', () => {
        const r = runApl(['check', '-'], { input: 'T | take' });
        expect(r.code).toBe(1);
        expect(r.stdout).toMatch(/^<stdin>:1:9: error APL1001 /);
    });

    it('a missing file  →  exit 2 and a clear message, no stack trace', () => {
        const r = runApl(['check', join(dir, 'nope.apl')]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`apl check: ${join(dir, 'nope.apl')}: no such file\n`);
    });

    it('an empty file  →  exit 2 and a clear message', () => {
        const empty = file('empty.apl', '  \n');
        const r = runApl(['check', empty]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`apl check: ${empty}: the file is empty\n`);
    });

    it('a file that is not UTF-8  →  exit 2 and the offset of the bad byte', () => {
        const latin1 = file('latin1.apl', Buffer.from([0x70, 0x72, 0x69, 0x6e, 0x74, 0x20, 0x22, 0xe9, 0x22]));
        const r = runApl(['check', latin1]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`apl check: ${latin1}: not valid UTF-8 (first bad byte at offset 7)\n`);
    });

    it('an unknown option or format  →  exit 2', () => {
        expect(runApl(['check', '--bogus']).code).toBe(2);
        const r = runApl(['check', '--format', 'xml', 'x.apl']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--format must be text, json or sarif');
    });

    it("['sample-http-logs'] | where stauts == '500' with --schema  →  a warning, exit 0", () => {
        const schema = file('schema.json', JSON.stringify({ datasets: { 'sample-http-logs': { status: 'string', method: 'string' } } }));
        const q = file('warn.apl', "['sample-http-logs'] | where stauts == '500'");
        const r = runApl(['check', '--schema', schema, '--format', 'json', q]);
        expect(r.code).toBe(0);
        const diagnostics = (JSON.parse(r.stdout) as { diagnostics: { severity: string }[] }[])[0].diagnostics;
        expect(diagnostics.map(d => d.severity)).toEqual(['warning']);
    });

    it('a bad --schema file  →  exit 2 naming the problem', () => {
        const schema = file('bad-schema.json', JSON.stringify({ datasets: { logs: { status: 'strng' } } }));
        const r = runApl(['check', '--schema', schema, file('q.apl', 'print 1')]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('strng');
    });
});

describe('apl check --format sarif', () => {
    it("T | summarize sum('x') and T | where status ==  →  a SARIF 2.1.0 log: rules = the APL codes with their help, one result per diagnostic", async () => {
        const { allIssues } = await import('../../language/apl-issue-codes.js');
        file('sarif-a.apl', "['logs'] | summarize sum('x')\n");
        file('sarif-b.apl', "['logs']\n| where status ==\n");
        const r = runApl(['check', '--format', 'sarif', 'sarif-a.apl', 'sarif-b.apl'], { cwd: dir });
        expect(r.code).toBe(1);
        const log = JSON.parse(r.stdout) as import('sarif').Log;
        expect(log.version).toBe('2.1.0');
        expect(log.$schema).toMatch(/sarif-2\.1\.0/);
        const run = log.runs[0];
        const rules = run.tool.driver.rules!;
        // The checker's codes first, then the analyzers' rules (test/e2e/cli-check-analyzers.test.ts).
        expect(rules.slice(0, allIssues().length).map(x => x.id)).toEqual(allIssues().map(i => i.code));
        for (const [k, rule] of rules.slice(0, allIssues().length).entries()) {
            expect(rule.help?.text).toBe(allIssues()[k].help);
            expect(rule.help?.text.length).toBeGreaterThan(20);
        }
        expect(run.results).toEqual([
            expect.objectContaining({
                ruleId: 'APL0003',
                ruleIndex: rules.findIndex(x => x.id === 'APL0003'),
                level: 'error',
                locations: [{ physicalLocation: { artifactLocation: { uri: 'sarif-a.apl', uriBaseId: '%SRCROOT%' }, region: { startLine: 1, startColumn: 26, endLine: 1, endColumn: 29 } } }],
            }),
            expect.objectContaining({
                ruleId: 'APL1001',
                level: 'error',
                locations: [{ physicalLocation: { artifactLocation: { uri: 'sarif-b.apl', uriBaseId: '%SRCROOT%' }, region: { startLine: 2, startColumn: 18, endLine: 2, endColumn: 18 } } }],
            }),
        ]);
        expect(run.results![0].message.text).toMatch(/sum/);
    });

    it('a clean file  →  exit 0 and a log with no results', () => {
        file('sarif-ok.apl', 'print 1\n');
        const r = runApl(['check', '--format', 'sarif', 'sarif-ok.apl'], { cwd: dir });
        expect(r.code).toBe(0);
        expect((JSON.parse(r.stdout) as import('sarif').Log).runs[0].results).toEqual([]);
    });
});

describe('apl check says what apl run says', () => {
    it("['sample-http-logs'] | take 1 then ['sample-http-logs'] | count on the next line, without ';'  →  both exit 1 at 1:29 with the same message", () => {
        const two = file('two.apl', "['sample-http-logs'] | take 1\n['sample-http-logs'] | count\n");
        const check = runApl(['check', two]);
        const run = runApl(['run', '--file', two]);
        expect(check.code).toBe(1);
        expect(run.code).toBe(1);
        const message = "'1' is not a dynamic value, so it cannot be indexed with [ ]. If a new query starts on line 2, put a blank line before it: a blank line separates queries.";
        expect(check.stdout.split('\n')[0]).toBe(`${two}:1:29: error APL0014 ${message}`);
        expect(run.stderr.split('\n')[0]).toBe(`${two}:1:29: error: ${message}`);
    });
});

const THREE_BLOCKS = "['sample-http-logs']\n| where status == \"500\"\n\n['sample-http-logs']\n| summarize count() by bin(_time, 1h)\n\n['sample-http-logs']\n| where _time > ago(1h)\n| take 10\n";

describe('apl check reads a file as query blocks (a blank line separates queries)', () => {
    it(THREE_BLOCKS, () => {
        const r = runApl(['check', file('three.apl', THREE_BLOCKS)]);
        expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    });

    it("['sample-http-logs'] | take 1\n\n['sample-http-logs'] | where (a ==\n\n['sample-http-logs'] | where stauts == 1  →  each block reported at its file position", () => {
        const path = file('blocks.apl', "['sample-http-logs'] | take 1\n\n['sample-http-logs'] | where (a ==\n\n['sample-http-logs'] | where stauts == 1\n");
        const r = runApl(['check', '--format', 'json', path]);
        expect(r.code).toBe(1);
        const [report] = JSON.parse(r.stdout) as { diagnostics: { code: string; range: { start: { line: number; character: number } } }[] }[];
        expect(report.diagnostics.map(d => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`)).toEqual(['3:35 APL1001', '5:30 APL0012']);
    });
});

describe('apl check without --schema knows the sample datasets, as the editor does', () => {
    it("['sample-http-logs'] | where stauts == '500'  →  APL0012 with did-you-mean, exit 0 (a warning)", () => {
        const path = file('stauts.apl', "['sample-http-logs'] | where stauts == '500'\n");
        const r = runApl(['check', path]);
        expect(r.code).toBe(0);
        expect(r.stdout.split('\n')[0]).toBe(`${path}:1:30: warning APL0012 The field 'stauts' does not exist here. Did you mean 'status'?`);
    });

    it("['my-logs'] | where stauts == '500'  →  an unknown dataset is not reported without a schema", () => {
        const r = runApl(['check', file('mine.apl', "['my-logs'] | where stauts == '500'\n")]);
        expect(r).toMatchObject({ code: 0, stdout: '' });
    });
});

describe('apl check DIR', () => {
    it('queries/{a.apl, sub/b.apl, node_modules/x.apl, .hidden/y.apl, notes.txt}  →  a.apl and sub/b.apl are checked', () => {
        const root = join(dir, 'queries');
        for (const sub of ['sub', 'node_modules', '.hidden']) mkdirSync(join(root, sub), { recursive: true });
        writeFileSync(join(root, 'a.apl'), "['sample-http-logs'] | where stauts == '500'\n");
        writeFileSync(join(root, 'sub', 'b.apl'), "['sample-http-logs'] | where (\n");
        writeFileSync(join(root, 'node_modules', 'x.apl'), 'T | where (\n');
        writeFileSync(join(root, '.hidden', 'y.apl'), 'T | where (\n');
        writeFileSync(join(root, 'notes.txt'), 'T | where (\n');
        const r = runApl(['check', '--format', 'json', root]);
        expect(r.code).toBe(1);
        const reports = JSON.parse(r.stdout) as { file: string; diagnostics: { code: string }[] }[];
        expect(reports.map(f => [f.file, f.diagnostics.map(d => d.code)])).toEqual([
            [join(root, 'a.apl'), ['APL0012']],
            [join(root, 'sub', 'b.apl'), ['APL1001']],
        ]);
    });

    it('an empty directory  →  exit 2 and a message saying no .apl files were found', () => {
        const empty = join(dir, 'empty');
        mkdirSync(empty, { recursive: true });
        const r = runApl(['check', empty]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`apl check: ${empty}: no .apl files in this directory (node_modules and dot-folders are not searched)\n`);
    });
});
