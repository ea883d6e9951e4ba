/**
 * A notebook cell's chart, one model everywhere: the time series of its result (chart-data.ts, as
 * the results panel computes it) drawn by ECharts with the option the results panel's charts use
 * (webview/echarts-option.ts, a line chart over time). The notebook renderer draws that option live
 * (themed from VS Code's colours); the Markdown and Jupyter exports render the same option to an SVG
 * string with ECharts' server-side renderer, which needs no DOM, so the CLI and the extension host
 * write the same picture.
 */
import { LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartData } from '../vscode/src/results/chart-data.js';
import type { ChartModel } from '../vscode/src/results/chart-spec.js';
import { echartsOption, type ChartTheme } from '../vscode/webview/echarts-option.js';

echarts.use([LineChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/** An exported picture is read outside the editor (GitHub, Jupyter) in a light or dark page: dark on white, its own background. */
export const EXPORT_THEME: ChartTheme = {
    foreground: '#24292f',
    background: '#ffffff',
    grid: '#d0d7de',
    fontFamily: 'sans-serif',
    fontSize: 12,
    palette: ['#0969da', '#bc4c00', '#1a7f37', '#cf222e', '#8250df', '#9a6700'],
    utc: true,
};

export const EXPORT_WIDTH = 720;
export const EXPORT_HEIGHT = 280;

/** The time series as the panel's chart model (times in ms). */
export function chartModelOf(data: ChartData): ChartModel {
    return { xKind: 'time', x: data.x.map(t => t * 1000), series: data.series.map(s => ({ name: s.label, values: s.values })), clipped: false };
}

/** The ECharts option of a cell's chart: the panel's line chart. */
export function cellChartOption(data: ChartData, theme: ChartTheme, animation = true): echarts.EChartsCoreOption {
    return echartsOption(chartModelOf(data), 'line', theme, animation);
}

/** The chart as a standalone SVG document (its own background), for a file or a notebook output. */
export function chartSvg(data: ChartData, theme: ChartTheme = EXPORT_THEME, width = EXPORT_WIDTH, height = EXPORT_HEIGHT): string {
    const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height });
    try {
        chart.setOption({ ...cellChartOption(data, theme, false), backgroundColor: theme.background });
        return chart.renderToSVGString();
    } finally {
        chart.dispose();
    }
}
