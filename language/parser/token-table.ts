import { EmptyFileSystem } from 'langium';
import { createAplServices } from '../apl-module.js';
import { AplTokenBuilder, tokenTableOf, type TokenTable } from './apl-token-builder.js';

/**
 * The token table Langium's algorithm gives for the grammar now (no generated table involved): what
 * scripts/generate-parser-tables.ts writes, and what the staleness test compares the written one with.
 */
export function computedTokenTable(): TokenTable {
    const { Apl } = createAplServices({ ...EmptyFileSystem });
    return tokenTableOf(new AplTokenBuilder().buildTokens(Apl.Grammar, { caseInsensitive: Apl.LanguageMetaData.caseInsensitive }));
}
