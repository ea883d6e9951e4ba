/**
 * The time-series chart (uPlot, bundled): one line per series, a legend, and drag-to-zoom that
 * runs the query again on the selected range instead of zooming the drawing; a double-click goes
 * back (as the toolbar's Reset zoom does). Times are read in the grid's zone, and the time axis
 * leaves room for its widest label, so labels never overlap whatever the range.
 */
import uPlot from 'uplot';
import type { ChartData } from '../src/results/chart-data.js';
import type { TimeZone } from './cell-format.js';

export interface ChartHandle {
    destroy(): void;
}

const PALETTE = ['--vscode-charts-blue', '--vscode-charts-orange', '--vscode-charts-green', '--vscode-charts-red', '--vscode-charts-purple', '--vscode-charts-yellow'];

function color(i: number): string {
    const v = getComputedStyle(document.body).getPropertyValue(PALETTE[i % PALETTE.length]).trim();
    return v || ['#3794ff', '#d18616', '#89d185', '#f14c4c', '#b180d7', '#cca700'][i % 6];
}

export function renderChart(box: HTMLElement, data: ChartData, zone: TimeZone, onZoom: (start: string, end: string) => void, onReset: () => void): ChartHandle {
    box.replaceChildren();
    box.dataset.series = String(data.series.length);
    box.dataset.points = String(data.x.length);
    box.setAttribute('aria-label', `Time series of ${data.series.map(s => s.label).join(', ')} over ${data.x.length} time buckets; drag across it to run the query on that range, double-click to go back`);
    const fg = getComputedStyle(document.body).getPropertyValue('--vscode-foreground').trim() || '#ccc';
    const grid = getComputedStyle(document.body).getPropertyValue('--vscode-panel-border').trim() || '#8884';
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    // The widest time label ("2026-11-28 12:00" over two lines) needs about 90 px: ticks at least that far apart.
    const timeAxis = { ...axis, space: 110 };
    const width = Math.max(300, box.clientWidth || box.parentElement?.clientWidth || 600);
    const plot = new uPlot(
        {
            width,
            height: plotHeight(box, undefined),
            series: [{ label: data.timeColumn }, ...data.series.map((s, i) => ({ label: s.label, stroke: color(i), width: 1.5, spanGaps: false }))],
            axes: [timeAxis, axis],
            ...(zone === 'utc' ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
            cursor: { drag: { x: true, y: false, setScale: false } },
            hooks: {
                setSelect: [
                    (u: uPlot) => {
                        if (u.select.width < 2) return;
                        const start = u.posToVal(u.select.left, 'x');
                        const end = u.posToVal(u.select.left + u.select.width, 'x');
                        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
                        if (Number.isFinite(start) && Number.isFinite(end) && end > start) {
                            onZoom(new Date(start * 1000).toISOString(), new Date(end * 1000).toISOString());
                        }
                    },
                ],
            },
        },
        [data.x, ...data.series.map(s => s.values)] as uPlot.AlignedData,
        box,
    );
    const onDblClick = () => onReset();
    plot.over.addEventListener('dblclick', onDblClick);
    // The box takes the panel's height (styles.css): the plot follows it, and its width.
    const resize = new ResizeObserver(() => {
        if (box.clientWidth === 0 || box.clientHeight === 0) return;
        plot.setSize({ width: Math.max(300, box.clientWidth), height: plotHeight(box, plot) });
    });
    resize.observe(box);
    return {
        destroy() {
            resize.disconnect();
            plot.over.removeEventListener('dblclick', onDblClick);
            plot.destroy();
        },
    };
}

/** The plot's height: the box's, less the legend under it (a box not laid out yet, in a hidden tab: 180). */
function plotHeight(box: HTMLElement, plot: uPlot | undefined): number {
    if (box.clientHeight === 0) return 180;
    const legend = plot?.root.querySelector('.u-legend')?.getBoundingClientRect().height ?? 24;
    return Math.max(60, Math.floor(box.clientHeight - legend - 4));
}
