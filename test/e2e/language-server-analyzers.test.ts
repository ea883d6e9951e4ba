/**
 * The analyzers over plain LSP: a real `apl-language-server --stdio` process, real files. A document
 * gets analyzer findings (with their quick fix as a code action); a `.aplrc.json` in its folder turns
 * a rule off; `apl.analyzers: {"enabled": false}` turns them all off.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { CodeAction, Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_BIN } from '../support/language-server.js';

const QUERY = "['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 3";

describe('analyzers in apl-language-server --stdio', () => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    const dir = mkdtempSync(join(tmpdir(), 'apl-ls-an-'));
    const published = new Map<string, Diagnostic[]>();
    let settings: unknown = null;

    beforeAll(async () => {
        mkdirSync(join(dir, 'quiet'));
        writeFileSync(join(dir, 'quiet', '.aplrc.json'), JSON.stringify({ rules: { APL2002: 'off' } }));
        child = spawn(process.execPath, [LANGUAGE_SERVER_BIN, '--stdio'], { cwd: dir });
        rpc = await initializedClient(child, c => {
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                published.set(p.uri, p.diagnostics);
            });
            c.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map(() => settings));
        });
    });

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    const open = async (path: string, text: string) => {
        const uri = pathToFileURL(join(dir, path)).toString();
        writeFileSync(join(dir, path), text);
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        return uri;
    };
    const codes = (uri: string) => published.get(uri)?.map(d => d.code).join(' ');

    it(`${QUERY}: APL2002 and APL2006, with a quick fix`, async () => {
        const uri = await open('q.apl', QUERY);
        await expect.poll(() => codes(uri), { timeout: 15_000 }).toBe('APL2002 APL2006');
        const top = published.get(uri)!.find(d => d.code === 'APL2006')!;
        const actions = (await rpc.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: top.range, context: { diagnostics: [top] } })) as CodeAction[];
        expect(actions.map(a => a.edit?.changes?.[uri]?.[0]?.newText)).toEqual(['top 3 by uri']);
    });

    it(`${QUERY} under a folder whose .aplrc.json turns APL2002 off`, async () => {
        const uri = await open('quiet/q.apl', QUERY);
        await expect.poll(() => codes(uri), { timeout: 15_000 }).toBe('APL2006');
    });

    it(`${QUERY} with apl.analyzers {"enabled": false}`, async () => {
        settings = { analyzers: { enabled: false } };
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { analyzers: { enabled: false } } } });
        const uri = pathToFileURL(join(dir, 'q.apl')).toString();
        await expect.poll(() => codes(uri), { timeout: 15_000 }).toBe('');
    });
});
