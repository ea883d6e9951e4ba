/** The Schema view: datasets → fields with their types; a click only selects, "Insert" inserts the name quoted as a query needs it. */
import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', () => import('./__mocks__/vscode.js'));

const { insertText, SchemaTree } = await import('../../../client/vscode/src/schema/schema-tree.js');

const DATASETS = [
    { name: 'sample-http-logs', fields: [{ name: 'status', type: 'string' }, { name: 'geo.city', type: 'string' }, { name: 'req_duration_ms', type: 'real' }, { name: 'where', type: 'string' }, { name: "it's", type: 'string' }] },
    { name: 'otel-demo-traces', fields: [{ name: '_time', type: 'datetime' }] },
];

function tree() {
    const t = new SchemaTree();
    t.show(DATASETS, 'local');
    return t;
}

describe('schema tree', () => {
    it('datasets at the top, with their field count; fields with their types below', () => {
        const t = tree();
        const top = t.getChildren();
        expect(top.map(n => t.getTreeItem(n)).map(i => [i.label, i.description, i.contextValue])).toEqual([
            ['sample-http-logs', '5 fields', 'dataset'],
            ['otel-demo-traces', '1 field', 'dataset'],
        ]);
        const fields = t.getChildren(top[0]).map(n => t.getTreeItem(n));
        expect(fields.map(i => [i.label, i.description, i.contextValue])).toEqual([
            ['status', 'string', 'field'],
            ['geo.city', 'string', 'field'],
            ['req_duration_ms', 'real', 'field'],
            ['where', 'string', 'field'],
            ["it's", 'string', 'field'],
        ]);
        expect(t.getChildren(t.getChildren(top[0])[0])).toEqual([]);
    });

    it("['sample-http-logs'] and ['geo.city']: a click runs no command; Insert puts the name quoted as a query needs it", () => {
        const t = tree();
        const top = t.getChildren();
        for (const n of [...top, ...t.getChildren(top[0])]) expect(t.getTreeItem(n).command).toBeUndefined();
        expect(insertText(top[0])).toBe("['sample-http-logs']");
        expect(t.getChildren(top[0]).map(insertText)).toEqual(['status', "['geo.city']", 'req_duration_ms', "['where']", "['it\\'s']"]);
        expect(t.getTreeItem(t.getChildren(top[0])[1]).tooltip).toBe("sample-http-logs: geo.city (string). Insert puts ['geo.city'] at the cursor");
        expect(insertText({ kind: 'message', text: 'x' })).toBeUndefined();
    });

    it('no datasets, or no connection: one message item, and a change event', () => {
        const t = new SchemaTree();
        const fired: unknown[] = [];
        t.onDidChangeTreeData(e => fired.push(e));
        expect(t.getChildren().map(n => t.getTreeItem(n).label)).toEqual(['No connection: run "APL: Start Local Service" or "APL: Add Connection".']);
        t.show([], 'local');
        expect(t.getChildren().map(n => t.getTreeItem(n).label)).toEqual(['local has no datasets.']);
        t.showMessage('Could not read the schema: 401');
        expect(t.getChildren().map(n => t.getTreeItem(n).label)).toEqual(['Could not read the schema: 401']);
        expect(fired).toEqual([undefined, undefined]);
    });
});
