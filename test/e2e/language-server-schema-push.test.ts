/**
 * A schema pushed with `apl/setSchema` while the server is still reading its settings (the BUILT bin
 * over stdio). VS Code's client pushes it again as soon as a restarted server runs, before the server's
 * own workspace/configuration request is answered: the settings read then (no schema file) must not put
 * the sample datasets back over the pushed schema.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS, stopServer } from '../support/language-server.js';

let child: ChildProcessWithoutNullStreams | undefined;
let rpc: MessageConnection | undefined;

afterEach(async () => {
    await stopServer(rpc, child);
    rpc = undefined;
    child = undefined;
});

describe.each(LANGUAGE_SERVER_STARTS)('$name', how => {
    it("['events'] | where nosuchfield == 1 | extend x = null with the schema pushed before the settings are answered: APL0012, APL0010", async () => {
        child = spawn(how.command, [...how.args, '--stdio']);
        const diagnostics = new Map<string, Diagnostic[]>();
        let pushed!: () => void;
        const schemaSent = new Promise<void>(resolve => (pushed = resolve));
        let asked = false;
        rpc = await initializedClient(
            child,
            c => {
                c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                    diagnostics.set(p.uri, p.diagnostics);
                });
                // The settings (no schema file) are answered only once the schema was pushed.
                c.onRequest('workspace/configuration', async (p: { items: unknown[] }) => {
                    asked = true;
                    await schemaSent;
                    return p.items.map(() => null);
                });
            },
            { capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } } } },
        );
        await rpc.sendNotification('apl/setSchema', { schema: { datasets: { events: { level: 'string' } } } });
        pushed();
        const uri = 'file:///schema-push/query.apl';
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text: "['events'] | where nosuchfield == 1\n" } });
        await expect.poll(() => asked, { timeout: 15_000 }).toBe(true);
        // Checked again after the settings were read (they revalidate nothing when they name no file, so edit once);
        // the bare null (APL0010) tells the edit's diagnostics from the first ones.
        await rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: "['events'] | where nosuchfield == 1 | extend x = null\n" }] });
        const codes = () => (diagnostics.get(uri) ?? []).map(d => String(d.code));
        await expect.poll(codes, { timeout: 15_000 }).toContain('APL0010');
        expect(codes()).toEqual(['APL0012', 'APL0010']);
    });
});
