/**
 * Query blocks, Kusto's convention: a document is a sequence of queries separated by blank lines (a
 * line holding only whitespace). `;` separates statements inside one block (`let x = 1; T | where
 * a > x`); a blank line always ends the block, even inside parentheses (a syntax error there, as in
 * Kusto.Explorer), and a comment-only line is not blank (it belongs to its block). No APL token spans
 * lines, so a blank line is never inside a string.
 *
 * The lexer decides (the BLANK_LINE token of language/apl.langium), so the language server, the
 * extension's Run lenses (`apl/queryInfo`), `apl check`, `apl fmt` and `apl run --file` all split a
 * document at the same places.
 */
import type { IToken } from 'chevrotain';
import { isLeafCstNode, type CstNode } from 'langium';
import type { AplServices } from './apl-module.js';
import type * as ast from './generated/ast.js';
import { BLANK_LINE } from './parser/apl-token-builder.js';

export interface QueryBlockSpan {
    /** Offset of the block's first character (its first token, comments included). */
    start: number;
    /** Offset just past its last token. */
    end: number;
}

/**
 * The spans of the blocks of `text`, in order, from the first token to the last of each (blank and
 * whitespace-only texts have none). `services` must read blank lines as block ends (the default).
 */
export function queryBlockSpans(text: string, services: AplServices): QueryBlockSpan[] {
    const lexed = services.parser.Lexer.tokenize(text);
    const tokens: Pick<IToken, 'startOffset' | 'endOffset' | 'tokenType'>[] = [...lexed.tokens, ...(lexed.hidden ?? [])];
    // Lexer errors leave characters out of every token: count them as tokens so they stay in a block.
    for (const e of lexed.errors) tokens.push({ startOffset: e.offset, endOffset: e.offset + e.length - 1, tokenType: undefined as never });
    tokens.sort((a, b) => a.startOffset - b.startOffset);
    const spans: QueryBlockSpan[] = [];
    let current: QueryBlockSpan | undefined;
    for (const token of tokens) {
        if (token.tokenType?.name === BLANK_LINE) {
            if (current) spans.push(current);
            current = undefined;
            continue;
        }
        // Whitespace is hidden, not skipped: it never starts or extends a block.
        if (/^\s*$/.test(text.slice(token.startOffset, (token.endOffset ?? token.startOffset) + 1))) continue;
        const start = token.startOffset;
        const end = (token.endOffset ?? start) + 1;
        if (!current) current = { start, end };
        else current.end = Math.max(current.end, end);
    }
    if (current) spans.push(current);
    return spans;
}

/** The index of the block holding `offset` among `spans` (the nearest block before it when it is between two). */
export function blockIndexAt(spans: readonly QueryBlockSpan[], offset: number): number {
    let lo = 0;
    let hi = spans.length - 1;
    let found = -1;
    while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (spans[mid].start <= offset) {
            found = mid;
            lo = mid + 1;
        } else hi = mid - 1;
    }
    return found;
}

const breaksByRoot = new WeakMap<CstNode, number[]>();

/** The offsets of the blank lines that end blocks in a parsed document (the BLANK_LINE leaves of its root). */
function blockBreaks(model: ast.Model): number[] {
    const root = model.$cstNode;
    if (!root) return [];
    let breaks = breaksByRoot.get(root);
    if (!breaks) {
        breaks = [];
        const content = (root as { content?: CstNode[] }).content ?? [];
        for (const node of content) {
            if (isLeafCstNode(node) && node.tokenType.name === BLANK_LINE) breaks.push(node.offset);
        }
        breaksByRoot.set(root, breaks);
    }
    return breaks;
}

/** The number of the block (0-based) that `offset` falls in, in a parsed document. */
export function blockNumberAt(model: ast.Model, offset: number): number {
    return countBelow(blockBreaks(model), offset);
}

/** How many of the ascending `sorted` are below `value` (a binary search). */
export function countBelow(sorted: readonly number[], value: number): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid] < value) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
