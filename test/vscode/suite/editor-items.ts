/**
 * Extension-host tests of issue 25's editor items (host side): an empty range explained, Filter by
 * this value in the editor, Open in editor as text, a legacy translation nobody is asked to save,
 * one diagnostic per problem. They run after the tests of index.ts, against the same service
 * (5,000 events, one every 15 s up to a minute ago) and the connection 'test service'.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AplExtensionApi } from '../../../client/vscode/src/extension.js';
import type { RunSummary } from '../../../client/vscode/src/query/query-runner.js';
import type { EditorItemTestName } from './editor-items-names.js';

export interface SuiteHelpers {
    env(name: string): string;
    api(): Promise<AplExtensionApi>;
    openApl(name: string, text: string): Promise<vscode.TextDocument>;
    until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs?: number): Promise<T>;
}

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? d.code.value : d.code);
const overlaps = (a: vscode.Range, b: vscode.Range) => a.start.line === b.start.line && a.start.character < b.end.character && b.start.character < a.end.character;

export function editorItemTests({ env, api, openApl, until }: SuiteHelpers): Record<EditorItemTestName, () => Promise<void>> {
    return {
        "['events'] from 2020-01-01 to 2020-01-02 finds nothing: the view says where the events are, and All time finds them": async () => {
            const a = await api();
            await vscode.commands.executeCommand('apl.selectConnection', 'test service');
            const empty = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['events'] | where seq >= 0", timeRange: { start: '2020-01-01T00:00:00Z', end: '2020-01-02T00:00:00Z' } });
            assert.equal(empty.state, 'done', empty.message);
            assert.equal(empty.rowCount, 0);
            const hint = await until('the explanation of the empty result', () => a.lastRun()?.emptyHint);
            // The dataset's first and last events, as the service knows them, and the way out.
            assert.match(hint, /No events between 2020-01-01 00:00 and 2020-01-02 00:00 UTC/);
            assert.match(hint, /'events' has events from \d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
            // The action the view offers: the same query over all time.
            const all = await vscode.commands.executeCommand<RunSummary>('apl.widenTimeRange');
            assert.equal(all.state, 'done', all.message);
            assert.equal(all.rowsMatched, Number(env('APL_TEST_EVENTS')));
            assert.equal(a.lastRun()?.emptyHint, undefined);
            // The choice is remembered for this workspace.
            assert.deepEqual(a.timeRange(), { preset: 'all' });
            await vscode.commands.executeCommand('apl.run', { text: "['events'] | count", timeRange: '24h' });
            assert.deepEqual(a.timeRange(), { preset: '24h' });
        },

        "Filter by this value adds | where level == 'error' to the block in the editor and runs it": async () => {
            const a = await api();
            const doc = await openApl('filter.apl', "['events']\n| where seq >= 0\n\n['events'] | count\n");
            const first = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 0, timeRange: '24h' });
            assert.equal(first.state, 'done', first.message);
            const filtered = await vscode.commands.executeCommand<RunSummary>('apl.filterByValue', { field: 'level', value: 'error' });
            assert.equal(filtered.state, 'done', filtered.message);
            // The text on screen is the query that ran.
            assert.equal(doc.getText(), "['events']\n| where seq >= 0\n| where level == 'error'\n\n['events'] | count\n");
            // Every 7th event is an error.
            assert.equal(filtered.rowsMatched, Math.ceil(Number(env('APL_TEST_EVENTS')) / 7));
            assert.equal(a.lastRun()?.query, "['events']\n| where seq >= 0\n| where level == 'error'");
            const quoted = await vscode.commands.executeCommand<RunSummary>('apl.filterByValue', { field: 'geo.city', value: "city-0" });
            assert.equal(quoted.state, 'done', quoted.message);
            assert.equal(doc.getText(), "['events']\n| where seq >= 0\n| where level == 'error'\n| where ['geo.city'] == 'city-0'\n\n['events'] | count\n");
        },

        'Open in editor opens the result as JSON or CSV text, not another results view': async () => {
            const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['events'] | where seq < 3 | project seq, level | sort by seq asc", timeRange: '24h' });
            assert.equal(summary.state, 'done', summary.message);
            const webviewTabs = () => vscode.window.tabGroups.all.flatMap(g => g.tabs).filter(t => t.input instanceof vscode.TabInputWebview).length;
            const before = webviewTabs();
            await vscode.commands.executeCommand('apl.openResultsInEditor', { format: 'json' });
            const json = await until('the JSON editor', () => vscode.window.activeTextEditor?.document.languageId === 'json' ? vscode.window.activeTextEditor.document : undefined);
            assert.equal(json.isUntitled, true);
            assert.deepEqual(JSON.parse(json.getText()), [{ seq: 0, level: 'error' }, { seq: 1, level: 'info' }, { seq: 2, level: 'info' }]);
            await vscode.commands.executeCommand('apl.openResultsInEditor', { format: 'csv' });
            const csv = await until('the CSV editor', () => (vscode.window.activeTextEditor?.document.getText().startsWith('seq,level') ? vscode.window.activeTextEditor.document : undefined));
            assert.equal(csv.getText().trimEnd(), 'seq,level\n0,error\n1,info\n2,info');
            assert.equal(webviewTabs(), before, 'no results webview opened in an editor tab');
            for (const d of [json, csv]) {
                await vscode.window.showTextDocument(d);
                await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
            }
        },

        'Translate to Legacy opens a read-only document that nobody is asked to save': async () => {
            const doc = await openApl('translate2.apl', "['events']\n| where level == 'error'\n");
            await vscode.commands.executeCommand('apl.translateToLegacy', { uri: doc.uri.toString(), line: 0 });
            const editor = await until('the legacy JSON', () => vscode.window.visibleTextEditors.find(e => e.document.languageId === 'json' && e.document.getText().includes('"dataset": "events"')));
            assert.equal(editor.document.isUntitled, false, 'an untitled document with content asks to be saved on close');
            assert.notEqual(editor.document.uri.scheme, 'file');
            assert.equal(editor.document.isDirty, false);
            // Closing it asks nothing: the tab goes at once.
            await vscode.window.showTextDocument(editor.document);
            await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
            await until('the tab to close', () => (vscode.window.tabGroups.all.flatMap(g => g.tabs).some(t => t.input instanceof vscode.TabInputText && t.input.uri.toString() === editor.document.uri.toString()) ? undefined : true));
        },

        "['events'] | where nosuchfield == 1: one diagnostic for the problem the language server and the service both report": async () => {
            await vscode.commands.executeCommand('apl.selectConnection', 'test service');
            const doc = await openApl('one-diagnostic.apl', "['events']\n| where nosuchfield == 1\n\n['events']\n| where level matches regex '('\n");
            const word = new vscode.Range(1, 8, 1, 19);
            await until('the language server on nosuchfield', () => vscode.languages.getDiagnostics(doc.uri).find(d => codeOf(d) === 'APL0012'));
            const bad = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 0, timeRange: '24h' });
            assert.equal(bad.state, 'error');
            // The service's error lands where the language server already points: one diagnostic there.
            await new Promise(r => setTimeout(r, 500));
            const at = vscode.languages.getDiagnostics(doc.uri).filter(d => overlaps(d.range, word));
            assert.equal(at.length, 1, JSON.stringify(at.map(d => [d.source, d.message])));
            // An error only the service finds is shown, labelled with the connection that found it.
            const regex = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 3, timeRange: '24h' });
            assert.equal(regex.state, 'error');
            const fromRun = await until('the run diagnostic on line 5', () => vscode.languages.getDiagnostics(doc.uri).find(d => d.range.start.line === 4));
            assert.equal(fromRun.source, 'apl (test service)');
            assert.equal(vscode.languages.getDiagnostics(doc.uri).filter(d => d.range.start.line === 4).length, 1);
        },

        "APL: Open Documentation shows the project's README that comes with the extension": async () => {
            const shown = await vscode.commands.executeCommand<string>('apl.openDocumentation');
            const readme = vscode.Uri.parse(shown);
            assert.match(readme.path, /\/dist\/docs\/README\.md$/);
            const text = Buffer.from(await vscode.workspace.fs.readFile(readme)).toString('utf8');
            assert.match(text, /## The VS Code extension/);
            // The README's links to docs/ lead to files that came along.
            for (const page of ['service.md', 'schema-file.md', 'editors.md']) await vscode.workspace.fs.stat(vscode.Uri.joinPath(readme, '..', 'docs', page));
            await until('the Markdown preview', () => vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => /Preview/.test(t.label) && /README/.test(t.label)));
        },
    };
}
