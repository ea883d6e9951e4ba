/**
 * Every refactor the docs corpus offers (the cursor put every 11th character of each query): the
 * result has no error, unknown dataset or unknown field that the query did not have, and it gives
 * the same rows on the sample datasets with the reference evaluator (a fixed clock, reals compared
 * to 12 significant digits: a `let` may change the order a sum adds in).
 */
import { URI, type LangiumDocument } from 'langium';
import { describe, expect, it } from 'vitest';
import type { CodeAction, TextEdit } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkServices, checkText } from '../../../language/check.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';
import { loadCorpus } from '../../support/corpus.js';
import { sampleEngine } from '../../support/sample-engine.js';

const schema = new BuiltinSchemaProvider();
const services = checkServices(schema);
const engine = sampleEngine({ rows: 200, seed: 1, end: new Date('2025-12-31T00:00:00Z') }, { clock: () => Date.parse('2026-01-01T00:00:00Z') });

/** What a run gives, comparable: sorted rows, or that it failed. */
async function outcome(query: string): Promise<string> {
    try {
        const t = (await engine.query(query, {})).tables[0];
        const n = t.columns[0]?.length ?? 0;
        const rows: string[] = [];
        const value = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v);
        for (let i = 0; i < n; i++) rows.push(JSON.stringify(t.fields.map((f, k) => [f.name, value(t.columns[k][i])])));
        return rows.sort().join('\n');
    } catch {
        // Where and how it is worded moves with the text (`unknown field or variable` / `unknown field`).
        return 'error';
    }
}

async function problems(query: string): Promise<number> {
    return (await checkText(query, { schema })).filter(d => d.severity === 'error' || d.code === 'APL0011' || d.code === 'APL0012').length;
}

describe('refactors on the docs corpus', () => {
    it('keep every query checking as before and giving the same rows', async () => {
        const entries = loadCorpus().filter(e => e.shape === 'query' && !/\b(rand|new_guid)\s*\(|\|\s*sample\b/.test(e.query));
        expect(entries.length).toBeGreaterThan(800);
        const broken: string[] = [];
        const differ: string[] = [];
        let applied = 0;
        for (const [n, entry] of entries.entries()) {
            const q = entry.query;
            const document = services.shared.workspace.LangiumDocumentFactory.fromString(q, URI.parse(`memory:///corpus${n}.apl`)) as LangiumDocument;
            const text = document.textDocument;
            const seen = new Set<string>();
            let before: { problems: number; outcome: string } | undefined;
            for (let offset = 0; offset < q.length; offset += 11) {
                const at = text.positionAt(offset);
                const actions = (await services.lsp.CodeActionProvider!.getCodeActions(document, {
                    textDocument: { uri: document.uri.toString() },
                    range: { start: at, end: at },
                    context: { diagnostics: [], only: ['refactor'] },
                })) as CodeAction[] | undefined;
                for (const action of actions ?? []) {
                    const after = TextDocument.applyEdits(TextDocument.create('memory:///a.apl', 'apl', 1, q), Object.values(action.edit!.changes!)[0] as TextEdit[]);
                    if (seen.has(after)) continue;
                    seen.add(after);
                    applied++;
                    before ??= { problems: await problems(q), outcome: await outcome(q) };
                    if ((await problems(after)) > before.problems) broken.push(`${action.title} @${offset}: ${q}\n→ ${after}`);
                    else if ((await outcome(after)) !== before.outcome) differ.push(`${action.title} @${offset}: ${q}\n→ ${after}`);
                }
            }
        }
        expect(broken).toEqual([]);
        expect(differ).toEqual([]);
        expect(applied).toBeGreaterThan(500);
    }, 300_000);
});
