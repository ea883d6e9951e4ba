import './parser/polyfills.js';
import { inject, type LangiumCompletionParser, type Module } from 'langium';
import {
    createDefaultModule,
    createDefaultSharedModule,
    type DefaultSharedModuleContext,
    type LangiumServices,
    type LangiumSharedServices,
    type PartialLangiumServices,
    type PartialLangiumSharedServices,
} from 'langium/lsp';
import { AplGeneratedModule, AplGeneratedSharedModule, parserConfig } from './generated/module.js';
import { AplLookaheadStrategy } from './parser/apl-lookahead-strategy.js';
import { createAplCompletionParser, createAplParser } from './parser/apl-parser-builder.js';
import { AplLookaheadTable } from './parser/apl-lookahead.generated.js';
import { AplTokenBuilder } from './parser/apl-token-builder.js';
import { AplTokenTable } from './parser/apl-token-table.generated.js';
import { AplValueConverter } from './parser/apl-value-converter.js';
import { AplParserErrorMessageProvider } from './parser/apl-parser-messages.js';
import { EmptySchemaProvider } from './schema/empty-schema-provider.js';
import type { SchemaProvider } from './schema/schema-provider.js';
import { AplTypeComputer } from './types/apl-type-computer.js';
import { AplDocumentValidator, AplValidator, registerValidationChecks } from './apl-validator.js';
import { AplLspModule } from './lsp/apl-lsp-module.js';
import { NoAnalyzerSettings, type AnalyzerSettings } from './analyzers/analyzer-diagnostics.js';

/** Services APL adds to Langium's defaults. */
export type AplAddedServices = {
    /** Datasets and fields. The library default is empty (nothing is ever reported unknown); the language server injects its own. */
    schema: {
        SchemaProvider: SchemaProvider;
    };
    /** Expression types and row types through the pipeline. */
    types: {
        TypeComputer: AplTypeComputer;
    };
    validation: {
        AplValidator: AplValidator;
    };
    /** Which best-practice analyzers run (language/analyzers/): off in the library, the language server injects its settings. */
    analyzers: {
        AnalyzerSettings: AnalyzerSettings;
    };
};

export type AplServices = LangiumServices & AplAddedServices;

export const AplModule: Module<AplServices, PartialLangiumServices & AplAddedServices> = {
    parser: {
        ParserConfig: () => ({ ...parserConfig, lookaheadStrategy: new AplLookaheadStrategy({ maxLookahead: 3, table: AplLookaheadTable }) }),
        LangiumParser: services => createAplParser(services),
        TokenBuilder: () => new AplTokenBuilder(AplTokenTable),
        ValueConverter: () => new AplValueConverter(),
        ParserErrorMessageProvider: () => new AplParserErrorMessageProvider(),
        CompletionParser: services => lazyCompletionParser(services),
    },
    schema: {
        SchemaProvider: () => new EmptySchemaProvider(),
    },
    types: {
        TypeComputer: services => new AplTypeComputer(() => services.schema.SchemaProvider),
    },
    validation: {
        AplValidator: services => new AplValidator(services),
        DocumentValidator: services => new AplDocumentValidator(services),
    },
    analyzers: {
        AnalyzerSettings: () => new NoAnalyzerSettings(),
    },
    /** Completion, hover, signature help, formatting, semantic tokens, navigation, quick fixes (language/lsp/). */
    lsp: AplLspModule,
};

/**
 * The override for services that take one text as one query (the HTTP service, the evaluator): a
 * blank line is whitespace there, not the end of a query block.
 */
export const OneQueryPerTextModule: Module<AplServices, PartialLangiumServices & Partial<AplAddedServices>> = {
    parser: {
        TokenBuilder: () => new AplTokenBuilder(AplTokenTable, { queryBlocks: false }),
    },
};

/**
 * The completion parser is a second full parser. The language server loads every service when it
 * initialises, so building this one eagerly would add a whole parser analysis to the time before the
 * first diagnostics; it is built at the first completion request instead. Completion only calls `parse`.
 */
function lazyCompletionParser(services: AplServices): LangiumCompletionParser {
    let parser: LangiumCompletionParser | undefined;
    const lazy: Pick<LangiumCompletionParser, 'parse'> = {
        parse: (input: string) => (parser ??= createAplCompletionParser(services)).parse(input),
    };
    return lazy as LangiumCompletionParser;
}

export interface AplModuleContext extends DefaultSharedModuleContext {
    /** Overrides for tests and embedders (e.g. another SchemaProvider). */
    module?: Module<AplServices, PartialLangiumServices & Partial<AplAddedServices>>;
    sharedModule?: Module<LangiumSharedServices, PartialLangiumSharedServices>;
}

export function createAplServices(context: AplModuleContext): { shared: LangiumSharedServices; Apl: AplServices } {
    const shared = inject(createDefaultSharedModule(context), AplGeneratedSharedModule, context.sharedModule ?? {});
    const Apl = inject(createDefaultModule({ shared }), AplGeneratedModule, AplModule, context.module ?? {});
    shared.ServiceRegistry.register(Apl);
    registerValidationChecks(Apl);
    // Outside a language server nothing sends `initialized`: the settings (read by the inlay hints) are
    // ready at once, with their defaults (Langium's own grammar services do the same).
    if (!context.connection) void shared.workspace.ConfigurationProvider.initialized({});
    return { shared, Apl };
}
