/**
 * The deferred message reader and writer that the language server's snapshot is built on
 * (server/lsp/deferred-transport.ts): listening before the bind reaches the transport bound later,
 * its events come through, and a second bind or a write before any is refused.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamMessageReader, StreamMessageWriter, type Message } from 'vscode-jsonrpc/node';
import { DeferredMessageReader, DeferredMessageWriter } from '../../../server/lsp/deferred-transport.js';

const frame = (message: object) => {
    const body = JSON.stringify(message);
    return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

describe('DeferredMessageReader', () => {
    it('a callback given before the bind gets the messages of the transport bound after', async () => {
        const reader = new DeferredMessageReader();
        const got: Message[] = [];
        reader.listen(m => got.push(m));
        const input = new PassThrough();
        reader.bind(new StreamMessageReader(input));
        input.write(frame({ jsonrpc: '2.0', method: 'initialized', params: {} }));
        await expect.poll(() => got).toEqual([{ jsonrpc: '2.0', method: 'initialized', params: {} }]);
    });

    it("the transport's close and error come through", async () => {
        const reader = new DeferredMessageReader();
        const events: string[] = [];
        reader.onClose(() => events.push('close'));
        reader.onError(e => events.push(`error: ${e.message}`));
        reader.listen(() => undefined);
        const input = new PassThrough();
        reader.bind(new StreamMessageReader(input));
        input.emit('error', new Error('broken pipe'));
        input.end();
        await expect.poll(() => events).toEqual(['error: broken pipe', 'close']);
    });

    it('a second bind is refused', () => {
        const reader = new DeferredMessageReader();
        reader.bind(new StreamMessageReader(new PassThrough()));
        expect(() => reader.bind(new StreamMessageReader(new PassThrough()))).toThrow(/bound already/);
    });
});

describe('DeferredMessageWriter', () => {
    it('writes through the transport bound to it', async () => {
        const writer = new DeferredMessageWriter();
        const output = new PassThrough();
        let written = '';
        output.on('data', (d: Buffer) => (written += d.toString()));
        writer.bind(new StreamMessageWriter(output));
        await writer.write({ jsonrpc: '2.0', method: 'exit' } as Message);
        expect(written).toBe(frame({ jsonrpc: '2.0', method: 'exit' }));
    });

    it('a write before the bind is refused, and so is a second bind', async () => {
        const writer = new DeferredMessageWriter();
        await expect(writer.write({ jsonrpc: '2.0' })).rejects.toThrow(/not bound to a transport yet/);
        writer.bind(new StreamMessageWriter(new PassThrough()));
        expect(() => writer.bind(new StreamMessageWriter(new PassThrough()))).toThrow(/bound already/);
    });

    it("the transport's errors come through", async () => {
        const writer = new DeferredMessageWriter();
        const errors: string[] = [];
        writer.onError(([e]) => errors.push(e.message));
        const output = new PassThrough();
        writer.bind(new StreamMessageWriter(output));
        output.emit('error', new Error('EPIPE'));
        await expect.poll(() => errors).toEqual(['EPIPE']);
    });
});
