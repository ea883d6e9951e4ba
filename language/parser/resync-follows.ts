import {
    Alternation,
    Alternative,
    NonTerminal,
    Option,
    Repetition,
    RepetitionMandatory,
    RepetitionMandatoryWithSeparator,
    RepetitionWithSeparator,
    Rule,
    Terminal,
    type IProduction,
    type TokenType,
} from 'chevrotain';

/**
 * Chevrotain's `resyncFollows`, computed per entry on first read instead of for the whole grammar in
 * `performSelfAnalysis` (chevrotain's `computeAllProdsFollows`, a large share of parser start-up).
 * The parser reads it only while recovering from a syntax error.
 *
 * An entry is keyed `<rule><occurrence>_~IN~_<calling rule>`: for each call of a rule inside another,
 * the tokens that can follow the call within the calling rule, i.e. FIRST of the rest of the calling
 * rule after the call. "Rest" and FIRST follow chevrotain's RestWalker and first() exactly (grammar/
 * rest.js, first.js, follow.js), including the order of the tokens, since recovery takes the first match.
 */
export type ResyncFollows = Record<string, TokenType[]>;

/** Chevrotain's IN (parse/constants.js). */
const IN = '_~IN~_';

type Production = IProduction & { definition: IProduction[] };

export function lazyResyncFollows(rules: Rule[]): ResyncFollows {
    const rulesByName = new Map(rules.map(rule => [rule.name, rule]));
    /** Per calling rule, the rest after each rule call in it; found by one walk of the rule. */
    const restsByCallingRule = new Map<string, Map<string, IProduction[]>>();
    const follows = new Map<string, TokenType[]>();
    const first = new FirstSets();

    const followsOf = (key: string): TokenType[] | undefined => {
        const cached = follows.get(key);
        if (cached) return cached;
        const callingRuleName = key.slice(key.indexOf(IN) + IN.length);
        const callingRule = rulesByName.get(callingRuleName);
        if (!callingRule) return undefined;
        let rests = restsByCallingRule.get(callingRuleName);
        if (!rests) {
            rests = restsAfterRuleCalls(callingRule);
            restsByCallingRule.set(callingRuleName, rests);
        }
        const rest = rests.get(key);
        if (!rest) return undefined;
        const computed = first.of(new Alternative({ definition: rest }));
        follows.set(key, computed);
        return computed;
    };

    // Only `get` is needed: chevrotain reads entries as `resyncFollows[key]` and never enumerates them.
    return new Proxy({} as ResyncFollows, {
        get: (_target, key) => (typeof key === 'string' ? followsOf(key) : undefined),
    });
}

/** For each NonTerminal in the rule, keyed as chevrotain keys its follows: what comes after it in the rule. */
function restsAfterRuleCalls(rule: Rule): Map<string, IProduction[]> {
    const rests = new Map<string, IProduction[]>();
    const walk = (production: Production, prevRest: IProduction[]): void => {
        production.definition.forEach((child, index) => {
            const rest = production.definition.slice(index + 1).concat(prevRest);
            if (child instanceof NonTerminal) {
                rests.set(child.referencedRule.name + child.idx + IN + rule.name, rest);
            } else if (child instanceof Terminal) {
                // nothing follows from a token
            } else if (child instanceof Alternative || child instanceof Option) {
                walk(child, rest);
            } else if (child instanceof Repetition || child instanceof RepetitionMandatory) {
                // After one iteration of (DE)* or (DE)+ comes (DE)? and then the rest.
                walk(child, [new Option({ definition: child.definition }), ...rest]);
            } else if (child instanceof RepetitionWithSeparator || child instanceof RepetitionMandatoryWithSeparator) {
                // After one iteration of DE(,DE)* comes (,DE)? and then the rest.
                const again = new Option({ definition: [new Terminal({ terminalType: child.separator }), ...child.definition] });
                walk(child, [again, ...rest]);
            } else if (child instanceof Alternation) {
                // Each alternative on its own, so that one alternative is not the rest of another.
                for (const alternative of child.definition) walk(new Alternative({ definition: [alternative] }), rest);
            } else {
                throw new Error('resync follows: unknown grammar production');
            }
        });
    };
    walk(rule, []);
    return rests;
}

/** Chevrotain's first(), with FIRST of each rule remembered (chevrotain recomputes it at every reference). */
class FirstSets {
    private readonly ofRule = new Map<Rule, TokenType[]>();

    of(production: IProduction): TokenType[] {
        if (production instanceof NonTerminal) return this.ofRuleCached(production.referencedRule);
        if (production instanceof Terminal) return [production.terminalType];
        if (production instanceof Alternation) return [...new Set(production.definition.flatMap(alternative => this.of(alternative)))];
        if (isSequence(production)) return this.ofSequence(production.definition);
        throw new Error('resync follows: unknown grammar production');
    }

    private ofRuleCached(rule: Rule): TokenType[] {
        let set = this.ofRule.get(rule);
        if (!set) {
            set = this.ofSequence(rule.definition);
            this.ofRule.set(rule, set);
        }
        return set;
    }

    /** FIRST of the elements up to and including the first one that cannot be empty. */
    private ofSequence(sequence: IProduction[]): TokenType[] {
        const set: TokenType[] = [];
        for (const element of sequence) {
            set.push(...this.of(element));
            if (!isOptional(element)) break;
        }
        return [...new Set(set)];
    }
}

function isSequence(production: IProduction): production is Production {
    return (
        production instanceof Alternative ||
        production instanceof Option ||
        production instanceof Repetition ||
        production instanceof RepetitionMandatory ||
        production instanceof RepetitionMandatoryWithSeparator ||
        production instanceof RepetitionWithSeparator ||
        production instanceof Rule
    );
}

/** Chevrotain's isOptionalProd: can the production match nothing? */
function isOptional(production: IProduction, alreadyVisited: NonTerminal[] = []): boolean {
    if (production instanceof Option || production instanceof Repetition || production instanceof RepetitionWithSeparator) return true;
    if (production instanceof Alternation) return production.definition.some(alternative => isOptional(alternative, alreadyVisited));
    // A rule reached again through itself is taken as not optional, to stop the recursion.
    if (production instanceof NonTerminal && alreadyVisited.includes(production)) return false;
    if (production instanceof Terminal) return false;
    if (production instanceof NonTerminal) alreadyVisited.push(production);
    // Every other production is a sequence (a NonTerminal's definition is its rule's).
    return (production as Production).definition.every(child => isOptional(child, alreadyVisited));
}
