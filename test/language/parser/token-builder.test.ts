/**
 * The token builder (language/apl-token-builder.ts) finds the terminals that may continue a keyword
 * into a longer token (chevrotain's LONGER_ALT) more cheaply than Langium; it must find the same ones.
 */
import type { TokenType } from 'chevrotain';
import { DefaultTokenBuilder } from 'langium';
import { describe, expect, it } from 'vitest';
import { AplTokenBuilder } from '../../../language/parser/apl-token-builder.js';
import { parsingServices } from '../../../language/apl-parse.js';

const grammar = parsingServices().Grammar;

function longerAlternatives(builder: DefaultTokenBuilder): Map<string, string[]> {
    const tokens = builder.buildTokens(grammar, { caseInsensitive: false }) as TokenType[];
    const names = (alt: TokenType['LONGER_ALT']) => (alt === undefined ? [] : Array.isArray(alt) ? alt : [alt]).map(t => t.name);
    return new Map(tokens.map(t => [t.name, names(t.LONGER_ALT)]));
}

describe('keyword longer alternatives', () => {
    const ours = longerAlternatives(new AplTokenBuilder());
    const langiums = longerAlternatives(new DefaultTokenBuilder());
    const keywords = [...langiums.keys()].filter(name => !/^[A-Z_]+$/.test(name));

    it('symbols: the same as Langium finds, in the same order', () => {
        const symbols = keywords.filter(k => !/^[A-Za-z_$]/.test(k));
        expect(symbols.length).toBeGreaterThan(40);
        expect(symbols.filter(k => ours.get(k)!.join() !== langiums.get(k)!.join())).toEqual([]);
        expect(ours.get('[')).toEqual(['WILDCARD', 'BRACKET_NAME']);
    });

    it('words: a name or a name pattern, as Langium finds', () => {
        // Hyphenated operator names (`project-away`) get a name as longer alternative too, where Langium
        // finds none; harmless, since their own pattern already refuses to stop inside a name.
        const words = keywords.filter(k => /^[A-Za-z_$]/.test(k) && !k.includes('-'));
        expect(words.length).toBeGreaterThan(80);
        expect(words.filter(k => [...ours.get(k)!].sort().join() !== [...langiums.get(k)!].sort().join())).toEqual([]);
    });
});
