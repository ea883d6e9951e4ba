/**
 * Property: for every translatable APL query, running it directly and running its legacy translation
 * (translate -> executeLegacy, which decompiles back to APL) give the same rows and aggregates.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../language/eval/engine.js';
import { generateSample } from '../../../language/samples/index.js';
import { translate } from '../../../language/legacy/translate.js';
import { executeLegacy, legacyExecutor, rowsOf } from '../../../language/legacy/execute.js';
import type { LegacyResult } from '../../../language/legacy/legacy-types.js';

const DS = 'sample-http-logs';
const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };

let engine: Engine;
beforeAll(() => {
    engine = createEngine({ clock: () => Date.parse('2024-01-03T00:00:00Z') });
    engine.ingest(DS, generateSample(DS, { rows: 1500, seed: 11, end: new Date(RANGE.endTime), days: 2 }));
});

// ------------------------------------------------------------------------------------- generators

const STRING_FIELDS = ['status', 'method', 'server_datacenter', 'content_type', "['geo.country']", 'uri'];
const WORDS = ["'200'", "'500'", "'404'", "'GET'", "'get'", "'POST'", "'FRA'", "'/api'", "'json'", "'Germany'", "'v1'", "'api'", "'text/html'", "''"];
const NUMERIC_FIELDS = ['req_duration_ms', 'resp_body_size_bytes', 'resp_header_size_bytes'];
const NUMBERS = ['0', '1', '2.5', '100', '250', '1000', '-1'];

const stringLeaf = fc
    .tuple(
        fc.constantFrom(...STRING_FIELDS),
        fc.constantFrom('==', '!=', '=~', '!~', 'contains', '!contains', 'contains_cs', '!contains_cs', 'startswith', '!startswith', 'startswith_cs', 'endswith', '!endswith_cs'),
        fc.constantFrom(...WORDS),
    )
    .map(([f, op, v]) => `${f} ${op} ${v}`);
const numericLeaf = fc
    .tuple(fc.constantFrom(...NUMERIC_FIELDS), fc.constantFrom('==', '!=', '>', '>=', '<', '<='), fc.constantFrom(...NUMBERS), fc.boolean())
    .map(([f, op, v, flip]) => (flip ? `${v} ${op} ${f}` : `${f} ${op} ${v}`));
const otherLeaf = fc.oneof(
    fc.constantFrom('is_tls', 'not(is_tls)', 'is_tls == false', 'isnotnull(status)', 'isnull(status)', 'isnotempty(uri)', 'isempty(message)'),
    fc.constantFrom("uri matches regex '^/api/v[12]/'", "uri !matches regex 'cart|buy'", "status in ('200', '201', '304')", "method !in ('GET')", "method in~ ('get', 'put')"),
    fc.tuple(fc.constantFrom(...NUMERIC_FIELDS), fc.constantFrom(...NUMBERS), fc.constantFrom(...NUMBERS), fc.constantFrom('between', '!between')).map(([f, a, b, op]) => `${f} ${op} (${a} .. ${b})`),
    fc.constantFrom('_time > datetime(2024-01-02T00:00:00Z)', '_time <= datetime(2024-01-01T12:30:00Z)'),
);
const leaf = fc.oneof(stringLeaf, numericLeaf, otherLeaf);
const predicate: fc.Arbitrary<string> = fc.letrec<{ p: string }>(tie => ({
    p: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('p'), fc.constantFrom('and', 'or'), tie('p')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
        tie('p').map(a => `not(${a})`),
    ),
})).p;

const AGGS = [
    'count()', 'c = count()', 'avg(req_duration_ms)', 'sum(resp_body_size_bytes)', 'min(req_duration_ms)', 'max(resp_header_size_bytes)',
    'dcount(uri)', "countif(status == '500')", "hits = countif(uri contains 'api')", 'make_set(method)', 'percentile(req_duration_ms, 90)',
    'percentiles_array(req_duration_ms, 50, 99)', 'topk(method, 2)', 'stdev(req_duration_ms)', 'variance(resp_body_size_bytes)',
    "dcountif(id, is_tls)", 'histogram(resp_header_size_bytes, 50)', 'rate(resp_body_size_bytes)',
];
const GROUPS = ['method', 'status', 'server_datacenter', 'is_tls'];

const prefix = fc.record({
    wheres: fc.array(predicate, { maxLength: 2 }),
    extend: fc.boolean(),
    whereOnExtend: fc.boolean(),
});

const matchesTail = fc.record({
    sort: fc.option(fc.tuple(fc.constantFrom('req_duration_ms', 'uri', 'status', '_time', 'kb'), fc.constantFrom('asc', 'desc', '')), { nil: undefined }),
    take: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    project: fc.option(fc.subarray(['uri', 'status', 'ip = id', 'req_duration_ms', 'city = geo.city', '_time', 'kb', 'twice = req_duration_ms * 2'], { minLength: 1 }), { nil: undefined }),
    projectFirst: fc.boolean(),
});

const summarizeTail = fc.record({
    aggs: fc.uniqueArray(fc.constantFrom(...AGGS), { minLength: 1, maxLength: 3, selector: a => a.replace(/^\w+ = /, '').split('(')[0] }),
    groups: fc.subarray(GROUPS, { maxLength: 2 }),
    bin: fc.constantFrom('', 'bin(_time, 6h)', 'bin_auto(_time)', '_time = bin(_time, 1d)'),
    sortTake: fc.option(fc.tuple(fc.constantFrom('asc', 'desc'), fc.integer({ min: 1, max: 5 })), { nil: undefined }),
});

function aliasOf(agg: string): string | undefined {
    const m = /^(\w+) = /.exec(agg);
    return m?.[1];
}

const query = fc.oneof(
    fc.tuple(prefix, matchesTail).map(([p, t]) => {
        const ops: string[] = [];
        if (p.extend) ops.push('extend kb = resp_body_size_bytes / 1024');
        for (const w of p.wheres) ops.push(`where ${w}`);
        if (p.extend && p.whereOnExtend) ops.push('where kb > 1');
        const sortField = t.sort && (t.sort[0] !== 'kb' || p.extend) ? t.sort : undefined;
        const project = t.project?.filter(c => c !== 'kb' || p.extend);
        const sortOp = sortField ? [`sort by ${sortField[0]} ${sortField[1]}, _time desc`.replace('by _time desc, _time desc', 'by _time desc')] : [];
        const takeOp = t.take ? [`take ${t.take}`] : [];
        const projectOp = project && project.length ? [`project ${project.join(', ')}`] : [];
        // A project first is only translatable when the sort reads projected columns.
        const projectFirst = t.projectFirst && projectOp.length > 0 && (!sortField || (project!.includes(sortField[0]) && project!.includes('_time')));
        if (projectFirst) ops.push(...projectOp, ...sortOp, ...takeOp);
        else ops.push(...sortOp, ...takeOp, ...projectOp);
        return `['${DS}']${ops.map(o => `\n| ${o}`).join('')}`;
    }),
    fc.tuple(prefix, summarizeTail).map(([p, t]) => {
        const ops: string[] = [];
        if (p.extend) ops.push('extend kb = resp_body_size_bytes / 1024');
        for (const w of p.wheres) ops.push(`where ${w}`);
        const by = [...t.groups, ...(t.bin ? [t.bin] : [])];
        ops.push(`summarize ${t.aggs.join(', ')}${by.length ? ` by ${by.join(', ')}` : ''}`);
        // The sort is on a count so that ties are broken by the group key, and only without a time bin.
        if (t.sortTake && !t.bin) {
            const countAlias = t.aggs.map(aliasOf).find(a => a === 'c') ?? (t.aggs.includes('count()') ? 'count_' : undefined);
            const keys = [...(countAlias ? [`${countAlias} ${t.sortTake[0]}`] : []), ...t.groups.map(g => `${g} asc`)];
            if (keys.length > 0) ops.push(`sort by ${keys.join(', ')}`, `take ${t.sortTake[1]}`);
        }
        return `['${DS}']${ops.map(o => `\n| ${o}`).join('')}`;
    }),
);

// ------------------------------------------------------------------------------------- comparison

type Row = Record<string, unknown>;

function clean(row: Row): Row {
    const out: Row = {};
    for (const [k, v] of Object.entries(row)) if (v !== null && v !== undefined && k !== '_sysTime') out[k] = v;
    return out;
}

function legacyMatchRows(result: LegacyResult, directHasTime: boolean): Row[] {
    return result.matches.map(m => clean({ ...(directHasTime ? { _time: m._time } : {}), ...m.data }));
}

function legacyGroupRows(result: LegacyResult, binned: boolean): Row[] {
    const row = (g: LegacyResult['buckets']['totals'][number], time?: string) =>
        clean({ ...(time ? { _time: time } : {}), ...g.group, ...Object.fromEntries(g.aggregations.map(a => [a.op, a.value])) });
    if (!binned) return result.buckets.totals.map(g => row(g));
    return result.buckets.series.flatMap(s => s.groups.map(g => row(g, s.startTime)));
}

const sortRows = (rows: Row[]) => rows.map(r => JSON.stringify(r, Object.keys(r).sort())).sort();

async function check(apl: string): Promise<void> {
    const direct = await engine.query(apl, RANGE);
    const directRows = rowsOf(direct).map(clean);
    const { dataset, query } = translate(apl, RANGE);
    const legacy = await executeLegacy(engine, dataset, query);
    if (!query.aggregations) {
        const hasTime = direct.tables[0].fields.some(f => f.name === '_time');
        expect(legacyMatchRows(legacy, hasTime), apl).toEqual(directRows);
        expect(legacy.matches.every(m => m._rowId !== '' && m._time !== '')).toBe(true);
        return;
    }
    const binned = /bin/.test(apl);
    const rows = legacyGroupRows(legacy, binned);
    if (query.order) expect(rows, apl).toEqual(directRows);
    else expect(sortRows(rows), apl).toEqual(sortRows(directRows));
}

describe('APL and its legacy translation give the same results', () => {
    const examples = [
        `['${DS}'] | where status == '500' | take 5`,
        `['${DS}'] | extend kb = resp_body_size_bytes / 1024 | where kb > 2 | sort by kb desc, _time desc | take 7 | project uri, kb`,
        `['${DS}'] | where method =~ 'post' and uri contains 'API' | summarize c = count(), avg(req_duration_ms) by status`,
        `['${DS}'] | summarize count(), percentile(req_duration_ms, 95) by method, bin(_time, 6h)`,
        `['${DS}'] | summarize c = count() by server_datacenter | sort by c desc, server_datacenter asc | take 2`,
        `['${DS}'] | where isnotempty(uri) and not(is_tls) | project c = geo.city, _time | sort by c asc, _time desc | take 10`,
        `['${DS}'] | summarize topk(status, 3), make_set(method), dcountif(id, status == '200')`,
    ];
    for (const apl of examples) it(apl, () => check(apl));

    it('holds for generated queries', async () => {
        await fc.assert(fc.asyncProperty(query, check), { numRuns: 100, seed: Number(process.env.LEGACY_SEED ?? 20240101) });
    }, 20_000);
});

describe('the engine legacy endpoint', () => {
    it('runs a go-style request body through setLegacyExecutor', async () => {
        engine.setLegacyExecutor(legacyExecutor as Parameters<Engine['setLegacyExecutor']>[0]);
        const result = (await engine.queryLegacy(DS, {
            ...RANGE,
            aggregations: [{ alias: 'event_count', op: 'count', field: '*', argument: null }],
            groupBy: ['success'],
            filter: { op: 'exists', field: 'status', value: null, caseSensitive: false, children: null },
            order: null,
            limit: 0,
            virtualFields: [{ alias: 'success', expr: 'toint(status) < 400' }],
            project: null,
            cursor: '',
            includeCursor: false,
            continuationToken: '',
            resolution: 'auto',
        })) as LegacyResult;
        const total = result.buckets.totals.reduce((n, g) => n + (g.aggregations[0].value as number), 0);
        expect(total).toBe(1500);
        expect(result.buckets.totals.map(g => g.aggregations[0].op)).toEqual(['event_count', 'event_count']);
        expect(result.buckets.series.length).toBeGreaterThan(90);
    });

    it('pages ascending with an exclusive cursor (axiom stream)', async () => {
        const base = { ...RANGE, order: [{ field: '_time', desc: false }], limit: 20 };
        const first = await executeLegacy(engine, DS, { ...base, resolution: 'auto' });
        expect(first.matches).toHaveLength(20);
        const cursor = first.matches[19]._rowId;
        const next = await executeLegacy(engine, DS, { ...base, resolution: 'auto', cursor });
        expect(next.matches[0]._time > first.matches[19]._time).toBe(true);
        expect(next.matches.map(m => m._rowId)).not.toContain(cursor);
        const inclusive = await executeLegacy(engine, DS, { ...base, resolution: 'auto', cursor, includeCursor: true });
        expect(inclusive.matches[0]._rowId).toBe(cursor);
    });
});
