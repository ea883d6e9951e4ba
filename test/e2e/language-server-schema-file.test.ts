/**
 * `apl.schemaFile` naming something that is not a readable regular file, for the real
 * `apl-language-server --stdio` process (the BUILT bin): a FIFO (readFileSync on it blocked the
 * server for good), /dev/zero (read until memory ran out), a directory, a file past the 16 MiB cap,
 * a missing file. Each is reported in a window/showMessage naming the path and the problem, and
 * the server still publishes diagnostics and answers hover.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, Hover, PublishDiagnosticsParams, ShowMessageParams } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';

const dir = mkdtempSync(join(tmpdir(), 'apl-schema-file-'));
const fifo = join(dir, 'schema.fifo');
const directory = join(dir, 'a-directory');
const huge = join(dir, 'huge.json');
const missing = join(dir, 'missing.json');

const CASES: [string, string, RegExp][] = [
    ['a FIFO', fifo, /named pipe \(FIFO\)/],
    ['/dev/zero', '/dev/zero', /device/],
    ['a directory', directory, /directory/],
    ['a 17 MiB file', huge, /larger than the 16 MiB/],
    ['a missing file', missing, /no such file/],
];

beforeAll(() => {
    mkdirSync(directory);
    execFileSync('mkfifo', [fifo]);
    writeFileSync(huge, '[');
    truncateSync(huge, 17 * 1024 * 1024); // sparse: the size counts, no disk is used
});

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio with a hostile apl.schemaFile ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    let stderr = '';
    const messages: string[] = [];
    const published = new Map<string, Diagnostic[]>();
    let docs = 0;

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        rpc = await initializedClient(child, c => {
            c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
                published.set(p.uri, p.diagnostics);
            });
            c.onNotification('window/showMessage', (p: ShowMessageParams) => {
                messages.push(p.message);
            });
        });
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    for (const [name, path, problem] of CASES) {
        it(`${name}: a message names the path and the problem, and the server still answers`, async () => {
            await rpc.sendNotification('workspace/didChangeConfiguration', { settings: { apl: { schemaFile: path } } });
            await expect.poll(() => messages.find(m => m.includes(path)), { timeout: 30_000 }).toMatch(problem);
            // The built-in sample schemas are used instead: diagnostics and hover work on them.
            const uri = `file:///schema-file/doc${++docs}.apl`;
            await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'apl', version: 1, text: "['sample-http-logs'] | where stauts == 500" } });
            await expect.poll(() => published.get(uri)?.map(d => d.code), { timeout: 30_000 }).toContain('APL0012');
            const hover = await rpc.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } });
            expect(JSON.stringify(hover?.contents ?? '')).toMatch(/sample-http-logs/);
            expect(child.exitCode).toBeNull();
        }, 60_000);
    }

    it('nothing went to stderr', () => {
        expect(stderr).toBe('');
    });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
