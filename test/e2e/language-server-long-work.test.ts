/**
 * Long work in the real `apl-language-server --stdio` process (the BUILT bin): a pipeline of 3,000
 * stages (no recursion whose depth the input controls), a document past the analysis limits (the
 * cheap path for every request) and `apl/queryInfo` over a document of thousands of blocks, which
 * yields between blocks so that a hover sent after it is answered first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, Hover, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { QueryInfo } from '../../language/lsp/apl-query-info.js';
import { MAX_PARSED_LENGTH } from '../../language/limits.js';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';

const LONG_PIPELINE = "['sample-http-logs']" + '\n| where x > 1'.repeat(3000);
const QUERY = "['sample-http-logs'] | where status == 500\n| summarize count() by bin(_time, 1h)\n\n";
const blocksOf = (length: number) => QUERY.repeat(Math.ceil(length / QUERY.length));

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio, long work ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    let stderr = '';
    const published = new Map<string, Diagnostic[]>();
    let docs = 0;

    async function open(text: string): Promise<string> {
        const uri = `file:///long/doc${++docs}.apl`;
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        await expect.poll(() => published.has(uri), { timeout: 60_000 }).toBe(true);
        return uri;
    }

    /** Every request the editor sends about a document: each gets an answer, none an error. */
    async function everyRequest(uri: string, position: { line: number; character: number }): Promise<void> {
        const textDocument = { uri };
        await rpc.sendRequest('textDocument/hover', { textDocument, position });
        await rpc.sendRequest('textDocument/completion', { textDocument, position });
        await rpc.sendRequest('textDocument/signatureHelp', { textDocument, position });
        await rpc.sendRequest('textDocument/semanticTokens/full', { textDocument });
        await rpc.sendRequest('textDocument/foldingRange', { textDocument });
        await rpc.sendRequest('textDocument/documentSymbol', { textDocument });
        await rpc.sendRequest('textDocument/formatting', { textDocument, options: { tabSize: 4, insertSpaces: true } });
    }

    async function hoverOnSmall(uri: string): Promise<Hover | null> {
        return rpc.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } });
    }

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        rpc = await initializedClient(child, c =>
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                published.set(p.uri, p.diagnostics);
            }),
        );
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    it("['sample-http-logs'] | where x > 1 × 3000: apl/queryInfo and every other request answer", async () => {
        const uri = await open(LONG_PIPELINE);
        const info = await rpc.sendRequest<QueryInfo>('apl/queryInfo', { textDocument: { uri } });
        expect(info.blocks).toHaveLength(1);
        expect(info.blocks[0]).toMatchObject({ analysed: true, runnable: true, syntaxOk: true, pageable: true });
        await everyRequest(uri, { line: 3000, character: 3 });
        expect(child.exitCode).toBeNull();
    }, 120_000);

    it('a 3.5 MB document: every request answers by the cheap path, and a hover on a small document too', async () => {
        const small = await open("['sample-http-logs'] | where status == 500");
        const big = blocksOf(3.5 * 1024 * 1024);
        const uri = await open(big);
        expect(published.get(uri)?.map(d => d.code)).toContain('APL1003');
        const [info, hover] = await Promise.all([rpc.sendRequest<QueryInfo>('apl/queryInfo', { textDocument: { uri } }), hoverOnSmall(small)]);
        expect(info.blocks).toHaveLength(big.length / QUERY.length);
        expect(info.blocks.every(b => b.analysed === false && b.runnable)).toBe(true);
        expect(JSON.stringify(hover?.contents ?? '')).toMatch(/sample-http-logs/);
        await everyRequest(uri, { line: 1, character: 3 });
        await rpc.sendNotification('textDocument/didClose', { textDocument: { uri } });
    }, 120_000);

    it('apl/queryInfo over a 1 MB document of 12,000 blocks: a hover sent after it is answered before it', async () => {
        const small = await open("['sample-http-logs'] | where status == 500");
        const text = blocksOf(MAX_PARSED_LENGTH - QUERY.length);
        expect(text.length).toBeLessThanOrEqual(MAX_PARSED_LENGTH);
        const answered: string[] = [];
        const info = rpc.sendRequest<QueryInfo>('apl/queryInfo', { text }).then(r => (answered.push('queryInfo'), r));
        const hover = hoverOnSmall(small).then(r => (answered.push('hover'), r));
        expect(JSON.stringify((await hover)?.contents ?? '')).toMatch(/sample-http-logs/);
        expect((await info).blocks.every(b => b.analysed && b.pageable === false)).toBe(true);
        expect(answered).toEqual(['hover', 'queryInfo']);
    }, 120_000);

    it('a 1 MB document (syntax only): a hover sent after its semantic tokens or document symbols is answered before them', async () => {
        const small = await open("['sample-http-logs'] | where status == 500");
        const uri = await open(blocksOf(MAX_PARSED_LENGTH - QUERY.length));
        expect(published.get(uri)?.map(d => d.code)).toContain('APL1004');
        for (const method of ['textDocument/semanticTokens/full', 'textDocument/documentSymbol']) {
            const answered: string[] = [];
            const long = rpc.sendRequest<unknown>(method, { textDocument: { uri } }).then(() => answered.push(method));
            const hover = hoverOnSmall(small).then(() => answered.push('hover'));
            await Promise.all([long, hover]);
            expect(answered).toEqual(['hover', method]);
        }
        await rpc.sendNotification('textDocument/didClose', { textDocument: { uri } });
    }, 120_000);

    it('a cancelled apl/queryInfo answers RequestCancelled, and the server goes on', async () => {
        const small = await open("['sample-http-logs'] | where status == 500");
        const text = blocksOf(MAX_PARSED_LENGTH - QUERY.length);
        const source = new (await import('vscode-jsonrpc/node')).CancellationTokenSource();
        const info = rpc.sendRequest<QueryInfo>('apl/queryInfo', { text }, source.token);
        await hoverOnSmall(small);
        source.cancel();
        await expect(info).rejects.toMatchObject({ code: -32800 });
        expect(JSON.stringify((await hoverOnSmall(small))?.contents ?? '')).toMatch(/sample-http-logs/);
    }, 120_000);

    it('nothing went to stderr', () => {
        expect(stderr).toBe('');
    });
});
