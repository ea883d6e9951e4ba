/**
 * The Chart view of a result: a toolbar (Chart type, X, Y, Series, Copy image, Save as SVG/PNG)
 * and the chart (`data-testid="apl-chart"`). Any result with a numeric column can be drawn; the
 * columns are chosen automatically (src/results/chart-spec.ts) and every change is sent to the
 * host, which remembers it for the query's block.
 *
 * Two libraries, each where it is best: uPlot (chart.ts) draws a time-binned result as lines, as it
 * did before, with its drag-to-zoom that runs the query again on the range; ECharts (bundled, SVG
 * renderer, themed from VS Code's CSS variables) draws every other type. Exports always go through
 * ECharts, rendered again off screen: an SVG from the SVG renderer, a PNG from the canvas one.
 */
import * as echarts from 'echarts/core';
import type { HostMessage, RunView, ViewMessage } from '../src/protocol.js';
import {
    CHART_TYPE_LABELS,
    CHART_TYPES,
    chartModel,
    choiceFor,
    COMPARE_OFFSETS,
    compareOffset,
    isNumericField,
    withEarlierPeriod,
    type ChartChoice,
    type ChartModel,
    type ChartTable,
    type ChartType,
} from '../src/results/chart-spec.js';
import { renderChart, type ChartHandle } from './chart.js';
import { button, select, type Control, type ValueControl } from './controls.js';
import { PANEL_ECHARTS_MODULES } from './echarts-modules.js';
import { chartTheme } from './chart-theme.js';
import { echartsOption } from './echarts-option.js';

echarts.use(PANEL_ECHARTS_MODULES);

export interface ChartViewHost {
    post(m: ViewMessage): void;
    /** Drag-to-zoom on a time-binned chart: run the query on this range. */
    zoomTo(start: string, end: string): void;
    resetZoom(): void;
    note(text: string, kind: 'info' | 'warn' | 'error'): void;
}

const ALL = '*';
const NONE = '';


export class ChartView {
    /** The toolbar and the chart: main.ts places it (in the Chart tab's panel when there is one). */
    readonly element: HTMLElement;
    private readonly controls: HTMLElement;
    private readonly typeSelect: ValueControl;
    private run: RunView | undefined;
    private table: ChartTable | undefined;
    private choice: ChartChoice | undefined;
    private uplot: ChartHandle | undefined;
    private echart: echarts.ECharts | undefined;
    private resize: ResizeObserver | undefined;
    private readonly compareSelect: ValueControl;
    /** The same query over an earlier period, drawn on the same time chart. */
    private earlier: { offset: string; table: ChartTable } | undefined;

    constructor(
        /** The chart's own box (`data-testid="apl-chart"`). */
        readonly box: HTMLElement,
        private readonly host: ChartViewHost,
    ) {
        this.element = document.createElement('section');
        this.element.className = 'chart-view';
        this.element.setAttribute('aria-label', 'Chart');
        this.controls = document.createElement('div');
        this.controls.className = 'chart-controls toolbar';
        this.controls.setAttribute('role', 'toolbar');
        this.controls.setAttribute('aria-label', 'Chart');
        this.typeSelect = select('Chart type', CHART_TYPES.map(t => [t, CHART_TYPE_LABELS[t]] as const), { 'data-testid': 'apl-chart-type' });
        this.typeSelect.addEventListener('change', () => this.change({ type: this.typeSelect.value as ChartType }));
        this.compareSelect = select('Compare with', [['', 'No comparison'], ...COMPARE_OFFSETS.map(([k, label]) => [k, label[0].toUpperCase() + label.slice(1)] as const)]);
        this.compareSelect.title = 'Draw the same query over an earlier period on this chart';
        this.compareSelect.addEventListener('change', () => this.compare(this.compareSelect.value));
        const exports: Control[] = [
            button('Copy image', 'Copy the chart to the clipboard as a PNG image', () => void this.copyImage()),
            button('Save as SVG', 'Save the chart to an SVG file', () => void this.save('svg')),
            button('Save as PNG', 'Save the chart to a PNG file', () => void this.save('png')),
        ];
        const group = document.createElement('div');
        group.className = 'group chart-columns';
        const exportGroup = document.createElement('div');
        exportGroup.className = 'group';
        exportGroup.append(...exports);
        this.controls.append(this.typeSelect, group, this.compareSelect, exportGroup);
        this.element.append(this.controls, box);
        this.element.hidden = true;
    }

    /** The run whose chart rows are wanted but not asked for yet (a paged result, its Chart tab not shown yet). */
    private rowsWanted: number | undefined;

    /**
     * The chart of a finished run (nothing for a run without a numeric column). A paged result's rows
     * are asked for when the chart is in view (`visible`, or later `inView()`): asking at once would
     * have the host send the first page's rows a second time while the grid paints them.
     */
    show(view: RunView, visible = true): boolean {
        this.clear();
        this.run = view;
        const rows = view.chartRows;
        if (!rows) {
            if (view.chartable) {
                this.rowsWanted = view.runId;
                if (visible) this.inView();
            }
            return false;
        }
        this.table = { fields: view.fields, rows };
        this.choice = choiceFor(view.fields, view.chartChoice);
        if (!this.choice) return false;
        this.element.hidden = false;
        // An earlier period is compared for a time-binned result (the query runs again on a shifted range).
        this.compareSelect.hidden = view.chart === undefined;
        if (this.compareSelect.value !== '') this.compareSelect.value = '';
        this.showColumns();
        this.typeSelect.value = this.choice.type;
        this.draw();
        return true;
    }

    /** The Chart tab is shown: a paged result's rows are asked for now (once). */
    inView(): void {
        if (this.rowsWanted === undefined || this.run?.runId !== this.rowsWanted) return;
        this.rowsWanted = undefined;
        this.host.post({ type: 'chartRows', runId: this.run.runId });
    }

    /** A paged result's chart rows, asked for by inView(). */
    showRows(m: Extract<HostMessage, { type: 'chartRows' }>): void {
        const view = this.run;
        if (!view || view.runId !== m.runId || view.chartRows) return;
        this.show({ ...view, chartRows: m.rows });
    }

    /** Everything of the last run's chart goes. */
    clear(): void {
        this.destroyChart();
        this.run = undefined;
        this.rowsWanted = undefined;
        this.table = undefined;
        this.choice = undefined;
        this.earlier = undefined;
        this.element.hidden = true;
    }

    private compare(offset: string): void {
        if (!this.run) return;
        this.earlier = undefined;
        delete this.box.dataset.compare;
        if (offset === '') this.draw();
        else this.host.post({ type: 'compare', runId: this.run.runId, offset });
    }

    /** The host's answer to a compare: drawn on the chart, or why not. */
    showEarlier(m: Extract<HostMessage, { type: 'earlierPeriod' }>): void {
        if (!this.run || m.runId !== this.run.runId || m.offset !== this.compareSelect.value) return;
        if (m.error) {
            this.host.note(`The earlier period could not be read: ${m.error}`, 'error');
            return;
        }
        this.earlier = { offset: m.offset, table: { fields: m.fields, rows: m.rows } };
        this.draw();
    }

    private showColumns(): void {
        const table = this.table!;
        const choice = this.choice!;
        const names = table.fields.map(f => [f.name, f.name] as const);
        const numeric = table.fields.filter(isNumericField).map(f => [f.name, f.name] as const);
        const allY = numeric.length > 1 && choice.y.length === numeric.length;
        const x = picked(select('X column', names), choice.x);
        x.title = 'X column';
        const y = picked(select('Y column', numeric.length > 1 ? [[ALL, 'All numeric columns'] as const, ...numeric] : numeric), allY ? ALL : choice.y[0]);
        const series = picked(select('Series column', [[NONE, 'No series'] as const, ...names]), choice.series ?? NONE);
        x.addEventListener('change', () => this.change({ x: x.value }));
        y.addEventListener('change', () => this.change({ y: y.value === ALL ? numeric.map(([n]) => n) : [y.value] }));
        series.addEventListener('change', () => this.change({ series: series.value === NONE ? undefined : series.value }));
        const label = (text: string) => Object.assign(document.createElement('span'), { className: 'chart-label', textContent: text });
        this.controls.querySelector('.chart-columns')!.replaceChildren(label('X'), x, label('Y'), y, label('Series'), series);
    }

    private change(part: Partial<ChartChoice>): void {
        if (!this.choice || !this.run) return;
        const next: ChartChoice = { ...this.choice, ...part };
        if ('series' in part && part.series === undefined) delete next.series;
        if (JSON.stringify(next) === JSON.stringify(this.choice)) return;
        this.choice = next;
        this.host.post({ type: 'chartChoice', query: this.run.query, choice: next });
        this.draw();
    }

    private model(): ChartModel {
        const now = chartModel(this.table!, this.choice!);
        const offset = this.earlier && compareOffset(this.earlier.offset);
        if (!this.earlier || !offset || now.xKind !== 'time') return now;
        return withEarlierPeriod(now, chartModel(this.earlier.table, this.choice!), offset.ms, offset.label);
    }

    private draw(): void {
        const view = this.run!;
        const choice = this.choice!;
        const model = this.model();
        this.destroyChart();
        const box = this.box;
        box.hidden = false;
        box.replaceChildren();
        const zone = view.timeZone ?? 'utc';
        // A time-binned result drawn as lines keeps uPlot's drag-to-zoom (the query runs again on the range).
        const zoomable = view.chart !== undefined && choice.type === 'line' && model.xKind === 'time';
        box.dataset.renderer = zoomable ? 'uplot' : 'echarts';
        if (this.earlier) box.dataset.compare = this.earlier.offset;
        box.dataset.chartType = choice.type;
        box.classList.toggle('echarts', !zoomable);
        if (zoomable) {
            this.uplot = renderChart(box, { timeColumn: choice.x, x: model.x.map(t => (t as number) / 1000), series: model.series.map(s => ({ label: s.name, values: s.values })) }, zone, this.host.zoomTo, this.host.resetZoom);
        } else {
            this.echart = echarts.init(box, undefined, { renderer: 'svg' });
            this.echart.setOption(echartsOption(model, choice.type, chartTheme(zone)));
            const chart = this.echart;
            this.resize = new ResizeObserver(() => chart.resize());
            this.resize.observe(box);
            box.dataset.series = String(model.series.length);
            box.dataset.points = String(model.x.length);
        }
        const ys = model.series.map(s => s.name).join(', ');
        box.setAttribute('aria-label', `${CHART_TYPE_LABELS[choice.type]} chart of ${ys} by ${choice.x}, ${model.x.length} points${zoomable ? '; drag across it to run the query on that range, double-click to go back' : ''}`);
        if (model.clipped) this.host.note('The chart shows the biggest categories and series only.', 'info');
    }

    private destroyChart(): void {
        this.uplot?.destroy();
        this.uplot = undefined;
        this.resize?.disconnect();
        this.resize = undefined;
        this.echart?.dispose();
        this.echart = undefined;
    }

    /** The chart drawn again off screen by ECharts (animation off), as SVG text or a PNG data URL. */
    private render(format: 'svg' | 'png'): string | undefined {
        if (!this.run || !this.choice) return undefined;
        const width = Math.max(400, this.box.clientWidth || 800);
        const height = Math.max(240, this.box.clientHeight || 300);
        const div = document.createElement('div');
        div.className = 'chart-offscreen';
        document.body.append(div);
        const theme = chartTheme(this.run.timeZone ?? 'utc');
        const chart = echarts.init(div, undefined, { renderer: format === 'svg' ? 'svg' : 'canvas', width, height });
        try {
            chart.setOption({ ...echartsOption(this.model(), this.choice.type, theme, false), backgroundColor: theme.background });
            return format === 'svg' ? chart.renderToSVGString() : chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: theme.background });
        } finally {
            chart.dispose();
            div.remove();
        }
    }

    private async copyImage(): Promise<void> {
        const url = this.render('png');
        if (!url) return;
        try {
            // From the data URL without fetch (the CSP allows no connection).
            const bytes = Uint8Array.from(atob(url.slice(url.indexOf(',') + 1)), c => c.charCodeAt(0));
            const blob = new Blob([bytes], { type: 'image/png' });
            await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
            this.box.dataset.copied = String(blob.size);
            this.host.note('The chart was copied as a PNG image.', 'info');
        } catch (e) {
            this.host.note(`The chart could not be copied: ${e instanceof Error ? e.message : String(e)}. Save as PNG works without the clipboard.`, 'error');
        }
    }

    private save(format: 'svg' | 'png'): void {
        const data = this.render(format);
        if (data) this.host.post({ type: 'saveChart', format, data: format === 'png' ? data.replace(/^data:image\/png;base64,/, '') : data });
    }
}

/** A select whose option `value` is the selected one from the start (set before the element upgrades). */
function picked(s: ValueControl, value: string): ValueControl {
    for (const o of s.querySelectorAll('vscode-option')) if (o.getAttribute('value') === value) o.setAttribute('selected', '');
    return s;
}
