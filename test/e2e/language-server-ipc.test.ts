/**
 * `apl-language-server --node-ipc`, the transport VS Code's LanguageClient uses for a Node module:
 * the BUILT bin (launcher + bundle) forked with an IPC channel, driven with vscode-jsonrpc.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';

const BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'out', 'apl-language-server.cjs');

describe('apl-language-server --node-ipc', () => {
    it("['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)", async () => {
        const child = fork(BIN, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
        const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
        try {
            const published = new Promise<PublishDiagnosticsParams>(resolve => rpc.onNotification('textDocument/publishDiagnostics', resolve));
            rpc.listen();
            const init = await rpc.sendRequest<InitializeResult>('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
            expect(init.capabilities.completionProvider).toBeDefined();
            await rpc.sendNotification('initialized', {});
            const uri = 'file:///ipc/query.apl';
            const text = "['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)";
            await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
            const diagnostics = await published;
            expect(diagnostics.uri).toBe(uri);
            // `status` is a string in the built-in sample schema: comparing it with a number warns.
            expect(diagnostics.diagnostics.map(d => d.code)).toEqual(['APL0013']);
        } finally {
            rpc.dispose();
            child.kill();
        }
    });
});
