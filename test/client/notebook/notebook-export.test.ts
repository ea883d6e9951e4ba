/** Markdown and Jupyter exports with their charts: real files in a temporary directory. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APLNB_FORMAT, parseNotebook, serializeNotebook, type AplNotebook } from '../../../client/notebook/aplnb.js';
import { chartSvg } from '../../../client/notebook/chart-image.js';
import { snapshotChart } from '../../../client/notebook/stored-chart.js';
import { exportKindOf, exportNotebook } from '../../../client/notebook/notebook-export.js';
import { notebookFromIpynb } from '../../../client/notebook/ipynb.js';

const dir = mkdtempSync(join(tmpdir(), 'apl-nb-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
const t0 = Date.parse('2026-11-27T00:00:00Z');
const binned = [0, 1, 2].flatMap(h => [
    [new Date(t0 + h * HOUR).toISOString(), 'GET', 10 + h],
    [new Date(t0 + h * HOUR).toISOString(), '<script>alert(1)</script>', 5 * h],
]);

const NB: AplNotebook = {
    format: APLNB_FORMAT,
    cells: [
        { kind: 'markdown', text: '# Requests' },
        {
            kind: 'apl',
            text: "['logs'] | summarize n = count() by bin(_time, 1h), method",
            output: {
                ranAt: '2026-11-28T07:00:00.000Z',
                chart: { timeColumn: '_time' },
                tables: [{ name: '0', fields: [{ name: '_time', type: 'datetime' }, { name: 'method', type: 'string' }, { name: 'n', type: 'long' }], rows: binned, totalRows: binned.length }],
            },
        },
        {
            kind: 'apl',
            text: "['logs'] | take 2",
            // Raw events with a time column: no chart (the run did not chart it).
            output: { ranAt: '2026-11-28T07:00:00.000Z', tables: [{ name: '0', fields: [{ name: '_time', type: 'datetime' }, { name: 'seq', type: 'long' }], rows: [[new Date(t0).toISOString(), 1]], totalRows: 1 }] },
        },
    ],
};

describe('notebook export with charts', () => {
    it("summarize n = count() by bin(_time, 1h), method: the Markdown links an SVG file written beside it", async () => {
        const target = join(dir, 'md', 'weekly report.md');
        const files = await exportNotebook(NB, target, 'markdown');
        expect(files).toEqual([target, join(dir, 'md', 'weekly report-cell-2.svg')]);
        const md = readFileSync(target, 'utf8');
        expect(md).toContain('![Chart of cell 2](weekly%20report-cell-2.svg)');
        // Only the charted cell has a picture.
        expect(md.match(/!\[Chart/g)).toHaveLength(1);
        expect(readdirSync(join(dir, 'md')).sort()).toEqual(['weekly report-cell-2.svg', 'weekly report.md']);
        const svg = readFileSync(files[1], 'utf8');
        expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
        // Two series (a legend), the data's text escaped: no markup from the data.
        expect(svg).toContain('>GET<');
        expect(svg).not.toContain('<script');
        expect(svg).toContain('&lt;script&gt;');
    });

    it("summarize n = count() by bin(_time, 1h), method: the .ipynb carries the chart as image/svg+xml", async () => {
        const target = join(dir, 'report.ipynb');
        expect(await exportNotebook(NB, target, 'ipynb')).toEqual([target]);
        const ipynb = JSON.parse(readFileSync(target, 'utf8')) as { cells: { outputs?: { data: Record<string, string | string[]> }[] }[] };
        const images = ipynb.cells.map(c => (c.outputs ?? []).filter(o => 'image/svg+xml' in o.data).map(o => ([] as string[]).concat(o.data['image/svg+xml']).join('')));
        expect(images.map(i => i.length)).toEqual([0, 1, 0]);
        expect(images[1][0]).toMatch(/^<svg /);
        expect(images[1][0]).not.toContain('<script');
        // The HTML table is still there, and the notebook imports back.
        expect(ipynb.cells[1].outputs!.some(o => 'text/html' in o.data)).toBe(true);
        expect(notebookFromIpynb(readFileSync(target, 'utf8')).cells.map(c => c.kind)).toEqual(['markdown', 'apl', 'apl']);
        expect(existsSync(join(dir, 'report-cell-2.svg'))).toBe(false);
    });

    it('a live chart given by the editor is drawn over the snapshot', async () => {
        const live = { timeColumn: '_time', x: [t0 / 1000, t0 / 1000 + 3600], series: [{ label: 'live a', values: [1, 2] }, { label: 'live b', values: [2, 1] }] };
        const target = join(dir, 'live.md');
        const files = await exportNotebook(NB, target, 'markdown', new Map([[1, live]]));
        expect(readFileSync(files[1], 'utf8')).toContain('live b');
    });

    it('the stored chart is the one the cell ran with, and round-trips through the file', () => {
        const cell = NB.cells[1];
        const back = parseNotebook(serializeNotebook(NB));
        expect(back.cells[1]).toEqual(cell);
        const data = snapshotChart(back.cells[1].kind === 'apl' ? back.cells[1].output! : (undefined as never))!;
        expect(data.series.map(s => s.label).sort()).toEqual(['<script>alert(1)</script>', 'GET']);
        expect(data.x).toHaveLength(3);
        expect(() => parseNotebook(JSON.stringify({ format: 1, cells: [{ kind: 'apl', text: 'x', output: { ranAt: '2026-11-28T07:00:00Z', tables: [], chart: { timeColumn: 3 } } }] }))).toThrow(/cells\[0\]\.output\.chart/);
    });

    it('the SVG has its own light background and the size asked for', () => {
        const svg = chartSvg({ timeColumn: '_time', x: [1, 2], series: [{ label: 'n', values: [1, 2] }] }, undefined, 500, 200);
        expect(svg).toMatch(/^<svg width="500" height="200"/);
        expect(svg).toMatch(/fill="#ffffff"|fill="#fff"|fill="rgb\(255, ?255, ?255\)"/);
    });

    it.each([
        ['out.md', 'markdown'],
        ['OUT.Markdown', 'markdown'],
        ['x.ipynb', 'ipynb'],
        ['x.txt', undefined],
    ])('%s exports as %s', (path, kind) => expect(exportKindOf(path)).toBe(kind));
});
