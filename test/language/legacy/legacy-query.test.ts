import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
    FILTER_OP_SPELLINGS,
    AGGREGATION_OPS,
    LegacyQueryError,
    effectiveLegacyLimit,
    parseLegacyQuery,
    type LegacyQuery,
} from '../../../language/legacy/legacy-types.js';

const FIXTURES = fileURLToPath(new URL('../../../../shared/fixtures/api/', import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixtures are arbitrary JSON read by path
function fixture(name: string): Record<string, any> {
    return JSON.parse(readFileSync(FIXTURES + name, 'utf8'));
}

const T = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

function rejects(body: unknown, path: string, message: RegExp): void {
    let error: unknown;
    try {
        parseLegacyQuery(body);
    } catch (e) {
        error = e;
    }
    expect(error, JSON.stringify(body)).toBeInstanceOf(LegacyQueryError);
    expect((error as LegacyQueryError).path).toBe(path);
    expect((error as LegacyQueryError).message).toMatch(message);
}

describe('the fixtures', () => {
    it('go-derived_legacy-query-minimal: every key sent, all zero values mean "not set"', () => {
        const body = fixture('go-derived_legacy-query-minimal.request.json').body;
        const q = parseLegacyQuery(body);
        expect(q).toEqual({ startTime: body.startTime, endTime: body.endTime, resolution: 'auto' });
        expect(effectiveLegacyLimit(q)).toBe(1000);
    });
    it('cli-derived_stream-legacy-query: ascending order and a cursor', () => {
        const body = fixture('cli-derived_stream-legacy-query.request.json').body;
        expect(parseLegacyQuery(body)).toEqual({
            startTime: '2026-08-21T10:00:00.999999999+02:00',
            endTime: '2026-08-21T10:00:07.5+02:00',
            resolution: 'auto',
            order: [{ field: '_time', desc: false }],
            cursor: '0d3fzkox77jls-075072aeef001913-00008ab9',
        });
    });
    it('js-2.0.0-captured_queryLegacy: only the keys the caller set', () => {
        const body = fixture('js-2.0.0-captured_queryLegacy.json').requests[0].bodyDecoded;
        expect(parseLegacyQuery(body)).toEqual({
            startTime: '2026-01-01T00:00:00Z',
            endTime: '2026-01-02T00:00:00Z',
            resolution: 'auto',
            aggregations: [{ op: 'count', field: '*' }],
            groupBy: ['status'],
            filter: { op: '==', field: 'status', value: 200, caseSensitive: false },
            limit: 10,
            order: [{ field: '_time', desc: true }],
        } satisfies LegacyQuery);
    });
    it('go-integration_legacy-groupby-count: children under exists are ignored', () => {
        const body = fixture('go-integration_legacy-groupby-count.partial-response.json').request.body;
        const q = parseLegacyQuery({ ...body, startTime: T.startTime, endTime: T.endTime });
        expect(q.filter).toEqual({ op: 'exists', field: 'response' });
        expect(q.aggregations).toEqual([{ alias: 'event_count', op: 'count', field: '*' }]);
        expect(q.groupBy).toEqual(['success', 'remote_ip']);
        expect(q.virtualFields).toEqual([{ alias: 'success', expr: 'toint(response) < 400' }]);
        expect(q.project).toEqual([{ field: 'remote_ip', alias: 'ip' }]);
        expect(q.order).toEqual([{ field: 'success', desc: true }, { field: 'remote_ip', desc: false }]);
        expect(q.limit).toBeUndefined();
    });
});

describe('spellings and defaults', () => {
    for (const spelling of Object.keys(FILTER_OP_SPELLINGS).filter(s => s !== '')) {
        it(`filter op '${spelling}'`, () => {
            const logical = spelling === 'and' || spelling === 'or' || spelling === 'not';
            const filter = logical
                ? { op: spelling, children: [{ op: 'exists', field: 'a' }] }
                : { op: spelling, field: 'a', value: spelling.includes('regexp') ? '^a' : 'x' };
            const q = parseLegacyQuery({ ...T, filter });
            expect(q.filter?.op).toBe(FILTER_OP_SPELLINGS[spelling as keyof typeof FILTER_OP_SPELLINGS]);
        });
    }
    it('upper-case op spellings', () => {
        expect(parseLegacyQuery({ ...T, filter: { op: 'EQ', field: 'a', value: 1 } }).filter?.op).toBe('==');
    });
    const args: Record<string, unknown> = {
        topk: 3,
        histogram: 10,
        percentiles: [50, 99],
        countif: { op: '==', field: 'status', value: '500' },
        distinctif: "status == '500'",
        makesetif: { op: 'exists', field: 'a' },
    };
    for (const op of AGGREGATION_OPS) {
        it(`aggregation op '${op}'`, () => {
            const agg = { op, field: op === 'count' || op === 'countif' ? '*' : 'a', ...(op in args ? { argument: args[op] } : {}) };
            expect(parseLegacyQuery({ ...T, aggregations: [agg] }).aggregations?.[0].op).toBe(op);
        });
    }
    it('resolution spellings', () => {
        expect(parseLegacyQuery({ ...T, resolution: '' }).resolution).toBe('auto');
        expect(parseLegacyQuery({ ...T }).resolution).toBe('auto');
        expect(parseLegacyQuery({ ...T, resolution: '90s' }).resolution).toBe('1m30s');
        expect(parseLegacyQuery({ ...T, resolution: '60' }).resolution).toBe('1m0s');
        expect(parseLegacyQuery({ ...T, resolution: '0s' }).resolution).toBe('auto');
    });
    it('limits', () => {
        expect(parseLegacyQuery({ ...T, limit: 0 }).limit).toBeUndefined();
        expect(effectiveLegacyLimit(parseLegacyQuery({ ...T, limit: 10 }))).toBe(10);
        expect(effectiveLegacyLimit(parseLegacyQuery({ ...T, limit: 70000 }))).toBe(50000);
    });
    it('empty filter with other keys set is still no filter', () => {
        expect(parseLegacyQuery({ ...T, filter: { op: '', field: 'x', value: 3 } }).filter).toBeUndefined();
    });
    it('includeCursor and continuationToken', () => {
        expect(parseLegacyQuery({ ...T, cursor: 'c', includeCursor: true, continuationToken: 'tok' })).toMatchObject({ cursor: 'c', includeCursor: true, continuationToken: 'tok' });
    });
});

describe('bad input names the field and the value', () => {
    it('a body that is not an object', () => rejects([1], '(body)', /must be a JSON object, got \[1\]/));
    it('missing startTime', () => rejects({ endTime: T.endTime }, 'startTime', /is required/));
    it('a bad startTime', () => rejects({ ...T, startTime: 'yesterday' }, 'startTime', /RFC 3339 timestamp, got "yesterday"/));
    it('a bad endTime', () => rejects({ ...T, endTime: 12 }, 'endTime', /RFC 3339 timestamp, got 12/));
    it('endTime before startTime', () => rejects({ startTime: T.endTime, endTime: T.startTime }, 'endTime', /is before startTime/));
    it('an unknown top-level key', () => rejects({ ...T, limt: 3 }, 'limt', /unknown field/));
    it('a bad resolution', () => rejects({ ...T, resolution: 'often' }, 'resolution', /"auto" or a duration .* got "often"/));
    it('a negative resolution', () => rejects({ ...T, resolution: '-1m' }, 'resolution', /must not be negative, got "-1m"/));
    it('a negative limit', () => rejects({ ...T, limit: -1 }, 'limit', /non-negative integer .* got -1/));
    it('a fractional limit', () => rejects({ ...T, limit: 1.5 }, 'limit', /got 1.5/));
    it('a string limit', () => rejects({ ...T, limit: '10' }, 'limit', /got "10"/));
    it('an unknown filter op', () => rejects({ ...T, filter: { op: 'like', field: 'a', value: 'x' } }, 'filter.op', /unknown filter op "like"/));
    it('an unknown nested filter op', () =>
        rejects({ ...T, filter: { op: 'and', children: [{ op: 'exists', field: 'a' }, { op: 'near', field: 'b' }] } }, 'filter.children[1].op', /unknown filter op "near"/));
    it('and without children', () => rejects({ ...T, filter: { op: 'and', children: null } }, 'filter.children', /needs at least one child filter, got null/));
    it('an empty filter under and', () => rejects({ ...T, filter: { op: 'or', children: [{ op: '' }] } }, 'filter.children[0].op', /empty filter/));
    it('a leaf without a field', () => rejects({ ...T, filter: { op: '==', value: 1 } }, 'filter.field', /'==' needs a field/));
    it('a comparison without a value', () => rejects({ ...T, filter: { op: '>', field: 'a' } }, 'filter.value', /'>' needs a value/));
    it('a comparison with an object value', () => rejects({ ...T, filter: { op: '==', field: 'a', value: { x: 1 } } }, 'filter.value', /got \{"x":1\}/));
    it('a bad regexp', () => rejects({ ...T, filter: { op: 'regexp', field: 'a', value: '(' } }, 'filter.value', /"\(" is not a valid regular expression/));
    it('a non-boolean caseSensitive', () => rejects({ ...T, filter: { op: 'contains', field: 'a', value: 'x', caseSensitive: 'yes' } }, 'filter.caseSensitive', /got "yes"/));
    it('an unknown aggregation op', () => rejects({ ...T, aggregations: [{ op: 'median', field: 'a' }] }, 'aggregations[0].op', /unknown aggregation op "median"/));
    it('an aggregation without a field', () => rejects({ ...T, aggregations: [{ op: 'sum' }] }, 'aggregations[0].field', /'sum' needs a field/));
    it('sum of *', () => rejects({ ...T, aggregations: [{ op: 'sum', field: '*' }] }, 'aggregations[0].field', /not "\*"/));
    it('topk without k', () => rejects({ ...T, aggregations: [{ op: 'topk', field: 'a' }] }, 'aggregations[0].argument', /positive integer, got nothing/));
    it('percentiles out of range', () => rejects({ ...T, aggregations: [{ op: 'percentiles', field: 'a', argument: [50, 120] }] }, 'aggregations[0].argument', /got \[50,120\]/));
    it('an argument where none is taken', () => rejects({ ...T, aggregations: [{ op: 'avg', field: 'a', argument: 3 }] }, 'aggregations[0].argument', /takes no argument, got 3/));
    it('countif with a bad predicate', () => rejects({ ...T, aggregations: [{ op: 'countif', field: '*', argument: 'a ==' }] }, 'aggregations[0].argument', /not a valid APL expression/));
    it('groupBy without aggregations', () => rejects({ ...T, groupBy: ['a'] }, 'groupBy', /only valid together with aggregations/));
    it('a non-string groupBy entry', () => rejects({ ...T, aggregations: [{ op: 'count', field: '*' }], groupBy: ['a', 3] }, 'groupBy[1]', /got 3/));
    it('an order without a field', () => rejects({ ...T, order: [{ desc: true }] }, 'order[0].field', /sort field/));
    it('a non-boolean desc', () => rejects({ ...T, order: [{ field: 'a', desc: 'yes' }] }, 'order[0].desc', /got "yes"/));
    it('a project without a field', () => rejects({ ...T, project: [{ alias: 'x' }] }, 'project[0].field', /projected field/));
    it('a virtual field with a bad expression', () => rejects({ ...T, virtualFields: [{ alias: 'x', expr: 'toint(' }] }, 'virtualFields[0].expr', /"toint\(" is not a valid APL expression/));
    it('a virtual field without an alias', () => rejects({ ...T, virtualFields: [{ expr: '1' }] }, 'virtualFields[0].alias', /alias/));
    it('a non-boolean includeCursor', () => rejects({ ...T, includeCursor: 1 }, 'includeCursor', /got 1/));
    it('a non-string queryOptions value', () => rejects({ ...T, queryOptions: { quickRange: 3 } }, 'queryOptions.quickRange', /got 3/));
});
