import { readFileSync } from 'node:fs';
import { EmptyFileSystem } from 'langium';
import { expectIssue, expectNoIssues, validationHelper, type ValidationResult } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../language/apl-module.js';
import { allIssues, didYouMean, IssueCodes } from '../../language/apl-issue-codes.js';
import { checkText } from '../../language/check.js';
import type { Model } from '../../language/generated/ast.js';
import { StaticSchemaProvider } from '../../language/schema/index.js';

const schemaText = readFileSync(new URL('../fixtures/schema.json', import.meta.url), 'utf8');
const schema = StaticSchemaProvider.fromJson(schemaText, 'schema.json');
const validateEmpty = validationHelper<Model>(createAplServices(EmptyFileSystem).Apl);
const validateSchema = validationHelper<Model>(createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => schema } } }).Apl);

function codes(result: ValidationResult<Model>): string[] {
    return result.diagnostics.map(d => String(d.code)).sort();
}

/** [APL input, the codes it must produce (exactly, sorted), under the empty schema]. */
const emptySchemaCases: [string, string[]][] = [
    // unknown function / aggregation, with a suggestion
    ["['sample-http-logs'] | extend n = strlenn(uri)", [IssueCodes.UnknownFunction]],
    ["['sample-http-logs'] | summarize cnt()", [IssueCodes.UnknownFunction]],
    ["['sample-http-logs'] | extend n = strlen(uri), t = long(null), u = table('x')", []],
    // argument count
    ["['sample-http-logs'] | extend n = strlen(uri, 2)", [IssueCodes.WrongArgumentCount]],
    ["['sample-http-logs'] | summarize count(1)", [IssueCodes.WrongArgumentCount]],
    ["['sample-http-logs'] | extend x = case(is_tls, 1, 2)", []],
    ["['sample-http-logs'] | summarize arg_max(_time, *) by uri", []],
    // certain type mismatches
    ['[\'sample-http-logs\'] | summarize sum("x")', [IssueCodes.ArgumentTypeMismatch]],
    ['[\'sample-http-logs\'] | where 1 + "a" > 0', [IssueCodes.OperandTypeMismatch]],
    ["['sample-http-logs'] | where strlen(uri)", [IssueCodes.PredicateNotBool]],
    ["['sample-http-logs'] | where uri", []],
    ["['sample-http-logs'] | where isnotempty(uri) and resp_body_size_bytes > 10", []],
    ["['sample-http-logs'] | where _time > ago(1h) + 1d", []],
    ["['sample-http-logs'] | where tostring(status) == 200", [IssueCodes.StringNumberComparison]],
    // aggregation outside summarize
    ["['sample-http-logs'] | extend c = count()", [IssueCodes.AggregationOutsideSummarize]],
    ["['sample-http-logs'] | where count() > 1", [IssueCodes.AggregationOutsideSummarize]],
    ["['sample-http-logs'] | summarize sum(count())", [IssueCodes.AggregationOutsideSummarize]],
    ["['sample-http-logs'] | summarize c = count(), r = sum(resp_body_size_bytes) / count() by method", []],
    ["['sample-http-logs'] | make-series avg(req_duration_ms) on _time step 1h", []],
    ["['sample-http-logs'] | summarize count() by histogram(req_duration_ms, 10)", []],
    // dataset names
    ["['bad name!'] | take 1", [IssueCodes.InvalidDatasetName]],
    ["union withsource=ds github*, ['sample-http-logs'] | take 1", []],
    ["let T = ['sample-http-logs']; T | take 1", []],
    // duplicate columns
    ["['sample-http-logs'] | project uri, uri", [IssueCodes.DuplicateColumn]],
    ["['sample-http-logs'] | project a = 1, a = 2", [IssueCodes.DuplicateColumn]],
    ["['sample-http-logs'] | summarize a = count(), a = dcount(uri) by method", [IssueCodes.DuplicateColumn]],
    ['datatable(a:long, a:string)[1, "x"]', [IssueCodes.DuplicateColumn]],
    ["['sample-http-logs'] | extend x = 1, x = 2", []],
    // literals
    ["['sample-http-logs'] | summarize count() by bin(_time, 1w)", [IssueCodes.WeekTimespan]],
    ["['sample-http-logs'] | summarize count() by bin(_time, 7d)", []],
    ["['sample-http-logs'] | extend x = null", [IssueCodes.BareNull]],
    ["['sample-http-logs'] | extend x = long(null), y = dynamic(null), z = dynamic([1, null]), w = datetime(null)", []],
    // unknown names are never reported without a schema
    ["['nope'] | where nothing == 'x' | project whatever", []],
    ["datatable(a:long)[1] | project b", []],
];

/** [APL input, codes] under the fixture schema. */
const schemaCases: [string, string[]][] = [
    ["['sample-http-logs'] | where status == '200' | project _time, _sysTime, uri, geo.city, ['geo.country']", []],
    ["['sample-htp-logs'] | take 1", [IssueCodes.UnknownDataset]],
    ["['sample-http-logs'] | where stauts == '200'", [IssueCodes.UnknownField]],
    ["['sample-http-logs'] | where status == 200", [IssueCodes.StringNumberComparison]],
    ["['sample-http-logs'] | where resp_body_size_bytes == 200 and toint(status) >= 400", []],
    ["['sample-http-logs'] | project-away nope", [IssueCodes.UnknownField]],
    ["['sample-http-logs'] | project-away geo*, status", []],
    ["['sample-http-logs'] | summarize count() by method | where count_ > 1 and method == 'GET'", []],
    ["['sample-http-logs'] | summarize count() by method | where uri == 'x'", [IssueCodes.UnknownField]],
    ["['sample-http-logs'] | extend a = 1, b = a + 1 | where b > 1", []],
    ["let threshold = 10; ['sample-http-logs'] | where resp_body_size_bytes > threshold", []],
    ["['otel-demo-traces'] | where ['attributes.custom']['http.protocol'] == 'HTTP/1.1' and attributes.custom.x == 1", []],
    ["['otel-demo-traces'] | join kind=inner (['sample-http-logs'] | project trace_id = id) on $left.trace_id == $right.trace_id", []],
    ["['otel-demo-traces'] | join kind=inner (['sample-http-logs']) on $left.trace_id == $right.nope", [IssueCodes.UnknownField]],
    ["['sample-http-logs'] | extend j = parse_json(message) | where j.a.b == 1", []],
    // an operator that opens the row type stops unknown-field reports
    ["['nope-dataset'] | where anything == 1", [IssueCodes.UnknownDataset]],
    ["['sample-http-logs'] | make-series count() on _time step 1h | mv-expand time", []],
    ["search 'x' | where anything == 1", []],
    // take/limit after a time-binned summarize: an information diagnostic says what Axiom does
    ["['sample-http-logs'] | summarize count() by bin(_time, 1h), method | take 2", [IssueCodes.TakeAfterTimeBins]],
    ["['sample-http-logs'] | summarize count() by bin_auto(_time) | where count_ > 1 | limit 2", [IssueCodes.TakeAfterTimeBins]],
    ["['sample-http-logs'] | summarize count() by bin(_time, 1h), method | sort by count_ desc | take 2", []],
    ["['sample-http-logs'] | summarize count() by method | take 2", []],
    // a summarize column without an aggregation; a literal indexed (two queries without ';')
    ["['sample-http-logs'] | summarize u = strcat(uri, '!') by method", [IssueCodes.SummarizeWithoutAggregation]],
    ["['sample-http-logs'] | summarize m = max(req_duration_ms) * 2, c = count() + 1", []],
    ["['sample-http-logs'] | take 1\n['sample-http-logs'] | count", [IssueCodes.NotIndexable]],
    ["print a = dynamic([1, 2])[0], b = dynamic({'k': 1})['k']", []],
    // case needs condition/value pairs and a final else value; bag_pack(*) packs every column (Axiom's docs)
    ["print c = case(1 > 2, 'a', 2 > 3, 'b', 3 > 1, 'c')", [IssueCodes.WrongArgumentCount]],
    ["print c = case(1 > 2, 'a', 2 > 3, 'b', 'else')", []],
    ["['sample-http-logs'] | extend b = bag_pack(*)", []],
    ["['sample-http-logs'] | extend b = pack(*)", []],
    ["['sample-http-logs'] | where uri has_any (dynamic(['a', 'b'])) and method in (dynamic(['GET']))", []],
];

describe('codes under the empty schema', () => {
    for (const [text, expected] of emptySchemaCases) {
        it(text, async () => {
            expect(codes(await validateEmpty(text))).toEqual([...expected].sort());
        });
    }
});

describe('codes under a known schema', () => {
    for (const [text, expected] of schemaCases) {
        it(text, async () => {
            expect(codes(await validateSchema(text))).toEqual([...expected].sort());
        });
    }
});

describe('issue data for quick fixes', () => {
    it("['sample-http-logs'] | extend n = strlenn(uri)", async () => {
        const result = await validateEmpty("['sample-http-logs'] | extend n = strlenn(uri)");
        expectIssue(result, { code: IssueCodes.UnknownFunction, data: { code: IssueCodes.UnknownFunction, suggestion: 'strlen' } });
    });

    it("['sample-http-logs'] | where stauts == '200'", async () => {
        const result = await validateSchema("['sample-http-logs'] | where stauts == '200'");
        expectIssue(result, { code: IssueCodes.UnknownField, data: { code: IssueCodes.UnknownField, suggestion: 'status' } });
    });

    it("['sample-htp-logs'] | take 1", async () => {
        const result = await validateSchema("['sample-htp-logs'] | take 1");
        expectIssue(result, { code: IssueCodes.UnknownDataset, data: { code: IssueCodes.UnknownDataset, suggestion: 'sample-http-logs' } });
    });

    it("['sample-http-logs'] | where status == '200'", async () => {
        expectNoIssues(await validateSchema("['sample-http-logs'] | where status == '200'"));
    });
});

describe('the issue table', () => {
    it('has unique codes, APL1001 for syntax errors', () => {
        const all = allIssues();
        expect(new Set(all.map(i => i.code)).size).toBe(all.length);
        expect(all.find(i => i.code === 'APL1001')?.severity).toBe('error');
        for (const i of all) expect(i.code).toMatch(/^APL\d{4}$/);
    });

    it('didYouMean', () => {
        expect(didYouMean('strlenn', ['strlen', 'strcat'])).toBe('strlen');
        expect(didYouMean('Count', ['count'])).toBe('count');
        expect(didYouMean('zzzzzz', ['strlen'])).toBeUndefined();
    });
});

describe('checkText', () => {
    it("['sample-http-logs'] | where", async () => {
        const diagnostics = await checkText("['sample-http-logs'] | where");
        expect(diagnostics.length).toBeGreaterThan(0);
        expect(diagnostics.every(d => d.code === 'APL1001' && d.severity === 'error')).toBe(true);
    });

    it("['sample-http-logs'] | extend c = count()", async () => {
        const diagnostics = await checkText("['sample-http-logs'] | extend c = count()");
        expect(diagnostics.map(d => d.code)).toEqual([IssueCodes.AggregationOutsideSummarize]);
        expect(diagnostics[0].range.start).toEqual({ line: 0, character: 34 });
        expect(await checkText("['sample-http-logs'] | extend c = count()", { syntaxOnly: true })).toEqual([]);
    });

    it("['sample-http-logs'] | where status == 200", async () => {
        expect(await checkText("['sample-http-logs'] | where status == 200")).toEqual([]);
        const withSchema = await checkText("['sample-http-logs'] | where status == 200", { schema });
        expect(withSchema.map(d => [d.code, d.severity])).toEqual([[IssueCodes.StringNumberComparison, 'warning']]);
    });

    it('1,000 short queries in a row', async () => {
        const start = performance.now();
        for (let i = 0; i < 1000; i++) await checkText(`['sample-http-logs'] | where resp_body_size_bytes > ${i} | summarize count() by method`, { schema });
        expect(performance.now() - start).toBeLessThan(20_000);
    });
});

describe('no knock-on errors after a syntax error', () => {
    /** [APL input, the codes checkText reports, in order]. */
    const cases: [string, string[]][] = [
        ["['sample-http-logs'] | where status == | summarize cnt() | project y", [IssueCodes.SyntaxError]],
        ["['sample-http-logs'] | project a = uri, a = | take 1", [IssueCodes.SyntaxError]],
        ["['sample-http-logs'] | summarize strcat(uri, | take 1", [IssueCodes.SyntaxError]],
        // what ends before the syntax error is no knock-on: it is reported
        ["['sample-http-logs'] | extend n = cnt(uri) | where status ==", [IssueCodes.UnknownFunction, IssueCodes.SyntaxError]],
        // two query blocks (a blank line between them): the first keeps its unknown field, the second its syntax error
        ["['sample-http-logs']\n| where nosuchfield == 1\n\n['sample-http-logs'] | where\n", [IssueCodes.UnknownField, IssueCodes.SyntaxError]],
        // later statements are recovered text too; earlier ones keep their diagnostics
        ["print a = cnt(1);\n['sample-http-logs'] | where status == ;\nprint b = cnt(2)", [IssueCodes.UnknownFunction, IssueCodes.SyntaxError]],
    ];
    for (const [text, expected] of cases) {
        it(text, async () => {
            expect((await checkText(text, { schema })).map(d => d.code)).toEqual(expected);
            expect(codes(await validateSchema(text))).toEqual([...expected].sort());
        });
    }
});

describe('syntax errors carry APL1001 in the editor too', () => {
    it("['sample-http-logs'] | where", async () => {
        const result = await validateEmpty("['sample-http-logs'] | where");
        expect(result.diagnostics.length).toBeGreaterThan(0);
        expect(new Set(result.diagnostics.map(d => d.code))).toEqual(new Set([IssueCodes.SyntaxError]));
    });
});

describe('argument-count messages say what the arguments are', () => {
    it("print c = case(1 > 2, 'a', 2 > 3, 'b', 3 > 1, 'c')", async () => {
        const [d] = await checkText("print c = case(1 > 2, 'a', 2 > 3, 'b', 3 > 1, 'c')");
        expect(d.code).toBe(IssueCodes.WrongArgumentCount);
        expect(d.message).toBe("'case' takes condition/value pairs and a final else value (an odd number of arguments, at least 3), but 6 were given.");
    });

    it("print b = bag_pack('a', 1, 'b')", async () => {
        const [d] = await checkText("print b = bag_pack('a', 1, 'b')");
        expect(d.message).toBe("'bag_pack' takes key/value pairs (an even number of arguments, at least 2), but 3 were given.");
    });
});

describe('take after a time-binned summarize does what the information diagnostic says', () => {
    it("['sample-http-logs'] | summarize n = count() by bin(_time, 30d), method | take 2", async () => {
        const { createEngine } = await import('../../language/index.js');
        const { generateSample } = await import('../../language/samples/index.js');
        const engine = createEngine();
        engine.ingest('sample-http-logs', generateSample('sample-http-logs', { rows: 2000, seed: 1 }));
        const q = "['sample-http-logs'] | summarize n = count() by bin(_time, 30d), method";
        const all = (await engine.query(q)).tables[0];
        const taken = (await engine.query(`${q} | take 2`)).tables[0];
        const bins = new Set(all.columns[0]).size;
        const methods = (t: typeof taken) => new Set(t.columns[1]);
        // 2 groups (methods) kept in every bin, not 2 rows
        expect(methods(taken).size).toBe(2);
        expect(new Set(taken.columns[0]).size).toBe(bins);
        expect(taken.columns[0].length).toBeGreaterThan(2);
        const [d] = await checkText(`${q} | take 2`);
        expect(d).toMatchObject({ code: IssueCodes.TakeAfterTimeBins, severity: 'info' });
        expect(d.message).toContain('keeps the 2 groups with the largest first aggregation in every time bin');
    });
});
