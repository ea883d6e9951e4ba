import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../../language/builtins/functions-text.js';
import { acceptsArgumentCount, arityOf } from '../../../language/builtins/index.js';
import type { EvalContext, ScalarFunction } from '../../../language/builtins/catalogue-types.js';
import type { AplType } from '../../../language/types/apl-types.js';
import { Datetime, Timespan, type AplValue } from '../../../language/values.js';
import { loadCorpus } from '../../support/corpus.js';

const byName = new Map<string, ScalarFunction>();
for (const f of FUNCTIONS) for (const n of [f.name, ...(f.aliases ?? [])]) byName.set(n, f);

function staticTypeOf(v: AplValue): AplType {
    if (v === null) return 'unknown';
    if (typeof v === 'string') return 'string';
    if (typeof v === 'boolean') return 'bool';
    if (typeof v === 'number') return Number.isInteger(v) ? 'long' : 'real';
    if (v instanceof Datetime) return 'datetime';
    if (v instanceof Timespan) return 'timespan';
    return 'dynamic';
}

/** Calls a catalogue entry's `evaluate`; argument types are inferred from the values unless given. */
function ev(name: string, args: AplValue[], argTypes?: AplType[]): AplValue {
    const f = byName.get(name);
    if (!f) throw new Error(`no function ${name}`);
    if (!f.evaluate) throw new Error(`${name} has no evaluate`);
    const types = argTypes ?? args.map(staticTypeOf);
    const ctx: EvalContext = {
        argTypes: types,
        resultType: typeof f.returns === 'function' ? f.returns(types) : f.returns,
        now: 0n,
    };
    return f.evaluate(args, ctx);
}

const dt = (s: string) => new Datetime(BigInt(Date.parse(s)) * 1_000_000n);
const ts = (ns: bigint) => new Timespan(ns);
const SEC = 1_000_000_000n;

// ---------------------------------------------------------------------------------------------
// The inventory's names and arities (APL-INVENTORY.md §6), used to check the catalogue's shape.
// ---------------------------------------------------------------------------------------------

const DOCUMENTED_ARITIES: Record<string, [number, number]> = {
    // String (55 names)
    base64_decode_toarray: [1, 1], base64_decode_tostring: [1, 1], base64_encode_fromarray: [1, 1], base64_encode_tostring: [1, 1],
    coalesce: [1, 64], countof: [2, 2], countof_regex: [2, 2], extract: [3, 3], extract_all: [3, 3], format_bytes: [1, 4],
    format_url: [1, 1], gettype: [1, 1], indexof: [2, 5], indexof_regex: [2, 5], isascii: [1, 1], isempty: [1, 1],
    isnotempty: [1, 1], isnotnull: [1, 1], isnull: [1, 1], parse_bytes: [1, 2], parse_csv: [1, 1], parse_json: [1, 1],
    parse_path: [1, 1], parse_url: [1, 1], parse_urlquery: [1, 1], quote: [1, 1], regex_quote: [1, 1], replace: [3, 3],
    replace_regex: [3, 3], replace_string: [3, 3], reverse: [1, 1], split: [2, 2], strcat: [1, 64], strcat_delim: [3, 65],
    strcmp: [2, 2], string_size: [1, 1], strip_ansi_escapes: [1, 1], strlen: [1, 1], strrep: [2, 3], substring: [2, 3],
    tolower: [1, 1], totitle: [1, 1], toupper: [1, 1], translate: [3, 3], trim: [2, 2], trim_end: [2, 2], trim_end_regex: [2, 2],
    trim_regex: [2, 2], trim_space: [1, 1], trim_start: [2, 2], trim_start_regex: [2, 2], unicode_codepoints_from_string: [1, 1],
    unicode_codepoints_to_string: [1, 1], url_decode: [1, 1], url_encode: [1, 1],
    // Hash (5)
    hash: [1, 2], hash_md5: [1, 1], hash_sha1: [1, 1], hash_sha256: [1, 1], hash_sha512: [1, 1],
    // Conversion (12 rows, 14 names)
    dynamic_to_json: [1, 1], ensure_field: [2, 2], isbool: [1, 1], toarray: [1, 1], tobool: [1, 1], todatetime: [1, 1],
    todouble: [1, 1], toreal: [1, 1], todynamic: [1, 1], tohex: [1, 2], toint: [1, 1], tolong: [1, 1], tostring: [1, 1], totimespan: [1, 1],
    // Type-check (6)
    iscc: [1, 1], isimei: [1, 1], ismap: [1, 1], isreal: [1, 1], isstring: [1, 1], isutf8: [1, 1],
    // Conditional (2); case is odd and unbounded
    case: [3, 99], iff: [3, 3],
    // Metadata (3)
    column_ifexists: [2, 2], cursor_current: [0, 0], ingestion_time: [0, 0],
    // Pair (3)
    find_pair: [3, 4], pair: [2, 3], parse_pair: [1, 2],
    // SQL (2)
    format_sql: [1, 1], parse_sql: [1, 1],
};

describe('catalogue shape (functions-text)', () => {
    it('lists every documented name exactly once (87 entries, 91 names)', () => {
        const names = FUNCTIONS.flatMap(f => [f.name, ...(f.aliases ?? [])]);
        expect(new Set(names).size).toBe(names.length);
        expect(new Set(names)).toEqual(new Set(Object.keys(DOCUMENTED_ARITIES)));
        expect(FUNCTIONS.length).toBe(87);
    });

    it('puts the documented aliases on one entry', () => {
        expect(byName.get('toreal')).toBe(byName.get('todouble'));
        expect(byName.get('tolong')).toBe(byName.get('toint'));
        expect(byName.get('replace')).toBe(byName.get('replace_regex'));
    });

    for (const f of FUNCTIONS) {
        it(`${f.name} has a description, an example and a signature`, () => {
            expect(f.kind).toBe('scalar');
            expect(f.description.length).toBeGreaterThan(20);
            expect(f.example).toContain(f.name === 'replace_regex' ? 'replace' : f.name);
            expect(f.signatures.length).toBeGreaterThan(0);
            // Either it evaluates, or it says who does / why not.
            expect(Boolean(f.evaluate) || f.evaluatedBy === 'evaluator' || Boolean(f.unsupported)).toBe(true);
        });
    }

    for (const [name, [min, max]] of Object.entries(DOCUMENTED_ARITIES)) {
        it(`${name} accepts ${min}..${max === 99 ? 'N' : max} arguments and no others`, () => {
            const f = byName.get(name)!;
            for (let n = min; n <= max; n++) {
                const ok = name === 'case' ? n % 2 === 1 : true;
                expect(acceptsArgumentCount(f, n), `${name} with ${n} args`).toBe(ok);
            }
            if (min > 0) expect(acceptsArgumentCount(f, min - 1)).toBe(false);
            if (max !== 99) expect(acceptsArgumentCount(f, max + 1)).toBe(false);
        });
    }

    it('case takes an odd count of at least 3, strcat 1..64, strcat_delim 3..65', () => {
        const c = byName.get('case')!;
        expect([2, 3, 4, 5, 6, 7].map(n => acceptsArgumentCount(c, n))).toEqual([false, true, false, true, false, true]);
        expect(arityOf(byName.get('strcat')!.signatures[0])).toEqual({ min: 1, max: 64 });
        expect(arityOf(byName.get('strcat_delim')!.signatures[0])).toEqual({ min: 3, max: 65 });
    });

    it('marks the context-dependent functions as evaluated by the evaluator', () => {
        const byEvaluator = FUNCTIONS.filter(f => f.evaluatedBy === 'evaluator').map(f => f.name).sort();
        expect(byEvaluator).toEqual(['column_ifexists', 'cursor_current', 'ensure_field', 'ingestion_time']);
        for (const name of byEvaluator) expect(byName.get(name)!.evaluate).toBeUndefined();
        expect(FUNCTIONS.filter(f => f.unsupported)).toEqual([]);
    });

    it('marks the Axiom-only names of inventory §7.8', () => {
        const axiomOnly = FUNCTIONS.filter(f => f.axiomOnly).map(f => f.name).sort();
        expect(axiomOnly).toEqual(
            [
                'countof_regex', 'ensure_field', 'find_pair', 'pair', 'parse_pair', 'format_sql', 'parse_sql', 'format_url', 'hash_sha512',
                'isbool', 'iscc', 'isimei', 'ismap', 'isreal', 'isstring', 'isutf8', 'parse_bytes', 'quote', 'strip_ansi_escapes', 'toarray',
                'totitle', 'trim_space', 'trim_regex', 'trim_start_regex', 'trim_end_regex',
            ].sort(),
        );
    });
});

describe('return rules', () => {
    const ret = (name: string, types: AplType[]) => {
        const r = byName.get(name)!.returns;
        return typeof r === 'function' ? r(types) : r;
    };
    it('iff(p, 1, 2) is long; iff(p, dynamic(null), "x") is dynamic', () => {
        expect(ret('iff', ['bool', 'long', 'long'])).toBe('long');
        expect(ret('iff', ['bool', 'dynamic', 'string'])).toBe('dynamic');
        expect(ret('iff', ['bool', 'unknown', 'string'])).toBe('string');
    });
    it('case(c, "a", c, "b", "c") is string', () => {
        expect(ret('case', ['bool', 'string', 'bool', 'string', 'string'])).toBe('string');
        expect(ret('case', ['bool', 'unknown', 'bool', 'unknown', 'real'])).toBe('real');
    });
    it('coalesce(x, 1.5) takes the first known type', () => {
        expect(ret('coalesce', ['unknown', 'real'])).toBe('real');
        expect(ret('coalesce', ['long', 'long'])).toBe('long');
    });
    it('column_ifexists(name, 0) has the type of the default', () => {
        expect(ret('column_ifexists', ['string', 'long'])).toBe('long');
    });
    it('fixed types: strlen is long, tostring is string, todatetime is datetime', () => {
        expect(ret('strlen', ['string'])).toBe('long');
        expect(ret('tostring', ['real'])).toBe('string');
        expect(ret('todatetime', ['string'])).toBe('datetime');
        expect(ret('toreal', ['string'])).toBe('real');
    });
});

// ---------------------------------------------------------------------------------------------
// Golden cases, one `it` per APL call
// ---------------------------------------------------------------------------------------------

type Case = [title: string, name: string, args: AplValue[], expected: AplValue, argTypes?: AplType[]];

function runCases(group: string, cases: Case[]): void {
    describe(group, () => {
        for (const [title, name, args, expected, argTypes] of cases) {
            it(title, () => {
                expect(ev(name, args, argTypes)).toEqual(expected);
            });
        }
    });
}

runCases('string functions', [
    // base64
    ["base64_encode_tostring('Kusto') == 'S3VzdG8='", 'base64_encode_tostring', ['Kusto'], 'S3VzdG8='],
    ["base64_encode_tostring('héllo') == 'aMOpbGxv'", 'base64_encode_tostring', ['héllo'], 'aMOpbGxv'],
    ["base64_encode_tostring(string(null)) == ''", 'base64_encode_tostring', [null], ''],
    ["base64_decode_tostring('VGhpcyBpcyBhIHRlc3QgbWVzc2FnZQ==') == 'This is a test message'", 'base64_decode_tostring', ['VGhpcyBpcyBhIHRlc3QgbWVzc2FnZQ=='], 'This is a test message'],
    ["base64_decode_tostring('aMOpbGxv') == 'héllo'", 'base64_decode_tostring', ['aMOpbGxv'], 'héllo'],
    ["base64_decode_tostring('/w==') is null (not UTF-8)", 'base64_decode_tostring', ['/w=='], null],
    ["base64_decode_tostring('not base64!') is null", 'base64_decode_tostring', ['not base64!'], null],
    ["base64_decode_toarray('S3VzdG8=') == [75,117,115,116,111]", 'base64_decode_toarray', ['S3VzdG8='], [75, 117, 115, 116, 111]],
    ["base64_decode_toarray('') == []", 'base64_decode_toarray', [''], []],
    ["base64_encode_fromarray(dynamic([75,117,115,116,111])) == 'S3VzdG8='", 'base64_encode_fromarray', [[75, 117, 115, 116, 111]], 'S3VzdG8='],
    ["base64_encode_fromarray(dynamic([256])) is null", 'base64_encode_fromarray', [[256]], null],
    ["base64_encode_fromarray(dynamic(null)) is null", 'base64_encode_fromarray', [null], null],
    // coalesce
    ["coalesce(long(null), 2, 3) == 2", 'coalesce', [null, 2, 3], 2, ['long', 'long', 'long']],
    ["coalesce('', 'b') == 'b'", 'coalesce', ['', 'b'], 'b'],
    ["coalesce(real(null), real(null)) is null", 'coalesce', [null, null], null, ['real', 'real']],
    ["coalesce(dynamic(null), dynamic([1])) == [1]", 'coalesce', [null, [1]], [1], ['dynamic', 'dynamic']],
    // countof
    ["countof('/', '/api/v1/users') == 3", 'countof', ['/', '/api/v1/users'], 3],
    ["countof('aa', 'aaaa') == 2 (non-overlapping)", 'countof', ['aa', 'aaaa'], 2],
    ["countof('', 'abc') == 0", 'countof', ['', 'abc'], 0],
    ["countof('é', 'éé') == 2", 'countof', ['é', 'éé'], 2],
    ["countof_regex('[0-9]+', '/a/12/b/345') == 2", 'countof_regex', ['[0-9]+', '/a/12/b/345'], 2],
    ["countof_regex('(?i)get', 'GET get Get') == 3", 'countof_regex', ['(?i)get', 'GET get Get'], 3],
    // extract
    ["extract('user-([0-9]+)', 1, '/api/user-42/x') == '42'", 'extract', ['user-([0-9]+)', 1, '/api/user-42/x'], '42'],
    ["extract('user-([0-9]+)', 0, '/api/user-42/x') == 'user-42'", 'extract', ['user-([0-9]+)', 0, '/api/user-42/x'], 'user-42'],
    ["extract('x([0-9]+)', 1, 'abc') is null", 'extract', ['x([0-9]+)', 1, 'abc'], null],
    ["extract('(a)', 2, 'a') is null", 'extract', ['(a)', 2, 'a'], null],
    ["extract('(?P<n>[0-9]+)', 1, 'id=7') == '7'", 'extract', ['(?P<n>[0-9]+)', 1, 'id=7'], '7'],
    ["extract('(?i)ERROR: (\\\\w+)', 1, 'error: disk') == 'disk'", 'extract', ['(?i)ERROR: (\\w+)', 1, 'error: disk'], 'disk'],
    ["extract_all('([0-9]+)', dynamic([1]), '/api/users/123/posts/456') == ['123','456']", 'extract_all', ['([0-9]+)', [1], '/api/users/123/posts/456'], ['123', '456']],
    ["extract_all('(\\\\w)(\\\\w+)(\\\\w)', dynamic([1,3]), 'The quick fox') == [['T','e'],['q','k'],['f','x']]", 'extract_all', ['(\\w)(\\w+)(\\w)', [1, 3], 'The quick fox'], [['T', 'e'], ['q', 'k'], ['f', 'x']]],
    ["extract_all('(?P<k>\\\\w+)=(?P<v>\\\\w+)', dynamic(['v']), 'a=1 b=2') == ['1','2']", 'extract_all', ['(?P<k>\\w+)=(?P<v>\\w+)', ['v'], 'a=1 b=2'], ['1', '2']],
    ["extract_all('([0-9]+)', dynamic([1]), 'none') is null", 'extract_all', ['([0-9]+)', [1], 'none'], null],
    // format_bytes / parse_bytes
    ["format_bytes(8765432, 2) == '8.36 MB'", 'format_bytes', [8765432, 2], '8.36 MB'],
    ["format_bytes(456789, 2) == '446.08 KB'", 'format_bytes', [456789, 2], '446.08 KB'],
    ["format_bytes(870400, 1) == '850.0 KB'", 'format_bytes', [870400, 1], '850.0 KB'],
    ["format_bytes(564) == '564 Bytes'", 'format_bytes', [564], '564 Bytes'],
    ["format_bytes(20382528) == '19 MB'", 'format_bytes', [20382528], '19 MB'],
    ["format_bytes(4000, 2, 'kB', 10) == '4.00 kB'", 'format_bytes', [4000, 2, 'kB', 10], '4.00 kB'],
    ["format_bytes(1048576, 0, 'KiB') == '1024 KiB'", 'format_bytes', [1048576, 0, 'KiB'], '1024 KiB'],
    ["format_bytes(1500, 1, '', 10) == '1.5 kB'", 'format_bytes', [1500, 1, '', 10], '1.5 kB'],
    ["format_bytes(long(null)) is null", 'format_bytes', [null], null, ['long']],
    ["format_bytes(1, 0, 'furlongs') is null", 'format_bytes', [1, 0, 'furlongs'], null],
    ["parse_bytes('512 KB') == 524288", 'parse_bytes', ['512 KB'], 524288],
    ["parse_bytes('256 KB', 2) == 262144", 'parse_bytes', ['256 KB', 2], 262144],
    ["parse_bytes('10 MB') == 10485760", 'parse_bytes', ['10 MB'], 10485760],
    ["parse_bytes('1 KB', 10) == 1000", 'parse_bytes', ['1 KB', 10], 1000],
    ["parse_bytes('1.5 GiB', 10) == 1610612736", 'parse_bytes', ['1.5 GiB', 10], 1610612736],
    ["parse_bytes('42') == 42", 'parse_bytes', ['42'], 42],
    ["parse_bytes('lots') == 0", 'parse_bytes', ['lots'], 0],
    // format_url
    ["format_url(dynamic({'scheme':'https','host':'api.example.com','path':'/api/users'})) == 'https://api.example.com/api/users'", 'format_url', [{ scheme: 'https', host: 'api.example.com', path: '/api/users' }], 'https://api.example.com/api/users'],
    ["format_url(dynamic({'scheme':'http','host':'localhost','port':8080,'path':'/frontend'})) == 'http://localhost:8080/frontend'", 'format_url', [{ scheme: 'http', host: 'localhost', port: 8080, path: '/frontend' }], 'http://localhost:8080/frontend'],
    ["format_url(dynamic({'scheme':'https','host':'h','path':'/a','user':'u1','query':{'q':'a b'},'fragment':'f'})) == 'https://u1@h/a?q=a+b#f'", 'format_url', [{ scheme: 'https', host: 'h', path: '/a', user: 'u1', query: { q: 'a b' }, fragment: 'f' }], 'https://u1@h/a?q=a+b#f'],
    ["format_url('not a bag') is null", 'format_url', ['not a bag'], null],
    // gettype
    ["gettype('a') == 'string'", 'gettype', ['a'], 'string'],
    ["gettype(1) == 'long'", 'gettype', [1], 'long'],
    ["gettype(1.0) == 'real'", 'gettype', [1], 'real', ['real']],
    ["gettype(true) == 'bool'", 'gettype', [true], 'bool'],
    ["gettype(datetime(2024-01-01)) == 'datetime'", 'gettype', [dt('2024-01-01T00:00:00Z')], 'datetime'],
    ["gettype(1m) == 'timespan'", 'gettype', [ts(60n * SEC)], 'timespan'],
    ["gettype(dynamic([1])) == 'array'", 'gettype', [[1]], 'array'],
    ["gettype(dynamic({'a':1})) == 'dictionary'", 'gettype', [{ a: 1 }], 'dictionary'],
    ["gettype(dynamic(2.5)) == 'real'", 'gettype', [2.5], 'real', ['dynamic']],
    ["gettype(dynamic(null)) == 'null'", 'gettype', [null], 'null', ['dynamic']],
    // indexof
    ["indexof('/api/v2/users', '/api/') == 0", 'indexof', ['/api/v2/users', '/api/'], 0],
    ["indexof('/api/v2/users', '/v', 0) == 4", 'indexof', ['/api/v2/users', '/v', 0], 4],
    ["indexof('abcdefg', 'cde', 1, 4) == 2", 'indexof', ['abcdefg', 'cde', 1, 4], 2],
    ["indexof('abcdefg', 'cde', 1, 2) == -1", 'indexof', ['abcdefg', 'cde', 1, 2], -1],
    ["indexof('abcabc', 'bc', 0, -1, 2) == 4", 'indexof', ['abcabc', 'bc', 0, -1, 2], 4],
    ["indexof('abc', 'x') == -1", 'indexof', ['abc', 'x'], -1],
    ["indexof('abc', 'b', -1) is null", 'indexof', ['abc', 'b', -1], null],
    ["indexof('abc', 'b', 0, -1, 0) is null", 'indexof', ['abc', 'b', 0, -1, 0], null],
    ["indexof('😀é', 'é') == 1", 'indexof', ['😀é', 'é'], 1],
    ["indexof('abc', 'a', 10) == -1", 'indexof', ['abc', 'a', 10], -1],
    ["indexof_regex('/api/user-12345/settings', 'user-[0-9]+') == 5", 'indexof_regex', ['/api/user-12345/settings', 'user-[0-9]+'], 5],
    // The doc page prints 20 here; the match really starts at character 19.
    ["indexof_regex('/cgi-bin/view?path=/etc/passwd', '/etc/passwd') == 19", 'indexof_regex', ['/cgi-bin/view?path=/etc/passwd', '/etc/passwd'], 19],
    ["indexof_regex('a1b2c3', '[0-9]', 0, 2) == 3", 'indexof_regex', ['a1b2c3', '[0-9]', 0, 2], 3],
    ["indexof_regex('a1b2c3', '[0-9]', 2) == 3", 'indexof_regex', ['a1b2c3', '[0-9]', 2], 3],
    ["indexof_regex('😀x1', '[0-9]') == 2", 'indexof_regex', ['😀x1', '[0-9]'], 2],
    ["indexof_regex('abc', 'z') == -1", 'indexof_regex', ['abc', 'z'], -1],
    ["indexof_regex('abc', 'b', 0, 0) is null", 'indexof_regex', ['abc', 'b', 0, 0], null],
    ["indexof_regex('abc', 'b', 0, 1, -2) is null", 'indexof_regex', ['abc', 'b', 0, 1, -2], null],
    // is*
    ["isascii('/api/users') == true", 'isascii', ['/api/users'], true],
    ["isascii('change£') == false", 'isascii', ['change£'], false],
    ["isempty('') == true", 'isempty', [''], true],
    ["isempty(string(null)) == true", 'isempty', [null], true, ['string']],
    ["isempty('x') == false", 'isempty', ['x'], false],
    ["isempty(0) == false", 'isempty', [0], false],
    ["isempty(parse_json('[]')) == true", 'isempty', [[]], true],
    ["isempty(parse_json('{}')) == true", 'isempty', [{}], true],
    ["isnotempty(' ') == true", 'isnotempty', [' '], true],
    ["isnotempty('') == false", 'isnotempty', [''], false],
    ["isnull(long(null)) == true", 'isnull', [null], true, ['long']],
    ["isnull('') == false", 'isnull', [''], false],
    ["isnotnull(0) == true", 'isnotnull', [0], true],
    ["isnotnull(dynamic(null)) == false", 'isnotnull', [null], false, ['dynamic']],
    // parse_csv / parse_json
    ["parse_csv('aa,\"b,b,b\",cc,\"Escaping quotes: \"\"Title\"\"\"') == ['aa','b,b,b','cc','Escaping quotes: \"Title\"']", 'parse_csv', ['aa,"b,b,b",cc,"Escaping quotes: ""Title"""'], ['aa', 'b,b,b', 'cc', 'Escaping quotes: "Title"']],
    ["parse_csv('a,b\\nc,d') == ['a','b'] (first record only)", 'parse_csv', ['a,b\nc,d'], ['a', 'b']],
    ["parse_csv('\"line1\\nline2\",x') == ['line1\\nline2','x']", 'parse_csv', ['"line1\nline2",x'], ['line1\nline2', 'x']],
    ["parse_csv('') == ['']", 'parse_csv', [''], ['']],
    ["parse_json('{\"a\":1,\"b\":[1,2]}') == {a:1,b:[1,2]}", 'parse_json', ['{"a":1,"b":[1,2]}'], { a: 1, b: [1, 2] }],
    ["parse_json('[\"frontend\",\"cart\"]') == ['frontend','cart']", 'parse_json', ['["frontend","cart"]'], ['frontend', 'cart']],
    ["parse_json('not json') == 'not json'", 'parse_json', ['not json'], 'not json'],
    ["parse_json('17') == 17", 'parse_json', ['17'], 17],
    ["parse_json(dynamic({'a':1})) == {a:1}", 'parse_json', [{ a: 1 }], { a: 1 }],
    ["parse_json(string(null)) is null", 'parse_json', [null], null],
    ["parse_json(datetime(2024-01-01)) == '2024-01-01T00:00:00Z'", 'parse_json', [dt('2024-01-01T00:00:00Z')], '2024-01-01T00:00:00Z'],
    // parse_path
    ["parse_path('/api/v1/messages/users')", 'parse_path', ['/api/v1/messages/users'], { Scheme: '', RootPath: '', DirectoryPath: '/api/v1/messages', DirectoryName: 'messages', Filename: 'users', Extension: '', AlternateDataStream: '' }],
    ["parse_path('C:\\\\temp\\\\file.txt:stream')", 'parse_path', ['C:\\temp\\file.txt:stream'], { Scheme: '', RootPath: 'C:', DirectoryPath: 'C:\\temp', DirectoryName: 'temp', Filename: 'file.txt', Extension: 'txt', AlternateDataStream: 'stream' }],
    ["parse_path('https://storage.example.net/container/dir/file.csv')", 'parse_path', ['https://storage.example.net/container/dir/file.csv'], { Scheme: 'https', RootPath: 'storage.example.net', DirectoryPath: 'https://storage.example.net/container/dir', DirectoryName: 'dir', Filename: 'file.csv', Extension: 'csv', AlternateDataStream: '' }],
    // parse_url / parse_urlquery
    ["parse_url('https://user:pw@api.example.com:8443/api/users?page=1&sort=a%20b#top')", 'parse_url', ['https://user:pw@api.example.com:8443/api/users?page=1&sort=a%20b#top'], { scheme: 'https', host: 'api.example.com', port: '8443', path: '/api/users', username: 'user', password: 'pw', query: { page: '1', sort: 'a b' }, fragment: 'top' }],
    ["parse_url('http://example.com/../../etc/passwd').path == '/../../etc/passwd'", 'parse_url', ['http://example.com/../../etc/passwd'], { scheme: 'http', host: 'example.com', port: '', path: '/../../etc/passwd', username: '', password: '', query: {}, fragment: '' }],
    ["parse_url('http://[::1]:80/') has host '::1'", 'parse_url', ['http://[::1]:80/'], { scheme: 'http', host: '::1', port: '80', path: '/', username: '', password: '', query: {}, fragment: '' }],
    ["parse_url('/relative/path') is null", 'parse_url', ['/relative/path'], null],
    ["parse_urlquery('page=1&limitation=50&sort=date')", 'parse_urlquery', ['page=1&limitation=50&sort=date'], { page: '1', limitation: '50', sort: 'date' }],
    ["parse_urlquery('?user_id=12345&action=checkout')", 'parse_urlquery', ['?user_id=12345&action=checkout'], { user_id: '12345', action: 'checkout' }],
    ["parse_urlquery('search=<script>&id=1 OR 1=1')", 'parse_urlquery', ['search=<script>&id=1 OR 1=1'], { search: '<script>', id: '1 OR 1=1' }],
    ["parse_urlquery('/p?a=1&a=2&b=x+y#frag')", 'parse_urlquery', ['/p?a=1&a=2&b=x+y#frag'], { a: '1', b: 'x y' }],
    ["parse_urlquery('') == {}", 'parse_urlquery', [''], {}],
    // quote / regex_quote
    ["quote('say \"hi\"') == '\"say \\\\\"hi\\\\\"\"'", 'quote', ['say "hi"'], '"say \\"hi\\""'],
    ["quote('a\\tb\\u0001é') == '\"a\\\\tb\\\\x01é\"'", 'quote', ['a\tb\u0001é'], '"a\\tb\\x01é"'],
    ["regex_quote('/api/v1/users[1]') == '/api/v1/users\\\\[1\\\\]'", 'regex_quote', ['/api/v1/users[1]'], '/api/v1/users\\[1\\]'],
    ["regex_quote('hello.*world') == 'hello\\\\.\\\\*world'", 'regex_quote', ['hello.*world'], 'hello\\.\\*world'],
    // replace_regex / replace / replace_string
    ["replace_regex('^(2[0-9]{2})$', 'SUCCESS-$1', '200') == 'SUCCESS-200'", 'replace_regex', ['^(2[0-9]{2})$', 'SUCCESS-$1', '200'], 'SUCCESS-200'],
    ["replace_regex('([0-9]+)ms', '$1 milliseconds', '125ms') == '125 milliseconds'", 'replace_regex', ['([0-9]+)ms', '$1 milliseconds', '125ms'], '125 milliseconds'],
    ["replace_regex('([0-9]{4})[0-9]{8}([0-9]{4})', '$1********$2', '/api?cc=1234567890123456') == '/api?cc=1234********3456'", 'replace_regex', ['([0-9]{4})[0-9]{8}([0-9]{4})', '$1********$2', '/api?cc=1234567890123456'], '/api?cc=1234********3456'],
    ["replace_regex('(\\\\w+)@(\\\\w+)', '\\\\2 at \\\\1', 'me@host') == 'host at me'", 'replace_regex', ['(\\w+)@(\\w+)', '\\2 at \\1', 'me@host'], 'host at me'],
    ["replace_regex('(?P<d>[0-9])', '<${d}>', 'a1b2') == 'a<1>b<2>'", 'replace_regex', ['(?P<d>[0-9])', '<${d}>', 'a1b2'], 'a<1>b<2>'],
    ["replace_regex('x', '$$', 'axb') == 'a$b'", 'replace_regex', ['x', '$$', 'axb'], 'a$b'],
    ["replace_regex('([0-9])', '${1}x', 'a1') == 'a1x'", 'replace_regex', ['([0-9])', '${1}x', 'a1'], 'a1x'],
    ["replace_regex('', '-', 'ab') == '-a-b-'", 'replace_regex', ['', '-', 'ab'], '-a-b-'],
    ["replace_regex('é', 'e', 'héé') == 'hee'", 'replace_regex', ['é', 'e', 'héé'], 'hee'],
    ["replace('[a-z0-9._%+-]+@[a-z0-9.-]+[.][a-z]{2,}', '[EMAIL_REDACTED]', '/api?email=user@example.com') == '/api?email=[EMAIL_REDACTED]'", 'replace', ['[a-z0-9._%+-]+@[a-z0-9.-]+[.][a-z]{2,}', '[EMAIL_REDACTED]', '/api?email=user@example.com'], '/api?email=[EMAIL_REDACTED]'],
    ["replace('-(dev|staging|prod)$', '', 'cart-prod') == 'cart'", 'replace', ['-(dev|staging|prod)$', '', 'cart-prod'], 'cart'],
    ["replace_string('GET', 'Retrieve', 'GET') == 'Retrieve'", 'replace_string', ['GET', 'Retrieve', 'GET'], 'Retrieve'],
    ["replace_string('.1.', '.X.', '192.168.1.XXX') == '192.168.X.XXX'", 'replace_string', ['.1.', '.X.', '192.168.1.XXX'], '192.168.X.XXX'],
    ["replace_string('a.c', 'x', 'abc a.c') == 'abc x' (no regex)", 'replace_string', ['a.c', 'x', 'abc a.c'], 'abc x'],
    ["replace_string('', 'x', 'abc') == 'abc'", 'replace_string', ['', 'x', 'abc'], 'abc'],
    // reverse / split
    ["reverse('/admin') == 'nimda/'", 'reverse', ['/admin'], 'nimda/'],
    ["reverse('a😀é') == 'é😀a'", 'reverse', ['a😀é'], 'é😀a'],
    ["reverse(123) == '321'", 'reverse', [123], '321'],
    ["reverse(string(null)) == ''", 'reverse', [null], ''],
    ["split('/api/users/1', '/') == ['','api','users','1']", 'split', ['/api/users/1', '/'], ['', 'api', 'users', '1']],
    ["split('sql_injection,xss,path_traversal', ',') == ['sql_injection','xss','path_traversal']", 'split', ['sql_injection,xss,path_traversal', ','], ['sql_injection', 'xss', 'path_traversal']],
    ["split('frontend', '-') == ['frontend']", 'split', ['frontend', '-'], ['frontend']],
    ["split('', ',') == ['']", 'split', ['', ','], ['']],
    ["split('a😀', '') == ['a','😀']", 'split', ['a😀', ''], ['a', '😀']],
    // strcat / strcat_delim / strcmp
    ["strcat('Service: ', 'frontend', ', Status: ', 200) == 'Service: frontend, Status: 200'", 'strcat', ['Service: ', 'frontend', ', Status: ', 200], 'Service: frontend, Status: 200'],
    ["strcat('a', string(null), 'b') == 'ab'", 'strcat', ['a', null, 'b'], 'ab'],
    ["strcat('d=', 1m20s, ' t=', true, ' r=', 1.5) == 'd=1m20s t=true r=1.5'", 'strcat', ['d=', ts(80n * SEC), ' t=', true, ' r=', 1.5], 'd=1m20s t=true r=1.5'],
    ["strcat_delim(':', 'GET', 200, '/x') == 'GET:200:/x'", 'strcat_delim', [':', 'GET', 200, '/x'], 'GET:200:/x'],
    ["strcat_delim('-', 'a', string(null)) == 'a-'", 'strcat_delim', ['-', 'a', null], 'a-'],
    ["strcmp('abc', 'abd') == -1", 'strcmp', ['abc', 'abd'], -1],
    ["strcmp('b', 'a') == 1", 'strcmp', ['b', 'a'], 1],
    ["strcmp('x', 'x') == 0", 'strcmp', ['x', 'x'], 0],
    ["strcmp('\\uffff', '😀') == -1 (code point order)", 'strcmp', ['\uffff', '😀'], -1],
    ["strcmp('', 'a') == -1", 'strcmp', ['', 'a'], -1],
    // string_size / strlen
    ["string_size('héllo') == 6", 'string_size', ['héllo'], 6],
    ["string_size('😀') == 4", 'string_size', ['😀'], 4],
    ['strlen("héllo") == 5', 'strlen', ['héllo'], 5],
    ['strlen("😀") == 1', 'strlen', ['😀'], 1],
    ['strlen("user☠️999") == 9 (☠ + variation selector)', 'strlen', ['user☠️999'], 9],
    ['strlen("") == 0', 'strlen', [''], 0],
    ['strlen(string(null)) == 0', 'strlen', [null], 0],
    ['strlen(12345) == 5', 'strlen', [12345], 5],
    // strip_ansi_escapes
    ["strip_ansi_escapes('\\u001b[31mred\\u001b[0m') == 'red'", 'strip_ansi_escapes', ['\u001b[31mred\u001b[0m'], 'red'],
    ["strip_ansi_escapes('\\u001b]0;title\\u0007text') == 'text'", 'strip_ansi_escapes', ['\u001b]0;title\u0007text'], 'text'],
    ["strip_ansi_escapes('plain') == 'plain'", 'strip_ansi_escapes', ['plain'], 'plain'],
    // strrep / substring
    ["strrep('=', 5) == '====='", 'strrep', ['=', 5], '====='],
    ["strrep('ab', 3, ',') == 'ab,ab,ab'", 'strrep', ['ab', 3, ','], 'ab,ab,ab'],
    ["strrep('*', 0) == ''", 'strrep', ['*', 0], ''],
    ["strrep(1, 2) == '11'", 'strrep', [1, 2], '11'],
    ["strrep('x', 5000) has 1024 characters", 'strrep', ['x', 5000], 'x'.repeat(1024)],
    ["strrep('x', long(null)) is null", 'strrep', ['x', null], null, ['string', 'long']],
    ["substring('frontend', 0, 3) == 'fro'", 'substring', ['frontend', 0, 3], 'fro'],
    ["substring('123456', 1) == '23456'", 'substring', ['123456', 1], '23456'],
    ["substring('123456', 2, 100) == '3456'", 'substring', ['123456', 2, 100], '3456'],
    ["substring('abc', 10) == ''", 'substring', ['abc', 10], ''],
    ["substring('abc', -5, 2) == 'ab'", 'substring', ['abc', -5, 2], 'ab'],
    ["substring('😀héllo', 1, 2) == 'hé'", 'substring', ['😀héllo', 1, 2], 'hé'],
    ["substring('abc', long(null)) is null", 'substring', ['abc', null], null, ['string', 'long']],
    // case
    ["tolower('GeT') == 'get'", 'tolower', ['GeT'], 'get'],
    ["tolower('ÀÉÎ') == 'àéî'", 'tolower', ['ÀÉÎ'], 'àéî'],
    ["toupper('get') == 'GET'", 'toupper', ['get'], 'GET'],
    ["toupper('straße') == 'STRASSE'", 'toupper', ['straße'], 'STRASSE'],
    ["totitle('hello world') == 'Hello World'", 'totitle', ['hello world'], 'Hello World'],
    ["totitle('hello wORLD foo_bar x-y') == 'Hello WORLD Foo_bar X-Y'", 'totitle', ['hello wORLD foo_bar x-y'], 'Hello WORLD Foo_bar X-Y'],
    ["totitle('élan vital') == 'Élan Vital'", 'totitle', ['élan vital'], 'Élan Vital'],
    // translate
    ["translate('krasp', 'otsku', 'spark') == 'kusto'", 'translate', ['krasp', 'otsku', 'spark'], 'kusto'],
    ["translate('abc', '', 'ab') == ''", 'translate', ['abc', '', 'ab'], ''],
    ["translate('abc', 'x', 'abc') == 'xxx'", 'translate', ['abc', 'x', 'abc'], 'xxx'],
    ["translate('é', 'e', 'café') == 'cafe'", 'translate', ['é', 'e', 'café'], 'cafe'],
    // trim family
    ["trim('[/]+', '//api/users//') == 'api/users'", 'trim', ['[/]+', '//api/users//'], 'api/users'],
    ["trim('--', '--https://axiom.co--') == 'https://axiom.co'", 'trim', ['--', '--https://axiom.co--'], 'https://axiom.co'],
    ["trim('#+', 'user123') == 'user123'", 'trim', ['#+', 'user123'], 'user123'],
    ["trim_start('/', '/api/users') == 'api/users'", 'trim_start', ['/', '/api/users'], 'api/users'],
    ["trim_start('./', './../../etc/passwd') == '../../etc/passwd'", 'trim_start', ['./', './../../etc/passwd'], '../../etc/passwd'],
    ["trim_start('[^\\\\w]+', '- Te st1') == 'Te st1'", 'trim_start', ['[^\\w]+', '- Te st1'], 'Te st1'],
    ["trim_end('[/?&]+', '/api/users/?') == '/api/users'", 'trim_end', ['[/?&]+', '/api/users/?'], '/api/users'],
    ["trim_end('-+', 'a--b--') == 'a--b'", 'trim_end', ['-+', 'a--b--'], 'a--b'],
    ["trim_end('(?m)x', 'ax\\nx') == 'ax\\n' (anchors ignore multi-line)", 'trim_end', ['(?m)x', 'ax\nx'], 'ax\n'],
    ["trim_regex('(^(dev|prod|staging)-)|(-v[0-9.]+$)', 'prod-cart-v1.2') == 'cart'", 'trim_regex', ['(^(dev|prod|staging)-)|(-v[0-9.]+$)', 'prod-cart-v1.2'], 'cart'],
    ["trim_regex('[^a-zA-Z0-9_]+', '!!user123??') == 'user123'", 'trim_regex', ['[^a-zA-Z0-9_]+', '!!user123??'], 'user123'],
    ["trim_start_regex('/api', '/api/api/x') == '/x'", 'trim_start_regex', ['/api', '/api/api/x'], '/x'],
    ["trim_end_regex('[0-9]+', 'order123') == 'order'", 'trim_end_regex', ['[0-9]+', 'order123'], 'order'],
    ["trim_space('  padded\\t\\n') == 'padded'", 'trim_space', ['  padded\t\n'], 'padded'],
    ["trim_space('\\u00a0x\\u3000') == 'x'", 'trim_space', ['\u00a0x\u3000'], 'x'],
    // unicode code points
    ["unicode_codepoints_from_string('abc') == [97,98,99]", 'unicode_codepoints_from_string', ['abc'], [97, 98, 99]],
    ["unicode_codepoints_from_string('user☠️999') == [117,115,101,114,9760,65039,57,57,57]", 'unicode_codepoints_from_string', ['user☠️999'], [117, 115, 101, 114, 9760, 65039, 57, 57, 57]],
    ["unicode_codepoints_from_string('😀') == [128512]", 'unicode_codepoints_from_string', ['😀'], [128512]],
    ["unicode_codepoints_to_string(dynamic([72,101,108,108,111])) == 'Hello'", 'unicode_codepoints_to_string', [[72, 101, 108, 108, 111]], 'Hello'],
    ["unicode_codepoints_to_string(dynamic([128512])) == '😀'", 'unicode_codepoints_to_string', [[128512]], '😀'],
    ["unicode_codepoints_to_string(dynamic([55296])) is null", 'unicode_codepoints_to_string', [[55296]], null],
    ["unicode_codepoints_to_string(dynamic(['a'])) is null", 'unicode_codepoints_to_string', [['a']], null],
    // url
    ["url_decode('https%3a%2f%2fwww.bing.com%2f') == 'https://www.bing.com/'", 'url_decode', ['https%3a%2f%2fwww.bing.com%2f'], 'https://www.bing.com/'],
    ["url_decode('caf%C3%A9+au+lait') == 'café au lait'", 'url_decode', ['caf%C3%A9+au+lait'], 'café au lait'],
    ["url_decode('100%') is null", 'url_decode', ['100%'], null],
    ["url_encode('https://www.bing.com/') == 'https%3A%2F%2Fwww.bing.com%2F'", 'url_encode', ['https://www.bing.com/'], 'https%3A%2F%2Fwww.bing.com%2F'],
    ["url_encode('a b&é') == 'a+b%26%C3%A9'", 'url_encode', ['a b&é'], 'a+b%26%C3%A9'],
    ["url_encode('a-_.~!') == 'a-_.~%21'", 'url_encode', ['a-_.~!'], 'a-_.~%21'],
]);

runCases('hash functions', [
    ["hash_md5('') == 'd41d8cd98f00b204e9800998ecf8427e'", 'hash_md5', [''], 'd41d8cd98f00b204e9800998ecf8427e'],
    ["hash_md5('hello') == '5d41402abc4b2a76b9719d911017c592'", 'hash_md5', ['hello'], '5d41402abc4b2a76b9719d911017c592'],
    ["hash_sha1('1') == '356a192b7913b04c54574d18c28d46e6395428ab'", 'hash_sha1', ['1'], '356a192b7913b04c54574d18c28d46e6395428ab'],
    ["hash_sha1(1) == '356a192b7913b04c54574d18c28d46e6395428ab'", 'hash_sha1', [1], '356a192b7913b04c54574d18c28d46e6395428ab'],
    ["hash_sha1('test') == 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3'", 'hash_sha1', ['test'], 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3'],
    ["hash_sha256('abc') == 'ba7816bf…15ad'", 'hash_sha256', ['abc'], 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ["hash_sha512('abc') starts with 'ddaf35a1'", 'hash_sha512', ['abc'], 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'],
    ["hash_md5(string(null)) is null", 'hash_md5', [null], null, ['string']],
    ["hash(long(null)) is null", 'hash', [null], null, ['long']],
]);

describe('hash()', () => {
    it("hash('abc') is a stable signed integer that fits a JS number exactly", () => {
        const h = ev('hash', ['abc']) as number;
        expect(Number.isSafeInteger(h)).toBe(true);
        expect(ev('hash', ['abc'])).toBe(h);
        expect(h).toBe(-2226787819859990);
    });
    it("hash('abc', 1) differs from hash('abc') and from hash('abc', 2)", () => {
        const a = ev('hash', ['abc', 1]);
        expect(a).not.toBe(ev('hash', ['abc']));
        expect(a).not.toBe(ev('hash', ['abc', 2]));
        expect(ev('hash', ['abc', 1])).toBe(a);
    });
    it('hash() spreads values over negative and positive numbers', () => {
        const values = Array.from({ length: 200 }, (_, i) => ev('hash', [`id-${i}`]) as number);
        expect(values.some(v => v < 0)).toBe(true);
        expect(values.some(v => v > 0)).toBe(true);
        expect(new Set(values).size).toBe(200);
    });
});

runCases('conversion functions', [
    // toint / tolong
    ["toint('42') == 42", 'toint', ['42'], 42],
    ["toint('-7') == -7", 'toint', ['-7'], -7],
    ["toint('+7') == 7", 'toint', ['+7'], 7],
    ["toint('12.5') is null (strict digits)", 'toint', ['12.5'], null],
    ["toint('0x1F') is null", 'toint', ['0x1F'], null],
    ["toint(' 1') is null", 'toint', [' 1'], null],
    ["toint('99999999999999999999') is null (out of range)", 'toint', ['99999999999999999999'], null],
    ["toint(12.9) == 12", 'toint', [12.9], 12],
    ["toint(-12.9) == -12", 'toint', [-12.9], -12],
    ["toint(true) == 1", 'toint', [true], 1],
    ["toint(1m) == 60000000000", 'toint', [ts(60n * SEC)], 60_000_000_000],
    ["toint(datetime(1970-01-01T00:00:01Z)) == 1000000000", 'toint', [dt('1970-01-01T00:00:01Z')], 1_000_000_000],
    ["toint(real(nan)) is null", 'toint', [NaN], null, ['real']],
    ["toint(string(null)) is null", 'toint', [null], null, ['string']],
    ["tolong('123') == 123", 'tolong', ['123'], 123],
    ["tolong(dynamic([1])) is null", 'tolong', [[1]], null],
    // todouble / toreal
    ["todouble('1e3') == 1000", 'todouble', ['1e3'], 1000],
    ["todouble('1.5') == 1.5", 'todouble', ['1.5'], 1.5],
    ["todouble('.5') == 0.5", 'todouble', ['.5'], 0.5],
    ["todouble('-Inf') == -inf", 'todouble', ['-Inf'], -Infinity],
    ["todouble('abc') is null", 'todouble', ['abc'], null],
    ["todouble('1e999') is null (out of range)", 'todouble', ['1e999'], null],
    ["todouble(1500) == 1500", 'todouble', [1500], 1500],
    ["todouble(false) == 0", 'todouble', [false], 0],
    ["todouble(1ms) == 1000000", 'todouble', [ts(1_000_000n)], 1_000_000],
    ["toreal('2.25') == 2.25", 'toreal', ['2.25'], 2.25],
    // tobool
    ["tobool('true') == true", 'tobool', ['true'], true],
    ["tobool('T') == true", 'tobool', ['T'], true],
    ["tobool('1') == true", 'tobool', ['1'], true],
    ["tobool('False') == false", 'tobool', ['False'], false],
    ["tobool('yes') is null", 'tobool', ['yes'], null],
    ["tobool('tRUE') is null", 'tobool', ['tRUE'], null],
    ["tobool(0) == false", 'tobool', [0], false],
    ["tobool(-2.5) == true", 'tobool', [-2.5], true],
    ["tobool(0s) == false", 'tobool', [ts(0n)], false],
    ["tobool(datetime(1970-01-01)) == false", 'tobool', [dt('1970-01-01T00:00:00Z')], false],
    ["tobool(datetime(2024-01-01)) == true", 'tobool', [dt('2024-01-01T00:00:00Z')], true],
    ["tobool(bool(null)) is null", 'tobool', [null], null, ['bool']],
    // tostring
    ["tostring(string(null)) == ''", 'tostring', [null], '', ['string']],
    ["tostring(123) == '123'", 'tostring', [123], '123'],
    ["tostring(1.5) == '1.5'", 'tostring', [1.5], '1.5'],
    ["tostring(3.0) == '3'", 'tostring', [3], '3', ['real']],
    ["tostring(1e-7) == '1e-07'", 'tostring', [1e-7], '1e-07'],
    ["tostring(1e21) == '1e+21'", 'tostring', [1e21], '1e+21', ['real']],
    ["tostring(real(+inf)) == '+Inf'", 'tostring', [Infinity], '+Inf', ['real']],
    ["tostring(80s) == '1m20s'", 'tostring', [ts(80n * SEC)], '1m20s'],
    ["tostring(1.5h) == '1h30m0s'", 'tostring', [ts(5400n * SEC)], '1h30m0s'],
    ["tostring(150ms) == '150ms'", 'tostring', [ts(150_000_000n)], '150ms'],
    ["tostring(datetime(2024-01-15T10:30:00.1234567Z)) == '2024-01-15T10:30:00.1234567Z'", 'tostring', [new Datetime(BigInt(Date.parse('2024-01-15T10:30:00Z')) * 1_000_000n + 123_456_700n)], '2024-01-15T10:30:00.1234567Z'],
    ["tostring(true) == 'true'", 'tostring', [true], 'true'],
    ["tostring(dynamic({'b':1,'a':[1,'x']})) == '{\"a\":[1,\"x\"],\"b\":1}'", 'tostring', [{ b: 1, a: [1, 'x'] }], '{"a":[1,"x"],"b":1}'],
    ["tostring(dynamic('s')) == 's'", 'tostring', ['s'], 's', ['dynamic']],
    // todynamic / toarray / dynamic_to_json
    ["todynamic('[1, 2, 3]') == [1,2,3]", 'todynamic', ['[1, 2, 3]'], [1, 2, 3]],
    ["todynamic('{bad') == '{bad'", 'todynamic', ['{bad'], '{bad'],
    ["todynamic(5) == 5", 'todynamic', [5], 5],
    ["todynamic(1m) == '1m0s'", 'todynamic', [ts(60n * SEC)], '1m0s'],
    ["toarray('123') == ['123']", 'toarray', ['123'], ['123']],
    ["toarray(dynamic(['GET','POST'])) == ['GET','POST']", 'toarray', [['GET', 'POST']], ['GET', 'POST']],
    ["toarray(dynamic({'a':1})) == [{'a':1}]", 'toarray', [{ a: 1 }], [{ a: 1 }]],
    ["toarray(dynamic(null)) is null", 'toarray', [null], null, ['dynamic']],
    ["dynamic_to_json(dynamic({'b':1,'a':[1,2]})) == '{\"a\":[1,2],\"b\":1}'", 'dynamic_to_json', [{ b: 1, a: [1, 2] }], '{"a":[1,2],"b":1}'],
    ["dynamic_to_json(dynamic('x')) == '\"x\"'", 'dynamic_to_json', ['x'], '"x"', ['dynamic']],
    ["dynamic_to_json(dynamic(null)) is null", 'dynamic_to_json', [null], null, ['dynamic']],
    // tohex
    ["tohex(12345, 8) == '00003039'", 'tohex', [12345, 8], '00003039'],
    ["tohex(256) == '100'", 'tohex', [256], '100'],
    ["tohex(-546) == 'fffffffffffffdde'", 'tohex', [-546], 'fffffffffffffdde'],
    ["tohex(long(null)) is null", 'tohex', [null], null, ['long']],
    // isbool
    ["isbool(true) == true", 'isbool', [true], true],
    ["isbool('true') == false", 'isbool', ['true'], false],
    ["isbool(bool(null)) == false", 'isbool', [null], false, ['bool']],
]);

describe('datetime and timespan conversions', () => {
    it("todatetime('2024-01-15T10:30:00Z') == datetime(2024-01-15T10:30:00Z)", () => {
        expect((ev('todatetime', ['2024-01-15T10:30:00Z']) as Datetime).ns).toBe(BigInt(Date.parse('2024-01-15T10:30:00Z')) * 1_000_000n);
    });
    it("todatetime('2024-01-15 10:30:00.123456789+02:00') keeps nanoseconds and the offset", () => {
        expect(String(ev('todatetime', ['2024-01-15 10:30:00.123456789+02:00']))).toBe('2024-01-15T08:30:00.123456789Z');
    });
    it('todatetime(1700000000000000000) is nanoseconds since the epoch', () => {
        expect(String(ev('todatetime', [1_700_000_000_000_000_000]))).toBe('2023-11-14T22:13:20Z');
    });
    it("todatetime('yesterday') is null", () => {
        expect(ev('todatetime', ['yesterday'])).toBeNull();
    });
    it('todatetime(true) is null', () => {
        expect(ev('todatetime', [true])).toBeNull();
    });
    it("totimespan('1m20s') == 80s", () => {
        expect((ev('totimespan', ['1m20s']) as Timespan).ns).toBe(80n * SEC);
    });
    it("totimespan('-1.5h') == -90m", () => {
        expect((ev('totimespan', ['-1.5h']) as Timespan).ns).toBe(-5400n * SEC);
    });
    it("totimespan('1d') == 24h and totimespan('1.02:03:04') == 1d2h3m4s", () => {
        expect((ev('totimespan', ['1d']) as Timespan).ns).toBe(86400n * SEC);
        expect((ev('totimespan', ['1.02:03:04']) as Timespan).ns).toBe((86400n + 7384n) * SEC);
    });
    it('totimespan(1000) == 1µs (numbers are nanoseconds)', () => {
        expect((ev('totimespan', [1000]) as Timespan).ns).toBe(1000n);
    });
    it("totimespan('soon') is null", () => {
        expect(ev('totimespan', ['soon'])).toBeNull();
    });
});

runCases('type-check functions', [
    ["iscc('4111111111111111') == true", 'iscc', ['4111111111111111'], true],
    ["iscc('4111 1111 1111 1111') == true", 'iscc', ['4111 1111 1111 1111'], true],
    ["iscc('1234567890123456') == false", 'iscc', ['1234567890123456'], false],
    ["iscc('41111') == false", 'iscc', ['41111'], false],
    ["iscc(string(null)) == false", 'iscc', [null], false, ['string']],
    ["isimei('356938035643809') == true", 'isimei', ['356938035643809'], true],
    ["isimei('356938035643808') == false", 'isimei', ['356938035643808'], false],
    ["isimei('35693803564380') == false", 'isimei', ['35693803564380'], false],
    ["ismap(dynamic({'a':1,'b':2})) == true", 'ismap', [{ a: 1, b: 2 }], true],
    ["ismap(dynamic([1])) == false", 'ismap', [[1]], false],
    ["ismap('x') == false", 'ismap', ['x'], false],
    ["isreal(123.11) == true", 'isreal', [123.11], true],
    ["isreal(2.0) == true", 'isreal', [2], true, ['real']],
    ["isreal(123) == false", 'isreal', [123], false],
    ["isreal('1.5') == false", 'isreal', ['1.5'], false],
    ["isreal(dynamic(1.5)) == true", 'isreal', [1.5], true, ['dynamic']],
    ["isstring('404') == true", 'isstring', ['404'], true],
    ["isstring(404) == false", 'isstring', [404], false],
    ["isstring(string(null)) == false", 'isstring', [null], false, ['string']],
    ["isutf8('héllo') == true", 'isutf8', ['héllo'], true],
    ["isutf8('\\ufffd/broken-path') == false", 'isutf8', ['\ufffd/broken-path'], false],
    ["isutf8('\\ud800x') == false (lone surrogate)", 'isutf8', ['\ud800x'], false],
    ["isutf8(string(null)) == false", 'isutf8', [null], false, ['string']],
]);

runCases('conditional functions', [
    ["iff(true, 'yes', 'no') == 'yes'", 'iff', [true, 'yes', 'no'], 'yes'],
    ["iff(false, 'yes', 'no') == 'no'", 'iff', [false, 'yes', 'no'], 'no'],
    ["iff(bool(null), 1, 2) == 2", 'iff', [null, 1, 2], 2, ['bool', 'long', 'long']],
    ["iff(true, dynamic(null), 5) is null", 'iff', [true, null, 5], null, ['bool', 'dynamic', 'long']],
    ["case(false, 'a', true, 'b', 'c') == 'b'", 'case', [false, 'a', true, 'b', 'c'], 'b'],
    ["case(true, 'a', true, 'b', 'c') == 'a'", 'case', [true, 'a', true, 'b', 'c'], 'a'],
    ["case(false, 'a', 'else') == 'else'", 'case', [false, 'a', 'else'], 'else'],
    ["case(bool(null), 1, 0) == 0", 'case', [null, 1, 0], 0, ['bool', 'long', 'long']],
]);

runCases('pair functions', [
    ["pair('method', 'GET') == 'method:GET'", 'pair', ['method', 'GET'], 'method:GET'],
    ["pair('US', 'New York', '/') == 'US/New York'", 'pair', ['US', 'New York', '/'], 'US/New York'],
    ["pair('status', 200) == 'status:200'", 'pair', ['status', 200], 'status:200'],
    ["parse_pair('method:GET') == {key:'method', separator:':', value:'GET'}", 'parse_pair', ['method:GET'], { key: 'method', separator: ':', value: 'GET' }],
    ["parse_pair('a=b=c', '=') == {key:'a', separator:'=', value:'b=c'}", 'parse_pair', ['a=b=c', '='], { key: 'a', separator: '=', value: 'b=c' }],
    ["parse_pair('novalue') == {key:'novalue', separator:'', value:''}", 'parse_pair', ['novalue'], { key: 'novalue', separator: '', value: '' }],
    ["parse_pair(string(null)) is null", 'parse_pair', [null], null, ['string']],
    ["find_pair(dynamic(['server:web01','env:production','region:us-west']), 'server', '*')", 'find_pair', [['server:web01', 'env:production', 'region:us-west'], 'server', '*'], { key: 'server', separator: ':', value: 'web01' }],
    ["find_pair(dynamic(['host:frontend-1','version:v1.2.3']), 'host', 'frontend*')", 'find_pair', [['host:frontend-1', 'version:v1.2.3'], 'host', 'frontend*'], { key: 'host', separator: ':', value: 'frontend-1' }],
    ["find_pair(dynamic(['a=1','b=2']), 'b*', '*', '=')", 'find_pair', [['a=1', 'b=2'], 'b*', '*', '='], { key: 'b', separator: '=', value: '2' }],
    ["find_pair(dynamic(['host:x.y']), 'host', 'x?y') is null (only * is a wildcard)", 'find_pair', [['host:x.y'], 'host', 'x?y'], null],
    ["find_pair(dynamic(['env:prod']), 'host', '*') is null", 'find_pair', [['env:prod'], 'host', '*'], null],
]);

runCases('sql functions', [
    [
        "parse_sql('SELECT id, status FROM logs WHERE status = 401 OR status = 403')",
        'parse_sql',
        ['SELECT id, status FROM logs WHERE status = 401 OR status = 403'],
        {
            columns: [{ colname: 'id' }, { colname: 'status' }],
            from: [{ table: 'logs' }],
            statement: 'select',
            where: {
                operator: 'or',
                params: [
                    { operator: '=', params: [{ colname: 'status' }, { value: '401', valtype: 'integer' }] },
                    { operator: '=', params: [{ colname: 'status' }, { value: '403', valtype: 'integer' }] },
                ],
            },
        },
    ],
    [
        "parse_sql(\"select distinct count(*) as n from db.t where name like 'a%' and x in (1, 2.5) limit 5\")",
        'parse_sql',
        ["select distinct count(*) as n from db.t where name like 'a%' and x in (1, 2.5) limit 5"],
        {
            distinct: true,
            columns: [{ funcname: 'count', params: [{ colname: '*' }], alias: 'n' }],
            from: [{ table: 'db.t' }],
            where: {
                operator: 'and',
                params: [
                    { operator: 'like', params: [{ colname: 'name' }, { value: 'a%', valtype: 'string' }] },
                    { operator: 'in', params: [{ colname: 'x' }, { value: '1', valtype: 'integer' }, { value: '2.5', valtype: 'float' }] },
                ],
            },
            limit: { rowcount: { value: '5', valtype: 'integer' } },
            statement: 'select',
        },
    ],
    ["parse_sql('DELETE FROM logs') is null", 'parse_sql', ['DELETE FROM logs'], null],
    ["parse_sql('SELECT a FROM t JOIN u ON t.id = u.id') is null", 'parse_sql', ['SELECT a FROM t JOIN u ON t.id = u.id'], null],
    ["parse_sql('SELECT FROM') is null", 'parse_sql', ['SELECT FROM'], null],
    ["parse_sql(string(null)) is null", 'parse_sql', [null], null, ['string']],
    ["format_sql(dynamic({'statement':'select'})) is null", 'format_sql', [{ statement: 'select' }], null],
    ["format_sql('x') is null", 'format_sql', ['x'], null],
]);

describe('format_sql(parse_sql(...)) round trips', () => {
    const roundTrip = (sql: string) => ev('format_sql', [ev('parse_sql', [sql])], ['dynamic']);
    it("format_sql(parse_sql('SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC'))", () => {
        expect(roundTrip('SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC')).toBe(
            'select id, status, uri from requests where req_duration_ms > 1000 order by req_duration_ms desc',
        );
    });
    it('keeps precedence with parentheses only where needed', () => {
        expect(roundTrip("SELECT a + b * c, (a + b) * c AS x FROM t WHERE NOT (a = 1 OR b = 2) AND c IN (1, 'x') AND d IS NOT NULL")).toBe(
            "select a + b * c, (a + b) * c as x from t where not (a = 1 or b = 2) and c in (1, 'x') and d is not null",
        );
        expect(roundTrip('SELECT a - (b - c), a - b - c FROM t')).toBe('select a - (b - c), a - b - c from t');
    });
    it('prints group by, having, order and limit with offset', () => {
        expect(roundTrip("SELECT status, COUNT(DISTINCT id) FROM logs GROUP BY status HAVING COUNT(*) > 10 ORDER BY status LIMIT 5 OFFSET 10")).toBe(
            'select status, count(distinct id) from logs group by status having count(*) > 10 order by status asc limit 5 offset 10',
        );
    });
    it("escapes quotes and odd identifiers: parse_sql(\"select `my col` from t where s = 'it''s'\")", () => {
        expect(roundTrip("select `my col` from t where s = 'it''s' and n = -3")).toBe("select `my col` from t where s = 'it''s' and n = -3");
    });
});

describe('regular expressions (RE2)', () => {
    it("extract('(?i)(abc)', 1, 'xABCx'): the pattern's own flags", () => {
        expect(ev('extract', ['(?i)(abc)', 1, 'xABCx'])).toBe('ABC');
    });
    it("extract('(?P<name>x+)', 1, 'axxb'): RE2 named groups", () => {
        expect(ev('extract', ['(?P<name>x+)', 1, 'axxb'])).toBe('xx');
    });
    it("'[[:alpha:]]+' expands the POSIX class", () => {
        expect(ev('extract', ['([[:alpha:]]+)', 1, '123abc456'])).toBe('abc');
    });
    it("'\\\\pL+' matches Unicode letters", () => {
        expect(ev('extract', ['(\\pL+)', 1, '12héllo34'])).toBe('héllo');
    });
    it("'\\\\Qa.b\\\\E' is literal", () => {
        expect(ev('countof_regex', ['\\Qa.b\\E', 'a.b axb'])).toBe(1);
    });
    it("'a{,3}' keeps the brace literal as RE2 does", () => {
        expect(ev('countof_regex', ['a{,3}', 'a{,3}'])).toBe(1);
    });
    it("'x\\\\z' anchors at the very end", () => {
        expect(ev('countof_regex', ['x\\z', 'x\nx'])).toBe(1);
    });
    it('\\s is ASCII white space only', () => {
        expect(ev('countof_regex', ['\\s', 'a b\u00a0c'])).toBe(1);
    });
    it("'.' matches a whole astral character", () => {
        expect(ev('extract', ['^(.)', 1, '😀x'])).toBe('😀');
    });
    it('look-ahead and back-references are rejected like RE2 does', () => {
        expect(() => ev('countof_regex', ['a(?=b)', 'ab'])).toThrow(/invalid regular expression 'a\(\?=b\)': invalid or unsupported Perl syntax/);
        expect(() => ev('countof_regex', ['(a)\\1', 'aa'])).toThrow(/invalid regular expression '\(a\)\\1': invalid escape sequence/);
        expect(() => ev('countof_regex', ['(', 'a'])).toThrow(/invalid regular expression/);
    });
});

// ---------------------------------------------------------------------------------------------
// The docs corpus (read at test time; the tests fail when the shared folder is absent)
// ---------------------------------------------------------------------------------------------

describe('docs corpus: parse_sql and format_sql outputs', () => {
    const entries = loadCorpus();
    const printed = entries.filter(e => /^print \w+ = (parse_sql|format_sql)\(/.test(e.query) && e.expected_output_excerpt !== null);

    it('finds the documented print examples', () => {
        expect(printed.length).toBeGreaterThanOrEqual(3);
    });
    for (const e of printed) {
        it(e.query, () => {
            const m = /^print (\w+) = (format_sql\(parse_sql|parse_sql)\('((?:[^']|'')*)'\)\)?$/.exec(e.query.trim());
            expect(m).not.toBeNull();
            const [, column, call, sql] = m!;
            const parsed = ev('parse_sql', [sql]);
            const value = call === 'parse_sql' ? parsed : ev('format_sql', [parsed], ['dynamic']);
            const expected = JSON.parse(e.expected_output_excerpt!) as Record<string, unknown>;
            expect(value).toEqual(expected[column]);
        });
    }
});
