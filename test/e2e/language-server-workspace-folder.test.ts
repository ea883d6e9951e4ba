/**
 * The real `apl-language-server --stdio` (the BUILT bin) opened on a workspace folder, as Neovim and
 * VS Code do (capabilities that take workspace folders): the folder's .apl files are loaded at
 * start-up (a refusal there once failed the start-up and no request was answered again), while a FIFO and a
 * symlink to /dev/zero named like query files are skipped (reading either never ends), and a
 * request naming a file outside what the client opened or the workspace holds is refused.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, Hover, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';

const folder = mkdtempSync(join(tmpdir(), 'apl-workspace-'));
const broken = join(folder, 'broken.apl');
const elsewhere = mkdtempSync(join(tmpdir(), 'apl-elsewhere-'));
const outside = join(elsewhere, 'secret.apl');

beforeAll(() => {
    writeFileSync(broken, "['sample-http-logs']\n| where status ==\n");
    writeFileSync(join(folder, 'fine.apl'), "['sample-http-logs'] | count\n");
    execFileSync('mkfifo', [join(folder, 'pipe.apl')]);
    symlinkSync('/dev/zero', join(folder, 'zero.apl'));
    writeFileSync(outside, "['secret'] | count\n");
});

afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
});

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio on a workspace folder with a FIFO and /dev/zero named *.apl ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    const published = new Map<string, Diagnostic[]>();
    const waiters: (() => void)[] = [];

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        const root = pathToFileURL(folder).toString();
        rpc = await initializedClient(
            child,
            c =>
                c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                    published.set(p.uri, p.diagnostics);
                    waiters.splice(0).forEach(w => w());
                }),
            { rootUri: root, workspaceFolders: [{ uri: root, name: 'queries' }], capabilities: { workspace: { workspaceFolders: true } } },
        );
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    async function diagnosticsOf(uri: string): Promise<Diagnostic[]> {
        while (!published.has(uri)) await new Promise<void>(resolve => waiters.push(resolve));
        return published.get(uri)!;
    }

    it("broken.apl, loaded with the workspace, then opened: ['sample-http-logs'] | where status ==  (APL1001)", async () => {
        const uri = pathToFileURL(broken).toString();
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text: readFileSync(broken, 'utf8') } });
        expect((await diagnosticsOf(uri)).map(d => d.code)).toContain('APL1001');
    }, 60_000);

    it("an opened document is served: hover on ['sample-http-logs'] | count", async () => {
        const uri = pathToFileURL(join(folder, 'opened.apl')).toString();
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text: "['sample-http-logs'] | count\n" } });
        expect(await diagnosticsOf(uri)).toEqual([]);
        const hover = await rpc.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 24 } });
        expect(hover).not.toBeNull();
    }, 60_000);

    it('a request naming an .apl file that is neither open nor in the workspace is refused with InvalidParams', async () => {
        const uri = pathToFileURL(outside).toString();
        await expect(
            rpc.sendRequest('textDocument/references', { textDocument: { uri }, position: { line: 0, character: 0 }, context: { includeDeclaration: true } }),
        ).rejects.toMatchObject({ code: -32602 });
    });
});
