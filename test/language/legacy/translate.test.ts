import { describe, expect, it } from 'vitest';
import { TranslationError, translate } from '../../../language/legacy/translate.js';
import { decompileLegacy, filterToApl } from '../../../language/legacy/decompile.js';
import { parseLegacyQuery, type Filter, type LegacyQuery } from '../../../language/legacy/legacy-types.js';

const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
const DS = "['sample-http-logs']";

function q(apl: string): LegacyQuery {
    return translate(apl, RANGE).query;
}

function filterOf(predicate: string): Filter | undefined {
    return q(`${DS} | where ${predicate}`).filter;
}

describe('source', () => {
    it("['sample-http-logs']", () => {
        expect(translate("['sample-http-logs']", RANGE)).toEqual({
            dataset: 'sample-http-logs',
            query: { startTime: RANGE.startTime, endTime: RANGE.endTime, resolution: 'auto' },
        });
    });
    it('T | take 3', () => {
        expect(translate('T | take 3', RANGE).dataset).toBe('T');
    });
    it('accepts Date time ranges', () => {
        const r = translate(DS, { startTime: new Date('2024-01-01T00:00:00Z'), endTime: new Date('2024-01-01T01:00:00.5Z') });
        expect(r.query.startTime).toBe('2024-01-01T00:00:00Z');
        expect(r.query.endTime).toBe('2024-01-01T01:00:00.5Z');
    });
    it('rejects a bad time range', () => {
        expect(() => translate(DS, { startTime: 'yesterday', endTime: RANGE.endTime })).toThrow(/startTime must be an RFC 3339 timestamp/);
    });
});

describe('where -> filter', () => {
    const leaf = (op: string, field: string, value: unknown, caseSensitive?: boolean) =>
        caseSensitive === undefined ? { op, field, value } : { op, field, value, caseSensitive };
    const cases: [string, Filter][] = [
        ["status == '500'", leaf('==', 'status', '500', true) as Filter],
        ["status != '500'", leaf('!=', 'status', '500', true) as Filter],
        ["status <> '500'", leaf('!=', 'status', '500', true) as Filter],
        ["method =~ 'get'", leaf('==', 'method', 'get', false) as Filter],
        ["method !~ 'get'", leaf('!=', 'method', 'get', false) as Filter],
        ['req_duration_ms > 1.5', leaf('>', 'req_duration_ms', 1.5) as Filter],
        ['req_duration_ms >= 2', leaf('>=', 'req_duration_ms', 2) as Filter],
        ['resp_body_size_bytes < 100', leaf('<', 'resp_body_size_bytes', 100) as Filter],
        ['resp_body_size_bytes <= -3', leaf('<=', 'resp_body_size_bytes', -3) as Filter],
        ['100 < resp_body_size_bytes', leaf('>', 'resp_body_size_bytes', 100) as Filter],
        ['100 >= resp_body_size_bytes', leaf('<=', 'resp_body_size_bytes', 100) as Filter],
        ["'500' == status", leaf('==', 'status', '500', true) as Filter],
        ['is_tls == true', leaf('==', 'is_tls', true, true) as Filter],
        ['is_tls', leaf('==', 'is_tls', true, true) as Filter],
        ["uri contains 'api'", leaf('contains', 'uri', 'api', false) as Filter],
        ["uri contains_cs 'API'", leaf('contains', 'uri', 'API', true) as Filter],
        ["uri !contains 'api'", leaf('not-contains', 'uri', 'api', false) as Filter],
        ["uri !contains_cs 'api'", leaf('not-contains', 'uri', 'api', true) as Filter],
        ["uri startswith '/api'", leaf('starts-with', 'uri', '/api', false) as Filter],
        ["uri startswith_cs '/api'", leaf('starts-with', 'uri', '/api', true) as Filter],
        ["uri !startswith '/api'", leaf('not-starts-with', 'uri', '/api', false) as Filter],
        ["uri !startswith_cs '/api'", leaf('not-starts-with', 'uri', '/api', true) as Filter],
        ["uri endswith '.js'", leaf('ends-with', 'uri', '.js', false) as Filter],
        ["uri endswith_cs '.js'", leaf('ends-with', 'uri', '.js', true) as Filter],
        ["uri !endswith '.js'", leaf('not-ends-with', 'uri', '.js', false) as Filter],
        ["uri !endswith_cs '.js'", leaf('not-ends-with', 'uri', '.js', true) as Filter],
        ["uri matches regex '^/api/v[0-9]'", { op: 'regexp', field: 'uri', value: '^/api/v[0-9]' }],
        ["uri !matches regex 'x+'", { op: 'not-regexp', field: 'uri', value: 'x+' }],
        ["['geo.city'] == 'Berlin'", leaf('==', 'geo.city', 'Berlin', true) as Filter],
        ["geo.city == 'Berlin'", leaf('==', 'geo.city', 'Berlin', true) as Filter],
        ["(status == '500')", leaf('==', 'status', '500', true) as Filter],
        ['_time > datetime(2024-01-01T12:00:00Z)', leaf('>', '_time', '2024-01-01T12:00:00Z') as Filter],
        ['isnotnull(status)', { op: 'exists', field: 'status' }],
        ['isnull(status)', { op: 'not-exists', field: 'status' }],
        ['isnotempty(status)', { op: 'and', field: '', children: [{ op: 'exists', field: 'status' }, leaf('!=', 'status', '', true) as Filter] }],
        ['isempty(status)', { op: 'or', field: '', children: [{ op: 'not-exists', field: 'status' }, leaf('==', 'status', '', true) as Filter] }],
        ["not(status == '200')", { op: 'not', field: '', children: [leaf('==', 'status', '200', true) as Filter] }],
        ["not (status == '200')", { op: 'not', field: '', children: [leaf('==', 'status', '200', true) as Filter] }],
        ["status == '500' and method == 'GET'", { op: 'and', field: '', children: [leaf('==', 'status', '500', true) as Filter, leaf('==', 'method', 'GET', true) as Filter] }],
        [
            "status == '500' or method == 'GET' or uri contains 'x'",
            { op: 'or', field: '', children: [leaf('==', 'status', '500', true) as Filter, leaf('==', 'method', 'GET', true) as Filter, leaf('contains', 'uri', 'x', false) as Filter] },
        ],
        [
            "status == '500' and (method == 'GET' or method == 'PUT')",
            {
                op: 'and',
                field: '',
                children: [leaf('==', 'status', '500', true) as Filter, { op: 'or', field: '', children: [leaf('==', 'method', 'GET', true) as Filter, leaf('==', 'method', 'PUT', true) as Filter] }],
            },
        ],
        ["status in ('200', '201')", { op: 'or', field: '', children: [leaf('==', 'status', '200', true) as Filter, leaf('==', 'status', '201', true) as Filter] }],
        ["status in ('200')", leaf('==', 'status', '200', true) as Filter],
        ["method in~ ('get', 'put')", { op: 'or', field: '', children: [leaf('==', 'method', 'get', false) as Filter, leaf('==', 'method', 'put', false) as Filter] }],
        ["status !in ('200', '201')", { op: 'and', field: '', children: [leaf('!=', 'status', '200', true) as Filter, leaf('!=', 'status', '201', true) as Filter] }],
        ["method !in~ ('get', 'put')", { op: 'and', field: '', children: [leaf('!=', 'method', 'get', false) as Filter, leaf('!=', 'method', 'put', false) as Filter] }],
        ['req_duration_ms between (1 .. 2.5)', { op: 'and', field: '', children: [leaf('>=', 'req_duration_ms', 1) as Filter, leaf('<=', 'req_duration_ms', 2.5) as Filter] }],
        [
            'req_duration_ms !between (1 .. 2.5)',
            { op: 'not', field: '', children: [{ op: 'and', field: '', children: [leaf('>=', 'req_duration_ms', 1) as Filter, leaf('<=', 'req_duration_ms', 2.5) as Filter] }] },
        ],
    ];
    for (const [predicate, expected] of cases) {
        it(`${DS} | where ${predicate}`, () => {
            expect(filterOf(predicate)).toEqual(expected);
        });
    }

    it(`${DS} | where status == '500' | where method == 'GET' | where uri contains 'a' and uri contains 'b'`, () => {
        expect(q(`${DS} | where status == '500' | where method == 'GET' | where uri contains 'a' and uri contains 'b'`).filter).toEqual({
            op: 'and',
            field: '',
            children: [
                { op: '==', field: 'status', value: '500', caseSensitive: true },
                { op: '==', field: 'method', value: 'GET', caseSensitive: true },
                { op: 'contains', field: 'uri', value: 'a', caseSensitive: false },
                { op: 'contains', field: 'uri', value: 'b', caseSensitive: false },
            ],
        });
    });

    it('every translated filter passes parseLegacyQuery and decompiles to the same predicate', () => {
        for (const [predicate] of cases) {
            const query = q(`${DS} | where ${predicate}`);
            expect(parseLegacyQuery(JSON.parse(JSON.stringify(query)))).toEqual(query);
            // Decompiling and translating again is a fixed point.
            const again = filterOf(filterToApl(query.filter!));
            expect(again, predicate).toEqual(query.filter);
        }
    });
});

describe('summarize -> aggregations, groupBy, resolution', () => {
    it(`${DS} | summarize count() by status`, () => {
        const r = q(`${DS} | summarize count() by status`);
        expect(r.aggregations).toEqual([{ alias: 'count_', op: 'count', field: '*' }]);
        expect(r.groupBy).toEqual(['status']);
        expect(r.resolution).toBe('auto');
    });
    it(`${DS} | summarize event_count = count() by status, ['geo.city']`, () => {
        const r = q(`${DS} | summarize event_count = count() by status, ['geo.city']`);
        expect(r.aggregations).toEqual([{ alias: 'event_count', op: 'count', field: '*' }]);
        expect(r.groupBy).toEqual(['status', 'geo.city']);
    });
    const aggs: [string, object][] = [
        ['avg(req_duration_ms)', { alias: 'avg_req_duration_ms', op: 'avg', field: 'req_duration_ms' }],
        ['sum(resp_body_size_bytes)', { alias: 'sum_resp_body_size_bytes', op: 'sum', field: 'resp_body_size_bytes' }],
        ['min(req_duration_ms)', { alias: 'min_req_duration_ms', op: 'min', field: 'req_duration_ms' }],
        ['max(req_duration_ms)', { alias: 'max_req_duration_ms', op: 'max', field: 'req_duration_ms' }],
        ['stdev(req_duration_ms)', { alias: 'stdev_req_duration_ms', op: 'stdev', field: 'req_duration_ms' }],
        ['variance(req_duration_ms)', { alias: 'variance_req_duration_ms', op: 'variance', field: 'req_duration_ms' }],
        ['dcount(id)', { alias: 'dcount_id', op: 'distinct', field: 'id' }],
        ["dcountif(id, status == '200')", { alias: 'dcountif_id', op: 'distinctif', field: 'id', argument: { op: '==', field: 'status', value: '200', caseSensitive: true } }],
        ["countif(status == '500')", { alias: 'countif_', op: 'countif', field: '*', argument: { op: '==', field: 'status', value: '500', caseSensitive: true } }],
        ['make_set(method)', { alias: 'make_set_method', op: 'makeset', field: 'method' }],
        ['make_list(method)', { alias: 'make_list_method', op: 'makelist', field: 'method' }],
        ["make_set_if(method, uri contains 'api')", { alias: 'make_set_if_method', op: 'makesetif', field: 'method', argument: { op: 'contains', field: 'uri', value: 'api', caseSensitive: false } }],
        ['topk(status, 3)', { alias: 'topk_status', op: 'topk', field: 'status', argument: 3 }],
        ['histogram(req_duration_ms, 10)', { alias: 'histogram_req_duration_ms', op: 'histogram', field: 'req_duration_ms', argument: 10 }],
        ['percentile(req_duration_ms, 95)', { alias: 'percentile_req_duration_ms', op: 'percentiles', field: 'req_duration_ms', argument: 95 }],
        ['percentiles_array(req_duration_ms, 50, 99.9)', { alias: 'percentiles_req_duration_ms', op: 'percentiles', field: 'req_duration_ms', argument: [50, 99.9] }],
        ['arg_max(req_duration_ms, uri)', { alias: 'req_duration_ms', op: 'argmax', field: 'req_duration_ms', argument: ['uri'] }],
        ['arg_min(req_duration_ms, uri, status)', { alias: 'req_duration_ms', op: 'argmin', field: 'req_duration_ms', argument: ['uri', 'status'] }],
        ['rate(resp_body_size_bytes)', { alias: 'rate', op: 'rate', field: 'resp_body_size_bytes' }],
        ["avg(['geo.city'])", { alias: 'avg_geo.city', op: 'avg', field: 'geo.city' }],
        ['p = avg(req_duration_ms)', { alias: 'p', op: 'avg', field: 'req_duration_ms' }],
    ];
    for (const [agg, expected] of aggs) {
        it(`${DS} | summarize ${agg}`, () => {
            const r = q(`${DS} | summarize ${agg}`);
            expect(r.aggregations).toEqual([expected]);
            expect(parseLegacyQuery(JSON.parse(JSON.stringify(r)))).toEqual(r);
        });
    }
    it(`${DS} | summarize count() by bin(_time, 1h)`, () => {
        const r = q(`${DS} | summarize count() by bin(_time, 1h)`);
        expect(r.resolution).toBe('1h0m0s');
        expect(r.groupBy).toBeUndefined();
    });
    it(`${DS} | summarize count() by status, _time = bin(_time, 90s)`, () => {
        const r = q(`${DS} | summarize count() by status, _time = bin(_time, 90s)`);
        expect(r.resolution).toBe('1m30s');
        expect(r.groupBy).toEqual(['status']);
    });
    it(`${DS} | summarize count() by bin_auto(_time), method`, () => {
        const r = q(`${DS} | summarize count() by bin_auto(_time), method`);
        expect(r.resolution).toBe('auto');
        expect(r.groupBy).toEqual(['method']);
    });
    it(`${DS} | count`, () => {
        expect(q(`${DS} | count`).aggregations).toEqual([{ op: 'count', field: '*', alias: 'count' }]);
    });
    it(`${DS} | where status == '500' | summarize c = count() by method | sort by c desc | take 3`, () => {
        expect(q(`${DS} | where status == '500' | summarize c = count() by method | sort by c desc | take 3`)).toEqual({
            ...RANGE,
            resolution: 'auto',
            filter: { op: '==', field: 'status', value: '500', caseSensitive: true },
            aggregations: [{ alias: 'c', op: 'count', field: '*' }],
            groupBy: ['method'],
            order: [{ field: 'c', desc: true }],
            limit: 3,
        });
    });
    it(`${DS} | summarize c = count() by method | top 2 by method asc`, () => {
        const r = q(`${DS} | summarize c = count() by method | top 2 by method asc`);
        expect(r.order).toEqual([{ field: 'method', desc: false }]);
        expect(r.limit).toBe(2);
    });
});

describe('extend, project, sort, take', () => {
    it(`${DS} | extend kb = resp_body_size_bytes / 1024, slow = req_duration_ms > 100`, () => {
        expect(q(`${DS} | extend kb = resp_body_size_bytes / 1024, slow = req_duration_ms > 100`).virtualFields).toEqual([
            { alias: 'kb', expr: 'resp_body_size_bytes / 1024' },
            { alias: 'slow', expr: 'req_duration_ms > 100' },
        ]);
    });
    it(`${DS} | extend success = toint(status) < 400 | where success | summarize event_count = count() by success`, () => {
        const r = q(`${DS} | extend success = toint(status) < 400 | where success | summarize event_count = count() by success`);
        expect(r.virtualFields).toEqual([{ alias: 'success', expr: 'toint(status) < 400' }]);
        expect(r.filter).toEqual({ op: '==', field: 'success', value: true, caseSensitive: true });
        expect(r.groupBy).toEqual(['success']);
    });
    it(`${DS} | project _time, uri, ip = ['geo.city']`, () => {
        expect(q(`${DS} | project _time, uri, ip = ['geo.city']`).project).toEqual([{ field: '_time' }, { field: 'uri' }, { field: 'geo.city', alias: 'ip' }]);
    });
    it(`${DS} | project uri, kb = resp_body_size_bytes / 1024`, () => {
        const r = q(`${DS} | project uri, kb = resp_body_size_bytes / 1024`);
        expect(r.project).toEqual([{ field: 'uri' }, { field: 'kb' }]);
        expect(r.virtualFields).toEqual([{ alias: 'kb', expr: 'resp_body_size_bytes / 1024' }]);
    });
    it(`${DS} | sort by _time asc, status`, () => {
        expect(q(`${DS} | sort by _time asc, status`).order).toEqual([{ field: '_time', desc: false }, { field: 'status', desc: true }]);
    });
    it(`${DS} | order by req_duration_ms desc`, () => {
        expect(q(`${DS} | order by req_duration_ms desc`).order).toEqual([{ field: 'req_duration_ms', desc: true }]);
    });
    it(`${DS} | top 5 by req_duration_ms`, () => {
        const r = q(`${DS} | top 5 by req_duration_ms`);
        expect(r.order).toEqual([{ field: 'req_duration_ms', desc: true }]);
        expect(r.limit).toBe(5);
    });
    it(`${DS} | take 10`, () => {
        expect(q(`${DS} | take 10`).limit).toBe(10);
    });
    it(`${DS} | limit 10 | take 3 | limit 7`, () => {
        expect(q(`${DS} | limit 10 | take 3 | limit 7`).limit).toBe(3);
    });
    it(`${DS} | sort by _time desc | where status == '500' | extend x = 1 | take 5`, () => {
        const r = q(`${DS} | sort by _time desc | where status == '500' | extend x = 1 | take 5`);
        expect(r.order).toEqual([{ field: '_time', desc: true }]);
        expect(r.filter?.op).toBe('==');
        expect(r.virtualFields).toEqual([{ alias: 'x', expr: '1' }]);
    });
    it(`${DS} | project c = ['geo.city'], uri | sort by c asc | take 4`, () => {
        const r = q(`${DS} | project c = ['geo.city'], uri | sort by c asc | take 4`);
        expect(r.order).toEqual([{ field: 'geo.city', desc: false }]);
        expect(r.limit).toBe(4);
    });
    it(`${DS} | take 5 | project uri`, () => {
        const r = q(`${DS} | take 5 | project uri`);
        expect(r.limit).toBe(5);
        expect(r.project).toEqual([{ field: 'uri' }]);
    });
    it('the go integration test query', () => {
        const r = q(
            `${DS} | extend success = toint(status) < 400 | where isnotnull(status) and uri contains 'GET' | summarize event_count = count() by success, id | sort by success desc, id asc`,
        );
        expect(r.virtualFields).toEqual([{ alias: 'success', expr: 'toint(status) < 400' }]);
        expect(r.order).toEqual([{ field: 'success', desc: true }, { field: 'id', desc: false }]);
        expect(r.aggregations).toEqual([{ alias: 'event_count', op: 'count', field: '*' }]);
    });
});

/**
 * [APL, message, construct, range]. The range is given as the text it covers (its first occurrence, or
 * [text, n] for the n-th, 0-based), or as [startLine, startChar, endLine, endChar].
 */
const REFUSED: [string, string, string, string | [string, number] | [number, number, number, number]][] = [
    [`${DS} | join (['other']) on id`, "join has no legacy form", "join", "join (['other']) on id"],
    [`${DS} | lookup (['other']) on id`, "lookup has no legacy form", "lookup", "lookup (['other']) on id"],
    [`${DS} | union ['other']`, "union has no legacy form", "union", "union ['other']"],
    [`${DS} | mv-expand tags`, "mv-expand has no legacy form", "mv-expand", "mv-expand tags"],
    [`${DS} | parse uri with '/api/' rest`, "parse has no legacy form", "parse", "parse uri with '/api/' rest"],
    [`${DS} | parse-kv message as (a) with (pair_delimiter=';')`, "parse-kv has no legacy form", "parse-kv", "parse-kv message as (a) with (pair_delimiter=';')"],
    [`${DS} | make-series count() on _time step 1h`, "make-series has no legacy form", "make-series", "make-series count() on _time step 1h"],
    [`${DS} | distinct status`, "distinct has no legacy form", "distinct", "distinct status"],
    [`${DS} | project-away uri`, "project-away has no legacy form", "project-away", "project-away uri"],
    [`${DS} | project-rename u = uri`, "project-rename has no legacy form", "project-rename", "project-rename u = uri"],
    [`${DS} | extend-valid x = uri`, "extend-valid has no legacy form", "extend-valid", "extend-valid x = uri"],
    [`${DS} | sample 0.5`, "sample has no legacy form", "sample", "sample 0.5"],
    [`${DS} | getschema`, "getschema has no legacy form", "getschema", "getschema"],
    [`${DS} | redact 'x'`, "redact has no legacy form", "redact", "redact 'x'"],
    [`${DS} | search 'x'`, "search has no legacy form", "search", "search 'x'"],
    ["union a, b", "union has no legacy form", "union", "union a, b"],
    ["let t = 1;\nT | take 1", "let statements have no legacy form", "let", "let t = 1"],
    ["set x = 1;\nT", "set statements have no legacy form", "set", "set x = 1"],
    ["print x = 1", "print has no legacy form: the source must be a single dataset", "print", "print x = 1"],
    ["datatable(a:long)[1]", "datatable has no legacy form: the source must be a single dataset", "datatable", "datatable(a:long)[1]"],
    ["table('x') | take 1", "table() has no legacy form: the source must be a single dataset", "table()", "table('x')"],
    ["T | take 1;\nU | take 1", "a legacy query holds a single query statement", "several queries", "U | take 1"],
    [`${DS} | where uri has 'api'`, "'has' has no legacy form", "has", "uri has 'api'"],
    [`${DS} | where uri hasprefix 'api'`, "'hasprefix' has no legacy form", "hasprefix", "uri hasprefix 'api'"],
    [`${DS} | where status has_any ('a')`, "'has_any' has no legacy form", "has_any", "status has_any ('a')"],
    [`${DS} | where strlen(uri) > 5`, "'strlen(uri) > 5' has no legacy filter form: one side must be a field", "strlen(uri) > 5", "strlen(uri) > 5"],
    [`${DS} | where isnotnull(strlen(uri))`, "'strlen(uri)' is not a field; isnotnull() applies to a field in a legacy filter", "strlen(uri)", "strlen(uri)"],
    [`${DS} | where ago(1h) < _time`, "'ago(1h)' is not a constant; a legacy filter compares a field with a constant", "ago(1h)", "ago(1h)"],
    [`${DS} | where startswith_x(uri)`, "startswith_x() has no legacy filter form", "startswith_x()", "startswith_x(uri)"],
    [`${DS} | where status == method`, "comparing two fields ('status == method') has no legacy filter form", "field comparison", "status == method"],
    [`${DS} | where status == null`, "comparison with null has no legacy form; use isnull() or isnotnull()", "null", "null"],
    [`${DS} | where req_duration_ms > 1s`, "timespan values have no legacy form", "timespan", "1s"],
    [`${DS} | where uri contains 5`, "'contains' has a legacy form only with a string constant on the right", "contains", "5"],
    [`${DS} | where true`, "a constant predicate has no legacy form", "constant predicate", "true"],
    [`${DS} | where * has 'x'`, "'has' has no legacy form", "has", "* has 'x'"],
    [`${DS} | where uri:'x'`, "the search term operator ':' has no legacy form", ":", "uri:'x'"],
    [`${DS} | where id == datetime(2024-01-01)`, "a datetime comparison on 'id' has no legacy form (only _time and _sysTime compare with datetimes)", "datetime", "datetime(2024-01-01)"],
    [`${DS} | summarize count() | where count_ > 1`, "where after summarize has no legacy form", "where", "where count_ > 1"],
    [`${DS} | take 5 | where status == '1'`, "where after take has no legacy form", "where", "where status == '1'"],
    [`${DS} | project uri | where uri == '1'`, "where after project has no legacy form", "where", "where uri == '1'"],
    [`${DS} | summarize count() | extend x = 1`, "extend after summarize has no legacy form", "extend", "extend x = 1"],
    [`${DS} | project uri | extend x = 1`, "extend after project has no legacy form", "extend", "extend x = 1"],
    [`${DS} | summarize count() | project count_`, "project after summarize has no legacy form", "project", "project count_"],
    [`${DS} | project uri | project uri`, "project after project has no legacy form", "project", ["project uri", 1]],
    [`${DS} | take 5 | summarize count()`, "summarize after take has no legacy form", "summarize", "summarize count()"],
    [`${DS} | sort by uri | summarize count()`, "summarize after sort has no legacy form", "summarize", "summarize count()"],
    [`${DS} | project uri | summarize count()`, "summarize after project has no legacy form", "summarize", "summarize count()"],
    [`${DS} | summarize count() | summarize count()`, "a second summarize (summarize after summarize) has no legacy form", "summarize", ["summarize count()", 1]],
    [`${DS} | take 5 | sort by uri`, "sort after take has no legacy form", "sort", "sort by uri"],
    [`${DS} | sort by uri | sort by id`, "a second sort (sort after sort) has no legacy form", "sort", "sort by id"],
    [`${DS} | sort by strlen(uri)`, "sorting by an expression ('strlen(uri)') has no legacy form; sort by a field", "sort", "strlen(uri)"],
    [`${DS} | sort by uri asc nulls first`, "'nulls first' has no legacy form", "nulls first", "uri asc nulls first"],
    [`${DS} | summarize c = count() by method | sort by uri`, "'uri' is not a column of the summarize; sorting by it has no legacy form", "sort", "uri"],
    [`${DS} | project u = uri | sort by uri`, "'uri' is not a projected column", "sort", ["uri", 1]],
    [`${DS} | take 0`, "take 0 has no legacy form (a legacy limit of 0 means the default)", "take", "0"],
    [`${DS} | take 60000`, "take 60000 exceeds the legacy maximum limit of 50000", "take", "60000"],
    [`${DS} | take x`, "take needs a non-negative integer constant in a legacy query", "take", "x"],
    [`${DS} | where status == '1' | extend status = 'x'`, "'status' is redefined after an earlier where or sort reads it; this has no legacy form", "extend", "status = 'x'"],
    [`${DS} | sort by uri | extend uri = 'x'`, "'uri' is redefined after an earlier where or sort reads it; this has no legacy form", "extend", "uri = 'x'"],
    [`${DS} | extend strlen(uri)`, "an extend column without a name has no legacy form", "extend", "strlen(uri)"],
    [`${DS} | project strlen(uri)`, "a computed project column without a name ('strlen(uri)') has no legacy form", "project", "strlen(uri)"],
    [`${DS} | project a = 1, b = a + 1`, "'b' reads 'a', which the same project computes; this has no legacy form", "project", "b = a + 1"],
    [`${DS} | summarize by status`, "summarize without an aggregation has no legacy form", "summarize", "summarize by status"],
    [`${DS} | summarize sumif(resp_body_size_bytes, status == '200')`, "sumif() has no legacy form", "sumif()", "sumif(resp_body_size_bytes, status == '200')"],
    [`${DS} | summarize phrases(uri, 3)`, "phrases() has no legacy form", "phrases()", "phrases(uri, 3)"],
    [`${DS} | summarize avg(req_duration_ms * 2)`, "avg() of an expression ('req_duration_ms * 2') has no legacy form; aggregate a field", "avg()", "req_duration_ms * 2"],
    [`${DS} | summarize count() * 2`, "'count() * 2' is not a single aggregation call; it has no legacy form", "summarize", "count() * 2"],
    [`${DS} | summarize strlen(uri)`, "strlen() is not an aggregation", "strlen()", "strlen(uri)"],
    [`${DS} | summarize dcount(id, 2)`, "dcount()'s accuracy argument has no legacy form", "dcount()", "2"],
    [`${DS} | summarize make_set(id, 10)`, "make_set()'s size limit has no legacy form", "make_set()", "10"],
    [`${DS} | summarize topk(id, k)`, "topk()'s k must be a positive integer constant in a legacy query", "topk()'s k", ["k", 1]],
    [`${DS} | summarize count() by strlen(uri)`, "grouping by an expression ('strlen(uri)') has no legacy form; group by a field", "summarize by", "strlen(uri)"],
    [`${DS} | summarize count() by s = status`, "renaming a group key ('s = status') has no legacy form", "summarize by", "s = status"],
    [`${DS} | summarize count() by t = bin(_time, 1h)`, "naming the time bin 't' has no legacy form; it is always _time", "bin", "t = bin(_time, 1h)"],
    [`${DS} | summarize count() by bin(req_duration_ms, 10)`, "bin() of anything but _time has no legacy form", "bin", "req_duration_ms"],
    [`${DS} | summarize count() by bin(_time, x)`, "the bin size must be a positive timespan constant in a legacy query", "bin", "x"],
    [`${DS} | summarize count() by bin(_time, 1h), bin_auto(_time)`, "a second time bin has no legacy form", "bin", "bin_auto(_time)"],
    [`${DS} | summarize count(), count()`, "the column name 'count_' is used twice", "summarize", ["count()", 1]],
    [`${DS} | where`, "syntax error: expected an expression after 'where', found the end of the query", "syntax", [0, 28, 0, 28]],
];

/** The exact 0-based range of the n-th occurrence of `covered` in `text`. */
function rangeOfText(text: string, covered: string, n = 0) {
    let offset = -1;
    for (let i = 0; i <= n; i++) offset = text.indexOf(covered, offset + 1);
    expect(offset, `'${covered}' #${n} in ${text}`).toBeGreaterThanOrEqual(0);
    const at = (o: number) => {
        const before = text.slice(0, o).split('\n');
        return { line: before.length - 1, character: before[before.length - 1].length };
    };
    return { start: at(offset), end: at(offset + covered.length) };
}

describe('TranslationError', () => {
    for (const [apl, message, construct, where] of REFUSED) {
        it(apl, () => {
            let error: unknown;
            try {
                translate(apl, RANGE);
            } catch (e) {
                error = e;
            }
            expect(error).toBeInstanceOf(TranslationError);
            const te = error as TranslationError;
            const range =
                typeof where === 'string'
                    ? rangeOfText(apl, where)
                    : where.length === 2
                      ? rangeOfText(apl, where[0], where[1])
                      : { start: { line: where[0], character: where[1] }, end: { line: where[2], character: where[3] } };
            expect({ message: te.message, construct: te.construct, range: te.range }).toEqual({ message, construct, range });
        });
    }
});

describe('decompile', () => {
    it('writes the fixed legacy order', () => {
        const { query } = translate(
            `${DS} | extend kb = resp_body_size_bytes / 1024 | where method =~ 'get' | sort by kb asc | take 3 | project uri, k = kb`,
            RANGE,
        );
        expect(decompileLegacy('sample-http-logs', query).matches).toBe(
            [
                "['sample-http-logs']",
                "extend ['__legacy_time'] = _time, ['__legacy_systime'] = _sysTime, ['__legacy_rowid'] = cursor_current()",
                "extend ['kb'] = (resp_body_size_bytes / 1024)",
                "where ['method'] =~ \"get\"",
                "sort by ['kb'] asc",
                'take 3',
                "project ['uri'], ['k'] = ['kb'], ['__legacy_time'], ['__legacy_systime'], ['__legacy_rowid']",
            ].join('\n| '),
        );
    });
    it('writes totals and series for aggregations', () => {
        const { query } = translate(`${DS} | summarize c = count(), avg(req_duration_ms) by status, bin(_time, 1h) | sort by c desc | take 2`, RANGE);
        const d = decompileLegacy('sample-http-logs', query);
        expect(d.totals).toBe(
            "['sample-http-logs']\n| summarize ['c'] = count(), ['avg_req_duration_ms'] = avg(['req_duration_ms']) by ['status']\n| sort by ['c'] desc\n| take 2",
        );
        expect(d.series).toBe(
            "['sample-http-logs']\n| summarize ['c'] = count(), ['avg_req_duration_ms'] = avg(['req_duration_ms']) by ['status'], bin(_time, 1h)",
        );
        expect(d.binNs).toBe(3_600_000_000_000n);
    });
    it('un-aliased aggregations report the upper-cased op', () => {
        const d = decompileLegacy('ds', parseLegacyQuery({ ...RANGE, aggregations: [{ op: 'count', field: '*' }, { op: 'sum', field: 'a' }, { op: 'sum', field: 'b' }] }));
        expect(d.aggregations).toEqual([
            { column: 'COUNT', op: 'COUNT' },
            { column: 'SUM', op: 'SUM' },
            { column: 'SUM_1', op: 'SUM' },
        ]);
        // auto resolution over one day: 15m buckets
        expect(d.binNs).toBe(15n * 60_000_000_000n);
    });
    it('writes every filter op with its exact semantics', () => {
        const cases: [Filter, string][] = [
            [{ op: '==', field: 'a', value: 'x' }, `['a'] =~ "x"`],
            [{ op: '==', field: 'a', value: 'x', caseSensitive: true }, `['a'] == "x"`],
            [{ op: '==', field: 'a', value: 5 }, `['a'] == 5`],
            [{ op: '!=', field: 'a', value: 'x' }, `['a'] !~ "x"`],
            [{ op: '>', field: 'a', value: -2.5 }, `['a'] > (-2.5)`],
            [{ op: '<=', field: '_time', value: '2024-01-01T00:00:00Z' }, `['_time'] <= datetime(2024-01-01T00:00:00Z)`],
            [{ op: 'exists', field: 'a' }, `isnotnull(['a'])`],
            [{ op: 'not-exists', field: 'a' }, `isnull(['a'])`],
            [{ op: 'contains', field: 'a', value: 'x' }, `['a'] contains "x"`],
            [{ op: 'not-ends-with', field: 'a', value: 'x', caseSensitive: true }, `['a'] !endswith_cs "x"`],
            [{ op: 'regexp', field: 'a', value: '^x' }, `['a'] matches regex "^x"`],
            [{ op: 'not-regexp', field: 'a', value: '^x' }, `['a'] !matches regex "^x"`],
            [{ op: 'not', field: '', children: [{ op: 'exists', field: 'a' }, { op: 'exists', field: 'b' }] }, `not((isnotnull(['a'])) and (isnotnull(['b'])))`],
            [{ op: 'contains', field: "it's", value: 'say "hi"' }, `['it\\'s'] contains "say \\"hi\\""`],
        ];
        for (const [f, apl] of cases) expect(filterToApl(f)).toBe(apl);
    });
});
