import type { LangiumDocument } from 'langium';
import type { RenameProvider } from 'langium/lsp';
import { ResponseError, type Range, type RenameParams, type TextDocumentPositionParams, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import { AplNames, bracketName, isPlainIdentifier, safely, type NameOccurrence } from './apl-names.js';

/** The name being renamed may be written bare or bracketed; keep each occurrence's style where possible. */
function replacementFor(occurrence: NameOccurrence, newName: string, kind: 'let' | 'column'): string {
    const bracketed = bracketName(newName);
    if (kind === 'let') return newName;
    if (occurrence.cst.text.trimStart().startsWith('[')) return bracketed;
    return isPlainIdentifier(newName) ? newName : bracketed;
}

/**
 * Rename for `let` names and for columns defined by a tabular operator (extend, project, summarize,
 * project-rename, parse, mv-expand, make-series). Dataset fields cannot be renamed: they are not
 * defined in the document.
 */
export class AplRenameProvider implements RenameProvider {
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.names = new AplNames(services.types.TypeComputer);
    }

    prepareRename(document: LangiumDocument, params: TextDocumentPositionParams): Range | undefined {
        return safely('prepare rename', undefined, () => this.renameRange(document, params));
    }

    private renameRange(document: LangiumDocument, params: TextDocumentPositionParams): Range | undefined {
        const occurrence = this.names.occurrenceAt(document, document.textDocument.offsetAt(params.position));
        if (!occurrence) return undefined;
        const target = this.names.targetOf(occurrence);
        if (!target || target.kind === 'field') return undefined;
        return { start: document.textDocument.positionAt(occurrence.cst.offset), end: document.textDocument.positionAt(occurrence.cst.end) };
    }

    rename(document: LangiumDocument, params: RenameParams): WorkspaceEdit | undefined {
        const occurrence = this.names.occurrenceAt(document, document.textDocument.offsetAt(params.position));
        if (!occurrence) return undefined;
        const target = this.names.targetOf(occurrence);
        if (!target || target.kind === 'field') return undefined;
        const newName = params.newName.trim();
        if (newName === '') throw new ResponseError(-32602, 'The new name must not be empty.');
        if (target.kind === 'let' && !isPlainIdentifier(newName)) {
            throw new ResponseError(-32602, `'${newName}' is not a valid let name: use letters, digits and '_'.`);
        }
        const edits: TextEdit[] = this.names.occurrencesOf(document, target).map(o => ({
            range: { start: document.textDocument.positionAt(o.cst.offset), end: document.textDocument.positionAt(o.cst.end) },
            newText: replacementFor(o, newName, target.kind as 'let' | 'column'),
        }));
        return { changes: { [document.uri.toString()]: edits } };
    }
}
