/**
 * The server's documents are the ones the client opened, and the workspace's own `.apl` files.
 * Langium's default reads any other uri a request names from disk and builds it
 * (`textDocument/references` on `file:///etc/hostname` read the file and stalled every later
 * request, issue 26); here such a request is refused with InvalidParams. The workspace manager
 * still loads the files of the workspace folders at start-up (WorkspaceFilesLoader): refusing
 * those too failed the start-up build, and no request was ever answered (Neovim opens a folder
 * that has .apl files in it). A workspace file that is not a regular file of a sane size is skipped.
 */
import { DefaultLangiumDocuments, DefaultWorkspaceManager, type LangiumDocument, type Stream, type URI } from 'langium';
import { stat } from 'node:fs/promises';
import type { LangiumSharedServices } from 'langium/lsp';
import { ErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { MAX_PARSED_LENGTH } from '../../language/limits.js';

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

    /** For the workspace manager only: a file it found in a workspace folder, read from disk. */
    loadWorkspaceFile(uri: URI): Promise<LangiumDocument> {
        return super.getOrCreateDocument(uri);
    }
}

/** Loads the workspace folders' files past OpenDocumentsOnly's refusal (they are not named by a request). */
/** Longer files are past what the server parses anyway (MAX_PARSED_LENGTH, in UTF-16 units, up to 3 bytes each). */
const MAX_WORKSPACE_FILE_BYTES = 3 * MAX_PARSED_LENGTH;

export class WorkspaceFilesLoader extends DefaultWorkspaceManager {
    private readonly documents: LangiumSharedServices['workspace']['LangiumDocuments'];

    constructor(services: LangiumSharedServices) {
        super(services);
        this.documents = services.workspace.LangiumDocuments;
    }

    protected override async loadWorkspaceDocuments(uris: Stream<URI>, collector: (document: LangiumDocument) => void): Promise<void> {
        const documents = this.documents;
        await Promise.all(
            uris.map(async uri => {
                // A FIFO named x.apl would never finish reading (and the start-up build with it), /dev/zero
                // behind a symlink never end: only regular files of a size a query file can have.
                const info = uri.scheme === 'file' ? await stat(uri.fsPath).catch(() => undefined) : undefined;
                if (info === undefined || !info.isFile() || info.size > MAX_WORKSPACE_FILE_BYTES) return;
                collector(documents instanceof OpenDocumentsOnly ? await documents.loadWorkspaceFile(uri) : await documents.getOrCreateDocument(uri));
            }),
        );
    }
}
