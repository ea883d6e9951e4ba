/**
 * The chart of a stored output (an `.aplnb` snapshot): its first table drawn over the time column
 * the cell was charted by when it ran (`output.chart`). Apart from chart-image.ts so that reading a
 * notebook does not load ECharts.
 */
import { chartData, type ChartData } from '../vscode/src/results/chart-data.js';
import type { CellSnapshot } from './aplnb.js';

/** The chart of a stored output: its first table over the time column it was charted by when it ran. */
export function snapshotChart(snapshot: CellSnapshot): ChartData | undefined {
    const table = snapshot.tables[0];
    if (!snapshot.chart || !table || table.rows.length === 0) return undefined;
    const columns = table.fields.map((_, c) => table.rows.map(r => r[c]));
    return chartData(snapshot.chart.timeColumn, table.fields, columns);
}
