import type { IToken, TokenType } from 'chevrotain';
import { LangiumParserErrorMessageProvider } from 'langium';

/**
 * Syntax errors in APL terms ("expected an expression after '=='"), never parser-generator token
 * names like `ID` or `'|'` token lists.
 */
export class AplParserErrorMessageProvider extends LangiumParserErrorMessageProvider {
    override buildMismatchTokenMessage(options: { expected: TokenType; actual: IToken; previous: IToken; ruleName: string }): string {
        return expectedMessage([options.expected], options.previous, options.actual);
    }

    override buildNotAllInputParsedMessage(options: { firstRedundant: IToken; ruleName: string }): string {
        const token = options.firstRedundant;
        if (TABULAR_KEYWORDS.has(token.image)) {
            return `unexpected '${token.image}': a tabular operator must follow '|'`;
        }
        return `unexpected ${describeActual(token)}`;
    }

    override buildNoViableAltMessage(options: { expectedPathsPerAlt: TokenType[][][]; actual: IToken[]; previous: IToken; customUserDescription?: string; ruleName: string }): string {
        const firsts = options.expectedPathsPerAlt.flatMap(alt => alt.map(path => path[0])).filter((t): t is TokenType => t !== undefined);
        return expectedMessage(firsts, options.previous, options.actual[0], options.ruleName);
    }

    override buildEarlyExitMessage(options: { expectedIterationPaths: TokenType[][]; actual: IToken[]; previous: IToken; customUserDescription?: string; ruleName: string }): string {
        const firsts = options.expectedIterationPaths.map(path => path[0]).filter((t): t is TokenType => t !== undefined);
        return expectedMessage(firsts, options.previous, options.actual[0], options.ruleName);
    }
}

const TABULAR_KEYWORDS = new Set([
    'where', 'summarize', 'extend', 'extend-valid', 'project', 'project-away', 'project-keep', 'project-rename',
    'project-reorder', 'sort', 'order', 'take', 'limit', 'top', 'count', 'distinct', 'parse', 'parse-where',
    'parse-kv', 'mv-expand', 'make-series', 'join', 'lookup', 'union', 'search', 'sample', 'getschema', 'redact',
]);

const EXPRESSION_STARTS = new Set(['ID', 'LONG', 'REAL', 'STRING', 'VERBATIM_STRING', 'TIMESPAN', 'DATETIME', 'BRACKET_NAME', '(', 'dynamic', 'true', 'false']);

/** Chooses the most helpful description of what could come next. */
function expectedMessage(expected: TokenType[], previous: IToken | undefined, actual: IToken | undefined, ruleName?: string): string {
    const names = new Set(expected.map(t => t.name));
    // Langium marks rule names with a zero-width space; compare without it.
    const rule = ruleName?.replace(/\u200b/g, '');
    let what: string;
    if (rule === 'TabularOperator') {
        what = 'a tabular operator (where, summarize, extend, project, ...)';
    } else if ([...names].some(n => EXPRESSION_STARTS.has(n)) && names.size > 3) {
        what = 'an expression';
    } else {
        const described = [...new Set([...names].map(describeTokenType))];
        what = described.length <= 4 ? joinOr(described) : `${joinOr(described.slice(0, 4))}, ...`;
    }
    const after = previous && previous.image && !Number.isNaN(previous.startOffset) ? ` after '${previous.image}'` : '';
    const found = actual && actual.tokenType?.name !== 'EOF' ? `, found ${describeActual(actual)}` : actual ? ', found the end of the query' : '';
    return `expected ${what}${after}${found}`;
}

function joinOr(items: string[]): string {
    if (items.length <= 1) return items[0] ?? 'more input';
    return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function describeTokenType(name: string): string {
    switch (name) {
        case 'ID': return 'a name';
        case 'LONG': return 'an integer';
        case 'REAL': return 'a number';
        case 'STRING': case 'VERBATIM_STRING': return 'a string';
        case 'TIMESPAN': return 'a timespan such as 5m';
        case 'DATETIME': return 'datetime(...)';
        case 'BRACKET_NAME': return "a quoted name such as ['field']";
        case 'WILDCARD': return 'a name pattern such as status*';
        case 'EOF': return 'the end of the query';
        default: return `'${name}'`;
    }
}

function describeActual(token: IToken): string {
    if (token.tokenType?.name === 'EOF') return 'the end of the query';
    return `'${token.image}'`;
}
