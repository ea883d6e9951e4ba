import { parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { SymbolKind } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';

const services = lspServices();

describe('document symbols', () => {
    it("let threshold = 100;\nlet errors = ['sample-http-logs'] | where status == '500';\nerrors | summarize count() by method", async () => {
        const text = "let threshold = 100;\nlet errors = ['sample-http-logs'] | where status == '500';\nerrors | summarize count() by method";
        const document = await parseDocument(services, text);
        const symbols = await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument: { uri: document.uri.toString() } });
        expect(symbols.map(s => [s.name, s.kind, s.detail])).toEqual([
            ['threshold', SymbolKind.Variable, 'long'],
            ['errors', SymbolKind.Struct, 'table'],
            ['query 1: errors', SymbolKind.Namespace, undefined],
        ]);
        expect(symbols[2].children?.map(c => c.name)).toEqual(['summarize']);
    });

    it('declare query_parameters (n:long = 10);', async () => {
        const document = await parseDocument(services, 'declare query_parameters (n:long = 10);\nT | take n');
        const symbols = await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument: { uri: document.uri.toString() } });
        expect(symbols.map(s => s.name)).toEqual(['n', 'query 1: T']);
    });
});

describe('folding', () => {
    it('multi-line pipelines, let blocks, datatable bodies and comment runs', async () => {
        const text = [
            '// first',            // 0
            '// second',           // 1
            'let a = 1;',          // 2
            'let b = datatable(x: long)', // 3
            '[',                   // 4
            '  1,',                // 5
            '  2',                 // 6
            '];',                  // 7
            "['sample-http-logs']", // 8
            '| where x > 1',       // 9
            '| count',             // 10
        ].join('\n');
        const document = await parseDocument(services, text);
        const ranges = await services.lsp.FoldingRangeProvider!.getFoldingRanges(document, { textDocument: { uri: document.uri.toString() } });
        const pairs = ranges.map(r => `${r.startLine}-${r.endLine}`);
        expect(pairs).toEqual(expect.arrayContaining(['0-1', '2-7', '3-7', '8-10']));
    });
});
