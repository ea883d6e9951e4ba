import { EmptyFileSystem } from 'langium';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../language/apl-module.js';
import { IssueCodes } from '../../language/apl-issue-codes.js';
import { checkText, documentQueryBlocks } from '../../language/check.js';
import { parse } from '../../language/apl-parse.js';
import type { AplFormatter } from '../../language/lsp/apl-formatter.js';
import { queryBlockSpans } from '../../language/query-blocks.js';
import { BuiltinSchemaProvider } from '../../language/schema/builtin-schema-provider.js';

const schema = new BuiltinSchemaProvider();
const services = createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => schema } } }).Apl;
const codes = async (text: string) => (await checkText(text, { schema })).map(d => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`);
const blockTexts = (text: string) => queryBlockSpans(text, services).map(s => text.slice(s.start, s.end));

const THREE_BLOCKS = [
    "['sample-http-logs']",
    '| where status == "500"',
    '',
    "['sample-http-logs']",
    '| summarize count() by bin(_time, 1h)',
    '',
    "['sample-http-logs']",
    '| where _time > ago(1h)',
    '| take 10',
    '',
].join('\n');

describe('a blank line separates query blocks (Kusto\'s convention)', () => {
    it(THREE_BLOCKS, async () => {
        expect(await codes(THREE_BLOCKS)).toEqual([]);
        expect(blockTexts(THREE_BLOCKS)).toEqual([
            "['sample-http-logs']\n| where status == \"500\"",
            "['sample-http-logs']\n| summarize count() by bin(_time, 1h)",
            "['sample-http-logs']\n| where _time > ago(1h)\n| take 10",
        ]);
    });

    it("['sample-http-logs'] | take 1\\n\\n['sample-http-logs'] | where stauts == 1  →  APL0012 at the file position 3:36", async () => {
        expect(await codes("['sample-http-logs'] | take 1\n\n['sample-http-logs'] | where stauts == 1")).toEqual([`3:30 ${IssueCodes.UnknownField}`]);
    });

    it("let t = ['sample-http-logs'];\\nt | count\\n\\nt | count  →  the let does not reach the second block", async () => {
        expect(await codes("let t = ['sample-http-logs'];\nt | count\n\nt | count")).toEqual([`4:1 ${IssueCodes.UnknownDataset}`]);
    });

    it("let n = 5;\\n['sample-http-logs'] | take n  →  ';' still separates statements inside a block", async () => {
        expect(await codes("let n = 5;\n['sample-http-logs'] | take n")).toEqual([]);
    });

    it("['sample-http-logs'] | where\\n\\n['sample-http-logs'] | where stauts == 1  →  a syntax error does not hide the next block's problems", async () => {
        expect(await codes("['sample-http-logs'] | where\n\n['sample-http-logs'] | where stauts == 1")).toEqual([
            `1:29 ${IssueCodes.SyntaxError}`,
            `3:30 ${IssueCodes.UnknownField}`,
        ]);
    });

    it("['sample-http-logs'] | take 1\\n['sample-http-logs'] | count  →  consecutive lines are one query: APL0014 names the rule", async () => {
        const diagnostics = await checkText("['sample-http-logs'] | take 1\n['sample-http-logs'] | count", { schema });
        expect(diagnostics.map(d => d.code)).toEqual([IssueCodes.NotIndexable]);
        expect(diagnostics[0].message).toContain('a blank line separates queries');
    });

    it("['sample-http-logs']\\n| where status == 500\\n\\n['sample-http-logs'] | count  →  one query per text (the service) keeps reading it as one", async () => {
        const text = "['sample-http-logs']\n| where status == 500\n\n['sample-http-logs'] | count";
        const oneQuery = await checkText(text, { schema, queryBlocks: false });
        expect(oneQuery.map(d => d.code)).toContain(IssueCodes.NotIndexable);
        expect(oneQuery.find(d => d.code === IssueCodes.NotIndexable)?.message).toContain('a request holds one query');
        expect(parse(text).model.statements).toHaveLength(1);
    });

    it("print a = 1\\n// a comment-only line\\n| take 1  →  a comment line is not blank: one block", () => {
        expect(blockTexts('print a = 1\n// a comment-only line\n| take 1')).toHaveLength(1);
    });

    it('print a = 1\\n  \\t\\nprint b = 2  →  a line of spaces and tabs is blank: two blocks', () => {
        expect(blockTexts('print a = 1\n  \t\r\nprint b = 2')).toEqual(['print a = 1', 'print b = 2']);
    });

    it("['sample-http-logs'] | where (status == \"500\"\\n\\nor status == \"404\")  →  a blank line inside parentheses still ends the block: a syntax error", async () => {
        const text = "['sample-http-logs'] | where (status == \"500\"\n\nor status == \"404\")";
        expect(blockTexts(text)).toHaveLength(2);
        expect((await checkText(text, { schema })).map(d => d.code)).toContain(IssueCodes.SyntaxError);
    });
});

describe('documentQueryBlocks (what apl run --file runs)', () => {
    it("a\\n| where b\\n\\n  c | take 1\\n// x\\n\\n\\nd  →  three blocks, each from the start of its first line", () => {
        expect(documentQueryBlocks('a\n| where b\n\n  c | take 1\n// x\n\n\nd\n')).toEqual([
            { text: 'a\n| where b', startLine: 0, endLine: 1 },
            { text: '  c | take 1\n// x', startLine: 3, endLine: 4 },
            { text: 'd', startLine: 7, endLine: 7 },
        ]);
    });
});

describe('formatting keeps the blocks', () => {
    const formatter = services.lsp.Formatter as AplFormatter;

    it("['sample-http-logs'] | where status == \"500\" | take 1\\n\\n\\n['sample-http-logs'] | count\\n", () => {
        const text = "['sample-http-logs'] | where status == \"500\" | take 1\n\n\n['sample-http-logs'] | count\n";
        const formatted = formatter.formatText(text);
        expect(formatted).toBe("['sample-http-logs']\n| where status == \"500\"\n| take 1\n\n['sample-http-logs']\n| count\n");
        expect(formatter.formatText(formatted)).toBe(formatted);
    });

    it("['sample-http-logs'] | where\\n\\n['sample-http-logs'] | take  1  →  the broken block stays, the other is formatted", () => {
        expect(formatter.formatText("['sample-http-logs'] | where\n\n['sample-http-logs'] | take  1")).toBe("['sample-http-logs'] | where\n\n['sample-http-logs']\n| take 1");
    });
});

describe('render, pasted from KQL', () => {
    it("['sample-http-logs'] | summarize count() by bin(_time, 1h) | render timechart  →  APL0017 only: the rest checks cleanly", async () => {
        expect(await codes("['sample-http-logs'] | summarize count() by bin(_time, 1h) | render timechart")).toEqual([`1:62 ${IssueCodes.NoRender}`]);
    });

    it("['sample-http-logs'] | render columnchart with (kind=stacked, ycolumns=a, b) | where stauts == 1  →  APL0017, and the stage after it still checks", async () => {
        expect(await codes("['sample-http-logs'] | render columnchart with (kind=stacked, ycolumns=a, b) | where stauts == 1")).toEqual([
            `1:24 ${IssueCodes.NoRender}`,
            `1:86 ${IssueCodes.UnknownField}`,
        ]);
    });

    it("datatable(render: long) [1] | where render > 0  →  'render' still names a column", async () => {
        expect(await codes('datatable(render: long) [1] | where render > 0')).toEqual([]);
    });
});
