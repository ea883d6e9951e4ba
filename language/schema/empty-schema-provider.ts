import type { DatasetSchema, SchemaProvider } from './schema-provider.js';

/** No datasets at all: for offline use, where every dataset and field is unknown. */
export class EmptySchemaProvider implements SchemaProvider {
    readonly version = 0;

    datasets(): DatasetSchema[] {
        return [];
    }

    dataset(_name: string): DatasetSchema | undefined {
        return undefined;
    }
}
