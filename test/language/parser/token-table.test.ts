/**
 * The lexer's tokens come from a table generated at build time (language/parser/apl-token-table.generated.ts,
 * `npm run langium:generate`). The table must be what Langium's token builder computes for the current
 * grammar, and the tokens built from it must be the computed ones: same order, patterns, groups and
 * longer alternatives.
 */
import type { TokenType } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { parsingServices } from '../../../language/apl-parse.js';
import { AplTokenBuilder } from '../../../language/parser/apl-token-builder.js';
import { AplTokenTable } from '../../../language/parser/apl-token-table.generated.js';
import { computedTokenTable } from '../../../language/parser/token-table.js';

const STALE = 'language/parser/apl-token-table.generated.ts is stale: run `npm run langium:generate`';

/** A token as data: what the lexer reads of it. */
function shape(t: TokenType): unknown {
    const alts = t.LONGER_ALT === undefined ? undefined : (Array.isArray(t.LONGER_ALT) ? t.LONGER_ALT : [t.LONGER_ALT]).map(a => a.name);
    const p = t.PATTERN;
    const pattern = p instanceof RegExp ? `/${p.source}/${p.flags}` : typeof p === 'function' ? 'function' : p;
    return { name: t.name, pattern, alts, group: t.GROUP, lineBreaks: t.LINE_BREAKS, startChars: t.START_CHARS_HINT };
}

describe('generated token table', () => {
    it('is what Langium computes from the grammar', () => {
        const computed = computedTokenTable();
        expect(computed.keywords.length).toBeGreaterThan(100);
        expect(AplTokenTable(), STALE).toEqual(computed);
    });

    it('builds the same tokens as the computation', () => {
        const { Grammar } = parsingServices();
        const fromTable = new AplTokenBuilder(AplTokenTable).buildTokens(Grammar) as TokenType[];
        const computed = new AplTokenBuilder().buildTokens(Grammar) as TokenType[];
        expect(fromTable.map(shape)).toEqual(computed.map(shape));
    });

    it.each([
        ['names a rule the grammar lacks', { keywords: [], terminals: ['NO_SUCH_TERMINAL'] }],
        ['is the generator\'s empty placeholder', { keywords: [], terminals: [] }],
    ])('a table that %s: the tokens are computed', (_, table) => {
        const { Grammar } = parsingServices();
        const tokens = new AplTokenBuilder(() => table).buildTokens(Grammar) as TokenType[];
        expect(tokens.map(shape)).toEqual((new AplTokenBuilder().buildTokens(Grammar) as TokenType[]).map(shape));
    });
});
