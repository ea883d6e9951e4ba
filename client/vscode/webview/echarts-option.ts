/**
 * The ECharts option of a chart model (src/results/chart-spec.ts), themed with colours read from
 * VS Code's CSS variables. Pure (no DOM): the view passes the theme in, the export renders the same
 * option again off screen. The tooltip is drawn inside the chart (`richText`): an HTML tooltip
 * would need inline styles, which the webview's Content-Security-Policy does not allow.
 */
import type { EChartsCoreOption } from 'echarts/core';
import type { ChartModel, ChartType } from '../src/results/chart-spec.js';

export interface ChartTheme {
    foreground: string;
    background: string;
    grid: string;
    fontFamily: string;
    fontSize: number;
    palette: string[];
    /** Times on the axis and in the tooltip: UTC like the grid, or the machine's zone. */
    utc: boolean;
}

const stacked = (t: ChartType) => t === 'stackedArea' || t === 'stackedColumn' || t === 'stackedBar';
const horizontal = (t: ChartType) => t === 'bar' || t === 'stackedBar';

export function echartsOption(model: ChartModel, type: ChartType, theme: ChartTheme, animation = true): EChartsCoreOption {
    const text = { color: theme.foreground, fontFamily: theme.fontFamily, fontSize: theme.fontSize };
    const common = {
        animation,
        backgroundColor: 'transparent',
        color: theme.palette,
        textStyle: text,
        useUTC: theme.utc,
        legend: { show: model.series.length > 1 || type === 'pie', type: 'scroll', top: 0, textStyle: text, pageTextStyle: text },
        tooltip: { renderMode: 'richText', trigger: type === 'pie' || type === 'scatter' ? 'item' : 'axis', backgroundColor: theme.background, borderColor: theme.grid, textStyle: text },
    };
    if (type === 'pie') {
        // One pie of the first series: a slice per X value.
        const first = model.series[0];
        return {
            ...common,
            series: [
                {
                    type: 'pie',
                    name: first?.name ?? '',
                    radius: ['0%', '70%'],
                    top: 24,
                    label: { color: theme.foreground, fontFamily: theme.fontFamily },
                    itemStyle: { borderColor: theme.background, borderWidth: 1 },
                    data: model.x.map((x, i) => ({ name: String(x), value: first?.values[i] ?? 0 })),
                },
            ],
        };
    }
    const axisLine = { lineStyle: { color: theme.grid } };
    const splitLine = { lineStyle: { color: theme.grid, opacity: 0.5 } };
    const xAxis =
        model.xKind === 'time'
            ? { type: 'time', axisLine, axisLabel: { color: theme.foreground, hideOverlap: true }, splitLine: { show: false } }
            : model.xKind === 'value'
              ? { type: 'value', scale: true, axisLine, axisLabel: { color: theme.foreground }, splitLine }
              : { type: 'category', data: model.x.map(String), axisLine, axisLabel: { color: theme.foreground, hideOverlap: true } };
    const yAxis = { type: 'value', axisLine, axisLabel: { color: theme.foreground }, splitLine };
    const seriesType = type === 'scatter' ? 'scatter' : type === 'line' || type === 'area' || type === 'stackedArea' ? 'line' : 'bar';
    const series = model.series.map(s => ({
        type: seriesType,
        name: s.name,
        ...(stacked(type) ? { stack: 'total' } : {}),
        ...(type === 'area' || type === 'stackedArea' ? { areaStyle: { opacity: 0.35 } } : {}),
        ...(seriesType === 'line' ? { showSymbol: model.x.length <= 60, connectNulls: false } : {}),
        ...(seriesType === 'scatter' ? { symbolSize: 6 } : {}),
        emphasis: { focus: 'series' },
        // Time and numeric X: [x, y] pairs (the axis places them); categories: the values in order.
        data: model.xKind === 'category' ? s.values.map(v => (v === null && stacked(type) ? 0 : v)) : s.values.map((v, i) => [model.x[i], v === null && stacked(type) ? 0 : v]),
    }));
    return {
        ...common,
        // The axis labels inside the box (ECharts 6's `outerBounds`; its deprecated `containLabel` needs LegacyGridContainLabel).
        grid: { left: 8, right: 16, top: common.legend.show ? 32 : 12, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
        xAxis: horizontal(type) ? yAxis : xAxis,
        yAxis: horizontal(type) ? { ...xAxis, inverse: model.xKind === 'category' } : yAxis,
        series: horizontal(type) && model.xKind !== 'category' ? series.map(s => ({ ...s, data: (s.data as unknown[][]).map(p => (Array.isArray(p) ? [p[1], p[0]] : p)) })) : series,
    };
}
