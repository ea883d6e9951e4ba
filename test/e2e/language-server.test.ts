/**
 * The real `apl-language-server --stdio` process (the BUILT bin, out/apl-language-server.cjs),
 * driven over JSON-RPC with vscode-jsonrpc: initialize, diagnostics, completion, hover, signature
 * help, formatting, semantic tokens, rename, incremental changes and a configuration change.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type {
    CompletionList,
    Diagnostic,
    Hover,
    InitializeResult,
    PublishDiagnosticsParams,
    SemanticTokens,
    SignatureHelp,
    TextEdit,
    WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import type { QueryInfo } from '../../language/lsp/apl-query-info.js';
import { LANGUAGE_SERVER_BIN, LANGUAGE_SERVER_STARTS, runsFromSnapshot, stopServer } from '../support/language-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = LANGUAGE_SERVER_BIN;

function ensureBuilt(): void {
    if (existsSync(BIN)) return;
    const r = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0 || !existsSync(BIN)) throw new Error(`cannot build ${BIN}: run 'node esbuild.mjs' first`);
}

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    const diagnostics = new Map<string, Diagnostic[][]>();
    const messages: { type: number; message: string }[] = [];
    const config: { apl: { schemaFile?: string } } = { apl: {} };
    const dir = mkdtempSync(join(tmpdir(), 'apl-ls-'));
    const uri = pathToFileURL(join(dir, 'query.apl')).toString();
    let init: InitializeResult;

    const latest = (u: string) => {
        const all = diagnostics.get(u) ?? [];
        return all[all.length - 1];
    };
    const pos = (text: string, marker: string) => {
        const offset = text.indexOf(marker);
        const before = text.slice(0, offset).split('\n');
        return { line: before.length - 1, character: before[before.length - 1].length };
    };

    beforeAll(async () => {
        ensureBuilt();
        child = spawn(start.command, [...start.args, '--stdio'], { cwd: dir });
        rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
        rpc.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
            const list = diagnostics.get(p.uri) ?? [];
            list.push(p.diagnostics);
            diagnostics.set(p.uri, list);
        });
        rpc.onNotification('window/showMessage', (p: { type: number; message: string }) => {
            messages.push(p);
        });
        rpc.onNotification('window/logMessage', () => undefined);
        rpc.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map(i => (i.section === 'apl' ? config.apl : null)));
        rpc.onRequest('client/registerCapability', () => null);
        rpc.listen();
        init = await rpc.sendRequest('initialize', {
            processId: process.pid,
            rootUri: pathToFileURL(dir).toString(),
            capabilities: {
                workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
                textDocument: { completion: { completionItem: { snippetSupport: true } }, semanticTokens: { requests: { full: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'] } },
            },
            workspaceFolders: [{ uri: pathToFileURL(dir).toString(), name: 'ws' }],
        });
        await rpc.sendNotification('initialized', {});
    });

    afterAll(() => stopServer(rpc, child));

    it(start.snapshot ? 'the process runs from the start-up snapshot' : 'the process runs the bin as a script', () => {
        expect(runsFromSnapshot(child.pid!)).toBe(start.snapshot);
    });

    it('initialize: advertises the APL features', () => {
        const caps = init.capabilities;
        expect(caps.completionProvider?.triggerCharacters).toEqual(expect.arrayContaining(['|', '.', '[']));
        expect(caps.hoverProvider).toBeTruthy();
        expect(caps.signatureHelpProvider?.triggerCharacters).toEqual(expect.arrayContaining(['(', ',']));
        expect(caps.documentFormattingProvider).toBeTruthy();
        expect(caps.semanticTokensProvider).toBeTruthy();
        expect(caps.renameProvider).toBeTruthy();
        expect(caps.codeActionProvider).toBeTruthy();
        expect(caps.foldingRangeProvider).toBeTruthy();
    });

    const text = "['sample-http-logs']\n| where stauts == '500' | summarize count() by method\n";

    it("didOpen ['sample-http-logs'] | where stauts == '500' → publishDiagnostics with a did-you-mean", async () => {
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        await expect.poll(() => latest(uri)?.length ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
        const d = latest(uri).find(x => (x.data as { code?: string } | undefined)?.code === 'APL0012');
        expect(d?.message).toMatch(/status/);
    });

    it("['sample-http-logs'] | where <|> → completion offers the dataset's fields", async () => {
        const list = await rpc.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri }, position: pos(text, 'stauts') });
        const labels = list.items.map(i => i.label);
        expect(labels).toEqual(expect.arrayContaining(['status', 'method', 'geo.city']));
        const geo = list.items.find(i => i.label === 'geo.city');
        expect((geo?.textEdit as TextEdit).newText).toBe("['geo.city']");
    });

    it('apl/queryInfo of the open document and of a text: blocks, pageability, time series', async () => {
        const info = await rpc.sendRequest<QueryInfo>('apl/queryInfo', { textDocument: { uri } });
        expect(info.blocks).toHaveLength(1);
        expect(info.blocks[0]).toMatchObject({ runnable: true, pageable: false, range: { start: { line: 0, character: 0 }, end: { line: 1 } } });
        const two = await rpc.sendRequest<QueryInfo>('apl/queryInfo', { text: "['sample-http-logs']\n\n['sample-http-logs'] | summarize count() by bin_auto(_time)" });
        expect(two.blocks.map(b => [b.pageable, b.timeColumn ?? null])).toEqual([[true, null], [false, '_time']]);
        await expect(rpc.sendRequest('apl/queryInfo', { textDocument: { uri: 'file:///not/open.apl' } })).rejects.toThrow(/open document/);
    });

    it("apl/translate ['sample-http-logs'] | where status == '500' → the legacy query; a join → a positioned error", async () => {
        const range = { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z' };
        const ok = await rpc.sendRequest<{ dataset: string; query: { startTime: string; filter?: unknown } }>('apl/translate', { text: "['sample-http-logs'] | where status == '500'", ...range });
        expect(ok.dataset).toBe('sample-http-logs');
        expect(ok.query.startTime).toBe(range.startTime);
        expect(ok.query.filter).toMatchObject({ op: '==', field: 'status', value: '500' });
        const bad = await rpc.sendRequest<{ error: { range: { start: { line: number } }; construct: string } }>('apl/translate', { text: "['sample-http-logs']\n| join (['b']) on x", ...range });
        expect(bad.error.construct).toBe('join');
        expect(bad.error.range.start.line).toBe(1);
        await expect(rpc.sendRequest('apl/translate', { text: 'x' })).rejects.toThrow(/startTime/);
    });

    it('hover on count() shows the catalogue docs', async () => {
        const hover = await rpc.sendRequest<Hover>('textDocument/hover', { textDocument: { uri }, position: pos(text, 'count()') });
        expect(JSON.stringify(hover.contents)).toMatch(/count\(/);
    });

    it('signatureHelp inside summarize count( → count()', async () => {
        const help = await rpc.sendRequest<SignatureHelp>('textDocument/signatureHelp', { textDocument: { uri }, position: { ...pos(text, 'count()'), character: pos(text, 'count()').character + 6 } });
        expect(help.signatures[0].label).toMatch(/^count\(/);
    });

    it('formatting puts each | operator on its own line', async () => {
        const edits = await rpc.sendRequest<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
        expect(edits.length).toBeGreaterThan(0);
        expect(edits.some(e => e.newText.includes('\n'))).toBe(true);
    });

    it('semanticTokens/full returns tokens', async () => {
        const tokens = await rpc.sendRequest<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri } });
        expect(tokens.data.length).toBeGreaterThan(0);
        expect(tokens.data.length % 5).toBe(0);
    });

    it('didChange, then rename of an extend column updates every reference', async () => {
        const changed = "['sample-http-logs']\n| extend ms = req_duration_ms\n| where ms > 100\n| project ms\n";
        await rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: changed }] });
        await expect.poll(() => latest(uri)?.length, { timeout: 15_000 }).toBe(0);
        const edit = await rpc.sendRequest<WorkspaceEdit>('textDocument/rename', { textDocument: { uri }, position: pos(changed, 'ms >'), newName: 'millis' });
        expect(edit.changes?.[uri]?.length).toBe(3);
        expect(edit.changes?.[uri]?.every(e => e.newText === 'millis')).toBe(true);
    });

    it('a config change to apl.schemaFile re-validates open documents', async () => {
        const schemaFile = join(dir, 'schema.json');
        writeFileSync(schemaFile, JSON.stringify({ datasets: { 'my-logs': { level: 'string' } } }));
        const doc2 = pathToFileURL(join(dir, 'two.apl')).toString();
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri: doc2, languageId: 'apl', version: 1, text: "['my-logs'] | where levle == 'error'" } });
        // With only the sample datasets known, my-logs and its fields are not checked (no APL0011).
        await expect.poll(() => latest(doc2), { timeout: 15_000 }).toEqual([]);
        config.apl.schemaFile = 'schema.json';
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { schemaFile: 'schema.json' } } });
        await expect.poll(() => latest(doc2)?.map(d => (d.data as { code?: string } | undefined)?.code), { timeout: 15_000 }).toEqual(['APL0012']);
    });

    it('a bad schema file → window/showMessage error, and the server keeps working', async () => {
        writeFileSync(join(dir, 'bad.json'), '{ "datasets": 42 }');
        config.apl.schemaFile = 'bad.json';
        await rpc.sendNotification('workspace/didChangeConfiguration', { settings: null });
        await expect.poll(() => messages.find(m => m.type === 1 && /bad\.json/.test(m.message)), { timeout: 15_000 }).toBeTruthy();
        const list = await rpc.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri }, position: { line: 0, character: 0 } });
        expect(list.items.map(i => i.label)).toContain('sample-http-logs');
    });
});
