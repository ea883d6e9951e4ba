import { describe, expect, it } from 'vitest';
import { AplQueryError, createEngine, ExternalDataError } from '../../../language/eval/engine.js';
import { logsEngine, rows } from './helpers.js';

const engine = logsEngine();

/** [APL, expected rows] — the test name is the APL input. */
const GOLDEN: [string, unknown[]][] = [
    // where / project / extend
    ["['logs'] | where status == '500' | project uri", [{ uri: '/api/v1/orders' }]],
    ["['logs'] | where dur > 50 | project uri, dur", [{ uri: '/API/V1/Orders', dur: 99.5 }, { uri: '/api/v1/orders', dur: 250 }]],
    ["['logs'] | where isnull(dur) | project uri", [{ uri: '/api/v1/users/42' }]],
    ["['logs'] | where geo.city == 'Paris' | project geo.city, method", [{ 'geo.city': 'Paris', method: 'PUT' }, { 'geo.city': 'Paris', method: 'POST' }]],
    ["['logs'] | where ['geo.country'] == 'Germany' | count", [{ count: 3 }]],
    ["['logs'] | extend kb = size / 1024 | where kb >= 4 | project kb", [{ kb: 29 }, { kb: 4 }, { kb: 20 }]],
    ["['logs'] | extend-valid dur = dur * 2 | project dur", [{ dur: 199 }, { dur: null }, { dur: 80 }, { dur: 6.5 }, { dur: 500 }, { dur: 25 }]],
    ["['logs'] | project-away _time, _sysTime, tags, geo* | take 1", [{ dur: 99.5, method: 'PUT', ok: false, size: 30000, status: '503', uri: '/API/V1/Orders' }]],
    ["['logs'] | project-keep method, ['geo.']* | take 1", [{ 'geo.city': 'Paris', 'geo.country': 'France', method: 'PUT' }]],
    ["['logs'] | project-rename verb = method | project verb | take 2", [{ verb: 'PUT' }, { verb: 'DELETE' }]],
    ["['logs'] | project method, status | project-reorder status | take 1", [{ status: '503', method: 'PUT' }]],
    // sort / take / top
    ["['logs'] | sort by size | project size", [{ size: 30000 }, { size: 20480 }, { size: 4096 }, { size: 1024 }, { size: 512 }, { size: 0 }]],
    ["['logs'] | order by dur asc | project dur", [{ dur: null }, { dur: 3.25 }, { dur: 12.5 }, { dur: 40 }, { dur: 99.5 }, { dur: 250 }]],
    ["['logs'] | sort by method asc, size desc | project method, size", [
        { method: 'DELETE', size: 0 }, { method: 'GET', size: 4096 }, { method: 'GET', size: 1024 }, { method: 'GET', size: 512 }, { method: 'POST', size: 20480 }, { method: 'PUT', size: 30000 },
    ]],
    ["['logs'] | take 2 | project status", [{ status: '503' }, { status: '200' }]],
    ["['logs'] | limit 1 | project method", [{ method: 'PUT' }]],
    ["['logs'] | top 2 by dur | project dur", [{ dur: 250 }, { dur: 99.5 }]],
    ["['logs'] | top 2 by dur asc | project dur", [{ dur: null }, { dur: 3.25 }]],
    // count / distinct / summarize
    ["['logs'] | count", [{ count: 6 }]],
    ["['logs'] | distinct method | sort by method asc", [{ method: 'DELETE' }, { method: 'GET' }, { method: 'POST' }, { method: 'PUT' }]],
    ["['logs'] | summarize count() by method", [{ method: 'DELETE', count_: 1 }, { method: 'GET', count_: 3 }, { method: 'POST', count_: 1 }, { method: 'PUT', count_: 1 }]],
    ["['logs'] | summarize n = count(), total = sum(size), avg(dur), max(dur), min(dur) by geo.country", [
        { 'geo.country': 'France', n: 3, total: 50480, avg_dur: 174.75, max_dur: 250, min_dur: 99.5 },
        { 'geo.country': 'Germany', n: 3, total: 5632, avg_dur: 18.583333333333332, max_dur: 40, min_dur: 3.25 },
    ]],
    ["['logs'] | summarize count() by bin(_time, 1h)", [{ _time: '2024-05-01T10:00:00Z', count_: 3 }, { _time: '2024-05-01T11:00:00Z', count_: 3 }]],
    ["['logs'] | summarize dcount(method), countif(status == '200'), percentile(size, 50)", [{ dcount_method: 4, countif_: 3, percentile_size: 1024 }]],
    ["['logs'] | summarize make_set(method), make_list(status) by ok | where ok == true", [{ ok: true, make_set_method: ['GET'], make_list_status: ['200', '404', '200'] }]],
    ["['logs'] | summarize arg_max(size, uri) by method | where method == 'GET'", [{ method: 'GET', size: 4096, uri: '/api/v2/users_list' }]],
    ["['logs'] | summarize ratio = round(100.0 * countif(status != '200') / count(), 1)", [{ ratio: 50 }]],
    ["['logs'] | summarize topk(method, 1)", [{ topk_method: [{ key: 'GET', count: 3, error: 0 }] }]],
    ["['logs'] | where method == 'nothing' | summarize count(), sum(size)", [{ count_: 0, sum_size: 0 }]],
    ["['logs'] | summarize by method, ok | count", [{ count: 4 }]],
    // §7.6: take after a time-binned summarize keeps the top groups in every bucket
    ["['logs'] | summarize count() by bin(_time, 1h), method | take 1", [
        { _time: '2024-05-01T10:00:00Z', method: 'GET', count_: 2 }, { _time: '2024-05-01T11:00:00Z', method: 'GET', count_: 1 },
    ]],
    // parse
    ["['logs'] | parse uri with '/api/' version '/' rest | where isnotempty(version) | project version, rest | take 2", [{ version: 'v1', rest: 'users/42' }, { version: 'v2', rest: 'users_list' }]],
    ["['logs'] | parse-where uri with '/api/' version:string '/' * | project version", [{ version: 'v1' }, { version: 'v2' }, { version: 'v1' }, { version: 'v1' }]],
    ["['logs'] | parse kind=regex uri with @'/api/v' ver:long '/' | where isnotnull(ver) | summarize count() by ver", [{ ver: 1, count_: 3 }, { ver: 2, count_: 1 }]],
    ["datatable(s:string)['a=1;b=x'] | parse-kv s as (a:long, b:string) with (pair_delimiter=';', kv_delimiter='=')", [{ s: 'a=1;b=x', a: 1, b: 'x' }]],
    // mv-expand, make-series
    ["['logs'] | mv-expand tags | where isnotnull(tags) | project tags", [{ tags: 'c' }, { tags: 'a' }, { tags: 'b' }]],
    ["datatable(a:dynamic)[dynamic([1,2]), dynamic([3])] | mv-expand with_itemindex=i a to typeof(long)", [{ a: 1, i: 0 }, { a: 2, i: 1 }, { a: 3, i: 0 }]],
    ["['logs'] | make-series n = count() default = 0 on _time from datetime(2024-05-01T10:00:00Z) to datetime(2024-05-01T12:00:00Z) step 30m by ok | where ok == false", [
        { ok: false, n: [1, 0, 0, 1], _time: ['2024-05-01T10:00:00Z', '2024-05-01T10:30:00Z', '2024-05-01T11:00:00Z', '2024-05-01T11:30:00Z'] },
    ]],
    // join / lookup / union
    ["datatable(k:string, a:long)['x', 1, 'y', 2] | join kind=inner (datatable(k:string, b:long)['x', 10, 'x', 11, 'z', 3]) on k", [{ k: 'x', a: 1, k1: 'x', b: 10 }, { k: 'x', a: 1, k1: 'x', b: 11 }]],
    ["datatable(k:string, a:long)['x', 1, 'y', 2] | join kind=leftouter (datatable(k2:string, b:long)['x', 10]) on $left.k == $right.k2", [{ k: 'x', a: 1, k2: 'x', b: 10 }, { k: 'y', a: 2, k2: null, b: null }]],
    ["datatable(k:string, a:long)['x', 1, 'x', 2] | join (datatable(k:string, b:long)['x', 10]) on k", [{ k: 'x', a: 1, k1: 'x', b: 10 }]],
    ["datatable(k:string)['x', 'y'] | join kind=leftanti (datatable(k:string)['x']) on k", [{ k: 'y' }]],
    ["datatable(k:string)['x', 'y'] | join kind=rightanti (datatable(k:string)['x', 'z']) on k", [{ k: 'z' }]],
    ["datatable(k:string)['x', 'y'] | join kind=fullouter (datatable(k:string)['x', 'z']) on k | count", [{ count: 3 }]],
    ["let countries = datatable(code:string, name:string)['DE', 'Germany', 'FR', 'France']; datatable(code:string, n:long)['FR', 1, 'US', 2] | lookup countries on code", [{ code: 'FR', n: 1, name: 'France' }, { code: 'US', n: 2, name: null }]],
    ["union (datatable(a:long)[1]), (datatable(a:long, b:string)[2, 'x'])", [{ a: 1, b: null }, { a: 2, b: 'x' }]],
    ["datatable(a:long)[1] | union withsource=src (datatable(a:real)[2.5])", [{ src: '', a: 1 }, { src: '', a: 2.5 }]],
    ["union withsource=ds logs* | summarize count() by ds", [{ ds: 'logs', count_: 6 }]],
    // search
    ["search 'orders' | project uri", [{ uri: '/API/V1/Orders' }, { uri: '/api/v1/orders' }]],
    ["['logs'] | search method:'get' and 'users' | project uri", [{ uri: '/api/v2/users_list' }, { uri: '/api/v1/users' }]],
    ["['logs'] | search 'user*' | count", [{ count: 3 }]],
    ["['logs'] | search kind=case_sensitive 'API' | project uri", [{ uri: '/API/V1/Orders' }]],
    ["['logs'] | where * has 'Lyon' | project method", [{ method: 'DELETE' }]],
    // getschema, sample, redact, print, datatable, let, declare, table()
    ["datatable(a:long, b:string)[1, 'x'] | getschema", [
        { ColumnName: 'a', ColumnOrdinal: 0, DataType: 'System.Int64', ColumnType: 'long' },
        { ColumnName: 'b', ColumnOrdinal: 1, DataType: 'System.String', ColumnType: 'string' },
    ]],
    ["['logs'] | sample 1.0 | count", [{ count: 6 }]],
    ["['logs'] | sample 0 | count", [{ count: 0 }]],
    ["datatable(s:string)['call 555-1234 now'] | redact @'\\d{3}-\\d{4}'", [{ s: 'call ******** now' }]],
    ["datatable(s:string)['call 555-1234 now'] | redact replaceToken='[x]' @'\\d+'", [{ s: 'call [x]-[x] now' }]],
    ['print a = 1, b = "x", 2 + 3', [{ a: 1, b: 'x', print_2: 5 }]],
    ["let n = 2; let t = datatable(x:long)[1, 2, 3]; t | where x >= n | count", [{ count: 2 }]],
    ["declare query_parameters(lim:long = 3); ['logs'] | take lim | count", [{ count: 3 }]],
    ["let name = 'logs'; table(name) | count", [{ count: 6 }]],
    ["set stricttypes; print x = 1", [{ x: 1 }]],
];

describe('tabular operators (golden)', () => {
    for (const [apl, expected] of GOLDEN) {
        it(apl, async () => {
            expect(await rows(engine, apl)).toEqual(expected);
        });
    }

    it("['logs'] | sample 0.5 (deterministic with a seed)", async () => {
        const a = await rows(engine, "['logs'] | sample 0.5 | project uri", { seed: 42 });
        const b = await rows(engine, "['logs'] | sample 0.5 | project uri", { seed: 42 });
        expect(a).toEqual(b);
        expect(a.length).toBeLessThan(6);
    });

    it('declare query_parameters(m:string = "GET"); [\'logs\'] | where method == m | count (value passed in)', async () => {
        const q = 'declare query_parameters(m:string = "GET"); [\'logs\'] | where method == m | count';
        expect(await rows(engine, q)).toEqual([{ count: 3 }]);
        expect(await rows(engine, q, { variables: { m: 'POST' } })).toEqual([{ count: 1 }]);
    });

    it("externaldata (name:string, n:long) ['data.csv'] (read through the injected reader)", async () => {
        const files: Record<string, string> = { 'data.csv': 'name,n\nx,1\ny,2\n' };
        const read = (uri: string) => {
            if (!(uri in files)) throw new ExternalDataError(`cannot read '${uri}'`);
            return files[uri];
        };
        const e = createEngine({ externalData: { read } });
        const r = await rows(e, "externaldata (name:string, n:long) ['data.csv'] with (format='csv', ignoreFirstRecord=true) | where n > 1");
        expect(r).toEqual([{ name: 'y', n: 2 }]);
        const err = await e.query("externaldata (a:string) ['nope.csv']").catch(x => x);
        expect(err).toBeInstanceOf(AplQueryError);
        expect(err.message).toContain("cannot read 'nope.csv'");
        expect(err.column).toBe(25);
    });

    for (const source of ['/etc/passwd', 'tokens.json', '/proc/self/environ', '/dev/zero', 'https://example.com/x.csv']) {
        it(`externaldata (a:string) ['${source}'] without a reader: refused before anything is read`, async () => {
            const err = await createEngine().query(`externaldata (a:string) ['${source}']`).catch(x => x);
            expect(err).toBeInstanceOf(AplQueryError);
            expect(err.kind).toBe('unsupported');
            expect(err.detail).toBe('externaldata is not available here: this engine reads no files or URLs');
            expect([err.line, err.column]).toEqual([1, 25]);
        });
    }
});

describe('errors name the construct and its position', () => {
    const cases: [string, RegExp, number, number][] = [
        ["['logs'] | where nope == 1", /unknown field or variable 'nope'/, 1, 18],
        ["['nope'] | count", /unknown dataset or table 'nope'/, 1, 1],
        ["['logs']\n| extend x = no_such_fn(1)", /unknown function 'no_such_fn'/, 2, 14],
        ["['logs'] | where", /syntax error/, 1, 17],
        ["['logs'] | extend x = count()", /aggregation 'count'/, 1, 23],
        ["['logs'] | summarize spotlight(status == '500', method)", /does not support the aggregation 'spotlight'/, 1, 22],
        ["print geo_info_from_ip_address('1.2.3.4')", /does not support the function 'geo_info_from_ip_address'/, 1, 7],
        ["['logs'] | extend x = uri + 1", /cannot be applied to string and long/, 1, 23],
    ];
    for (const [apl, re, line, column] of cases) {
        it(apl, async () => {
            const err = await engine.query(apl).catch(x => x);
            expect(err).toBeInstanceOf(AplQueryError);
            expect(err.message).toMatch(re);
            expect([err.line, err.column]).toEqual([line, column]);
        });
    }
});
