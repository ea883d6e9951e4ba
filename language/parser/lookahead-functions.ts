import { tokenMatcher, type IOrAlt, type IToken, type TokenType } from 'chevrotain';

/**
 * Lookahead functions built from precomputed paths, with the semantics of chevrotain's (unexported)
 * `buildAlternativesLookAheadFunc` and `buildSingleAlternativeLookaheadFunction`.
 */

/** The parser a lookahead function runs on: chevrotain calls it with the parser as `this`. */
interface LookaheadHost {
    /**
     * Unchecked LA(i). Safe here: chevrotain pads the token vector with maxLookahead + 1 EOF tokens
     * for the duration of a parse, and no path is longer than maxLookahead.
     */
    LA_FAST(howMuch: number): IToken;
}

/** Chevrotain passes the alternatives so that their GATEs can be evaluated. */
type OrAlts = IOrAlt<unknown>[] | undefined;
export type AlternationLookahead = (this: LookaheadHost, orAlts?: OrAlts) => number | undefined;
export type OptionalLookahead = (this: LookaheadHost) => boolean;

/** One token type per step; an alternative's paths; all alternatives of a decision. */
type Path = TokenType[];

/**
 * The index of the first alternative that has a path matching the next tokens, else undefined.
 * An empty path matches anything (an alternative that may be empty).
 */
export function buildAlternationLookahead(alternatives: Path[][], hasPredicates: boolean, dynamicTokensEnabled: boolean): AlternationLookahead {
    if (hasPredicates) {
        return function (orAlts) {
            for (let alt = 0; alt < alternatives.length; alt++) {
                const gate = orAlts?.[alt]?.GATE;
                // A gate that says no rules its alternative out before any path is tried.
                if (gate !== undefined && gate.call(this) === false) continue;
                if (someMatches(this, alternatives[alt])) return alt;
            }
            return undefined;
        };
    }
    if (isSingleTokenLookahead(alternatives.flat()) && !dynamicTokensEnabled) {
        // The common case: one token decides, so a table by token type replaces the matching loop.
        const altByTokenTypeIdx: (number | undefined)[] = [];
        alternatives.forEach((paths, alt) => {
            for (const [tokenType] of paths) {
                for (const idx of matchingTokenTypeIdxs(tokenType)) altByTokenTypeIdx[idx] ??= alt;
            }
        });
        return function () {
            return altByTokenTypeIdx[this.LA_FAST(1).tokenTypeIdx];
        };
    }
    return function () {
        for (let alt = 0; alt < alternatives.length; alt++) {
            if (someMatches(this, alternatives[alt])) return alt;
        }
        return undefined;
    };
}

/** True iff one of the paths into the optional production matches the next tokens. */
export function buildOptionalLookahead(paths: Path[], dynamicTokensEnabled: boolean): OptionalLookahead {
    if (isSingleTokenLookahead(paths) && !dynamicTokensEnabled) {
        const enters: boolean[] = [];
        for (const [tokenType] of paths) {
            for (const idx of matchingTokenTypeIdxs(tokenType)) enters[idx] = true;
        }
        return function () {
            return enters[this.LA_FAST(1).tokenTypeIdx] === true;
        };
    }
    return function () {
        return someMatches(this, paths);
    };
}

function isSingleTokenLookahead(paths: Path[]): boolean {
    return paths.every(path => path.length === 1);
}

/** The token types a token may have to match `tokenType`: itself and the members of its category. */
function matchingTokenTypeIdxs(tokenType: TokenType): number[] {
    // Both are set by chevrotain when the lexer's token types are augmented.
    return [tokenType.tokenTypeIdx!, ...(tokenType.categoryMatches ?? [])];
}

function someMatches(parser: LookaheadHost, paths: Path[]): boolean {
    nextPath: for (const path of paths) {
        for (let i = 0; i < path.length; i++) {
            if (!tokenMatcher(parser.LA_FAST(i + 1), path[i])) continue nextPath;
        }
        return true;
    }
    return false;
}
