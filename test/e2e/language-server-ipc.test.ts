/**
 * `apl-language-server --node-ipc`, the transport VS Code's LanguageClient uses for a Node module:
 * the BUILT bin (launcher + bundle) forked with an IPC channel, driven with vscode-jsonrpc.
 */
import { fork, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { LANGUAGE_SERVER_BIN, LANGUAGE_SERVER_STARTS, runsFromSnapshot } from '../support/language-server.js';


describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --node-ipc ($name)', start => {
    it("['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)", async () => {
        // What fork() does for the script, with the bin itself run as the command for the launcher.
        const child = start.snapshot
            ? spawn(start.command, [...start.args, '--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
            : fork(LANGUAGE_SERVER_BIN, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
        const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
        try {
            const published = new Promise<PublishDiagnosticsParams>(resolve => rpc.onNotification('textDocument/publishDiagnostics', resolve));
            rpc.listen();
            const init = await rpc.sendRequest<InitializeResult>('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
            expect(init.capabilities.completionProvider).toBeDefined();
            // After an answer: before it the launcher's shell may not have started node yet.
            expect(runsFromSnapshot(child.pid!)).toBe(start.snapshot);
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
