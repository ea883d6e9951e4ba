/**
 * Robustness: mutated corpus queries (tokens deleted, inserted, swapped) never make parsing,
 * validation, completion, hover, signature help or formatting throw. Bounded by time (~15 s).
 */
import fc from 'fast-check';
import { clearDocuments, parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { parseableCorpusTexts } from '../support/corpus.js';
import { lspServices } from './lsp/lsp-services.js';

const services = lspServices();

const INSERTS = ['|', '(', ')', ',', "'", '"', '[', "['", "['geo.", ']', '=', '==', '.', 'geo.', 'where', 'summarize', 'by', 'let', ';', '\n', '\n\n', '//', 'count(', 'kind=', '$left.', '*', '-', 'and', 'in (', 'datetime(', '..'];

type Mutation = { kind: 'delete' | 'insert' | 'swap'; at: number; insert: string };

function mutate(text: string, mutations: Mutation[]): string {
    const tokens = services.parser.Lexer.tokenize(text).tokens.map(t => ({ start: t.startOffset, end: t.endOffset! + 1 }));
    let out = text;
    for (const m of mutations) {
        if (tokens.length === 0) break;
        const i = m.at % tokens.length;
        const t = tokens[i];
        if (t.end > out.length) continue;
        if (m.kind === 'delete') out = out.slice(0, t.start) + out.slice(t.end);
        else if (m.kind === 'insert') out = out.slice(0, t.start) + m.insert + ' ' + out.slice(t.start);
        else if (i + 1 < tokens.length && tokens[i + 1].end <= out.length) {
            const n = tokens[i + 1];
            out = out.slice(0, t.start) + out.slice(n.start, n.end) + out.slice(t.end, n.start) + out.slice(t.start, t.end) + out.slice(n.end);
        }
        // Offsets after an edit are approximate; the next mutation only needs some token boundary.
    }
    return out;
}

describe('robustness', () => {
    it('mutated corpus queries never make the language services throw', async () => {
        const texts = parseableCorpusTexts().map(p => p.text);
        const mutation = fc.record({
            kind: fc.constantFrom<'delete' | 'insert' | 'swap'>('delete', 'insert', 'swap'),
            at: fc.nat(),
            insert: fc.constantFrom(...INSERTS),
        });
        let runs = 0;
        await fc.assert(
            fc.asyncProperty(fc.nat({ max: texts.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.nat(), async (which, mutations, cursorSeed) => {
                const text = mutate(texts[which], mutations);
                const document = await parseDocument(services, text, { validation: true });
                try {
                    const uri = document.uri.toString();
                    const offset = text.length === 0 ? 0 : cursorSeed % (text.length + 1);
                    const position = document.textDocument.positionAt(offset);
                    await services.lsp.CompletionProvider!.getCompletion(document, { textDocument: { uri }, position });
                    await services.lsp.HoverProvider!.getHoverContent(document, { textDocument: { uri }, position });
                    await services.lsp.SignatureHelp!.provideSignatureHelp(document, { textDocument: { uri }, position });
                    await services.lsp.Formatter!.formatDocument(document, { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
                    await services.lsp.SemanticTokenProvider!.semanticHighlight(document, { textDocument: { uri } });
                    await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument: { uri } });
                    await services.lsp.FoldingRangeProvider!.getFoldingRanges(document, { textDocument: { uri } });
                    await services.lsp.RenameProvider!.prepareRename(document, { textDocument: { uri }, position });
                    runs++;
                } finally {
                    await clearDocuments(services, [document]);
                }
            }),
            { numRuns: 400, interruptAfterTimeLimit: 15_000, markInterruptAsFailure: false, seed: 20261121 },
        );
        expect(runs).toBeGreaterThan(20);
    }, 60_000);
});
