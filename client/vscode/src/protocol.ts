/**
 * Messages between the extension host and the results webview. Rows stay in the host: the webview
 * asks for blocks of rows by index and gets row-major arrays aligned with `fields`.
 */
import type { TableField } from '../../api/types.js';
import type { ChartData } from './results/chart-data.js';
import type { ChartChoice } from './results/chart-spec.js';
import type { CopyFormat } from './results/copy-format.js';
import type { ExportFormat } from './results/export-writer.js';
import type { SortKey } from './results/sorted-rows.js';
import type { TimeRangeSpec } from './time-range.js';

export type ViewState = 'idle' | 'running' | 'done' | 'error' | 'cancelled';

export interface StatusMessageView {
    priority: string;
    msg: string;
}

/** Everything the view shows about a run except its rows. */
export interface RunView {
    runId: number;
    state: ViewState;
    query: string;
    connection: string;
    range: string;
    fields: TableField[];
    /** `status.rowsMatched` of the first page. */
    rowsMatched: number;
    /** The rows the grid scrolls over. */
    rowCount: number;
    rowsLoaded: number;
    pageSize: number;
    mode: 'cursor' | 'time' | 'once' | '';
    requests: number;
    elapsedMs: number;
    /** When the run started (ms since the epoch, host clock): the view reports the time to its first rows. */
    startedAt: number;
    truncated: boolean;
    isPartial: boolean;
    isEstimate: boolean;
    messages: StatusMessageView[];
    error?: { message: string; line?: number; column?: number };
    chart?: ChartData;
    /**
     * The rows the Chart tab draws (the first page's, up to CHART_MAX_ROWS) of a one-request result
     * (an aggregation) with a numeric column. A paged result's are asked for (`chartRows`) when its
     * chart is shown: they would slow the first paint of its grid.
     */
    chartRows?: unknown[][];
    /** The result has a numeric column: it can be charted. */
    chartable?: boolean;
    /** The chart choice remembered for this query (its block's text), if any. */
    chartChoice?: ChartChoice;
    /** Why the result runs once instead of paging. */
    notPaged?: string;
    /** The first rows, sent with the finished run so the grid paints without asking (one websocket round trip less). */
    firstRows?: unknown[][];
    /** Nothing in the range, but the datasets have events elsewhere: the sentence that says where (the view offers All time). */
    emptyHint?: string;
    /** A column sort reads every row into the host: allowed up to this many rows (`apl.results.sortLimit`). */
    sortLimit?: number;
    /** How the grid and the chart show times (`apl.results.timeZone`). */
    timeZone?: 'utc' | 'local';
}

export type HostMessage =
    | { type: 'init'; timeRange: TimeRangeSpec; run?: RunView }
    | { type: 'run'; run: RunView }
    | { type: 'rows'; runId: number; requestId: number; start: number; rows: unknown[][]; rowCount: number; rowsLoaded: number; requests: number; sort?: SortKey }
    /** Every `getRows` is answered: with rows, or with this (`stale`: the request belonged to an earlier run). */
    | { type: 'rowsFailed'; runId: number; requestId: number; message: string; stale?: boolean }
    | { type: 'timeRange'; timeRange: TimeRangeSpec }
    /** The same query over an earlier period (`compare`), for the chart: rows aligned with `fields`, or why not. */
    | { type: 'chartRows'; runId: number; rows: unknown[][] }
    | { type: 'earlierPeriod'; runId: number; offset: string; fields: TableField[]; rows: unknown[][]; error?: string };

export type ViewMessage =
    | { type: 'ready' }
    /** `sort`: the rows in that order (sorted in the host over every row of the result). */
    | { type: 'getRows'; runId: number; requestId: number; start: number; end: number; sort?: SortKey }
    | { type: 'cancel' }
    | { type: 'rerun' }
    | { type: 'export'; format: ExportFormat }
    | { type: 'timeRange'; timeRange: TimeRangeSpec }
    | { type: 'zoom'; runId: number; start: string; end: string }
    /** `rows`: indexes in the grid's order (`sort`'s when sorted). */
    | { type: 'copyRows'; runId: number; rows: number[]; format: CopyFormat; headers: boolean; sort?: SortKey }
    | { type: 'copyText'; text: string }
    | { type: 'filter'; runId: number; field: string; value: unknown }
    | { type: 'openInEditor' }
    | { type: 'painted'; runId: number; rows: number; at: number }
    /** The user changed the chart's type or columns: remembered for this query. */
    | { type: 'chartChoice'; query: string; choice: ChartChoice }
    /** Save the chart to a file: `data` is the SVG text or the PNG's base64. */
    | { type: 'saveChart'; format: 'svg' | 'png'; data: string }
    /** The toolbar's Share… (apl.copyQueryAs) and Save result… (apl.saveResult). */
    | { type: 'command'; command: 'apl.copyQueryAs' | 'apl.saveResult' }
    /** The rows a paged result's chart draws. */
    | { type: 'chartRows'; runId: number }
    /** Run the query over its range shifted back by `offset` (chart-spec.ts COMPARE_OFFSETS) and send the rows. */
    | { type: 'compare'; runId: number; offset: string };
