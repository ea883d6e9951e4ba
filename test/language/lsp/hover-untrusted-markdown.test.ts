/**
 * Hover and completion documentation built from a schema file (or a service's field descriptions)
 * is shown as text: no remote image (a tracking pixel on hover), no raw HTML, no link that is not ours.
 */
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { CompletionItem, MarkupContent } from 'vscode-languageserver';
import { createAplServices } from '../../../language/apl-module.js';
import type { Model } from '../../../language/generated/ast.js';
import { StaticSchemaProvider } from '../../../language/schema/static-schema-provider.js';

const SCHEMA = JSON.stringify({
    datasets: {
        logs: {
            status: { type: 'string', description: 'HTTP status ![x](http://evil/p.png) <img src="http://evil/q.png"> [click](http://evil/) <script>alert(1)</script>', unit: '`x` ![u](http://evil/u.png)' },
            ["a```\n![n](http://evil/n.png)"]: { type: 'long', description: '![x][ref]\n\n[ref]: http://evil/r.png' },
        },
    },
});

const services = createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => StaticSchemaProvider.fromJson(SCHEMA, 'schema.json') } } }).Apl;
const parse = parseHelper<Model>(services);

async function hoverAt(text: string, needle: string): Promise<string> {
    const doc = await parse(text);
    const offset = text.indexOf(needle) + 1;
    const hover = await services.lsp.HoverProvider!.getHoverContent(doc, { textDocument: { uri: doc.textDocument.uri }, position: doc.textDocument.positionAt(offset) });
    expect(hover, `a hover at ${needle}`).toBeDefined();
    return (hover!.contents as MarkupContent).value;
}

/** The Markdown outside fenced code blocks (a fence opens and closes only with ``` at the start of a line). */
function outsideFences(markdown: string): string {
    let inside = false;
    const out: string[] = [];
    for (const line of markdown.split('\n')) {
        if (line.startsWith('```')) inside = !inside;
        else if (!inside) out.push(line);
    }
    expect(inside, 'every fence is closed').toBe(false);
    return out.join('\n');
}

/** What a Markdown renderer would fetch or follow: an image or link with a destination, a reference definition, raw HTML. */
function expectNothingRemote(text: string): void {
    const markdown = outsideFences(text);
    expect(markdown).not.toMatch(/(?<!\\)!\[[^\]]*(?<!\\)\]\s*\(/);
    expect(markdown).not.toMatch(/(?<!\\)\[[^\]]*(?<!\\)\]\(http/);
    expect(markdown).not.toMatch(/^\s*\[[^\]]+\]:\s*http/m);
    expect(markdown).not.toMatch(/(?<!\\)<(img|script|a)\b/i);
}

describe('hover with a hostile schema file', () => {
    it("['logs'] | where status == '500'", async () => {
        const markdown = await hoverAt("['logs'] | where status == '500'", 'status');
        expect(markdown).toMatch(/\(field\) status: string/);
        expect(markdown).toContain('HTTP status');
        expect(markdown).toContain('evil/p\\.png');
        expectNothingRemote(markdown);
    });

    it("['logs'] | where ['a```\\n![n](http://evil/n.png)'] > 1", async () => {
        const markdown = await hoverAt("['logs'] | where ['a```\\n![n](http://evil/n.png)'] > 1", "['a");
        expect(markdown).toMatch(/\(field\)/);
        expectNothingRemote(markdown);
    });
});

describe('completion with a hostile schema file', () => {
    it("['logs'] | where <|>", async () => {
        const text = "['logs'] | where ";
        const doc = await parse(text);
        const list = await services.lsp.CompletionProvider!.getCompletion(doc, { textDocument: { uri: doc.textDocument.uri }, position: doc.textDocument.positionAt(text.length) });
        const items: CompletionItem[] = list?.items ?? [];
        expect(items.some(i => i.label === 'status')).toBe(true);
        for (const i of items) {
            const doc = typeof i.documentation === 'string' ? i.documentation : (i.documentation?.value ?? '');
            expectNothingRemote(doc);
            expectNothingRemote(i.detail ?? '');
        }
    });
});
