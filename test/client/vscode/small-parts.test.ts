/** Block picking, filters, copy formats, chart data and time ranges. */
import { describe, expect, it } from 'vitest';
import type { QueryBlockInfo } from '../../../language/lsp/apl-query-info.js';
import { blockAt } from '../../../client/vscode/src/query/block-picker.js';
import { filterClause, withFilter } from '../../../client/vscode/src/query/filter-clause.js';
import { chartData } from '../../../client/vscode/src/results/chart-data.js';
import { formatRows } from '../../../client/vscode/src/results/copy-format.js';
import { webviewHtml } from '../../../client/vscode/src/results/webview-html.js';
import { parseTimeRangeSpec, resolveTimeRange } from '../../../client/vscode/src/time-range.js';

const block = (from: number, to: number): QueryBlockInfo => ({ range: { start: { line: from, character: 0 }, end: { line: to, character: 5 } }, startOffset: 0, endOffset: 0, analysed: true, runnable: true, syntaxOk: true, pageable: true, order: 'desc' });

describe('blockAt', () => {
    const blocks = [block(0, 1), block(3, 5), block(8, 8)];
    it('the block holding the cursor line', () => {
        expect(blockAt(blocks, { line: 4, character: 0 })).toBe(blocks[1]);
        expect(blockAt(blocks, { line: 8, character: 2 })).toBe(blocks[2]);
    });
    it('on a blank line between blocks: the block above', () => {
        expect(blockAt(blocks, { line: 2, character: 0 })).toBe(blocks[0]);
        expect(blockAt(blocks, { line: 12, character: 0 })).toBe(blocks[2]);
    });
    it('above the first block: the first; no blocks: none', () => {
        expect(blockAt([block(2, 3)], { line: 0, character: 0 })?.range.start.line).toBe(2);
        expect(blockAt([], { line: 0, character: 0 })).toBeUndefined();
    });
});

describe('filter by this value', () => {
    it.each([
        ['status', 'string', '500', "| where status == '500'"],
        ['geo.city', 'string', "O'Hare", "| where ['geo.city'] == 'O\\'Hare'"],
        ['n', 'integer', 42, '| where n == 42'],
        ['ok', 'boolean', true, '| where ok == true'],
        ['_time', 'datetime', '2024-01-01T00:00:00Z', '| where _time == datetime(2024-01-01T00:00:00Z)'],
        ['tags', 'array', ['a'], '| where tostring(tags) == \'["a"]\''],
        ['x', 'string', null, '| where isnull(x)'],
    ])('%s (%s) = %j → %s', (field, type, value, expected) => {
        expect(filterClause(field, type, value)).toBe(expected);
    });
    it('the clause goes on its own last line', () => {
        expect(withFilter("['logs'] | take 5;\n\n", "| where a == 1")).toBe("['logs'] | take 5\n| where a == 1");
    });
});

describe('copy formats', () => {
    const fields = ['a', 'b'];
    const rows = [[1, 'x,y'], [null, { k: 'v|w' }]];
    it('TSV with and without headers', () => {
        expect(formatRows(fields, rows, 'tsv', true)).toBe('a\tb\n1\tx,y\n\t{"k":"v|w"}');
        expect(formatRows(fields, rows, 'tsv', false)).toBe('1\tx,y\n\t{"k":"v|w"}');
    });
    it('CSV quotes per RFC 4180', () => {
        expect(formatRows(fields, rows, 'csv', true)).toBe('a,b\n1,"x,y"\n,"{""k"":""v|w""}"');
    });
    it('Copy as CSV guards formulas (names and values) unless the guard is off; numbers stay as they are', () => {
        const hostile = [['=1+1', -5], ['@cmd', '-7']];
        expect(formatRows(['+f', 'n'], hostile, 'csv', true)).toBe("'+f,n\n'=1+1,-5\n'@cmd,-7");
        expect(formatRows(['+f', 'n'], hostile, 'csv', true, { formulaGuard: false })).toBe('+f,n\n=1+1,-5\n@cmd,-7');
    });
    it('JSON objects keyed by field', () => {
        expect(JSON.parse(formatRows(fields, rows, 'json', true))).toEqual([{ a: 1, b: 'x,y' }, { a: null, b: { k: 'v|w' } }]);
    });
    it('Markdown escapes pipes', () => {
        expect(formatRows(fields, rows, 'markdown', true)).toBe('| a | b |\n| --- | --- |\n| 1 | x,y |\n|  | {"k":"v\\|w"} |');
    });
});

describe('chart data', () => {
    const fields = [{ name: 'method', type: 'string' }, { name: '_time', type: 'datetime' }, { name: 'count_', type: 'integer' }];
    const columns = [['GET', 'POST', 'GET'], ['2024-01-01T01:00:00Z', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'], [3, 1, 2]];
    it('one line per group, x sorted, tolerant of column order', () => {
        const data = chartData('_time', fields, columns)!;
        expect(data.x).toEqual([Date.parse('2024-01-01T00:00:00Z') / 1000, Date.parse('2024-01-01T01:00:00Z') / 1000]);
        expect(data.series).toEqual([
            { label: 'GET', values: [2, 3] },
            { label: 'POST', values: [1, null] },
        ]);
    });
    it('no numeric column or no time column: no chart', () => {
        expect(chartData('_time', fields.slice(0, 2), columns.slice(0, 2))).toBeUndefined();
        expect(chartData('t', fields, columns)).toBeUndefined();
    });
});

describe('time ranges', () => {
    it('a preset is resolved from the given now', () => {
        expect(resolveTimeRange({ preset: '15m' }, new Date('2026-01-01T00:15:00Z'))).toEqual({ startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T00:15:00.000Z', label: 'last 15m' });
    });
    it('custom ranges must parse and be in order', () => {
        expect(parseTimeRangeSpec('7d')).toEqual({ preset: '7d' });
        expect(parseTimeRangeSpec({ start: '2026-01-01', end: '2026-01-02' })).toEqual({ start: '2026-01-01', end: '2026-01-02' });
        expect(parseTimeRangeSpec({ start: '2026-01-02', end: '2026-01-01' })).toBeUndefined();
        expect(parseTimeRangeSpec('2h')).toBeUndefined();
    });
});

describe('webview page', () => {
    it('loads only its bundled script and style, under a nonce CSP', () => {
        const html = webviewHtml({ script: 'vscode-resource:/dist/webview.js', style: 'vscode-resource:/dist/webview.css', cspSource: 'vscode-resource:' }, 'N0NCE');
        expect(html).toContain("default-src 'none'");
        expect(html).toContain("script-src 'nonce-N0NCE'");
        expect(html).toContain('<script nonce="N0NCE" src="vscode-resource:/dist/webview.js">');
        expect(html).not.toMatch(/https?:\/\//);
    });
});
