/** The names of the tests in explain.ts (no vscode import: the vitest side reads them too). */
export const EXPLAIN_TESTS = [
    "['events'] | where seq < 100 | summarize n = count() by level: the Explain lens beside Run opens the stages with the columns and rows after each",
] as const;

export type ExplainTestName = (typeof EXPLAIN_TESTS)[number];
