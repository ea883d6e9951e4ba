/**
 * Messages between the extension host and the results webview. Rows stay in the host: the webview
 * asks for blocks of rows by index and gets row-major arrays aligned with `fields`.
 */
import type { TableField } from '../../api/types.js';
import type { ChartData } from './results/chart-data.js';
import type { ChartChoice } from './results/chart-spec.js';
import type { ColumnFilter } from './results/column-filter.js';
import type { CopyFormat } from './results/copy-format.js';
import type { ExportFormat } from './results/export-writer.js';
import type { SortKey } from './results/sorted-rows.js';
import type { TimeRangeSpec } from './time-range.js';

export type ViewState = 'idle' | 'running' | 'done' | 'error' | 'cancelled';

export interface StatusMessageView {
    priority: string;
    msg: string;
}

/** The Stats tab: what the service said about the run (its `status`), and the time it took here. */
export interface QueryStatsView {
    /** The service's own time (`status.elapsedTime`, µs, as ms); absent when it did not say. */
    serviceMs?: number;
    rowsExamined: number;
    rowsMatched: number;
    blocksExamined: number;
    /** Blocks left unread by pruning (the embedded service says it; Axiom does not). */
    blocksSkipped?: number;
    numGroups: number;
    cacheStatus: number;
    minBlockTime?: string;
    maxBlockTime?: string;
    isPartial: boolean;
    isEstimate: boolean;
    /** Every status message, trace and debug too. */
    messages: { priority: string; code: string; count: number; msg: string }[];
}

/** A table of the result after its first (the totals of a time-binned summarize): small, sent whole (up to a cap). */
export interface ExtraTableView {
    name: string;
    fields: TableField[];
    rows: unknown[][];
    /** Rows the table has (more than `rows.length` when capped). */
    rowCount: number;
}

/** A search over the rows the extension host holds (src/results/row-search.ts). */
export interface SearchResultView {
    runId: number;
    searchId: number;
    term: string;
    /** Rows that match, in the grid's order (the sort's when sorted); the first `matches.length` of them. */
    matches: number[];
    matchCount: number;
    rowsSearched: number;
    /** Every row of the result was searched (else: the rows in memory only). */
    complete: boolean;
    /** The same search on the service: a copy of the query the view shows before running it. */
    serviceQuery: string;
}

/** The column filters of the grid as the host applied them (src/results/column-filter.ts). */
export interface FilterResultView {
    runId: number;
    filterId: number;
    /** Applied here over every row (else: not applied here, `serviceQuery` does it). */
    local: boolean;
    /** Rows that pass (when local). */
    rowCount: number;
    /** The `| where` lines of the filters. */
    where: string;
    /** The query with the filters as `where`s. */
    serviceQuery: string;
    /** Why the filters are not applied here. */
    reason?: string;
}

/** A column's distinct values with their counts, over the rows the host holds. */
export interface DistinctValuesView {
    runId: number;
    field: string;
    values: { value: unknown; count: number }[];
    distinct: number;
    rowsCounted: number;
    complete: boolean;
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
    /** When the extension host posted this view (host clock): benchmarks tell the messages' time from the run's. */
    postedAt?: number;
    /** When the run's request started (host clock; `startedAt` is when the command did). */
    requestedAt?: number;
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
    /** A result reopened from the history or a `.aplr` file (no request was sent for it): the view says so in a note. */
    saved?: { savedAt: string; rowsSaved: number; rowCount: number };
    /** Nothing in the range, but the datasets have events elsewhere: the sentence that says where (the view offers All time). */
    emptyHint?: string;
    /** A column sort reads every row into the host: allowed up to this many rows (`apl.results.sortLimit`). */
    sortLimit?: number;
    /** How the grid and the chart show times (`apl.results.timeZone`). */
    timeZone?: 'utc' | 'local';
    /** The Stats tab (absent while running and when the request failed). */
    stats?: QueryStatsView;
    /** The result's other tables, each a tab. */
    tables?: ExtraTableView[];
}

export type HostMessage =
    | { type: 'init'; timeRange: TimeRangeSpec; run?: RunView }
    | { type: 'run'; run: RunView }
    | { type: 'rows'; runId: number; requestId: number; start: number; rows: unknown[][]; rowCount: number; rowsLoaded: number; requests: number; sort?: SortKey }
    /** Every `getRows` is answered: with rows, or with this (`stale`: the request belonged to an earlier run). */
    | { type: 'rowsFailed'; runId: number; requestId: number; message: string; stale?: boolean }
    | { type: 'timeRange'; timeRange: TimeRangeSpec }
    | { type: 'searchResult'; result: SearchResultView }
    | { type: 'filterResult'; result: FilterResultView }
    | { type: 'distinctValues'; result: DistinctValuesView }
    /** Column statistics from the service: the query that computed them, and its first row as pairs (or why it failed). */
    | { type: 'columnStats'; runId: number; field: string; query: string; pairs?: [string, unknown][]; error?: string }
    /** Group on the service: the rows of the whole result counted by a column's values, with the query that counted them. */
    | { type: 'serviceGroups'; runId: number; field: string; query: string; groups?: [unknown, number][]; more?: boolean; error?: string }
    | { type: 'searchFailed'; runId: number; searchId: number; message: string }
    /** The same query over an earlier period (`compare`), for the chart: rows aligned with `fields`, or why not. */
    | { type: 'chartRows'; runId: number; rows: unknown[][] }
    | { type: 'earlierPeriod'; runId: number; offset: string; fields: TableField[]; rows: unknown[][]; error?: string };

export type ViewMessage =
    | { type: 'ready' }
    /** `sort`: the rows in that order (sorted in the host over every row of the result). */
    /**
     * `filter`: the rows that pass that filter (`start`/`end` among them); `only`: the rows of that
     * search's matches (Only matching rows), among the filtered rows when both are given.
     */
    | { type: 'getRows'; runId: number; requestId: number; start: number; end: number; sort?: SortKey; only?: number; filter?: number }
    /** Searches the rows the host holds, in the grid's order (`sort`'s when sorted; among the rows of `filter`). */
    | { type: 'search'; runId: number; searchId: number; term: string; sort?: SortKey; filter?: number }
    /** Applies the column filters (none: every row again), in the grid's order. */
    | { type: 'filters'; runId: number; filterId: number; filters: ColumnFilter[]; sort?: SortKey }
    | { type: 'distinct'; runId: number; field: string }
    /** Statistics of one column over the whole result, computed on the service. */
    | { type: 'columnStats'; runId: number; field: string }
    | { type: 'groupOnService'; runId: number; field: string }
    /** Runs `text` as a new query (shown in an editor first): the search or a filter on the service. */
    | { type: 'runQuery'; text: string }
    | { type: 'cancel' }
    | { type: 'rerun' }
    | { type: 'export'; format: ExportFormat }
    | { type: 'timeRange'; timeRange: TimeRangeSpec }
    | { type: 'zoom'; runId: number; start: string; end: string }
    /** `rows`: indexes in the grid's order (`sort`'s when sorted). */
    | { type: 'copyRows'; runId: number; rows: number[]; format: CopyFormat; headers: boolean; sort?: SortKey }
    | { type: 'copyText'; text: string }
    /** `path`: the keys of a nested value of a JSON cell (`['geo']['city']`: ['city']). */
    | { type: 'filter'; runId: number; field: string; value: unknown; path?: (string | number)[] }
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
