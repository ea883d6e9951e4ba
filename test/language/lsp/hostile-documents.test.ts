/**
 * Hostile documents for the language services: a pipeline as long as the input makes it (no
 * recursion whose depth the input controls) and documents past the analysis limits (the cheap path).
 */
import { clearDocuments, parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { Cancellation, OperationCancelled } from 'langium';
import { blankLineSpans, queryInfo, queryInfoAsync } from '../../../language/lsp/apl-query-info.js';
import { MAX_PARSED_LENGTH } from '../../../language/limits.js';
import { explainQuery } from '../../../language/explain.js';
import { setProviderErrorHandler } from '../../../language/lsp/apl-names.js';
import { lspServices } from './lsp-services.js';

const services = lspServices();
const LONG_PIPELINE = "['sample-http-logs']" + '\n| where x > 1'.repeat(3000);

describe('a pipeline of 3,000 stages', () => {
    it("['sample-http-logs'] | where x > 1 × 3000: apl/queryInfo answers one block", () => {
        const { blocks } = queryInfo(LONG_PIPELINE, services);
        expect(blocks).toHaveLength(1);
        expect(blocks[0]).toMatchObject({ runnable: true, syntaxOk: true, pageable: true, datasets: ['sample-http-logs'] });
    });

    it("['sample-http-logs'] | where x > 1 × 3000: every service answers", async () => {
        const document = await parseDocument(services, LONG_PIPELINE, { validation: true });
        try {
            const uri = document.uri.toString();
            // On the last stage's `where`, and at the end.
            const last = { line: 3000, character: 3 };
            const end = document.textDocument.positionAt(LONG_PIPELINE.length);
            expect(document.diagnostics?.map(d => d.code)).not.toContain('APL1002');
            const hover = await services.lsp.HoverProvider!.getHoverContent(document, { textDocument: { uri }, position: last });
            expect(hover).toBeDefined();
            await services.lsp.CompletionProvider!.getCompletion(document, { textDocument: { uri }, position: end });
            const completion = await services.lsp.CompletionProvider!.getCompletion(document, { textDocument: { uri }, position: last });
            expect(completion?.items.length).toBeGreaterThan(0);
            await services.lsp.SignatureHelp!.provideSignatureHelp(document, { textDocument: { uri }, position: last });
            const edits = await services.lsp.Formatter!.formatDocument(document, { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
            expect(Array.isArray(edits)).toBe(true);
            const tokens = await services.lsp.SemanticTokenProvider!.semanticHighlight(document, { textDocument: { uri } });
            expect(tokens.data.length).toBeGreaterThan(0);
            await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument: { uri } });
            await services.lsp.FoldingRangeProvider!.getFoldingRanges(document, { textDocument: { uri } });
            await services.lsp.RenameProvider!.prepareRename(document, { textDocument: { uri }, position: last });
            const hints = await services.lsp.InlayHintProvider!.getInlayHints(document, { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end } });
            expect(hints).toEqual([]);
            expect(explainQuery(LONG_PIPELINE, LONG_PIPELINE.length, services)?.stages).toHaveLength(3001);
        } finally {
            await clearDocuments(services, [document]);
        }
    }, 60_000);
});

const nest = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);
const letChain = (n: number, first: string, next: (i: number) => string, last: string) =>
    [`let t0 = ${first};`, ...Array.from({ length: n - 1 }, (_, i) => `let t${i + 1} = ${next(i)};`), last].join('\n');

/** Documents whose depth the input controls: chains of lets, and nesting past APL1002 (the parser's bound). */
const DEEP: [string, string][] = [
    ["let t0 = ['sample-http-logs']; let t1 = t0 | where x > 1; … × 3000; t2999 | where ", letChain(3000, "['sample-http-logs']", i => `t${i} | where x > 1`, 't2999 | where ')],
    ['let t0 = 1; let t1 = t0 + 1; … × 3000; print t2999', letChain(3000, '1', i => `t${i} + 1`, 'print t2999')],
    ['print ((((…1…)))) × 10000', `print ${nest('(', '1', ')', 10_000)}`],
    ['print - - - …1 × 10000', `print ${'- '.repeat(10_000)}1`],
    ['print dynamic([[[…1…]]]) × 10000', `print dynamic(${nest('[', '1', ']', 10_000)})`],
    ['print true or true or … × 20000', `print ${Array(20_000).fill('true').join(' or ')}`],
    ['print strlen(strlen(…"a"…)) × 10000', `print ${nest('strlen(', '"a"', ')', 10_000)}`],
    ["((['sample-http-logs'] | where x > 1) | where x > 1) … × 5000", nest('(', "['sample-http-logs']", ' | where x > 1)', 5_000)],
];

describe('documents whose depth the input controls', () => {
    for (const [name, text] of DEEP) {
        it(`${name}: no service fails, before or after validation`, async () => {
            const failures: string[] = [];
            setProviderErrorHandler((what, e) => failures.push(`${what}: ${String(e)}`));
            try {
                // Without validation first: the caches are cold, as on a completion right after an edit.
                for (const validation of [false, true]) {
                    const document = await parseDocument(services, text, { validation });
                    const uri = document.uri.toString();
                    const textDocument = { uri };
                    try {
                        for (const position of [document.textDocument.positionAt(text.length), document.textDocument.positionAt(text.length >> 1)]) {
                            await services.lsp.HoverProvider!.getHoverContent(document, { textDocument, position });
                            await services.lsp.CompletionProvider!.getCompletion(document, { textDocument, position });
                            await services.lsp.SignatureHelp!.provideSignatureHelp(document, { textDocument, position });
                            await services.lsp.RenameProvider!.prepareRename(document, { textDocument, position });
                            await services.lsp.ReferencesProvider!.findReferences(document, { textDocument, position, context: { includeDeclaration: true } });
                            await services.lsp.CodeActionProvider!.getCodeActions(document, { textDocument, range: { start: position, end: position }, context: { diagnostics: document.diagnostics ?? [] } });
                        }
                        await services.lsp.Formatter!.formatDocument(document, { textDocument, options: { tabSize: 4, insertSpaces: true } });
                        await services.lsp.SemanticTokenProvider!.semanticHighlight(document, { textDocument });
                        await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument });
                        await services.lsp.FoldingRangeProvider!.getFoldingRanges(document, { textDocument });
                        await services.lsp.InlayHintProvider!.getInlayHints(document, { textDocument, range: { start: { line: 0, character: 0 }, end: document.textDocument.positionAt(text.length) } });
                        queryInfo(text, services);
                        explainQuery(text, text.length >> 1, services);
                    } finally {
                        await clearDocuments(services, [document]);
                    }
                }
            } finally {
                setProviderErrorHandler(undefined);
            }
            expect(failures).toEqual([]);
        }, 60_000);
    }
});

const QUERY = "['sample-http-logs'] | where status == 500\n| summarize count() by bin(_time, 1h)\n\n";
const BIG = QUERY.repeat(Math.ceil((3.5 * 1024 * 1024) / QUERY.length));

describe('a document past the analysis limits (the cheap path)', () => {
    it('a 3.5 MB document of 45,000 blocks: apl/queryInfo finds every block, analyses none', () => {
        expect(BIG.length).toBeGreaterThan(MAX_PARSED_LENGTH);
        const { blocks } = queryInfo(BIG, services);
        expect(blocks).toHaveLength(BIG.length / QUERY.length);
        expect(blocks[1]).toMatchObject({ analysed: false, runnable: true, pageable: false, range: { start: { line: 3, character: 0 }, end: { line: 4, character: 37 } } });
        expect(BIG.slice(blocks[1].startOffset, blocks[1].endOffset)).toBe(QUERY.trim());
    });

    it('the scan for blank lines splits where the lexer does (comments, CRLF, tabs, strings with //)', () => {
        const text = " ['a'] // c\n\t\n// only a comment\r\n\r\n['b'] | where s == '//x'  \n| take 1\n \t \n\n  print 1 ";
        const short = queryInfo(text, services).blocks.map(b => [b.startOffset, b.endOffset]);
        const scanned = blankLineSpans(text).map(b => [b.start, b.end]);
        expect(scanned).toEqual(short);
        const padded = text + '\n\n' + ' '.repeat(MAX_PARSED_LENGTH);
        expect(queryInfo(padded, services).blocks.map(b => [b.startOffset, b.endOffset, b.runnable, b.analysed])).toEqual(short.map((s, i) => [...s, i !== 1, false]));
    });

    it('a 3.5 MB document: apl/queryInfo in slices answers, and a cancelled one stops', async () => {
        const done = await queryInfoAsync(BIG, services, Cancellation.CancellationToken.None);
        expect(done.blocks.length).toBe(BIG.length / QUERY.length);
        const source = new Cancellation.CancellationTokenSource();
        source.cancel();
        await expect(queryInfoAsync(QUERY.repeat(2000), services, source.token)).rejects.toBe(OperationCancelled);
    });
});
