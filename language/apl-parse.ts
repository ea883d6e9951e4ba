import { EmptyFileSystem } from 'langium';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createAplServices, OneQueryPerTextModule, type AplServices } from './apl-module.js';
import type { Model } from './generated/ast.js';
import { parseLimitOf } from './parser/apl-parser.js';
import { Issues } from './apl-issue-codes.js';

let shared: AplServices | undefined;
let provider: (() => AplServices) | undefined;

/**
 * Services for parsing only, created once per process. They read a text as one query (blank lines
 * are whitespace), as the evaluator and the HTTP service take it; a document's blocks are split first
 * (language/query-blocks.ts).
 */
export function parsingServices(): AplServices {
    shared ??= provider?.() ?? createAplServices({ ...EmptyFileSystem, module: OneQueryPerTextModule }).Apl;
    return shared;
}

/**
 * Makes `parsingServices()` the services `provide` returns (built when first needed), for a thread
 * that builds such services anyway: the HTTP service's query check (server/query/run-job.ts). Each
 * set of services builds its own parser (about 40 ms of CPU), and the evaluator does not need one of
 * its own: a parse uses only the grammar and the token builder, and the evaluator never resolves
 * references (which would go through the provider's scoping). `provide` must read a text as one
 * query (`OneQueryPerTextModule`). No effect once something has parsed.
 */
export function provideParsingServices(provide: () => AplServices): void {
    if (shared === undefined) provider = provide;
}

export interface SyntaxProblem {
    message: string;
    /** 0-based, as in LSP. */
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    kind: 'lexing' | 'parsing' | 'limit';
    /** `APL1001` for a syntax error; `APL1002` (too deeply nested) or `APL1003` (too large) for a limit. */
    code: string;
}

export interface ParseResult {
    model: Model;
    problems: SyntaxProblem[];
}

/** Parses APL text. Error recovery means there is always a tree. */
export function parse(text: string, services: AplServices = parsingServices()): ParseResult {
    const result = services.parser.LangiumParser.parse<Model>(text);
    // Only for offset -> line/character; building a LangiumDocument here would parse the text again.
    const document = TextDocument.create('memory:///parse.apl', 'apl', 0, text);
    const lineOf = (offset: number) => document.positionAt(offset);
    const problems: SyntaxProblem[] = [];
    for (const e of result.lexerErrors) {
        const start = lineOf(e.offset);
        problems.push({ kind: 'lexing', code: Issues.SyntaxError.code, message: `unexpected character '${text.substr(e.offset, e.length)}'`, range: { start, end: lineOf(e.offset + e.length) } });
    }
    const limit = parseLimitOf(result.value);
    if (limit) {
        const at = lineOf(limit.offset);
        return { model: result.value, problems: [{ kind: 'limit', code: limit.code, message: limit.message, range: { start: at, end: at } }] };
    }
    for (const e of result.parserErrors) {
        const token = e.token;
        let offset = token.startOffset;
        let endOffset = (token.endOffset ?? offset) + 1;
        if (!(offset >= 0) || token.tokenType?.name === 'EOF') {
            // At the end of input, point just past the last token rather than at whitespace or 0:0.
            const previous = (e as { previousToken?: { endOffset?: number } }).previousToken;
            offset = previous?.endOffset !== undefined && previous.endOffset >= 0 ? previous.endOffset + 1 : text.length;
            endOffset = offset;
        }
        problems.push({ kind: 'parsing', code: Issues.SyntaxError.code, message: e.message, range: { start: lineOf(offset), end: lineOf(endOffset) } });
    }
    return { model: result.value, problems };
}
