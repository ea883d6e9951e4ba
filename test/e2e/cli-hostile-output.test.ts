/**
 * Output that would attack the user, from the BUILT bin (real processes): CSV injection (OWASP:
 * `apl run` / `apl query --format csv` write text that a spreadsheet would run as a formula with a
 * leading `'`, numbers as they are, and the data exactly with --csv-exact), and bidi overrides in
 * tables (shown as `\u202E`, never raw).
 */
import { describe, expect, it } from 'vitest';
import { runApl } from '../support/cli.js';

const QUERY = `print ['=cmd'] = '=HYPERLINK("http://evil/?x")', at = '@SUM(A1)', minus = '-2+3', n = -5, s = '-5'`;

describe('apl run --format csv and formulas', () => {
    it(QUERY, () => {
        const r = runApl(['run', '--format', 'csv', QUERY]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`'=cmd,at,minus,n,s\n"'=HYPERLINK(""http://evil/?x"")",'@SUM(A1),'-2+3,-5,-5\n`);
    });

    it(`${QUERY} (--csv-exact)`, () => {
        const r = runApl(['run', '--format', 'csv', '--csv-exact', QUERY]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`=cmd,at,minus,n,s\n"=HYPERLINK(""http://evil/?x"")",@SUM(A1),-2+3,-5,-5\n`);
    });

    it('--csv-exact goes with --format csv only', () => {
        const r = runApl(['run', '--format', 'json', '--csv-exact', 'print x = 1']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/--csv-exact/);
    });
});

const BIDI = "print ['name\\u202E'] = 'invoice\\u202Egnp.exe', z = 'a\\u200Bb\\u2066c'";

describe('apl run tables and bidi overrides', () => {
    it(BIDI, () => {
        const r = runApl(['run', '--width', '120', BIDI]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('invoice\\u202Egnp.exe');
        expect(r.stdout).toContain('name\\u202E');
        expect(r.stdout).toContain('a\\u200Bb\\u2066c');
        expect(r.stdout).not.toMatch(/[\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/);
    });
});
