/**
 * `apl check` and the analyzers, on the built CLI and real files: findings in every format, the
 * nearest .aplrc.json, --require-time-filter, --fix rewriting files in place, --explain, and SARIF
 * rules carrying the explanation with its examples.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAnalyzerRules } from '../../language/analyzers/analyzer-rules.js';
import { runApl, scratchDir } from '../support/cli.js';

const { dir, file } = scratchDir('apl-check-an-');
const codesOf = (stdout: string) => (JSON.parse(stdout) as { diagnostics: { code: string }[] }[]).map(r => r.diagnostics.map(d => d.code).join(' '));


describe('apl check with analyzers', () => {
    it("['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 3  →  info APL2002 and APL2006, exit 0", () => {
        const path = file('q.apl', "['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 3\n");
        const r = runApl(['check', path]);
        expect(r.code).toBe(0);
        const text = readFileSync(path, 'utf8');
        expect(r.stdout).toContain(`q.apl:1:${text.indexOf('=~') + 1}: info APL2002 `);
        expect(r.stdout).toContain(`q.apl:1:${text.indexOf('sort') + 1}: info APL2006 `);
        expect(codesOf(runApl(['check', '--format', 'json', path]).stdout)).toEqual(['APL2002 APL2006']);
        expect(codesOf(runApl(['check', '--format', 'json', '--no-analyzers', path]).stdout)).toEqual(['']);
    });

    it('a .aplrc.json above the file turns APL2002 off and makes APL2006 an error (exit 1)', () => {
        mkdirSync(join(dir, 'proj', 'queries'), { recursive: true });
        file('proj/.aplrc.json', JSON.stringify({ rules: { APL2002: 'off', APL2006: 'error' } }));
        const path = file('proj/queries/q.apl', "['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 3\n");
        const r = runApl(['check', '--format', 'json', path]);
        expect(r.code).toBe(1);
        expect(codesOf(r.stdout)).toEqual(['APL2006']);
    });

    it('a bad .aplrc.json  →  exit 2 naming the file and the field', () => {
        mkdirSync(join(dir, 'bad'));
        file('bad/.aplrc.json', JSON.stringify({ rules: { APL2002: 'loud' } }));
        const path = file('bad/q.apl', "['sample-http-logs'] | count\n");
        const r = runApl(['check', path]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`apl check: ${join(dir, 'bad', '.aplrc.json')}: "rules"."APL2002": "loud" is not "off", "info", "warning" or "error"\n`);
    });

    it("['sample-http-logs'] | summarize count() by status with --require-time-filter  →  warning APL2005", () => {
        const path = file('t.apl', "['sample-http-logs'] | summarize count() by status\n\n['sample-http-logs'] | where _time > ago(1h) | count\n");
        expect(codesOf(runApl(['check', '--format', 'json', path]).stdout)).toEqual(['']);
        const r = runApl(['check', '--require-time-filter', path]);
        expect(r.code).toBe(0);
        expect(r.stdout.split('\n')[0]).toBe(`${path}:1:1: warning APL2005 This query reads ['sample-http-logs'] with no filter on _time: outside a time-ranged context it scans the whole retention.`);
        expect(r.stdout).not.toMatch(/:3:1: warning APL2005/);
    });

    it('--fix applies the safe fixes in place and leaves the suggested ones', () => {
        const path = file('fix.apl', [
            "['sample-http-logs']",
            '| where status =~ "500" and isnotnull(uri) and isnotempty(uri)',
            '| sort by req_duration_ms desc',
            '| take 10',
            '',
            "// apl-ignore APL2003",
            "['sample-http-logs'] | where user_agent contains \"Firefox\" | join (['sample-http-logs']) on id",
            '',
        ].join('\n'));
        const r = runApl(['check', '--fix', '--format', 'json', path]);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe(`apl check: ${path}: applied 5 fixes\n`);
        expect(readFileSync(path, 'utf8')).toBe([
            "['sample-http-logs']",
            '| where status == "500" and isnotempty(uri)',
            '| top 10 by req_duration_ms desc',
            '',
            "['sample-http-logs'] | where user_agent contains \"Firefox\" | join kind=innerunique (['sample-http-logs']) on id",
            '',
        ].join('\n'));
        // Left: the suggested fix (contains → has) is the user's call.
        expect(codesOf(r.stdout)).toEqual(['APL2001']);
        expect(runApl(['check', '--fix', '-'], { input: "['sample-http-logs'] | count" }).code).toBe(2);
    });

    it('--explain APL2006 prints the explanation with a bad and a good example', () => {
        const r = runApl(['check', '--explain', 'APL2006']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^APL2006 sort-take-to-top \(information; a safe quick fix/);
        expect(r.stdout).toContain("Instead of:\n  ['sample-http-logs'] | sort by req_duration_ms desc | take 10\nwrite:\n  ['sample-http-logs'] | top 10 by req_duration_ms desc");
        expect(runApl(['check', '--explain', 'apl0012']).stdout).toMatch(/^APL0012 unknown-field \(warning\)/);
        const bad = runApl(['check', '--explain', 'APL9\u001b[31m']);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toBe("apl check: --explain: 'APL9\\033[31m' is not a diagnostic or analyzer code (APL0001…, APL1001…, APL2000…)\n");
    });

    it('SARIF: every analyzer rule with its explanation and examples; a finding refers to its rule', () => {
        const path = file('s.apl', "['sample-http-logs'] | sort by uri | take 3\n");
        const r = runApl(['check', '--format', 'sarif', path]);
        const run = (JSON.parse(r.stdout) as import('sarif').Log).runs[0];
        const rules = run.tool.driver.rules!;
        for (const rule of allAnalyzerRules()) {
            const sarif = rules.find(x => x.id === rule.code)!;
            expect(sarif.help?.text).toContain(rule.bad.split('\n').pop());
            expect(sarif.help?.markdown).toContain(rule.good);
        }
        expect(run.results!.map(x => [x.ruleId, rules[x.ruleIndex!].id, x.level])).toEqual([['APL2006', 'APL2006', 'note']]);
    });
});
