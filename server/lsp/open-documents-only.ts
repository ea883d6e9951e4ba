/**
 * The server's documents are the ones the client opened. Langium's default reads any other uri a
 * request names from disk and builds it (`textDocument/references` on `file:///etc/hostname` read the
 * file and stalled every later request, issue 26); here such a request is refused with InvalidParams.
 */
import { DefaultLangiumDocuments, type LangiumDocument, type URI } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import { ErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';

export class OpenDocumentsOnly extends DefaultLangiumDocuments {
    private readonly textDocuments: LangiumSharedServices['workspace']['TextDocuments'];

    constructor(services: LangiumSharedServices) {
        super(services);
        this.textDocuments = services.workspace.TextDocuments;
    }

    override async getOrCreateDocument(uri: URI, cancellationToken?: CancellationToken): Promise<LangiumDocument> {
        if (this.getDocument(uri) === undefined && this.textDocuments.get(uri) === undefined) {
            throw new ResponseError(ErrorCodes.InvalidParams, `${uri.toString().slice(0, 200)} is not an open document`);
        }
        return super.getOrCreateDocument(uri, cancellationToken);
    }
}
