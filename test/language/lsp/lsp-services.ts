/** Services for the LSP tests: the APL services with the built-in sample-data schemas. */
import { EmptyFileSystem } from 'langium';
import { createAplServices, type AplServices } from '../../../language/apl-module.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';

let services: AplServices | undefined;

export function lspServices(): AplServices {
    services ??= createAplServices({
        ...EmptyFileSystem,
        module: { schema: { SchemaProvider: () => new BuiltinSchemaProvider() } },
    }).Apl;
    return services;
}
