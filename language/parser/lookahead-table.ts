import type { LookaheadProductionType } from 'chevrotain';

/**
 * The LL(k) lookahead paths of every parser decision, computed at build time
 * (scripts/generate-parser-tables.ts, from language/lookahead-decisions.ts) because chevrotain's path
 * enumeration is the costliest part of a first parse. Paths hold token-type names; the lookahead
 * strategy (apl-lookahead-strategy.ts) maps them back to the parser's token types.
 */
export interface LookaheadTable {
    /** The `maxLookahead` the paths were computed with; the table is not used for any other. */
    maxLookahead: number;
    /**
     * Keyed by {@link decisionKey}. An alternation has one list of paths per alternative; an optional
     * production (Option, Repetition…) has one list: the paths that enter it.
     */
    decisions: Record<string, LookaheadPathNames>;
}

/** Per alternative, its paths; each path is a sequence of token-type names. */
export type LookaheadPathNames = string[][][];

export function decisionKey(ruleName: string, prodType: LookaheadProductionType, occurrence: number): string {
    return `${ruleName}|${prodType}|${occurrence}`;
}
