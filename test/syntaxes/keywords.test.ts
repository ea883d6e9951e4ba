/**
 * The TextMate grammar highlights as keywords exactly the tabular operators and word operators that
 * APL has: those the Langium grammar parses and the catalogue describes. A KQL operator that APL
 * lacks (`mv-apply`, `filter`, `render`, …) must not look supported in the editor.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GrammarAST } from 'langium';
import { describe, expect, it } from 'vitest';
import { SCALAR_OPERATORS, TABULAR_OPERATORS } from '../../language/builtins/index.js';
import { AplGrammar } from '../../language/generated/grammar.js';

interface TmPattern {
    comment?: string;
    match?: string;
    patterns?: TmPattern[];
}

const tmGrammar = JSON.parse(readFileSync(fileURLToPath(new URL('../../syntaxes/apl.tmLanguage.json', import.meta.url)), 'utf8')) as {
    repository: Record<string, TmPattern>;
};

/** The words of the first `(a|b|c)` alternation of a TextMate `match` regex. */
function alternation(match: string): string[] {
    const m = /\((?:\?:)?((?:[A-Za-z_][\w-]*(?:\\s\+[a-z]+)?~?\|)*[A-Za-z_][\w-]*(?:\\s\+[a-z]+)?~?)\)/.exec(match);
    if (!m) throw new Error(`no alternation in ${match}`);
    return m[1].split('|').map(w => w.replace(/\\s\+/g, ' '));
}

function tmPattern(repository: string, comment: string): string {
    const found = tmGrammar.repository[repository].patterns?.find(p => p.comment?.startsWith(comment));
    if (!found?.match) throw new Error(`no pattern '${comment}' in #${repository}`);
    return found.match;
}

const sorted = (words: Iterable<string>): string[] => [...new Set(words)].sort();

// ---------------------------------------------------------------- what the Langium grammar parses

const rules = new Map(AplGrammar().rules.map(r => [r.name, r]));

function rule(name: string): GrammarAST.ParserRule {
    const r = rules.get(name);
    if (!r || r.$type !== 'ParserRule') throw new Error(`no parser rule ${name}`);
    return r as GrammarAST.ParserRule;
}

/** Every element below `element` (depth first, itself included). */
function* elements(element: GrammarAST.AbstractElement): Generator<GrammarAST.AbstractElement> {
    yield element;
    const e = element as GrammarAST.AbstractElement & { elements?: GrammarAST.AbstractElement[]; terminal?: GrammarAST.AbstractElement };
    for (const child of e.elements ?? []) yield* elements(child);
    if (e.terminal) yield* elements(e.terminal);
}

function keywords(element: GrammarAST.AbstractElement): string[] {
    return [...elements(element)].filter((e): e is GrammarAST.Keyword => e.$type === 'Keyword').map(k => k.value);
}

/**
 * Operators the grammar parses only to refuse them with a diagnostic and a quick fix: `render`
 * (APL0017), so a query pasted from KQL still checks. APL lacks them: they are not highlighted.
 */
const REFUSED_OPERATOR_RULES = new Set(['RenderOperator']);

/** The keywords assigned to `keyword=` in each rule that `TabularOperator` lists (the refused ones left out). */
function pipeOperatorKeywords(): string[] {
    const out: string[] = [];
    for (const e of elements(rule('TabularOperator').definition)) {
        if (e.$type !== 'RuleCall') continue;
        const called = (e as GrammarAST.RuleCall).rule.ref as GrammarAST.ParserRule;
        if (REFUSED_OPERATOR_RULES.has(called.name)) continue;
        const assignment = [...elements(called.definition)].find((a): a is GrammarAST.Assignment => a.$type === 'Assignment' && (a as GrammarAST.Assignment).feature === 'keyword');
        if (!assignment) throw new Error(`${called.name} has no keyword= assignment`);
        out.push(...keywords(assignment.terminal));
    }
    return sorted(out);
}

/** The leading keyword of the rules that start a query without a dataset. */
function sourceKeywords(): string[] {
    return sorted(['DatatableExpression', 'ExternalDataExpression', 'PrintExpression', 'UnionExpression', 'SearchExpression'].map(name => keywords(rule(name).definition)[0]));
}

/** Word operators (`contains`, `has_any`, `matches regex`, `in~`, `and`), without the `!` forms. */
function wordOperatorKeywords(): string[] {
    const words = [...keywords(rule('StringOperator').definition), ...keywords(rule('InOperator').definition), 'between', 'and', 'or']
        .filter(w => /^!?[a-z]/.test(w))
        .map(w => w.replace(/^!/, ''))
        .map(w => (w === 'matches' ? 'matches regex' : w))
        .filter(w => w !== 'regex');
    return sorted(words);
}

// ---------------------------------------------------------------- what the TextMate grammar highlights

function tmWordOperators(): string[] {
    const words: string[] = [];
    for (const p of tmGrammar.repository['word-operator'].patterns ?? []) {
        if (/in~/.test(p.match!) && !/\(/.test(p.match!)) words.push('in~');
        else words.push(...alternation(p.match!));
    }
    return sorted(words);
}

describe('TextMate keywords agree with the Langium grammar and the catalogue', () => {
    const pipe = pipeOperatorKeywords();
    const sources = sourceKeywords();
    const catalogue = sorted(TABULAR_OPERATORS.flatMap(o => [o.name, ...(o.aliases ?? [])]));

    it('the grammar extraction finds the operators (sanity)', () => {
        expect(pipe).toEqual(expect.arrayContaining(['where', 'summarize', 'mv-expand', 'project-away', 'sort', 'order', 'take', 'limit']));
        expect(sources).toEqual(['datatable', 'externaldata', 'print', 'search', 'union']);
    });

    it('every catalogued tabular operator parses (after a pipe or as a source), and every one that parses is catalogued', () => {
        expect(catalogue.filter(n => !pipe.includes(n) && !sources.includes(n))).toEqual([]);
        expect(pipe.filter(n => !catalogue.includes(n))).toEqual([]);
    });

    it('| <operator>: the operators highlighted after a pipe are exactly those the grammar parses there', () => {
        expect(sorted(alternation(tmPattern('tabular-operator', 'After a pipe')))).toEqual(pipe);
    });

    it('<operator> at the start of a line: the pipe operators and the query sources', () => {
        expect(sorted(alternation(tmPattern('tabular-operator', 'At the start of a line')))).toEqual(sorted([...pipe, ...sources]));
    });

    it('hyphenated operator names highlighted anywhere are the hyphenated operators APL has', () => {
        expect(sorted(alternation(tmPattern('tabular-operator', 'Hyphenated')))).toEqual(pipe.filter(n => n.includes('-')));
    });

    it('the sources highlighted anywhere (datatable, externaldata, print) are query sources', () => {
        const highlighted = alternation(tmPattern('tabular-operator', 'Sources'));
        expect(highlighted.filter(n => !sources.includes(n))).toEqual([]);
    });

    it('where x has_all_cs (…): the word operators highlighted are exactly those the grammar parses', () => {
        expect(tmWordOperators()).toEqual(wordOperatorKeywords());
    });

    it('every word operator of the catalogue parses', () => {
        const words = sorted(SCALAR_OPERATORS.map(o => o.name).filter(n => /^!?[a-z]/.test(n)).map(n => n.replace(/^!/, '')));
        expect(words.filter(w => !wordOperatorKeywords().includes(w))).toEqual([]);
    });

    it('the TextMate grammar lists no function names: calls are highlighted by shape, not from a list', () => {
        const fn = tmGrammar.repository['function-call'];
        expect(fn.match).toBe('\\b([A-Za-z_][A-Za-z0-9_]*)\\s*(?=\\()');
    });
});
