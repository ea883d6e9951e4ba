/**
 * The language client: starts the bundled language server (dist/language-server.cjs) over Node IPC
 * and wraps the custom requests the extension uses (`apl/queryInfo`, `apl/explain`, `apl/translate`,
 * `apl/setSchema`). The `apl.server.trace` setting sets the protocol trace.
 */
import * as vscode from 'vscode';
import { LanguageClient, Trace, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
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
        await client.start();
        const wrapper = new AplLanguageClient(client);
        await wrapper.applyTrace();
        return wrapper;
    }

    async applyTrace(): Promise<void> {
        const value = vscode.workspace.getConfiguration('apl').get<string>('server.trace', 'off');
        await this.client.setTrace(Trace.fromString(value));
    }

    queryInfo(document: vscode.TextDocument | string): Promise<QueryInfo> {
        const params = typeof document === 'string' ? { text: document } : { text: document.getText() };
        return this.client.sendRequest<QueryInfo>('apl/queryInfo', params);
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
        return this.client.sendNotification('apl/setSchema', { schema });
    }

    dispose(): void {
        void this.client.stop();
    }
}
