/** The LSP services of APL: the `lsp` group of AplModule. */
import type { Module } from 'langium';
import type { PartialLangiumServices } from 'langium/lsp';
import type { AplServices } from '../apl-module.js';
import { AplCodeActionProvider } from './apl-code-actions.js';
import { AplCompletionProvider } from './apl-completion-provider.js';
import { AplDocumentSymbolProvider } from './apl-document-symbol-provider.js';
import { AplFoldingRangeProvider } from './apl-folding-range-provider.js';
import { AplFormatter } from './apl-formatter.js';
import { AplHoverProvider } from './apl-hover-provider.js';
import { AplInlayHintProvider } from './apl-inlay-hint-provider.js';
import { AplDefinitionProvider, AplDocumentHighlightProvider, AplReferencesProvider } from './apl-references-provider.js';
import { withRefactors } from './apl-refactors.js';
import { AplRenameProvider } from './apl-rename-provider.js';
import { AplSemanticTokenProvider } from './apl-semantic-token-provider.js';
import { AplSignatureHelpProvider } from './apl-signature-help-provider.js';

export const AplLspModule: Module<AplServices, PartialLangiumServices>['lsp'] = {
    CompletionProvider: services => new AplCompletionProvider(services),
    HoverProvider: services => new AplHoverProvider(services),
    InlayHintProvider: services => new AplInlayHintProvider(services),
    SignatureHelp: services => new AplSignatureHelpProvider(services),
    Formatter: services => new AplFormatter(services),
    SemanticTokenProvider: services => new AplSemanticTokenProvider(services),
    FoldingRangeProvider: () => new AplFoldingRangeProvider(),
    DocumentSymbolProvider: services => new AplDocumentSymbolProvider(services),
    CodeActionProvider: services => withRefactors(new AplCodeActionProvider(), services),
    RenameProvider: services => new AplRenameProvider(services),
    ReferencesProvider: services => new AplReferencesProvider(services),
    DefinitionProvider: services => new AplDefinitionProvider(services),
    DocumentHighlightProvider: services => new AplDocumentHighlightProvider(services),
};
