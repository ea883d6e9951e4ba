import { describe, expect, it } from 'vitest';
import {
    BuiltinSchemaProvider,
    EmptySchemaProvider,
    MutableSchemaProvider,
    SchemaFormatError,
    StaticSchemaProvider,
    findField,
    parseSchemaJson,
    resolveFieldPath,
    type DatasetSchema,
} from '../../language/schema/index.js';
import { SAMPLE_DATASETS } from '../../language/samples/index.js';

const OWN_FORMAT = JSON.stringify({
    datasets: {
        'sample-http-logs': {
            status: 'string',
            req_duration_ms: { type: 'float', unit: 'ms', description: 'Time to serve' },
            resp_body_size_bytes: 'integer',
            'geo.city': 'string',
            is_tls: 'boolean',
            secret: { type: 'string', hidden: true },
        },
        traces: {
            duration: 'timespan',
            'attributes.custom': 'map',
            amount: 'float|integer',
            mixed: 'string|integer',
            events: 'array',
            _time: 'string',
        },
    },
});

function names(ds: DatasetSchema | undefined): string[] {
    return ds?.fields.map(f => f.name) ?? [];
}

function parseError(text: string, source = 'schema.json'): SchemaFormatError {
    try {
        parseSchemaJson(text, source);
    } catch (e) {
        if (e instanceof SchemaFormatError) return e;
        throw e;
    }
    throw new Error('expected a SchemaFormatError');
}

describe('parseSchemaJson: our format', () => {
    const datasets = parseSchemaJson(OWN_FORMAT, 'schema.json');
    const http = datasets.find(d => d.name === 'sample-http-logs')!;
    const traces = datasets.find(d => d.name === 'traces')!;

    it('maps Axiom field types to APL types', () => {
        const type = (ds: DatasetSchema, n: string) => findField(ds, n)?.type;
        expect(type(http, 'status')).toBe('string');
        expect(type(http, 'req_duration_ms')).toBe('real');
        expect(type(http, 'resp_body_size_bytes')).toBe('long');
        expect(type(http, 'is_tls')).toBe('bool');
        expect(type(traces, 'duration')).toBe('timespan');
        expect(type(traces, 'attributes.custom')).toBe('dynamic');
        expect(type(traces, 'amount')).toBe('real');
        expect(type(traces, 'mixed')).toBe('dynamic');
        expect(type(traces, 'events')).toBe('dynamic');
    });

    it('keeps unit and description, skips hidden fields', () => {
        expect(findField(http, 'req_duration_ms')).toEqual({ name: 'req_duration_ms', type: 'real', unit: 'ms', description: 'Time to serve' });
        expect(findField(http, 'secret')).toBeUndefined();
    });

    it('always adds _time and _sysTime as datetime, first', () => {
        expect(names(http).slice(0, 2)).toEqual(['_time', '_sysTime']);
        expect(findField(traces, '_time')?.type).toBe('datetime');
        expect(names(traces).filter(n => n === '_time')).toHaveLength(1);
    });
});

describe('parseSchemaJson: Axiom shapes', () => {
    const fields = [
        { name: 'status', type: 'string', unit: '', hidden: false, description: '' },
        { name: 'req_duration_ms', type: 'integer|float', unit: 'ms', hidden: false, description: '' },
        { name: 'internal', type: 'string', hidden: true },
        { name: 'odd', type: '' },
    ];

    it('a field list, named after the file', () => {
        const [ds] = parseSchemaJson(JSON.stringify(fields), '/tmp/sample-http-logs.fields.json');
        expect(ds.name).toBe('sample-http-logs');
        expect(names(ds)).toEqual(['_time', '_sysTime', 'status', 'req_duration_ms', 'odd']);
        expect(findField(ds, 'req_duration_ms')).toEqual({ name: 'req_duration_ms', type: 'real', unit: 'ms' });
        expect(findField(ds, 'odd')?.type).toBe('unknown');
    });

    it('a field list, named by the caller', () => {
        const [ds] = parseSchemaJson(JSON.stringify(fields), 'stdin', { datasetName: 'logs' });
        expect(ds.name).toBe('logs');
    });

    it('fieldsMetaMap: dataset name -> field list', () => {
        const ds = parseSchemaJson(JSON.stringify({ a: fields, b: [{ name: 'x', type: 'boolean' }] }), 'meta.json');
        expect(ds.map(d => d.name)).toEqual(['a', 'b']);
        expect(findField(ds[1], 'x')?.type).toBe('bool');
    });

    it('a list of datasets with fields, bare or under "datasets"', () => {
        const list = [{ name: 'a', fields }, { name: 'b', fields: [] }];
        expect(parseSchemaJson(JSON.stringify(list), 'x.json').map(d => d.name)).toEqual(['a', 'b']);
        expect(parseSchemaJson(JSON.stringify({ datasets: list }), 'x.json').map(d => d.name)).toEqual(['a', 'b']);
    });
});

describe('parseSchemaJson: errors name the problem and where', () => {
    it('a bad type name names the dataset and the field', () => {
        const e = parseError(JSON.stringify({ datasets: { 'sample-http-logs': { status: 'strng' } } }));
        expect(e.message).toContain('schema.json');
        expect(e.message).toContain('sample-http-logs');
        expect(e.message).toContain('status');
        expect(e.message).toContain("unknown field type 'strng'");
        expect(e.path).toBe('datasets["sample-http-logs"].status');
    });

    it('a bad part of a union', () => {
        expect(parseError(JSON.stringify({ datasets: { d: { f: 'integer|numbr' } } })).message).toMatch(/datasets\.d\.f: unknown field type 'numbr' in 'integer\|numbr'/);
    });

    it('a bad type in an Axiom field list names the index and the field', () => {
        const e = parseError(JSON.stringify({ logs: [{ name: 'ok', type: 'string' }, { name: 'bad', type: 'number' }] }));
        expect(e.message).toMatch(/logs\[1\] \('bad'\): unknown field type 'number'/);
    });

    it('invalid JSON', () => {
        expect(parseError('{"datasets": ', 'my.json').message).toMatch(/^my\.json: not valid JSON/);
    });

    it('wrong shapes', () => {
        expect(parseError('42').message).toMatch(/expected a JSON object/);
        expect(parseError('{"tables": {}}').message).toMatch(/"datasets"/);
        expect(parseError('{"datasets": 3}').message).toMatch(/datasets: expected an object/);
        expect(parseError('{"datasets": {"d": 3}}').message).toMatch(/datasets\.d: expected an object/);
        expect(parseError('{"datasets": {"d": {"f": 3}}}').message).toMatch(/datasets\.d\.f: expected a type name/);
        expect(parseError('{"datasets": {"d": {"f": {"unit": "ms"}}}}').message).toMatch(/needs a string "type"/);
        expect(parseError('[{"name": "a", "fields": [{"type": "string"}]}]').message).toMatch(/\[0\]\.fields\[0\]: a field needs a non-empty string "name"/);
        expect(parseError('[{"name": "a", "fields": [{"name": "x", "type": "string"}, {"name": "x", "type": "long"}]}]').message).toMatch(/listed twice/);
        expect(parseError('[{"name": "a", "fields": []}, {"name": "a", "fields": []}]').message).toMatch(/defined twice/);
    });
});

describe('providers', () => {
    it('StaticSchemaProvider', () => {
        const p = StaticSchemaProvider.fromJson(OWN_FORMAT, 'schema.json');
        expect(p.datasets().map(d => d.name)).toEqual(['sample-http-logs', 'traces']);
        expect(p.dataset('traces')?.name).toBe('traces');
        expect(p.dataset('Traces')).toBeUndefined(); // names are case-sensitive
        expect(typeof p.version).toBe('number');
    });

    it('StaticSchemaProvider adds the time fields to datasets given in code', () => {
        const p = new StaticSchemaProvider([{ name: 'd', fields: [{ name: 'x', type: 'long' }] }]);
        expect(names(p.dataset('d'))).toEqual(['_time', '_sysTime', 'x']);
    });

    it('EmptySchemaProvider', () => {
        const p = new EmptySchemaProvider();
        expect(p.datasets()).toEqual([]);
        expect(p.dataset('sample-http-logs')).toBeUndefined();
    });

    it('BuiltinSchemaProvider serves SAMPLE_DATASETS', () => {
        const p = new BuiltinSchemaProvider();
        expect(p.datasets().map(d => d.name)).toEqual(SAMPLE_DATASETS.map(d => d.name));
        const http = p.dataset('sample-http-logs')!;
        expect(findField(http, 'status')?.type).toBe('string');
        expect(findField(http, 'geo.city')?.type).toBe('string');
        expect(findField(http, 'resp_body_size_bytes')).toMatchObject({ type: 'long', unit: 'decbytes' });
        expect(findField(p.dataset('otel-demo-traces')!, 'duration')?.type).toBe('timespan');
        for (const spec of SAMPLE_DATASETS) expect(names(p.dataset(spec.name))).toEqual(spec.fields.map(f => f.name));
    });

    it('MutableSchemaProvider bumps its version and notifies on every change', () => {
        const p = new MutableSchemaProvider(new BuiltinSchemaProvider());
        expect(p.dataset('sample-http-logs')).toBeDefined();
        const seen: number[] = [];
        const sub = p.onDidChange(q => seen.push(q.version));
        const v0 = p.version;
        p.replace([{ name: 'a', fields: [{ name: 'x', type: 'string' }] }]);
        expect(p.version).toBeGreaterThan(v0);
        expect(p.dataset('sample-http-logs')).toBeUndefined();
        expect(names(p.dataset('a'))).toEqual(['_time', '_sysTime', 'x']);
        p.setDataset({ name: 'b', fields: [] });
        expect(p.datasets().map(d => d.name)).toEqual(['a', 'b']);
        expect(p.removeDataset('a')).toBe(true);
        const v = p.version;
        expect(p.removeDataset('a')).toBe(false);
        expect(p.version).toBe(v);
        sub.dispose();
        p.replace(new EmptySchemaProvider());
        expect(p.datasets()).toEqual([]);
        expect(seen).toEqual([v0 + 1, v0 + 2, v0 + 3]);
    });
});

describe('resolveFieldPath: the longest existing flattened field wins', () => {
    const p = new BuiltinSchemaProvider();
    const http = p.dataset('sample-http-logs')!;
    const traces = p.dataset('otel-demo-traces')!;

    it('geo.city is one field', () => {
        const r = resolveFieldPath(http, ['geo', 'city'])!;
        expect(r.field.name).toBe('geo.city');
        expect(r.keys).toEqual([]);
    });

    it('attributes.custom.http.protocol is the map field attributes.custom with keys http.protocol', () => {
        const r = resolveFieldPath(traces, ['attributes', 'custom', 'http', 'protocol'])!;
        expect(r.field.name).toBe('attributes.custom');
        expect(r.field.type).toBe('dynamic');
        expect(r.keys.join('.')).toBe('http.protocol');
    });

    it('a plain field followed by keys', () => {
        const ds: DatasetSchema = { name: 'd', fields: [{ name: 'a', type: 'dynamic' }, { name: 'a.b.c', type: 'string' }] };
        expect(resolveFieldPath(ds, ['a', 'b', 'c'])).toMatchObject({ field: { name: 'a.b.c' }, keys: [] });
        expect(resolveFieldPath(ds, ['a', 'b', 'd'])).toMatchObject({ field: { name: 'a' }, keys: ['b', 'd'] });
        expect(resolveFieldPath(ds, ['a', 'b', 'c', 'e'])).toMatchObject({ field: { name: 'a.b.c' }, keys: ['e'] });
    });

    it('no field: undefined', () => {
        expect(resolveFieldPath(http, ['nope', 'city'])).toBeUndefined();
        expect(resolveFieldPath(http, ['geo'])).toBeUndefined();
        expect(resolveFieldPath(http, [])).toBeUndefined();
    });

    it('sees fields added after the first lookup', () => {
        const ds: DatasetSchema = { name: 'd', fields: [{ name: 'a', type: 'string' }] };
        expect(findField(ds, 'b')).toBeUndefined();
        ds.fields.push({ name: 'b', type: 'long' });
        expect(findField(ds, 'b')?.type).toBe('long');
    });
});
