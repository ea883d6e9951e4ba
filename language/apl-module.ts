import './polyfills.js';
import { inject, type Module } from 'langium';
import {
    createDefaultModule,
    createDefaultSharedModule,
    type DefaultSharedModuleContext,
    type LangiumServices,
    type LangiumSharedServices,
    type PartialLangiumServices,
    type PartialLangiumSharedServices,
} from 'langium/lsp';
import { AplGeneratedModule, AplGeneratedSharedModule } from './generated/module.js';
import { AplTokenBuilder } from './apl-token-builder.js';
import { AplValueConverter } from './apl-value-converter.js';
import { AplParserErrorMessageProvider } from './apl-parser-messages.js';

/** Services APL adds to Langium's defaults. Later issues extend this with schema, types and LSP extras. */
export type AplAddedServices = Record<string, never>;

export type AplServices = LangiumServices & AplAddedServices;

export const AplModule: Module<AplServices, PartialLangiumServices & AplAddedServices> = {
    parser: {
        TokenBuilder: () => new AplTokenBuilder(),
        ValueConverter: () => new AplValueConverter(),
        ParserErrorMessageProvider: () => new AplParserErrorMessageProvider(),
    },
};

export interface AplModuleContext extends DefaultSharedModuleContext {
    /** Overrides for tests and embedders (e.g. another SchemaProvider). */
    module?: Module<AplServices, PartialLangiumServices & Partial<AplAddedServices>>;
    sharedModule?: Module<LangiumSharedServices, PartialLangiumSharedServices>;
}

export function createAplServices(context: AplModuleContext): { shared: LangiumSharedServices; Apl: AplServices } {
    const shared = inject(createDefaultSharedModule(context), AplGeneratedSharedModule, context.sharedModule ?? {});
    const Apl = inject(createDefaultModule({ shared }), AplGeneratedModule, AplModule, context.module ?? {});
    shared.ServiceRegistry.register(Apl);
    return { shared, Apl };
}
