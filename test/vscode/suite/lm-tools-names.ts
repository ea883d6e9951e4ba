/** The names of the tests in lm-tools.ts (APL_TEST_SUITE=agents; no vscode import: the vitest side reads them too). */
export const AGENT_TESTS = [
    'the six APL tools are in vscode.lm.tools',
    "apl_validate: ['events'] | summarize cnt() by level has APL0001, and ['nosuch'] | take 1 APL0011 from the connection",
    "apl_format: ['events']|where seq>1 is formatted as apl fmt does",
    "apl_result_schema: ['events'] | summarize n = count() by level gives level: string, n: long",
    'apl_list_datasets and apl_dataset_fields: events and its fields, from the connection',
    "apl_run: ['events'] | summarize n = count() returns the count and shows it in the results view",
] as const;

export type AgentTestName = (typeof AGENT_TESTS)[number];
