import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildBatch, ingestStatus, prepareIngest, type IngestRequest } from '../../../server/ingest/ingest.js';
import { IngestError } from '../../../language/ingest/errors.js';
import { parseGoLayout } from '../../../language/ingest/go-layout.js';
import { parseTimeValue, normalizeEvents } from '../../../language/ingest/normalize-event.js';
import { formatFromContentType, parseEvents } from '../../../language/ingest/parse-events.js';
import { formatDatetime } from '../../../language/values.js';

const FIX = new URL('../../../../shared/fixtures/api/', import.meta.url);
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(name, FIX), 'utf8')) as Record<string, unknown>;

const RECV = 1_700_000_000_000_000_000n;

/** prepare + build: what the store would keep. */
async function ingest(req: IngestRequest, mapFields?: string[]) {
    const prep = await prepareIngest(req, { receiveTimeNs: RECV, mapFields });
    const { batch, failures } = buildBatch(prep.body, prep.params);
    expect(batch.fields.length).toBe(prep.count);
    expect(failures).toEqual(prep.failures);
    // The live path uses prep.batch; recovery and compaction rebuild with buildBatch: same events.
    expect(prep.batch.fields).toEqual(batch.fields);
    expect(prep.batch.times).toEqual(batch.times);
    const events: Record<string, unknown>[] = batch.fields.map((f, i) => ({ _time: formatDatetime(batch.times[i]), ...f }));
    return { prep, batch, failures, events };
}

const json = (body: string, extra: Partial<IngestRequest> = {}): IngestRequest => ({ body: Buffer.from(body), contentType: 'application/json', ...extra });

describe('body formats', () => {
    it('JSON array, single object, and NDJSON sniffed from application/json', async () => {
        expect((await ingest(json('[{"a":1},{"a":2}]'))).prep.count).toBe(2);
        expect((await ingest(json('{\n  "a": 1,\n  "b": {"c": 2}\n}\n'))).events).toEqual([{ _time: formatDatetime(RECV), a: 1, 'b.c': 2 }]);
        const r = await ingest(json('   {"a":1}\n  {"a":2}\n{"a":3}'));
        expect(r.events.map((e) => e.a)).toEqual([1, 2, 3]);
    });

    it('the docs NDJSON example (leading spaces on every line) is 6 events', async () => {
        const f = fixture('docs_ingest-ndjson.json') as { request: { body: string; headers: Record<string, string> } };
        const r = await ingest({ body: Buffer.from(f.request.body), contentType: f.request.headers['Content-Type'] });
        expect(r.prep.count).toBe(6);
        expect(r.failures).toEqual([]);
        expect(r.events[4]).toMatchObject({ _time: formatDatetime(RECV), timestamp: '2016-06-06T12:00:00+02:00', 'attributes.key1': 'value1' });
        expect(r.events[3]).toMatchObject({ 'index._index': 'products' });
    });

    it('docs JSON examples: grouped events and nested arrays', async () => {
        for (const [name, n] of [['docs_ingest-json-grouped-events.json', 2], ['docs_ingest-json-nested-arrays.json', 1], ['docs_ingest-json-objects-strings-arrays.json', 1]] as const) {
            const f = fixture(name) as { request: { body: unknown } };
            const r = await ingest(json(JSON.stringify(f.request.body, null, 2)));
            expect(r.prep.count).toBe(n);
        }
        const f = fixture('docs_ingest-json-grouped-events.json') as { request: { body: unknown } };
        const r = await ingest(json(JSON.stringify(f.request.body)));
        // `time` is not used automatically (API.md §3.5): _time is the receive time
        expect(r.events[0]).toEqual({ _time: formatDatetime(RECV), time: '2025-01-12T00:00:00.000Z', 'data.key1': 'value1', 'data.key2': 'value2' });
        expect(r.events[1]).toEqual({ _time: formatDatetime(RECV), 'data.key3': 'value3', 'labels.key4': 'value4' });
        const nested = fixture('docs_ingest-json-objects-strings-arrays.json') as { request: { body: unknown } };
        const n = await ingest(json(JSON.stringify(nested.request.body)));
        expect(n.events[0]['axiom.apl.reference']).toEqual([[80, 12], [30, 40]]);
        expect(n.events[0]['axiom.logging.observability']).toEqual([{ apl: 23, function: 'tostring' }, { apl: 24, operator: 'summarize' }]);
    });

    it('a malformed JSON array is a whole-request 400 with position info', async () => {
        const err = await prepareIngest(json('[{"a":1},\n{"a":}]')).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IngestError);
        expect((err as IngestError).status).toBe(400);
        expect((err as IngestError).message).toMatch(/position \d+.*line 2, column/);
    });

    it('bad NDJSON lines and non-objects fail alone, naming the line', async () => {
        const r = await ingest({ body: Buffer.from('{"a":1}\n{"a":\n42\n\n{"a":4}\n["x"]\n{"a":5}{"a":6}'), contentType: 'application/x-ndjson' });
        expect(r.events.map((e) => e.a)).toEqual([1, 4, 5, 6]);
        expect(r.failures.map((f) => f.error)).toEqual([
            expect.stringMatching(/^line 2: invalid JSON/),
            'line 3: event is not a JSON object (number)',
            'line 6: event is not a JSON object (array)',
        ]);
        const st = ingestStatus({ ingested: r.prep.count, failures: r.failures, processedBytes: r.prep.processedBytes, receiveTimeNs: RECV });
        expect(st).toEqual({ ingested: 4, failed: 3, failures: expect.any(Array), processedBytes: r.prep.body.length, blocksCreated: 0, walLength: 4 });
        expect(st.failures[0]).toEqual({ timestamp: formatDatetime(RECV), error: expect.stringContaining('line 2') });
    });

    it('array elements that are not objects fail alone', async () => {
        const r = await ingest(json('[{"a":1}, 2, null, {"a":3}]'));
        expect(r.prep.count).toBe(2);
        expect(r.failures.map((f) => f.error)).toEqual(['element 1: event is not a JSON object (number)', 'element 2: event is not a JSON object (null)']);
    });

    it('unsupported content types are 415', async () => {
        expect(() => formatFromContentType('text/plain')).toThrow(IngestError);
        await expect(prepareIngest({ body: Buffer.from('x'), contentType: 'application/xml' })).rejects.toMatchObject({ status: 415 });
        expect(formatFromContentType('application/x-ndjson; charset=utf-8')).toBe('ndjson');
        expect(formatFromContentType('application/nd-json')).toBe('ndjson');
    });

    it('gzip and zstd bodies ingest the same events; processedBytes is the decompressed length', async () => {
        const body = '{"a":1}\n{"a":2}';
        const plain = await ingest({ body: Buffer.from(body), contentType: 'application/x-ndjson' });
        const gz = await ingest({ body: gzipSync(body), contentType: 'application/x-ndjson', contentEncoding: 'gzip' });
        const zs = await ingest({ body: execFileSync('zstd', ['-q', '-c'], { input: body }), contentType: 'application/x-ndjson', contentEncoding: 'zstd' });
        expect(gz.events).toEqual(plain.events);
        expect(zs.events).toEqual(plain.events);
        expect(gz.prep.processedBytes).toBe(body.length);
        expect(zs.prep.processedBytes).toBe(body.length);
    });

    it('go IngestEvents fixture: 448 processed bytes + the labels header once', async () => {
        const f = fixture('go-derived_ingest-events.request.json') as { bodyDecompressed: string; headers: Record<string, string>; response: { processedBytes: number } };
        const body = execFileSync('zstd', ['-q', '-c'], { input: f.bodyDecompressed });
        const labels = '{"region":"eu-west-1"}';
        const r = await ingest({ body, contentType: 'application/x-ndjson', contentEncoding: 'zstd', eventLabels: labels });
        expect(r.prep.processedBytes).toBe(f.response.processedBytes + 22);
        expect(r.prep.count).toBe(2);
        // 8 event fields + 1 label field (+ _time); `time` is not the event time without timestamp-field
        expect(Object.keys(r.events[0]).sort()).toEqual(['_time', 'agent', 'bytes', 'referrer', 'region', 'remote_ip', 'remote_user', 'request', 'response', 'time']);
        expect(r.events[0]._time).toBe(formatDatetime(RECV));
    });

    it('js captured requests: JSON identity and the NDJSON without trailing newline', async () => {
        const id = fixture('js-2.0.0-captured_ingestRaw_json_identity.json') as { requests: { bodyDecoded: unknown; headers: Record<string, string> }[]; clientReturned: { processedBytes: number } };
        const raw = JSON.stringify(id.requests[0].bodyDecoded);
        const r = await ingest({ body: Buffer.from(raw), contentType: id.requests[0].headers['content-type'], contentEncoding: id.requests[0].headers['content-encoding'] });
        expect(r.events).toEqual([{ _time: formatDatetime(RECV), foo: 'bar' }]);
        expect(r.prep.processedBytes).toBe(id.clientReturned.processedBytes);
        const nb = fixture('js-2.0.0-captured_ingest_events_withoutBatching.json') as { requests: { bodyDecoded: string }[] };
        const r2 = await ingest({ body: gzipSync(nb.requests[0].bodyDecoded), contentType: 'application/x-ndjson', contentEncoding: 'gzip' });
        expect(r2.events).toEqual([
            { _time: formatDatetime(RECV), foo: 'bar' },
            { _time: '2026-01-01T00:00:00Z', n: 1 },
        ]);
    });
});

describe('CSV', () => {
    const csv = (body: string, extra: Partial<IngestRequest> = {}): IngestRequest => ({ body: Buffer.from(body), contentType: 'text/csv', ...extra });

    it('header row; a column is typed only when every non-empty cell fits (U4)', async () => {
        const r = await ingest(csv('a,b\n1,true\n"x,y",\n'));
        expect(r.events).toEqual([
            { _time: formatDatetime(RECV), a: '1', b: true },
            { _time: formatDatetime(RECV), a: 'x,y' },
        ]);
        expect((await ingest(csv('foo\nbar\nbaz'))).prep.count).toBe(2);
    });

    it('docs CSV example: header names are trimmed', async () => {
        const f = fixture('docs_ingest-csv.json') as { request: { body: string } };
        const r = await ingest(csv(f.request.body));
        expect(r.prep.count).toBe(1);
        expect(Object.keys(r.events[0]).sort()).toEqual(['_time', 'name', 'user']);
    });

    it('X-Axiom-CSV-Fields means no header row; empty means the first line is the header', async () => {
        const r = await ingest(csv('1,2\n3,4', { csvFields: 'a,b' }));
        expect(r.events.map((e) => [e.a, e.b])).toEqual([[1, 2], [3, 4]]);
        const h = await ingest(csv('a,b\n1,2', { csvFields: '' }));
        expect(h.events.map((e) => e.a)).toEqual([1]);
    });

    it('custom delimiter (js captured csv options, timestamp-field=a)', async () => {
        const f = fixture('js-2.0.0-captured_ingestRaw_csv_options.json') as { requests: { bodyDecoded: string }[] };
        const r = await ingest(csv(f.requests[0].bodyDecoded, { csvDelimiter: ';', timestampField: 'a' }));
        // a = "1" is an epoch in seconds
        expect(r.events).toEqual([{ _time: '1970-01-01T00:00:01Z', a: 1, b: 2 }]);
        await expect(prepareIngest(csv('a;b', { csvDelimiter: ';;' }))).rejects.toMatchObject({ status: 400 });
    });

    it('ragged rows fail alone, naming the row', async () => {
        const r = await ingest(csv('a,b\n1,2\n3\n4,5,6\n7,8'));
        expect(r.events.map((e) => e.a)).toEqual([1, 7]);
        expect(r.failures.map((f) => f.error)).toEqual(['CSV row 3: has 1 fields, expected 2', 'CSV row 4: has 3 fields, expected 2']);
    });
});

describe('normalisation', () => {
    it('flattens nested objects at every depth; arrays are values; nulls dropped', async () => {
        const r = await ingest(json('{"geo":{"city":"Berlin","pos":{"lat":1,"lon":2}},"tags":["a",{"b":1}],"n":null,"e":{}}'));
        expect(r.events[0]).toEqual({ _time: formatDatetime(RECV), 'geo.city': 'Berlin', 'geo.pos.lat': 1, 'geo.pos.lon': 2, tags: ['a', { b: 1 }] });
    });

    it('flattens every event of a batch by its own keys (dotted names are memoised per batch)', async () => {
        const body = ['{"geo":{"city":"A","c":{"x":1}}}', '{"geo":{"country":"B"},"c":{"x":2}}', '{"geo":{"c":{"x":3}},"x":{"geo":4}}'].join('\n');
        const r = await ingest({ body: Buffer.from(body), contentType: 'application/x-ndjson' });
        expect(r.batch.fields).toEqual([{ 'geo.city': 'A', 'geo.c.x': 1 }, { 'geo.country': 'B', 'c.x': 2 }, { 'geo.c.x': 3, 'x.geo': 4 }]);
    });

    it('map fields stop flattening', async () => {
        const r = await ingest(json('{"foo":{"x":{"y":1}},"bar":{"buz":1,"buz2":2}}'), ['foo']);
        expect(r.events[0]).toEqual({ _time: formatDatetime(RECV), foo: { x: { y: 1 } }, 'bar.buz': 1, 'bar.buz2': 2 });
    });

    it('renames reserved names to _user_*', async () => {
        const r = await ingest(json('{"_sysTime":1,"_rowID":2,"_source":3,"_cursor":4,"_blockInfo":5,"_other":6}'));
        expect(r.events[0]).toEqual({ _time: formatDatetime(RECV), _user_sysTime: 1, _user_rowID: 2, _user_source: 3, _user_cursor: 4, _user_blockInfo: 5, _other: 6 });
    });

    it('merges X-Axiom-Event-Labels into every event (labels win); bad labels are 400', async () => {
        const r = await ingest(json('[{"a":1,"region":"x"},{"b":2}]', { eventLabels: '{"region":"eu","k8s":{"ns":"prod"}}' }));
        expect(r.events).toEqual([
            { _time: formatDatetime(RECV), a: 1, region: 'eu', 'k8s.ns': 'prod' },
            { _time: formatDatetime(RECV), b: 2, region: 'eu', 'k8s.ns': 'prod' },
        ]);
        await expect(prepareIngest(json('[{"a":1}]', { eventLabels: '[1]' }))).rejects.toMatchObject({ status: 400 });
        await expect(prepareIngest(json('[{"a":1}]', { eventLabels: '{bad' }))).rejects.toMatchObject({ status: 400 });
    });

    it('_time: RFC 3339 with zone and nanoseconds, epochs in s/ms/us/ns, missing → receive time', async () => {
        const r = await ingest(
            json(
                JSON.stringify([
                    { _time: '2024-08-14T22:26:26.691450448Z' },
                    { _time: '2024-08-15T00:26:26+02:00' },
                    { _time: 1723674385 },
                    { _time: 1723674385123 },
                    { _time: 1723674385123456 },
                    // eslint-disable-next-line no-loss-of-precision -- an epoch in ns as JSON.parse delivers it (rounded)
                    { _time: 1723674385123456789 },
                    { _time: 1723674385.5 },
                    { x: 1 },
                    { _time: null },
                ]),
            ),
        );
        expect(r.events.map((e) => e._time)).toEqual([
            '2024-08-14T22:26:26.691450448Z',
            '2024-08-14T22:26:26Z',
            '2024-08-14T22:26:25Z',
            '2024-08-14T22:26:25.123Z',
            '2024-08-14T22:26:25.123456Z',
            expect.stringMatching(/^2024-08-14T22:26:25\.1234567/), // float64 precision
            '2024-08-14T22:26:25.5Z',
            formatDatetime(RECV),
            formatDatetime(RECV),
        ]);
        expect(r.events.every((e) => !('_time' in e) || typeof e._time === 'string')).toBe(true);
    });

    it('an unparseable time fails the event alone', async () => {
        const r = await ingest(json('[{"_time":"yesterday"},{"_time":"2024-01-01T00:00:00Z"}]'));
        expect(r.prep.count).toBe(1);
        expect(r.failures[0].error).toMatch(/cannot parse timestamp field "_time": "yesterday"/);
    });

    it('an impossible date (2025-02-30) fails the event, naming the field and the value', async () => {
        const r = await ingest(json('[{"_time":"2025-02-30"},{"_time":"2024-02-29T00:00:00Z"},{"_time":"2025-02-30T01:02:03Z"},{"_time":"2100-02-29"}]'));
        expect(r.prep.count).toBe(1);
        expect(r.failures.map((f) => f.error)).toEqual([
            'timestamp field "_time" is not a real date: "2025-02-30" (2025-02 has 28 days)',
            'timestamp field "_time" is not a real date: "2025-02-30T01:02:03Z" (2025-02 has 28 days)',
            'timestamp field "_time" is not a real date: "2100-02-29" (2100-02 has 28 days)',
        ]);
    });

    it('timestamp-field + timestamp-format (Go layouts); the source field is kept (U3)', async () => {
        const r = await ingest(
            json('[{"time":"17/May/2015:08:05:32 +0000","x":1},{"time":"17/May/2015:10:05:32 +0200"}]', {
                timestampField: 'time',
                timestampFormat: '02/Jan/2006:15:04:05 -0700',
            }),
        );
        expect(r.events).toEqual([
            { _time: '2015-05-17T08:05:32Z', time: '17/May/2015:08:05:32 +0000', x: 1 },
            { _time: '2015-05-17T08:05:32Z', time: '17/May/2015:10:05:32 +0200' },
        ]);
        const d = await ingest({ body: Buffer.from('{"ts":"2024-03-05","a":2}'), contentType: 'application/x-ndjson', timestampField: 'ts', timestampFormat: '2006-01-02' });
        expect(d.events[0]._time).toBe('2024-03-05T00:00:00Z');
        const nested = await ingest(json('{"meta":{"ts":"2024-03-05T01:02:03Z"}}', { timestampField: 'meta.ts' }));
        expect(nested.events[0]._time).toBe('2024-03-05T01:02:03Z');
    });

    it('Go layout parser handles the common tokens', () => {
        const p = (v: string, l: string): string | undefined => {
            const t = parseGoLayout(v, l);
            return t === undefined ? undefined : formatDatetime(t);
        };
        expect(p('2006-01-02T15:04:05Z', '2006-01-02T15:04:05Z07:00')).toBe('2006-01-02T15:04:05Z');
        expect(p('2024-08-14T22:26:26.123+02:00', '2006-01-02T15:04:05.999999999Z07:00')).toBe('2024-08-14T20:26:26.123Z');
        expect(p('2024-08-14 22:26:26.5', '2006-01-02 15:04:05')).toBe('2024-08-14T22:26:26.5Z'); // fraction after seconds
        expect(p('Mon Jan  2 15:04:05 2006', 'Mon Jan _2 15:04:05 2006')).toBe('2006-01-02T15:04:05Z');
        expect(p('Wed, 14 Aug 2024 10:26:26 PM -0700', 'Mon, 02 Jan 2006 03:04:05 PM -0700')).toBe('2024-08-15T05:26:26Z');
        expect(p('August 14, 24 12:00am', 'January 2, 06 3:04pm')).toBe('2024-08-14T00:00:00Z');
        expect(p('14/Aug/2024:22:26:26 MST', '02/Jan/2006:15:04:05 MST')).toBe('2024-08-14T22:26:26Z');
        expect(p('2024.227', '2006.002')).toBe('2024-08-14T00:00:00Z');
        expect(p('2024-02-30', '2006-01-02')).toBeUndefined();
        expect(p('2024-08-14x', '2006-01-02')).toBeUndefined();
        expect(p('20240814', '20060102')).toBe('2024-08-14T00:00:00Z');
    });

    it('heuristics: numeric strings, CLF and RFC 1123 forms', () => {
        expect(formatDatetime(parseTimeValue('1723674385')!)).toBe('2024-08-14T22:26:25Z');
        expect(formatDatetime(parseTimeValue('14/Aug/2024:22:26:25 +0000')!)).toBe('2024-08-14T22:26:25Z');
        expect(formatDatetime(parseTimeValue('2024-08-14 22:26:25')!)).toBe('2024-08-14T22:26:25Z');
        expect(parseTimeValue(true)).toBeUndefined();
    });

    it('long strings become <invalid string: too long>', () => {
        const big = 'x'.repeat(1024 * 1024 + 1);
        const r = normalizeEvents([{ s: big, t: 'ok' }], { receiveTimeNs: RECV });
        expect(r.fields[0]).toEqual({ s: '<invalid string: too long>', t: 'ok' });
    });

    it('parseEvents sniffing: blank body is zero events', () => {
        expect(parseEvents(Buffer.from('  \n '), 'json')).toEqual({ events: [], failures: [] });
    });
});
