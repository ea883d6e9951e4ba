import type { LangiumDocument } from 'langium';
import type { DefinitionProvider, DocumentHighlightProvider, ReferencesProvider } from 'langium/lsp';
import {
    DocumentHighlightKind,
    type DefinitionParams,
    type DocumentHighlight,
    type DocumentHighlightParams,
    type Location,
    type LocationLink,
    type Range,
    type ReferenceParams,
} from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import { AplNames, safely, type NameOccurrence } from './apl-names.js';

function rangeOf(document: LangiumDocument, o: NameOccurrence): Range {
    return { start: document.textDocument.positionAt(o.cst.offset), end: document.textDocument.positionAt(o.cst.end) };
}

/** Find references of `let` names and operator-defined columns (see AplNames). */
export class AplReferencesProvider implements ReferencesProvider {
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.names = new AplNames(services.types.TypeComputer);
    }

    findReferences(document: LangiumDocument, params: ReferenceParams): Location[] {
        return safely('references', [], () => this.references(document, params));
    }

    private references(document: LangiumDocument, params: ReferenceParams): Location[] {
        const occurrence = this.names.occurrenceAt(document, document.textDocument.offsetAt(params.position));
        const target = occurrence && this.names.targetOf(occurrence);
        if (!target) return [];
        return this.names.occurrencesOf(document, target)
            .filter(o => params.context.includeDeclaration || !o.declaration)
            .map(o => ({ uri: document.uri.toString(), range: rangeOf(document, o) }));
    }
}

/** Go to definition: from a name to its `let` or to the operator assignment that defined the column. */
export class AplDefinitionProvider implements DefinitionProvider {
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.names = new AplNames(services.types.TypeComputer);
    }

    getDefinition(document: LangiumDocument, params: DefinitionParams): LocationLink[] | undefined {
        return safely('definition', undefined, () => this.definition(document, params));
    }

    private definition(document: LangiumDocument, params: DefinitionParams): LocationLink[] | undefined {
        const occurrence = this.names.occurrenceAt(document, document.textDocument.offsetAt(params.position));
        const target = occurrence && this.names.targetOf(occurrence);
        if (!occurrence || !target) return undefined;
        const decl = this.names.declarationOccurrence(target);
        if (!decl) return undefined;
        const declNode = decl.node.$cstNode ?? decl.cst;
        return [{
            originSelectionRange: rangeOf(document, occurrence),
            targetUri: document.uri.toString(),
            targetRange: { start: document.textDocument.positionAt(declNode.offset), end: document.textDocument.positionAt(declNode.end) },
            targetSelectionRange: rangeOf(document, decl),
        }];
    }
}

/** Highlights every occurrence of the name under the cursor (the declaration as a write). */
export class AplDocumentHighlightProvider implements DocumentHighlightProvider {
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.names = new AplNames(services.types.TypeComputer);
    }

    getDocumentHighlight(document: LangiumDocument, params: DocumentHighlightParams): DocumentHighlight[] | undefined {
        return safely('document highlight', undefined, () => this.highlight(document, params));
    }

    private highlight(document: LangiumDocument, params: DocumentHighlightParams): DocumentHighlight[] | undefined {
        const occurrence = this.names.occurrenceAt(document, document.textDocument.offsetAt(params.position));
        const target = occurrence && this.names.targetOf(occurrence);
        if (!target) return undefined;
        return this.names.occurrencesOf(document, target).map(o => ({
            range: rangeOf(document, o),
            kind: o.declaration ? DocumentHighlightKind.Write : DocumentHighlightKind.Read,
        }));
    }
}
