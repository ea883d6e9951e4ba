/**
 * What a new user types first should come first: completion puts labels that start with the typed
 * word before fuzzy matches, and "did you mean" prefers what fits the position (an aggregation
 * inside summarize).
 */
import { expectCompletion, validationHelper } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { CompletionList } from 'vscode-languageserver';
import { IssueCodes } from '../../../language/apl-issue-codes.js';
import type { Model } from '../../../language/generated/ast.js';
import { lspServices } from './lsp-services.js';

const services = lspServices();
const complete = expectCompletion(services);
const validate = validationHelper<Model>(services);

/**
 * The labels at `<|>` as the server sends them. Their order must already be the sortText order:
 * some clients show the list as it comes, or use the position to break ties.
 */
async function ordered(text: string): Promise<string[]> {
    let result: CompletionList = { isIncomplete: false, items: [] };
    await complete({ text, index: 0, assert: list => { result = list; }, disposeAfterCheck: true });
    const bySortText = [...result.items].sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
    expect(result.items.map(i => i.label)).toEqual(bySortText.map(i => i.label));
    return result.items.map(i => i.label as string);
}

async function suggestionFor(text: string): Promise<{ code: string; suggestion?: string }[]> {
    const result = await validate(text);
    return result.diagnostics.map(d => ({ code: String(d.code), suggestion: (d.data as { suggestion?: string } | undefined)?.suggestion }));
}

describe('completion: prefix matches first', () => {
    it("['sample-http-logs'] | where sta<|>", async () => {
        const labels = await ordered("['sample-http-logs'] | where sta<|>");
        expect(labels[0]).toBe('status');
        expect(labels.indexOf('status')).toBeLessThan(labels.indexOf('server_datacenter'));
    });

    it("['sample-http-logs'] | extend n = strl<|>", async () => {
        const labels = await ordered("['sample-http-logs'] | extend n = strl<|>");
        expect(labels[0]).toBe('strlen');
    });

    it("['sample-http-logs'] | summarize cou<|>", async () => {
        const labels = await ordered("['sample-http-logs'] | summarize cou<|>");
        expect(labels[0]).toMatch(/^count/);
    });
});

describe('did you mean: what fits the position', () => {
    it("['sample-http-logs'] | summarize cnt()", async () => {
        expect(await suggestionFor("['sample-http-logs'] | summarize cnt()")).toEqual([{ code: IssueCodes.UnknownFunction, suggestion: 'count' }]);
    });

    it("['sample-http-logs'] | summarize n = cnt() by method", async () => {
        expect(await suggestionFor("['sample-http-logs'] | summarize n = cnt() by method")).toEqual([{ code: IssueCodes.UnknownFunction, suggestion: 'count' }]);
    });

    it("['sample-http-logs'] | extend x = cot(1.0), y = strlenn(uri)", async () => {
        expect(await suggestionFor("['sample-http-logs'] | extend x = cot(1.0), y = strlenn(uri)")).toEqual([{ code: IssueCodes.UnknownFunction, suggestion: 'strlen' }]);
    });

    it("['sample-http-logs'] | summarize dcnt(id)", async () => {
        expect(await suggestionFor("['sample-http-logs'] | summarize dcnt(id)")).toEqual([{ code: IssueCodes.UnknownFunction, suggestion: 'dcount' }]);
    });
});
