/**
 * Refactors and formatting options over plain LSP: the real `apl-language-server --stdio` process
 * (the BUILT bin), a client without workspace/configuration (settings are pushed, as Neovim and Helix
 * do), and a real `.aplrc.json` on disk above a document.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { CodeAction, TextEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { initializedClient, LANGUAGE_SERVER_BIN, stopServer } from '../support/language-server.js';

const QUERY = "['sample-http-logs'] | where method == 'GET' or method == 'PUT' | count";

describe('apl-language-server --stdio: refactors and format options', () => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    const dir = mkdtempSync(join(tmpdir(), 'apl-ls-refactor-'));
    const messages: string[] = [];

    const open = async (path: string, text: string) => {
        const uri = pathToFileURL(path).toString();
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        return uri;
    };
    const format = async (uri: string, text: string) => {
        const edits = await rpc.sendRequest<TextEdit[] | null>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
        return TextDocument.applyEdits(TextDocument.create(uri, 'apl', 1, text), edits ?? []);
    };

    beforeAll(async () => {
        child = spawn(process.execPath, [LANGUAGE_SERVER_BIN, '--stdio'], { cwd: dir });
        rpc = await initializedClient(child, r => r.onNotification('window/showMessage', (p: { message: string }) => void messages.push(p.message)));
    });

    afterAll(() => stopServer(rpc, child));

    it(`${QUERY}: codeAction (only: refactor) converts the or-chain to 'in', and formatting follows apl.format and .aplrc.json`, async () => {
        const uri = await open(join(dir, 'query.apl'), QUERY);
        const cursor = QUERY.indexOf("method == 'PUT'");
        const actions = await rpc.sendRequest<CodeAction[] | null>('textDocument/codeAction', {
            textDocument: { uri },
            range: { start: { line: 0, character: cursor }, end: { line: 0, character: cursor } },
            context: { diagnostics: [], only: ['refactor'] },
        });
        const toIn = (actions ?? []).find(a => a.title === "Convert to 'in (…)'");
        expect(toIn?.kind).toBe('refactor.rewrite');
        const edits = toIn!.edit!.changes![uri];
        expect(TextDocument.applyEdits(TextDocument.create(uri, 'apl', 1, QUERY), edits)).toBe("['sample-http-logs'] | where method in ('GET', 'PUT') | count");
        expect((actions ?? []).every(a => a.kind?.startsWith('refactor'))).toBe(true);

        // Today's layout until a setting says otherwise.
        expect(await format(uri, QUERY)).toBe("['sample-http-logs']\n| where method == 'GET' or method == 'PUT'\n| count");
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { format: { pipe: 'end' } } } });
        expect(await format(uri, QUERY)).toBe("['sample-http-logs'] |\nwhere method == 'GET' or method == 'PUT' |\ncount");

        // A project file above the document adds its own options (and wins where both set one).
        const project = join(dir, 'project');
        mkdirSync(join(project, 'queries'), { recursive: true });
        writeFileSync(join(project, '.aplrc.json'), JSON.stringify({ format: { pipeline: 'fit', width: 100 } }));
        const inProject = await open(join(project, 'queries', 'q.apl'), QUERY);
        expect(await format(inProject, QUERY)).toBe("['sample-http-logs'] | where method == 'GET' or method == 'PUT' | count");

        // A broken project file is reported (once) and the settings still apply.
        writeFileSync(join(project, '.aplrc.json'), '{"format": ');
        expect(await format(inProject, QUERY)).toBe("['sample-http-logs'] |\nwhere method == 'GET' or method == 'PUT' |\ncount");
        expect(messages.filter(m => m.includes(join(project, '.aplrc.json')) && m.includes('not valid JSON'))).toHaveLength(1);
    });
});
