/** The chart choice remembered per query block (a Memento is the edge: a Map stands in for VS Code's). */
import { describe, expect, it } from 'vitest';
import { ChartChoices, type ChoiceMemento } from '../../../client/vscode/src/results/chart-choices.js';

function memento(): ChoiceMemento & { data: Map<string, unknown> } {
    const data = new Map<string, unknown>();
    return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: async (k, v) => void data.set(k, JSON.parse(JSON.stringify(v))) };
}

describe('the chart choice remembered per query', () => {
    it("['events'] | summarize count() by level: Bar is remembered, also with other blank space around the block", async () => {
        const m = memento();
        const choices = new ChartChoices(m);
        expect(choices.get("['events'] | summarize count() by level")).toBeUndefined();
        await choices.set("['events'] | summarize count() by level", { type: 'bar', x: 'level', y: ['count_'] });
        expect(new ChartChoices(m).get("\n['events'] | summarize count() by level  \n")).toEqual({ type: 'bar', x: 'level', y: ['count_'] });
        expect(choices.get("['events'] | summarize count() by city")).toBeUndefined();
    });

    it('only the newest choices are kept, and a changed one moves to the end', async () => {
        const m = memento();
        const choices = new ChartChoices(m, 2);
        await choices.set('a', { type: 'line', x: 't', y: ['n'] });
        await choices.set('b', { type: 'pie', x: 't', y: ['n'] });
        await choices.set('a', { type: 'area', x: 't', y: ['n'] });
        await choices.set('c', { type: 'bar', x: 't', y: ['n'] });
        expect(choices.get('b')).toBeUndefined();
        expect(choices.get('a')?.type).toBe('area');
        expect(choices.get('c')?.type).toBe('bar');
    });

    it('a stored value that is not a choice is ignored; a bad choice is refused', async () => {
        const m = memento();
        m.data.set('apl.chartChoices', [['a', { type: 'donut', x: 't', y: ['n'] }], ['b', 'bar'], 'junk']);
        const choices = new ChartChoices(m);
        expect(choices.get('a')).toBeUndefined();
        await expect(choices.set('a', { type: 'donut' as 'bar', x: 't', y: ['n'] })).rejects.toThrow(/type must be one of/);
    });
});

describe('a chart image sent to be saved', () => {
    it('an SVG document and a PNG are accepted as they are; anything else is refused with the reason', async () => {
        const { chartImageBytes } = await import('../../../client/vscode/src/results/chart-file.js');
        expect(new TextDecoder().decode(chartImageBytes('svg', '<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toContain('<svg');
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
        expect([...chartImageBytes('png', `data:image/png;base64,${png.toString('base64')}`)]).toEqual([...png]);
        expect(() => chartImageBytes('svg', '<html><script>')).toThrow(/not an SVG/);
        expect(() => chartImageBytes('png', Buffer.from('GIF89a').toString('base64'))).toThrow(/not a PNG/);
        expect(() => chartImageBytes('png', '!!!')).toThrow(/not base64/);
    });
});
