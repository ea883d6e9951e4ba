import { expectFormatting } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { AstNode } from 'langium';
import { AplFormatter } from '../../../language/lsp/apl-formatter.js';
import type { AplFormatOptions } from '../../../language/lsp/apl-format-options.js';
import { loadCorpus, parseableCorpusTexts } from '../../support/corpus.js';
import { lspServices } from './lsp-services.js';

const services = lspServices();
const formatting = expectFormatting(services);
const formatter = services.lsp.Formatter as AplFormatter;

/** The AST without positions, containers or CST: what the query means. */
function dump(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(dump);
    if (node && typeof node === 'object') {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(node as AstNode)) {
            if (k.startsWith('$') && k !== '$type') continue;
            out[k] = dump(v);
        }
        return out;
    }
    return node;
}

function parse(text: string) {
    return services.parser.LangiumParser.parse(text);
}

function corpusTexts(): string[] {
    const entries = loadCorpus();
    return [...entries.map(e => e.query), ...parseableCorpusTexts(entries).filter(p => p.entry.shape === 'fragment').map(p => p.text)];
}

/** Formats every corpus query with `options`: the queries whose AST changed, those not idempotent, and how many changed. */
function formatCorpus(options: Partial<AplFormatOptions>, texts = corpusTexts()): { astChanged: string[]; notIdempotent: string[]; formattedCount: number; outputs: string[] } {
    expect(texts.length).toBeGreaterThan(900);
    const astChanged: string[] = [];
    const notIdempotent: string[] = [];
    const outputs: string[] = [];
    let formattedCount = 0;
    for (const q of texts) {
        const before = parse(q);
        const once = formatter.formatText(q, options);
        outputs.push(once);
        if (once !== q) formattedCount++;
        const after = parse(once);
        if (JSON.stringify(dump(before.value)) !== JSON.stringify(dump(after.value)) || after.parserErrors.length !== before.parserErrors.length) astChanged.push(q);
        if (formatter.formatText(once, options) !== once) notIdempotent.push(q);
    }
    return { astChanged, notIdempotent, formattedCount, outputs };
}

describe('formatting', () => {
    it("['sample-http-logs'] | where status=='500'|summarize count() by method", async () => {
        await formatting({
            before: "['sample-http-logs'] | where status=='500'|summarize count() by method",
            after: "['sample-http-logs']\n| where status == '500'\n| summarize count() by method",
        });
    });

    it("T | extend a=x+1,b = f( a ,2 )", async () => {
        await formatting({
            before: 'T | extend a=x+1,b = f( a ,2 )',
            after: 'T\n| extend a = x + 1, b = f(a, 2)',
        });
    });

    it('keeps blank lines between query blocks, comments and continuation indentation', async () => {
        await formatting({
            before: "// errors\nT   |  where x>1   // big\n\n\n\nU\n| summarize\n    c = count()\n  by k  \n",
            after: "// errors\nT\n| where x > 1   // big\n\nU\n| summarize\n    c = count()\n  by k\n",
        });
    });

    it("T | join kind = inner (U | project a) on a", async () => {
        await formatting({
            before: 'T | join kind = inner (U | project a) on a',
            after: 'T\n| join kind=inner (U | project a) on a',
        });
    });

    it("T | where -x > 1 and y in ('a','b') and z between (1 .. 5) and name:\"abc\"", async () => {
        await formatting({
            before: "T | where -x>1 and y in('a','b') and z between (1 .. 5) and name:\"abc\"",
            after: "T\n| where -x > 1 and y in ('a', 'b') and z between (1 .. 5) and name:\"abc\"",
        });
    });

    it('let x = T | where a;', async () => {
        await formatting({ before: 'let x = T | where a;\nx | count', after: 'let x = T\n| where a;\nx\n| count' });
    });

    it('leaves a document with syntax errors alone', async () => {
        await formatting({ before: 'T | where (x==', after: 'T | where (x==' });
    });

    it('is idempotent on its own output', () => {
        const once = formatter.formatText("T|where a==1|project b=a*2 , c // note\n|take 10");
        expect(formatter.formatText(once)).toBe(once);
    });

    it('every corpus query: format(q) parses to the same AST, and format(format(q)) == format(q)', () => {
        const { astChanged, notIdempotent, formattedCount } = formatCorpus({});
        expect(astChanged).toEqual([]);
        expect(notIdempotent).toEqual([]);
        expect(formattedCount).toBeGreaterThan(50);
    }, 120_000);
});

describe('format options', () => {
    const q = "['sample-http-logs'] | where status=='500' and method == 'GET' | join kind=inner (['sample-http-logs'] | project id) on id | project id, method, uri, status, ['geo.city'], ['geo.country'], req_duration_ms, user_agent";

    it(`the defaults are today's layout: ${q}`, () => {
        expect(formatter.formatText(q, { pipe: 'start', pipeline: 'one-per-line', width: 100, namedArgumentSpaces: false, projectCommas: 'keep', indent: 'keep' })).toBe(formatter.formatText(q));
    });

    it(`pipe: end — ${q}`, () => {
        expect(formatter.formatText(q, { pipe: 'end' })).toBe(
            "['sample-http-logs'] |\nwhere status == '500' and method == 'GET' |\njoin kind=inner (['sample-http-logs'] | project id) on id |\nproject id, method, uri, status, ['geo.city'], ['geo.country'], req_duration_ms, user_agent");
    });

    it("pipe: end keeps a pipe after a comment at its line's start: T | where x // c\n| count", () => {
        expect(formatter.formatText('T | where x // c\n| count | take 1', { pipe: 'end' })).toBe('T |\nwhere x // c\n| count |\ntake 1');
    });

    it('pipeline: fit — T | where a>1 | summarize count() by b (short: one line) and a long one (one operator a line)', () => {
        expect(formatter.formatText('T\n| where a>1\n| summarize count() by b', { pipeline: 'fit', width: 40 })).toBe('T | where a > 1 | summarize count() by b');
        expect(formatter.formatText('T | where a>1 | summarize count() by bbbbbbbbbbbbbbbbbbbbbbbbbbbb', { pipeline: 'fit', width: 40 }))
            .toBe('T\n| where a > 1\n| summarize count() by bbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    });

    it('namedArgumentSpaces — T | join kind=inner (U) on a', () => {
        expect(formatter.formatText('T | join kind=inner (U) on a', { namedArgumentSpaces: true })).toBe('T\n| join kind = inner (U) on a');
        expect(formatter.formatText('T | join kind = inner (U) on a')).toBe('T\n| join kind=inner (U) on a');
    });

    it(`projectCommas: end and start — ${q}`, () => {
        const tail = (s: string) => s.slice(s.indexOf('| project id,') >= 0 ? s.indexOf('| project id,') : s.indexOf('| project id\n'));
        expect(tail(formatter.formatText(q, { projectCommas: 'end', width: 60 }))).toBe(
            "| project id,\n    method,\n    uri,\n    status,\n    ['geo.city'],\n    ['geo.country'],\n    req_duration_ms,\n    user_agent");
        expect(tail(formatter.formatText(q, { projectCommas: 'start', width: 60, indent: 2 }))).toBe(
            "| project id\n  , method\n  , uri\n  , status\n  , ['geo.city']\n  , ['geo.country']\n  , req_duration_ms\n  , user_agent");
        // Short lists stay on one line.
        expect(formatter.formatText('T | project a, b', { projectCommas: 'end', width: 60 })).toBe('T\n| project a, b');
    });

    it('indent: 2 — T\n| summarize\n        c = count()\n     by k', () => {
        expect(formatter.formatText('T\n| summarize\n        c = count()\n     by k', { indent: 2 })).toBe('T\n| summarize\n  c = count()\n  by k');
    });

    const optionSets: Array<Partial<AplFormatOptions>> = [
        { pipe: 'end' },
        { pipeline: 'fit', width: 80 },
        { namedArgumentSpaces: true },
        { projectCommas: 'end', width: 40 },
        { projectCommas: 'start', width: 40 },
        { indent: 2 },
        { pipe: 'end', pipeline: 'fit', width: 60, namedArgumentSpaces: true, projectCommas: 'start', indent: 0 },
    ];
    for (const options of optionSets) {
        it(`every corpus query with ${JSON.stringify(options)}: same AST, idempotent, and the option shows`, () => {
            const texts = corpusTexts();
            const { astChanged, notIdempotent, outputs } = formatCorpus(options, texts);
            expect(astChanged).toEqual([]);
            expect(notIdempotent).toEqual([]);
            // The option changes the layout of some queries (it is not ignored).
            const defaults = texts.map(t => formatter.formatText(t));
            expect(outputs.filter((o, i) => o !== defaults[i]).length).toBeGreaterThan(5);
        }, 240_000);
    }
});
