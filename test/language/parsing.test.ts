import { describe, expect, it } from 'vitest';
import { parse } from '../../language/apl-parse.js';
import type * as ast from '../../language/generated/ast.js';
import { bracketed } from '../support/ast-print.js';

function parseOk(text: string): ast.Model {
    const { model, problems } = parse(text);
    expect(problems, problems.map(p => p.message).join('\n')).toEqual([]);
    return model;
}

function pipelineOf(text: string): ast.Pipeline {
    const model = parseOk(text);
    const last = model.statements[model.statements.length - 1] as ast.QueryStatement;
    expect(last.$type).toBe('QueryStatement');
    expect(last.body.$type).toBe('Pipeline');
    return last.body as ast.Pipeline;
}

function operatorsOf(text: string): string[] {
    return pipelineOf(text).operators.map(o => o.$type);
}

/** The predicate of `T | where <expr>`, printed with all brackets. */
function tree(expression: string): string {
    const where = pipelineOf(`T | where ${expression}`).operators[0] as ast.WhereOperator;
    return bracketed(where.predicate);
}

describe('tabular operators', () => {
    const cases: [string, string][] = [
        ["['sample-http-logs'] | where status == '500'", 'WhereOperator'],
        ["['sample-http-logs'] | summarize count() by status", 'SummarizeOperator'],
        ["['sample-http-logs'] | summarize count = count() by bin(_time, 1h)", 'SummarizeOperator'],
        ["['sample-http-logs'] | summarize by method", 'SummarizeOperator'],
        ["['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024, x = 1", 'ExtendOperator'],
        ["['sample-http-logs'] | extend-valid city = ['geo.city']", 'ExtendValidOperator'],
        ["['sample-http-logs'] | project _time, uri, kb = resp_body_size_bytes / 1024", 'ProjectOperator'],
        ["['sample-http-logs'] | project-away status*, ['geo.']*, method", 'ProjectAwayOperator'],
        ["['sample-http-logs'] | project-keep size*, ['commits']*", 'ProjectKeepOperator'],
        ["['otel-demo-traces'] | project-rename service = ['service.name'], _time=time", 'ProjectRenameOperator'],
        ["['sample-http-logs'] | project-reorder * asc", 'ProjectReorderOperator'],
        ["['otel-demo-traces'] | project-reorder trace_id, *, span_id granny-desc", 'ProjectReorderOperator'],
        ["['sample-http-logs'] | sort by _time desc, uri asc nulls last", 'SortOperator'],
        ["['sample-http-logs'] | order by req_duration_ms", 'SortOperator'],
        ["['sample-http-logs'] | take 10", 'TakeOperator'],
        ["['sample-http-logs'] | limit 10", 'TakeOperator'],
        ["['sample-http-logs'] | top 10 by req_duration_ms desc", 'TopOperator'],
        ["['sample-http-logs'] | count", 'CountOperator'],
        ["['sample-http-logs'] | distinct method, status", 'DistinctOperator'],
        ["['sample-http-logs'] | parse uri with * '/api/v' version:int '/' rest", 'ParseOperator'],
        ["['sample-http-logs'] | parse kind=regex flags=Ui uri with @'/api/(\\w+)/' name:string", 'ParseOperator'],
        ["['sample-http-logs'] | parse-where uri with '/api/' rest", 'ParseWhereOperator'],
        ["['sample-http-logs'] | parse-kv kvdata as (user:string, id:long) with (pair_delimiter = ';', kv_delimiter = '=')", 'ParseKvOperator'],
        ["['sample-http-logs'] | mv-expand territories", 'MvExpandOperator'],
        ["['sample-http-logs'] | mv-expand kind=array with_itemindex=i a to typeof(long), b to typeof(datetime) limit 5", 'MvExpandOperator'],
        ["['sample-http-logs'] | make-series count() default=0 on _time from ago(30m) to now() step 1m by method", 'MakeSeriesOperator'],
        ["['sample-http-logs'] | make-series avg(req_duration_ms) on _time in range(ago(1h), now(), 1m) step 1m", 'MakeSeriesOperator'],
        ["['otel-demo-traces'] | join kind=inner (['otel-demo-logs'] | where x > 1) on trace_id", 'JoinOperator'],
        ["['otel-demo-traces'] | join kind=leftouter ['otel-demo-logs'] on $left.trace_id == $right.trace_id, span_id", 'JoinOperator'],
        ["['otel-demo-traces'] | lookup kind=leftouter services on $left.['service.name'] == $right.serviceName", 'LookupOperator'],
        ["['github-push-event'] | union withsource=dataset github*, ['github-issues-event']", 'UnionOperator'],
        ["['sample-http-logs'] | search kind=case_sensitive \"GET\" and status:\"200\"", 'SearchOperator'],
        ["['sample-http-logs'] | sample 0.1", 'SampleOperator'],
        ["['sample-http-logs'] | getschema", 'GetschemaOperator'],
        ["['sample-http-logs'] | redact replaceToken=\"*\" replaceHash=false redactGroups=true @'\\d+', 'secret' on uri, message", 'RedactOperator'],
    ];
    for (const [query, type] of cases) {
        it(query, () => {
            expect(operatorsOf(query)).toEqual([type]);
        });
    }

    it('all 29 tabular operator keywords are covered above', () => {
        const keywords = new Set(cases.map(([q]) => pipelineOf(q).operators[0].keyword));
        expect([...keywords].sort()).toEqual([
            'count', 'distinct', 'extend', 'extend-valid', 'getschema', 'join', 'limit', 'lookup', 'make-series', 'mv-expand',
            'order', 'parse', 'parse-kv', 'parse-where', 'project', 'project-away', 'project-keep', 'project-rename',
            'project-reorder', 'redact', 'sample', 'search', 'sort', 'summarize', 'take', 'top', 'union', 'where',
        ].sort());
        // 28 keywords + `externaldata`, which is a source (see below): 29 operators.
    });
});

describe('statements and sources', () => {
    it("let pattern = '/api/v1/users[1]';\n['sample-http-logs'] | where uri == pattern", () => {
        const model = parseOk("let pattern = '/api/v1/users[1]';\n['sample-http-logs'] | where uri == pattern");
        expect(model.statements.map(s => s.$type)).toEqual(['LetStatement', 'QueryStatement']);
    });

    it("let methods = dynamic(['GET', 'POST']); ['sample-http-logs'] | where method in (methods)", () => {
        const model = parseOk("let methods = dynamic(['GET', 'POST']); ['sample-http-logs'] | where method in (methods)");
        expect((model.statements[0] as ast.LetStatement).value.$type).toBe('DynamicLiteral');
    });

    it("let errors = ['sample-http-logs'] | where status == '500'; errors | count", () => {
        const model = parseOk("let errors = ['sample-http-logs'] | where status == '500'; errors | count");
        expect((model.statements[0] as ast.LetStatement).value.$type).toBe('Pipeline');
    });

    it('set stricttypes; declare query_parameters (country:string = "", n:long); T | take n', () => {
        const model = parseOk('set stricttypes; declare query_parameters (country:string = "", n:long); T | take n');
        expect(model.statements.map(s => s.$type)).toEqual(['SetStatement', 'DeclareStatement', 'QueryStatement']);
    });

    it('datatable(name:string, n:long) [ "a", 1, "b", 2, ]', () => {
        const model = parseOk('datatable(name:string, n:long) [ "a", 1, "b", 2, ]');
        const table = (model.statements[0] as ast.QueryStatement).body as ast.DatatableExpression;
        expect(table.values).toHaveLength(4);
    });

    it("datatable(s:string) ['only']", () => {
        const model = parseOk("datatable(s:string) ['only']");
        expect(((model.statements[0] as ast.QueryStatement).body as ast.DatatableExpression).singleton).toBe('only');
    });

    it('print r = range(100, 500, 100), bool(null), datetime(null)', () => {
        const model = parseOk('print r = range(100, 500, 100), bool(null), datetime(null)');
        expect(((model.statements[0] as ast.QueryStatement).body as ast.PrintExpression).columns).toHaveLength(3);
    });

    it('union withsource=dataset github*', () => {
        const body = (parseOk('union withsource=dataset github*').statements[0] as ast.QueryStatement).body as ast.UnionExpression;
        expect(body.tables[0].$type).toBe('TableWildcard');
    });

    it('union *', () => {
        parseOk('union *');
    });

    it('search in (github*) "error"', () => {
        parseOk('search in (github*) "error"');
    });

    it('search *', () => {
        parseOk('search *');
    });

    it('externaldata (a:string, b:long) ["file.csv"] with (format="csv", ignoreFirstRecord=true)', () => {
        parseOk('externaldata (a:string, b:long) ["file.csv"] with (format="csv", ignoreFirstRecord=true)');
    });

    it('externaldata (a:string) [ "a.csv", "b.csv" ]', () => {
        parseOk('externaldata (a:string) [ "a.csv", "b.csv" ]');
    });

    it("table('sample-http-logs') | count", () => {
        expect(operatorsOf("table('sample-http-logs') | count")).toEqual(['CountOperator']);
    });

    it('["dataset-name"] | take 1', () => {
        const source = pipelineOf('["dataset-name"] | take 1').source as ast.BracketReference;
        expect(source.name).toBe('dataset-name');
    });

    it('hn | take 1', () => {
        expect((pipelineOf('hn | take 1').source as ast.NameReference).name).toBe('hn');
    });

    it("['otel-demo-traces'] |\ncount", () => {
        expect(operatorsOf("['otel-demo-traces'] |\ncount")).toEqual(['CountOperator']);
    });

    it('comments anywhere, including inside argument lists', () => {
        parseOk(`// leading comment
['sample-http-logs'] // after the source
| extend color = case(
    status == "500", "red",   // errors
    "green" // default
  )
| take 1 // trailing`);
    });

    it('two queries separated by a blank line', () => {
        const model = parseOk("['a'] | count\n\n['b'] | count");
        expect(model.statements).toHaveLength(2);
    });
});

describe('literals', () => {
    const literals: [string, string][] = [
        ['"double"', 'StringLiteral'],
        ["'single'", 'StringLiteral'],
        ['"esc\\"aped\\n"', 'StringLiteral'],
        ['@"C:\\path"', 'StringLiteral'],
        ["@'verbatim'", 'StringLiteral'],
        ['42', 'LongLiteral'],
        ['0x1F', 'LongLiteral'],
        ['3.14', 'RealLiteral'],
        ['1e3', 'RealLiteral'],
        ['1.5E-3', 'RealLiteral'],
        ['1d', 'TimespanLiteral'],
        ['1.5h', 'TimespanLiteral'],
        ['30m', 'TimespanLiteral'],
        ['10s', 'TimespanLiteral'],
        ['100ms', 'TimespanLiteral'],
        ['10min', 'TimespanLiteral'],
        ['1sec', 'TimespanLiteral'],
        ['1tick', 'TimespanLiteral'],
        ['2days', 'TimespanLiteral'],
        ['5microseconds', 'TimespanLiteral'],
        ['datetime(2024-01-15T14:00:00Z)', 'DatetimeLiteral'],
        ['datetime(2019-11-30 23:59:59.9)', 'DatetimeLiteral'],
        ["datetime('2022-09-16')", 'DatetimeLiteral'],
        ['datetime(null)', 'DatetimeLiteral'],
        ['timespan(15s)', 'FunctionCall'],
        ['long(null)', 'FunctionCall'],
        ['real(null)', 'FunctionCall'],
        ['true', 'BooleanLiteral'],
        ['false', 'BooleanLiteral'],
        ['bool(true)', 'FunctionCall'],
        ['typeof(string)', 'TypeofLiteral'],
        ['typeof(dynamic)', 'TypeofLiteral'],
        ['dynamic(null)', 'DynamicLiteral'],
        ['dynamic([3, 4, "bye"])', 'DynamicLiteral'],
        ["dynamic(['GET', 'POST'])", 'DynamicLiteral'],
        ["dynamic(['2001:db8::/32'])", 'DynamicLiteral'],
        ['dynamic({"a": 1, "b": {"a": 2}, "c": [-1.5, null, true]})', 'DynamicLiteral'],
        ["dynamic({'k': 'v'})", 'DynamicLiteral'],
    ];
    for (const [text, type] of literals) {
        it(`print ${text}`, () => {
            const print = (parseOk(`print ${text}`).statements[0] as ast.QueryStatement).body as ast.PrintExpression;
            expect(print.columns[0].expression.$type).toBe(type);
        });
    }

    it('print "a\\tb", @"a""b", \'it\\\'s\'', () => {
        const print = (parseOk('print "a\\tb", @"a""b", \'it\\\'s\'').statements[0] as ast.QueryStatement).body as ast.PrintExpression;
        expect(print.columns.map(c => (c.expression as ast.StringLiteral).value)).toEqual(['a\tb', 'a"b', "it's"]);
    });
});

describe('precedence', () => {
    const cases: [string, string][] = [
        ['a + b contains c', '(a + (b contains c))'],
        ['a * b + c', '((a * b) + c)'],
        ['a + b * c', '(a + (b * c))'],
        ['a - b - c', '((a - b) - c)'],
        ['a or b and c', '(a or (b and c))'],
        ['a and b or c and d', '((a and b) or (c and d))'],
        ['a == 1 and b != 2', '((a == 1) and (b != 2))'],
        ['x =~ "a" == true', '((x =~ "a") == true)'],
        ['a < b + 1', '(a < (b + 1))'],
        ['-a * b', '((-a) * b)'],
        ['a * -b', '(a * (-b))'],
        ['not(a) and b', '((not a) and b)'],
        ['not field has "x"', '(not (field has "x"))'],
        ['x in ("a", "b") or y !in~ ("c")', '((x in ["a", "b"]) or (y !in~ ["c"]))'],
        ['a between (1 .. 10)', '(a between [1 .. 10])'],
        ['a !between (1 .. 2 + 3)', '(a !between [1 .. (2 + 3)])'],
        ['x has_any ("a", "b")', '(x has_any ["a", "b"])'],
        ['uri !contains_cs "API"', '(uri !contains_cs "API")'],
        ['uri matches regex "^/api"', '(uri matches regex "^/api")'],
        ['uri !matches regex "^/api"', '(uri !matches regex "^/api")'],
        ['a <> b', '(a <> b)'],
        ['a !~ "x"', '(a !~ "x")'],
        ['* has "GET"', '(* has "GET")'],
        ['status:"200"', '(status : "200")'],
        ['split(uri, "/")[1] == "api"', '(split(uri, "/")[1] == "api")'],
        ["tool_calls[0]['function']['name'] == 'f'", "(tool_calls[0]['function']['name'] == \"f\")"],
        ['geo.city == "Berlin"', '(geo.city == "Berlin")'],
        ["['geo.city'] == \"Berlin\"", "(['geo.city'] == \"Berlin\")"],
        ['arr[1:] == arr[0:2]', '(arr[1:] == arr[0:2])'],
        ['now() - ago(1d) > 1h', '((now() - ago(1d)) > 1h)'],
        ['a % 2 == 0', '((a % 2) == 0)'],
    ];
    for (const [expression, expected] of cases) {
        it(expression, () => {
            expect(tree(expression)).toBe(expected);
        });
    }
});

describe('names and keywords', () => {
    it("['sample-http-logs'] | summarize count = count() by kind", () => {
        const summarize = pipelineOf("['sample-http-logs'] | summarize count = count() by kind").operators[0] as ast.SummarizeOperator;
        expect(summarize.aggregates[0].name).toBe('count');
        expect(bracketed(summarize.groups[0].expression)).toBe('kind');
    });

    it('T | extend x = mv-expand, y = make-series', () => {
        // Hyphenated operator names are keywords only right after a pipe; elsewhere they subtract.
        const extend = pipelineOf('T | extend x = mv-expand, y = make-series').operators[0] as ast.ExtendOperator;
        expect(extend.columns.map(c => bracketed(c.expression))).toEqual(['(mv - expand)', '(make - series)']);
    });

    it('T | extend d = a-b', () => {
        const extend = pipelineOf('T | extend d = a-b').operators[0] as ast.ExtendOperator;
        expect(bracketed(extend.columns[0].expression)).toBe('(a - b)');
    });

    it('T | extend p = a*b, q = a * 2', () => {
        const extend = pipelineOf('T | extend p = a*b, q = a * 2').operators[0] as ast.ExtendOperator;
        expect(extend.columns.map(c => bracketed(c.expression))).toEqual(['(a * b)', '(a * 2)']);
    });

    it('T | summarize arg_max(duration, longestSpan=span_id), arg_max(*, *)', () => {
        parseOk('T | summarize arg_max(duration, longestSpan=span_id), arg_max(duration, *)');
    });

    it('T | where $left.a == $right.b', () => {
        expect(tree('$left.a == $right.b')).toBe('($left.a == $right.b)');
    });
});

describe('error recovery', () => {
    const cases: [string, { message: string; start: [number, number]; end: [number, number] }[]][] = [
        ["['a'] | where x ==", [{ message: "expected an expression after '==', found the end of the query", start: [0, 18], end: [0, 18] }]],
        ['T | wher x', [{ message: "expected a tabular operator (where, summarize, extend, project, ...) after '|', found 'wher'", start: [0, 4], end: [0, 8] }]],
        ['T | where (a', [{ message: "expected ')' after 'a', found the end of the query", start: [0, 12], end: [0, 12] }]],
        ['T | extend x = ', [{ message: "expected an expression after '=', found the end of the query", start: [0, 14], end: [0, 14] }]],
        ['T | summarize count() by', [{ message: "expected an expression after 'by', found the end of the query", start: [0, 24], end: [0, 24] }]],
        ['T\n| where a == 1\n| take', [{ message: "expected an expression after 'take', found the end of the query", start: [2, 6], end: [2, 6] }]],
    ];
    for (const [text, expected] of cases) {
        it(text, () => {
            const { model, problems } = parse(text);
            expect(model.$type).toBe('Model');
            expect(problems.map(p => ({ message: p.message, start: [p.range.start.line, p.range.start.character], end: [p.range.end.line, p.range.end.character] }))).toEqual(expected);
        });
    }

    it('never exposes generator token names', () => {
        for (const text of ['T | where x == ', 'T | project', 'T | sort x', 'let = 1', 'T | join on', 'print (', "datatable(a:string) ['x'", 'T | parse x with']) {
            for (const p of parse(text).problems) {
                expect(p.message, text).not.toMatch(/\bID\b|\bLONG\b|\bSTRING\b|BRACKET_NAME|TIMESPAN|EOF|\[\w+\]|-->/);
            }
        }
    });

    it('always returns a tree', () => {
        for (const text of ['', '|', ')))', 'where', "['unterminated", '"unterminated', '1 +', '| | |', '\u0000']) {
            expect(parse(text).model.$type).toBe('Model');
        }
    });
});
