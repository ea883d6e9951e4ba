import { EmptyFileSystem } from 'langium';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../../language/apl-module.js';
import { queryInfo } from '../../../language/lsp/apl-query-info.js';
import { lspServices } from './lsp-services.js';

const services = lspServices();
/** Services that know no dataset (the language server before a connection gives it a schema). */
const noSchema = createAplServices(EmptyFileSystem).Apl;

const only = (text: string, s = services) => {
    const { blocks } = queryInfo(text, s);
    expect(blocks).toHaveLength(1);
    return blocks[0];
};

describe('query blocks', () => {
    it("['a'] | take 1 ⏎⏎ ['b'] ⏎ | where x > 1 ⏎ ⏎ // note", () => {
        const text = "['a'] | take 1\n\n['b']\n| where x > 1\n  \n// note\n";
        const blocks = queryInfo(text, services).blocks;
        expect(blocks.map(b => text.slice(b.startOffset, b.endOffset))).toEqual(["['a'] | take 1", "['b']\n| where x > 1", '// note']);
        expect(blocks.map(b => [b.range.start.line, b.range.start.character, b.range.end.line, b.range.end.character])).toEqual([
            [0, 0, 0, 14],
            [2, 0, 3, 13],
            [5, 0, 5, 7],
        ]);
        expect(blocks.map(b => b.runnable)).toEqual([true, true, false]);
    });

    it("['a'] ⏎ // comment ⏎ | take 1 (a comment line does not split the block)", () => {
        const text = "['a']\n// comment\n| take 1";
        expect(queryInfo(text, services).blocks).toHaveLength(1);
    });

    it('CRLF blank lines split blocks', () => {
        const text = "['a']\r\n\r\n['b']";
        expect(queryInfo(text, services).blocks.map(b => b.range.start.line)).toEqual([0, 2]);
    });

    it('an empty document has no blocks', () => {
        expect(queryInfo('  \n\n', services).blocks).toEqual([]);
    });

    it('let x = 1; in one block does not reach the next', () => {
        const text = "let t = ['sample-http-logs'] | summarize count() by method\n\nt";
        const [, second] = queryInfo(text, services).blocks;
        // `t` alone is a name of a dataset as far as the second block knows.
        expect(second.pageable).toBe(true);
    });
});

describe('pageable results', () => {
    it("['sample-http-logs']", () => {
        expect(only("['sample-http-logs']")).toMatchObject({ runnable: true, syntaxOk: true, pageable: true, order: 'desc' });
    });

    it("['sample-http-logs'] | where status == '500' | extend d = req_duration_ms * 2 | project _time, d", () => {
        expect(only("['sample-http-logs'] | where status == '500' | extend d = req_duration_ms * 2 | project _time, d").pageable).toBe(true);
    });

    it("['sample-http-logs'] | sort by _time asc", () => {
        expect(only("['sample-http-logs'] | sort by _time asc")).toMatchObject({ pageable: true, order: 'asc' });
    });

    it("let n = 3; ['sample-http-logs'] | where status_int > n (lets before the query)", () => {
        expect(only("let n = 3;\n['sample-http-logs'] | where req_duration_ms > n").pageable).toBe(true);
    });

    it("['unknown-dataset'] | where x == 1 (no schema: _time assumed)", () => {
        expect(only("['unknown-dataset'] | where x == 1", noSchema).pageable).toBe(true);
    });

    it('union sample-http-logs, otel-demo-traces', () => {
        expect(only("union ['sample-http-logs'], ['otel-demo-traces']").pageable).toBe(true);
    });
});

describe('results that run once', () => {
    const cases: [string, RegExp][] = [
        ["['sample-http-logs'] | summarize count() by method", /aggregates/],
        ["['sample-http-logs'] | count", /aggregates/],
        ["['sample-http-logs'] | distinct method", /aggregates/],
        ["['sample-http-logs'] | top 5 by req_duration_ms", /aggregates/],
        ["['sample-http-logs'] | take 10", /fixed number/],
        ["['sample-http-logs'] | limit 10", /fixed number/],
        ["['sample-http-logs'] | project method, status", /no _time/],
        ["['sample-http-logs'] | project-away _time", /no _time/],
        ["['sample-http-logs'] | sort by req_duration_ms desc", /other than _time/],
        ["['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on $left.id == $right.trace_id", /one by one/],
        ["print x = 1", /not a dataset/],
        ["let t = ['sample-http-logs'] | summarize count() by method;\nt", /not a dataset/],
        ["['sample-http-logs'] | where", /syntax errors/],
    ];
    for (const [text, reason] of cases) {
        it(text, () => {
            const block = only(text);
            expect(block.pageable).toBe(false);
            expect(block.notPageableReason).toMatch(reason);
        });
    }
});

describe('time series', () => {
    it("['sample-http-logs'] | summarize count() by bin(_time, 1h)", () => {
        expect(only("['sample-http-logs'] | summarize count() by bin(_time, 1h)").timeColumn).toBe('_time');
    });

    it("['sample-http-logs'] | summarize avg(req_duration_ms) by t = bin_auto(_time), method | sort by t", () => {
        expect(only("['sample-http-logs'] | summarize avg(req_duration_ms) by t = bin_auto(_time), method | sort by t").timeColumn).toBe('t');
    });

    it("['sample-http-logs'] | summarize count() by method (no time column)", () => {
        expect(only("['sample-http-logs'] | summarize count() by method").timeColumn).toBeUndefined();
    });

    it("['sample-http-logs'] | summarize count() by bin(req_duration_ms, 10) (not _time)", () => {
        expect(only("['sample-http-logs'] | summarize count() by bin(req_duration_ms, 10)").timeColumn).toBeUndefined();
    });
});

describe('the datasets a block reads', () => {
    it("['sample-http-logs'] | where status == '500'", () => {
        expect(only("['sample-http-logs'] | where status == '500'").datasets).toEqual(['sample-http-logs']);
    });

    it("union ['a'], b, (['a'] | take 1), github* | count", () => {
        expect(only("union ['a'], b, (['a'] | take 1), github* | count").datasets).toEqual(['a', 'b']);
    });

    it('let t = 1; print t (no dataset); let T = [\'a\']; T | count (a let is not a dataset)', () => {
        expect(only('print x = 1').datasets).toEqual([]);
        expect(only("let T = ['a'];\nT | count").datasets).toEqual([]);
    });
});
