/**
 * The Schema view: datasets → fields with their types. A click only selects (and expands a
 * dataset): the file changes only on an explicit "Insert" (the inline button or the context menu),
 * which inserts the name quoted as a query needs it (`['geo.city']`, `['sample-http-logs']`).
 */
import * as vscode from 'vscode';
import { bracketName, quoteName } from '../../../../language/quote-name.js';
import type { SchemaDataset } from './schema-manager.js';

export type SchemaNode = { kind: 'dataset'; dataset: SchemaDataset } | { kind: 'field'; dataset: string; name: string; type: string } | { kind: 'message'; text: string };

export const INSERT_COMMAND = 'apl.insertSchemaName';

/** The text "Insert" puts into the editor for a node: a dataset always in brackets, a field only when it needs them. */
export function insertText(node: SchemaNode): string | undefined {
    if (node.kind === 'dataset') return bracketName(node.dataset.name);
    if (node.kind === 'field') return quoteName(node.name);
    return undefined;
}

export class SchemaTree implements vscode.TreeDataProvider<SchemaNode> {
    private datasets: SchemaDataset[] = [];
    private message = 'No connection: run "APL: Start Local Service" or "APL: Add Connection".';
    private readonly changed = new vscode.EventEmitter<SchemaNode | undefined>();
    readonly onDidChangeTreeData = this.changed.event;

    show(datasets: SchemaDataset[], connection: string): void {
        this.datasets = datasets;
        this.message = datasets.length === 0 ? `${connection} has no datasets.` : '';
        this.changed.fire(undefined);
    }

    showMessage(text: string): void {
        this.datasets = [];
        this.message = text;
        this.changed.fire(undefined);
    }

    getChildren(node?: SchemaNode): SchemaNode[] {
        if (!node) return this.datasets.length ? this.datasets.map(dataset => ({ kind: 'dataset', dataset })) : [{ kind: 'message', text: this.message }];
        if (node.kind === 'dataset') return node.dataset.fields.map(f => ({ kind: 'field', dataset: node.dataset.name, name: f.name, type: f.type }));
        return [];
    }

    getTreeItem(node: SchemaNode): vscode.TreeItem {
        if (node.kind === 'message') return new vscode.TreeItem(node.text);
        // No `command`: a click selects the item (and expands a dataset); inserting is the inline button's job.
        if (node.kind === 'dataset') {
            const item = new vscode.TreeItem(node.dataset.name, vscode.TreeItemCollapsibleState.Collapsed);
            const n = node.dataset.fields.length;
            item.description = `${n} field${n === 1 ? '' : 's'}`;
            item.iconPath = new vscode.ThemeIcon('database');
            item.contextValue = 'dataset';
            item.tooltip = `${node.dataset.name}: ${n} field${n === 1 ? '' : 's'}. Insert puts ${insertText(node)} at the cursor`;
            return item;
        }
        const item = new vscode.TreeItem(node.name);
        item.description = node.type;
        item.iconPath = new vscode.ThemeIcon('symbol-field');
        item.contextValue = 'field';
        item.tooltip = `${node.dataset}: ${node.name} (${node.type}). Insert puts ${insertText(node)} at the cursor`;
        return item;
    }
}
