/**
 * Hostile input for `apl check` and `apl run` (the BUILT bin, real processes): nesting, size,
 * catastrophic regexes, exploding intermediate results and externaldata of devices and big files.
 * Each answers with its documented exit code and a located message, never "internal error" (70);
 * a valid query still answers afterwards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runApl, type CliResult, scratchDir } from '../support/cli.js';

const { file } = scratchDir('apl-hostile-cli-');
const nest = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);
const QUERY = "['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)\n";

function expectNoCrash(r: CliResult): void {
    expect(r.stderr).not.toMatch(/internal error|RangeError|FATAL|heap/);
    expect(r.code === 0 || r.code === 1).toBe(true);
}

/** A valid query still answers (a fresh process: the CLI has no state to corrupt, but the build must be whole). */
function stillAnswers(): void {
    const r = runApl(['run', '--format', 'json', "print x = 1 + 1"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ x: 2 }]);
}


describe('apl check under hostile input', () => {
    const CASES: [string, () => string, string][] = [
        ['print ((((…1…)))) × 50', () => `print ${nest('(', '1', ')', 50)}\n`, 'APL1002'],
        ['print ((((…1…)))) × 10000', () => `print ${nest('(', '1', ')', 10_000)}\n`, 'APL1002'],
        ['print dynamic({"a":{"a":…}}) × 10000', () => `print dynamic(${nest('{"a":', '1', '}', 10_000)})\n`, 'APL1002'],
        ['print 1 + 1 + … × 50000', () => `print ${Array(50_000).fill('1').join(' + ')}\n`, 'APL1002'],
        ['a 10 MB file', () => QUERY.repeat(Math.ceil((10 * 1024 * 1024) / QUERY.length)), 'APL1003'],
        ['a 400 KB file (syntax only)', () => QUERY.repeat(Math.ceil((400 * 1024) / QUERY.length)), 'APL1004'],
    ];
    for (const [name, text, code] of CASES) {
        it(`${name}: ${code}`, () => {
            const path = file('q.apl', text());
            const r = runApl(['check', '--format', 'json', path]);
            expectNoCrash(r);
            const [report] = JSON.parse(r.stdout) as { diagnostics: { code: string }[] }[];
            expect(report.diagnostics.map(d => d.code)).toContain(code);
            stillAnswers();
        }, 120_000);
    }
});

describe('apl run under hostile input', () => {
    let long: string;
    let wide: string;
    let few: string;
    let csv: string;
    let big: string;
    beforeAll(() => {
        long = file('long.ndjson', JSON.stringify({ a: 'a'.repeat(5000) + 'b' }) + '\n' + JSON.stringify({ a: 'a'.repeat(36) }) + '\n');
        wide = file('wide.ndjson', Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ k: 1, i })).join('\n') + '\n');
        few = file('few.ndjson', Array.from({ length: 200 }, (_, i) => JSON.stringify({ i })).join('\n') + '\n');
        csv = file('people.csv', 'name,n\nx,1\ny,2\n');
        big = file('big.csv', Buffer.alloc(6 * 1024 * 1024, 'a,1\n'));
    });

    const CASES: [string, () => string[], RegExp][] = [
        ['print ((((…1…)))) × 50', () => [`print ${nest('(', '1', ')', 50)}`], /:1:\d+: error: syntax error: the query is nested too deeply/],
        ["print x = strrep(strrep(strrep('abcdefgh', 1024), 1024), 1024)", () => ["print x = strrep(strrep(strrep('abcdefgh', 1024), 1024), 1024)"], /:1:11: error: strrep: .*more than 16,777,216/],
        ["['w'] | join kind=inner (['w']) on k (50k × 50k)", () => ['--data', `w=${wide}`, "['w'] | join kind=inner (['w']) on k | count"], /:1:9: error: join would produce more than 10,000,000 rows/],
        ["['f'] | extend r = range(1, 1048576) | mv-expand r (200 rows)", () => ['--data', `f=${few}`, "['f'] | extend r = range(1, 1048576) | mv-expand r | count"], /error: mv-expand would produce more than 10,000,000 rows/],
        ["externaldata (a:string) ['/dev/zero']", () => ["externaldata (a:string) ['/dev/zero']"], /:1:25: error: externaldata: '\/dev\/zero' is not a regular file/],
        ["externaldata (a:string) [a 6 MB file]", () => [`externaldata (a:string) ['${big}']`], /is larger than 5,242,880 bytes/],
        ["externaldata (a:string) ['https://example.com/x.csv']", () => ["externaldata (a:string) ['https://example.com/x.csv']"], /reads local files only/],
    ];
    for (const [name, args, message] of CASES) {
        it(`${name}: exit 1 with a located message`, () => {
            const r = runApl(['run', ...args()]);
            expectNoCrash(r);
            expect(r.code).toBe(1);
            expect(r.stderr).toMatch(message);
            stillAnswers();
        }, 120_000);
    }

    it("['l'] | where a matches regex '(a+)+$' answers (linear-time regexes)", () => {
        const r = runApl(['run', '--data', `l=${long}`, '--format', 'json', "['l'] | where a matches regex '(a+)+$' | count"]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual([{ count: 1 }]);
    }, 60_000);

    it("externaldata (name:string, n:long) [a local csv file] is read through apl run's file reader", () => {
        const r = runApl(['run', '--format', 'json', `externaldata (name:string, n:long) ['${csv}'] with (format='csv', ignoreFirstRecord=true) | where n > 1`]);
        expect(r.stderr).toBe('');
        expect(JSON.parse(r.stdout)).toEqual([{ name: 'y', n: 2 }]);
    }, 60_000);
});
