import { expectFormatting } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { AstNode } from 'langium';
import { AplFormatter } from '../../../language/lsp/apl-formatter.js';
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
        const entries = loadCorpus();
        const texts = [...entries.map(e => e.query), ...parseableCorpusTexts(entries).filter(p => p.entry.shape === 'fragment').map(p => p.text)];
        expect(texts.length).toBeGreaterThan(900);
        const astChanged: string[] = [];
        const notIdempotent: string[] = [];
        let formattedCount = 0;
        for (const q of texts) {
            const before = parse(q);
            const once = formatter.formatText(q);
            if (once !== q) formattedCount++;
            const after = parse(once);
            if (JSON.stringify(dump(before.value)) !== JSON.stringify(dump(after.value)) || after.parserErrors.length !== before.parserErrors.length) astChanged.push(q);
            if (formatter.formatText(once) !== once) notIdempotent.push(q);
        }
        expect(astChanged).toEqual([]);
        expect(notIdempotent).toEqual([]);
        expect(formattedCount).toBeGreaterThan(50);
    }, 120_000);
});
