/**
 * The parser's lookahead comes from a table generated at build time (language/apl-lookahead.generated.ts,
 * `npm run langium:generate`). The table must be what chevrotain computes for the current grammar,
 * and parsing with it must give the same trees and errors as chevrotain's own lookahead.
 */
import { LLkLookaheadStrategy } from 'chevrotain';
import { EmptyFileSystem, type LangiumCompletionParser } from 'langium';
import { describe, expect, it, vi } from 'vitest';
import { createAplServices } from '../../../language/apl-module.js';
import { parse, parsingServices } from '../../../language/apl-parse.js';
import { AplLookaheadTable } from '../../../language/parser/apl-lookahead.generated.js';
import { parserConfig } from '../../../language/generated/module.js';
import { computeLookaheadPathNames, recordLookaheadDecisions } from '../../../language/parser/lookahead-decisions.js';
import { decisionKey } from '../../../language/parser/lookahead-table.js';
import { astSnapshot } from '../../support/ast-print.js';
import { BROKEN_QUERIES } from '../../support/broken-queries.js';
import { parseableCorpusTexts } from '../../support/corpus.js';

const STALE = 'language/apl-lookahead.generated.ts is stale: run `npm run langium:generate`';

describe('generated lookahead table', () => {
    const table = AplLookaheadTable();
    const { decisions, maxLookahead } = recordLookaheadDecisions();

    it('has the paths chevrotain computes for every decision of the grammar, and no others', () => {
        expect(table.maxLookahead, STALE).toBe(maxLookahead);
        const expected = Object.fromEntries(
            decisions.map(decision => [decisionKey(decision.rule.name, decision.prodType, decision.occurrence), computeLookaheadPathNames(decision)]),
        );
        expect(decisions.length).toBeGreaterThan(100);
        expect(Object.keys(table.decisions).sort(), STALE).toEqual(Object.keys(expected).sort());
        const stale = Object.keys(expected).filter(key => JSON.stringify(table.decisions[key]) !== JSON.stringify(expected[key]));
        expect(stale, STALE).toEqual([]);
    });
});

/** The same language with chevrotain's LL(3) lookahead, computed from the grammar at each start. */
const chevrotainServices = createAplServices({
    ...EmptyFileSystem,
    module: { parser: { ParserConfig: () => ({ ...parserConfig, lookaheadStrategy: new LLkLookaheadStrategy({ maxLookahead: 3 }) }) } },
}).Apl;
const services = parsingServices();

function expectSameParse(text: string): void {
    const withTable = parse(text, services);
    const withChevrotain = parse(text, chevrotainServices);
    expect(withTable.problems).toEqual(withChevrotain.problems);
    expect(astSnapshot(withTable.model)).toEqual(astSnapshot(withChevrotain.model));
}

describe('parsing with the table gives the same tree and errors as chevrotain\'s lookahead', () => {
    it('every parseable query and fragment of the docs corpus', () => {
        const texts = parseableCorpusTexts().map(item => item.text);
        expect(texts.length).toBeGreaterThan(800);
        for (const text of texts) expectSameParse(text);
    });

    for (const query of BROKEN_QUERIES) {
        it(query, () => expectSameParse(query));
    }
});

describe('the completion parser uses the table too', () => {
    /** What completion reads from the completion parser, with grammar elements shared by both services. */
    function completionParse(parser: LangiumCompletionParser, text: string) {
        const { elementStack, tokenIndex, tokens } = parser.parse(text);
        return { elementStack, tokenIndex, tokenCount: tokens.length };
    }

    const inputs = [
        "['sample-http-logs'] | where ",
        "['sample-http-logs'] | summarize count() by ",
        "['sample-http-logs'] | extend x = iff(",
        "['sample-http-logs'] | project a, b = ",
        "['otel-demo-traces'] | join kind=inner (",
        "let x = 1; ['sample-http-logs'] | take x | so",
    ];
    for (const text of inputs) {
        it(text, () => {
            const withTable = completionParse(services.parser.CompletionParser, text);
            const withChevrotain = completionParse(chevrotainServices.parser.CompletionParser, text);
            expect(withTable.tokenIndex).toBe(withChevrotain.tokenIndex);
            expect(withTable.tokenCount).toBe(withChevrotain.tokenCount);
            expect(withTable.elementStack.length).toBe(withChevrotain.elementStack.length);
            withTable.elementStack.forEach((element, i) => expect(element).toBe(withChevrotain.elementStack[i]));
        });
    }

    it('answers every decision of a parse and a completion parse without chevrotain computing paths', () => {
        // Decisions the table cannot answer fall back to chevrotain's LLkLookaheadStrategy methods.
        const alternation = vi.spyOn(LLkLookaheadStrategy.prototype, 'buildLookaheadForAlternation');
        const optional = vi.spyOn(LLkLookaheadStrategy.prototype, 'buildLookaheadForOptional');
        try {
            const fresh = createAplServices(EmptyFileSystem).Apl;
            for (const text of [...inputs, ...BROKEN_QUERIES]) {
                fresh.parser.CompletionParser.parse(text);
                parse(text, fresh);
            }
            expect(alternation).not.toHaveBeenCalled();
            expect(optional).not.toHaveBeenCalled();
        } finally {
            alternation.mockRestore();
            optional.mockRestore();
        }
    });
});
