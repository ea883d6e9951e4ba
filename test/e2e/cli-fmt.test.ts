/** `apl fmt` as a real process (the BUILT out/apl.cjs): the language server's formatter from the shell. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runApl } from '../support/cli.js';

let dir: string;
const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
};

const MESSY = "['sample-http-logs'] | where status=='500'|summarize count() by method\n";
const TIDY = "['sample-http-logs']\n| where status == '500'\n| summarize count() by method\n";

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apl-fmt-'));
});

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
