/** How the results grid shows values (client/vscode/webview/cell-format.ts) and sorts them (src/results/sorted-rows.ts). */
import { describe, expect, it } from 'vitest';
import { SortedRows, type SortSource } from '../../../client/vscode/src/results/sorted-rows.js';
import { cellText, columnWidth, detailText, formatNumber, formatTime, headerText, isNumericType, MAX_COLUMN_WIDTH, type Measure } from '../../../client/vscode/webview/cell-format.js';

const mono: Measure = { text: s => s.length * 8, header: s => s.length * 9 };

describe('cell text', () => {
    it('fractions get 6 significant digits, integers stay whole', () => {
        expect(formatNumber(48 / 7)).toBe('6.85714');
        expect(formatNumber(0.000012345678)).toBe('0.0000123457');
        expect(formatNumber(123456789)).toBe('123456789');
        expect(formatNumber(1.5)).toBe('1.5');
        expect(cellText(2 / 3, 'float', 'utc')).toBe('0.666667');
    });

    it('numeric types, mixed ones too', () => {
        expect(isNumericType('integer|float')).toBe(true);
        expect(isNumericType('long')).toBe(true);
        expect(isNumericType('string')).toBe(false);
        expect(isNumericType('integer|string')).toBe(false);
    });

    it('times in UTC as given; in the local zone with the offset', () => {
        expect(formatTime('2026-11-28T03:00:00.123456789Z', 'utc')).toBe('2026-11-28T03:00:00.123456789Z');
        const local = formatTime('2026-11-28T03:00:00.5Z', 'local');
        expect(local).toMatch(/^2026-11-2\d \d\d:\d\d:00\.5 [+-]\d\d:\d\d$/);
    });

    // 'gnp.exe' behind a right-to-left override displays as 'exe.png': the grid shows the override instead.
    it.each([
        ['invoice\u202Egnp.exe', 'invoice\\u202Egnp.exe'],
        ['a\u2066b\u2069c\u200Fd\u061Ce', 'a\\u2066b\\u2069c\\u200Fd\\u061Ce'],
        ['zero\u200Bwidth\uFEFF\u00AD\u2060', 'zero\\u200Bwidth\\uFEFF\\u00AD\\u2060'],
        ['line\nbreak\ttab\u0007bell\u0085', 'line\\nbreak\\ttab\\u0007bell\\u0085'],
        ['\u2028', '\\u2028'],
    ])('a grid cell shows %j as %s', (value, shown) => {
        expect(cellText(value, 'string', 'utc')).toBe(shown);
        expect(headerText(value)).toBe(shown);
    });

    it('row details keep line breaks and tabs, and show bidi and invisible characters', () => {
        expect(detailText('x\u202Eexe.png\nnext\tcol\u200B')).toBe('x\\u202Eexe.png\nnext\tcol\\u200B');
        expect(detailText({ name: 'a\u202Eb' })).toBe('{"name":"a\\u202Eb"}');
        expect(detailText('plain ünïcode 日本 🙂')).toBe('plain ünïcode 日本 🙂');
    });

    it('a column is as wide as its header or its longest cell, within the cap', () => {
        expect(columnWidth('_time', ['2026-11-23T23:29:49.544588608Z'], mono)).toBe(30 * 8 + 30);
        expect(columnWidth('a_long_header_name', ['1'], mono)).toBe(18 * 9 + 46);
        expect(columnWidth('x', ['y'.repeat(500)], mono)).toBe(MAX_COLUMN_WIDTH);
    });
});

function source(rows: unknown[][], fields = [{ name: 'v', type: 'integer|float|string' }]): SortSource {
    return {
        fields,
        async *allPages() {
            // Two pages, to read across a page boundary.
            const half = Math.ceil(rows.length / 2);
            for (const part of [rows.slice(0, half), rows.slice(half)]) yield { fields, columns: fields.map((_, c) => part.map(r => r[c])), rows: part.length };
        },
    };
}

describe('SortedRows', () => {
    it('sorts every row: nulls first ascending, last descending; numbers as numbers; ties keep their order', async () => {
        const s = new SortedRows(source([[10], [null], [9], [2.5], [10], ['b'], ['a']]), 7, 100);
        expect((await s.rows({ field: 'v', desc: false }, 0, 10)).map(r => r[0])).toEqual([null, 2.5, 9, 10, 10, 'a', 'b']);
        expect((await s.rows({ field: 'v', desc: true }, 0, 3)).map(r => r[0])).toEqual(['b', 'a', 10]);
        expect((await s.rows({ field: 'v', desc: true }, 6, 10)).map(r => r[0])).toEqual([null]);
        expect(await s.count()).toBe(7);
    });

    it('datetimes by instant, whatever their fractional digits', async () => {
        const fields = [{ name: '_time', type: 'datetime' }];
        const s = new SortedRows(source([['2026-01-01T00:00:00.5Z'], ['2026-01-01T00:00:00.123456Z'], ['2026-01-01T00:00:00Z']], fields), 3, 100);
        expect((await s.rows({ field: '_time', desc: false }, 0, 3)).map(r => r[0])).toEqual(['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.5Z']);
    });

    it('a result over the limit is not read and says why', async () => {
        const s = new SortedRows(source([[1], [2], [3]]), 3, 2);
        expect(s.possible).toBe(false);
        await expect(s.rows({ field: 'v', desc: false }, 0, 1)).rejects.toThrow(/apl\.results\.sortLimit/);
    });
});
