/**
 * The byte scanner (scanNdjsonColumns) must give exactly what the general path gives
 * (buildColumnarBatch: JSON.parse per line, normalisation, toColumns): the same times, the same
 * columns in the same order with the same encodings and dictionaries, the same failures. Lines it
 * does not read itself go the general way into the same columns; requests it does not take at all
 * answer undefined. Test names are the body (or the line) under test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildColumnarBatch, type ColumnarBatch } from '../../../server/ingest/columnar.js';
import { PAD_BYTES, prepareColumns, scanNdjsonColumns, writePadding } from '../../../server/ingest/ndjson-columns.js';
import type { IngestParams } from '../../../server/ingest/ingest.js';
import { generateSample } from '../../../language/samples/index.js';
import { stringHash } from '../../../language/eval/string-index.js';

const RECEIVED = 1_700_000_000_123_456_789n;
const NDJSON: IngestParams = { format: 'ndjson', receiveTimeNs: RECEIVED };

/** Every dictionary entry comes with its `stringHash` (the engine indexes the entries by them). */
function expectHashes(batch: ColumnarBatch): void {
    for (const c of batch.columns) if (c.kind === 'str') expect(Array.from(c.hashes!)).toEqual(c.dict.map(stringHash));
}

/** The scanner's answer, which must be the general path's; `taken` says whether the lane took it. */
function expectSame(body: string | Buffer, params: IngestParams = NDJSON, taken = true): ColumnarBatch {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const general = buildColumnarBatch(bytes, params);
    expectHashes(general);
    const scanned = scanNdjsonColumns(bytes, params);
    expect(scanned !== undefined).toBe(taken);
    if (scanned) expect(scanned).toEqual(general);
    expect(prepareColumns(bytes, params)).toEqual(general);
    return general;
}

describe('scanNdjsonColumns gives what the general path gives', () => {
    it('1,000-event bodies of sample-http-logs (nested geo, ISO _time, ids, floats, non-ASCII cities)', () => {
        const events = [...generateSample('sample-http-logs', { rows: 5000, seed: 3, end: new Date('2025-01-01T00:00:00Z') })];
        for (let i = 0; i < events.length; i += 1000) {
            const batch = expectSame(events.slice(i, i + 1000).map(e => JSON.stringify(e)).join('\n'));
            expect(batch.times.length).toBe(1000);
            expect(batch.columns.map(c => c.name)).toContain('geo.city');
        }
    });

    const lines: Record<string, string> = {
        'a duplicate key': '{"a":1,"a":2}',
        'a duplicate nested object': '{"a":{"b":1},"a":{"c":2}}',
        'a dotted key and the nested name it collides with': '{"a.b":1,"a":{"b":2}}',
        'an array-index key (JSON.parse puts it first)': '{"b":1,"2":3}',
        'a nested array-index key': '{"g":{"x":1,"0":2}}',
        '__proto__ as a key': '{"__proto__":1,"b":2}',
        'an escaped key': '{"a\\"b":1}',
        'an escaped value': '{"m":"say \\"hi\\"\\n\\u00e9"}',
        'a non-ASCII key and value': '{"città":"Zürich","ok":true}',
        'a raw tab inside a string (invalid JSON)': '{"m":"a\tb"}',
        'a reserved name': '{"_sysTime":1,"_rowID":"x","_cursor":2}',
        'a null field and a null _time': '{"_time":null,"a":null,"b":0}',
        'an epoch _time in seconds': '{"_time":1700000000.5,"a":1}',
        'an epoch _time in ms': '{"_time":1700000000123}',
        'a string epoch _time': '{"_time":"1700000000"}',
        'an ISO _time with an offset': '{"_time":"2024-02-30T23:59:60.123456789123+05:30"}',
        'an RFC 1123 _time': '{"_time":"Mon, 02 Jan 2006 15:04:05 -0700"}',
        'a _time that does not parse': '{"_time":"yesterday","a":1}',
        'a _time out of range': '{"_time":"2500-01-01T00:00:00Z"}',
        'an object _time': '{"_time":{"s":1}}',
        'a boolean _time': '{"_time":true}',
        'an escaped ISO _time': '{"_time":"2024-01-01T00:00:00\\u005a"}',
        'empty nested objects': '{"a":{},"b":{"c":{}},"d":1}',
        'arrays with objects and nesting': '{"t":[1,"a",{"b":[null,true]}],"u":[]}',
        'deep nesting': `{"a":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`,
        'whitespace everywhere': ' \t{ "a" : 1 , "b" : [ 1 , 2 ] , "c" : { "d" : "e" } } \r',
        'an empty object': '{}',
        'not an object': '5',
        'an array line': '[1,2]',
        'a string line': '"x"',
        'two objects on one line': '{"a":1}{"a":2}',
        'a trailing comma': '{"a":1,}',
        'a missing value': '{"a":}',
        'an unterminated string': '{"a":"b}',
        'garbage after the object': '{"a":1} x',
        'true, false and their typos': '{"t":true,"f":false,"x":fals}',
        'an empty key': '{"":1,"n":{"":2}}',
    };
    for (const [what, line] of Object.entries(lines)) {
        it(`${line}  (${what}), between two ordinary lines`, () => {
            expectSame(`{"a":1,"s":"x"}\n${line}\n{"a":2,"s":"y"}`);
        });
    }

    // The scanner makes these times from numbers (no BigInt) within about 1685-2255, and the BigInt
    // way past that window; either way the same int64 nanoseconds as the general path.
    const times = [
        '1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000000001Z', '1969-12-31T23:59:59.999999999Z', '1969-12-31T23:59:59Z',
        '1900-02-28T12:34:56.5Z', '1686-01-01T00:00:00.123456789Z', '1677-09-21T00:12:43.145224192Z', '1677-09-21T00:12:43.145224191Z',
        '2024-12-07T14:51:08.311157192Z', '2038-01-19T03:14:08Z', '2106-02-07T06:28:16Z', '2106-02-07T06:28:15.999999999Z',
        '2255-06-05T23:47:34.999999999Z', '2262-04-11T23:47:16.854775807Z', '2262-04-11T23:47:16.854775808Z', '0001-01-01T00:00:00Z',
        '9999-12-31T23:59:59Z', '2024-05-01T10:00:00+14:00', '2024-05-01T10:00:00-12:30', '2000-02-29T00:00:60Z',
    ];
    it(`{"_time":…} for ${times.length} times around 1970, 2106, 2262 and the ends of the range`, () => {
        const batch = expectSame(times.map((t, i) => JSON.stringify({ _time: t, i })).join('\n'));
        expect(batch.times.length + batch.failures.length).toBe(times.length);
        expect(batch.failures.length).toBeGreaterThan(0); // past 2262-04-11T23:47:16.854775807Z, and before 1677-09-21T00:12:43.145224192Z
        expect(batch.minTime).toBe(-9_223_372_036_854_775_808n);
        expect(batch.maxTime).toBe(9_223_372_036_854_775_807n);
    });

    const numbers = [
        '0', '-0', '1', '-1', '0.1', '0.30000000000000004', '1e3', '1E+2', '1e-7', '-2.5e-3', '5e-324', '1.7976931348623157e308',
        '1e999', '-1e999', '9007199254740991', '9007199254740992', '9007199254740993', '12345678901234567890', '0.1234567890123456789',
        '9007199254740.993', '123456789.123456789', '0.5613708193759168', '4.35', '01', '-', '1.', '.5', '+1', '1e', '1e+', '--1', '0x10', 'NaN', 'Infinity',
    ];
    for (const n of numbers) {
        it(`{"n":${n}}`, () => {
            expectSame(`{"n":1}\n{"n":${n}}\n{"n":2}`);
        });
    }

    it('a field that is a number, then a string, then a boolean (the column turns into json)', () => {
        expectSame('{"v":1}\n{"v":"GET"}\n{"v":true}\n{"v":"GET"}');
    });

    it('a string column that meets the same value escaped and plain (one dictionary entry)', () => {
        const batch = expectSame('{"p":"a/b"}\n{"p":"a\\/b"}\n{"p":"a/b"}\n{"p":"\\u0061/b"}');
        expect(batch.columns[0]).toMatchObject({ kind: 'str', dict: ['a/b'] });
    });

    it('invalid UTF-8 in a value (replacement characters, as the general path decodes it)', () => {
        expectSame(Buffer.concat([Buffer.from('{"s":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('"}\n{"s":"a\u00ff"}')]));
    });

    it('a body of blank lines, CRLF line ends and no final newline', () => {
        expectSame('\n\r\n{"a":1}\r\n\n{"a":2}\r\n  \n{"a":3}');
        expectSame('\n\n');
        expectSame('');
    });

    it('a pretty-printed object over several lines, between NDJSON lines', () => {
        expectSame('{"a":1}\n{\n  "a": 2,\n  "b": {"c": 3}\n}\n{"a":4}');
    });

    it('a byte-order mark before the first line', () => {
        expectSame('\ufeff{"a":1}\n{"a":2}');
    });

    it('an event of 1,024 fields, and one of 1,025 (which fails)', () => {
        const fields = (n: number) => `{${Array.from({ length: n }, (_, i) => `"f${i}":${i}`).join(',')}}`;
        expectSame(`${fields(1024)}\n${fields(1025)}\n{"f0":1}`);
    });

    it('a string past the length the scanner reads itself (the general path keeps or replaces it)', () => {
        expectSame(`{"s":"${'x'.repeat(400_000)}"}\n{"s":"y"}`);
        expectSame(`{"s":"${'é'.repeat(600_000)}"}\n{"s":"y"}`);
    });

    it('more events than lines (two per line) grow the columns', () => {
        expectSame(Array.from({ length: 50 }, (_, i) => `{"a":${i}}{"a":"${i}"}`).join('\n'));
    });

    it('a map field (its object is stored whole, the general way)', () => {
        expectSame('{"m":{"a":1},"n":{"a":1}}\n{"m":{"b":2}}', { ...NDJSON, mapFields: ['m'] });
    });

    it('application/json bodies: NDJSON when the first line is a value, else the general path', () => {
        const json: IngestParams = { ...NDJSON, format: 'json' };
        expectSame('{"a":1}\n{"a":2}', json);
        expectSame('{\n  "a": 1\n}', json, false);
        expectSame('\n{"a":1}', json, false);
        expectSame('[{"a":1},{"a":2}]', json, false);
        expectSame('  [{"a":1}]', NDJSON, false);
    });

    it('labels, a timestamp field or a timestamp format: the general path', () => {
        expectSame('{"a":1}', { ...NDJSON, labels: '{"env":"prod"}' }, false);
        expectSame('{"ts":"2024-01-01T00:00:00Z"}', { ...NDJSON, timestampField: 'ts' }, false);
        expectSame('{"_time":"2024-01-01"}', { ...NDJSON, timestampFormat: '2006-01-02' }, false);
        expectSame('{"a":1}', { ...NDJSON, labels: '  ' });
        expectSame('{"_time":"2024-01-01T00:00:00Z"}', { ...NDJSON, timestampField: '_time' });
    });

    it('a body whose memory already holds the padding after it (as the ingest pool hands it over), and one followed by bytes that only look like it', () => {
        const text = Buffer.from('{"a":1,"s":"GET"}\n{"a":2,"s":"x"}\n{"a":3,"s":"GET"}');
        const mem = Buffer.alloc(text.length + PAD_BYTES + 4, 0x41);
        text.copy(mem);
        writePadding(mem, text.length);
        expectSame(mem.subarray(0, text.length));
        mem[text.length + 3] = 0x7b; // not the padding: the scanner must copy
        expectSame(mem.subarray(0, text.length));
        mem[text.length] = 0x20;
        expectSame(mem.subarray(0, text.length));
    });

    // The scanner sizes its columns by the first line; at the end it keeps a view of them when
    // the room left over is small, else a copy: an array never pins much more than it holds.
    const expectFitted = (batch: ColumnarBatch): void => {
        const n = batch.times.length;
        const arrays: [ArrayLike<unknown> & { buffer: ArrayBufferLike; BYTES_PER_ELEMENT: number }, number][] = [[batch.times, n]];
        for (const c of batch.columns) {
            if (c.kind === 'f64') arrays.push([c.values, n]);
            else if (c.kind === 'str') arrays.push([c.codes, n], [c.hashes!, c.dict.length]);
            else if (c.kind === 'bool') arrays.push([c.values, n]);
        }
        for (const [a, used] of arrays) expect(a.buffer.byteLength / a.BYTES_PER_ELEMENT).toBeLessThanOrEqual(used + (used >> 2) + 64);
    };
    it('a short first line then 400 long ones (the columns were sized for far more events), and 1,000 sample events', () => {
        const long = Array.from({ length: 400 }, (_, i) => JSON.stringify({ a: i, s: `v${i}`, b: i % 2 === 0, pad: 'x'.repeat(200) }));
        const batch = expectSame(['{"a":0,"s":"v","b":true,"pad":"x"}', ...long].join('\n'));
        expect(batch.times.length).toBe(401);
        expectFitted(batch);
        const events = [...generateSample('sample-http-logs', { rows: 1000, seed: 5, end: new Date('2025-01-01T00:00:00Z') })];
        expectFitted(expectSame(events.map(e => JSON.stringify(e)).join('\n')));
    });

    // A column starts with room for the strings it had in the previous body (capacity only).
    it('1,000 distinct ids, then 3 lines with ids, then 2,000 distinct ids', () => {
        const ids = (n: number, tag: string) => Array.from({ length: n }, (_, i) => JSON.stringify({ id: `${tag}-${i}`, m: i % 2 ? 'GET' : 'PUT' })).join('\n');
        expectSame(ids(1000, 'a'));
        expectSame('{"id":"x"}\n{"id":"a-1"}\n{"id":"x"}');
        expectSame(ids(2000, 'b'));
    });

    it('CSV: the general path', () => {
        expectSame('a,b\n1,2', { ...NDJSON, format: 'csv' }, false);
    });

    // Lines made of random JSON (keys chosen to collide, nest, need renaming or escaping), random
    // number spellings, and random damage; each body must come out as the general path makes it.
    const key = fc.oneof(
        { weight: 30, arbitrary: fc.constantFrom('a', 'b', 'a.b', '_sysTime', 'é', 'geo', 'city', 'msg', 'n') },
        // `_time` (whose random values mostly fail to parse) and keys the scanner leaves to the general path
        { weight: 1, arbitrary: fc.constantFrom('_time', '1', '__proto__', 'q"', '') },
    );
    const numberText = fc.oneof(
        fc.double().filter(Number.isFinite).map(v => JSON.stringify(v)),
        fc.tuple(fc.constantFrom('', '-'), fc.stringMatching(/^(0|[1-9][0-9]{0,19})$/), fc.option(fc.stringMatching(/^[0-9]{1,20}$/)), fc.option(fc.oneof({ weight: 9, arbitrary: fc.stringMatching(/^[eE][+-]?[0-9]{1,2}$/) }, { weight: 1, arbitrary: fc.constant('e999') })))
            .map(([sign, int, frac, exp]) => `${sign}${int}${frac === null ? '' : `.${frac}`}${exp ?? ''}`),
    );
    const scalarText = fc.oneof(
        numberText,
        fc.string({ unit: 'binary', maxLength: 12 }).map(s => JSON.stringify(s)),
        fc.constantFrom('"GET"', '"POST"', '"2024-05-06T07:08:09.123Z"', '"2024-05-06T07:08:09+02:00"', '1715000000', 'true', 'false', 'null', '[]', '[1,{"a":[2]}]', '"\\u00e9"'),
    );
    const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string }>(tie => ({
        value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalarText, tie('object')),
        object: members(tie('value'), 3),
    })).value;
    // Distinct keys per object (a duplicate sends the whole line the general way; `damaged` and the
    // constant lines below make some).
    function members(value: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
        return fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength }).map(ms => `{${ms.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
    }
    const objectLine = members(valueText, 6);
    const damaged = fc.tuple(objectLine, fc.nat(), fc.constantFrom('', '"', '{', '}', ',', '\\', '\t', ' ', 'x', '\u00e9'))
        .map(([line, at, insert]) => { const i = at % (line.length + 1); return line.slice(0, i) + insert + line.slice(i + 1); });
    const line = fc.oneof({ weight: 6, arbitrary: objectLine }, { weight: 2, arbitrary: damaged }, { weight: 1, arbitrary: fc.constantFrom('', '  ', '\r', '5', '{"a":1}{"b":2}', '{"a":1,"a":"x"}', '{"geo":{"city":1},"geo.city":2}') });

    it('random bodies', () => {
        fc.assert(
            fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.constantFrom<IngestParams['format']>('ndjson', 'json'), (ls, format) => {
                const body = Buffer.from(ls.join('\n'));
                const params: IngestParams = { ...NDJSON, format };
                const scanned = scanNdjsonColumns(body, params);
                const general = buildColumnarBatch(body, params);
                expectHashes(general);
                if (scanned !== undefined) expect(scanned).toEqual(general);
                expect(prepareColumns(body, params)).toEqual(general);
            }),
            { numRuns: Number(process.env.FC_RUNS ?? 3000) },
        );
    });
});
