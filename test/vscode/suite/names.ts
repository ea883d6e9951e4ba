import { EDITOR_ITEM_TESTS } from './editor-items-names.js';
import { EDITING_TESTS } from './editing-names.js';
import { EXPLAIN_TESTS } from './explain-names.js';

/** The extension-host tests, by name: the suite runs them in this order; the vitest side reports each. */
export const HOST_TESTS = [
    'an .apl file gets diagnostics with APL codes',
    "completion offers the service's dataset names and fields",
    "['events'] | where nosuchfield == 1 after the language server crashed and was restarted: APL0012 (the pushed schema is sent again)",
    "let t = ['events'] | where seq > 1; in cell 1, t\\n| where nosuchfield == 1 in cell 2, after the language server crashed and was restarted: APL0012 on nosuchfield and nothing on t (the cell preludes are sent again)",
    'the token goes to SecretStorage and into no settings file',
    'apl.run over 5,000 events reports rowsMatched 5,000 in pages of at most 1,000',
    'apl.exportResults writes 5,000 rows and a header, each event exactly once',
    'apl.cancel during a run ends in cancelled',
    'the history holds the runs',
    'apl.translateToLegacy opens the legacy query JSON, or places the error',
    'apl.startLocalService starts the bundled apl serve with the sample datasets and connects to it',
    ...EDITOR_ITEM_TESTS,
    ...EXPLAIN_TESTS,
    ...EDITING_TESTS,
] as const;

export type HostTestName = (typeof HOST_TESTS)[number];

export interface HostTestResult {
    name: string;
    ok: boolean;
    error?: string;
    ms: number;
}

/** The tests of APL_TEST_SUITE=folder (test/vscode/folder-token.test.ts: a hostile folder's settings). */
export const FOLDER_TESTS = [
    "a folder's settings that redefine a saved connection get neither its token nor the schema file",
    'a saved token is refused, and the run says why, when the URL of its connection changes in the user settings',
] as const;

export type FolderTestName = (typeof FOLDER_TESTS)[number];
