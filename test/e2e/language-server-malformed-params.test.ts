/**
 * Malformed parameters for every method the real `apl-language-server --stdio` process (the BUILT
 * bin) registers: null, numbers, strings, arrays, objects with wrong-typed fields, a missing uri, a
 * uri of an unopened document, positions out of range. A request is answered (a result or an
 * error), a notification is dropped, and after each message the same process still answers a hover
 * on a real document (issue 26: `$/cancelRequest` without params ended the server).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Hover } from 'vscode-languageserver-protocol';
import { initializedClient, LANGUAGE_SERVER_STARTS } from '../support/language-server.js';

const DOC = 'file:///fuzz/real.apl';
const REAL_TEXT = "['sample-http-logs'] | where status == 500";

/** What the server answers (its initialize capabilities, Langium's and ours). */
const REQUESTS = [
    'textDocument/hover', 'textDocument/completion', 'completionItem/resolve', 'textDocument/signatureHelp',
    'textDocument/definition', 'textDocument/references', 'textDocument/documentHighlight', 'textDocument/documentSymbol',
    'textDocument/formatting', 'textDocument/rangeFormatting', 'textDocument/onTypeFormatting', 'textDocument/rename',
    'textDocument/prepareRename', 'textDocument/codeAction', 'textDocument/foldingRange', 'textDocument/semanticTokens/full',
    'textDocument/semanticTokens/full/delta', 'textDocument/semanticTokens/range', 'workspace/symbol', 'workspace/executeCommand',
    'apl/queryInfo', 'apl/translate',
];
const NOTIFICATIONS = [
    'textDocument/didOpen', 'textDocument/didChange', 'textDocument/didClose', 'textDocument/didSave', 'textDocument/willSave',
    'workspace/didChangeConfiguration', 'workspace/didChangeWatchedFiles', 'workspace/didChangeWorkspaceFolders',
    'apl/setSchema', '$/cancelRequest', '$/setTrace', '$/progress',
];

const scalar = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.string({ maxLength: 8 }), fc.boolean());
const uri = fc.oneof(scalar, fc.constant('file:///fuzz/never-opened.apl'), fc.constant(DOC), fc.constant('not a uri'), fc.constant(''));
const position = fc.oneof(scalar, fc.record({ line: fc.oneof(scalar, fc.integer({ min: -5, max: 1e9 })), character: fc.oneof(scalar, fc.integer({ min: -5, max: 1e9 })) }, { requiredKeys: [] }));
const range = fc.oneof(scalar, fc.record({ start: position, end: position }, { requiredKeys: [] }));
const textDocument = fc.oneof(scalar, fc.record({ uri, version: scalar, text: scalar, languageId: scalar }, { requiredKeys: [] }));
/** Objects shaped like LSP params with every field missing or of any type. */
const shaped = fc.record(
    {
        textDocument,
        position,
        range,
        id: scalar,
        text: scalar,
        schema: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
        contentChanges: fc.oneof(scalar, fc.array(fc.oneof(scalar, fc.record({ text: scalar, range }, { requiredKeys: [] })), { maxLength: 3 })),
        changes: fc.oneof(scalar, fc.array(fc.oneof(scalar, fc.record({ uri, type: scalar }, { requiredKeys: [] })), { maxLength: 3 })),
        settings: fc.oneof(scalar, fc.record({ apl: fc.oneof(scalar, fc.record({ schemaFile: scalar }, { requiredKeys: [] })) }, { requiredKeys: [] })),
        context: scalar,
        options: scalar,
        newName: scalar,
        query: scalar,
        event: scalar,
        token: scalar,
        value: scalar,
        command: scalar,
        arguments: scalar,
        startTime: scalar,
        endTime: scalar,
    },
    { requiredKeys: [] },
);
/** `undefined` leaves `params` out of the message. */
const params = fc.oneof(fc.constant(undefined), scalar, fc.array(scalar, { maxLength: 3 }), shaped);

describe.each(LANGUAGE_SERVER_STARTS)('apl-language-server --stdio under malformed parameters ($name)', start => {
    let child: ChildProcessWithoutNullStreams;
    let rpc: MessageConnection;
    let stderr = '';
    let exited: number | null | undefined;
    /** Rejects when the process ends, so that a crash fails the step that caused it instead of a timeout. */
    let ended: Promise<never>;
    const alive = <T>(step: Promise<T>): Promise<T> => Promise.race([step, ended]);

    beforeAll(async () => {
        child = spawn(start.command, [...start.args, '--stdio']);
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        ended = new Promise<never>((_, reject) =>
            child.once('exit', code => {
                exited = code;
                reject(new Error(`the server exited with code ${code}: ${stderr.slice(0, 500)}`));
            }),
        );
        ended.catch(() => undefined);
        rpc = await initializedClient(child);
    }, 60_000);

    afterAll(() => {
        rpc?.dispose();
        child?.kill();
    });

    /** (Re)opens the real document: a fuzzed didClose or didChange may have closed or changed it. */
    async function hoverOnRealDocument(): Promise<void> {
        await alive(rpc.sendNotification('textDocument/didClose', { textDocument: { uri: DOC } }));
        await alive(rpc.sendNotification('textDocument/didOpen', { textDocument: { uri: DOC, languageId: 'apl', version: 1, text: REAL_TEXT } }));
        const hover = await alive(rpc.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: DOC }, position: { line: 0, character: 3 } }));
        expect(JSON.stringify(hover?.contents ?? '')).toMatch(/sample-http-logs/);
    }

    /** The raw message, so that `params` can be anything (vscode-jsonrpc's sender would reshape it). */
    function sendRaw(message: object): void {
        const body = JSON.stringify({ jsonrpc: '2.0', ...message });
        child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }

    let nextId = 1_000_000;
    /** Resolves with the response to request `id` (a result or an error), read off the raw stdout. */
    function response(id: number): Promise<void> {
        let seen = '';
        return new Promise(resolve => {
            const onData = (d: Buffer) => {
                seen += d.toString();
                if (seen.includes(`"id":${id},`) || seen.includes(`"id":${id}}`)) {
                    child.stdout.off('data', onData);
                    resolve();
                }
            };
            child.stdout.on('data', onData);
        });
    }

    it('every request gets an answer and every notification is dropped, and hover still answers after each', async () => {
        await hoverOnRealDocument();
        await fc.assert(
            fc.asyncProperty(fc.constantFrom(...REQUESTS, ...NOTIFICATIONS), params, async (method, p) => {
                if (REQUESTS.includes(method)) {
                    const id = nextId++;
                    const answered = response(id);
                    sendRaw({ id, method, ...(p === undefined ? {} : { params: p }) });
                    await alive(answered);
                } else {
                    sendRaw({ method, ...(p === undefined ? {} : { params: p }) });
                }
                await hoverOnRealDocument();
                expect(exited).toBeUndefined();
            }),
            { numRuns: 150, endOnFailure: true },
        );
        expect(stderr).toBe('');
    }, 120_000);
});
