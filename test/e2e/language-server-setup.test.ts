/**
 * The language server as editors set it up (the BUILT bin, out/apl-language-server.cjs, over
 * stdio): `apl.schemaFile` given ONLY as initializationOptions (Neovim's init_options, Helix's
 * `config`), or ONLY with workspace/didChangeConfiguration, from clients that do not answer
 * workspace/configuration; and completion edits inside an unterminated `['`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { CompletionList, Diagnostic, PublishDiagnosticsParams, TextEdit } from 'vscode-languageserver-protocol';
import { LANGUAGE_SERVER_STARTS, type LanguageServerStart } from '../support/language-server.js';

const dir = mkdtempSync(join(tmpdir(), 'apl-ls-setup-'));
writeFileSync(join(dir, 'schema.json'), JSON.stringify({ datasets: { 'my-logs': { level: 'string', 'geo.city': 'string' } } }));

interface Session {
    rpc: MessageConnection;
    child: ChildProcessWithoutNullStreams;
    diagnostics: Map<string, Diagnostic[]>;
}

let session: Session | undefined;

/** A client without workspace/configuration support (as Neovim's and Helix's are by default without settings). */
async function start(how: LanguageServerStart, initializationOptions?: unknown): Promise<Session> {
    const child = spawn(how.command, [...how.args, '--stdio'], { cwd: dir });
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const diagnostics = new Map<string, Diagnostic[]>();
    rpc.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
        diagnostics.set(p.uri, p.diagnostics);
    });
    rpc.onNotification('window/logMessage', () => undefined);
    rpc.onNotification('window/showMessage', () => undefined);
    rpc.onRequest('client/registerCapability', () => null);
    rpc.listen();
    await rpc.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(dir).toString(),
        capabilities: { textDocument: { completion: { completionItem: { snippetSupport: true } } } },
        initializationOptions,
    });
    await rpc.sendNotification('initialized', {});
    session = { rpc, child, diagnostics };
    return session;
}

afterEach(async () => {
    if (!session) return;
    const { rpc, child } = session;
    session = undefined;
    const exited = new Promise(resolve => child.once('exit', resolve));
    try {
        await rpc.sendRequest('shutdown');
        await rpc.sendNotification('exit');
        await exited;
    } finally {
        rpc.dispose();
        if (child.exitCode === null) child.kill();
    }
});

const codes = (s: Session, uri: string) => (s.diagnostics.get(uri) ?? []).map(d => String(d.code));

async function open(s: Session, name: string, text: string): Promise<string> {
    const uri = pathToFileURL(join(dir, name)).toString();
    await s.rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
    return uri;
}

describe.each(LANGUAGE_SERVER_STARTS)('$name', how => {
    describe('apl.schemaFile through one route only', () => {
        it('initializationOptions.schemaFile alone: my-logs is known, sample-http-logs is not', async () => {
            const s = await start(how, { schemaFile: 'schema.json' });
            const uri = await open(s, 'init.apl', "['my-logs'] | where level == 'x'\n| union ['sample-http-logs']");
            await expect.poll(() => s.diagnostics.get(uri), { timeout: 15_000 }).toBeDefined();
            await expect.poll(() => codes(s, uri), { timeout: 15_000 }).toEqual(['APL0011']);
            expect(s.diagnostics.get(uri)![0].message).toContain('sample-http-logs');
        });

        it('workspace/didChangeConfiguration alone (settings pushed, no workspace/configuration): the schema applies to open documents', async () => {
            const s = await start(how);
            const uri = await open(s, 'push.apl', "['my-logs'] | where levle == 'x'");
            // Without a schema file only the sample datasets are known: my-logs and its fields are not checked.
            await expect.poll(() => s.diagnostics.get(uri), { timeout: 15_000 }).toBeDefined();
            expect(codes(s, uri)).toEqual([]);
            await s.rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { schemaFile: 'schema.json' } } });
            await expect.poll(() => codes(s, uri), { timeout: 15_000 }).toEqual(['APL0012']);
        });
    });

    describe('completion inside an unterminated [\' at the end of a line', () => {
        it("['my-logs']\\n| where ['ge<|>\\n| take 1  →  the edit stays on the cursor's line", async () => {
            const s = await start(how, { schemaFile: 'schema.json' });
            const text = "['my-logs']\n| where ['ge\n| take 1\n";
            const uri = await open(s, 'bracket.apl', text);
            const list = await s.rpc.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 12 } });
            const geo = list.items.find(i => i.label === 'geo.city');
            expect(geo).toBeDefined();
            const edit = geo!.textEdit as TextEdit;
            // The edit replaces the text inside the quotes and closes them (the bracket form of completion).
            expect(edit.newText).toBe("geo.city']");
            expect(edit.range).toEqual({ start: { line: 1, character: 10 }, end: { line: 1, character: 12 } });
        });
    });
});
