/** The Schema view: datasets → fields with their types; clicking one inserts it, quoted as a query needs it. */
import * as vscode from 'vscode';
import { quoteName, type SchemaDataset } from './schema-manager.js';

type Node = { kind: 'dataset'; dataset: SchemaDataset } | { kind: 'field'; dataset: string; name: string; type: string } | { kind: 'message'; text: string };

export const INSERT_COMMAND = 'apl.insertSchemaName';

export class SchemaTree implements vscode.TreeDataProvider<Node> {
    private datasets: SchemaDataset[] = [];
    private message = 'No connection: run "APL: Start Local Service" or "APL: Add Connection".';
    private readonly changed = new vscode.EventEmitter<Node | undefined>();
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

    getChildren(node?: Node): Node[] {
        if (!node) return this.datasets.length ? this.datasets.map(dataset => ({ kind: 'dataset', dataset })) : [{ kind: 'message', text: this.message }];
        if (node.kind === 'dataset') return node.dataset.fields.map(f => ({ kind: 'field', dataset: node.dataset.name, name: f.name, type: f.type }));
        return [];
    }

    getTreeItem(node: Node): vscode.TreeItem {
        if (node.kind === 'message') return new vscode.TreeItem(node.text);
        if (node.kind === 'dataset') {
            const item = new vscode.TreeItem(node.dataset.name, vscode.TreeItemCollapsibleState.Collapsed);
            const n = node.dataset.fields.length;
            item.description = `${n} field${n === 1 ? '' : 's'}`;
            item.iconPath = new vscode.ThemeIcon('database');
            item.contextValue = 'dataset';
            const text = `['${node.dataset.name}']`;
            item.tooltip = `Insert ${text}`;
            item.command = { command: INSERT_COMMAND, title: 'Insert', arguments: [text] };
            return item;
        }
        const item = new vscode.TreeItem(node.name);
        item.description = node.type;
        item.iconPath = new vscode.ThemeIcon('symbol-field');
        item.contextValue = 'field';
        const text = quoteName(node.name);
        item.tooltip = `${node.dataset}: ${node.name} (${node.type}). Click to insert ${text}`;
        item.command = { command: INSERT_COMMAND, title: 'Insert', arguments: [text] };
        return item;
    }
}
