/**
 * Hostile input for the real `apl-language-server --stdio` process (the BUILT bin): documents nested
 * or sized past every limit, bursts of edits, and broken message framing. After each document case
 * the same process is alive and answers a request about a valid document correctly; a broken
 * frame ends the process with a message on stderr instead of a silent stall.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, DocumentSymbol, Hover, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';


const nest = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);
const QUERY = "['sample-http-logs'] | where status == 500 | summarize count() by bin(_time, 1h)\n";

interface Published {
    version?: number;
    diagnostics: Diagnostic[];
}

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio under hostile documents ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    let stderr = '';
    const published = new Map<string, Published[]>();
    const codes = (uri: string) => (published.get(uri)?.at(-1)?.diagnostics ?? []).map(d => d.code);
    let docs = 0;

    async function open(text: string): Promise<string> {
        const uri = `file:///hostile/doc${++docs}.apl`;
        await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text } });
        await expect.poll(() => published.get(uri)?.length ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
        return uri;
    }

    /** The process is alive and a valid document still gets correct answers. */
    async function stillAnswers(): Promise<void> {
        expect(child.exitCode).toBeNull();
        const uri = await open("['sample-http-logs'] | where stauts == 500");
        expect(codes(uri)).toContain('APL0012');
        const hover = await rpc.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } });
        expect(JSON.stringify(hover?.contents ?? '')).toMatch(/sample-http-logs/);
        const symbols = await rpc.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
        expect(symbols.length).toBeGreaterThan(0);
        await rpc.sendNotification('textDocument/didClose', { textDocument: { uri } });
    }

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        rpc = await initializedClient(child, c =>
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                const list = published.get(p.uri) ?? [];
                list.push({ version: p.version, diagnostics: p.diagnostics });
                published.set(p.uri, list);
            }),
        );
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    const DOCUMENTS: [string, string, string][] = [
        ['print ((((…1…)))) × 50', `print ${nest('(', '1', ')', 50)}`, 'APL1002'],
        ['print ((((…1…)))) × 10000', `print ${nest('(', '1', ')', 10_000)}`, 'APL1002'],
        ['print - - - …1 × 10000', `print ${'- '.repeat(10_000)}1`, 'APL1002'],
        ['print dynamic([[[…1…]]]) × 10000', `print dynamic(${nest('[', '1', ']', 10_000)})`, 'APL1002'],
        ['print true or true or … × 20000', `print ${Array(20_000).fill('true').join(' or ')}`, 'APL1002'],
        ['a 10 MB document', QUERY.repeat(Math.ceil((10 * 1024 * 1024) / QUERY.length)), 'APL1003'],
        ['a 400 KB document (syntax only)', QUERY.repeat(Math.ceil((400 * 1024) / QUERY.length)), 'APL1004'],
    ];

    for (const [name, text, code] of DOCUMENTS) {
        it(`${name}: ${code}, then the server still answers`, async () => {
            const uri = await open(text);
            expect(codes(uri)).toContain(code);
            const position = { line: 0, character: 10 };
            await rpc.sendRequest('textDocument/completion', { textDocument: { uri }, position });
            await rpc.sendRequest('textDocument/hover', { textDocument: { uri }, position });
            await rpc.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri } });
            await rpc.sendRequest('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
            await rpc.sendNotification('textDocument/didClose', { textDocument: { uri } });
            await stillAnswers();
        }, 120_000);
    }

    it('50 edits in a row of a 200 KB document: earlier builds are cancelled, the last version is checked', async () => {
        const base = QUERY.repeat(Math.ceil((200 * 1024) / QUERY.length));
        const uri = await open(base);
        const before = published.get(uri)!.length;
        for (let v = 2; v <= 51; v++) {
            const text = v === 51 ? base + 'print nosuchfunction(1)\n' : base + `print x = ${v}\n`;
            void rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ text }] });
        }
        // Only the last version has an unknown function.
        await expect.poll(() => codes(uri), { timeout: 120_000 }).toContain('APL0001');
        // Every edit fully checked would be 50 publications; cancelled builds publish nothing.
        expect(published.get(uri)!.length - before).toBeLessThan(10);
        await stillAnswers();
    }, 180_000);

    it('a message body that is not JSON gets the JSON-RPC parse error, and the server goes on', async () => {
        const replies: string[] = [];
        const onData = (d: Buffer) => replies.push(d.toString());
        child.stdout.on('data', onData);
        child.stdin.write('Content-Length: 9\r\n\r\n{not json');
        await expect.poll(() => replies.join(''), { timeout: 15_000 }).toMatch(/"id":null,"error":\{"code":-32700/);
        child.stdout.off('data', onData);
        await stillAnswers();
    }, 60_000);

    it('nothing went to stderr', () => {
        expect(stderr).toBe('');
    });
});

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio with broken message framing ($name)', start => {
    const FRAMES: [string, string, RegExp][] = [
        ['no Content-Length', 'Content-Type: application/json\r\n\r\n{}', /no Content-Length/],
        ['a negative Content-Length', 'Content-Length: -5\r\n\r\n{}', /Content-Length "-5" is not a non-negative whole number/],
        ['a Content-Length that is not a number', 'Content-Length: ten\r\n\r\n{}', /not a non-negative whole number/],
        ['a huge Content-Length', 'Content-Length: 99999999999\r\n\r\n{}', /larger than the 67108864 bytes/],
        ['a header without its blank line', 'Content-Length: 2\r\n' + 'X-Pad: y\r\n'.repeat(2000), /longer than 8192 bytes/],
    ];
    for (const [name, frame, message] of FRAMES) {
        it(`${name}: the server exits 1 with the reason on stderr`, async () => {
            const child = spawn(start.command, [...start.args, '--stdio']);
            let stderr = '';
            child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
            const exit = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
            child.stdin.write(frame);
            expect(await exit).toBe(1);
            expect(stderr).toMatch(message);
            expect(stderr).toMatch(/^apl-language-server: cannot read the client's messages/);
        }, 60_000);
    }
});
