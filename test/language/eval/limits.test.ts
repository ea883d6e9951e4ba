/**
 * The bounds of intermediate results (EngineOptions.limits): an operator that would multiply rows or
 * cells past them fails that query with an AplQueryError of kind `limit`, naming the operator and its
 * position; the engine answers the next query normally. Small limits keep these tests fast; the
 * service's hostile-input table runs the cases at the default limits.
 */
import { describe, expect, it } from 'vitest';
import { AplQueryError, createEngine, type Engine } from '../../../language/index.js';

function engine(): Engine {
    const e = createEngine({ limits: { maxRows: 10_000, maxCells: 100_000 } });
    e.ingest('a', Array.from({ length: 200 }, (_, i) => ({ k: 1, i })));
    e.ingest('b', Array.from({ length: 5_000 }, (_, i) => ({ k: i % 7, i })));
    return e;
}

async function limitError(e: Engine, apl: string): Promise<AplQueryError> {
    const err = await e.query(apl).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(AplQueryError);
    return err as AplQueryError;
}

const CASES: [string, RegExp, number][] = [
    ["['a'] | join kind=inner (['a']) on k", /^join would produce more than 10,000 rows/, 9],
    ["['a'] | join kind=fullouter (['b']) on k", /^join would produce more than/, 9],
    ["['a'] | extend r = range(1, 1000) | mv-expand r", /^mv-expand would produce more than 10,000 rows/, 37],
    ["union ['b'], ['b'], ['b']", /^union would produce more than 10,000 rows/, 1],
    ["['b'] | make-series c = count() on i from 0 to 1000 step 1 by i", /^make-series would produce more than 100,000 cells \(5,000 rows × 2000 columns/, 9],
];

describe('intermediate result limits', () => {
    for (const [apl, message, column] of CASES) {
        it(`${apl}: a limit error at the operator, then the engine still answers`, async () => {
            const e = engine();
            const err = await limitError(e, apl);
            expect(err.kind).toBe('limit');
            expect(err.detail).toMatch(message);
            expect([err.line, err.column]).toEqual([1, column]);
            expect((await e.query("['a'] | count")).tables[0].columns[0]).toEqual([200]);
        });
    }

    it("['a'] | join kind=inner (['a'] | take 10) on k: within the limits it runs", async () => {
        const r = await engine().query("['a'] | join kind=inner (['a'] | take 10) on k | count");
        expect(r.tables[0].columns[0]).toEqual([2000]);
    });

    it('print s = strrep(strrep(strrep("abcdefgh", 1024), 1024), 1024): the string a function builds is bounded', async () => {
        const err = await limitError(createEngine(), "print s = strrep(strrep(strrep('abcdefgh', 1024), 1024), 1024)");
        expect(err.detail).toMatch(/more than 16,777,216/);
        expect([err.line, err.column]).toEqual([1, 11]);
    });

    it('print a = array_concat(range(1, 1048576), range(1, 1048576)): the array a function builds is bounded', async () => {
        const err = await limitError(createEngine(), 'print a = array_concat(range(1, 1048576), range(1, 1048576))');
        expect(err.detail).toMatch(/more than 1,048,576/);
    });

    it('print s = strcat_array(range(1, 1048576), strrep("x", 1000)): so is a joined string', async () => {
        const err = await limitError(createEngine(), "print s = strcat_array(range(1, 1048576), strrep('x', 1000))");
        expect(err.detail).toMatch(/more than 16,777,216/);
    });
});

describe('regular expressions run in linear time', () => {
    // With JavaScript's backtracking engine the first case took 11 s at 30 characters and doubles
    // with each one more: at 5,000 these tests would never finish.
    const e = createEngine();
    e.ingest('r', [{ a: 'a'.repeat(5000) + 'b' }, { a: 'a'.repeat(5000) }]);
    const count = async (apl: string) => (await e.query(apl)).tables[0].columns[0][0];

    it("['r'] | where a matches regex '(a+)+$'", async () => {
        expect(await count("['r'] | where a matches regex '(a+)+$' | count")).toBe(1);
    });
    it("['r'] | where a matches regex '^(a|a)*$' (the legacy regexp filter's case)", async () => {
        expect(await count("['r'] | where a matches regex '^(a|a)*$' | count")).toBe(1);
    });
    it("['r'] | extend x = extract('(a*)*b', 0, a) | where isnotempty(x)", async () => {
        expect(await count("['r'] | extend x = extract('(a*)*b', 0, a) | where isnotempty(x) | count")).toBe(1);
    });
    it("['r'] | where a like '%a%a%a%a%a%a%a%c'", async () => {
        expect(await count("['r'] | where a like '%a%a%a%a%a%a%a%c' | count")).toBe(0);
    });
    it("['r'] | parse kind=regex a with '(a+)+' x:string 'c' | where isnotempty(x)", async () => {
        expect(await count("['r'] | parse kind=regex a with '(a+)+' x:string 'c' | where isnotempty(x) | count")).toBe(0);
    });
    it("['r'] | extend p = find_pair(pack_array(strcat(a, ':v')), '*a*a*a*a*a*a*a*c', '*') | where isnotnull(p)", async () => {
        expect(await count("['r'] | extend p = find_pair(pack_array(strcat(a, ':v')), '*a*a*a*a*a*a*a*c', '*') | where isnotnull(p) | count")).toBe(0);
        expect(await count("['r'] | extend p = find_pair(pack_array(strcat(a, ':v')), '*a*a*a*a*a*a*a*b', 'v') | where isnotnull(p) | count")).toBe(1);
    });
    it("['w'] | project-away ['a*a*a*a*a*a*a*c']* (a column-name wildcard meets a long name)", async () => {
        const w = createEngine();
        w.ingest('w', [{ ['a'.repeat(500)]: 1, keep: 2 }]);
        const r = await w.query("['w'] | project-away ['a*a*a*a*a*a*a*c']*");
        expect(r.tables[0].fields.map((f) => f.name)).toEqual(expect.arrayContaining(['a'.repeat(500), 'keep']));
        const gone = await w.query("['w'] | project-away ['a*a*a*a*a*a*a*a']*");
        expect(gone.tables[0].fields.map((f) => f.name)).not.toContain('a'.repeat(500));
    });
    it("print n = countof_regex('(a', 'x'): an invalid pattern is an error at the call", async () => {
        const err = await e.query("print n = countof_regex('(a', 'x')").catch((x: unknown) => x);
        expect(err).toBeInstanceOf(AplQueryError);
        expect((err as AplQueryError).detail).toMatch(/invalid regular expression '\(a': missing closing \)/);
        expect([(err as AplQueryError).line, (err as AplQueryError).column]).toEqual([1, 11]);
    });
});
