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
import { isFunctionCall, isLetStatement, isModel, isPipeline, isQueryStatement, type Model } from '../generated/ast.js';

/**
 * The APL formatter. It changes whitespace only, token by token:
 * - each `| operator` of a statement's pipeline starts its own line (pipes nested in parentheses
 *   keep their line layout);
 * - one space around binary operators and `=` in assignments, one after commas and pipes, none
 *   inside parentheses, around `.` or between a function name and its `(`;
 * - blank lines are kept (collapsed to one): they separate query blocks;
 * - comments and the indentation of continuation lines are kept as written; trailing spaces go.
 *
 * Documents with syntax errors are left alone, and every result is re-lexed: if the token stream
 * differs in any way from the input's, no edit is made.
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

    private edits(document: LangiumDocument, within?: { start: number; end: number }): TextEdit[] {
        const { parseResult } = document;
        if (parseResult.lexerErrors.length > 0 || parseResult.parserErrors.length > 0) return [];
        const text = document.textDocument.getText();
        const gaps = computeGaps(text, parseResult.value as Model);
        if (!gaps) return [];
        const changed = gaps.filter(g => g.newText !== text.slice(g.start, g.end));
        if (changed.length === 0) return [];
        const formatted = applyGaps(text, gaps);
        if (!this.sameTokens(text, formatted)) return [];
        return changed
            .filter(g => !within || (g.end >= within.start && g.start <= within.end))
            .map(g => ({ range: toRange(document, g.start, g.end), newText: g.newText }));
    }

    /** The formatted text of `text` (unchanged when it has syntax errors). */
    formatText(text: string): string {
        const result = this.services.parser.LangiumParser.parse<Model>(text);
        if (result.lexerErrors.length > 0 || result.parserErrors.length > 0) return text;
        const gaps = computeGaps(text, result.value);
        if (!gaps) return text;
        const formatted = applyGaps(text, gaps);
        return this.sameTokens(text, formatted) ? formatted : text;
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
