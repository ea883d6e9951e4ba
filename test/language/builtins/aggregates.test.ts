/**
 * Golden cases for the aggregation accumulators. Each case is an APL query over a small datatable
 * (the test name); `rows` are the evaluated aggregation arguments per row. Every case is also run
 * split in two partial states joined with `merge`, which must give the same result.
 */
import { describe, expect, it } from 'vitest';
import { AGGREGATES } from '../../../language/builtins/aggregates.js';
import type { AggregateFunction, EvalContext } from '../../../language/builtins/catalogue-types.js';
import type { AplType } from '../../../language/types/apl-types.js';
import { Datetime, NS_PER_HOUR, NS_PER_MINUTE, NS_PER_SECOND, Timespan, type AplValue } from '../../../language/values.js';

function agg(name: string): AggregateFunction {
    const a = AGGREGATES.find(e => e.name === name);
    if (!a) throw new Error(`no aggregate ${name}`);
    return a;
}

function ctxFor(a: AggregateFunction, argTypes: AplType[], extra: Partial<EvalContext> = {}): EvalContext {
    const resultType = typeof a.returns === 'function' ? a.returns(argTypes) : a.returns;
    return { argTypes, resultType, now: 0n, ...extra };
}

function runAll(a: AggregateFunction, rows: AplValue[][], ctx: EvalContext): AplValue {
    const acc = a.accumulator!;
    let s = acc.init();
    for (const r of rows) s = acc.add(s, r);
    return acc.result(s, ctx);
}

function runSplit(a: AggregateFunction, rows: AplValue[][], ctx: EvalContext): AplValue {
    const acc = a.accumulator!;
    const half = Math.floor(rows.length / 2);
    let s1 = acc.init();
    for (const r of rows.slice(0, half)) s1 = acc.add(s1, r);
    let s2 = acc.init();
    for (const r of rows.slice(half)) s2 = acc.add(s2, r);
    return acc.result(acc.merge!(s1, s2), ctx);
}

/** Deep comparison with numbers to 9 decimal places. */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
    if (typeof expected === 'number') {
        expect(typeof actual, path).toBe('number');
        expect(actual as number, path).toBeCloseTo(expected, 9);
    } else if (Array.isArray(expected)) {
        expect(Array.isArray(actual), path).toBe(true);
        expect((actual as unknown[]).length, `${path}.length`).toBe(expected.length);
        expected.forEach((e, i) => expectClose((actual as unknown[])[i], e, `${path}[${i}]`));
    } else if (expected instanceof Datetime || expected instanceof Timespan) {
        expect(actual, path).toBeInstanceOf(expected.constructor);
        expect((actual as Datetime).ns, path).toBe(expected.ns);
    } else if (expected !== null && typeof expected === 'object') {
        expect(Object.keys(actual as object).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
        for (const [k, v] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    } else {
        expect(actual, path).toEqual(expected);
    }
}

interface Case {
    apl: string;
    rows: AplValue[][];
    expected: unknown;
    argTypes?: AplType[];
    ctx?: Partial<EvalContext>;
}

function cases(name: string, list: Case[]): void {
    describe(name, () => {
        const a = agg(name);
        for (const c of list) {
            it(c.apl, () => {
                const ctx = ctxFor(a, c.argTypes ?? ['long'], c.ctx);
                expectClose(runAll(a, c.rows, ctx), c.expected);
                if (a.accumulator!.merge) expectClose(runSplit(a, c.rows, ctx), c.expected);
            });
        }
    });
}

const col = (...xs: AplValue[]) => xs.map(x => [x]);
const dt = (iso: string) => new Datetime(BigInt(Date.parse(iso)) * 1_000_000n);

cases('count', [
    { apl: 'datatable(x: long)[1, 2, long(null)] | summarize count()', rows: [[], [], []], expected: 3 },
    { apl: 'datatable(x: long)[] | summarize count()', rows: [], expected: 0 },
]);

cases('countif', [
    { apl: 'datatable(p: bool)[true, false, true, bool(null)] | summarize countif(p)', rows: col(true, false, true, null), expected: 2 },
    { apl: 'datatable(p: bool)[] | summarize countif(p)', rows: [], expected: 0 },
]);

cases('sum', [
    { apl: 'datatable(x: long)[1, 2, 3] | summarize sum(x)', rows: col(1, 2, 3), expected: 6 },
    { apl: 'datatable(x: long)[1, long(null), 3] | summarize sum(x)', rows: col(1, null, 3), expected: 4 },
    { apl: 'datatable(x: real)[0.5, 0.25] | summarize sum(x)', rows: col(0.5, 0.25), expected: 0.75, argTypes: ['real'] },
    { apl: 'datatable(x: long)[] | summarize sum(x)', rows: [], expected: 0 },
    { apl: 'datatable(x: long)[9007199254740991, 2, -2] | summarize sum(x)', rows: col(9007199254740991, 2, -2), expected: 9007199254740991 },
    { apl: 'datatable(x: long)[9007199254740991, 1] | summarize sum(x)', rows: col(Number.MAX_SAFE_INTEGER, 1), expected: 9007199254740992 },
    {
        apl: 'range i from 1 to 1025 step 1 | extend x = 9007199254740991 | summarize sum(x)  // wraps at 64 bits',
        rows: Array.from({ length: 1025 }, () => [Number.MAX_SAFE_INTEGER]),
        expected: Number(BigInt.asIntN(64, 1025n * 9007199254740991n)),
    },
    { apl: 'datatable(d: timespan)[1m, 30s] | summarize sum(d)', rows: col(new Timespan(NS_PER_MINUTE), new Timespan(30n * NS_PER_SECOND)), expected: new Timespan(90n * NS_PER_SECOND), argTypes: ['timespan'] },
]);

cases('sumif', [
    { apl: 'datatable(x: long, p: bool)[1, true, 2, false, 3, true] | summarize sumif(x, p)', rows: [[1, true], [2, false], [3, true]], expected: 4 },
    { apl: 'datatable(x: long, p: bool)[1, false] | summarize sumif(x, p)', rows: [[1, false]], expected: 0 },
]);

cases('avg', [
    { apl: 'datatable(x: long)[1, 2] | summarize avg(x)', rows: col(1, 2), expected: 1.5 },
    { apl: 'datatable(x: long)[1, long(null), 3] | summarize avg(x)', rows: col(1, null, 3), expected: 2 },
    { apl: 'datatable(x: long)[long(null)] | summarize avg(x)', rows: col(null), expected: null },
    { apl: 'datatable(d: timespan)[1s, 2s] | summarize avg(d)', rows: col(new Timespan(NS_PER_SECOND), new Timespan(2n * NS_PER_SECOND)), expected: new Timespan(1_500_000_000n), argTypes: ['timespan'] },
    {
        apl: 'datatable(t: datetime)[datetime(2024-01-01), datetime(2024-01-03)] | summarize avg(t)',
        rows: col(dt('2024-01-01T00:00:00Z'), dt('2024-01-03T00:00:00Z')),
        expected: dt('2024-01-02T00:00:00Z'),
        argTypes: ['datetime'],
    },
]);

cases('avgif', [
    { apl: 'datatable(x: long, p: bool)[1, true, 100, false, 3, true] | summarize avgif(x, p)', rows: [[1, true], [100, false], [3, true]], expected: 2 },
    { apl: 'datatable(x: long, p: bool)[1, false] | summarize avgif(x, p)', rows: [[1, false]], expected: null },
]);

cases('max', [
    { apl: 'datatable(x: long)[3, 7, long(null), 5] | summarize max(x)', rows: col(3, 7, null, 5), expected: 7 },
    { apl: "datatable(s: string)['b', 'é', 'a'] | summarize max(s)", rows: col('b', 'é', 'a'), expected: 'é', argTypes: ['string'] },
    {
        apl: 'datatable(t: datetime)[datetime(2024-01-01), datetime(2025-01-01)] | summarize max(t)',
        rows: col(dt('2024-01-01T00:00:00Z'), dt('2025-01-01T00:00:00Z')),
        expected: dt('2025-01-01T00:00:00Z'),
        argTypes: ['datetime'],
    },
    { apl: 'datatable(x: real)[1.5, real(nan), 0.5] | summarize max(x)', rows: col(1.5, NaN, 0.5), expected: 1.5, argTypes: ['real'] },
    { apl: 'datatable(x: long)[] | summarize max(x)', rows: [], expected: null },
]);

cases('maxif', [{ apl: 'datatable(x: long, p: bool)[3, true, 7, false] | summarize maxif(x, p)', rows: [[3, true], [7, false]], expected: 3 }]);

cases('min', [
    { apl: 'datatable(x: long)[3, 7, long(null), -5] | summarize min(x)', rows: col(3, 7, null, -5), expected: -5 },
    { apl: 'datatable(d: timespan)[1h, 1m] | summarize min(d)', rows: col(new Timespan(NS_PER_HOUR), new Timespan(NS_PER_MINUTE)), expected: new Timespan(NS_PER_MINUTE), argTypes: ['timespan'] },
    { apl: 'datatable(x: long)[long(null)] | summarize min(x)', rows: col(null), expected: null },
]);

cases('minif', [{ apl: 'datatable(x: long, p: bool)[3, false, 7, true] | summarize minif(x, p)', rows: [[3, false], [7, true]], expected: 7 }]);

cases('dcount', [
    { apl: "datatable(s: string)['a', 'b', 'a', string(null)] | summarize dcount(s)", rows: col('a', 'b', 'a', null), expected: 2, argTypes: ['string'] },
    { apl: 'datatable(d: dynamic)[dynamic(1), dynamic(1.0), dynamic("1")] | summarize dcount(d)', rows: col(1, 1.0, '1'), expected: 2, argTypes: ['dynamic'] },
    { apl: 'datatable(d: dynamic)[dynamic({"a":1,"b":2}), dynamic({"b":2,"a":1})] | summarize dcount(d)', rows: col({ a: 1, b: 2 }, { b: 2, a: 1 }), expected: 1, argTypes: ['dynamic'] },
    { apl: "datatable(s: string)['ü', 'u', 'ü'] | summarize dcount(s)", rows: col('ü', 'u', 'ü'), expected: 2, argTypes: ['string'] },
    { apl: 'datatable(x: long)[] | summarize dcount(x)', rows: [], expected: 0 },
]);

cases('dcountif', [{ apl: "datatable(s: string, p: bool)['a', true, 'b', false, 'c', true] | summarize dcountif(s, p)", rows: [['a', true], ['b', false], ['c', true]], expected: 2, argTypes: ['string', 'bool'] }]);

cases('make_list', [
    { apl: 'datatable(x: long)[1, long(null), 2, 1] | summarize make_list(x)', rows: col(1, null, 2, 1), expected: [1, 2, 1] },
    { apl: 'datatable(x: long)[1, 2, 3] | summarize make_list(x, 2)', rows: [[1, 2], [2, 2], [3, 2]], expected: [1, 2] },
    { apl: 'datatable(t: datetime)[datetime(2024-01-01)] | summarize make_list(t)', rows: col(dt('2024-01-01T00:00:00Z')), expected: ['2024-01-01T00:00:00Z'], argTypes: ['datetime'] },
    { apl: 'datatable(x: long)[] | summarize make_list(x)', rows: [], expected: [] },
]);

cases('make_list_if', [{ apl: 'datatable(x: long, p: bool)[1, true, 2, false, 3, true] | summarize make_list_if(x, p)', rows: [[1, true], [2, false], [3, true]], expected: [1, 3] }]);

cases('make_set', [
    { apl: "datatable(s: string)['a', 'b', 'a', string(null)] | summarize make_set(s)", rows: col('a', 'b', 'a', null), expected: ['a', 'b'], argTypes: ['string'] },
    { apl: 'datatable(x: long)[1, 2, 3, 4] | summarize make_set(x, 2)', rows: [[1, 2], [2, 2], [3, 2], [4, 2]], expected: [1, 2] },
    {
        apl: 'range x from 1 to 200 step 1 | summarize make_set(x)  // default limit 128',
        rows: col(...Array.from({ length: 200 }, (_, i) => i + 1)),
        expected: Array.from({ length: 128 }, (_, i) => i + 1),
    },
    { apl: 'datatable(d: dynamic)[dynamic([1]), dynamic([1]), dynamic([2])] | summarize make_set(d)', rows: col([1], [1], [2]), expected: [[1], [2]], argTypes: ['dynamic'] },
]);

cases('make_set_if', [
    { apl: "datatable(s: string, p: bool)['a', true, 'a', true, 'b', false] | summarize make_set_if(s, p)", rows: [['a', true], ['a', true], ['b', false]], expected: ['a'], argTypes: ['string', 'bool'] },
    { apl: 'range x from 1 to 200 step 1 | summarize make_set_if(x, true)  // default limit 1048576', rows: Array.from({ length: 200 }, (_, i) => [i + 1, true]), expected: Array.from({ length: 200 }, (_, i) => i + 1) },
]);

const ten = Array.from({ length: 10 }, (_, i) => i + 1);

cases('percentile', [
    { apl: 'range x from 1 to 10 step 1 | summarize percentile(x, 50)', rows: ten.map(x => [x, 50]), expected: 5 },
    { apl: 'range x from 1 to 10 step 1 | summarize percentile(x, 95)', rows: ten.map(x => [x, 95]), expected: 10 },
    { apl: 'range x from 1 to 10 step 1 | summarize percentile(x, 0)', rows: ten.map(x => [x, 0]), expected: 1 },
    { apl: 'range x from 1 to 10 step 1 | summarize percentile(x, 100)', rows: ten.map(x => [x, 100]), expected: 10 },
    { apl: 'range x from 1 to 20 step 1 | summarize percentile(x, 95)', rows: Array.from({ length: 20 }, (_, i) => [i + 1, 95]), expected: 19 },
    { apl: 'datatable(x: long)[5, long(null), 1] | summarize percentile(x, 50)', rows: [[5, 50], [null, 50], [1, 50]], expected: 1 },
    { apl: 'datatable(x: long)[long(null)] | summarize percentile(x, 50)', rows: [[null, 50]], expected: null },
    {
        apl: 'datatable(d: timespan)[1s, 3s, 2s] | summarize percentile(d, 50)',
        rows: [[new Timespan(NS_PER_SECOND), 50], [new Timespan(3n * NS_PER_SECOND), 50], [new Timespan(2n * NS_PER_SECOND), 50]],
        expected: new Timespan(2n * NS_PER_SECOND),
        argTypes: ['timespan', 'long'],
    },
]);

cases('percentileif', [{ apl: 'range x from 1 to 10 step 1 | summarize percentileif(x, 50, x > 4)', rows: ten.map(x => [x, 50, x > 4]), expected: 7 }]);

cases('percentiles_array', [
    { apl: 'range x from 1 to 10 step 1 | summarize percentiles_array(x, 50, 90, 100)', rows: ten.map(x => [x, 50, 90, 100]), expected: [5, 9, 10] },
    { apl: 'datatable(x: long)[] | summarize percentiles_array(x, 50, 90)', rows: [], expected: [] },
    { apl: 'datatable(x: long)[long(null)] | summarize percentiles_array(x, 50, 90)', rows: [[null, 50, 90]], expected: [null, null] },
]);

cases('percentiles_arrayif', [
    { apl: 'range x from 1 to 10 step 1 | summarize percentiles_arrayif(x, dynamic([50, 100]), x <= 4)', rows: ten.map(x => [x, [50, 100], x <= 4]), expected: [2, 4] },
]);

cases('stdev', [
    { apl: 'datatable(x: long)[2, 4, 4, 4, 5, 5, 7, 9] | summarize stdev(x)', rows: col(2, 4, 4, 4, 5, 5, 7, 9), expected: Math.sqrt(32 / 7) },
    { apl: 'datatable(x: long)[5] | summarize stdev(x)', rows: col(5), expected: 0 },
    { apl: 'datatable(x: long)[] | summarize stdev(x)', rows: [], expected: 0 },
    { apl: 'datatable(x: long)[1, long(null), 3] | summarize stdev(x)', rows: col(1, null, 3), expected: Math.SQRT2 },
]);

cases('stdevif', [{ apl: 'datatable(x: long, p: bool)[1, true, 100, false, 3, true] | summarize stdevif(x, p)', rows: [[1, true], [100, false], [3, true]], expected: Math.SQRT2 }]);

cases('variance', [
    { apl: 'datatable(x: long)[2, 4, 4, 4, 5, 5, 7, 9] | summarize variance(x)', rows: col(2, 4, 4, 4, 5, 5, 7, 9), expected: 32 / 7 },
    { apl: 'datatable(x: real)[1e9 + 1, 1e9 + 2, 1e9 + 3] | summarize variance(x)', rows: col(1e9 + 1, 1e9 + 2, 1e9 + 3), expected: 1, argTypes: ['real'] },
]);

cases('varianceif', [{ apl: 'datatable(x: long, p: bool)[1, true, 100, false, 3, true] | summarize varianceif(x, p)', rows: [[1, true], [100, false], [3, true]], expected: 2 }]);

cases('topk', [
    {
        apl: "datatable(s: string)['a', 'b', 'a', 'c', 'b', 'a', string(null)] | summarize topk(s, 2)",
        rows: ['a', 'b', 'a', 'c', 'b', 'a', null].map(s => [s, 2]),
        expected: [
            { key: 'a', count: 3, error: 0 },
            { key: 'b', count: 2, error: 0 },
        ],
        argTypes: ['string', 'long'],
    },
    {
        apl: "datatable(s: string)['z', 'y', 'x'] | summarize topk(s, 5)  // ties sorted by key",
        rows: ['z', 'y', 'x'].map(s => [s, 5]),
        expected: [
            { key: 'x', count: 1, error: 0 },
            { key: 'y', count: 1, error: 0 },
            { key: 'z', count: 1, error: 0 },
        ],
        argTypes: ['string', 'long'],
    },
    { apl: 'datatable(x: long)[] | summarize topk(x, 3)', rows: [], expected: [] },
]);

cases('topkif', [
    {
        apl: "datatable(s: string, p: bool)['a', true, 'b', false, 'b', true] | summarize topkif(s, 1, p)",
        rows: [['a', 1, true], ['b', 1, false], ['b', 1, true]],
        expected: [{ key: 'a', count: 1, error: 0 }],
        argTypes: ['string', 'long', 'bool'],
    },
]);

cases('histogram', [
    {
        apl: 'datatable(x: long)[0, 1, 2, 5, 9, 10] | summarize histogram(x, 2)',
        rows: [0, 1, 2, 5, 9, 10].map(x => [x, 2]),
        expected: [
            { value: 0, count: 3 },
            { value: 5, count: 3 },
        ],
    },
    {
        apl: 'datatable(x: long)[0, 10, 100] | summarize histogram(x, 10)',
        rows: [0, 10, 100].map(x => [x, 10]),
        expected: [
            { value: 0, count: 1 },
            { value: 10, count: 1 },
            { value: 90, count: 1 },
        ],
    },
    { apl: 'datatable(x: long)[4, 4] | summarize histogram(x, 10)', rows: [[4, 10], [4, 10]], expected: [{ value: 4, count: 2 }] },
    { apl: 'datatable(x: long)[] | summarize histogram(x, 10)', rows: [], expected: [] },
]);

cases('histogramif', [
    { apl: 'datatable(x: long)[1, 2, 50] | summarize histogramif(x, 10, x < 10)', rows: [[1, 10, true], [2, 10, true], [50, 10, false]], expected: [{ value: 1, count: 1 }, { value: 1.9, count: 1 }] },
]);

const hourWindow = { startTime: 0n, endTime: NS_PER_HOUR };

cases('rate', [
    { apl: 'datatable(x: long)[1800, 1800] | summarize rate(x)  // over a 1h window', rows: col(1800, 1800), expected: 1, ctx: hourWindow },
    { apl: 'datatable(x: long)[120] | summarize rate(x) by bin(_time, 1m)', rows: col(120), expected: 2, ctx: { startTime: 0n, endTime: NS_PER_MINUTE } },
    { apl: 'datatable(x: long)[] | summarize rate(x)', rows: [], expected: 0, ctx: hourWindow },
    { apl: 'datatable(x: long)[1] | summarize rate(x)  // no time window known', rows: col(1), expected: null },
]);

cases('phrases', [
    {
        apl: "datatable(s: string)['GET /api/users', 'get api users', 'POST /api/orders'] | summarize phrases(s, 3)",
        rows: ['GET /api/users', 'get api users', 'POST /api/orders'].map(s => [s, 3]),
        expected: [
            { phrase: 'get api users', count: 2 },
            { phrase: 'api users', count: 2 },
            { phrase: 'get api', count: 2 },
        ],
        argTypes: ['string', 'long'],
    },
    {
        apl: "datatable(s: string)['Grüße Welt', 'grüße welt', 'x'] | summarize phrases(s, 5)",
        rows: ['Grüße Welt', 'grüße welt', 'x'].map(s => [s, 5]),
        expected: [
            { phrase: 'grüße welt', count: 2 },
            { phrase: 'x', count: 1 },
        ],
        argTypes: ['string', 'long'],
    },
    { apl: 'datatable(s: string)[] | summarize phrases(s, 5)', rows: [], expected: [], argTypes: ['string', 'long'] },
]);

describe('arg_max / arg_min', () => {
    it("datatable(d: long, id: string)[5, 'a', 9, 'b', 9, 'c', long(null), 'z'] | summarize arg_max(d, id)", () => {
        const a = agg('arg_max');
        const rows: AplValue[][] = [[5, 'a'], [9, 'b'], [9, 'c'], [null, 'z']];
        const ctx = ctxFor(a, ['long', 'string']);
        expect(runAll(a, rows, ctx)).toEqual([9, 'b']);
        expect(runSplit(a, rows, ctx)).toEqual([9, 'b']);
    });

    it("datatable(d: long, id: string, t: datetime)[5, 'a', datetime(2024-01-01), 1, 'b', datetime(2024-02-01)] | summarize arg_min(d, id, t)", () => {
        const a = agg('arg_min');
        const t1 = dt('2024-02-01T00:00:00Z');
        const rows: AplValue[][] = [[5, 'a', dt('2024-01-01T00:00:00Z')], [1, 'b', t1]];
        const result = runAll(a, rows, ctxFor(a, ['long', 'string', 'datetime'])) as unknown as AplValue[];
        expect(result[0]).toBe(1);
        expect(result[1]).toBe('b');
        expect(result[2]).toBe(t1); // the extra fields keep their run-time values
    });

    it('datatable(d: long, id: string)[] | summarize arg_max(d, id)', () => {
        const a = agg('arg_max');
        expect(runAll(a, [], ctxFor(a, ['long', 'string']))).toBeNull();
    });

    it('datatable(d: long)[] | summarize arg_max(d, *) returns the type of d', () => {
        expect(ctxFor(agg('arg_max'), ['real', 'string']).resultType).toBe('real');
    });
});

describe('spotlight', () => {
    it("['sample-http-logs'] | summarize spotlight(status startswith '5', method) is refused with a reason", () => {
        const a = agg('spotlight');
        expect(a.accumulator).toBeUndefined();
        expect(a.unsupported).toMatch(/\w+/);
    });
});

describe('default column names (inventory §5)', () => {
    const names: Array<[string, string[], string]> = [
        ['count', [], 'count_'],
        ['avg', ['x'], 'avg_x'],
        ['avgif', ['x', 'p'], 'avg_x'],
        ['max', ['_time'], 'max_time'],
        ['min', ['x'], 'min_x'],
        ['sum', ['x'], 'sum_x'],
        ['percentile', ['x', '95'], 'percentile_x'],
        ['percentiles_array', ['x', '50', '95'], 'percentiles_x'],
        ['stdevif', ['x', 'p'], 'stdev_x'],
        ['variance', ['x'], 'variance_x'],
        ['varianceif', ['x', 'p'], 'varianceif_x'],
        ['make_set', ['service.name'], 'make_set_service.name'],
        ['make_set_if', ['x', 'p'], 'make_set_if_x'],
        ['rate', ['x'], 'rate'],
        ['dcount', ['id'], 'dcount_id'],
        ['countif', ['p'], 'countif_'],
    ];
    for (const [name, args, expected] of names) {
        it(`summarize ${name}(${args.join(', ')}) -> ${expected}`, () => {
            expect(agg(name).defaultColumnName(args)).toBe(expected);
        });
    }
});

describe('types and metadata', () => {
    const rt = (name: string, t: AplType[]) => {
        const r = agg(name).returns;
        return typeof r === 'function' ? r(t) : r;
    };

    it('summarize sum(long) is long, sum(real) is real, avg(long) is real, max(x) has the type of x', () => {
        expect(rt('sum', ['long'])).toBe('long');
        expect(rt('sum', ['real'])).toBe('real');
        expect(rt('sum', ['timespan'])).toBe('timespan');
        expect(rt('avg', ['long'])).toBe('real');
        expect(rt('avg', ['timespan'])).toBe('timespan');
        expect(rt('max', ['datetime'])).toBe('datetime');
        expect(rt('percentile', ['long', 'long'])).toBe('long');
        expect(rt('count', [])).toBe('long');
        expect(rt('dcount', ['string'])).toBe('long');
        expect(rt('topk', ['string', 'long'])).toBe('dynamic');
    });

    it('the catalogue holds the 33 aggregations with the Axiom names of API.md §6.3', () => {
        expect(AGGREGATES).toHaveLength(33);
        const byName = Object.fromEntries(AGGREGATES.map(a => [a.name, a.axiomAggName]));
        expect(byName).toMatchObject({
            dcount: 'distinct',
            dcountif: 'distinctif',
            percentile: 'percentiles',
            percentiles_array: 'percentiles',
            make_set: 'makeset',
            make_list: 'makelist',
            make_set_if: 'makesetif',
            make_list_if: 'makelistif',
            arg_max: 'argmax',
            arg_min: 'argmin',
            phrases: 'computed',
            topk: 'topk',
        });
    });

    it('estimates are flagged', () => {
        const estimated = AGGREGATES.filter(a => a.estimate).map(a => a.name).sort();
        expect(estimated).toEqual(['dcount', 'dcountif', 'histogram', 'histogramif', 'percentile', 'percentileif', 'percentiles_array', 'percentiles_arrayif', 'topk', 'topkif']);
    });
});
