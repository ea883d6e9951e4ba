/** The names of the tests in editing.ts (no vscode import: the vitest side reads them too). */
export const EDITING_TESTS = [
    "['events'] | sort by seq desc | take 3: the analyzer's APL2006 is in the Problems, and its quick fix makes a top",
    "['events'] | where level == 'error' or level == 'warn': the refactor makes an in (…) list",
    "['events'] | where seq > 1 | take 2 formatted with apl.format.pipe = end: the pipes end the lines",
] as const;

export type EditingTestName = (typeof EDITING_TESTS)[number];
