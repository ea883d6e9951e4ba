/**
 * The language server's reader of LSP messages on a stream (`--stdio`). vscode-jsonrpc's own reader
 * waits for ever when a header's Content-Length is missing, negative or huge (it buffers until that
 * many bytes came), so a broken client stalled the server without a word. This one checks every
 * header: a framing error ends the server with a message on stderr (the stream cannot be
 * resynchronised, and editors restart a server that exits); a body that is not JSON gets the
 * JSON-RPC parse error (-32700) and the next message is read normally.
 */
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-languageserver/node';

/** Larger bodies are refused (a 1 MiB document is at most a few MB as JSON). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** A header block longer than this without its blank line is not LSP. */
const MAX_HEADER_BYTES = 8 * 1024;

const CRLFCRLF = Buffer.from('\r\n\r\n');

export interface FramedReaderHooks {
    /** The stream is broken: say why and stop (the server exits). */
    onFramingError(message: string): void;
    /** A body that is not a JSON-RPC message: answer it (the parse error response). */
    onInvalidBody(message: string): void;
}

export class FramedMessageReader extends AbstractMessageReader {
    private buffer: Buffer = Buffer.alloc(0);
    private bodyLength: number | undefined;
    private callback: DataCallback | undefined;
    private failed = false;

    constructor(
        private readonly stream: NodeJS.ReadableStream,
        private readonly hooks: FramedReaderHooks,
    ) {
        super();
    }

    listen(callback: DataCallback): Disposable {
        this.callback = callback;
        const onData = (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        const onEnd = () => this.fireClose();
        const onError = (e: unknown) => this.fireError(e);
        this.stream.on('data', onData);
        this.stream.on('end', onEnd);
        this.stream.on('close', onEnd);
        this.stream.on('error', onError);
        return {
            dispose: () => {
                this.stream.off('data', onData);
                this.stream.off('end', onEnd);
                this.stream.off('close', onEnd);
                this.stream.off('error', onError);
            },
        };
    }

    private onData(chunk: Buffer): void {
        if (this.failed) return;
        this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
        for (;;) {
            if (this.bodyLength === undefined) {
                const end = this.buffer.indexOf(CRLFCRLF);
                if (end < 0) {
                    if (this.buffer.length > MAX_HEADER_BYTES) return this.fail(`a message header is longer than ${MAX_HEADER_BYTES} bytes without the blank line that ends it`);
                    return;
                }
                const length = this.contentLength(this.buffer.subarray(0, end).toString('ascii'));
                if (length === undefined) return;
                this.bodyLength = length;
                this.buffer = this.buffer.subarray(end + CRLFCRLF.length);
            }
            if (this.buffer.length < this.bodyLength) return;
            const body = this.buffer.subarray(0, this.bodyLength).toString('utf8');
            this.buffer = this.buffer.subarray(this.bodyLength);
            this.bodyLength = undefined;
            this.deliver(body);
        }
    }

    /** The Content-Length of a header block, or undefined after failing with the reason. */
    private contentLength(header: string): number | undefined {
        let value: string | undefined;
        for (const line of header.split('\r\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) return void this.fail(`the message header line ${JSON.stringify(line.slice(0, 80))} is not "Name: value"`);
            if (line.slice(0, colon).trim().toLowerCase() === 'content-length') value = line.slice(colon + 1).trim();
        }
        if (value === undefined) return void this.fail('a message header has no Content-Length');
        if (!/^\d+$/.test(value)) return void this.fail(`Content-Length ${JSON.stringify(value.slice(0, 40))} is not a non-negative whole number`);
        const length = Number(value);
        if (length > MAX_MESSAGE_BYTES) return void this.fail(`Content-Length ${value} is larger than the ${MAX_MESSAGE_BYTES} bytes a message may have`);
        return length;
    }

    private deliver(body: string): void {
        let message: unknown;
        try {
            message = JSON.parse(body);
        } catch (e) {
            return this.hooks.onInvalidBody(`the message body is not JSON: ${(e as Error).message}`);
        }
        if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.hooks.onInvalidBody('the message body is not a JSON-RPC message object');
        this.callback?.(message as Message);
    }

    private fail(reason: string): void {
        this.failed = true;
        this.buffer = Buffer.alloc(0);
        this.hooks.onFramingError(reason);
    }
}
