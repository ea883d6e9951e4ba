import type { Rule } from 'chevrotain';
import { AbstractLangiumParser, createParser, type LangiumCoreServices } from 'langium';
import { AplCompletionParser, AplLangiumParser } from './apl-parser.js';
import { lazyResyncFollows, type ResyncFollows } from './resync-follows.js';

/**
 * Langium's `createLangiumParser` and `createCompletionParser` with APL's parsers (apl-parser.ts:
 * bounded nesting, reset after any failure), except that the parser's error-recovery follow sets
 * are computed when recovery first needs them rather than during the parser's self-analysis, where
 * they are a large share of start-up time. The parsers accept and produce exactly what Langium's
 * would (test/language/resync-follows.test.ts compares them).
 */
export function createAplParser(services: LangiumCoreServices): AplLangiumParser {
    const parser = new AplLangiumParser(services);
    createParser(services.Grammar, parser, services.parser.Lexer.definition);
    finalizeWithLazyResyncFollows(parser);
    parser.installGuards();
    return parser;
}

export function createAplCompletionParser(services: LangiumCoreServices): AplCompletionParser {
    const parser = new AplCompletionParser(services);
    createParser(services.Grammar, parser, services.parser.Lexer.definition);
    finalizeWithLazyResyncFollows(parser);
    parser.installGuards();
    return parser;
}

/** The members of chevrotain's parser used here: internal to chevrotain, so not in its types. */
interface RecoveringChevrotainParser {
    recoveryEnabled: boolean;
    resyncFollows: ResyncFollows;
    getGAstProductions(): Record<string, Rule>;
}

/**
 * Runs the self-analysis with recovery switched off, which is the only thing that makes chevrotain
 * skip computing all follow sets, then switches recovery back on with lazily computed follow sets.
 * Recovery is read at parse time only, so nothing else of the analysis depends on it.
 */
function finalizeWithLazyResyncFollows(parser: AbstractLangiumParser): void {
    // `wrapper` (the chevrotain parser) is protected in Langium's types.
    const chevrotain = (parser as unknown as { wrapper: RecoveringChevrotainParser }).wrapper;
    const recoveryEnabled = chevrotain.recoveryEnabled;
    chevrotain.recoveryEnabled = false;
    try {
        parser.finalize();
    } finally {
        chevrotain.recoveryEnabled = recoveryEnabled;
    }
    if (recoveryEnabled) chevrotain.resyncFollows = lazyResyncFollows(Object.values(chevrotain.getGAstProductions()));
}
