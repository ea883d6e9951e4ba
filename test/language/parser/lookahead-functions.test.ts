/**
 * The lookahead functions built from table paths (language/lookahead-functions.ts), on cases the APL
 * grammar does not reach: token categories, gates, empty alternatives.
 */
import { createToken, createTokenInstance, EOF, type IToken, type TokenType } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { buildAlternationLookahead, buildOptionalLookahead } from '../../../language/parser/lookahead-functions.js';

const Keyword = createToken({ name: 'Keyword', pattern: /NA/ });
const Where = createToken({ name: 'Where', pattern: /where/, categories: [Keyword] });
const Take = createToken({ name: 'Take', pattern: /take/, categories: [Keyword] });
const Name = createToken({ name: 'Name', pattern: /[a-z]+/ });
const Equals = createToken({ name: 'Equals', pattern: /=/ });

/** A parser positioned before `tokens`, padded with EOF as chevrotain pads its token vector. */
function at(...types: TokenType[]) {
    const tokens: IToken[] = [...types, EOF, EOF, EOF, EOF].map(type => createTokenInstance(type, type.name, 0, 0, 0, 0, 0, 0));
    return { LA_FAST: (i: number) => tokens[i - 1] };
}

describe('alternation lookahead', () => {
    const oneToken = buildAlternationLookahead([[[Name]], [[Keyword]], [[Where]]], false, false);
    const twoTokens = buildAlternationLookahead([[[Name, Equals]], [[Name], [Keyword]]], false, false);

    it('one token: picks the first alternative that matches, categories included', () => {
        expect(oneToken.call(at(Name))).toBe(0);
        expect(oneToken.call(at(Where))).toBe(1);
        expect(oneToken.call(at(Take))).toBe(1);
        expect(oneToken.call(at(Equals))).toBeUndefined();
        expect(oneToken.call(at())).toBeUndefined();
    });

    it('several tokens: picks the first alternative with a matching path', () => {
        expect(twoTokens.call(at(Name, Equals))).toBe(0);
        expect(twoTokens.call(at(Name, Name))).toBe(1);
        expect(twoTokens.call(at(Take))).toBe(1);
        expect(twoTokens.call(at(Name))).toBe(1);
        expect(twoTokens.call(at(Equals))).toBeUndefined();
    });

    it('an empty path matches anything', () => {
        const withEmpty = buildAlternationLookahead([[[Where]], [[]]], false, false);
        expect(withEmpty.call(at(Where))).toBe(0);
        expect(withEmpty.call(at(Equals))).toBe(1);
        expect(withEmpty.call(at())).toBe(1);
    });

    it('with predicates, a gate that says no skips its alternative', () => {
        const gated = buildAlternationLookahead([[[Name]], [[Name], [Keyword]]], true, false);
        const alt = (gate?: () => boolean) => ({ ALT: () => undefined, GATE: gate });
        expect(gated.call(at(Name), [alt(() => false), alt()])).toBe(1);
        expect(gated.call(at(Name), [alt(() => true), alt()])).toBe(0);
        expect(gated.call(at(Take), [alt(), alt(() => false)])).toBeUndefined();
    });

    it('with dynamic tokens, the one-token table is not used and categories still match', () => {
        const dynamic = buildAlternationLookahead([[[Name]], [[Keyword]]], false, true);
        expect(dynamic.call(at(Take))).toBe(1);
        expect(dynamic.call(at(Equals))).toBeUndefined();
    });
});

describe('optional lookahead', () => {
    it('one token: enters iff the next token matches a path, categories included', () => {
        const enters = buildOptionalLookahead([[Keyword], [Equals]], false);
        expect(enters.call(at(Where))).toBe(true);
        expect(enters.call(at(Equals))).toBe(true);
        expect(enters.call(at(Name))).toBe(false);
        expect(enters.call(at())).toBe(false);
    });

    it('several tokens: enters iff a whole path matches', () => {
        const enters = buildOptionalLookahead([[Name, Equals]], false);
        expect(enters.call(at(Name, Equals))).toBe(true);
        expect(enters.call(at(Name, Name))).toBe(false);
        expect(enters.call(at(Name))).toBe(false);
    });

    it('no paths: never enters', () => {
        expect(buildOptionalLookahead([], false).call(at(Name))).toBe(false);
    });
});
