/**
 * The parser's error-recovery follow sets are computed lazily (language/resync-follows.ts) instead of
 * by chevrotain during parser start-up. They must equal chevrotain's, entry by entry, and recovery
 * must give the same trees and errors as with chevrotain's own.
 */
import type { TokenType } from 'chevrotain';
import { createCompletionParser, createLangiumParser, EmptyFileSystem, type AbstractLangiumParser } from 'langium';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../../language/apl-module.js';
import { createAplCompletionParser } from '../../../language/parser/apl-parser-builder.js';
import { parse, parsingServices } from '../../../language/apl-parse.js';
import { astSnapshot } from '../../support/ast-print.js';
import { BROKEN_QUERIES } from '../../support/broken-queries.js';

const services = parsingServices();
/** The same language, with Langium's parser factory: chevrotain computes all follow sets up front. */
const eagerServices = createAplServices({ ...EmptyFileSystem, module: { parser: { LangiumParser: s => createLangiumParser(s) } } }).Apl;

/** chevrotain's follow sets of a Langium parser (`wrapper` and `resyncFollows` are not in the public types). */
function resyncFollowsOf(parser: AbstractLangiumParser): Record<string, TokenType[]> {
    return (parser as unknown as { wrapper: { resyncFollows: Record<string, TokenType[]> } }).wrapper.resyncFollows;
}

function expectSameFollows(lazy: Record<string, TokenType[]>, eager: Record<string, TokenType[]>): void {
    const keys = Object.keys(eager);
    expect(keys.length).toBeGreaterThan(100);
    const differing = keys.filter(key => JSON.stringify(lazy[key]?.map(t => t.name)) !== JSON.stringify(eager[key].map(t => t.name)));
    expect(differing).toEqual([]);
    // Same objects too: chevrotain matches tokens by type identity and category.
    for (const key of keys) lazy[key].forEach((tokenType, i) => expect(tokenType).toBe(eager[key][i]));
}

describe('lazy resync follow sets', () => {
    it('equal chevrotain\'s for every entry of the parser', () => {
        expectSameFollows(resyncFollowsOf(services.parser.LangiumParser), resyncFollowsOf(createLangiumParser(services)));
    });

    it('equal chevrotain\'s for every entry of the completion parser', () => {
        expectSameFollows(resyncFollowsOf(createAplCompletionParser(services)), resyncFollowsOf(createCompletionParser(services)));
    });

    it('have no entry for a key chevrotain does not have', () => {
        expect(resyncFollowsOf(services.parser.LangiumParser)['Expression\u200B9_~IN~_Model\u200B']).toBeUndefined();
    });
});

describe('error recovery gives the same tree and errors as with chevrotain\'s follow sets', () => {
    for (const query of BROKEN_QUERIES) {
        it(query, () => {
            const lazy = parse(query, services);
            const eager = parse(query, eagerServices);
            expect(lazy.problems.length).toBeGreaterThan(0);
            expect(lazy.problems).toEqual(eager.problems);
            expect(astSnapshot(lazy.model)).toEqual(astSnapshot(eager.model));
        });
    }
});
