/** `apl fmt` as a real process (the BUILT out/apl.cjs): the language server's formatter from the shell. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runApl, scratchDir } from '../support/cli.js';

const { dir, file } = scratchDir('apl-fmt-');

const MESSY = "['sample-http-logs'] | where status=='500'|summarize count() by method\n";
const TIDY = "['sample-http-logs']\n| where status == '500'\n| summarize count() by method\n";


describe('apl fmt', () => {
    it("['sample-http-logs'] | where status=='500'|summarize count() by method  →  rewritten in place, one operator per line", () => {
        const messy = file('messy.apl', MESSY);
        const tidy = file('tidy.apl', TIDY);
        const r = runApl(['fmt', messy, tidy]);
        expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
        expect(readFileSync(messy, 'utf8')).toBe(TIDY);
        expect(readFileSync(tidy, 'utf8')).toBe(TIDY);
    });

    it('--check lists the files that would change, changes nothing and exits 1', () => {
        const messy = file('check-messy.apl', MESSY);
        const tidy = file('check-tidy.apl', TIDY);
        const r = runApl(['fmt', '--check', messy, tidy]);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe(`${messy}\n`);
        expect(readFileSync(messy, 'utf8')).toBe(MESSY);
        expect(runApl(['fmt', '--check', tidy])).toMatchObject({ code: 0, stdout: '' });
    });

    it('- formats standard input to standard output', () => {
        const r = runApl(['fmt', '-'], { input: MESSY });
        expect(r).toMatchObject({ code: 0, stdout: TIDY, stderr: '' });
        expect(runApl(['fmt', '--check', '-'], { input: MESSY })).toMatchObject({ code: 1, stdout: '<stdin>\n' });
    });

    it("T | where (x==  →  a syntax error is reported with its position, the file left alone, exit 1", () => {
        const bad = file('bad.apl', 'T | where (x==\n');
        const r = runApl(['fmt', bad]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`${bad}:1:15: error APL1001`);
        expect(r.stderr).toContain('not formatted (syntax error)');
        expect(readFileSync(bad, 'utf8')).toBe('T | where (x==\n');
    });

    it('a missing file is an I/O error (exit 2)', () => {
        const r = runApl(['fmt', join(dir, 'nope.apl')]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('no such file');
    });
});

describe('apl fmt formats each query block', () => {
    it("['sample-http-logs'] | where status=='500'|count\n\n\n['sample-http-logs'] | take  1  →  each block formatted, one blank line kept, idempotent", () => {
        const path = file('blocks.apl', "['sample-http-logs'] | where status=='500'|count\n\n\n['sample-http-logs'] | take  1\n");
        expect(runApl(['fmt', path]).code).toBe(0);
        const formatted = "['sample-http-logs']\n| where status == '500'\n| count\n\n['sample-http-logs']\n| take 1\n";
        expect(readFileSync(path, 'utf8')).toBe(formatted);
        expect(runApl(['fmt', '--check', path])).toMatchObject({ code: 0, stdout: '' });
    });

    it("['sample-http-logs'] | where (\n\n['sample-http-logs'] | take  1  →  the broken block is left alone, the other formatted, exit 1", () => {
        const path = file('half.apl', "['sample-http-logs'] | where (\n\n['sample-http-logs'] | take  1\n");
        const r = runApl(['fmt', path]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('not formatted (syntax error)');
        expect(readFileSync(path, 'utf8')).toBe("['sample-http-logs'] | where (\n\n['sample-http-logs']\n| take 1\n");
    });

    it('fmt --check DIR  →  lists the .apl files under it that would change', () => {
        const root = join(dir, 'tree');
        mkdirSync(join(root, 'sub'), { recursive: true });
        mkdirSync(join(root, 'node_modules'), { recursive: true });
        writeFileSync(join(root, 'tidy.apl'), TIDY);
        writeFileSync(join(root, 'sub', 'messy.apl'), MESSY);
        writeFileSync(join(root, 'node_modules', 'messy.apl'), MESSY);
        expect(runApl(['fmt', '--check', root])).toMatchObject({ code: 1, stdout: `${join(root, 'sub', 'messy.apl')}\n` });
    });
});

describe('apl fmt layout options (.aplrc.json and flags)', () => {
    const TRAILING = "['sample-http-logs'] |\nwhere status == '500' |\nsummarize count() by method\n";

    it(`{"format": {"pipe": "end"}} in a folder above: ${MESSY.trim()}  →  pipes at the line ends`, () => {
        const project = join(dir, 'project-end');
        mkdirSync(join(project, 'queries'), { recursive: true });
        writeFileSync(join(project, '.aplrc.json'), '{"format": {"pipe": "end"}}');
        const path = join(project, 'queries', 'q.apl');
        writeFileSync(path, MESSY);
        expect(runApl(['fmt', path])).toMatchObject({ code: 0, stderr: '' });
        expect(readFileSync(path, 'utf8')).toBe(TRAILING);
        // Flags win over the file, and --no-config ignores it.
        expect(runApl(['fmt', '--pipe', 'start', '-'], { input: MESSY, cwd: project })).toMatchObject({ code: 0, stdout: TIDY });
        expect(runApl(['fmt', '--no-config', '-'], { input: MESSY, cwd: project })).toMatchObject({ code: 0, stdout: TIDY });
        expect(runApl(['fmt', '-'], { input: MESSY, cwd: project })).toMatchObject({ code: 0, stdout: TRAILING });
    });

    it(`--pipeline fit --width 80 --named-argument-spaces: ${MESSY.trim()}  →  one line`, () => {
        const r = runApl(['fmt', '--no-config', '--pipeline', 'fit', '--width', '80', '-'], { input: MESSY });
        expect(r).toMatchObject({ code: 0, stdout: "['sample-http-logs'] | where status == '500' | summarize count() by method\n" });
        const join = runApl(['fmt', '--no-config', '--named-argument-spaces', '-'], { input: "T | join kind=inner (U) on a\n" });
        expect(join).toMatchObject({ code: 0, stdout: 'T\n| join kind = inner (U) on a\n' });
    });

    it('--pipe middle  →  a usage error naming the flag and the values it takes (exit 2)', () => {
        const r = runApl(['fmt', '--pipe', 'middle', '-'], { input: MESSY });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--pipe: got "middle", expected "start" or "end"');
    });

    it('a .aplrc.json that is not JSON, or has a bad format field  →  an error naming the file (exit 2)', () => {
        const broken = join(dir, 'project-broken');
        mkdirSync(broken, { recursive: true });
        writeFileSync(join(broken, '.aplrc.json'), '{"format": {"pipe": "end",}}');
        const path = join(broken, 'q.apl');
        writeFileSync(path, MESSY);
        const r = runApl(['fmt', path]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`${join(broken, '.aplrc.json')}: not valid JSON at line 1, column 27`);
        expect(readFileSync(path, 'utf8')).toBe(MESSY);
        writeFileSync(join(broken, '.aplrc.json'), '{"format": {"width": "wide"}}');
        const bad = runApl(['fmt', path]);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain(`${join(broken, '.aplrc.json')}: format.width: got "wide", expected an integer from 20 to 1000`);
    });
});
