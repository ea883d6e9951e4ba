/** The names of the tests in explain.ts (no vscode import: the vitest side reads them too). */
export const EXPLAIN_TESTS = [
    "['events'] | where seq < 100 | summarize n = count() by level: the Explain lens beside Run opens the stages with the columns and rows after each",
    "['events'] | extend slow = duration_ms > 100 | summarize n = count() by level: inlay hints show the column's type, and the summarize columns once apl.inlayHints.summarizeColumns is on",
] as const;

export type ExplainTestName = (typeof EXPLAIN_TESTS)[number];
