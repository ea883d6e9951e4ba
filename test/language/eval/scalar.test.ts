import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/eval/engine.js';
import { scalar, rows } from './helpers.js';

const engine = createEngine({ clock: () => Date.parse('2024-05-02T00:00:00Z') });

/** [APL, expected value of the single cell] — the test name is the APL input. */
const CASES: [string, unknown][] = [
    // nulls (inventory §3.2)
    ['print x = long(null) == long(null)', null],
    ['print x = long(null) == 1', false],
    ['print x = long(null) != long(null)', null],
    ['print x = long(null) != 1', true],
    ['print x = long(null) + 1', null],
    ['print x = long(null) < 1', null],
    ['print x = isnull(long(null))', true],
    ['print x = isempty("")', true],
    ['print x = isnotempty("a")', true],
    ['print x = strlen(tostring(long(null)))', 0],
    // integer overflow wraps, division by zero
    ['print x = 9223372036854775807 + 1', -9223372036854775808],
    ['print x = 7 / 2', 3],
    ['print x = -7 / 2', -3],
    ['print x = 7 % 3', 1],
    ['print x = 7.0 / 2', 3.5],
    ['print x = 1 / 0', null],
    ['print x = 1 % 0', null],
    ['print x = 1.0 / 0', null], // +Inf goes out as null in JSON
    ['print x = isinf(1.0 / 0)', true],
    // APL differs from KQL here, as its docs say (sqrt.mdx: isnan(sqrt(-200.0)) is true; NaN goes out as null in JSON)
    ['print x = isnan(sqrt(-200.0))', true],
    ['print x = sqrt(-200.0)', null],
    ['print x = isnull(sqrt(-200.0))', false],
    // array_extract keeps the JSON type of what it extracts (see docs/language.md, "Where APL differs from KQL")
    ["print x = array_extract(dynamic([{'id': 1, 'value': true}, {'id': 2, 'value': false}]), @'$[*].value')", [true, false]],
    // series_fill_forward leaves leading nulls as they are: nothing comes before them
    ['print x = series_fill_forward(dynamic([null, null, 3, null, 5]))', [null, null, 3, 3, 5]],
    // the week suffix, which KQL lacks (apl check warns, APL0009)
    ['print x = 1w', '168h0m0s'],
    // types and mixed arithmetic
    ['print x = 1 + 2.5', 3.5],
    ['print x = 2h / 30m', 4],
    ['print x = 1h + 30m', '1h30m0s'],
    ['print x = datetime(2024-01-01) + 1d', '2024-01-02T00:00:00Z'],
    ['print x = datetime(2024-01-02) - datetime(2024-01-01)', '24h0m0s'],
    ['print x = 1s * 3', '3s'],
    ['print x = -(5m)', '-5m0s'],
    // between, in, !in, in~
    ['print x = 5 between (1 .. 5)', true],
    ['print x = 6 between (1 .. 5)', false],
    ['print x = 6 !between (1 .. 5)', true],
    ['print x = datetime(2024-01-01T12:00:00Z) between (datetime(2024-01-01) .. 1d)', true],
    ["print x = 'b' in ('a', 'b')", true],
    ["print x = 'B' in ('a', 'b')", false],
    ["print x = 'B' in~ ('a', 'b')", true],
    ["print x = 'c' !in ('a', 'b')", true],
    ["print x = 'B' !in~ ('a', 'b')", false],
    ['print x = 2 in (dynamic([1, [2, 3]]))', true],
    ["let methods = dynamic(['GET', 'POST']); print x = 'POST' in (methods)", true],
    ['print x = 3 in ((datatable(v:long)[1, 3] | where v > 2))', true],
    // has: term boundaries (letters and digits; `_`, `.`, `-` separate terms)
    ["print x = 'hello_world' has 'world'", true],
    ["print x = 'helloworld' has 'world'", false],
    ["print x = 'a.b-c d' has 'b'", true],
    ["print x = 'Error: disk' has 'ERROR'", true],
    ["print x = 'Error: disk' has_cs 'ERROR'", false],
    ["print x = 'foo bar' has 'o b'", false],
    ["print x = 'prefix-suffix' hasprefix 'pre'", true],
    ["print x = 'prefix-suffix' hassuffix 'fix'", true],
    ["print x = 'prefix-suffix' hasprefix 'fix'", false],
    ["print x = 'abc' !has 'abc'", false],
    ["print x = 'Straße München' has 'münchen'", true],
    ["print x = 'x日本語y 東京' has '東京'", true],
    ["print x = 'a b' has_any ('b', 'z')", true],
    // string operators and case rules
    ["print x = 'Hello' contains 'ELL'", true],
    ["print x = 'Hello' contains_cs 'ELL'", false],
    ["print x = 'Hello' !contains 'xyz'", true],
    ["print x = 'Hello' startswith 'he'", true],
    ["print x = 'Hello' startswith_cs 'he'", false],
    ["print x = 'Hello' endswith 'LO'", true],
    ["print x = 'Hello' =~ 'hello'", true],
    ["print x = 'Hello' == 'hello'", false],
    ["print x = 'Hello' !~ 'HELLO'", false],
    ["print x = 'abc123' matches regex '[a-z]+\\\\d+'", true],
    ["print x = 'abc' !matches regex '^\\\\d'", true],
    ["print x = 'Ünïcödé' =~ 'üNÏCÖDÉ'", true],
    ["print x = toupper('straße')", 'STRASSE'],
    // comparisons across types (string-typed numbers)
    ["print x = '500' == 500", true],
    ["print x = 'b' > 'a'", true],
    ['print x = datetime(2024-01-01) < datetime(2024-01-02)', true],
    // times at bin edges
    ['print x = bin(datetime(2024-01-01T10:59:59.999999999Z), 1h)', '2024-01-01T10:00:00Z'],
    ['print x = bin(datetime(2024-01-01T11:00:00Z), 1h)', '2024-01-01T11:00:00Z'],
    ['print x = bin(datetime(1969-12-31T23:30:00Z), 1h)', '1969-12-31T23:00:00Z'],
    ['print x = bin(-7, 5)', -10],
    ['print x = bin(7.5, 2)', 6],
    ['print x = bin(datetime(2024-01-01T00:00:00.123456789Z), 1ms)', '2024-01-01T00:00:00.123Z'],
    ['print x = datetime(2024-01-01T00:00:00.123456789Z)', '2024-01-01T00:00:00.123456789Z'],
    // conditional, conversion, dynamic access
    ["print x = iff(1 > 2, 'a', 'b')", 'b'],
    ["print x = case(1 > 2, 'a', 2 > 1, 'b', 'c')", 'b'],
    ["print x = toint('42') + 1", 43],
    ["print x = tostring(1.5)", '1.5'],
    ["print x = parse_json('{\"a\":{\"b\":[1,2]}}').a.b[1]", 2],
    ["print x = dynamic({'k': 'v'})['k']", 'v'],
    ["print x = dynamic(['a'])", ['a']],
    ['print x = array_length(dynamic([1, 2, 3]))', 3],
    ["print x = strcat('a', 1, true)", 'a1true'],
    ['print x = not(true)', false],
    ['print x = true and bool(null)', null],
    ['print x = false and bool(null)', false],
    ['print x = true or bool(null)', true],
];

describe('scalar semantics', () => {
    for (const [apl, expected] of CASES) {
        it(apl, async () => {
            expect(await scalar(engine, apl)).toEqual(expected);
        });
    }

    it('datatable(s:string)[] | count (empty input)', async () => {
        expect(await rows(engine, 'datatable(s:string)[] | count')).toEqual([{ count: 0 }]);
    });
    it('datatable(s:string)[] | summarize count() by s (no groups)', async () => {
        expect(await rows(engine, 'datatable(s:string)[] | summarize count() by s')).toEqual([]);
    });
    it("datatable(v:dynamic)[1, 'a', 2.5] | extend t = gettype(v) (mixed types)", async () => {
        expect(await rows(engine, "datatable(v:dynamic)[1, 'a', 2.5] | extend t = gettype(v) | project t")).toEqual([{ t: 'long' }, { t: 'string' }, { t: 'real' }]);
    });
});
