import { SAMPLE_DATASETS } from '../samples/sample-datasets.js';
import { StaticSchemaProvider } from './static-schema-provider.js';
import type { DatasetSchema, SchemaProviderOptions } from './schema-provider.js';

/**
 * The schemas of the sample datasets (`sample-http-logs`, `otel-demo-traces`, ...), from SAMPLE_DATASETS.
 * `{ complete: false }` when they stand in for the user's datasets (no schema known): see `SchemaProvider.complete`.
 */
export class BuiltinSchemaProvider extends StaticSchemaProvider {
    constructor(options: SchemaProviderOptions = {}) {
        super(builtinDatasets(), options);
    }
}

function builtinDatasets(): DatasetSchema[] {
    return SAMPLE_DATASETS.map(spec => ({
        name: spec.name,
        fields: spec.fields.map(f => {
            const field: DatasetSchema['fields'][number] = { name: f.name, type: f.type };
            if (f.description !== undefined) field.description = f.description;
            if (f.unit !== undefined) field.unit = f.unit;
            return field;
        }),
    }));
}
