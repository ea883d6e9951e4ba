/**
 * The language client: starts the bundled language server (dist/language-server.cjs) over Node IPC
 * and wraps the custom requests the extension uses (`apl/queryInfo`, `apl/explain`, `apl/translate`,
 * `apl/setSchema`). The `apl.server.trace` setting sets the protocol trace.
 */
import * as vscode from 'vscode';
import { LanguageClient, State, Trace, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { Explanation } from '../../../language/explain.js';
import type { QueryInfo } from '../../../language/lsp/apl-query-info.js';

export interface LegacyTranslation {
    dataset: string;
    query: unknown;
}
export type TranslateAnswer = LegacyTranslation | { error: { message: string; range: { start: { line: number; character: number }; end: { line: number; character: number } }; construct: string } };

export class AplLanguageClient implements vscode.Disposable {
    private constructor(private readonly client: LanguageClient) {}

    static async start(serverModule: string, output: vscode.LogOutputChannel): Promise<AplLanguageClient> {
        const run = { module: serverModule, transport: TransportKind.ipc };
        const serverOptions: ServerOptions = { run, debug: run };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ language: 'apl' }],
            synchronize: { configurationSection: 'apl' },
            outputChannel: output,
        };
        const client = new LanguageClient('apl', 'APL Language Server', serverOptions, clientOptions);
        const wrapper = new AplLanguageClient(client);
        // The client starts a new server after a crash; it knows only the sample datasets until told more.
        client.onDidChangeState(e => {
            if (e.newState === State.Running) wrapper.serverStarted();
        });
        await client.start();
        await wrapper.applyTrace();
        return wrapper;
    }

    /** The schema last pushed with `apl/setSchema` (undefined: none yet), pushed again to a restarted server. */
    private schema: { value: unknown } | undefined;

    private readonly started = new vscode.EventEmitter<void>();
    /**
     * Fires each time a server is running (the first, and each one started after a crash or a restart):
     * what the editor told the old one (the notebook cell preludes) it tells the new one again.
     */
    readonly onDidStartServer = this.started.event;

    private serverStarted(): void {
        this.infos.clear();
        if (this.schema) void this.client.sendNotification('apl/setSchema', { schema: this.schema.value }).catch(() => undefined);
        this.started.fire();
    }

    async applyTrace(): Promise<void> {
        const value = vscode.workspace.getConfiguration('apl').get<string>('server.trace', 'off');
        await this.client.setTrace(Trace.fromString(value));
    }

    /**
     * The query info of a few recent texts: a run (Ctrl+Enter) finds the answer its Run lenses got for
     * the same text, and starts without a round trip to the language server. Forgotten when the
     * schema changes (it types the columns the answer depends on).
     */
    private readonly infos = new Map<string, Promise<QueryInfo>>();

    queryInfo(document: vscode.TextDocument | string): Promise<QueryInfo> {
        const text = typeof document === 'string' ? document : document.getText();
        const known = this.infos.get(text);
        if (known) return known;
        const answer = this.client.sendRequest<QueryInfo>('apl/queryInfo', { text });
        this.infos.set(text, answer);
        if (this.infos.size > 8) this.infos.delete(this.infos.keys().next().value!);
        // A failed (or cancelled) request is asked again next time.
        answer.catch(() => this.infos.get(text) === answer && this.infos.delete(text));
        return answer;
    }

    /** The stages of the query block at `position` of `text` (`apl/explain`); null when no block is there. */
    explain(text: string, position: { line: number; character: number }): Promise<Explanation | null> {
        return this.client.sendRequest<Explanation | null>('apl/explain', { text, position });
    }

    translate(text: string, startTime: string, endTime: string): Promise<TranslateAnswer> {
        return this.client.sendRequest<TranslateAnswer>('apl/translate', { text, startTime, endTime });
    }

    /** A notebook cell's prelude (server/lsp/cell-prelude.ts): the cell is checked with the lets of the cells above. */
    cellPrelude(uri: string, prelude: string, later: { name: string; cell: number }[]): Promise<void> {
        return this.client.sendNotification('apl/cellPrelude', { uri, prelude, later });
    }

    setSchema(schema: unknown): Promise<void> {
        this.schema = { value: schema };
        this.infos.clear();
        return this.client.sendNotification('apl/setSchema', { schema });
    }

    dispose(): void {
        this.started.dispose();
        void this.client.stop();
    }
}
