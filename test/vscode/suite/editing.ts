/**
 * Extension-host tests of issue 28's editing features as a VS Code user meets them: an analyzer's
 * finding in the Problems with its quick fix, a refactor from the light bulb, and the formatter's
 * options from the settings. Each goes through VS Code's own commands (the ones its UI calls) to the
 * language server the extension started.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SuiteHelpers } from './editor-items.js';
import type { EditingTestName } from './editing-names.js';

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? d.code.value : d.code);

/** Applies the first of `actions` whose edit turns the document into `expected`; fails naming what was offered. */
async function applyActionGiving(doc: vscode.TextDocument, actions: vscode.CodeAction[], expected: string): Promise<void> {
    const original = doc.getText();
    for (const action of actions) {
        if (!action.edit) continue;
        assert.ok(await vscode.workspace.applyEdit(action.edit), `the edit of '${action.title}' applies`);
        if (doc.getText() === expected) return;
        await vscode.commands.executeCommand('undo');
        if (doc.getText() !== original) {
            const all = new vscode.WorkspaceEdit();
            all.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original);
            await vscode.workspace.applyEdit(all);
        }
    }
    assert.fail(`no action gives ${JSON.stringify(expected)}; offered: ${actions.map(a => a.title).join(' | ')}`);
}

export function editingTests({ api, openApl, until }: SuiteHelpers): Record<EditingTestName, () => Promise<void>> {
    return {
        "['events'] | sort by seq desc | take 3: the analyzer's APL2006 is in the Problems, and its quick fix makes a top": async () => {
            const a = await api();
            await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
            const doc = await openApl('analyzer.apl', "['events'] | sort by seq desc | take 3\n");
            const finding = await until('APL2006', () => vscode.languages.getDiagnostics(doc.uri).find(d => codeOf(d) === 'APL2006'));
            const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, finding.range, vscode.CodeActionKind.QuickFix.value);
            await applyActionGiving(doc, actions, "['events'] | top 3 by seq desc\n");
            await until('no APL2006 once fixed', () => (vscode.languages.getDiagnostics(doc.uri).some(d => codeOf(d) === 'APL2006') ? undefined : true));
        },

        "['events'] | where level == 'error' or level == 'warn': the refactor makes an in (…) list": async () => {
            const text = "['events'] | where level == 'error' or level == 'warn'\n";
            const doc = await openApl('refactor.apl', text);
            const at = text.indexOf('level ==');
            const range = new vscode.Range(doc.positionAt(at), doc.positionAt(text.indexOf("'warn'") + "'warn'".length));
            const actions = await until('the refactors', async () => {
                const all = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, range, vscode.CodeActionKind.Refactor.value);
                return all.length > 0 ? all : undefined;
            });
            await applyActionGiving(doc, actions, "['events'] | where level in ('error', 'warn')\n");
        },

        "['events'] | where seq > 1 | take 2 formatted with apl.format.pipe = end: the pipes end the lines": async () => {
            const doc = await openApl('format.apl', "['events'] | where seq > 1 | take 2\n");
            const settings = vscode.workspace.getConfiguration('apl');
            try {
                await settings.update('format.pipe', 'end', vscode.ConfigurationTarget.Global);
                const expected = "['events'] |\nwhere seq > 1 |\ntake 2\n";
                let seen = '';
                await until('the formatting with the pipes at the line ends', async () => {
                    const edits = await vscode.commands.executeCommand<vscode.TextEdit[]>('vscode.executeFormatDocumentProvider', doc.uri, { tabSize: 4, insertSpaces: true });
                    const edit = new vscode.WorkspaceEdit();
                    edit.set(doc.uri, edits ?? []);
                    await vscode.workspace.applyEdit(edit);
                    seen = doc.getText();
                    return seen === expected ? true : undefined;
                }).catch((e: Error) => {
                    throw new Error(`${e.message}; the document: ${JSON.stringify(seen)}`);
                });
            } finally {
                await settings.update('format.pipe', undefined, vscode.ConfigurationTarget.Global);
            }
        },
    };
}
