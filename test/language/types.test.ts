import { readFileSync } from 'node:fs';
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../language/apl-module.js';
import type { Expression, ExtendOperator, Model, Pipeline, QueryStatement, TabularOperator } from '../../language/generated/ast.js';
import { StaticSchemaProvider } from '../../language/schema/index.js';
import type { RowType } from '../../language/types/apl-types.js';

const schema = StaticSchemaProvider.fromJson(readFileSync(new URL('../fixtures/schema.json', import.meta.url), 'utf8'), 'schema.json');
const services = createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => schema } } }).Apl;
const types = services.types.TypeComputer;
const parse = parseHelper<Model>(services);

async function body(text: string): Promise<Expression> {
    const doc = await parse(text);
    expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
    const statements = doc.parseResult.value.statements;
    return (statements[statements.length - 1] as QueryStatement).body;
}

/** The expression of the first `extend` column of the last query. */
async function extendExpression(text: string): Promise<Expression> {
    const pipeline = (await body(text)) as Pipeline;
    const extend = pipeline.operators.find(o => o.$type === 'ExtendOperator') as ExtendOperator;
    return extend.columns[0].expression;
}

async function typeOf(expression: string, source = "['sample-http-logs']"): Promise<string> {
    return types.typeOf(await extendExpression(`${source} | extend t = ${expression}`));
}

function show(row: RowType): string {
    return row.columns.map(c => `${c.name}:${c.type}`).join(', ') + (row.open ? ' (open)' : '');
}

async function rowAfter(text: string): Promise<string> {
    return show(types.rowTypeAfter(await body(text)));
}

describe('expression types', () => {
    const cases: [string, string][] = [
        ['1 + 2', 'long'],
        ['1 + 2.5', 'real'],
        ['10 / 3', 'long'],
        ['req_duration_ms * 2', 'real'],
        ['resp_body_size_bytes + 1', 'long'],
        ['_time - _time', 'timespan'],
        ['now() - ago(1h)', 'timespan'],
        ['_time + 1h', 'datetime'],
        ['_time - 1d', 'datetime'],
        ['1h + _time', 'datetime'],
        ['1h * 2', 'timespan'],
        ['2 * 1h', 'timespan'],
        ['1h / 1m', 'real'],
        ['1h / 2', 'timespan'],
        ['-req_duration_ms', 'real'],
        ['status == "200"', 'bool'],
        ['resp_body_size_bytes > 10', 'bool'],
        ['uri contains "api"', 'bool'],
        ['uri matches regex "a+"', 'bool'],
        ['method in ("GET", "POST")', 'bool'],
        ['resp_body_size_bytes between (1 .. 10)', 'bool'],
        ['not(is_tls)', 'bool'],
        ['is_tls and status == "200"', 'bool'],
        ['strlen(uri)', 'long'],
        ['tostring(resp_body_size_bytes)', 'string'],
        ['iff(is_tls, 1, 2)', 'long'],
        ['case(is_tls, "a", "b")', 'string'],
        ['bin(_time, 1h)', 'datetime'],
        ['todatetime("2024-01-01")', 'datetime'],
        ['long(null)', 'long'],
        ['real(null)', 'real'],
        ['timespan(null)', 'timespan'],
        ['bool(null)', 'bool'],
        ['datetime(2024-01-01)', 'datetime'],
        ['dynamic([1, 2])', 'dynamic'],
        ['parse_json(message).a', 'dynamic'],
        ["parse_json(message)['a'][0]", 'dynamic'],
        ['_time', 'datetime'],
        ['_sysTime', 'datetime'],
        ['req_duration_ms', 'real'],
        ['is_tls', 'bool'],
        ["['geo.city']", 'string'],
        ['geo.city', 'string'],
        ['(resp_body_size_bytes)', 'long'],
        ['no_such_field', 'unknown'],
    ];
    for (const [expression, expected] of cases) {
        it(`['sample-http-logs'] | extend t = ${expression}`, async () => {
            expect(await typeOf(expression)).toBe(expected);
        });
    }

    it("['otel-demo-traces'] | extend t = ['attributes.custom']['http.protocol']", async () => {
        expect(await typeOf("['attributes.custom']['http.protocol']", "['otel-demo-traces']")).toBe('dynamic');
    });

    it("['otel-demo-traces'] | extend t = duration > 500ms", async () => {
        expect(await typeOf('duration > 500ms', "['otel-demo-traces']")).toBe('bool');
        expect(await typeOf('duration * 2', "['otel-demo-traces']")).toBe('timespan');
    });

    it('let x = 1; let x = "a"; [\'sample-http-logs\'] | extend t = x', async () => {
        expect(types.typeOf(await extendExpression('let x = 1; let x = "a"; [\'sample-http-logs\'] | extend t = x'))).toBe('string');
    });

    it("['sample-http-logs'] | extend a = 1, b = a * 2.0", async () => {
        const pipeline = (await body("['sample-http-logs'] | extend a = 1, b = a * 2.0")) as Pipeline;
        const extend = pipeline.operators[0] as ExtendOperator;
        expect(types.typeOf(extend.columns[1].expression)).toBe('real');
    });
});

describe('resolveField', () => {
    const cases: [string, string, string, string[]][] = [
        ["['sample-http-logs']", 'geo.city', 'geo.city', []],
        ["['sample-http-logs']", "['geo.city']", 'geo.city', []],
        ["['sample-http-logs']", 'status', 'status', []],
        ["['otel-demo-traces']", "['attributes.custom']['http.protocol']", 'attributes.custom', ['http.protocol']],
        ["['otel-demo-traces']", 'attributes.custom.http', 'attributes.custom', ['http']],
        ["['otel-demo-traces']", "['service.name']", 'service.name', []],
    ];
    for (const [source, expression, field, keyPath] of cases) {
        it(`${source} | extend t = ${expression}`, async () => {
            const r = types.resolveField(await extendExpression(`${source} | extend t = ${expression}`));
            expect(r).toMatchObject({ field, keyPath });
        });
    }

    it("['sample-http-logs'] | extend t = nope.city", async () => {
        expect(types.resolveField(await extendExpression("['sample-http-logs'] | extend t = nope.city"))).toBeUndefined();
    });
});

describe('letBinding', () => {
    it('let a = 1; let a = 2; print a', async () => {
        const doc = await parse('let a = 1; let a = 2; print a');
        const [, second, query] = doc.parseResult.value.statements;
        expect(types.letBinding('a', query)).toBe(second);
    });

    it('let a = b; let b = 1; print a', async () => {
        const doc = await parse('let a = b; let b = 1; print a');
        const [first] = doc.parseResult.value.statements;
        expect(types.letBinding('b', first)).toBeUndefined();
    });
});

describe('row types', () => {
    const cases: [string, string][] = [
        ["['sample-http-logs'] | project status, uri", 'status:string, uri:string'],
        ["['sample-http-logs'] | project s = status, n = strlen(uri)", 's:string, n:long'],
        ["['sample-http-logs'] | project geo.city", 'geo.city:string'],
        ["['sample-http-logs'] | project status | extend n = strlen(status)", 'status:string, n:long'],
        ["['sample-http-logs'] | project status, uri | extend status = toint(status)", 'uri:string, status:long'],
        ["['sample-http-logs'] | project status, uri | extend-valid x = uri", 'status:string, uri:string, x:string'],
        ["['sample-http-logs'] | summarize count(), avg(req_duration_ms) by bin(_time, 1h), method", '_time:datetime, method:string, count_:long, avg_req_duration_ms:real'],
        ["['sample-http-logs'] | summarize total = sum(resp_body_size_bytes) by bin_auto(_time)", '_time:datetime, total:long'],
        ["['sample-http-logs'] | summarize arg_max(_time, status, uri) by method", 'method:string, _time:datetime, status:string, uri:string'],
        ["['sample-http-logs'] | count", 'count:long'],
        ["['sample-http-logs'] | project status, uri | where status == '200' | sort by uri | take 5 | top 3 by uri | sample 0.5", 'status:string, uri:string'],
        ["['sample-http-logs'] | project status, uri | redact 'a' on uri | search 'x'", 'status:string, uri:string'],
        ["['sample-http-logs'] | distinct method, status", 'method:string, status:string'],
        ["['sample-http-logs'] | project status, uri, method | project-away u*", 'status:string, method:string'],
        ["['sample-http-logs'] | project status, uri, method | project-keep m*, status", 'status:string, method:string'],
        ["['sample-http-logs'] | project status | project-rename code = status", 'code:string'],
        ["['sample-http-logs'] | project status, uri, method | project-reorder method", 'method:string, status:string, uri:string'],
        ["['sample-http-logs'] | project status, uri, method | project-reorder *, status", 'uri:string, method:string, status:string'],
        ["['sample-http-logs'] | project id, status | join kind=inner (['otel-demo-traces'] | project id = trace_id, kind) on id", 'id:string, status:string, id1:string, kind:string'],
        ["['sample-http-logs'] | project id, status | join kind=leftanti (['otel-demo-traces'] | project id = trace_id) on $left.id == $right.id", 'id:string, status:string'],
        ["['sample-http-logs'] | project id, status | lookup (datatable(id:string, label:string)['a', 'b']) on id", 'id:string, status:string, label:string'],
        ["['sample-http-logs'] | project a = 1 | union (datatable(b:string)['x'])", 'a:long, b:string'],
        ["['sample-http-logs'] | project a = 1 | union withsource=src (datatable(a:long)[1])", 'src:string, a:long'],
        ['datatable(a:dynamic)[dynamic([1])] | mv-expand a to typeof(long)', 'a:long'],
        ['datatable(a:dynamic)[dynamic([1])] | mv-expand with_itemindex=i a', 'a:dynamic, i:long'],
        ["['sample-http-logs'] | project message | parse message with 'a' x:long 'b' y", 'message:string, x:long, y:string'],
        ["['sample-http-logs'] | project message | parse-where message with * 'a' x:real", 'message:string, x:real'],
        ["['sample-http-logs'] | project message | parse-kv message as (k1:long, k2) with (pair_delimiter=';', kv_delimiter='=')", 'message:string, k1:long, k2:string'],
        ["['sample-http-logs'] | make-series c = count() on _time step 1h by method", 'method:string, c:dynamic, _time:dynamic (open)'],
        ["['sample-http-logs'] | getschema", 'ColumnName:string, ColumnOrdinal:long, ColumnType:string, DataType:string'],
        ['print a = 1, strlen("x")', 'a:long, print_1:long'],
        ['datatable(a:long, b:string)[1, "x"]', 'a:long, b:string'],
        ['externaldata(a:string, b:long)["https://example.com/a.csv"]', 'a:string, b:long'],
        ['let T = datatable(a:long)[1]; T | extend b = a * 2', 'a:long, b:long'],
        ["['no-such-dataset']", '_time:datetime, _sysTime:datetime (open)'],
        ["['no-such-dataset'] | extend x = 1", '_time:datetime, _sysTime:datetime, x:long (open)'],
    ];
    for (const [text, expected] of cases) {
        it(text, async () => {
            expect(await rowAfter(text)).toBe(expected);
        });
    }

    it("['sample-http-logs']", async () => {
        const row = types.rowTypeAfter(await body("['sample-http-logs']"));
        expect(row.open).toBe(false);
        expect(row.columns.slice(0, 2).map(c => c.name)).toEqual(['_time', '_sysTime']);
        expect(row.columns.find(c => c.name === 'status')?.type).toBe('string');
    });

    it('search "error"', async () => {
        const row = types.rowTypeAfter(await body('search "error"'));
        expect(row.open).toBe(true);
        expect(row.columns[0]).toEqual({ name: '$table', type: 'string' });
    });

    it("union ['sample-http-logs'], ['github-push-event']", async () => {
        const row = types.rowTypeAfter(await body("union ['sample-http-logs'], ['github-push-event']"));
        expect(row.columns.map(c => c.name)).toEqual(expect.arrayContaining(['status', 'repo', '_time']));
    });

    it("['sample-http-logs'] | project status | where status == '200'", async () => {
        const pipeline = (await body("['sample-http-logs'] | project status | where status == '200'")) as Pipeline;
        expect(show(types.rowTypeBefore(pipeline.operators[1] as TabularOperator))).toBe('status:string');
    });
});
