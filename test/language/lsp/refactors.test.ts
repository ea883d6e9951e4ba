/**
 * The refactors of language/lsp/apl-refactors.ts. Each test takes the query (its name), a selection
 * (see Selection), the refactor's title, and the text
 * expected after it. The result must parse, check clean and give the same rows as the query on
 * the sample datasets, run by the reference evaluator.
 */
import { URI, type LangiumDocument } from 'langium';
import { describe, expect, it } from 'vitest';
import { CodeActionTriggerKind, type CodeAction, type CodeActionContext, type TextEdit } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkServices, checkText } from '../../../language/check.js';
import type { Model } from '../../../language/generated/ast.js';
import { engineSchema, sampleEngine } from '../../support/sample-engine.js';

const engine = sampleEngine({ rows: 200, seed: 1 });
const schema = engineSchema(engine);
const services = checkServices(schema);
let documents = 0;

/** A selected substring (its first occurrence, or the first after `after`), or a cursor `at` the start of one. */
type Selection = string | { at: string } | { select: string; after: string };

async function actionsFor(query: string, selection: Selection): Promise<CodeAction[]> {
    const selected = typeof selection === 'string' ? selection : 'at' in selection ? selection.at : selection.select;
    const from = typeof selection === 'object' && 'after' in selection ? query.indexOf(selection.after) : 0;
    const start = query.indexOf(selected, from);
    expect(start, `'${selected}' is in the query`).toBeGreaterThanOrEqual(0);
    const end = typeof selection === 'object' && 'at' in selection ? start : start + selected.length;
    const document = services.shared.workspace.LangiumDocumentFactory.fromString<Model>(query, URI.parse(`memory:///refactor${documents++}.apl`));
    const text = document.textDocument;
    const actions = await services.lsp.CodeActionProvider!.getCodeActions(document as LangiumDocument, {
        textDocument: { uri: document.uri.toString() },
        range: { start: text.positionAt(start), end: text.positionAt(end) },
        context: { diagnostics: [] },
    });
    return (actions ?? []).filter((a): a is CodeAction => 'kind' in a && typeof a.kind === 'string' && a.kind.startsWith('refactor'));
}

async function refactored(query: string, selection: Selection, title: string): Promise<string | undefined> {
    const action = (await actionsFor(query, selection)).find(a => a.title === title);
    if (!action) return undefined;
    const edits = Object.values(action.edit?.changes ?? {})[0] as TextEdit[];
    return TextDocument.applyEdits(TextDocument.create('memory:///x.apl', 'apl', 1, query), edits);
}

async function sortedRows(query: string): Promise<string[]> {
    const result = await engine.query(query, {});
    const t = result.tables[0];
    const n = t.columns[0]?.length ?? 0;
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(JSON.stringify(t.fields.map((f, k) => [f.name, t.columns[k][i]])));
    return out.sort();
}

/** The refactor gives `expected`, which checks clean and evaluates to the same rows as `query`. */
async function expectRefactor(query: string, selection: Selection, title: string, expected: string): Promise<void> {
    expect(await checkText(query, { schema }), 'the query itself checks clean').toEqual([]);
    const after = await refactored(query, selection, title);
    expect(after).toBe(expected);
    expect((await checkText(expected, { schema })).map(d => d.code)).toEqual([]);
    const before = await sortedRows(query);
    expect(before.length, 'the query returns rows, so that equal rows prove something').toBeGreaterThan(0);
    expect(await sortedRows(expected)).toEqual(before);
}

async function expectNoRefactor(query: string, selection: Selection, title: string): Promise<void> {
    expect(await refactored(query, selection, title)).toBeUndefined();
}

const LOGS = "['sample-http-logs']";

describe('extract to a let', () => {
    it(`${LOGS} | where _time > ago(30d) | summarize c = countif(_time > ago(30d)) by method`, async () => {
        const q = `${LOGS} | where _time > ago(30d) | summarize c = countif(_time > ago(30d)) by method`;
        await expectRefactor(q, 'ago(30d)', 'Extract expression to a let',
            `let value = ago(30d);\n${LOGS} | where _time > value | summarize c = countif(_time > value) by method`);
    });

    it(`${LOGS}\n| where status == '500'\n| extend slow = req_duration_ms > 100 * 2 (on its own line: the let gets a line)`, async () => {
        const q = `${LOGS}\n| where status == '500'\n| extend slow = req_duration_ms > 100 * 2`;
        await expectRefactor(q, '100 * 2', 'Extract expression to a let', `let value = 100 * 2;\n${LOGS}\n| where status == '500'\n| extend slow = req_duration_ms > value`);
    });

    it(`${LOGS} | where status == '500' (a predicate that reads a column is not a scalar let)`, async () => {
        await expectNoRefactor(`${LOGS} | where status == '500'`, "status == '500'", 'Extract expression to a let');
    });

    it(`${LOGS} | where method in ('GET', 'PUT') | summarize count() by method`, async () => {
        const q = `${LOGS} | where method in ('GET', 'PUT') | summarize count() by method`;
        await expectRefactor(q, "('GET', 'PUT')", 'Extract values to a let',
            `let values = dynamic(['GET', 'PUT']);\n${LOGS} | where method in (values) | summarize count() by method`);
    });

    it(`${LOGS} | where method !in ('GET', 'PUT') | summarize count() by method`, async () => {
        const q = `${LOGS} | where method !in ('GET', 'PUT') | summarize count() by method`;
        await expectRefactor(q, "'GET', 'PUT'", 'Extract values to a let',
            `let values = dynamic(['GET', 'PUT']);\n${LOGS} | where method !in (values) | summarize count() by method`);
    });

    it(`${LOGS}\n| where status == '500'\n| summarize count() by method;\n${LOGS}\n| where status == '500'\n| summarize avg(req_duration_ms)`, async () => {
        const q = `${LOGS}\n| where status == '500'\n| summarize count() by method;\n${LOGS}\n| where status == '500'\n| summarize avg(req_duration_ms)`;
        const after = await refactored(q, `${LOGS}\n| where status == '500'`, 'Extract pipeline prefix to a let');
        expect(after).toBe(`let base = ${LOGS}\n| where status == '500';\nbase\n| summarize count() by method;\nbase\n| summarize avg(req_duration_ms)`);
        expect((await checkText(after!, { schema })).map(d => d.code)).toEqual([]);
    });

    it(`${LOGS}\n| where status == '500'\n| where method == 'GET'\n| summarize count() by ['geo.city']`, async () => {
        const q = `${LOGS}\n| where status == '500'\n| where method == 'GET'\n| summarize count() by ['geo.city']`;
        await expectRefactor(q, { at: "where method" }, 'Extract pipeline prefix to a let',
            `let base = ${LOGS}\n| where status == '500'\n| where method == 'GET';\nbase\n| summarize count() by ['geo.city']`);
    });

    it(`let recent = ${LOGS} | where _time > ago(30d);\nrecent | where _time > ago(30d) | count (a use in an earlier statement: the let goes first)`, async () => {
        const q = `let recent = ${LOGS} | where _time > ago(30d);\nrecent | where _time > ago(30d) | count`;
        await expectRefactor(q, { select: 'ago(30d)', after: 'recent |' }, 'Extract expression to a let',
            `let value = ago(30d);\nlet recent = ${LOGS} | where _time > value;\nrecent | where _time > value | count`);
    });

    it(`let k = 2;\n${LOGS} | where req_duration_ms > k * 2 | count;\nlet k = 3;\n${LOGS} | where req_duration_ms > k * 2 | count (the same text, another k: one use)`, async () => {
        const q = `let k = 2;\n${LOGS} | where req_duration_ms > k * 2 | count;\nlet k = 3;\n${LOGS} | where req_duration_ms > k * 2 | count`;
        const after = await refactored(q, 'k * 2', 'Extract expression to a let');
        expect(after).toBe(`let k = 2;\nlet value = k * 2;\n${LOGS} | where req_duration_ms > value | count;\nlet k = 3;\n${LOGS} | where req_duration_ms > k * 2 | count`);
        expect((await checkText(after!, { schema })).map(d => d.code)).toEqual([]);
    });

    it('a new name is never a field nor a word already in the document: let value = 1; …', async () => {
        const q = `let value = 2; ${LOGS} | where req_duration_ms > value * 3 | project method`;
        await expectRefactor(q, 'value * 3', 'Extract expression to a let', `let value = 2; let value2 = value * 3; ${LOGS} | where req_duration_ms > value2 | project method`);
    });
});

describe('inline a let', () => {
    it(`let errors = ${LOGS} | where status == '500';\nerrors\n| summarize count() by method`, async () => {
        const q = `let errors = ${LOGS} | where status == '500';\nerrors\n| summarize count() by method`;
        await expectRefactor(q, { at: 'errors\n|' }, 'Inline let', `${LOGS} | where status == '500'\n| summarize count() by method`);
    });

    it(`let limit_ms = 1 + 0.5; ${LOGS} | where req_duration_ms > limit_ms * 2 | project method`, async () => {
        const q = `let limit_ms = 1 + 0.5; ${LOGS} | where req_duration_ms > limit_ms * 2 | project method`;
        await expectRefactor(q, { at: 'limit_ms =' }, 'Inline let', `${LOGS} | where req_duration_ms > (1 + 0.5) * 2 | project method`);
    });

    it(`let m = 'GET'; ${LOGS} | where method == m or method == m (used twice: not inlined)`, async () => {
        await expectNoRefactor(`let m = 'GET'; ${LOGS} | where method == m or method == m`, { at: 'm =' }, 'Inline let');
    });
});

describe("'or' chains and 'in'", () => {
    it(`${LOGS} | where method == 'GET' or method == 'PUT' or method == 'DELETE'`, async () => {
        const q = `${LOGS} | where method == 'GET' or method == 'PUT' or method == 'DELETE'`;
        await expectRefactor(q, { at: "method == 'PUT'" }, "Convert to 'in (…)'", `${LOGS} | where method in ('GET', 'PUT', 'DELETE')`);
    });

    it(`${LOGS} | where method == 'GET' or status == '500' (two different fields: no conversion)`, async () => {
        await expectNoRefactor(`${LOGS} | where method == 'GET' or status == '500'`, { at: 'method' }, "Convert to 'in (…)'");
    });

    it(`${LOGS} | where status in ('500', '404') and method == 'GET'`, async () => {
        const q = `${LOGS} | where status in ('500', '404') and method == 'GET'`;
        await expectRefactor(q, { at: 'status' }, "Convert to '==' … 'or'", `${LOGS} | where (status == '500' or status == '404') and method == 'GET'`);
    });

    it(`${LOGS} | where status in ('500', '404')`, async () => {
        const q = `${LOGS} | where status in ('500', '404')`;
        await expectRefactor(q, { at: 'in' }, "Convert to '==' … 'or'", `${LOGS} | where status == '500' or status == '404'`);
    });
});

describe('split and join wheres', () => {
    it(`${LOGS}\n| where status == '200' and method == 'GET' and req_duration_ms > 100\n| count`, async () => {
        const q = `${LOGS}\n| where status == '200' and method == 'GET' and req_duration_ms > 100\n| count`;
        await expectRefactor(q, { at: 'where' }, "Split 'where … and …' into consecutive wheres",
            `${LOGS}\n| where status == '200'\n| where method == 'GET'\n| where req_duration_ms > 100\n| count`);
    });

    it(`${LOGS} | where (status == '500' or status == '404') and method == 'GET' | project uri`, async () => {
        const q = `${LOGS} | where (status == '500' or status == '404') and method == 'GET' | project uri`;
        await expectRefactor(q, { at: 'where' }, "Split 'where … and …' into consecutive wheres",
            `${LOGS} | where (status == '500' or status == '404') | where method == 'GET' | project uri`);
    });

    it(`${LOGS}\n| where status == '500' or status == '404'\n| where method == 'GET'\n| project uri`, async () => {
        const q = `${LOGS}\n| where status == '500' or status == '404'\n| where method == 'GET'\n| project uri`;
        await expectRefactor(q, { at: "where method" }, 'Join consecutive wheres',
            `${LOGS}\n| where (status == '500' or status == '404') and method == 'GET'\n| project uri`);
    });

    it(`${LOGS}\n| where status == '500' // errors\n| where method == 'GET' (a comment between: no join)`, async () => {
        await expectNoRefactor(`${LOGS}\n| where status == '500' // errors\n| where method == 'GET'`, { at: 'where method' }, 'Join consecutive wheres');
    });
});

describe('dataset quoting and dotted access', () => {
    it('sample-http-logs | where status == \'500\' | project method', async () => {
        const q = "sample-http-logs | where status == '500' | project method";
        const after = await refactored(q, { at: 'http' }, "Write the dataset as ['sample-http-logs']");
        expect(after).toBe(`${LOGS} | where status == '500' | project method`);
        expect(await checkText(after!, { schema })).toEqual([]);
        expect((await sortedRows(after!)).length).toBeGreaterThan(0);
    });

    it('["sample-http-logs"] | where status == \'500\' | project method', async () => {
        const q = `["sample-http-logs"] | where status == '500' | project method`;
        await expectRefactor(q, { at: 'sample' }, "Write the dataset as ['sample-http-logs']", `${LOGS} | where status == '500' | project method`);
    });

    it(`${LOGS} | where ['geo.city'] == 'Paris' | project method`, async () => {
        const q = `${LOGS} | where ['geo.city'] == 'Paris' | project method`;
        await expectRefactor(q, { at: "['geo.city']" }, 'Write as geo.city', `${LOGS} | where geo.city == 'Paris' | project method`);
    });

    it(`${LOGS} | summarize count() by geo.country`, async () => {
        const q = `${LOGS} | summarize count() by geo.country`;
        await expectRefactor(q, { at: 'country' }, "Write as ['geo.country']", `${LOGS} | summarize count() by ['geo.country']`);
    });

    it(`${LOGS} | extend d = pack('a', method) | project d.a (a key of a dynamic column, not a field: no conversion)`, async () => {
        await expectNoRefactor(`${LOGS} | extend d = pack('a', method) | project d.a`, { at: 'd.a' }, "Write as ['d.a']");
    });
});

describe('which requests get refactors', () => {
    const q = `${LOGS} | where method == 'GET' or method == 'PUT'`;
    /** The titles for a cursor (or, with `selection`, a selection) on `method == 'PUT'`. */
    const ask = async (context: Partial<CodeActionContext>, selection = false) => {
        const document = services.shared.workspace.LangiumDocumentFactory.fromString<Model>(q, URI.parse(`memory:///refactor${documents++}.apl`));
        const start = q.indexOf("method == 'PUT'");
        const text = document.textDocument;
        const range = { start: text.positionAt(start), end: text.positionAt(selection ? start + "method == 'PUT'".length : start) };
        const actions = await services.lsp.CodeActionProvider!.getCodeActions(document as LangiumDocument, { textDocument: { uri: document.uri.toString() }, range, context: { diagnostics: [], ...context } });
        return (actions ?? []).map(a => a.title);
    };

    it(`${q}: invoked at a cursor, or asked by kind, the refactors come; the automatic light bulb waits for a selection`, async () => {
        expect(await ask({ triggerKind: CodeActionTriggerKind.Invoked })).toContain("Convert to 'in (…)'");
        expect(await ask({ only: ['refactor.rewrite'] })).toEqual(["Convert to 'in (…)'"]);
        expect(await ask({ only: ['quickfix'] })).toEqual([]);
        expect(await ask({ triggerKind: CodeActionTriggerKind.Automatic })).toEqual([]);
        expect(await ask({ triggerKind: CodeActionTriggerKind.Automatic }, true)).toContain("Convert to 'in (…)'");
    });
});
