/**
 * A message reader and writer that are connected to their real transport later.
 *
 * Why: the language server's start-up snapshot (snapshot.ts) holds a server that is built and
 * listening, but a snapshot cannot hold a stream (stdin, the IPC channel, a socket). The
 * connection is made on these two, and the process binds them to the transport its arguments
 * name once it starts from the snapshot.
 */
import { AbstractMessageReader, AbstractMessageWriter, type DataCallback, type Disposable, type Message, type MessageReader, type MessageWriter } from 'vscode-languageserver/node';

export class DeferredMessageReader extends AbstractMessageReader {
    private callback: DataCallback | undefined;
    private target: MessageReader | undefined;
    private listening: Disposable | undefined;

    listen(callback: DataCallback): Disposable {
        this.callback = callback;
        if (this.target) this.listening = this.target.listen(callback);
        return { dispose: () => this.listening?.dispose() };
    }

    bind(target: MessageReader): void {
        if (this.target) throw new Error('the message reader is bound already');
        this.target = target;
        target.onError(e => this.fireError(e));
        target.onClose(() => this.fireClose());
        target.onPartialMessage(info => this.firePartialMessage(info));
        if (this.callback) this.listening = target.listen(this.callback);
    }
}

export class DeferredMessageWriter extends AbstractMessageWriter {
    private target: MessageWriter | undefined;

    async write(message: Message): Promise<void> {
        // Nothing is written before the bind: the server speaks only when spoken to.
        if (!this.target) throw new Error('the message writer is not bound to a transport yet');
        return this.target.write(message);
    }

    bind(target: MessageWriter): void {
        if (this.target) throw new Error('the message writer is bound already');
        this.target = target;
        target.onError(([error, message, count]) => this.fireError(error, message, count));
        target.onClose(() => this.fireClose());
    }

    end(): void {
        this.target?.end();
    }
}
