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
import { isFunctionCall, isLetStatement, isModel, isPipeline, isProjectOperator, isQueryStatement, type Model, type Pipeline } from '../generated/ast.js';
import { DEFAULT_FORMAT_OPTIONS, GENERATED_INDENT, type AplFormatOptions } from './apl-format-options.js';

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
 *
 * That is the default layout; the options (apl-format-options.ts) move the pipes to the line ends, keep
 * short pipelines on one line, space named arguments, break long `project` lists and set the
 * indentation. The language server sets `optionsFor` (settings and `.aplrc.json`: I/O is not here).
 */
export class AplFormatter implements Formatter {
    /** The options for a document, by its URI; the defaults when unset. */
    optionsFor: (uri: string) => Partial<AplFormatOptions> = () => ({});

    constructor(private readonly services: AplServices) {}

    formatDocument(document: LangiumDocument, _params: DocumentFormattingParams): MaybePromise<TextEdit[]> {
        return this.edits(document, this.options(document));
    }

    formatDocumentRange(document: LangiumDocument, params: DocumentRangeFormattingParams): MaybePromise<TextEdit[]> {
        const text = document.textDocument;
        const start = text.offsetAt(params.range.start);
        const end = text.offsetAt(params.range.end);
        return this.edits(document, this.options(document), { start, end });
    }

    private options(document: LangiumDocument): AplFormatOptions {
        return { ...DEFAULT_FORMAT_OPTIONS, ...this.optionsFor(document.uri.toString()) };
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
    private edits(document: LangiumDocument, options: AplFormatOptions, within?: { start: number; end: number }): TextEdit[] {
        // A text the parser refused (too deep, too large: limits.ts) is not parsed again block by block.
        if (parseLimitOf(document.parseResult.value)) return [];
        const text = document.textDocument.getText();
        return this.pieces(text, options)
            .filter(p => p.newText !== text.slice(p.start, p.end))
            .filter(p => !within || (p.end >= within.start && p.start <= within.end))
            .map(p => ({ range: toRange(document, p.start, p.end), newText: p.newText }));
    }

    /** The formatted text of `text`: each block formatted (unchanged when it has syntax errors), one blank line between blocks. */
    formatText(text: string, options: Partial<AplFormatOptions> = {}): string {
        return applyGaps(text, this.pieces(text, { ...DEFAULT_FORMAT_OPTIONS, ...options }));
    }

    /** The document cut into its blocks and the whitespace between them, each with its formatted text. */
    private pieces(text: string, options: AplFormatOptions): Gap[] {
        const spans = queryBlockSpans(text, this.services);
        if (spans.length === 0) return [];
        const nl = eol(text);
        const out: Gap[] = [{ start: 0, end: spans[0].start, newText: '' }];
        spans.forEach((span, i) => {
            out.push({ start: span.start, end: span.end, newText: this.formatBlock(text.slice(span.start, span.end), options) });
            const next = spans[i + 1];
            if (next) out.push({ start: span.end, end: next.start, newText: nl + nl });
        });
        const last = spans[spans.length - 1];
        out.push({ start: last.end, end: text.length, newText: /\n/.test(text.slice(last.end)) ? nl : '' });
        return out;
    }

    /** One block (no blank line in it), formatted; unchanged when it has syntax errors or formatting would change its tokens. */
    private formatBlock(block: string, options: AplFormatOptions): string {
        const result = this.services.parser.LangiumParser.parse<Model>(block);
        if (result.lexerErrors.length > 0 || result.parserErrors.length > 0 || !result.value || parseLimitOf(result.value)) return block;
        const gaps = computeGaps(block, result.value, options);
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

function computeGaps(text: string, model: Model, options: AplFormatOptions): Gap[] | undefined {
    const items = collectItems(model);
    if (!items) return undefined;
    const gaps: LayoutGap[] = [];
    let previous: Item | undefined;
    let position = 0;
    for (const item of items) {
        const start = item.leaf.offset;
        if (start < position) return undefined; // overlapping leaves: do not touch this document
        const ws = text.slice(position, start);
        // A pipe that had to start its line (a comment ended the line before) keeps its operator beside it.
        const pipeStartsLine = previous?.role === 'topPipe' && gaps[gaps.length - 1]?.newText.includes('\n');
        gaps.push({ start: position, end: start, newText: gapText(previous, item, ws, options, pipeStartsLine), ws, previous, next: item });
        previous = item;
        position = item.leaf.end;
    }
    if (options.projectCommas !== 'keep') breakLongProjects(gaps, options);
    if (options.pipeline === 'fit') joinShortPipelines(text, model, gaps, options);
    const tail = text.slice(position);
    const out: Gap[] = gaps.map(({ start, end, newText }) => ({ start, end, newText }));
    out.push({ start: position, end: text.length, newText: previous ? (/\n/.test(tail) ? eol(text) : '') : tail });
    return out;
}

/** A gap with the tokens on either side, for the layout passes that look at more than two tokens. */
interface LayoutGap extends Gap {
    ws: string;
    previous: Item | undefined;
    next: Item;
}

/** The gap if the two tokens were on one line (the gap as formatted when they already are). */
function oneLineGap(g: LayoutGap): string {
    if (!g.previous) return g.newText;
    return g.newText.includes('\n') ? sameLine(g.previous, g.next, ' ', DEFAULT_FORMAT_OPTIONS) : g.newText;
}

/** The gaps strictly inside a node's text. */
function gapsInside(gaps: LayoutGap[], start: number, end: number): LayoutGap[] {
    return gaps.filter(g => g.start >= start && g.end <= end && g.previous !== undefined && g.previous.leaf.offset >= start);
}

/** One line of text from the tokens and gaps inside [start, end). */
function lineOf(gaps: LayoutGap[], newText: (g: LayoutGap) => string): string {
    let out = gaps.length > 0 && gaps[0].previous ? gaps[0].previous.leaf.text : '';
    for (const g of gaps) out += newText(g) + g.next.leaf.text;
    return out;
}

/** `project a, b, …` longer than the width: one column a line, the comma at the line's end or the next line's start. */
function breakLongProjects(gaps: LayoutGap[], options: AplFormatOptions): void {
    const indent = ' '.repeat(options.indent === 'keep' ? GENERATED_INDENT : options.indent);
    const projects = new Set(gaps.map(g => g.next.leaf.astNode).filter(n => isProjectOperator(n) && n.columns.length > 1));
    for (const op of projects) {
        const cst = op.$cstNode!;
        const inside = gapsInside(gaps, cst.offset, cst.end);
        if (inside.some(g => g.next.role === 'comment' || g.previous?.role === 'comment')) continue;
        if (lineOf(inside, oneLineGap).length + 2 <= options.width) continue;
        const nl = eol(inside[0]?.ws ?? '');
        for (const g of inside) {
            if (g.next.role === 'comma' && g.next.leaf.astNode === op) g.newText = options.projectCommas === 'start' ? nl + indent : '';
            else if (g.previous?.role === 'comma' && g.previous.leaf.astNode === op) g.newText = options.projectCommas === 'start' ? ' ' : nl + indent;
        }
    }
}

/** A statement's pipeline that fits in the width, with no line break but between its operators, goes on one line. */
function joinShortPipelines(text: string, model: Model, gaps: LayoutGap[], options: AplFormatOptions): void {
    for (const statement of model.statements) {
        const body = isQueryStatement(statement) ? statement.body : isLetStatement(statement) ? statement.value : undefined;
        if (!isPipeline(body) || !statement.$cstNode) continue;
        const pipeline: Pipeline = body;
        const { offset, end } = statement.$cstNode;
        const inside = gapsInside(gaps, offset, end);
        const isPipeGap = (g: LayoutGap) => (g.next.role === 'topPipe' && g.next.leaf.astNode === pipeline) || (g.previous?.role === 'topPipe' && g.previous.leaf.astNode === pipeline);
        if (inside.some(g => g.next.role === 'comment' || (!isPipeGap(g) && g.newText.includes('\n')))) continue;
        const column = offset - (text.lastIndexOf('\n', offset - 1) + 1);
        const line = lineOf(inside, g => (isPipeGap(g) ? ' ' : g.newText));
        if (column + line.length > options.width) continue;
        for (const g of inside) if (isPipeGap(g)) g.newText = ' ';
    }
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

function gapText(a: Item | undefined, b: Item, ws: string, o: AplFormatOptions, pipeStartsLine = false): string {
    if (!a) return ''; // nothing before the first token
    const nl = newlines(ws);
    if (b.role === 'comment') return nl > 0 ? lineBreaks(nl, ws) + indentation(ws) : ws;
    if (b.role === 'topPipe') return o.pipe === 'end' && a.role !== 'comment' ? ' ' : lineBreaks(nl, ws);
    if (a.role === 'topPipe' && o.pipe === 'end' && !pipeStartsLine) return lineBreaks(nl, ws);
    if (nl > 0) return lineBreaks(nl, ws) + (b.statementStart ? '' : o.indent === 'keep' ? indentation(ws) : ' '.repeat(o.indent));
    if (a.role === 'comment') return ws; // cannot happen: a line comment ends at a newline
    return sameLine(a, b, ws, o);
}

function sameLine(a: Item, b: Item, ws: string, o: AplFormatOptions): string {
    const collapsed = ws.length > 0 ? ' ' : '';
    if (a.role === 'searchColon' || b.role === 'searchColon') return collapsed;
    if (b.role === 'comma' || b.role === 'semicolon') return '';
    if (a.role === 'comma' || a.role === 'semicolon') return ' ';
    if (a.role === 'topPipe' || a.role === 'nestedPipe' || b.role === 'nestedPipe') return ' ';
    if (a.role === 'binary' || b.role === 'binary') return ' ';
    if (a.role === 'unary') return '';
    if (a.role === 'assign' || b.role === 'assign') return ' ';
    if (a.role === 'optionAssign' || b.role === 'optionAssign') return o.namedArgumentSpaces ? ' ' : '';
    if (a.role === 'dot' || b.role === 'dot') return '';
    if (a.role === 'open' || b.role === 'close') return '';
    if (a.role === 'callName' && b.role === 'open') return /^date(time)?$/.test(a.leaf.text) ? collapsed : '';
    return collapsed;
}
