/**
 * `1['a']`, `'error'['b']`: `[ ]` after a plain literal. It never means anything, and it is what two
 * queries on consecutive lines look like (`… | take 1` then `['logs'] | count` on the next line parses
 * as `take 1['logs']`): a blank line is what separates queries. The checker and the evaluator both
 * report it, with this message.
 */
import type * as ast from './generated/ast.js';

const SCALAR_LITERALS = new Set(['LongLiteral', 'RealLiteral', 'StringLiteral', 'BooleanLiteral', 'DatetimeLiteral', 'TimespanLiteral']);

export function literalIndexProblem(node: ast.IndexAccess | ast.MemberAccess): string | undefined {
    const receiver = node.receiver;
    if (!receiver || !SCALAR_LITERALS.has(receiver.$type)) return undefined;
    if (node.$type === 'MemberAccess' && node.bracketMember === undefined) return undefined;
    const rcst = receiver.$cstNode;
    if (!rcst) return undefined;
    let message = `'${rcst.text}' is not a dynamic value, so it cannot be indexed with [ ].`;
    const text = rcst.root.fullText;
    const bracket = text.indexOf('[', rcst.end);
    const lineStart = text.lastIndexOf('\n', bracket - 1) + 1;
    if (bracket >= 0 && text.slice(lineStart, bracket).trim() === '' && lineStart > rcst.end) {
        const line = text.slice(0, bracket).split('\n').length;
        // A blank line already there: the text was read as one query (the HTTP service takes one per request).
        message += /\n[ \t]*\r?\n/.test(text.slice(rcst.end, bracket))
            ? ` A new query seems to start on line ${line}: a request holds one query, so send it on its own.`
            : ` If a new query starts on line ${line}, put a blank line before it: a blank line separates queries.`;
    }
    return message;
}
