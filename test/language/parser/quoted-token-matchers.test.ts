/**
 * The hand-written scanners of quoted tokens match exactly what the grammar's expressions match,
 * and lex strings of any length (the expressions overflowed V8's backtracking stack on a 5 MB string).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUOTED_TERMINALS } from '../../../language/parser/quoted-token-matchers.js';
import { parse, parsingServices } from '../../../language/apl-parse.js';

/** The terminals of language/apl.langium, anchored at the offset. */
const REGEXES: Record<string, RegExp> = {
    STRING: /"([^"\\\n]|\\.)*"|'([^'\\\n]|\\.)*'/y,
    VERBATIM_STRING: /[@]("([^"\n]|"")*"|'([^'\n]|'')*')/y,
    BRACKET_NAME: /\[[ \t]*('([^'\\\n]|\\.)*'|"([^"\\\n]|\\.)*")[ \t]*\]/y,
};

describe('quoted token scanners', () => {
    for (const name of Object.keys(REGEXES)) {
        it(`${name} matches what its expression matches`, () => {
            const text = fc.array(fc.constantFrom('"', "'", '\\', '\n', '\r', '\u2028', '@', '[', ']', ' ', '\t', 'a'), { maxLength: 14 }).map(a => a.join(''));
            fc.assert(
                fc.property(text, fc.nat(3), (t, at) => {
                    const offset = Math.min(at, t.length);
                    const re = REGEXES[name];
                    re.lastIndex = offset;
                    const expected = re.exec(t)?.[0] ?? null;
                    const actual = QUOTED_TERMINALS[name].match(t, offset, [], {})?.[0] ?? null;
                    expect(actual).toBe(expected);
                }),
                { numRuns: 3000, seed: 9 },
            );
        });
    }

    const lexer = parsingServices().parser.Lexer;

    for (const [label, q] of [['"…"', '"'], ["'…'", "'"]] as const) {
        it(`print x = ${label} with 5 MB of text lexes as one string`, () => {
            const { tokens, errors } = lexer.tokenize(`print x = ${q}${'a'.repeat(5 * 1024 * 1024)}${q}`);
            expect(errors).toEqual([]);
            expect(tokens.map(t => t.tokenType.name)).toEqual(['print', 'ID', '=', 'STRING']);
        });
    }

    it("print x = @'…' with 5 MB of doubled quotes lexes as one verbatim string", () => {
        const { tokens } = lexer.tokenize(`print x = @'${"''".repeat(2.5 * 1024 * 1024)}'`);
        expect(tokens.map(t => t.tokenType.name)).toEqual(['print', 'ID', '=', 'VERBATIM_STRING']);
    });

    it("['a…'] with 5 MB of escapes lexes as one bracketed name", () => {
        const { tokens } = lexer.tokenize(`['${'\\n'.repeat(2.5 * 1024 * 1024)}']`);
        expect(tokens.map(t => t.tokenType.name)).toEqual(['BRACKET_NAME']);
    });

    it('print x = "…" with 5 MB of text is one APL1003 error (too large to parse)', () => {
        const { problems } = parse(`print x = "${'a'.repeat(5 * 1024 * 1024)}"`);
        expect(problems.map(p => p.code)).toEqual(['APL1003']);
    });
});
