import { describe, expect, it } from 'vitest';
import {
    SAMPLE_DATASETS,
    flattenEvent,
    generateSample,
    sampleDatasetSpec,
    sampleMapFields,
    type SampleDatasetSpec,
} from '../../language/samples/index.js';
import type { AplType } from '../../language/types/apl-types.js';

const END = new Date('2025-06-01T00:00:00Z');
const DAY_MS = 86_400_000;
const RFC3339_NANO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

function take(name: string, rows: number, seed = 1, extra: { days?: number; sysTime?: boolean } = {}): Record<string, unknown>[] {
    return [...generateSample(name, { rows, seed, end: END, ...extra })];
}

/** Whether a flattened JSON value fits a schema type as ingestion would read it. */
function fits(type: AplType, value: unknown): boolean {
    if (value === null || value === undefined) return true;
    switch (type) {
        case 'string': return typeof value === 'string';
        case 'long': return typeof value === 'number' && Number.isInteger(value);
        case 'real': return typeof value === 'number';
        case 'bool': return typeof value === 'boolean';
        case 'datetime': return typeof value === 'string' && RFC3339_NANO.test(value);
        // Timespans travel as integer nanoseconds.
        case 'timespan': return typeof value === 'number' && Number.isInteger(value) && value >= 0;
        case 'dynamic': return typeof value === 'object';
        default: return false;
    }
}

function checkShapes(spec: SampleDatasetSpec, events: Record<string, unknown>[]): void {
    const types = new Map(spec.fields.map(f => [f.name, f.type]));
    const maps = sampleMapFields(spec);
    const seen = new Set<string>();
    const problems = new Set<string>();
    for (const ev of events) {
        const flat = flattenEvent(ev, maps);
        for (const [name, value] of Object.entries(flat)) {
            const type = types.get(name);
            if (!type) problems.add(`field ${name} is not in SAMPLE_DATASETS`);
            else if (!fits(type, value)) problems.add(`${name} = ${JSON.stringify(value)} is not a ${type}`);
            seen.add(name);
        }
    }
    expect([...problems].slice(0, 10), spec.name).toEqual([]);
    const never = spec.fields.map(f => f.name).filter(n => !seen.has(n) && n !== '_sysTime');
    expect(never, `${spec.name}: fields never generated`).toEqual([]);
}

describe('SAMPLE_DATASETS', () => {
    it('lists the datasets of the docs with _time and _sysTime as datetime', () => {
        expect(SAMPLE_DATASETS.map(d => d.name)).toEqual(
            expect.arrayContaining(['sample-http-logs', 'otel-demo-traces', 'github-push-event', 'github-issues-event']));
        for (const d of SAMPLE_DATASETS) {
            expect(d.fields.find(f => f.name === '_time')?.type).toBe('datetime');
            expect(d.fields.find(f => f.name === '_sysTime')?.type).toBe('datetime');
            expect(new Set(d.fields.map(f => f.name)).size).toBe(d.fields.length);
        }
    });

    it('has the types of inventory section 8', () => {
        const http = sampleDatasetSpec('sample-http-logs')!;
        const type = (n: string) => http.fields.find(f => f.name === n)?.type;
        expect(type('status')).toBe('string');
        expect(type('geo.city')).toBe('string');
        expect(type('req_duration_ms')).toBe('real');
        expect(type('resp_body_size_bytes')).toBe('long');
        expect(type('is_tls')).toBe('bool');
        const traces = sampleDatasetSpec('otel-demo-traces')!;
        expect(traces.fields.find(f => f.name === 'duration')?.type).toBe('timespan');
        expect(traces.fields.find(f => f.name === 'attributes.custom')).toMatchObject({ type: 'dynamic', map: true });
    });
});

describe('generateSample', () => {
    it('is deterministic: same seed, same events', () => {
        for (const spec of SAMPLE_DATASETS) {
            expect(take(spec.name, 300, 42), spec.name).toEqual(take(spec.name, 300, 42));
        }
    });

    it('different seeds give different events', () => {
        expect(take('sample-http-logs', 50, 1)).not.toEqual(take('sample-http-logs', 50, 2));
    });

    it('rejects an unknown dataset and bad options when called', () => {
        expect(() => generateSample('nope', { rows: 1 })).toThrow(/unknown sample dataset 'nope'.*sample-http-logs/);
        expect(() => generateSample('sample-http-logs', { rows: -1 })).toThrow(/rows/);
        expect(() => generateSample('sample-http-logs', { rows: 1, days: 0 })).toThrow(/days/);
    });

    it('yields lazily', () => {
        const it = generateSample('sample-http-logs', { rows: 1_000_000_000, end: END })[Symbol.iterator]();
        expect(it.next().done).toBe(false);
    });

    for (const spec of SAMPLE_DATASETS) {
        it(`${spec.name}: events match the schema`, () => {
            const events = take(spec.name, 10_000, 5);
            expect(events).toHaveLength(10_000);
            checkShapes(spec, events);
        });
    }

    it('emits _sysTime only when asked, shortly after _time', () => {
        expect(take('sample-http-logs', 5)[0]._sysTime).toBeUndefined();
        const lags = take('sample-http-logs', 100, 1, { sysTime: true }).map(ev => Date.parse(ev._sysTime as string) - Date.parse(ev._time as string));
        expect(Math.min(...lags)).toBeGreaterThanOrEqual(0);
        expect(Math.max(...lags)).toBeLessThan(60_000);
    });

    it('generates 10k events of every dataset', () => {
        for (const spec of SAMPLE_DATASETS) {
            let n = 0;
            for (const _ of generateSample(spec.name, { rows: 10_000, seed: 9, end: END })) n++;
            expect(n, spec.name).toBe(10_000);
        }
    });
});

describe('sample-http-logs distribution', () => {
    const events = take('sample-http-logs', 200_000, 11);

    it('has skewed status codes, as strings', () => {
        const counts = new Map<string, number>();
        for (const ev of events) counts.set(ev.status as string, (counts.get(ev.status as string) ?? 0) + 1);
        const share = (s: string) => (counts.get(s) ?? 0) / events.length;
        expect(share('200')).toBeGreaterThan(0.7);
        expect(share('200')).toBeLessThan(0.9);
        for (const s of ['201', '301', '304', '404']) expect(share(s), s).toBeGreaterThan(0.005);
        expect(share('500')).toBeGreaterThan(0.005);
        expect(share('500')).toBeLessThan(0.03);
        expect([...counts.keys()].every(s => /^[1-5]\d\d$/.test(s))).toBe(true);
    });

    it('has about 50k distinct user ids', () => {
        const ids = new Set(events.map(e => e.id));
        expect(ids.size).toBeGreaterThan(40_000);
        expect(ids.size).toBeLessThanOrEqual(50_000);
        expect([...ids][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('puts every event in the 30-day window, in time order, spread over the window', () => {
        const start = END.getTime() - 30 * DAY_MS;
        let previous = -Infinity;
        let outside = 0;
        let unordered = 0;
        const perDay = new Array<number>(30).fill(0);
        for (const ev of events) {
            const t = Date.parse(ev._time as string);
            if (t < start || t >= END.getTime()) outside++;
            if (t < previous) unordered++;
            previous = t;
            perDay[Math.floor((t - start) / DAY_MS)]++;
        }
        expect(outside).toBe(0);
        expect(unordered).toBe(0);
        expect(Math.min(...perDay)).toBeGreaterThan(events.length / 30 / 3);
        expect(events[0]._time).toMatch(RFC3339_NANO);
    });

    it('honours days and end', () => {
        const times = take('sample-http-logs', 1000, 3, { days: 1 }).map(ev => Date.parse(ev._time as string));
        expect(Math.min(...times)).toBeGreaterThanOrEqual(END.getTime() - DAY_MS);
        expect(Math.max(...times)).toBeLessThan(END.getTime());
    });

    it('has a few hundred URIs, many under /api, and cities that belong to their country', () => {
        const uris = new Set(events.map(e => e.uri as string));
        expect(uris.size).toBeGreaterThan(150);
        expect(uris.size).toBeLessThan(600);
        expect([...uris].filter(u => u.includes('api')).length / uris.size).toBeGreaterThan(0.5);
        const countryOf = new Map<string, string>();
        let mismatched = 0;
        for (const ev of events) {
            const geo = ev.geo as { city: string; country: string };
            const known = countryOf.get(geo.city);
            if (known && known !== geo.country) mismatched++;
            else countryOf.set(geo.city, geo.country);
        }
        expect(mismatched).toBe(0);
        expect(countryOf.get('Seattle')).toBe('United States');
        expect(countryOf.get('Berlin')).toBe('Germany');
    });

    it('has log-normal durations and plausible sizes', () => {
        const d = events.map(e => e.req_duration_ms as number).sort((a, b) => a - b);
        expect(d[0]).toBeGreaterThan(0);
        const median = d[Math.floor(d.length / 2)];
        const p99 = d[Math.floor(d.length * 0.99)];
        expect(median).toBeGreaterThan(0.05);
        expect(median).toBeLessThan(10);
        expect(p99 / median).toBeGreaterThan(5);
        expect(events.every(e => Number.isInteger(e.resp_body_size_bytes) && (e.resp_body_size_bytes as number) >= 0)).toBe(true);
        expect(new Set(events.map(e => e.method))).toEqual(new Set(['GET', 'POST', 'PUT', 'DELETE']));
        expect(new Set(events.map(e => e.server_datacenter))).toEqual(new Set(['DCA', 'GRU', 'FRA']));
    });
});

describe('otel-demo-traces structure', () => {
    const spans = take('otel-demo-traces', 20_000, 4);

    it('has well-formed ids and parents that precede their children', () => {
        const seen = new Set<string>();
        let roots = 0;
        let bad = 0;
        for (const s of spans) {
            if (!/^[0-9a-f]{32}$/.test(s.trace_id as string) || !/^[0-9a-f]{16}$/.test(s.span_id as string)) bad++;
            if (s.parent_span_id === '') roots++;
            else if (!seen.has(s.parent_span_id as string)) bad++;
            seen.add(s.span_id as string);
        }
        expect(bad).toBe(0);
        expect(roots).toBeGreaterThan(100);
    });

    it('uses the services of the OpenTelemetry demo and all span kinds', () => {
        const services = new Set(spans.map(s => (s.service as { name: string }).name));
        for (const svc of ['frontend', 'frontendproxy', 'flagd', 'productcatalogservice', 'loadgenerator', 'checkoutservice', 'cartservice', 'paymentservice']) {
            expect(services.has(svc), svc).toBe(true);
        }
        expect(new Set(spans.map(s => s.kind))).toEqual(new Set(['server', 'client', 'internal', 'producer', 'consumer']));
    });

    it('has some errors, with an exception event on the failing span', () => {
        const errors = spans.filter(s => s.error === true);
        expect(errors.length).toBeGreaterThan(0);
        expect(errors.length / spans.length).toBeLessThan(0.1);
        expect(errors.every(s => s.status_code === 'ERROR')).toBe(true);
        const withException = errors.filter(s => (s.events as Array<{ name: string }>).some(e => e.name === 'exception'));
        expect(withException.length).toBeGreaterThan(0);
    });

    it('gives a parent at least the duration of each child', () => {
        const byId = new Map(spans.map(s => [s.span_id as string, s]));
        const shorter = spans.filter(s => {
            const parent = byId.get(s.parent_span_id as string);
            return parent !== undefined && parent.kind !== 'producer' && (parent.duration as number) < (s.duration as number);
        });
        expect(shorter).toEqual([]);
    });
});
