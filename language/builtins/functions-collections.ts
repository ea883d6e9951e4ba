/**
 * Array and dynamic (property bag) functions, plus the series_* functions (from
 * `functions-collections-series.ts`). Inventory §6: "Array / dynamic (bag) functions (25)" and
 * "Time series (series_*) functions (40)".
 */
import type { ScalarFunction } from './catalogue-types.js';
import type { AplValue, JsonValue } from '../values.js';
import {
    asInt,
    isArray,
    isBag,
    jsonPathQuery,
    param,
    sortValues,
    toJson,
    valuesEqual,
    valueToText,
    type JsonObject,
} from './functions-collections-util.js';
import { SERIES_FUNCTIONS } from './functions-collections-series.js';
import { FunctionArgumentError } from './functions-text-helpers.js';
import { MAX_BUILT_ARRAY_LENGTH, MAX_BUILT_STRING_LENGTH } from '../limits.js';

/** Rotates left by `n` (negative rotates right). */
function rotateLeft(arr: JsonValue[], n: number): JsonValue[] {
    if (arr.length === 0) return [];
    const k = ((n % arr.length) + arr.length) % arr.length;
    return [...arr.slice(k), ...arr.slice(0, k)];
}

/** Shifts left by `n` (negative shifts right), filling vacated slots with `fill`. */
function shiftLeft(arr: JsonValue[], n: number, fill: JsonValue): JsonValue[] {
    return arr.map((_, i) => {
        const j = i + n;
        return j >= 0 && j < arr.length ? arr[j] : fill;
    });
}

/** Builds a bag from alternating key/value arguments; pairs with a null key are skipped. */
function packPairs(args: AplValue[]): JsonObject {
    const out: JsonObject = {};
    for (let i = 0; i + 1 < args.length; i += 2) {
        const k = args[i];
        if (k === null) continue;
        out[valueToText(k)] = toJson(args[i + 1]);
    }
    return out;
}

/** `bag_has_key`: a plain key, or a JSONPath (`$.a.b`, `$['a']`) into nested bags. */
function bagHasKey(bag: AplValue, key: AplValue): AplValue {
    if (bag === null || key === null) return null;
    if (!isBag(bag)) return false;
    const k = valueToText(key);
    if (k.startsWith('$')) {
        const hits = jsonPathQuery(bag, k);
        return hits !== undefined && hits.length > 0;
    }
    return Object.prototype.hasOwnProperty.call(bag, k);
}

function arrayIndexOf(args: AplValue[]): AplValue {
    const [arr, lookup, startArg, lengthArg, occurrenceArg] = args;
    if (!isArray(arr)) return null;
    const start0 = startArg === undefined || startArg === null ? 0 : asInt(startArg);
    const length = lengthArg === undefined || lengthArg === null ? -1 : asInt(lengthArg);
    const occurrence = occurrenceArg === undefined || occurrenceArg === null ? 1 : asInt(occurrenceArg);
    if (start0 === null || length === null || occurrence === null) return null;
    if (length < -1 || occurrence < 1) return null;
    let start = start0 < 0 ? arr.length + start0 : start0;
    if (start < 0) start = 0;
    if (start >= arr.length) return -1;
    const end = length === -1 ? arr.length : Math.min(arr.length, start + length);
    const target = toJson(lookup);
    let seen = 0;
    for (let i = start; i < end; i++) {
        if (valuesEqual(arr[i], target) && ++seen === occurrence) return i;
    }
    return -1;
}

function arraySlice(arr: AplValue, startArg: AplValue, endArg: AplValue): AplValue {
    if (!isArray(arr)) return null;
    const s0 = asInt(startArg);
    const e0 = asInt(endArg);
    if (s0 === null || e0 === null) return null;
    const n = arr.length;
    const start = Math.max(0, s0 < 0 ? n + s0 : s0);
    const end = Math.min(n - 1, e0 < 0 ? n + e0 : e0);
    return start > end ? [] : arr.slice(start, end + 1);
}

function arraySplit(arr: AplValue, indices: AplValue): AplValue {
    if (!isArray(arr)) return null;
    const raw = isArray(indices) ? indices : [indices as JsonValue];
    const n = arr.length;
    const cuts: number[] = [];
    for (const r of raw) {
        const i = asInt(r as AplValue);
        if (i === null) return null;
        cuts.push(Math.min(n, Math.max(0, i < 0 ? n + i : i)));
    }
    const out: JsonValue[] = [];
    let prev = 0;
    for (const c of cuts) {
        const cut = Math.max(prev, c);
        out.push(arr.slice(prev, cut));
        prev = cut;
    }
    out.push(arr.slice(prev));
    return out;
}

/** Element `i` of an array argument, or the argument itself when it is a scalar (broadcast). */
function elementOrScalar(v: AplValue, i: number): JsonValue {
    if (isArray(v)) return i < v.length ? v[i] : null;
    return toJson(v);
}

function arrayIff(cond: AplValue, whenTrue: AplValue, whenFalse: AplValue): AplValue {
    if (!isArray(cond)) return null;
    return cond.map((c, i) => {
        let truth: boolean | null;
        if (typeof c === 'boolean') truth = c;
        else if (typeof c === 'number') truth = c !== 0;
        else truth = null;
        if (truth === null) return null;
        return elementOrScalar(truth ? whenTrue : whenFalse, i);
    });
}

function arraySum(arr: AplValue): AplValue {
    if (!isArray(arr)) return null;
    let sum = 0;
    for (const e of arr) {
        if (typeof e !== 'number') return null;
        sum += e;
    }
    return sum;
}

function arraySortFn(desc: boolean) {
    return (args: AplValue[]): AplValue => {
        const [arr, nullsLastArg] = args;
        if (!isArray(arr)) return null;
        const nullsLast = nullsLastArg === undefined || nullsLastArg === null ? true : nullsLastArg === true;
        return sortValues(arr, desc, nullsLast);
    };
}

function bagZip(keys: AplValue, values: AplValue): AplValue {
    if (!isArray(keys) || !isArray(values)) return null;
    const out: JsonObject = {};
    keys.forEach((k, i) => {
        if (typeof k !== 'string') return;
        out[k] = i < values.length ? values[i] : null;
    });
    return out;
}

function len(v: AplValue): AplValue {
    if (typeof v === 'string') return [...v].length;
    if (isArray(v)) return v.length;
    return null;
}

const ARRAY_FUNCTIONS: ScalarFunction[] = [
    {
        kind: 'scalar',
        name: 'array_concat',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('arrays', 'array', { optional: true, variadic: true })], arity: { min: 1 } }],
        returns: 'dynamic',
        description: 'Joins one or more dynamic arrays end to end into a single array (at most 1,048,576 elements). Returns null if any argument is not an array.',
        example: 'print arr = array_concat(dynamic([1, 2]), dynamic([3, 4]))',
        evaluate: args => {
            if (!args.every(isArray)) return null;
            const length = (args as JsonValue[][]).reduce((n, a) => n + a.length, 0);
            if (length > MAX_BUILT_ARRAY_LENGTH) throw new FunctionArgumentError(`array_concat would build an array of ${length.toLocaleString('en-US')} elements, more than ${MAX_BUILT_ARRAY_LENGTH.toLocaleString('en-US')}`);
            return (args as JsonValue[][]).flat(1);
        },
    },
    {
        kind: 'scalar',
        name: 'array_extract',
        category: 'array',
        axiomOnly: true,
        signatures: [{ params: [param('sourceArray', 'array'), param('jsonPath', 'string')] }],
        returns: 'dynamic',
        description:
            'Selects values from a dynamic array with a JSONPath expression (`$[*].name`, `$[0]`, `$..id`) and returns every match as an array, which is empty when nothing matches.',
        example: "print v = array_extract(dynamic([{'id': 1, 'value': true}, {'id': 2, 'value': false}]), @'$[*].value')",
        evaluate: ([arr, path]) => {
            if (!isArray(arr) || typeof path !== 'string') return null;
            return jsonPathQuery(arr, path) ?? null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_iff',
        category: 'array',
        signatures: [{ params: [param('condition_array', 'array'), param('when_true', 'any'), param('when_false', 'any')] }],
        returns: 'dynamic',
        description:
            'Picks, element by element, from `when_true` where the condition array holds true (or a non-zero number) and from `when_false` otherwise. Either source may be an array or a scalar; the result has the length of the condition array, and non-boolean conditions yield null.',
        example: 'print r = array_iff(dynamic([true, false, true]), dynamic([1, 2, 3]), dynamic([4, 5, 6]))',
        evaluate: ([c, t, f]) => arrayIff(c, t, f),
    },
    {
        kind: 'scalar',
        name: 'array_index_of',
        category: 'array',
        signatures: [
            {
                params: [
                    param('array', 'array'),
                    param('lookup_value', 'any'),
                    param('start', 'long', { optional: true }),
                    param('length', 'long', { optional: true }),
                    param('occurrence', 'long', { optional: true }),
                ],
            },
        ],
        returns: 'long',
        description:
            'Returns the zero-based position of `lookup_value` in the array, or -1 when absent. Optional `start` (negative counts from the end), `length` (-1 for no limit) and `occurrence` (default 1) narrow the search; invalid `length`/`occurrence` give null.',
        example: "print idx = array_index_of(dynamic(['a', 'b', 'c']), 'b')",
        evaluate: args => arrayIndexOf(args),
    },
    {
        kind: 'scalar',
        name: 'array_length',
        category: 'array',
        signatures: [{ params: [param('array', 'array')] }],
        returns: 'long',
        description: 'Counts the elements of a dynamic array; returns null when the value is not an array.',
        example: 'print n = array_length(dynamic([1, 2, 3]))',
        evaluate: ([arr]) => (isArray(arr) ? arr.length : null),
    },
    {
        kind: 'scalar',
        name: 'array_reverse',
        category: 'array',
        signatures: [{ params: [param('array', 'array')] }],
        returns: 'dynamic',
        description: 'Returns the elements of the array in the opposite order.',
        example: 'print r = array_reverse(dynamic([1, 2, 3]))',
        evaluate: ([arr]) => (isArray(arr) ? [...arr].reverse() : null),
    },
    {
        kind: 'scalar',
        name: 'array_rotate_left',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('rotate_count', 'long')] }],
        returns: 'dynamic',
        description: 'Moves every element `rotate_count` places to the left, wrapping the leading elements around to the end. A negative count rotates right.',
        example: 'print r = array_rotate_left(dynamic([1, 2, 3, 4, 5]), 2)',
        evaluate: ([arr, n]) => {
            const k = asInt(n);
            return isArray(arr) && k !== null ? rotateLeft(arr, k) : null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_rotate_right',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('rotate_count', 'long')] }],
        returns: 'dynamic',
        description: 'Moves every element `rotate_count` places to the right, wrapping the trailing elements around to the front. A negative count rotates left.',
        example: 'print r = array_rotate_right(dynamic([1, 2, 3, 4, 5]), 2)',
        evaluate: ([arr, n]) => {
            const k = asInt(n);
            return isArray(arr) && k !== null ? rotateLeft(arr, -k) : null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_select_dict',
        category: 'array',
        axiomOnly: true,
        signatures: [{ params: [param('array', 'array'), param('key', 'string'), param('value', 'scalar')] }],
        returns: 'dynamic',
        description: 'Returns the first property bag in the array whose `key` equals `value`, or null if none does. Elements that are not bags are skipped.',
        example: "print d = array_select_dict(dynamic([{'name': 'a', 'v': 1}, {'name': 'b', 'v': 2}]), 'name', 'b')",
        evaluate: ([arr, key, value]) => {
            if (!isArray(arr) || key === null) return null;
            const k = valueToText(key);
            const target = toJson(value);
            for (const e of arr) {
                if (isBag(e) && Object.prototype.hasOwnProperty.call(e, k) && valuesEqual(e[k], target)) return e;
            }
            return null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_shift_left',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('shift_count', 'long'), param('fill_value', 'scalar', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Shifts the elements `shift_count` places to the left, dropping those that fall off the start and filling the end with `fill_value` (null by default). A negative count shifts right.',
        example: 'print r = array_shift_left(dynamic([1, 2, 3, 4, 5]), 2, -1)',
        evaluate: ([arr, n, fill]) => {
            const k = asInt(n);
            return isArray(arr) && k !== null ? shiftLeft(arr, k, toJson(fill)) : null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_shift_right',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('shift_count', 'long'), param('fill_value', 'scalar', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Shifts the elements `shift_count` places to the right, dropping those that fall off the end and filling the start with `fill_value` (null by default). A negative count shifts left.',
        example: 'print r = array_shift_right(dynamic([1, 2, 3, 4, 5]), 1)',
        evaluate: ([arr, n, fill]) => {
            const k = asInt(n);
            return isArray(arr) && k !== null ? shiftLeft(arr, -k, toJson(fill)) : null;
        },
    },
    {
        kind: 'scalar',
        name: 'array_slice',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('start', 'long'), param('end', 'long')] }],
        returns: 'dynamic',
        description:
            'Returns the elements from index `start` to index `end`, both inclusive. Negative indices count from the end (-1 is the last element); out-of-range bounds are clamped and an empty range gives an empty array.',
        example: 'print r = array_slice(dynamic([1, 2, 3, 4]), 1, -1)',
        evaluate: ([arr, s, e]) => arraySlice(arr, s, e),
    },
    {
        kind: 'scalar',
        name: 'array_sort_asc',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('nulls_last', 'bool', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Sorts the array in ascending order. Mixed types are grouped numbers first, then strings, then other values; nulls go last unless `nulls_last` is false.',
        example: 'print r = array_sort_asc(dynamic([3, 1, 2]))',
        evaluate: arraySortFn(false),
    },
    {
        kind: 'scalar',
        name: 'array_sort_desc',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('nulls_last', 'bool', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Sorts the array in descending order. Mixed types are grouped numbers first, then strings, then other values; nulls go last unless `nulls_last` is false.',
        example: "print r = array_sort_desc(dynamic(['b', 'c', 'a']))",
        evaluate: arraySortFn(true),
    },
    {
        kind: 'scalar',
        name: 'array_split',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('indices', 'any')] }],
        returns: 'dynamic',
        description:
            'Cuts the array at one index or at each index of a dynamic array of indices, returning an array of sub-arrays. Negative indices count from the end.',
        example: 'print parts = array_split(dynamic([1, 2, 3, 4, 5]), dynamic([1, 3]))',
        evaluate: ([arr, idx]) => arraySplit(arr, idx),
    },
    {
        kind: 'scalar',
        name: 'array_sum',
        category: 'array',
        signatures: [{ params: [param('array', 'array')] }],
        returns: 'real',
        description: 'Adds up the elements of a numeric array and returns a real; null if any element is not a number.',
        example: 'print total = array_sum(dynamic([1, 2, 3.5]))',
        evaluate: ([arr]) => arraySum(arr),
    },
    {
        kind: 'scalar',
        name: 'bag_has_key',
        category: 'array',
        signatures: [{ params: [param('bag', 'bag'), param('key', 'string')] }],
        returns: 'bool',
        description: 'Tells whether a property bag holds the given key. The key may be a JSONPath such as `$.a.b` to test a nested key.',
        example: "print has = bag_has_key(dynamic({'a': 1, 'b': {'c': 2}}), 'a')",
        evaluate: ([bag, key]) => bagHasKey(bag, key),
    },
    {
        kind: 'scalar',
        name: 'bag_keys',
        category: 'array',
        signatures: [{ params: [param('bag', 'bag')] }],
        returns: 'dynamic',
        description: 'Lists the top-level keys of a property bag as a dynamic array; null when the value is not a bag.',
        example: "print keys = bag_keys(dynamic({'a': 1, 'b': 2}))",
        evaluate: ([bag]) => (isBag(bag) ? Object.keys(bag) : null),
    },
    {
        kind: 'scalar',
        name: 'bag_pack',
        aliases: ['pack'],
        // Axiom's docs: "A common use is bag_pack(*) that gets all fields of your dataset as a bag."
        packsAllColumns: true,
        category: 'array',
        signatures: [{ params: [param('key', 'string'), param('value', 'any'), param('more', 'any', { optional: true, variadic: true })], arity: { min: 2, parity: 'even', shape: 'key/value pairs' } }],
        returns: 'dynamic',
        description: 'Builds a property bag from alternating key and value arguments; `bag_pack(*)` packs every column of the row. `pack` is another name for it.',
        example: "print bag = bag_pack('status', 200, 'method', 'GET')",
        evaluate: args => packPairs(args),
    },
    {
        kind: 'scalar',
        name: 'bag_zip',
        category: 'array',
        signatures: [{ params: [param('keys', 'array'), param('values', 'array')] }],
        returns: 'dynamic',
        description:
            'Pairs an array of keys with an array of values into a property bag. Non-string keys are skipped; keys without a matching value get null.',
        example: "print bag = bag_zip(dynamic(['a', 'b']), dynamic([1, 2]))",
        evaluate: ([k, v]) => bagZip(k, v),
    },
    {
        kind: 'scalar',
        name: 'isarray',
        category: 'array',
        axiomOnly: true,
        signatures: [{ params: [param('value', 'any')] }],
        returns: 'bool',
        description: 'Returns true when the value is a dynamic array.',
        example: 'print a = isarray(dynamic([1, 2]))',
        evaluate: ([v]) => isArray(v),
    },
    {
        kind: 'scalar',
        name: 'len',
        category: 'array',
        axiomOnly: true,
        signatures: [{ params: [param('value', 'any')] }],
        returns: 'long',
        description: 'Returns the number of characters of a string or the number of elements of an array; null for anything else.',
        example: "print n = len('hello')",
        evaluate: ([v]) => len(v),
    },
    {
        kind: 'scalar',
        name: 'pack_array',
        category: 'array',
        signatures: [{ params: [param('value', 'any'), param('more', 'any', { optional: true, variadic: true })], arity: { min: 1 } }],
        returns: 'dynamic',
        description: 'Collects its arguments into a dynamic array, in order.',
        example: "print arr = pack_array(1, 'two', 3.0)",
        evaluate: args => args.map(toJson),
    },
    {
        kind: 'scalar',
        name: 'pack_dictionary',
        category: 'array',
        signatures: [{ params: [param('key', 'string'), param('value', 'any'), param('more', 'any', { optional: true, variadic: true })], arity: { min: 2, parity: 'even', shape: 'key/value pairs' } }],
        returns: 'dynamic',
        description: 'Builds a property bag from alternating key and value arguments, like `bag_pack`.',
        example: "print bag = pack_dictionary('host', 'web-1', 'port', 443)",
        evaluate: args => packPairs(args),
    },
    {
        kind: 'scalar',
        name: 'strcat_array',
        category: 'array',
        signatures: [{ params: [param('array', 'array'), param('delimiter', 'string')] }],
        returns: 'string',
        description: 'Joins the elements of an array into one string with the delimiter between them; null elements become empty strings.',
        example: "print s = strcat_array(dynamic(['a', 'b', 'c']), '-')",
        evaluate: ([arr, delim]) => {
            if (!isArray(arr)) return null;
            const parts = arr.map(valueToText);
            const d = delim === null || delim === undefined ? '' : valueToText(delim);
            const length = parts.reduce((n, t) => n + t.length, 0) + Math.max(0, parts.length - 1) * d.length;
            if (length > MAX_BUILT_STRING_LENGTH) throw new FunctionArgumentError(`strcat_array would build a string of ${length.toLocaleString('en-US')} characters, more than ${MAX_BUILT_STRING_LENGTH.toLocaleString('en-US')}`);
            return parts.join(d);
        },
    },
];

export const FUNCTIONS: ScalarFunction[] = [...ARRAY_FUNCTIONS, ...SERIES_FUNCTIONS];
