/**
 * Seeing types and stages over plain LSP, in the real `apl-language-server --stdio` process (the
 * BUILT bin): inlay hints (column types; the summarize columns once the setting is on) and the
 * `apl/explain` request.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { InlayHint, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { Explanation } from '../../language/explain.js';
import { initializedClient, LANGUAGE_SERVER_BIN } from '../support/language-server.js';

const QUERY = "['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024 | summarize n = count() by status";
const URI = 'file:///explain/query.apl';

describe('apl-language-server --stdio: inlay hints and apl/explain', () => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    /** The client's `apl` settings, as workspace/configuration answers them. */
    let apl: unknown = null;

    const labels = (hints: InlayHint[]) => hints.map(h => `${h.position.line}:${h.position.character} ${typeof h.label === 'string' ? h.label : h.label.map(p => p.value).join('')}`);
    const inlayHints = () =>
        rpc.sendRequest<InlayHint[] | null>('textDocument/inlayHint', { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: QUERY.length } } });

    beforeAll(async () => {
        child = spawn(process.execPath, [LANGUAGE_SERVER_BIN, '--stdio']);
        let analysed!: () => void;
        const opened = new Promise<void>(resolve => (analysed = resolve));
        rpc = await initializedClient(child, c => {
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                if (p.uri === URI) analysed();
            });
            c.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map(i => (i.section === 'apl' ? apl : null)));
        });
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri: URI, languageId: 'apl', version: 1, text: QUERY } });
        await opened;
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    it(`${QUERY}: the type of each extend column`, async () => {
        expect(labels((await inlayHints()) ?? [])).toEqual(['0:32 : long']);
    });

    it(`${QUERY}: the summarize columns once apl.inlayHints.summarizeColumns is on`, async () => {
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { inlayHints: { summarizeColumns: true } } } });
        await expect.poll(async () => labels((await inlayHints()) ?? []), { timeout: 30_000 }).toEqual(['0:32 : long', `0:${QUERY.length} → (status: string, n: long)`]);
    });

    it(`${QUERY}: the setting read back from the client (didChangeConfiguration with settings null, then workspace/configuration)`, async () => {
        apl = { inlayHints: { summarizeColumns: false } };
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: null });
        await expect.poll(async () => labels((await inlayHints()) ?? []), { timeout: 30_000 }).toEqual(['0:32 : long']);
    });

    it(`${QUERY}: apl/explain on the open document lists each stage and the columns after it`, async () => {
        const explanation = await rpc.sendRequest<Explanation | null>('apl/explain', { textDocument: { uri: URI }, position: { line: 0, character: 40 } });
        expect(explanation?.stages.map(s => [s.keyword ?? null, s.range.start.character, s.range.end.character])).toEqual([
            [null, 0, 20],
            ['extend', QUERY.indexOf('extend'), QUERY.indexOf(' | summarize')],
            ['summarize', QUERY.indexOf('summarize'), QUERY.length],
        ]);
        expect(explanation?.stages[2].columns).toEqual([{ name: 'status', type: 'string' }, { name: 'n', type: 'long' }]);
        expect(explanation?.stages[1].prefix).toBe("['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024");
    });

    it("apl/explain with { text } of two blocks: the block at the position; null before the first", async () => {
        const text = "\n['a'] | take 1\n\nprint x = 1";
        const second = await rpc.sendRequest<Explanation | null>('apl/explain', { text, position: { line: 3, character: 2 } });
        expect(second?.stages.map(s => s.text)).toEqual(['print x = 1']);
        expect(await rpc.sendRequest('apl/explain', { text, position: { line: 0, character: 0 } })).toBeNull();
    });

    it('apl/explain with a bad position is an InvalidParams error', async () => {
        await expect(rpc.sendRequest('apl/explain', { text: 'print 1', position: { line: -1 } })).rejects.toMatchObject({ code: -32602 });
    });

    it("['pushed'] | project a: a schema pushed with apl/setSchema stays when another apl setting changes", async () => {
        await rpc.sendNotification('apl/setSchema', { schema: { datasets: { pushed: { a: 'string' } } } });
        const columns = async () => (await rpc.sendRequest<Explanation | null>('apl/explain', { text: "['pushed'] | project a" }))?.stages[1].columns;
        await expect.poll(columns, { timeout: 30_000 }).toEqual([{ name: 'a', type: 'string' }]);
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { inlayHints: { summarizeColumns: true } } } });
        apl = { inlayHints: { summarizeColumns: true } };
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: null });
        // A request after the notifications is answered after them.
        await rpc.sendRequest('textDocument/inlayHint', { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
        expect(await columns()).toEqual([{ name: 'a', type: 'string' }]);
    });
});
