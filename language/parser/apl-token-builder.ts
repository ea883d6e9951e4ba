import { Lexer, type CustomPatternMatcherFunc, type IToken, type TokenType, type TokenVocabulary } from 'chevrotain';
import { DefaultTokenBuilder, GrammarAST, RegExpUtils, type TokenBuilderOptions } from 'langium';
import { QUOTED_TERMINALS } from './quoted-token-matchers.js';

/**
 * The lexer's tokens by name, as `DefaultTokenBuilder.buildTokens` orders them: the keywords
 * (longest first), each with the terminals that may continue it (LONGER_ALT), then the terminals.
 * Computing this walks every rule reachable from the entry rule and partially matches symbol
 * keywords against the terminals' expressions: about a third of the language server's parser
 * set-up, so it is done at build time (scripts/generate-parser-tables.ts).
 */
export interface TokenTable {
    keywords: [keyword: string, longerAlt: string[]][];
    terminals: string[];
}

export interface AplTokenBuilderOptions {
    /**
     * Whether a blank line ends a query block (the BLANK_LINE token), as in a document: the editor,
     * `apl check`, `apl fmt`. False where one text is one query whatever its lines (the HTTP service and
     * the evaluator): blank lines are then plain whitespace. Default true.
     */
    queryBlocks?: boolean;
}

/** The terminal that ends a query block (language/apl.langium). */
export const BLANK_LINE = 'BLANK_LINE';

/**
 * Hyphenated operator names (`project-away`, `mv-expand`, ...) are single keywords only right after
 * a pipe. Anywhere else `project-away` lexes as `project - away`, a subtraction, as in KQL.
 */
export class AplTokenBuilder extends DefaultTokenBuilder {
    /** `table`: the tokens computed at build time; without it (or when it names a rule the grammar lacks) they are computed. */
    constructor(private readonly table?: () => TokenTable, private readonly options: AplTokenBuilderOptions = {}) {
        super();
    }

    override buildTokens(grammar: GrammarAST.Grammar, options?: TokenBuilderOptions): TokenVocabulary {
        const table = this.table?.();
        return (table && this.tokensFromTable(grammar, table, Boolean(options?.caseInsensitive))) ?? super.buildTokens(grammar, options);
    }

    /** The same tokens as `super.buildTokens`, from the table's names; undefined when the table does not fit the grammar. */
    private tokensFromTable(grammar: GrammarAST.Grammar, table: TokenTable, caseInsensitive: boolean): TokenType[] | undefined {
        if (table.terminals.length === 0) return undefined; // the generator's placeholder
        const rules = new Map(grammar.rules.map(r => [r.name, r]));
        const terminals: TokenType[] = [];
        for (const name of table.terminals) {
            const rule = rules.get(name);
            if (!GrammarAST.isTerminalRule(rule)) return undefined;
            terminals.push(this.buildTerminalToken(rule));
        }
        const byName = new Map(terminals.map(t => [t.name, t]));
        const keywords: TokenType[] = [];
        for (const [value, longerAlt] of table.keywords) {
            const alts = longerAlt.map(name => byName.get(name));
            if (alts.some(t => t === undefined)) return undefined;
            // buildKeywordToken reads the keyword's value only; with no terminals to search it finds
            // no longer alternative, and the table's are set instead.
            const token = this.buildKeywordToken({ $type: GrammarAST.Keyword.$type, value } as GrammarAST.Keyword, [], caseInsensitive);
            token.LONGER_ALT = alts as TokenType[];
            keywords.push(token);
        }
        return [...keywords, ...terminals];
    }

    /**
     * Quoted terminals are matched by hand-written scanners (quoted-token-matchers.ts): their
     * regular expressions need one backtracking entry per character, and V8 gives up on a 5 MB
     * string with "Maximum call stack size exceeded". The grammar keeps the expressions (for the
     * TextMate grammar and for finding which keywords a terminal can continue).
     */
    protected override buildTerminalToken(terminal: GrammarAST.TerminalRule): TokenType {
        const token = super.buildTerminalToken(terminal);
        // Lexer.NA: the token type stays (the parser's tables name it) but never matches.
        if (terminal.name === BLANK_LINE && this.options.queryBlocks === false) token.PATTERN = Lexer.NA;
        const scanner = QUOTED_TERMINALS[terminal.name];
        if (scanner) {
            if (token.PATTERN instanceof RegExp) this.regexes.set(token, token.PATTERN);
            token.PATTERN = scanner.match;
            token.START_CHARS_HINT = scanner.startChars;
            token.LINE_BREAKS = false;
        }
        return token;
    }

    /** The grammar's expressions of the terminals that are matched by scanners. */
    private readonly regexes = new Map<TokenType, RegExp>();

    protected override buildKeywordToken(keyword: GrammarAST.Keyword, terminalTokens: TokenType[], caseInsensitive: boolean): TokenType {
        const token = super.buildKeywordToken(keyword, terminalTokens, caseInsensitive);
        if (keyword.value === ':') {
            // A colon before a string is the search-term operator (the SEARCH_COLON terminal).
            token.PATTERN = /:(?![ \t]*[@"'])/;
        } else if (isPipeOnlyKeyword(keyword.value)) {
            token.PATTERN = afterPipe(keyword.value);
            token.LINE_BREAKS = false;
            token.START_CHARS_HINT = [keyword.value.charCodeAt(0)];
        }
        return token;
    }

    /**
     * Which terminals may continue a keyword into a longer token (`count` → `counter`, `count*`).
     * Langium works this out by partially matching every keyword against every terminal's regular
     * expression, rebuilding the terminal's partial expression for each keyword: a large share of
     * parser start-up. A word-like keyword can only continue into a name or a name pattern, so those
     * skip the search; symbols (`[` → `['name']`) keep it, with each partial expression built once.
     */
    protected override findLongerAlt(keyword: GrammarAST.Keyword, terminalTokens: TokenType[]): TokenType[] {
        if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(keyword.value)) {
            return ['WILDCARD', 'ID'].map(name => terminalTokens.find(t => t.name === name)).filter((t): t is TokenType => t !== undefined);
        }
        return terminalTokens.filter(token => {
            const partial = this.partialPattern(token);
            const match = partial && keyword.value.match(partial);
            return !!match && match[0].length > 0;
        });
    }

    private readonly partialPatterns = new Map<TokenType, RegExp | undefined>();

    /** Langium's partial expression for the terminal (the same one its findLongerAlt builds), memoized. */
    private partialPattern(token: TokenType): RegExp | undefined {
        if (!this.partialPatterns.has(token)) {
            const regex = this.regexes.get(token) ?? token.PATTERN;
            const source = regex instanceof RegExp ? regex.source : undefined;
            this.partialPatterns.set(token, source ? RegExpUtils.partialRegExp(`^${source}$`) : undefined);
        }
        return this.partialPatterns.get(token);
    }

}

const PIPE_ONLY = new Set([
    'project-away', 'project-keep', 'project-rename', 'project-reorder', 'extend-valid',
    'mv-expand', 'make-series', 'parse-kv', 'parse-where',
]);

/** The table of a token list built by `buildTokens` (the generator's and the staleness test's view). */
export function tokenTableOf(tokens: TokenVocabulary): TokenTable {
    const list = tokens as TokenType[];
    const isKeywordToken = (t: TokenType) => t.LONGER_ALT !== undefined;
    return {
        keywords: list.filter(isKeywordToken).map(t => [t.name, (Array.isArray(t.LONGER_ALT) ? t.LONGER_ALT : [t.LONGER_ALT!]).map(a => a.name)]),
        terminals: list.filter(t => !isKeywordToken(t)).map(t => t.name),
    };
}

function isPipeOnlyKeyword(value: string): boolean {
    return PIPE_ONLY.has(value);
}

function afterPipe(value: string): CustomPatternMatcherFunc {
    const sticky = new RegExp(`${value.replace(/-/g, '\\-')}(?![A-Za-z0-9_])`, 'y');
    return (text: string, offset: number, tokens: IToken[]) => {
        const previous = tokens[tokens.length - 1];
        if (!previous || previous.image !== '|') return null;
        sticky.lastIndex = offset;
        return sticky.exec(text);
    };
}
