import { EmptyFileSystem } from 'langium';
import { getLookaheadPaths, LLkLookaheadStrategy, type ILookaheadStrategy, type LookaheadProductionType, type Rule } from 'chevrotain';
import { createAplServices } from '../apl-module.js';
import { parserConfig } from '../generated/module.js';
import type { LookaheadPathNames } from './lookahead-table.js';

/**
 * Build-time side of the lookahead table (language/lookahead-table.ts): which decisions the APL parser
 * has, and the paths chevrotain computes for each. Used by scripts/generate-parser-tables.ts and by the
 * test that the generated table is up to date; not part of the language-server bundle.
 */

/** One decision point of the parser, as chevrotain describes it to a lookahead strategy. */
export interface LookaheadDecision {
    rule: Rule;
    prodType: LookaheadProductionType;
    occurrence: number;
    maxLookahead: number;
}

type AlternationOptions = Parameters<ILookaheadStrategy['buildLookaheadForAlternation']>[0];
type OptionalOptions = Parameters<ILookaheadStrategy['buildLookaheadForOptional']>[0];

/**
 * A lookahead strategy that records the decisions chevrotain asks it about while building a parser,
 * so that the table covers exactly the parser's decisions. A parser built with it cannot parse.
 */
class LookaheadDecisionRecorder extends LLkLookaheadStrategy {
    readonly decisions: LookaheadDecision[] = [];

    override buildLookaheadForAlternation(options: AlternationOptions): () => number | undefined {
        this.decisions.push({ rule: options.rule, prodType: 'Alternation', occurrence: options.prodOccurrence, maxLookahead: options.maxLookahead });
        return () => undefined;
    }

    override buildLookaheadForOptional(options: OptionalOptions): () => boolean {
        this.decisions.push({ rule: options.rule, prodType: options.prodType, occurrence: options.prodOccurrence, maxLookahead: options.maxLookahead });
        return () => false;
    }
}

/** Every decision of the APL parser, and the one maxLookahead they all use. */
export function recordLookaheadDecisions(): { decisions: LookaheadDecision[]; maxLookahead: number } {
    const maxLookahead = parserConfig.maxLookahead ?? 3;
    const recorder = new LookaheadDecisionRecorder({ maxLookahead });
    const services = createAplServices({
        ...EmptyFileSystem,
        module: { parser: { ParserConfig: () => ({ ...parserConfig, lookaheadStrategy: recorder }) } },
    }).Apl;
    void services.parser.LangiumParser; // building it makes chevrotain ask for every decision
    const other = recorder.decisions.find(decision => decision.maxLookahead !== maxLookahead);
    if (other) throw new Error(`lookahead: ${other.rule.name} ${other.prodType}#${other.occurrence} has its own maxLookahead ${other.maxLookahead}`);
    return { decisions: recorder.decisions, maxLookahead };
}

/**
 * The paths chevrotain's LL(k) strategy uses for this decision, as token-type names. For an optional
 * production chevrotain computes [inside, after] but only looks at the inside paths, so only those are kept.
 */
export function computeLookaheadPathNames(decision: LookaheadDecision): LookaheadPathNames {
    const paths = getLookaheadPaths({
        occurrence: decision.occurrence,
        rule: decision.rule,
        prodType: decision.prodType,
        maxLookahead: decision.maxLookahead,
    });
    const used = decision.prodType === 'Alternation' ? paths : [paths[0]];
    return used.map(alternative => alternative.map(path => path.map(tokenType => tokenType.name)));
}
