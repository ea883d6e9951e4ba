/** The names of the tests in editor-items.ts (no vscode import: the vitest side reads them too). */
export const EDITOR_ITEM_TESTS = [
    "['events'] from 2020-01-01 to 2020-01-02 finds nothing: the view says where the events are, and All time finds them",
    "Filter by this value adds | where level == 'error' to the block in the editor and runs it",
    'Open in editor opens the result as JSON or CSV text, not another results view',
    'Translate to Legacy opens a read-only document that nobody is asked to save',
    "['events'] | where nosuchfield == 1: one diagnostic for the problem the language server and the service both report",
    "APL: Open Documentation shows the project's README that comes with the extension",
] as const;

export type EditorItemTestName = (typeof EDITOR_ITEM_TESTS)[number];
