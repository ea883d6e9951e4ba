import { CstUtils, isLeafCstNode, type LangiumDocument, type LeafCstNode, type MaybePromise } from 'langium';
import type { Formatter } from 'langium/lsp';
import type {
    DocumentFormattingParams,
    DocumentOnTypeFormattingOptions,
    DocumentOnTypeFormattingParams,
    DocumentRangeFormattingParams,
    Range,
    TextEdit,
} from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import { queryBlockSpans } from '../query-blocks.js';
import { parseLimitOf } from '../parser/apl-parser.js';
import { isFunctionCall, isLetStatement, isModel, isPipeline, isQueryStatement, type Model } from '../generated/ast.js';

/**
 * The APL formatter. It changes whitespace only, token by token:
 * - each `| operator` of a statement's pipeline starts its own line (pipes nested in parentheses
 *   keep their line layout);
 * - one space around binary operators and `=` in assignments, one after commas and pipes, none
 *   inside parentheses, around `.` or between a function name and its `(`;
 * - each query block is formatted on its own (language/query-blocks.ts), and the blank lines between
 *   blocks are kept (collapsed to one): they separate the queries;
 * - comments and the indentation of continuation lines are kept as written; trailing spaces go.
 *
 * A block with syntax errors is left alone, and every formatted block is re-lexed: if its token stream
 * differs in any way from the input's, the block is left as it is.
 */
export class AplFormatter implements Formatter {
    constructor(private readonly services: AplServices) {}

    formatDocument(document: LangiumDocument, _params: DocumentFormattingParams): MaybePromise<TextEdit[]> {
        return this.edits(document);
    }

    formatDocumentRange(document: LangiumDocument, params: DocumentRangeFormattingParams): MaybePromise<TextEdit[]> {
        const text = document.textDocument;
        const start = text.offsetAt(params.range.start);
        const end = text.offsetAt(params.range.end);
        return this.edits(document, { start, end });
    }

    formatDocumentOnType(_document: LangiumDocument, _params: DocumentOnTypeFormattingParams): MaybePromise<TextEdit[]> {
        return [];
    }

    get formatOnTypeOptions(): DocumentOnTypeFormattingOptions | undefined {
        return undefined;
    }

    /**
     * Each query block is formatted on its own (a block with syntax errors is left as it is, the others
     * are still formatted); the blank lines between blocks become exactly one.
     */
    private edits(document: LangiumDocument, within?: { start: number; end: number }): TextEdit[] {
        // A text the parser refused (too deep, too large: limits.ts) is not parsed again block by block.
        if (parseLimitOf(document.parseResult.value)) return [];
        const text = document.textDocument.getText();
        return this.pieces(text)
            .filter(p => p.newText !== text.slice(p.start, p.end))
            .filter(p => !within || (p.end >= within.start && p.start <= within.end))
            .map(p => ({ range: toRange(document, p.start, p.end), newText: p.newText }));
    }

    /** The formatted text of `text`: each block formatted (unchanged when it has syntax errors), one blank line between blocks. */
    formatText(text: string): string {
        return applyGaps(text, this.pieces(text));
    }

    /** The document cut into its blocks and the whitespace between them, each with its formatted text. */
    private pieces(text: string): Gap[] {
        const spans = queryBlockSpans(text, this.services);
        if (spans.length === 0) return [];
        const nl = eol(text);
        const out: Gap[] = [{ start: 0, end: spans[0].start, newText: '' }];
        spans.forEach((span, i) => {
            out.push({ start: span.start, end: span.end, newText: this.formatBlock(text.slice(span.start, span.end)) });
            const next = spans[i + 1];
            if (next) out.push({ start: span.end, end: next.start, newText: nl + nl });
        });
        const last = spans[spans.length - 1];
        out.push({ start: last.end, end: text.length, newText: /\n/.test(text.slice(last.end)) ? nl : '' });
        return out;
    }

    /** One block (no blank line in it), formatted; unchanged when it has syntax errors or formatting would change its tokens. */
    private formatBlock(block: string): string {
        const result = this.services.parser.LangiumParser.parse<Model>(block);
        if (result.lexerErrors.length > 0 || result.parserErrors.length > 0 || !result.value || parseLimitOf(result.value)) return block;
        const gaps = computeGaps(block, result.value);
        if (!gaps) return block;
        const formatted = applyGaps(block, gaps);
        return this.sameTokens(block, formatted) ? formatted : block;
    }

    private sameTokens(before: string, after: string): boolean {
        const lexer = this.services.parser.Lexer;
        const a = lexer.tokenize(before);
        const b = lexer.tokenize(after);
        const images = (r: typeof a) => [...r.tokens, ...(r.hidden ?? [])].sort((x, y) => x.startOffset - y.startOffset).map(t => `${t.tokenType.name}:${t.image}`);
        const ia = images(a);
        const ib = images(b);
        return ia.length === ib.length && ia.every((t, i) => t === ib[i]) && b.errors.length === a.errors.length;
    }
}

function toRange(document: LangiumDocument, start: number, end: number): Range {
    return { start: document.textDocument.positionAt(start), end: document.textDocument.positionAt(end) };
}

interface Gap {
    start: number;
    end: number;
    newText: string;
}

type Role =
    | 'topPipe'
    | 'nestedPipe'
    | 'binary'
    | 'searchColon'
    | 'unary'
    | 'assign'
    | 'optionAssign'
    | 'dot'
    | 'callName'
    | 'comma'
    | 'semicolon'
    | 'open'
    | 'close'
    | 'comment'
    | 'other';

interface Item {
    leaf: LeafCstNode;
    role: Role;
    statementStart: boolean;
}

const ASSIGN_CONTAINERS = new Set([
    'NamedExpression', 'LetStatement', 'SetStatement', 'ColumnRename', 'MvExpandItem', 'MakeSeriesAggregate', 'Property', 'QueryParameter',
]);

function roleOf(leaf: LeafCstNode): Role {
    if (leaf.hidden) return 'comment';
    const node = leaf.astNode;
    const t = leaf.text;
    switch (t) {
        case ',': return 'comma';
        case ';': return 'semicolon';
        case '(': return 'open';
        case ')': return 'close';
        case '.': return 'dot';
    }
    if (t === '|' && isPipeline(node)) {
        return isQueryStatement(node.$container) || isLetStatement(node.$container) ? 'topPipe' : 'nestedPipe';
    }
    switch (node.$type) {
        case 'BinaryExpression':
            return leaf.tokenType.name === 'SEARCH_COLON' ? 'searchColon' : 'binary';
        case 'InExpression':
        case 'BetweenExpression':
            return t === (node as { operator?: string }).operator ? 'binary' : 'other';
        case 'UnaryExpression':
            return t === '-' || t === '+' ? 'unary' : 'other';
        case 'OperatorOption':
            return t === '=' ? 'optionAssign' : 'other';
    }
    if (t === '=' && ASSIGN_CONTAINERS.has(node.$type)) return 'assign';
    if (isFunctionCall(node) && node.$cstNode && node.$cstNode.offset === leaf.offset) return 'callName';
    return 'other';
}

function collectItems(model: Model): Item[] | undefined {
    const root = model.$cstNode;
    if (!root || !isModel(model)) return undefined;
    const starts = new Set(model.statements.map(s => s.$cstNode?.offset ?? -1));
    const items: Item[] = [];
    for (const node of CstUtils.streamCst(root)) {
        if (!isLeafCstNode(node) || node.length === 0) continue;
        items.push({ leaf: node, role: roleOf(node), statementStart: starts.has(node.offset) });
    }
    items.sort((a, b) => a.leaf.offset - b.leaf.offset);
    return items;
}

function computeGaps(text: string, model: Model): Gap[] | undefined {
    const items = collectItems(model);
    if (!items) return undefined;
    const gaps: Gap[] = [];
    let previous: Item | undefined;
    let position = 0;
    for (const item of items) {
        const start = item.leaf.offset;
        if (start < position) return undefined; // overlapping leaves: do not touch this document
        gaps.push({ start: position, end: start, newText: gapText(previous, item, text.slice(position, start)) });
        previous = item;
        position = item.leaf.end;
    }
    const tail = text.slice(position);
    gaps.push({ start: position, end: text.length, newText: previous ? (/\n/.test(tail) ? eol(text) : '') : tail });
    return gaps;
}

function applyGaps(text: string, gaps: readonly Gap[]): string {
    let out = '';
    let position = 0;
    for (const g of gaps) {
        out += text.slice(position, g.start) + g.newText;
        position = g.end;
    }
    return out + text.slice(position);
}

function eol(text: string): string {
    return text.includes('\r\n') ? '\r\n' : '\n';
}

function newlines(ws: string): number {
    let n = 0;
    for (const c of ws) if (c === '\n') n++;
    return n;
}

/** The original indentation of the line the gap ends on. */
function indentation(ws: string): string {
    return ws.slice(ws.lastIndexOf('\n') + 1);
}

function lineBreaks(count: number, ws: string): string {
    const nl = ws.includes('\r\n') ? '\r\n' : '\n';
    return nl.repeat(Math.max(1, Math.min(count, 2)));
}

function gapText(a: Item | undefined, b: Item, ws: string): string {
    if (!a) return ''; // nothing before the first token
    const nl = newlines(ws);
    if (b.role === 'comment') return nl > 0 ? lineBreaks(nl, ws) + indentation(ws) : ws;
    if (b.role === 'topPipe') return lineBreaks(nl, ws);
    if (nl > 0) return lineBreaks(nl, ws) + (b.statementStart ? '' : indentation(ws));
    if (a.role === 'comment') return ws; // cannot happen: a line comment ends at a newline
    return sameLine(a, b, ws);
}

function sameLine(a: Item, b: Item, ws: string): string {
    const collapsed = ws.length > 0 ? ' ' : '';
    if (a.role === 'searchColon' || b.role === 'searchColon') return collapsed;
    if (b.role === 'comma' || b.role === 'semicolon') return '';
    if (a.role === 'comma' || a.role === 'semicolon') return ' ';
    if (a.role === 'topPipe' || a.role === 'nestedPipe' || b.role === 'nestedPipe') return ' ';
    if (a.role === 'binary' || b.role === 'binary') return ' ';
    if (a.role === 'unary') return '';
    if (a.role === 'assign' || b.role === 'assign') return ' ';
    if (a.role === 'optionAssign' || b.role === 'optionAssign') return '';
    if (a.role === 'dot' || b.role === 'dot') return '';
    if (a.role === 'open' || b.role === 'close') return '';
    if (a.role === 'callName' && b.role === 'open') return /^date(time)?$/.test(a.leaf.text) ? collapsed : '';
    return collapsed;
}
