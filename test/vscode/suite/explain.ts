/**
 * Extension-host test of the Explain lens and view (issue 28 §3): the lens sits beside Run, and its
 * command shows each stage of the block with the columns after it and, on the connection (the real
 * `apl serve` of the suite, 5,000 events), the rows after it.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExplainSummary } from '../../../client/vscode/src/query/explain-view.js';
import type { SuiteHelpers } from './editor-items.js';
import type { ExplainTestName } from './explain-names.js';

export function explainTests({ env, api, openApl, until }: SuiteHelpers): Record<ExplainTestName, () => Promise<void>> {
    return {
        "['events'] | where seq < 100 | summarize n = count() by level: the Explain lens beside Run opens the stages with the columns and rows after each": async () => {
            const a = await api();
            await vscode.commands.executeCommand('apl.selectConnection', 'test service');
            await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
            const doc = await openApl('explain.apl', "['events']\n| where seq < 100\n| summarize n = count() by level\n");
            const lenses = await until('the Run and Explain lenses', async () => {
                const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
                return all.some(l => l.command?.command === 'apl.explainQuery') ? all : undefined;
            });
            const explain = lenses.find(l => l.command?.command === 'apl.explainQuery')!;
            const run = lenses.find(l => l.command?.command === 'apl.run');
            assert.ok(run, 'the Run lens is there too');
            assert.equal(explain.range.start.line, run.range.start.line);
            assert.equal(explain.command!.title, '$(list-tree) Explain');
            assert.deepEqual(explain.command!.arguments, [{ uri: doc.uri.toString(), line: 0 }]);

            // What clicking the lens runs, over all time (the events span the last 21 hours).
            const summary = await vscode.commands.executeCommand<ExplainSummary>('apl.explainQuery', { ...(explain.command!.arguments![0] as object), timeRange: 'all' });
            assert.equal(summary.state, 'done', summary.ran);
            assert.match(summary.ran, /^on test service \(http:\/\/127\.0\.0\.1:\d+\)$/);
            assert.match(summary.note, /\| count.*\| take 3.*never runs unbounded/);
            assert.deepEqual(summary.stages.map(s => [s.index, s.keyword ?? null, s.rows]), [
                [0, null, Number(env('APL_TEST_EVENTS'))],
                [1, 'where', 100],
                [2, 'summarize', 2],
            ]);
            // The columns after each stage come from the service's schema through the language server.
            assert.ok(summary.stages[0].columns.some(c => c.name === 'seq' && c.type === 'long'), JSON.stringify(summary.stages[0].columns));
            assert.deepEqual(summary.stages[2].columns, [{ name: 'level', type: 'string' }, { name: 'n', type: 'long' }]);
            assert.equal(summary.stages[1].sample?.columns?.[0]?.length, 3);
            // The view is open beside the editor, titled by the file and the block's lines.
            const tab = await until('the Explain view', () => vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => t.label === 'Explain: explain.apl, lines 1–3'));
            assert.ok(tab.input instanceof vscode.TabInputWebview, 'the view is a webview');
        },

        "['events'] | extend slow = duration_ms > 100 | summarize n = count() by level: inlay hints show the column's type, and the summarize columns once apl.inlayHints.summarizeColumns is on": async () => {
            const a = await api();
            await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
            const text = "['events'] | extend slow = duration_ms > 100 | summarize n = count() by level";
            const doc = await openApl('inlay.apl', text + '\n');
            const whole = new vscode.Range(0, 0, 1, 0);
            const labels = async () => {
                const hints = await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', doc.uri, whole);
                return hints.map(h => `${h.position.character} ${typeof h.label === 'string' ? h.label : h.label.map(p => p.value).join('')}`);
            };
            const settings = vscode.workspace.getConfiguration('apl');
            try {
                await until('the type of slow', async () => ((await labels()).join('|') === `${text.indexOf(' = duration_ms')} : bool` ? true : undefined));
                await settings.update('inlayHints.summarizeColumns', true, vscode.ConfigurationTarget.Global);
                const expected = [`${text.indexOf(' = duration_ms')} : bool`, `${text.length} → (level: string, n: long)`].join('|');
                let seen = '';
                await until('the summarize columns', async () => ((seen = (await labels()).join('|')) === expected ? true : undefined)).catch((e: Error) => {
                    throw new Error(`${e.message}; the hints: ${seen}; apl.inlayHints: ${JSON.stringify(vscode.workspace.getConfiguration('apl').get('inlayHints'))}`);
                });
            } finally {
                await settings.update('inlayHints.summarizeColumns', undefined, vscode.ConfigurationTarget.Global);
            }
        },
    };
}
