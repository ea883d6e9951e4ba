import type { DatasetSchema, SchemaProvider } from './schema-provider.js';

/** No datasets at all: for offline use, where every dataset and field is unknown. */
export class EmptySchemaProvider implements SchemaProvider {
    readonly version = 0;
    /** It lists none of the datasets there are (nothing is reported anyway while no dataset is known). */
    readonly complete = false;

    datasets(): DatasetSchema[] {
        return [];
    }

    dataset(_name: string): DatasetSchema | undefined {
        return undefined;
    }
}
