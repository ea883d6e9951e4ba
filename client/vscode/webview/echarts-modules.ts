/**
 * The ECharts parts the results panel's chart registers (chart-view.ts), in a module of their own so
 * a test renders with exactly these. No LegacyGridContainLabel: echarts-option.ts lays the grid out
 * with ECharts 6's `outerBounds` options, which the grid itself implements.
 */
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';

export const PANEL_ECHARTS_MODULES = [LineChart, BarChart, PieChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer, CanvasRenderer];
