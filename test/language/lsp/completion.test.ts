import { expectCompletion } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { CompletionItem, CompletionList, TextEdit } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';

const services = lspServices();
const complete = expectCompletion(services);

function sorted(list: CompletionList): CompletionItem[] {
    return [...list.items].sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
}
const labels = (list: CompletionList) => sorted(list).map(i => i.label);
const insert = (item: CompletionItem | undefined) => (item?.textEdit as TextEdit | undefined)?.newText;

/** Completion items at the `<|>` marker. */
async function at(text: string): Promise<CompletionList> {
    let result: CompletionList = { isIncomplete: false, items: [] };
    await complete({ text, index: 0, assert: list => { result = list; }, disposeAfterCheck: true });
    return result;
}

describe('completion in the bracket form', () => {
    const edit = (list: CompletionList, label: string) => list.items.find(i => i.label === label)?.textEdit as TextEdit | undefined;

    it("['sam<|>']", async () => {
        // VS Code closes the quote and the bracket: the edit replaces only the text inside the quotes.
        const list = await at("['sam<|>']");
        expect(labels(list)).toContain('sample-http-logs');
        expect(edit(list, 'sample-http-logs')).toEqual({ range: { start: { line: 0, character: 2 }, end: { line: 0, character: 5 } }, newText: 'sample-http-logs' });
        expect(list.items.find(i => i.label === 'sample-http-logs')?.filterText).toBe('sample-http-logs');
    });

    it("['<|>']", async () => {
        const list = await at("['<|>']");
        expect(labels(list)).toEqual(expect.arrayContaining(['sample-http-logs', 'otel-demo-traces']));
        expect(edit(list, 'otel-demo-traces')).toEqual({ range: { start: { line: 0, character: 2 }, end: { line: 0, character: 2 } }, newText: 'otel-demo-traces' });
    });

    it("['sam<|>", async () => {
        expect(edit(await at("['sam<|>"), 'sample-http-logs')?.newText).toBe("sample-http-logs']");
    });

    it('[<|>]', async () => {
        const list = await at('[<|>]');
        expect(labels(list)).toEqual(expect.arrayContaining(['sample-http-logs', 'otel-demo-traces']));
        expect(labels(list)).not.toContain('where');
        expect(edit(list, 'sample-http-logs')).toEqual({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } }, newText: "['sample-http-logs']" });
    });

    it("['sample-http-logs'] | where ['sta<|>']", async () => {
        const list = await at("['sample-http-logs'] | where ['sta<|>']");
        expect(labels(list)).toContain('status');
        expect(labels(list)).not.toContain('sample-http-logs');
        const start = "['sample-http-logs'] | where ['".length;
        expect(edit(list, 'status')).toEqual({ range: { start: { line: 0, character: start }, end: { line: 0, character: start + 3 } }, newText: 'status' });
    });

    it("['sample-http-logs'] | where [<|>]", async () => {
        const list = await at("['sample-http-logs'] | where [<|>]");
        const start = "['sample-http-logs'] | where ".length;
        expect(edit(list, 'geo.city')).toEqual({ range: { start: { line: 0, character: start }, end: { line: 0, character: start + 2 } }, newText: "['geo.city']" });
    });

    it("datatable(['it\\'s']: string) ['x'] | where ['it<|>']  →  a quote in the name is escaped", async () => {
        const list = await at("datatable(['it\\'s']: string) ['x'] | where ['it<|>']");
        expect(edit(list, "it's")?.newText).toBe("it\\'s");
    });
});

describe('completion per query block', () => {
    it("let errors = ['sample-http-logs'] | where status == '500';\nerrors | count\n\n<|>", async () => {
        // A blank line ends the block: the next query starts fresh, and the let is not visible there.
        const l = labels(await at("let errors = ['sample-http-logs'] | where status == '500';\nerrors | count\n\n<|>"));
        expect(l).toContain('sample-http-logs');
        expect(l).not.toContain('errors');
    });

    it("let errors = ['sample-http-logs'] | where status == '500';\n<|>", async () => {
        expect(labels(await at("let errors = ['sample-http-logs'] | where status == '500';\n<|>"))).toContain('errors');
    });

    it("['sample-http-logs'] | take 1\n\n['otel-demo-traces'] | where <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | take 1\n\n['otel-demo-traces'] | where <|>"));
        expect(l).toContain('duration');
        expect(l).not.toContain('status');
    });
});

describe('completion', () => {
    it('<|>', async () => {
        const list = await at('<|>');
        const ds = list.items.find(i => i.label === 'sample-http-logs');
        expect(insert(ds)).toBe("['sample-http-logs']");
        expect(labels(list)).toEqual(expect.arrayContaining(['otel-demo-traces', 'let', 'print', 'datatable']));
        expect(labels(list)).not.toContain('!contains_cs');
        expect(labels(list)).not.toContain('where');
    });

    it("['sample-http-logs'] | <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | <|>"));
        expect(l).toEqual(expect.arrayContaining(['where', 'summarize', 'extend', 'project', 'project-away', 'mv-expand', 'make-series', 'join', 'take', 'top']));
        expect(l).not.toContain('status');
        expect(l).not.toContain('let');
    });

    it("['sample-http-logs'] | where <|>", async () => {
        const list = await at("['sample-http-logs'] | where <|>");
        const l = labels(list);
        expect(l.slice(0, 3)).toEqual(['_time', 'content_type', 'geo.city']);
        expect(l[l.length - 1]).toBe('_sysTime');
        expect(insert(list.items.find(i => i.label === 'geo.city'))).toBe("['geo.city']");
        expect(insert(list.items.find(i => i.label === 'status'))).toBe('status');
        expect(l).toEqual(expect.arrayContaining(['strlen', 'isnotempty', 'true']));
        // no keyword noise at the start of an expression
        for (const noise of ['!contains_cs', 'contains', 'and', 'by', 'let', 'where', 'null', 'withsource']) expect(l).not.toContain(noise);
        // aggregations are not offered outside summarize
        expect(l).not.toContain('dcount');
    });

    it("['sample-http-logs'] | where status <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | where status <|>"));
        expect(l).toEqual(expect.arrayContaining(['and', 'or', 'contains', 'has', 'in', 'between', '!contains_cs']));
        expect(l).not.toContain('status');
        expect(l).not.toContain('strlen');
    });

    it("['sample-http-logs'] | summarize <|>", async () => {
        const list = await at("['sample-http-logs'] | summarize <|>");
        const count = list.items.find(i => i.label === 'count');
        const avg = list.items.find(i => i.label === 'avg');
        expect(insert(count)).toBe('count()');
        expect(insert(avg)).toMatch(/^avg\(\$\{1:[a-z_]+\}\)$/);
        expect(avg?.insertTextFormat).toBe(2);
        // aggregations come before scalar functions
        const l = labels(list);
        expect(l.indexOf('dcount')).toBeLessThan(l.indexOf('strlen'));
        expect(l).not.toContain('status');
    });

    it("['sample-http-logs'] | summarize count() <|>", async () => {
        expect(labels(await at("['sample-http-logs'] | summarize count() <|>"))).toEqual(['by']);
    });

    it("['sample-http-logs'] | summarize avg(<|>)", async () => {
        const l = labels(await at("['sample-http-logs'] | summarize avg(<|>)"));
        expect(l).toContain('req_duration_ms');
        expect(l).not.toContain('dcount');
    });

    it("['sample-http-logs'] | summarize count() by <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | summarize count() by <|>"));
        expect(l).toEqual(expect.arrayContaining(['status', 'bin', 'bin_auto']));
        expect(l).not.toContain('dcount');
    });

    it("['sample-http-logs'] | make-series count() on <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | make-series count() on <|>"));
        expect(l).toContain('_time');
    });

    it("['sample-http-logs'] | where ['geo.<|>", async () => {
        const list = await at("['sample-http-logs'] | where ['geo.<|>");
        expect(labels(list)).toEqual(['geo.city', 'geo.country']);
        const item = list.items.find(i => i.label === 'geo.city');
        // No closing quote yet: the edit closes the name.
        expect(insert(item)).toBe("geo.city']");
        expect((item?.textEdit as TextEdit).range.start.character).toBe("['sample-http-logs'] | where ['".length);
    });

    it("['sample-http-logs'] | where ['geo.<|>'] == 'x'", async () => {
        const list = await at("['sample-http-logs'] | where ['geo.<|>'] == 'x'");
        const edit = list.items.find(i => i.label === 'geo.country')?.textEdit as TextEdit;
        expect(edit.newText).toBe('geo.country');
        expect(edit.range.start.character).toBe("['sample-http-logs'] | where ['".length);
        expect(edit.range.end.character).toBe("['sample-http-logs'] | where ['geo.".length);
    });

    it("['sample-http-logs'] | where geo.<|>", async () => {
        const list = await at("['sample-http-logs'] | where geo.<|>");
        expect(labels(list)).toEqual(['city', 'country']);
        expect(insert(list.items[0])).toMatch(/^(city|country)$/);
    });

    it("['sample-http-logs'] | where geo.ci<|>", async () => {
        expect(labels(await at("['sample-http-logs'] | where geo.ci<|>"))).toEqual(['city']);
    });

    it("['sample-http-logs'] | extend ms = req_duration_ms | where <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | extend ms = req_duration_ms | where <|>"));
        expect(l).toContain('ms');
    });

    it("['sample-http-logs'] | project status, method | where <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | project status, method | where <|>"));
        expect(l).toEqual(expect.arrayContaining(['status', 'method']));
        expect(l).not.toContain('uri');
    });

    it("['sample-http-logs'] | project-away <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | project-away <|>"));
        expect(l).toEqual(expect.arrayContaining(['status', 'geo.city']));
        expect(l).not.toContain('strlen');
    });

    it("['sample-http-logs'] | sort <|>", async () => {
        expect(labels(await at("['sample-http-logs'] | sort <|>"))).toEqual(['by']);
    });

    it("['sample-http-logs'] | sort by status <|>", async () => {
        expect(labels(await at("['sample-http-logs'] | sort by status <|>"))).toEqual(['asc', 'desc', 'nulls']);
    });

    it("['sample-http-logs'] | join <|>", async () => {
        const list = await at("['sample-http-logs'] | join <|>");
        expect(labels(list)).toEqual(expect.arrayContaining(['otel-demo-traces', 'kind=']));
        expect(labels(list)).not.toContain('status');
    });

    it("['sample-http-logs'] | join kind=<|>", async () => {
        expect(labels(await at("['sample-http-logs'] | join kind=<|>"))).toEqual(expect.arrayContaining(['inner', 'leftouter', 'innerunique']));
    });

    it("['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on <|>", async () => {
        const l = labels(await at("['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on <|>"));
        expect(l).toEqual(expect.arrayContaining(['$left', '$right', 'status', 'trace_id']));
    });

    it("['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on $left.<|>", async () => {
        const l = labels(await at("['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on $left.<|>"));
        expect(l).toContain('status');
        expect(l).not.toContain('trace_id');
    });

    it("['sample-http-logs'] | parse <|>", async () => {
        expect(labels(await at("['sample-http-logs'] | parse <|>"))).toEqual(expect.arrayContaining(['kind=', 'uri']));
    });

    it("let threshold = 100;\n['sample-http-logs'] | where req_duration_ms > <|>", async () => {
        const list = await at("let threshold = 100;\n['sample-http-logs'] | where req_duration_ms > <|>");
        const item = list.items.find(i => i.label === 'threshold');
        expect(item?.detail).toBe('let threshold: long');
    });

    it("let errors = ['sample-http-logs'] | where status == '500';\n<|>", async () => {
        const l = labels(await at("let errors = ['sample-http-logs'] | where status == '500';\n<|>"));
        expect(l).toEqual(expect.arrayContaining(['errors', 'sample-http-logs']));
    });

    it("['sample-http-logs']\n| count\n\n<|>", async () => {
        expect(labels(await at("['sample-http-logs']\n| count\n\n<|>"))).toContain('sample-http-logs');
    });

    it("['sample-http-logs'] | where method == 'GE<|>'", async () => {
        expect((await at("['sample-http-logs'] | where method == 'GE<|>")).items).toEqual([]);
    });

    it("['sample-http-logs'] // where <|>", async () => {
        expect((await at("['sample-http-logs'] // where <|>")).items).toEqual([]);
    });

    it("['sample-http-logs'] | where stat<|>", async () => {
        const l = labels(await at("['sample-http-logs'] | where stat<|>"));
        expect(l[0]).toBe('status');
    });

    it('with an empty schema: no field suggestions, and no crash', async () => {
        const { createAplServices } = await import('../../../language/apl-module.js');
        const { EmptyFileSystem } = await import('langium');
        const empty = createAplServices(EmptyFileSystem).Apl;
        let items: CompletionItem[] = [];
        await expectCompletion(empty)({ text: "['sample-http-logs'] | where <|>", index: 0, assert: l => { items = l.items; }, disposeAfterCheck: true });
        // only the time fields every dataset has
        expect(items.filter(i => i.kind === 5).map(i => i.label).sort()).toEqual(['_sysTime', '_time']);
        expect(items.map(i => i.label)).toContain('strlen');
    });
});
