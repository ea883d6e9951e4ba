/**
 * Linear scanners for APL's quoted tokens, equal to the grammar's terminals (apl.langium):
 *
 *     STRING           "([^"\\\n]|\\.)*"  |  '([^'\\\n]|\\.)*'
 *     VERBATIM_STRING  @"([^"\n]|"")*"    |  @'([^'\n]|'')*'
 *     BRACKET_NAME     \[[ \t]*(STRING)[ \t]*\]
 *
 * They use no regular expression and no recursion, so a string of any length lexes in one pass.
 * test/language/quoted-token-matchers.test.ts checks them against the expressions.
 */
import type { CustomPatternMatcherFunc } from 'chevrotain';

/** What `.` does not match without the `s` flag. */
function isLineTerminator(c: number): boolean {
    return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/** End (exclusive) of the escaped string whose quote is at `start`, or -1. */
function escapedStringEnd(text: string, start: number): number {
    const quote = text.charCodeAt(start);
    if (quote !== 34 && quote !== 39) return -1;
    for (let i = start + 1; i < text.length; ) {
        const c = text.charCodeAt(i);
        if (c === quote) return i + 1;
        if (c === 10) return -1;
        if (c === 92) {
            if (i + 1 >= text.length || isLineTerminator(text.charCodeAt(i + 1))) return -1;
            i += 2;
        } else i++;
    }
    return -1;
}

/** End (exclusive) of the verbatim string whose `@` is at `start`, or -1. A doubled quote is one quote. */
function verbatimStringEnd(text: string, start: number): number {
    if (text.charCodeAt(start) !== 64) return -1;
    const quote = text.charCodeAt(start + 1);
    if (quote !== 34 && quote !== 39) return -1;
    // Where the latest doubled quote began: the expression backtracks to close there if nothing later closes.
    let lastPair = -1;
    for (let i = start + 2; i < text.length; ) {
        const c = text.charCodeAt(i);
        if (c === quote) {
            if (text.charCodeAt(i + 1) === quote) {
                lastPair = i;
                i += 2;
                continue;
            }
            return i + 1;
        }
        if (c === 10) break;
        i++;
    }
    return lastPair >= 0 ? lastPair + 1 : -1;
}

function skipBlanks(text: string, i: number): number {
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    return i;
}

function bracketNameEnd(text: string, start: number): number {
    if (text.charCodeAt(start) !== 91) return -1;
    const end = escapedStringEnd(text, skipBlanks(text, start + 1));
    if (end < 0) return -1;
    const close = skipBlanks(text, end);
    return text.charCodeAt(close) === 93 ? close + 1 : -1;
}

function matcher(end: (text: string, offset: number) => number): CustomPatternMatcherFunc {
    return (text: string, offset: number) => {
        const e = end(text, offset);
        return e < 0 ? null : ([text.slice(offset, e)] as RegExpExecArray);
    };
}

export interface QuotedTerminal {
    match: CustomPatternMatcherFunc;
    /** The characters a match can start with (chevrotain's first-character optimisation). */
    startChars: string[];
}

export const QUOTED_TERMINALS: Record<string, QuotedTerminal> = {
    STRING: { match: matcher(escapedStringEnd), startChars: ['"', "'"] },
    VERBATIM_STRING: { match: matcher(verbatimStringEnd), startChars: ['@'] },
    BRACKET_NAME: { match: matcher(bracketNameEnd), startChars: ['['] },
};
