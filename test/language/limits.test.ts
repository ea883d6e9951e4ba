/**
 * The parser's limits (language/limits.ts): any nesting, however deep, is one APL1002 error with a
 * position, in every consumer (parse, check, evaluate, translate, the LSP features), and the shared
 * parser works normally afterwards.
 */
import { clearDocuments, parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { IToken } from 'chevrotain';
import type { CstNode } from 'langium';
import { parse, parsingServices } from '../../language/apl-parse.js';
import { LinearCstNodeBuilder } from '../../language/parser/apl-parser.js';
import { checkText } from '../../language/check.js';
import { AplQueryError, createEngine } from '../../language/index.js';
import { translate, TranslationError } from '../../language/legacy/translate.js';
import { MAX_BRACKET_NESTING, MAX_CHECKED_LENGTH, MAX_PARSED_LENGTH } from '../../language/limits.js';
import { lspServices } from './lsp/lsp-services.js';

const nest = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);

/** Deeply nested inputs of every kind: each parses to one APL1002 error. */
const TOO_DEEP: [string, string][] = [
    ['print ((((…1…)))) × 50', `print ${nest('(', '1', ')', 50)}`],
    ['print ((((…1…)))) × 10000', `print ${nest('(', '1', ')', 10_000)}`],
    ['print - - - …1 × 5000', `print ${'- '.repeat(5000)}1`],
    ['print not(not(…true…)) × 200', `print ${nest('not(', 'true', ')', 200)}`],
    ['print abs(abs(…1…)) × 100', `print ${nest('abs(', '1', ')', 100)}`],
    ['print dynamic([[[…1…]]]) × 3000', `print dynamic(${nest('[', '1', ']', 3000)})`],
    ['print dynamic({"a":{"a":…1…}}) × 3000', `print dynamic(${nest('{"a":', '1', '}', 3000)})`],
    ["T | where x in (T | where x in (… T …)) × 200", `T${' | where x in (T'.repeat(200)}${')'.repeat(200)}`],
    ['let a = (print (… 1 …)) × 100; a', `let a = ${nest('(print ', '1', ')', 100)};\na`],
    ['print true or true or … × 5000', `print ${Array(5000).fill('true').join(' or ')}`],
    ['print a.b.c.… × 5000', `print a${'.b'.repeat(5000)}`],
    ['print 1 + 1 + … × 20000', `print ${Array(20_000).fill('1').join(' + ')}`],
];

const VALID = "print x = 1 + 2 | extend y = x * 2";

describe('nesting limit', () => {
    for (const [name, text] of TOO_DEEP) {
        it(`${name}: one APL1002 error, and the parser works afterwards`, async () => {
            const { problems } = parse(text);
            expect(problems.map(p => p.code)).toEqual(['APL1002']);
            expect(parse(VALID).problems).toEqual([]);
            const diagnostics = await checkText(text);
            expect(diagnostics.map(d => d.code)).toEqual(['APL1002']);
            expect(diagnostics[0].range.start.line).toBeGreaterThanOrEqual(0);
            expect(await checkText(VALID)).toEqual([]);
        });
    }

    it('print ((((…1…)))) × 50: the error points at the first parenthesis past the limit', () => {
        const { problems } = parse(`print ${nest('(', '1', ')', 50)}`);
        const at = problems[0].range.start;
        expect(at.line).toBe(0);
        expect(at.character).toBeGreaterThan('print '.length + MAX_BRACKET_NESTING - 1);
        expect(at.character).toBeLessThan('print '.length + 50);
    });

    it(`print ((((…1…)))) × ${MAX_BRACKET_NESTING} and other promised depths parse, check and run`, async () => {
        const engine = createEngine();
        for (const text of [
            `print x = ${nest('(', '1', ')', MAX_BRACKET_NESTING)}`,
            `print x = ${nest('abs(', '-1', ')', MAX_BRACKET_NESTING)}`,
            `print x = ${'-'.repeat(400)}1`,
            `print x = ${Array(900).fill('1').join(' + ')}`,
        ]) {
            expect(parse(text).problems).toEqual([]);
            expect(await checkText(text)).toEqual([]);
            const result = await engine.query(text);
            expect(result.tables[0].columns[0]).toHaveLength(1);
        }
    });

    it('the evaluator and the legacy compiler report the limit as a positioned error', async () => {
        const text = `['logs'] | where ${nest('(', 'a == 1', ')', 60)}`;
        const engine = createEngine();
        engine.ingest('logs', [{ a: 1 }]);
        const error = await engine.query(text).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AplQueryError);
        expect((error as AplQueryError).kind).toBe('syntax');
        expect((error as AplQueryError).line).toBe(1);
        expect((error as AplQueryError).column).toBeGreaterThan(20);
        expect(() => translate(text, { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' })).toThrow(TranslationError);
        expect((await engine.query("['logs'] | count")).tables[0].columns[0]).toEqual([1]);
    });

    it('language features on a too-deep document answer without throwing', async () => {
        const services = lspServices();
        const text = `['sample-http-logs'] | where ${nest('(', 'status == 200', ')', 2000)}`;
        const document = await parseDocument(services, text, { validation: true });
        try {
            const uri = document.uri.toString();
            const position = { line: 0, character: 40 };
            expect(document.diagnostics?.map(d => d.code)).toEqual(['APL1002']);
            await services.lsp.CompletionProvider!.getCompletion(document, { textDocument: { uri }, position });
            await services.lsp.HoverProvider!.getHoverContent(document, { textDocument: { uri }, position });
            await services.lsp.SignatureHelp!.provideSignatureHelp(document, { textDocument: { uri }, position });
            expect(await services.lsp.Formatter!.formatDocument(document, { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } })).toEqual([]);
            await services.lsp.SemanticTokenProvider!.semanticHighlight(document, { textDocument: { uri } });
            await services.lsp.FoldingRangeProvider!.getFoldingRanges(document, { textDocument: { uri } });
            await services.lsp.DocumentSymbolProvider!.getSymbols(document, { textDocument: { uri } });
        } finally {
            await clearDocuments(services, [document]);
        }
    });
});

describe('size limits', () => {
    const query = "['logs'] | where status == 500 | summarize count() by bin(_time, 1h)\n";

    it(`a text longer than ${MAX_CHECKED_LENGTH} characters is checked for syntax only, with an APL1004 note`, async () => {
        const text = query.repeat(Math.ceil((MAX_CHECKED_LENGTH + 1) / query.length)) + 'print nosuchfunction(1)\n| where (\n';
        const codes = (await checkText(text)).map(d => d.code);
        expect(codes).toContain('APL1004');
        expect(codes).toContain('APL1001');
        expect(codes).not.toContain('APL0001');
    });

    it(`completion at the end of a text longer than ${MAX_PARSED_LENGTH} characters offers nothing, at once`, async () => {
        const services = lspServices();
        const text = query.repeat(Math.ceil((MAX_PARSED_LENGTH + 1) / query.length)) + "['sample-http-logs'] | where ";
        const document = await parseDocument(services, text);
        try {
            const parsed: string[] = [];
            const parser = services.parser.CompletionParser;
            const parse = parser.parse.bind(parser);
            parser.parse = (input: string) => {
                parsed.push(input);
                return parse(input);
            };
            const lines = text.split('\n');
            const position = { line: lines.length - 1, character: lines[lines.length - 1].length };
            const list = await services.lsp.CompletionProvider!.getCompletion(document, { textDocument: { uri: document.uri.toString() }, position });
            parser.parse = parse;
            expect(list?.items ?? []).toEqual([]);
            expect(parsed.every(t => t.length <= MAX_PARSED_LENGTH)).toBe(true);
        } finally {
            await clearDocuments(services, [document]);
        }
    });

    it(`a text longer than ${MAX_PARSED_LENGTH} characters is one APL1003 error`, async () => {
        const text = query.repeat(Math.ceil((MAX_PARSED_LENGTH + 1) / query.length));
        expect((await checkText(text)).map(d => d.code)).toEqual(['APL1003']);
        expect(parse(text).problems.map(p => p.code)).toEqual(['APL1003']);
    });

    it("['t'] | where a == 1 | where a == 1 … (200 KB) parses into one pipeline", () => {
        const text = "['t'] " + '| where a == 1 '.repeat(13_000);
        const { model, problems } = parse(text);
        expect(problems).toEqual([]);
        const pipeline = (model.statements[0] as unknown as { body: { operators: unknown[] } }).body;
        expect(pipeline.operators).toHaveLength(13_000);
    });

    it('the syntax tree builder finds a new node at the end of its container without scanning it', () => {
        // Langium's builder looked each new node up from the front of its container (`indexOf`):
        // quadratic in the length of a pipeline. Counted here, not timed.
        expect((parsingServices().parser.LangiumParser as unknown as { nodeBuilder: unknown }).nodeBuilder).toBeInstanceOf(LinearCstNodeBuilder);
        const builder = new LinearCstNodeBuilder();
        builder.buildRootNode('x');
        const feature = {} as Parameters<LinearCstNodeBuilder['buildCompositeNode']>[0];
        const token = { image: 'x', startOffset: 0, endOffset: 0, startLine: 1, endLine: 1, startColumn: 1, endColumn: 1, tokenTypeIdx: 0, tokenType: { name: 'ID' } } as IToken;
        const pipeline = builder.buildCompositeNode(feature);
        for (let i = 0; i < 10_000; i++) builder.buildLeafNode(token, feature);
        let reads = 0;
        const content = pipeline.content as CstNode[];
        (pipeline as unknown as { content: CstNode[] }).content = new Proxy(content, {
            get(target, key, receiver) {
                if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
                return Reflect.get(target, key, receiver);
            },
        });
        builder.buildCompositeNode(feature); // a new operator, still empty: hidden tokens go before it
        builder.addHiddenNodes([token]);
        expect(reads).toBeLessThan(10);
        expect(pipeline.content).toHaveLength(10_002);
    });
});
