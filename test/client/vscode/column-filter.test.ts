/**
 * Column filters of the results grid (src/results/column-filter.ts): each filter as a `where` (with
 * hostile field names and values it must parse and name exactly what it was made from) and as a
 * test of the rows held here (the same rows the `where` keeps on the embedded engine).
 */
import { describe, expect, it } from 'vitest';
import { parse } from '../../../language/apl-parse.js';
import { walkAst as walk } from '../../support/ast-walk.js';
import { createEngine } from '../../../language/eval/engine.js';
import { distinctValues, filterPredicate, filterRows, filtersClause, type ColumnFilter } from '../../../client/vscode/src/results/column-filter.js';

const HOSTILE = ["a'b", 'a\\b', 'a\nb', 'a]b', "['x']", 'a"b', 'where', 'a\u202Eb', "x\\'\n]", '😀', ''];

/** The names and strings of the `where`s of `query` (it must parse cleanly). */
function whereParts(query: string): { names: string[]; strings: string[] } {
    const { model, problems } = parse(query);
    expect(problems, query).toEqual([]);
    const nodes = [...walk(model)].filter(n => n.$type === 'WhereOperator').flatMap(w => [...walk(w.predicate)]);
    return {
        names: [...new Set(nodes.filter(n => /Reference$/.test(n.$type as string)).map(n => n.name as string))],
        strings: nodes.filter(n => n.$type === 'StringLiteral').map(n => n.value as string),
    };
}

describe('a filter becomes a where that parses, with hostile names and values', () => {
    it.each(HOSTILE.map(name => [name]))('field %j', name => {
        const cases: [ColumnFilter, string, string[]][] = [
            [{ field: name, kind: 'values', values: [name] }, 'string', [name]],
            [{ field: name, kind: 'values', values: [name, "b'", null], exclude: true }, 'string', [name, "b'"]],
            [{ field: name, kind: 'values', values: [1, 2, 3] }, 'long', []],
            [{ field: name, kind: 'values', values: [{ k: "v'" }] }, 'dynamic', ['{"k":"v\'"}']],
            [{ field: name, kind: 'range', from: 1, to: 5 }, 'real', []],
            [{ field: name, kind: 'range', from: '2026-01-01T00:00:00Z' }, 'datetime', ['2026-01-01T00:00:00Z']],
            [{ field: name, kind: 'text', op: 'contains', text: name }, 'string', [name]],
            [{ field: name, kind: 'text', op: 'has', text: "x')" }, 'string', ["x')"]],
            [{ field: name, kind: 'text', op: 'startswith', text: '\\' }, 'string', ['\\']],
            [{ field: name, kind: 'text', op: 'matches regex', text: "^a'(b|c)$" }, 'string', ["^a'(b|c)$"]],
        ];
        for (const [filter, type, strings] of cases) {
            const query = `['logs']\n| where ${filterPredicate(filter, type)}`;
            const parts = whereParts(query);
            expect(parts.names, query).toEqual([name]);
            expect(parts.strings, query).toEqual(strings);
        }
    });

    it('several filters are one where line each', () => {
        const types = new Map([['level', 'string'], ['n', 'long']]);
        expect(filtersClause([{ field: 'level', kind: 'values', values: ['error', 'warn'] }, { field: 'n', kind: 'range', to: 9 }], types)).toBe("| where level in ('error', 'warn')\n| where n <= 9");
    });
});

describe('a filter applied here keeps the rows the service keeps', () => {
    const fields = [
        { name: 'msg', type: 'string' },
        { name: 'n', type: 'long' },
        { name: 'geo.city', type: 'string' },
    ];
    const rows: unknown[][] = [
        ['GET /api/users ok', 1, 'Paris'],
        ['get failed', 5, 'Berlin'],
        ['forgetful', 9, null],
        [null, null, 'Paris'],
        ['POST /api done', 12, 'Rome'],
    ];
    const engine = createEngine();
    engine.ingest('t', rows.map(r => ({ _time: '2026-01-01T00:00:00Z', msg: r[0], n: r[1], 'geo.city': r[2] })));
    const filters: ColumnFilter[] = [
        { field: 'msg', kind: 'text', op: 'contains', text: 'GET' },
        { field: 'msg', kind: 'text', op: 'has', text: 'get' },
        { field: 'msg', kind: 'text', op: 'startswith', text: 'get' },
        { field: 'msg', kind: 'text', op: 'matches regex', text: '^[A-Z]+ /api' },
        { field: 'n', kind: 'range', from: 2, to: 10 },
        { field: 'n', kind: 'range', from: 5 },
        { field: 'geo.city', kind: 'values', values: ['Paris', null] },
        { field: 'geo.city', kind: 'values', values: ['Paris'], exclude: true },
        { field: 'geo.city', kind: 'values', values: ['Paris', 'Rome'] },
    ];
    for (const filter of filters) {
        const where = filterPredicate(filter, fields.find(f => f.name === filter.field)!.type);
        it(`['t'] | where ${where}`, async () => {
            const r = await engine.query(`['t'] | where ${where} | project n, msg`, { startTime: '2025-01-01T00:00:00Z', endTime: '2027-01-01T00:00:00Z' });
            const t = r.tables[0];
            const service = t.columns![0].map((n, i) => `${String(n)}|${String(t.columns![1][i])}`).sort();
            const here = filterRows(rows, [filter], fields).map(i => `${String(rows[i][1])}|${String(rows[i][0])}`).sort();
            expect(here).toEqual(service);
        });
    }

    it('a regex JavaScript cannot read is not applied here (it throws, the view sends it to the service)', () => {
        expect(() => filterRows(rows, [{ field: 'msg', kind: 'text', op: 'matches regex', text: '(?P<x>a)' }], fields)).toThrow(SyntaxError);
    });

    it('distinct values with counts, most frequent first', () => {
        expect(distinctValues(rows, 2, 10)).toEqual({ values: [{ value: 'Paris', count: 2 }, { value: 'Berlin', count: 1 }, { value: null, count: 1 }, { value: 'Rome', count: 1 }], distinct: 4 });
    });
});
