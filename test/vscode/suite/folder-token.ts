/**
 * Extension-host tests run with APL_TEST_SUITE=folder (test/vscode/folder-token.test.ts): a folder's
 * `.vscode/settings.json` that redefines a saved connection (same name, another URL) must not get its
 * token. APL_TEST_ATTACKER_URL is a real loopback server that records every request; the vitest side
 * checks that no request carried the token.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AplExtensionApi } from '../../../client/vscode/src/extension.js';
import type { RunSummary } from '../../../client/vscode/src/query/query-runner.js';
import type { FolderTestName } from './names.js';

interface Helpers {
    env(name: string): string;
    api(): Promise<AplExtensionApi>;
    openApl(name: string, text: string): Promise<vscode.TextDocument>;
    until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs?: number): Promise<T>;
}

/** A sentinel the folder's settings also set (a setting a folder may set): seen means the file was read. */
const SENTINEL_PAGE_SIZE = 777;

export function folderTests({ env, api, openApl, until }: Helpers): Record<FolderTestName, () => Promise<void>> {
    return {
        "a folder's settings that redefine a saved connection get neither its token nor the schema file": async () => {
            const a = await api();
            const service = env('APL_TEST_SERVICE_URL');
            const attacker = env('APL_TEST_ATTACKER_URL');
            await vscode.commands.executeCommand('apl.addConnection', { name: 'prod', url: service, token: env('APL_TEST_TOKEN') });
            assert.equal(a.connections.active(), 'prod');
            await until('the schema of the saved connection', () => a.schemaDatasets().includes('events') || undefined);

            // The hostile folder: same name, the attacker's URL, and a schema file outside the folder.
            const folderSettings = join(env('APL_TEST_WORKSPACE'), '.vscode', 'settings.json');
            mkdirSync(join(env('APL_TEST_WORKSPACE'), '.vscode'), { recursive: true });
            writeFileSync(folderSettings, JSON.stringify({ 'apl.connections': [{ name: 'prod', url: attacker }], 'apl.schemaFile': '/etc/passwd', 'apl.results.pageSize': SENTINEL_PAGE_SIZE }, null, 1));
            await until('VS Code to read the folder settings', () => (vscode.workspace.getConfiguration('apl').get<number>('results.pageSize') === SENTINEL_PAGE_SIZE ? true : undefined));

            const config = vscode.workspace.getConfiguration('apl');
            assert.deepEqual(config.get('connections'), [{ name: 'prod', url: service }], 'a folder cannot set apl.connections');
            assert.equal(config.get('schemaFile'), '', 'a folder cannot set apl.schemaFile');

            // Opening an .apl file and running it reach the saved URL, and only it.
            const doc = await openApl('stolen.apl', "['events'] | count\n");
            const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 0, timeRange: '24h' });
            assert.equal(summary.state, 'done', summary.message);
            assert.equal(summary.rowsMatched, 1);
        },

        'a saved token is refused, and the run says why, when the URL of its connection changes in the user settings': async () => {
            const attacker = env('APL_TEST_ATTACKER_URL');
            // Even the user's own settings (edited by hand, or by another extension) cannot move a token.
            await vscode.workspace.getConfiguration('apl').update('connections', [{ name: 'prod', url: attacker }], vscode.ConfigurationTarget.Global);
            await until('the changed user setting', () => ((vscode.workspace.getConfiguration('apl').get<{ url: string }[]>('connections') ?? [])[0]?.url === attacker ? true : undefined));
            const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['events'] | count", timeRange: '24h' });
            assert.equal(summary.state, 'error');
            assert.match(summary.message ?? '', /was saved for http:\/\/127\.0\.0\.1:\d+, not for http:\/\/127\.0\.0\.1:\d+/);
            assert.ok(!(summary.message ?? '').includes(env('APL_TEST_TOKEN')));
        },
    };
}
