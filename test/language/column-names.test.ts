/**
 * Column names of unnamed expressions, as Kusto derives them (language/column-names.ts): one rule,
 * and the evaluator, the type computer's row types (the checker, completion) and the legacy
 * compiler all give the same names.
 */
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../language/apl-module.js';
import type { Model, QueryStatement } from '../../language/generated/ast.js';
import { BuiltinSchemaProvider } from '../../language/schema/builtin-schema-provider.js';
import { createEngine, translate } from '../../language/index.js';
import { generateSample } from '../../language/samples/index.js';

const services = createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => new BuiltinSchemaProvider() } } }).Apl;
const parse = parseHelper<Model>(services);
const engine = createEngine();
engine.createDataset('sample-http-logs');
engine.ingest('sample-http-logs', generateSample('sample-http-logs', { rows: 50, seed: 1 }));

async function checkerColumns(text: string): Promise<string[]> {
    const doc = await parse(text);
    const statements = doc.parseResult.value.statements;
    const row = services.types.TypeComputer.rowTypeAfter((statements[statements.length - 1] as QueryStatement).body);
    return row.columns.map(c => c.name);
}

async function evaluatorColumns(text: string): Promise<string[]> {
    return (await engine.query(text)).tables[0].fields.map(f => f.name);
}

const CASES: [string, string[]][] = [
    ["['sample-http-logs'] | summarize sum(toint(resp_body_size_bytes))", ['sum_resp_body_size_bytes']],
    ["['sample-http-logs'] | summarize count() by tostring(is_tls)", ['is_tls', 'count_']],
    ["['sample-http-logs'] | summarize avg(todouble(req_duration_ms)) by bin(_time, 1h)", ['_time', 'avg_req_duration_ms']],
    ["['sample-http-logs'] | summarize max(toint(status)) by tolower(method)", ['Column1', 'max_status']],
    ["['sample-http-logs'] | summarize arg_max(toint(status), uri) by ['geo.country']", ['geo.country', 'status', 'uri']],
    ["['sample-http-logs'] | extend strlen(uri) | project strlen_uri", ['strlen_uri']],
    ["['sample-http-logs'] | project tostring(toint(status)), round(req_duration_ms, 1), ['geo.city']", ['status', 'req_duration_ms', 'geo.city']],
    ["['sample-http-logs'] | project (status), floor(req_duration_ms), req_duration_ms * 2", ['status', 'req_duration_ms', 'Column1']],
    ["['sample-http-logs'] | distinct tostring(method)", ['method']],
];

describe('column names of unnamed expressions', () => {
    for (const [query, expected] of CASES) {
        it(query, async () => {
            expect(await evaluatorColumns(query)).toEqual(expected);
            expect(await checkerColumns(query)).toEqual(expected);
        });
    }

    it("['sample-http-logs'] | summarize sum(toint(resp_body_size_bytes)), dcount(tostring(id)) by method  →  the legacy compiler's aliases too", async () => {
        // The legacy form aggregates fields only; the alias comes from the same rule.
        const { query } = translate("['sample-http-logs'] | summarize sum(resp_body_size_bytes), dcount(id) by method", { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' });
        const aliases = (query as { aggregations: { alias: string }[] }).aggregations.map(a => a.alias);
        expect(aliases).toEqual(await evaluatorColumns("['sample-http-logs'] | summarize sum(resp_body_size_bytes), dcount(id) by method").then(c => c.slice(1)));
    });
});
