/**
 * The results panel's chart with exactly the ECharts parts the panel registers (echarts-modules.ts),
 * rendered server-side: long category labels on the left axis fit inside the chart (the grid grows
 * to contain them), and ECharts prints nothing (ECharts 6 logs "Specified `grid.containLabel` but no
 * `use(LegacyGridContainLabel)`" for the deprecated option, then falls back to `outerBounds`).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as echarts from 'echarts/core';
import { PANEL_ECHARTS_MODULES } from '../../../client/vscode/webview/echarts-modules.js';
import { echartsOption, type ChartTheme } from '../../../client/vscode/webview/echarts-option.js';

echarts.use(PANEL_ECHARTS_MODULES);

const THEME: ChartTheme = { foreground: '#ccc', background: '#1e1e1e', grid: '#444', fontFamily: 'sans-serif', fontSize: 12, palette: ['#3794ff'], utc: true };
const LABEL = 'checkout-service-eu-west-1';

describe('the panel chart grid', () => {
    afterEach(() => vi.restoreAllMocks());

    it("['sample-http-logs'] | summarize count() by service (a bar chart): the long category labels start inside the chart, no ECharts warning", () => {
        const said = ['log', 'warn', 'error'].map(level => vi.spyOn(console, level as 'log'));
        const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width: 400, height: 240 });
        const model = { xKind: 'category' as const, x: [LABEL, 'api'], series: [{ name: 'count_', values: [12, 7] }], clipped: false };
        chart.setOption(echartsOption(model, 'bar', THEME, false));
        const svg = chart.renderToSVGString();
        chart.dispose();
        // The y axis labels are right-aligned (text-anchor end) at x = their right edge: that edge is
        // at least the label's width (about 6 px a character at 12 px) from the left.
        const at = new RegExp(`<text[^>]*transform="translate\\(([\\d.]+) [\\d.]+\\)"[^>]*>${LABEL}<`).exec(svg);
        expect(at, svg.slice(0, 400)).not.toBeNull();
        expect(Number(at![1])).toBeGreaterThan(LABEL.length * 5);
        expect(said.flatMap(spy => spy.mock.calls.map(c => String(c[0])))).toEqual([]);
    });
});
