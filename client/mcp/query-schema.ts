/** The datasets and fields a tool checks or types a query against, and where they came from. */
import { checkServices } from '../../language/check.js';
import { queryInfo } from '../../language/lsp/apl-query-info.js';
import { BuiltinSchemaProvider } from '../../language/schema/builtin-schema-provider.js';
import type { DatasetSchema, SchemaProvider } from '../../language/schema/schema-provider.js';
import { SchemaFormatError, schemaFromJsonValue, StaticSchemaProvider, withTimeFields } from '../../language/schema/static-schema-provider.js';
import { ToolProblem, UnknownDatasetProblem } from './data-source.js';
import type { McpSettings } from './session.js';

export interface QuerySchema {
    provider: SchemaProvider;
    /** For the agent: `schema file x.json`, the service URL, `the sample datasets (offline)`. */
    from: string;
}

/** The sample datasets standing in for the user's (incomplete: an unknown dataset is no finding, as `apl check` without --schema). */
export const SAMPLE_QUERY_SCHEMA: QuerySchema = { provider: new BuiltinSchemaProvider({ complete: false }), from: 'the sample datasets (offline)' };

/** A tool's `schema` argument: `{"dataset": {"field": "type"}}`, read as a schema file's `datasets`. */
export function schemaFromInline(datasets: Record<string, Record<string, string>>): QuerySchema {
    try {
        return { provider: new StaticSchemaProvider(schemaFromJsonValue({ datasets }, 'schema')), from: 'the schema argument' };
    } catch (e) {
        if (e instanceof SchemaFormatError) throw new ToolProblem(e.message);
        throw e;
    }
}

/** The dataset names the query blocks of `text` read (`['a']`, `b`, `union a, b`). */
export function datasetsNamedIn(text: string): string[] {
    return [...new Set(queryInfo(text, checkServices()).blocks.flatMap(b => b.datasets ?? []))];
}

/**
 * The schema for `text`: the schema file when the server has one, else the fields of the datasets the
 * query names, read from the source (a dataset the source lacks is left out, so the checker reports it).
 */
export async function schemaForQuery(text: string, settings: McpSettings): Promise<QuerySchema> {
    if (settings.schemaFile) return { provider: settings.schemaFile.provider, from: `schema file ${settings.schemaFile.path}` };
    const datasets: DatasetSchema[] = [];
    const named = datasetsNamedIn(text);
    for (const name of named) {
        try {
            datasets.push(withTimeFields({ name, fields: await settings.source.fields(name) }));
        } catch (e) {
            if (!(e instanceof UnknownDatasetProblem)) throw e;
        }
    }
    // The other datasets by name only: the checker reports an unknown dataset (and suggests a close
    // name) only when it knows some, and the query reads no field of these.
    if (datasets.length < named.length) {
        for (const d of await settings.source.datasets()) if (!named.includes(d.name)) datasets.push(withTimeFields({ name: d.name, fields: [] }));
    }
    return { provider: new StaticSchemaProvider(datasets), from: settings.source.description };
}
