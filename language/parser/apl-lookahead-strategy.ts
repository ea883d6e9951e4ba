import {
    EOF,
    LLkLookaheadStrategy,
    NonTerminal,
    RepetitionMandatoryWithSeparator,
    RepetitionWithSeparator,
    Terminal,
    type ILookaheadStrategy,
    type IProduction,
    type LookaheadProductionType,
    type Rule,
    type TokenType,
} from 'chevrotain';
import { buildAlternationLookahead, buildOptionalLookahead } from './lookahead-functions.js';
import { decisionKey, type LookaheadTable } from './lookahead-table.js';

type AlternationOptions = Parameters<ILookaheadStrategy['buildLookaheadForAlternation']>[0];
type OptionalOptions = Parameters<ILookaheadStrategy['buildLookaheadForOptional']>[0];
type AlternationLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForAlternation']>;
type OptionalLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForOptional']>;

/**
 * LL(3) lookahead whose paths come from a table computed at build time, each decision's function
 * being built the first time the parser meets the decision.
 *
 * Why LL(3) and not Langium's default ALL(*): the grammar is LL(3) (langium-cli checks it), and with
 * fixed lookahead a failed prediction stays inside the alternative that matched furthest, so syntax
 * errors read "expected an expression after '=='" instead of ALL(*)'s "unexpected '=='".
 * Why a table: chevrotain enumerates the paths on every start (the optional `name '='` before an
 * expression alone walks thousands of candidate paths), a cost every `apl check` run and
 * language-server start would pay. Why lazily: one query meets only a fraction of the decisions.
 * A decision the table cannot answer (missing, unknown token, other maxLookahead) falls back to chevrotain.
 */
export class AplLookaheadStrategy extends LLkLookaheadStrategy {
    private readonly table: (() => LookaheadTable) | undefined;
    private readonly tokenTypesByName = new Map<string, TokenType>([[EOF.name, EOF]]);

    constructor(options: { maxLookahead: number; table?: () => LookaheadTable }) {
        super(options);
        this.table = options.table;
    }

    /**
     * Collects the parser's token types, to turn the table's names back into them. The strategy may be
     * shared by the main and the completion parser; both use the same lexer, hence the same types.
     */
    override initialize(options: { rules: Rule[] }): void {
        for (const rule of options.rules) collectTokenTypes(rule.definition, this.tokenTypesByName);
    }

    override buildLookaheadForAlternation(options: AlternationOptions): AlternationLookahead {
        return lazily(() => {
            const paths = this.tablePaths(options.rule, 'Alternation', options.prodOccurrence, options.maxLookahead);
            return paths
                ? buildAlternationLookahead(paths, options.hasPredicates, options.dynamicTokensEnabled)
                : super.buildLookaheadForAlternation(options);
        });
    }

    override buildLookaheadForOptional(options: OptionalOptions): OptionalLookahead {
        return lazily(() => {
            const paths = this.tablePaths(options.rule, options.prodType, options.prodOccurrence, options.maxLookahead);
            return paths ? buildOptionalLookahead(paths[0], options.dynamicTokensEnabled) : super.buildLookaheadForOptional(options);
        });
    }

    /** The decision's paths as token types, or undefined when the table cannot answer for it. */
    private tablePaths(rule: Rule, prodType: LookaheadProductionType, occurrence: number, maxLookahead: number): TokenType[][][] | undefined {
        const table = this.table?.();
        if (table?.maxLookahead !== maxLookahead) return undefined;
        const names = table.decisions[decisionKey(rule.name, prodType, occurrence)];
        const types = names?.map(alternative => alternative.map(path => path.map(name => this.tokenTypesByName.get(name))));
        const complete = types?.every(alternative => alternative.every(path => path.every(type => type !== undefined)));
        return complete ? (types as TokenType[][][]) : undefined;
    }
}

/** Builds the lookahead function on its first call: chevrotain asks for all of them up front. */
function lazily<F extends (...args: never[]) => unknown>(build: () => F): F {
    let built: F | undefined;
    return function (this: unknown, ...args: Parameters<F>) {
        built ??= build();
        return built.apply(this, args);
    } as F;
}

/** Every token type a rule consumes, through nested productions but not into other rules. */
function collectTokenTypes(productions: IProduction[], into: Map<string, TokenType>): void {
    for (const production of productions) {
        if (production instanceof Terminal) {
            into.set(production.terminalType.name, production.terminalType);
        } else if (production instanceof RepetitionWithSeparator || production instanceof RepetitionMandatoryWithSeparator) {
            into.set(production.separator.name, production.separator);
        }
        // A NonTerminal's definition is the referenced rule's, which initialize() visits by itself.
        if (!(production instanceof NonTerminal) && 'definition' in production) {
            collectTokenTypes(production.definition as IProduction[], into);
        }
    }
}
