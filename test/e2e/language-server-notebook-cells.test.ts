/**
 * Notebook cells in the real language server process (the built bin, over stdio): a cell checked with
 * the prelude the editor sends (`apl/cellPrelude`: the lets of the cells above) sees those names and
 * keeps its diagnostics on its own lines; a name that only a later cell defines is APL0050.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';

describe('apl-language-server --stdio: notebook cells with apl/cellPrelude', () => {
    const start = LANGUAGE_SERVER_STARTS[0];
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    const published = new Map<string, Diagnostic[]>();
    let n = 0;

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        rpc = await initializedClient(child, c => {
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => void published.set(p.uri, p.diagnostics));
        });
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    async function open(text: string): Promise<string> {
        const uri = `vscode-notebook-cell:/work/report.aplnb#W${++n}sZmlsZQ%3D%3D`;
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        return uri;
    }
    const codes = (uri: string) => published.get(uri)?.map(d => `${d.code}@${d.range.start.line}:${d.range.start.character}`);

    it("['sample-http-logs'] | where status == lo  (lo from a cell above): no diagnostic once the prelude declares it", async () => {
        const uri = await open("['sample-http-logs'] | where status == lo");
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual(['APL0012@0:39']);
        await rpc.sendNotification('apl/cellPrelude', { uri, prelude: "let lo = '500';\n", later: [] });
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual([]);
    }, 60_000);

    it("['sample-http-logs']\\n| where stauts == lo  after a two-line prelude: the problem stays on the cell's line 2", async () => {
        const uri = await open("['sample-http-logs']\n| where stauts == lo");
        await rpc.sendNotification('apl/cellPrelude', { uri, prelude: "let lo = '500';\nlet hi = '600';\n", later: [] });
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual(['APL0012@1:8']);
    }, 60_000);

    it("['sample-http-logs'] | where status == hi  (hi defined by cell 3, below): APL0050 where it is used", async () => {
        const uri = await open("['sample-http-logs'] | where status == hi");
        await rpc.sendNotification('apl/cellPrelude', { uri, prelude: '', later: [{ name: 'hi', cell: 3 }] });
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual(['APL0050@0:39']);
        expect(published.get(uri)![0].message).toMatch(/cell 3/);
    }, 60_000);

    // Last: it pushes a schema. Before a connection's schema arrives the server knows only the sample
    // datasets, which say nothing about the user's own: `['events']` is then no APL0011 (as in `apl check`).
    it("let lo = 0;\n['events'] | where seq >= lo  with only the sample datasets known: no APL0011; with a pushed schema without events: APL0011", async () => {
        const uri = await open("let lo = 0;\n['events'] | where seq >= lo");
        await rpc.sendNotification('apl/cellPrelude', { uri, prelude: '', later: [] });
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual([]);
        await rpc.sendNotification('apl/setSchema', { schema: { datasets: { other: { a: 'string' } } } });
        await expect.poll(() => codes(uri), { timeout: 30_000 }).toEqual(['APL0011@1:0']);
    }, 60_000);
});
