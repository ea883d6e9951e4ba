/**
 * Search across the rows the extension host holds (src/results/row-search.ts), the query that runs
 * the same search on the service (hostile terms must parse and carry the term exactly), and the
 * selection statistics of the grid (src/results/selection-stats.ts).
 */
import { describe, expect, it } from 'vitest';
import { parse } from '../../../language/apl-parse.js';
import { walkAst as walk } from '../../support/ast-walk.js';
import { cellSearchText, searchColumns, searchHeld, searchRowMajor, serviceSearchQuery } from '../../../client/vscode/src/results/row-search.js';
import { selectionStats, selectionStatsText } from '../../../client/vscode/src/results/selection-stats.js';

const HOSTILE = ["a'b", 'a\\b', 'a\nb', 'a]b', "['x']", 'a"b', "' | take 1 //", 'a\u202Eb', 'a\u0000b', '😀'];

describe('search across held rows', () => {
    const columns = [
        ['info', 'ERROR here', null, 'warn'],
        [1, 2, 30, 4],
        [{ geo: { city: 'Paris' } }, null, null, ['error']],
    ];

    it('"error" matches text in any case, inside JSON, never a null', () => {
        expect(searchColumns(columns, 4, 'error')).toEqual([1, 3]);
        expect(searchColumns(columns, 4, 'paris')).toEqual([0]);
        expect(searchColumns(columns, 4, '3')).toEqual([2]);
        expect(searchColumns(columns, 4, 'null')).toEqual([]);
        expect(searchColumns(columns, 4, '')).toEqual([]);
    });

    it('row-major rows (a sorted result) are searched the same way', () => {
        const rows = [0, 1, 2, 3].map(r => columns.map(c => c[r]));
        expect(searchRowMajor(rows, 'ERROR')).toEqual([1, 3]);
    });

    it('held pages are searched with their first row index; an incomplete result says so', () => {
        const held = {
            heldPages: () => [
                { start: 0, page: { columns: [['a', 'b']], rows: 2 } },
                { start: 1000, page: { columns: [['b', 'c', 'b']], rows: 3 } },
            ],
            allHeld: false,
        };
        expect(searchHeld(held, 'B')).toEqual({ matches: [1, 1000, 1002], rowsSearched: 5, complete: false });
    });

    it('cell text: strings as they are, numbers and objects as JSON', () => {
        expect([cellSearchText('x'), cellSearchText(1.5), cellSearchText(false), cellSearchText(null), cellSearchText({ a: [1] })]).toEqual(['x', '1.5', 'false', '', '{"a":[1]}']);
    });
});

describe('the same search on the service', () => {
    it.each(HOSTILE.map(t => [t]))('term %j parses as one search of exactly that string', term => {
        const query = serviceSearchQuery("['logs'] | where x > 1;\n", term);
        expect(query.startsWith("['logs'] | where x > 1\n| search ")).toBe(true);
        const { model, problems } = parse(query);
        expect(problems, query).toEqual([]);
        const search = [...walk(model)].find(n => n.$type === 'SearchOperator');
        expect(search, query).toBeDefined();
        const strings = [...walk(search)].filter(n => n.$type === 'StringLiteral').map(n => n.value);
        expect(strings, query).toEqual([term]);
    });
});

describe('selection statistics', () => {
    it('numbers: count, distinct, sum, avg, min, max; nulls not counted', () => {
        const s = selectionStats([3, 1, null, 3, 5], 'long');
        expect(s).toEqual({ count: 4, distinct: 3, sum: '12', avg: '3', min: '1', max: '5' });
        expect(selectionStatsText('seq', s)).toBe('Selection in seq: count 4 · distinct 3 · sum 12 · avg 3 · min 1 · max 5');
    });

    it('timespans (Go durations) add up as durations', () => {
        expect(selectionStats(['1m30s', '30s', '2m'], 'timespan')).toEqual({ count: 3, distinct: 3, sum: '4m0s', avg: '1m20s', min: '30s', max: '2m0s' });
    });

    it('text gets count and distinct only; a mix of numbers and text too', () => {
        expect(selectionStats(['a', 'b', 'a'], 'string')).toEqual({ count: 3, distinct: 2 });
        expect(selectionStats([1, '1'], 'dynamic')).toEqual({ count: 2, distinct: 2 });
    });
});
