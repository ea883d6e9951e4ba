/**
 * The one guard between the transport and vscode-jsonrpc's dispatcher. Request and notification
 * handlers are already safe there (a throwing request handler is answered with an error, a throwing
 * notification handler is logged), but the dispatcher reads `$/cancelRequest`'s `params.id` before
 * any handler and outside any try: `{"method":"$/cancelRequest"}` without params was an uncaught
 * TypeError that ended the server (issue 26). Here a message that the dispatcher cannot take is
 * logged and dropped, and anything the dispatcher still throws is logged instead of ending the
 * process, so one bad message never stops the server.
 * A `textDocument/*` request without a string `textDocument.uri` is answered with InvalidParams
 * before it reaches any handler (whether the uri is open is decided in order, by open-documents-only.ts).
 */
import { AbstractMessageReader, ErrorCodes, type DataCallback, type Disposable, type Message, type MessageReader } from 'vscode-languageserver/node';

export interface MessageGuardHooks {
    /** Where dropped messages are reported (the client's log once the connection exists). */
    log(text: string): void;
    /** Answers request `id` with an error without dispatching it. */
    reject(id: number | string, code: number, message: string): void;
}

/** Why a `textDocument/*` request cannot be served, or undefined when it can. */
export function unservableDocumentRequest(message: Message): string | undefined {
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !method.startsWith('textDocument/')) return undefined;
    const textDocument = params !== null && typeof params === 'object' ? (params as { textDocument?: unknown }).textDocument : undefined;
    const uri = textDocument !== null && typeof textDocument === 'object' ? (textDocument as { uri?: unknown }).uri : undefined;
    return typeof uri === 'string' ? undefined : `${method}: pass { textDocument: { uri } } (a string)`;
}

/** Why the dispatcher cannot take `message`, or undefined when it can. */
export function malformedMessage(message: unknown): string | undefined {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return 'a message that is not a JSON object';
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method === '$/cancelRequest') {
        const id = params !== null && typeof params === 'object' ? (params as { id?: unknown }).id : undefined;
        if (typeof id !== 'number' && typeof id !== 'string') return '$/cancelRequest without { id } (a number or a string)';
    }
    return undefined;
}

export class GuardedMessageReader extends AbstractMessageReader {
    constructor(
        private readonly inner: MessageReader,
        private readonly hooks: MessageGuardHooks,
    ) {
        super();
        inner.onError(e => this.fireError(e));
        inner.onClose(() => this.fireClose());
        inner.onPartialMessage(info => this.firePartialMessage(info));
    }

    listen(callback: DataCallback): Disposable {
        return this.inner.listen((message: Message) => {
            const problem = malformedMessage(message);
            if (problem !== undefined) {
                this.hooks.log(`APL: dropped ${problem}`);
                return;
            }
            const id = (message as { id?: unknown }).id;
            if (typeof id === 'number' || typeof id === 'string') {
                const unservable = unservableDocumentRequest(message);
                if (unservable !== undefined) {
                    this.hooks.reject(id, ErrorCodes.InvalidParams, unservable);
                    return;
                }
            }
            try {
                callback(message);
            } catch (e) {
                const method = (message as { method?: unknown }).method;
                this.hooks.log(`APL: dropped a message${typeof method === 'string' ? ` (${method.slice(0, 100)})` : ''} that failed: ${e instanceof Error ? e.message : String(e)}`);
            }
        });
    }

    dispose(): void {
        super.dispose();
        this.inner.dispose();
    }
}
