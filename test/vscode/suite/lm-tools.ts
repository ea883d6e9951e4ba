/**
 * The extension's language-model tools, invoked the way Copilot invokes them: through
 * `vscode.lm.invokeTool` (APL_TEST_SUITE=agents, test/vscode/lm-tools.test.ts). The connection is the
 * environment's (AXIOM_URL/AXIOM_TOKEN: the test service with its 5,000 `events`).
 *
 * apl_run's confirmation is not seen here: outside a chat VS Code asks with a modal dialog, and in an
 * extension test run its dialog service confirms every dialog by itself (so that tests never hang).
 * test/client/vscode/lm-tools.test.ts checks that the first run of a session asks and the next do not.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SuiteHelpers } from './editor-items.js';
import type { AgentTestName } from './lm-tools-names.js';

interface LmForTests {
    tools: readonly { name: string }[];
    invokeTool(name: string, options: { input: unknown; toolInvocationToken: undefined }): Thenable<{ content: unknown[] }>;
}

/** VS Code's `lm` API (newer than the @types/vscode the extension builds with). */
function lm(): LmForTests {
    const api = (vscode as unknown as { lm?: Partial<LmForTests> }).lm;
    assert.ok(api?.invokeTool && api.tools, 'this VS Code has vscode.lm.invokeTool and vscode.lm.tools');
    return api as LmForTests;
}

/** The text parts of a tool's result, joined. */
async function invoke(name: string, input: unknown): Promise<string> {
    const result = await lm().invokeTool(name, { input, toolInvocationToken: undefined });
    return result.content.map(part => (typeof (part as { value?: unknown }).value === 'string' ? (part as { value: string }).value : '')).join('\n');
}

export function lmToolTests({ api, until }: SuiteHelpers): Record<AgentTestName, () => Promise<void>> {
    return {
        'the six APL tools are in vscode.lm.tools': async () => {
            await api();
            const names = lm().tools.map(t => t.name);
            for (const name of ['apl_validate', 'apl_format', 'apl_result_schema', 'apl_list_datasets', 'apl_dataset_fields', 'apl_run']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
        },
        "apl_validate: ['events'] | summarize cnt() by level has APL0001, and ['nosuch'] | take 1 APL0011 from the connection": async () => {
            const text = await invoke('apl_validate', { query: "['events'] | summarize cnt() by level" });
            assert.match(text, /^1:24: error APL0001 /m);
            assert.match(await invoke('apl_validate', { query: "['nosuch'] | take 1" }), /APL0011/);
        },
        "apl_format: ['events']|where seq>1 is formatted as apl fmt does": async () => {
            assert.equal(await invoke('apl_format', { query: "['events']|where seq>1" }), "['events']\n| where seq > 1");
        },
        "apl_result_schema: ['events'] | summarize n = count() by level gives level: string, n: long": async () => {
            assert.equal(await invoke('apl_result_schema', { query: "['events'] | summarize n = count() by level" }), 'level: string, n: long');
        },
        'apl_list_datasets and apl_dataset_fields: events and its fields, from the connection': async () => {
            assert.match(await invoke('apl_list_datasets', {}), /^events$/m);
            const fields = await invoke('apl_dataset_fields', { dataset: 'events' });
            assert.match(fields, /^seq: long$/m);
            assert.match(fields, /^level: string$/m);
            assert.match(await invoke('apl_dataset_fields', { dataset: 'nosuch' }), /^Error: unknown dataset 'nosuch'/);
        },
        "apl_run: ['events'] | summarize n = count() returns the count and shows it in the results view": async () => {
            const a = await api();
            const query = "['events'] | summarize n = count()";
            const first = await invoke('apl_run', { query });
            assert.match(first, /^1 row\(s\);/);
            assert.match(first, /\{"n":5000\}/);
            const shown = await until('the run in the results view', () => {
                const run = a.lastRun();
                return run && run.query === query && run.state !== 'running' ? run : undefined;
            });
            assert.equal(shown.state, 'done');
            assert.match(await invoke('apl_run', { query: "['events'] | where level == 'error' | count" }), /\{"count":715\}/);
        },
    };
}
