/** What a chart of a result shows: the automatic X/Y/series choice, a remembered choice, and the data drawn. */
import { describe, expect, it } from 'vitest';
import { autoChoice, chartModel, choiceFor, isChartable, MAX_CATEGORIES, MAX_SERIES, type ChartTable } from '../../../client/vscode/src/results/chart-spec.js';

const f = (name: string, type: string) => ({ name, type });

describe('the automatic chart choice', () => {
    it("['events'] | summarize count() by bin(_time, 1h): a line of count_ over _time", () => {
        expect(autoChoice([f('_time', 'datetime'), f('count_', 'integer')])).toEqual({ type: 'line', x: '_time', y: ['count_'] });
    });

    it("['events'] | summarize count() by bin(_time, 1h), method: one line per method", () => {
        expect(autoChoice([f('_time', 'datetime'), f('method', 'string'), f('count_', 'integer')])).toEqual({ type: 'line', x: '_time', y: ['count_'], series: 'method' });
    });

    it("['events'] | summarize n = count(), avg(d) by level: columns of n and avg_d per level", () => {
        expect(autoChoice([f('level', 'string'), f('n', 'integer'), f('avg_d', 'float')])).toEqual({ type: 'column', x: 'level', y: ['n', 'avg_d'] });
    });

    it("['events'] | summarize count() by level, city: columns per level, one series per city", () => {
        expect(autoChoice([f('level', 'string'), f('city', 'string'), f('count_', 'integer')])).toEqual({ type: 'column', x: 'level', y: ['count_'], series: 'city' });
    });

    it("['events'] | project seq, d: a scatter of d against seq", () => {
        expect(autoChoice([f('seq', 'integer'), f('d', 'float')])).toEqual({ type: 'scatter', x: 'seq', y: ['d'] });
    });

    it("print s = 'a': no numeric column, no chart", () => {
        expect(isChartable([f('s', 'string')])).toBe(false);
        expect(autoChoice([f('s', 'string')])).toBeUndefined();
    });

    it("['events'] | summarize count() by level: a remembered Bar choice is kept; one naming a column no longer there is not", () => {
        const fields = [f('level', 'string'), f('count_', 'integer')];
        expect(choiceFor(fields, { type: 'bar', x: 'level', y: ['count_'] })).toEqual({ type: 'bar', x: 'level', y: ['count_'] });
        expect(choiceFor(fields, { type: 'bar', x: 'method', y: ['count_'] })).toEqual({ type: 'column', x: 'level', y: ['count_'] });
        // Y must be numeric.
        expect(choiceFor(fields, { type: 'bar', x: 'count_', y: ['level'] })).toEqual({ type: 'column', x: 'level', y: ['count_'] });
        expect(choiceFor(fields, { type: 'nonsense' as 'bar', x: 'level', y: ['count_'] })).toEqual({ type: 'column', x: 'level', y: ['count_'] });
    });
});

describe('the data a chart draws', () => {
    it("['events'] | summarize count() by bin(_time, 1h), method: times ascending, one aligned series per method, gaps null", () => {
        const table: ChartTable = {
            fields: [f('_time', 'datetime'), f('method', 'string'), f('count_', 'integer')],
            rows: [
                ['2026-01-01T01:00:00Z', 'GET', 5],
                ['2026-01-01T00:00:00Z', 'GET', 3],
                ['2026-01-01T00:00:00Z', 'POST', 1],
            ],
        };
        const model = chartModel(table, autoChoice(table.fields)!);
        expect(model.xKind).toBe('time');
        expect(model.x).toEqual([Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T01:00:00Z')]);
        expect(model.series).toEqual([
            { name: 'GET', values: [3, 5] },
            { name: 'POST', values: [1, null] },
        ]);
    });

    it("['events'] | summarize n = count(), total = sum(d) by level: categories in the result's order, one series per Y", () => {
        const table: ChartTable = { fields: [f('level', 'string'), f('n', 'integer'), f('total', 'float')], rows: [['info', 10, 2.5], ['error', 2, '1.5'], [null, 1, null]] };
        const model = chartModel(table, { type: 'bar', x: 'level', y: ['n', 'total'] });
        expect(model.xKind).toBe('category');
        expect(model.x).toEqual(['info', 'error', '(null)']);
        expect(model.series).toEqual([
            { name: 'n', values: [10, 2, 1] },
            { name: 'total', values: [2.5, 1.5, null] },
        ]);
    });

    it("['events'] | summarize count() by level, city with X level and no series: the rows of a level add up", () => {
        const table: ChartTable = { fields: [f('level', 'string'), f('city', 'string'), f('count_', 'integer')], rows: [['info', 'a', 1], ['info', 'b', 2], ['error', 'a', 4]] };
        expect(chartModel(table, { type: 'pie', x: 'level', y: ['count_'] }).series).toEqual([{ name: 'count_', values: [3, 4] }]);
    });

    it('a scatter: numeric X ascending, a point per row', () => {
        const table: ChartTable = { fields: [f('seq', 'integer'), f('d', 'float')], rows: [[3, 1.5], [1, 0.5], [2, null]] };
        const model = chartModel(table, autoChoice(table.fields)!);
        expect(model.xKind).toBe('value');
        expect(model.x).toEqual([1, 3]);
        expect(model.series).toEqual([{ name: 'd', values: [0.5, 1.5] }]);
    });

    it(`more than ${MAX_CATEGORIES} categories and ${MAX_SERIES} series: the biggest are kept, and the model says so`, () => {
        const rows: unknown[][] = [];
        for (let i = 0; i < MAX_CATEGORIES + 20; i++) rows.push([`c${i}`, `s${i % (MAX_SERIES + 3)}`, i]);
        const model = chartModel({ fields: [f('c', 'string'), f('s', 'string'), f('n', 'integer')], rows }, { type: 'column', x: 'c', y: ['n'], series: 's' });
        expect(model.clipped).toBe(true);
        expect(model.x).toHaveLength(MAX_CATEGORIES);
        expect(model.x).not.toContain('c0');
        expect(model.series).toHaveLength(MAX_SERIES);
    });
});

describe('compare with an earlier period', () => {
    it("['events'] | summarize count() by bin(_time, 1h) with a day earlier: the earlier buckets over today's, named after their period", async () => {
        const { withEarlierPeriod, compareOffset } = await import('../../../client/vscode/src/results/chart-spec.js');
        const fields = [f('_time', 'datetime'), f('count_', 'integer')];
        const today = chartModel({ fields, rows: [['2026-01-02T00:00:00Z', 5], ['2026-01-02T01:00:00Z', 7]] }, { type: 'line', x: '_time', y: ['count_'] });
        const yesterday = chartModel({ fields, rows: [['2026-01-01T01:00:00Z', 3], ['2026-01-01T02:00:00Z', 4]] }, { type: 'line', x: '_time', y: ['count_'] });
        const day = compareOffset('1d')!;
        const both = withEarlierPeriod(today, yesterday, day.ms, day.label);
        expect(both.x).toEqual([Date.parse('2026-01-02T00:00:00Z'), Date.parse('2026-01-02T01:00:00Z'), Date.parse('2026-01-02T02:00:00Z')]);
        expect(both.series).toEqual([
            { name: 'count_', values: [5, 7, null] },
            { name: 'count_ (a day earlier)', values: [null, 3, 4] },
        ]);
        expect(compareOffset('2y')).toBeUndefined();
    });
});
