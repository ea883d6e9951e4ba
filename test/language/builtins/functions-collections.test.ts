/**
 * Golden cases for the array/bag and series_* functions, run through each entry's `evaluate`.
 * The test name is the APL call; the arguments are the values the evaluator would pass.
 */
import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../../language/builtins/functions-collections.js';
import type { EvalContext } from '../../../language/builtins/catalogue-types.js';
import { acceptsArgumentCount } from '../../../language/builtins/index.js';
import { Datetime, Timespan, type AplValue } from '../../../language/values.js';

const ctx: EvalContext = { argTypes: [], resultType: 'dynamic', now: 0n };

function fn(name: string) {
    const f = FUNCTIONS.find(e => e.name === name || e.aliases?.includes(name));
    if (!f?.evaluate) throw new Error(`no evaluate for ${name}`);
    return f;
}

/** Evaluates the function named at the start of `apl` with `args`. */
function run(apl: string, args: AplValue[]): AplValue {
    const name = /^([a-z_0-9]+)\(/.exec(apl)![1];
    return fn(name).evaluate!(args, ctx);
}

/** Deep comparison with numbers compared to 9 decimal places (NaN equals NaN). */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
    if (typeof expected === 'number') {
        expect(typeof actual, path).toBe('number');
        if (Number.isNaN(expected)) expect(Number.isNaN(actual as number), path).toBe(true);
        else if (!Number.isFinite(expected)) expect(actual, path).toBe(expected);
        else expect(actual as number, path).toBeCloseTo(expected, 9);
        return;
    }
    if (Array.isArray(expected)) {
        expect(Array.isArray(actual), path).toBe(true);
        expect((actual as unknown[]).length, `${path}.length`).toBe(expected.length);
        expected.forEach((e, i) => expectClose((actual as unknown[])[i], e, `${path}[${i}]`));
        return;
    }
    if (expected !== null && typeof expected === 'object') {
        expect(actual !== null && typeof actual === 'object', path).toBe(true);
        expect(Object.keys(actual as object).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
        for (const [k, v] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
        return;
    }
    expect(actual, path).toEqual(expected);
}

type Case = [apl: string, args: AplValue[], expected: unknown];

function cases(title: string, list: Case[]): void {
    describe(title, () => {
        for (const [apl, args, expected] of list) {
            it(apl, () => expectClose(run(apl, args), expected));
        }
    });
}

cases('array_concat', [
    ['array_concat(dynamic([1,2]), dynamic([3,4]))', [[1, 2], [3, 4]], [1, 2, 3, 4]],
    ['array_concat(dynamic([1]), dynamic([]), dynamic(["a", null]))', [[1], [], ['a', null]], [1, 'a', null]],
    ['array_concat(dynamic([[1]]), dynamic([[2]]))', [[[1]], [[2]]], [[1], [2]]],
    ['array_concat(dynamic([1]), dynamic(null))', [[1], null], null],
    ['array_concat(dynamic([1]), "x")', [[1], 'x'], null],
]);

cases('array_extract', [
    ["array_extract(dynamic([{'id': 1, 'value': true}, {'id': 2, 'value': false}]), @'$[*].value')", [[{ id: 1, value: true }, { id: 2, value: false }], '$[*].value'], [true, false]],
    ["array_extract(dynamic([{'a': {'b': 1}}, {'a': {'b': 2}}]), '$[*].a.b')", [[{ a: { b: 1 } }, { a: { b: 2 } }], '$[*].a.b'], [1, 2]],
    ["array_extract(dynamic([10, 20, 30]), '$[1]')", [[10, 20, 30], '$[1]'], [20]],
    ["array_extract(dynamic([10, 20, 30]), '$[-1]')", [[10, 20, 30], '$[-1]'], [30]],
    ["array_extract(dynamic([{'k.v': 1}]), \"$[0]['k.v']\")", [[{ 'k.v': 1 }], "$[0]['k.v']"], [1]],
    ["array_extract(dynamic([{'x': {'id': 1}}, {'id': 2}]), '$..id')", [[{ x: { id: 1 } }, { id: 2 }], '$..id'], [1, 2]],
    ["array_extract(dynamic([{'a': 1}]), '$[*].missing')", [[{ a: 1 }], '$[*].missing'], []],
    ["array_extract(dynamic([]), '$[*]')", [[], '$[*]'], []],
    ["array_extract(dynamic([1]), 'not a path')", [[1], 'not a path'], null],
    ["array_extract(dynamic(null), '$[*]')", [null, '$[*]'], null],
]);

cases('array_iff', [
    ['array_iff(dynamic([true, false, true]), dynamic([1, 2, 3]), dynamic([4, 5, 6]))', [[true, false, true], [1, 2, 3], [4, 5, 6]], [1, 5, 3]],
    ['array_iff(dynamic([1, 0, 2]), 10, -1)', [[1, 0, 2], 10, -1], [10, -1, 10]],
    ['array_iff(dynamic([true, "x", null]), dynamic([1, 2, 3]), dynamic([4, 5, 6]))', [[true, 'x', null], [1, 2, 3], [4, 5, 6]], [1, null, null]],
    ['array_iff(dynamic([true, true, false]), dynamic([1]), dynamic([4]))', [[true, true, false], [1], [4]], [1, null, null]],
    ['array_iff(dynamic([]), 1, 2)', [[], 1, 2], []],
    ['array_iff(dynamic(null), 1, 2)', [null, 1, 2], null],
]);

cases('array_index_of', [
    ["array_index_of(dynamic(['a', 'b', 'c']), 'b')", [['a', 'b', 'c'], 'b'], 1],
    ["array_index_of(dynamic(['a', 'b', 'c']), 'z')", [['a', 'b', 'c'], 'z'], -1],
    ['array_index_of(dynamic([1, 2, 1, 2]), 2, 2)', [[1, 2, 1, 2], 2, 2], 3],
    ['array_index_of(dynamic([1, 2, 1, 2]), 1, -2)', [[1, 2, 1, 2], 1, -2], 2],
    ['array_index_of(dynamic([1, 2, 1, 2]), 2, 0, 1)', [[1, 2, 1, 2], 2, 0, 1], -1],
    ['array_index_of(dynamic([1, 2, 1, 2]), 2, 0, -1, 2)', [[1, 2, 1, 2], 2, 0, -1, 2], 3],
    ['array_index_of(dynamic([1, 2, 1, 2]), 2, 0, -1, 3)', [[1, 2, 1, 2], 2, 0, -1, 3], -1],
    ['array_index_of(dynamic([1, 2]), 1, 5)', [[1, 2], 1, 5], -1],
    ['array_index_of(dynamic([1, 2]), 1, 0, -2)', [[1, 2], 1, 0, -2], null],
    ['array_index_of(dynamic([1, 2]), 1, 0, -1, 0)', [[1, 2], 1, 0, -1, 0], null],
    ['array_index_of(dynamic([1.0, 2]), 1)', [[1.0, 2], 1], 0],
    ["array_index_of(dynamic(['1']), 1)", [['1'], 1], -1],
    ['array_index_of(dynamic([[1, 2], {"a": 1}]), dynamic({"a": 1}))', [[[1, 2], { a: 1 }], { a: 1 }], 1],
    ['array_index_of(dynamic([null, 1]), long(null))', [[null, 1], null], 0],
    ["array_index_of(dynamic(['ключ', 'é']), 'é')", [['ключ', 'é'], 'é'], 1],
    ['array_index_of(dynamic([]), 1)', [[], 1], -1],
    ['array_index_of(dynamic(null), 1)', [null, 1], null],
]);

cases('array_length', [
    ['array_length(dynamic([1, 2, 3]))', [[1, 2, 3]], 3],
    ['array_length(dynamic([]))', [[]], 0],
    ['array_length(dynamic({"a": 1}))', [{ a: 1 }], null],
    ['array_length(dynamic(null))', [null], null],
]);

cases('array_reverse', [
    ['array_reverse(dynamic([1, "b", null]))', [[1, 'b', null]], [null, 'b', 1]],
    ['array_reverse(dynamic([]))', [[]], []],
    ['array_reverse(dynamic(null))', [null], null],
]);

cases('array_rotate_left / array_rotate_right', [
    ['array_rotate_left(dynamic([1, 2, 3, 4, 5]), 2)', [[1, 2, 3, 4, 5], 2], [3, 4, 5, 1, 2]],
    ['array_rotate_left(dynamic([1, 2, 3, 4, 5]), -2)', [[1, 2, 3, 4, 5], -2], [4, 5, 1, 2, 3]],
    ['array_rotate_left(dynamic([1, 2, 3]), 7)', [[1, 2, 3], 7], [2, 3, 1]],
    ['array_rotate_left(dynamic([]), 1)', [[], 1], []],
    ['array_rotate_right(dynamic([1, 2, 3, 4, 5]), 2)', [[1, 2, 3, 4, 5], 2], [4, 5, 1, 2, 3]],
    ['array_rotate_right(dynamic([1, 2, 3, 4, 5]), -1)', [[1, 2, 3, 4, 5], -1], [2, 3, 4, 5, 1]],
    ['array_rotate_right(dynamic([1, 2, 3]), 0)', [[1, 2, 3], 0], [1, 2, 3]],
    ['array_rotate_right(dynamic(null), 1)', [null, 1], null],
]);

cases('array_select_dict', [
    [
        'array_select_dict(dynamic([{"service.name": "frontend", "code": "200"}, {"service.name": "backend"}]), "service.name", "frontend")',
        [[{ 'service.name': 'frontend', code: '200' }, { 'service.name': 'backend' }], 'service.name', 'frontend'],
        { 'service.name': 'frontend', code: '200' },
    ],
    ['array_select_dict(dynamic([1, {"k": 5}, {"k": 5, "n": 2}]), "k", 5)', [[1, { k: 5 }, { k: 5, n: 2 }], 'k', 5], { k: 5 }],
    ['array_select_dict(dynamic([{"k": "5"}]), "k", 5)', [[{ k: '5' }], 'k', 5], null],
    ['array_select_dict(dynamic([{"名前": "値"}]), "名前", "値")', [[{ 名前: '値' }], '名前', '値'], { 名前: '値' }],
    ['array_select_dict(dynamic([]), "k", 1)', [[], 'k', 1], null],
]);

cases('array_shift_left / array_shift_right', [
    ['array_shift_left(dynamic([1, 2, 3, 4, 5]), 2)', [[1, 2, 3, 4, 5], 2], [3, 4, 5, null, null]],
    ['array_shift_left(dynamic([1, 2, 3, 4, 5]), 2, -1)', [[1, 2, 3, 4, 5], 2, -1], [3, 4, 5, -1, -1]],
    ['array_shift_left(dynamic([1, 2, 3, 4, 5]), -2, 0)', [[1, 2, 3, 4, 5], -2, 0], [0, 0, 1, 2, 3]],
    ['array_shift_left(dynamic([1, 2]), 5)', [[1, 2], 5], [null, null]],
    ['array_shift_right(dynamic([1, 2, 3, 4, 5]), 1)', [[1, 2, 3, 4, 5], 1], [null, 1, 2, 3, 4]],
    ['array_shift_right(dynamic([1, 2, 3, 4, 5]), 2, "x")', [[1, 2, 3, 4, 5], 2, 'x'], ['x', 'x', 1, 2, 3]],
    ['array_shift_right(dynamic([1, 2, 3]), -1)', [[1, 2, 3], -1], [2, 3, null]],
    ['array_shift_right(dynamic([]), 1)', [[], 1], []],
    ['array_shift_right(dynamic(null), 1)', [null, 1], null],
]);

cases('array_slice', [
    ['array_slice(dynamic([1,2,3,4]), 1, -1)', [[1, 2, 3, 4], 1, -1], [2, 3, 4]],
    ['array_slice(dynamic([1,2,3,4]), 1, 2)', [[1, 2, 3, 4], 1, 2], [2, 3]],
    ['array_slice(dynamic([1,2,3,4]), -2, -1)', [[1, 2, 3, 4], -2, -1], [3, 4]],
    ['array_slice(dynamic([1,2,3,4]), 0, 10)', [[1, 2, 3, 4], 0, 10], [1, 2, 3, 4]],
    ['array_slice(dynamic([1,2,3,4]), -10, 0)', [[1, 2, 3, 4], -10, 0], [1]],
    ['array_slice(dynamic([1,2,3,4]), 3, 1)', [[1, 2, 3, 4], 3, 1], []],
    ['array_slice(dynamic([1,2,3,4]), 5, 6)', [[1, 2, 3, 4], 5, 6], []],
    ['array_slice(dynamic([]), 0, -1)', [[], 0, -1], []],
    ['array_slice(dynamic(null), 0, 1)', [null, 0, 1], null],
]);

cases('array_sort_asc / array_sort_desc', [
    ['array_sort_asc(dynamic([3, 1, 2]))', [[3, 1, 2]], [1, 2, 3]],
    ['array_sort_asc(dynamic([3, null, 1]))', [[3, null, 1]], [1, 3, null]],
    ['array_sort_asc(dynamic([3, null, 1]), false)', [[3, null, 1], false], [null, 1, 3]],
    ['array_sort_asc(dynamic(["b", 2, "a", 1, true]))', [['b', 2, 'a', 1, true]], [1, 2, 'a', 'b', true]],
    ['array_sort_asc(dynamic(["é", "e", "z", "É"]))', [['é', 'e', 'z', 'É']], ['e', 'z', 'É', 'é']],
    ['array_sort_asc(dynamic([]))', [[]], []],
    ['array_sort_asc(dynamic(null))', [null], null],
    ['array_sort_desc(dynamic(["b", "c", "a"]))', [['b', 'c', 'a']], ['c', 'b', 'a']],
    ['array_sort_desc(dynamic([1, null, 3, 2]))', [[1, null, 3, 2]], [3, 2, 1, null]],
    ['array_sort_desc(dynamic([1, null, 3]), false)', [[1, null, 3], false], [null, 3, 1]],
    ['array_sort_desc(dynamic([1.5, "x", 10]))', [[1.5, 'x', 10]], [10, 1.5, 'x']],
]);

cases('array_split', [
    ['array_split(dynamic([1, 2, 3, 4, 5]), 2)', [[1, 2, 3, 4, 5], 2], [[1, 2], [3, 4, 5]]],
    ['array_split(dynamic([1, 2, 3, 4, 5]), dynamic([1, 3]))', [[1, 2, 3, 4, 5], [1, 3]], [[1], [2, 3], [4, 5]]],
    ['array_split(dynamic([1, 2, 3, 4, 5]), -1)', [[1, 2, 3, 4, 5], -1], [[1, 2, 3, 4], [5]]],
    ['array_split(dynamic([1, 2, 3]), 10)', [[1, 2, 3], 10], [[1, 2, 3], []]],
    ['array_split(dynamic([]), 1)', [[], 1], [[], []]],
    ['array_split(dynamic(null), 1)', [null, 1], null],
]);

cases('array_sum', [
    ['array_sum(dynamic([1, 2, 3.5]))', [[1, 2, 3.5]], 6.5],
    ['array_sum(dynamic([]))', [[]], 0],
    ['array_sum(dynamic([1, "2"]))', [[1, '2']], null],
    ['array_sum(dynamic([1, null]))', [[1, null]], null],
    ['array_sum(dynamic(null))', [null], null],
]);

cases('bag_has_key', [
    ["bag_has_key(dynamic({'a': 1, 'b': {'c': 2}}), 'a')", [{ a: 1, b: { c: 2 } }, 'a'], true],
    ["bag_has_key(dynamic({'a': 1}), 'z')", [{ a: 1 }, 'z'], false],
    ["bag_has_key(dynamic({'a': null}), 'a')", [{ a: null }, 'a'], true],
    ["bag_has_key(dynamic({'a': 1, 'b': {'c': 2}}), '$.b.c')", [{ a: 1, b: { c: 2 } }, '$.b.c'], true],
    ["bag_has_key(dynamic({'a': 1}), '$.a.x')", [{ a: 1 }, '$.a.x'], false],
    ["bag_has_key(dynamic({'ключ': 1}), 'ключ')", [{ ключ: 1 }, 'ключ'], true],
    ["bag_has_key(dynamic([1]), 'a')", [[1], 'a'], false],
    ["bag_has_key(dynamic(null), 'a')", [null, 'a'], null],
]);

cases('bag_keys', [
    ["bag_keys(dynamic({'a': 1, 'b': 2}))", [{ a: 1, b: 2 }], ['a', 'b']],
    ["bag_keys(dynamic({'😀': 1, 'ü': {'x': 1}}))", [{ '😀': 1, ü: { x: 1 } }], ['😀', 'ü']],
    ['bag_keys(dynamic({}))', [{}], []],
    ['bag_keys(dynamic([1]))', [[1]], null],
    ['bag_keys(dynamic(null))', [null], null],
]);

cases('bag_pack / pack / pack_dictionary', [
    ["bag_pack('status', 200, 'method', 'GET')", ['status', 200, 'method', 'GET'], { status: 200, method: 'GET' }],
    ["pack('a', dynamic([1, 2]), 'b', long(null))", ['a', [1, 2], 'b', null], { a: [1, 2], b: null }],
    ["bag_pack('t', datetime(2024-01-01), 'd', 1m)", ['t', new Datetime(1704067200000000000n), 'd', new Timespan(60_000_000_000n)], { t: '2024-01-01T00:00:00Z', d: '1m0s' }],
    ["bag_pack('a', 1, 'a', 2)", ['a', 1, 'a', 2], { a: 2 }],
    ["bag_pack(string(null), 1, 'b', 2)", [null, 1, 'b', 2], { b: 2 }],
    ["bag_pack(1, 'one')", [1, 'one'], { '1': 'one' }],
    ["pack_dictionary('host', 'web-1', 'port', 443)", ['host', 'web-1', 'port', 443], { host: 'web-1', port: 443 }],
    ["pack_dictionary('ключ', 'значение')", ['ключ', 'значение'], { ключ: 'значение' }],
]);

cases('bag_zip', [
    ["bag_zip(dynamic(['a', 'b']), dynamic([1, 2]))", [['a', 'b'], [1, 2]], { a: 1, b: 2 }],
    ["bag_zip(dynamic(['a', 'b', 'c']), dynamic([1]))", [['a', 'b', 'c'], [1]], { a: 1, b: null, c: null }],
    ["bag_zip(dynamic(['a', 1, 'b']), dynamic([1, 2, 3]))", [['a', 1, 'b'], [1, 2, 3]], { a: 1, b: 3 }],
    ['bag_zip(dynamic([]), dynamic([1]))', [[], [1]], {}],
    ["bag_zip(dynamic(['a']), dynamic(null))", [['a'], null], null],
]);

cases('isarray', [
    ['isarray(dynamic([1, 2]))', [[1, 2]], true],
    ['isarray(dynamic([]))', [[]], true],
    ['isarray(dynamic({"a": 1}))', [{ a: 1 }], false],
    ["isarray('[1]')", ['[1]'], false],
    ['isarray(dynamic(null))', [null], false],
]);

cases('len', [
    ["len('hello')", ['hello'], 5],
    ["len('héllo😀')", ['héllo😀'], 6],
    ["len('')", [''], 0],
    ['len(dynamic([1, 2, 3]))', [[1, 2, 3]], 3],
    ['len(string(null))', [null], null],
    ['len(42)', [42], null],
]);

cases('pack_array', [
    ["pack_array(1, 'two', 3.0)", [1, 'two', 3.0], [1, 'two', 3]],
    ['pack_array(long(null), dynamic([1]))', [null, [1]], [null, [1]]],
    ['pack_array(datetime(2024-01-01))', [new Datetime(1704067200000000000n)], ['2024-01-01T00:00:00Z']],
]);

cases('strcat_array', [
    ["strcat_array(dynamic(['a', 'b', 'c']), '-')", [['a', 'b', 'c'], '-'], 'a-b-c'],
    ["strcat_array(dynamic([1, null, true, 'x']), ',')", [[1, null, true, 'x'], ','], '1,,true,x'],
    ["strcat_array(dynamic([{'a': 1}, [2]]), ';')", [[{ a: 1 }, [2]], ';'], '{"a":1};[2]'],
    ["strcat_array(dynamic([]), ',')", [[], ','], ''],
    ["strcat_array(dynamic(['ü', '😀']), '')", [['ü', '😀'], ''], 'ü😀'],
    ["strcat_array(dynamic(null), ',')", [null, ','], null],
]);

// ------------------------------------------------------------------------------------------------
// series_*
// ------------------------------------------------------------------------------------------------

cases('series unary math', [
    ['series_abs(dynamic([-1, 2, -3.5]))', [[-1, 2, -3.5]], [1, 2, 3.5]],
    ['series_abs(dynamic([null, "x", -1]))', [[null, 'x', -1]], [null, null, 1]],
    ['series_abs(dynamic([]))', [[]], []],
    ['series_abs(dynamic(null))', [null], null],
    ['series_acos(dynamic([1, 0, 2]))', [[1, 0, 2]], [0, Math.PI / 2, null]],
    ['series_asin(dynamic([0, 1, -2]))', [[0, 1, -2]], [0, Math.PI / 2, null]],
    ['series_atan(dynamic([0, 1]))', [[0, 1]], [0, Math.PI / 4]],
    ['series_ceiling(dynamic([1.2, -1.5, 3]))', [[1.2, -1.5, 3]], [2, -1, 3]],
    ['series_cos(dynamic([0, pi()]))', [[0, Math.PI]], [1, -1]],
    ['series_exp(dynamic([0, 1]))', [[0, 1]], [1, Math.E]],
    ['series_floor(dynamic([1.7, -1.2]))', [[1.7, -1.2]], [1, -2]],
    ['series_log(dynamic([1, exp(2), 0, -1]))', [[1, Math.exp(2), 0, -1]], [0, 2, -Infinity, null]],
    ['series_sign(dynamic([-5, 0, 5, null]))', [[-5, 0, 5, null]], [-1, 0, 1, null]],
    ['series_sin(dynamic([0, pi() / 2]))', [[0, Math.PI / 2]], [0, 1]],
    ['series_tan(dynamic([0, pi() / 4]))', [[0, Math.PI / 4]], [0, 1]],
]);

cases('series element-wise binary', [
    ['series_add(dynamic([1, 2, 3]), dynamic([10, 20, 30]))', [[1, 2, 3], [10, 20, 30]], [11, 22, 33]],
    ['series_add(dynamic([1, 2, 3]), 1)', [[1, 2, 3], 1], [2, 3, 4]],
    ['series_add(dynamic([1, 2, 3]), dynamic([1]))', [[1, 2, 3], [1]], [2, null, null]],
    ['series_add(dynamic([1, "a", null]), dynamic([1, 1, 1]))', [[1, 'a', null], [1, 1, 1]], [2, null, null]],
    ['series_add(dynamic([]), dynamic([]))', [[], []], []],
    ['series_add(dynamic(null), 1)', [null, 1], null],
    ['series_subtract(dynamic([10, 20, 30]), dynamic([1, 2, 3]))', [[10, 20, 30], [1, 2, 3]], [9, 18, 27]],
    ['series_multiply(dynamic([1, 2, 3]), dynamic([4, 5, 6]))', [[1, 2, 3], [4, 5, 6]], [4, 10, 18]],
    ['series_divide(dynamic([10, 1, 0, -1]), dynamic([4, 0, 0, 0]))', [[10, 1, 0, -1], [4, 0, 0, 0]], [2.5, Infinity, NaN, -Infinity]],
    ['series_divide(dynamic([1, 3]), 2)', [[1, 3], 2], [0.5, 1.5]],
    ['series_pow(dynamic([1, 2, 3]), 2)', [[1, 2, 3], 2], [1, 4, 9]],
    ['series_pow(dynamic([2, 2]), dynamic([0, -1]))', [[2, 2], [0, -1]], [1, 0.5]],
    ['series_max(dynamic([1, 5, 3]), dynamic([4, 2, 6]))', [[1, 5, 3], [4, 2, 6]], [4, 5, 6]],
    ['series_max(dynamic([1, 5]), 3)', [[1, 5], 3], [3, 5]],
    ['series_min(dynamic([1, 5, 3]), dynamic([4, 2, 6]))', [[1, 5, 3], [4, 2, 6]], [1, 2, 3]],
    ['series_min(dynamic([1, null]), dynamic([0, 0]))', [[1, null], [0, 0]], [0, null]],
]);

cases('series comparisons', [
    ['series_equals(dynamic([1, 2, 3]), 2)', [[1, 2, 3], 2], [false, true, false]],
    ['series_equals(dynamic([1, 2.0]), dynamic([1.0, 2]))', [[1, 2.0], [1.0, 2]], [true, true]],
    ['series_not_equals(dynamic([1, 2, 3]), dynamic([1, 0, 3]))', [[1, 2, 3], [1, 0, 3]], [false, true, false]],
    ['series_greater(dynamic([1, 5, 3]), dynamic([2, 4, 3]))', [[1, 5, 3], [2, 4, 3]], [false, true, false]],
    ['series_greater_equals(dynamic([1, 5, 3]), dynamic([2, 4, 3]))', [[1, 5, 3], [2, 4, 3]], [false, true, true]],
    ['series_less(dynamic([1, 5, 3]), dynamic([2, 4, 3]))', [[1, 5, 3], [2, 4, 3]], [true, false, false]],
    ['series_less_equals(dynamic([1, 5, 3]), dynamic([2, 4, 3]))', [[1, 5, 3], [2, 4, 3]], [true, false, true]],
    ['series_less(dynamic([1, null, "x"]), 2)', [[1, null, 'x'], 2], [true, null, null]],
]);

cases('series reductions', [
    ['series_sum(dynamic([1, 2, 3]))', [[1, 2, 3]], 6],
    ['series_sum(dynamic([1, null, "x", 2.5]))', [[1, null, 'x', 2.5]], 3.5],
    ['series_sum(dynamic([]))', [[]], 0],
    ['series_sum(dynamic(null))', [null], null],
    ['series_magnitude(dynamic([3, 4]))', [[3, 4]], 5],
    ['series_magnitude(dynamic([]))', [[]], 0],
    ['series_dot_product(dynamic([1, 2, 3]), dynamic([4, 5, 6]))', [[1, 2, 3], [4, 5, 6]], 32],
    ['series_dot_product(dynamic([1, 2, 3]), 2)', [[1, 2, 3], 2], 12],
    ['series_dot_product(dynamic([1, 2, 3]), dynamic([1]))', [[1, 2, 3], [1]], 1],
    ['series_cosine_similarity(dynamic([1, 2, 3]), dynamic([2, 4, 6]))', [[1, 2, 3], [2, 4, 6]], 1],
    ['series_cosine_similarity(dynamic([1, 0]), dynamic([0, 1]))', [[1, 0], [0, 1]], 0],
    ['series_cosine_similarity(dynamic([1, 1]), dynamic([-1, -1]))', [[1, 1], [-1, -1]], -1],
    ['series_cosine_similarity(dynamic([0, 0]), dynamic([1, 2]))', [[0, 0], [1, 2]], null],
    ['series_cosine_similarity(dynamic([]), dynamic([]))', [[], []], null],
    ['series_pearson_correlation(dynamic([1, 2, 3]), dynamic([2, 4, 6]))', [[1, 2, 3], [2, 4, 6]], 1],
    ['series_pearson_correlation(dynamic([1, 2, 3]), dynamic([3, 2, 1]))', [[1, 2, 3], [3, 2, 1]], -1],
    ['series_pearson_correlation(dynamic([1, 2, 3, 4]), dynamic([2, 1, 4, 3]))', [[1, 2, 3, 4], [2, 1, 4, 3]], 0.6],
    ['series_pearson_correlation(dynamic([1, 2]), dynamic([1, 2, 3]))', [[1, 2], [1, 2, 3]], null],
    ['series_pearson_correlation(dynamic([1, 1, 1]), dynamic([1, 2, 3]))', [[1, 1, 1], [1, 2, 3]], null],
]);

cases('series_stats / series_stats_dynamic', [
    [
        'series_stats(dynamic([23, 46, 23, 87, 4, 8, 3, 75, 2, 56, 13, 75, 32, 16, 29]))',
        [[23, 46, 23, 87, 4, 8, 3, 75, 2, 56, 13, 75, 32, 16, 29]],
        [2, 8, 87, 3, 32.8, 812.457142857143, 28.5036338535483],
    ],
    ['series_stats(dynamic([5]))', [[5]], [5, 0, 5, 0, 5, 0, 0]],
    ['series_stats(dynamic([]))', [[]], [null, null, null, null, null, null, null]],
    ['series_stats(dynamic([1, null, 3]))', [[1, null, 3]], [null, null, null, null, null, null, null]],
    ['series_stats(dynamic([1, null, 3]), true)', [[1, null, 3], true], [1, 0, 3, 2, 2, 2, Math.SQRT2]],
    ['series_stats(dynamic(null))', [null], null],
    [
        'series_stats_dynamic(dynamic([1, 2, 3, 4]))',
        [[1, 2, 3, 4]],
        { min: 1, min_idx: 0, max: 4, max_idx: 3, avg: 2.5, stdev: Math.sqrt(5 / 3), variance: 5 / 3 },
    ],
    ['series_stats_dynamic(dynamic([2, 1, 1, 2]))', [[2, 1, 1, 2]], { min: 1, min_idx: 1, max: 2, max_idx: 0, avg: 1.5, stdev: Math.sqrt(1 / 3), variance: 1 / 3 }],
]);

cases('series fills', [
    ['series_fill_backward(dynamic([null, 1, null, 3, null]))', [[null, 1, null, 3, null]], [1, 1, 3, 3, null]],
    ['series_fill_backward(dynamic([-1, 1, -1, 3]), -1)', [[-1, 1, -1, 3], -1], [1, 1, 3, 3]],
    ['series_fill_forward(dynamic([null, 1, null, null, 4]))', [[null, 1, null, null, 4]], [null, 1, 1, 1, 4]],
    ['series_fill_forward(dynamic([]))', [[]], []],
    ['series_fill_const(dynamic([1, null, 3]), 0)', [[1, null, 3], 0], [1, 0, 3]],
    ['series_fill_const(dynamic([1, -1, 3]), 0, -1)', [[1, -1, 3], 0, -1], [1, 0, 3]],
    ['series_fill_linear(dynamic([1, null, 3, null, null, 6]))', [[1, null, 3, null, null, 6]], [1, 2, 3, 4, 5, 6]],
    ['series_fill_linear(dynamic([null, 2, null, 4, null]))', [[null, 2, null, 4, null]], [2, 2, 3, 4, 4]],
    ['series_fill_linear(dynamic([null, 2, null, 4, null]), long(null), false)', [[null, 2, null, 4, null], null, false], [null, 2, 3, 4, null]],
    ['series_fill_linear(dynamic([null, null]), long(null), true, 7)', [[null, null], null, true, 7], [7, 7]],
    ['series_fill_linear(dynamic([0, -1, 4]), -1)', [[0, -1, 4], -1], [0, 2, 4]],
    ['series_fill_linear(dynamic(null))', [null], null],
]);

cases('series filters', [
    ['series_fir(dynamic([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), dynamic([1, 1, 1, 1, 1]), false)', [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1], false], [0, 1, 3, 6, 10, 15, 20, 25, 30, 35]],
    [
        'series_fir(dynamic([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), dynamic([1, 1, 1, 1, 1]), true, true)',
        [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1], true, true],
        [0.6, 1.2, 2, 3, 4, 5, 6, 7, 6, 4.8],
    ],
    ['series_fir(dynamic([1, 2, 3]), dynamic([1, 1]))', [[1, 2, 3], [1, 1]], [0.5, 1.5, 2.5]],
    ['series_fir(dynamic([1, 3, 6]), dynamic([1, -1]))', [[1, 3, 6], [1, -1]], [1, 2, 3]],
    ['series_fir(dynamic([1, 3, 6]), dynamic([1, -1]), true)', [[1, 3, 6], [1, -1], true], null],
    ['series_fir(dynamic([]), dynamic([1]))', [[], [1]], []],
    ['series_iir(dynamic([1, 2, 3, 4]), dynamic([1]), dynamic([1, -1]))', [[1, 2, 3, 4], [1], [1, -1]], [1, 3, 6, 10]],
    ['series_iir(dynamic([2, 2, 2]), dynamic([1]), dynamic([2]))', [[2, 2, 2], [1], [2]], [1, 1, 1]],
    ['series_iir(dynamic([1, 0, 0]), dynamic([1]), dynamic([1, -0.5]))', [[1, 0, 0], [1], [1, -0.5]], [1, 0.5, 0.25]],
    ['series_iir(dynamic([1]), dynamic([1]), dynamic([0]))', [[1], [1], [0]], null],
]);

cases('series_fft / series_ifft', [
    ['series_fft(dynamic([1, 0, -1, 0]))', [[1, 0, -1, 0]], [[0, 2, 0, 2], [0, 0, 0, 0]]],
    ['series_fft(dynamic([1, 1, 1, 1]))', [[1, 1, 1, 1]], [[4, 0, 0, 0], [0, 0, 0, 0]]],
    ['series_fft(dynamic([0, 1, 0, 0]))', [[0, 1, 0, 0]], [[1, 0, -1, 0], [0, -1, 0, 1]]],
    ['series_fft(dynamic([1, 2, 3]))', [[1, 2, 3]], [[6, -1.5, -1.5], [0, Math.sqrt(3) / 2, -Math.sqrt(3) / 2]]],
    ['series_fft(dynamic([1, 0]), dynamic([0, 1]))', [[1, 0], [0, 1]], [[1, 1], [1, -1]]],
    ['series_fft(dynamic([1, 2]), dynamic([1]))', [[1, 2], [1]], null],
    ['series_fft(dynamic([]))', [[]], [[], []]],
    ['series_ifft(dynamic([0, 2, 0, 2]), dynamic([0, 0, 0, 0]))', [[0, 2, 0, 2], [0, 0, 0, 0]], [[1, 0, -1, 0], [0, 0, 0, 0]]],
    ['series_ifft(dynamic([6, -1.5, -1.5]), dynamic([0, 0.8660254037844386, -0.8660254037844386]))', [[6, -1.5, -1.5], [0, Math.sqrt(3) / 2, -Math.sqrt(3) / 2]], [[1, 2, 3], [0, 0, 0]]],
    ['series_ifft(dynamic(null))', [null], null],
]);

describe('round trips and signatures', () => {
    it('series_ifft(series_fft(x)) == x', () => {
        const x = [3, -1, 4, 1, -5, 9, 2, 6];
        const [re, im] = run('series_fft(x)', [x]) as number[][];
        const [back, backIm] = run('series_ifft(re, im)', [re, im]) as number[][];
        expectClose(back, x);
        expectClose(backIm, x.map(() => 0));
    });

    it('bag_pack / pack_dictionary take an even number of arguments', () => {
        for (const name of ['bag_pack', 'pack', 'pack_dictionary']) {
            const f = fn(name);
            expect(acceptsArgumentCount(f, 2)).toBe(true);
            expect(acceptsArgumentCount(f, 4)).toBe(true);
            expect(acceptsArgumentCount(f, 3)).toBe(false);
            expect(acceptsArgumentCount(f, 0)).toBe(false);
        }
    });

    it('every inventory arity is accepted', () => {
        const arity: Array<[string, number]> = [
            ['array_concat', 1],
            ['array_concat', 3],
            ['array_index_of', 2],
            ['array_index_of', 5],
            ['array_shift_right', 2],
            ['series_fft', 1],
            ['series_fft', 2],
            ['series_ifft', 2],
            ['series_iir', 3],
            ['pack_array', 1],
            ['pack_array', 6],
        ];
        for (const [name, n] of arity) expect(acceptsArgumentCount(fn(name), n), `${name}/${n}`).toBe(true);
        expect(acceptsArgumentCount(fn('array_length'), 2)).toBe(false);
        expect(acceptsArgumentCount(fn('array_concat'), 0)).toBe(false);
    });

    it('the catalogue holds the 25 array and 40 series functions', () => {
        expect(FUNCTIONS.filter(f => f.name.startsWith('series_'))).toHaveLength(40);
        expect(FUNCTIONS.filter(f => !f.name.startsWith('series_'))).toHaveLength(25);
        // 26 array names: `pack` is an alias of `bag_pack`.
        expect(FUNCTIONS.filter(f => !f.name.startsWith('series_')).flatMap(f => [f.name, ...(f.aliases ?? [])])).toHaveLength(26);
    });
});
