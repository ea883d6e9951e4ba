/**
 * The UI half of the results: the Results view in the panel and any "open in editor" tabs, all
 * showing the current run. It turns runs into `RunView`s, answers every row request of the webview
 * (from the run's `ResultSet`, in a column's order through `SortedRows`, or with a failure when the
 * request belongs to an earlier run: a grid left waiting stops asking), and hands the webview's
 * actions (copy, filter, zoom, export, time range) to the extension through `ResultsActions`.
 */
import * as vscode from 'vscode';
import type { DistinctValuesView, ExtraTableView, FilterResultView, HostMessage, QueryStatsView, RunView, SearchResultView, ViewMessage } from '../protocol.js';
import type { TabularResult } from '../../../api/types.js';
import type { Run } from '../query/query-runner.js';
import { columnStatsQuery, statsPairs } from './column-stats.js';
import { groupCountQuery, groupCounts } from './service-group.js';
import type { TimeRangeSpec } from '../time-range.js';
import { chartData } from './chart-data.js';
import { chartImageBytes } from './chart-file.js';
import type { TableField } from '../../../api/types.js';
import type { ChartChoice } from './chart-spec.js';
import { compareOffset, isChartable } from './chart-spec.js';
import { formatRows } from './copy-format.js';
import type { ExportFormat } from './export-writer.js';
import type { ResultPage, ResultSet } from './result-set.js';
import { distinctValues, filterRows, filtersClause, type ColumnFilter } from './column-filter.js';
import { searchHeld, searchRowMajor, serviceSearchQuery } from './row-search.js';
import { withFilter } from '../query/filter-clause.js';
import { SortedRows, type SortKey } from './sorted-rows.js';
import { webviewHtml } from './webview-html.js';

/** `apl.export.csvFormulaGuard` (default on): CSV for spreadsheets, formulas made text (OWASP); off for exact data. */
export function csvFormulaGuard(): boolean {
    return vscode.workspace.getConfiguration('apl').get<boolean>('export.csvFormulaGuard', true) !== false;
}

export interface ResultsActions {
    rerun(): void;
    cancel(): void;
    exportResults(format: ExportFormat): void;
    setTimeRange(range: TimeRangeSpec): void;
    timeRange(): TimeRangeSpec;
    zoom(start: string, end: string): void;
    /** `path`: the keys of a nested value of a JSON cell. */
    filter(field: string, type: string, value: unknown, path?: (string | number)[]): void;
    /** Runs `text` as a new query, shown in an editor (a search or a filter the view moved to the service). */
    runQuery?(text: string): void;
    /** Runs `text` beside the current run (same connection and time range) without showing it as a run: column statistics. */
    queryAside?(text: string): Promise<TabularResult>;
    painted(runId: number, at: number): void;
    /** Shows the last kept result when nothing has run in this window yet (after a reload), like ADX's recall. */
    recallLast?(): Promise<void>;
    /** The results settings (`apl.results.*`); read at each run. */
    settings?(): ResultsSettings;
    /** The rows of `run`'s query over its range shifted back by `offsetMs` (Compare with an earlier period). */
    earlierPeriod?(run: Run, offsetMs: number): Promise<{ fields: TableField[]; rows: unknown[][] }>;
    /** The chart choices remembered per query (src/results/chart-choices.ts). */
    chartChoices?: { get(query: string): ChartChoice | undefined; set(query: string, choice: ChartChoice): Promise<void> };
}

export interface ResultsSettings {
    /** A column sort reads every row into the extension host: allowed up to this many rows. */
    sortLimit: number;
    timeZone: 'utc' | 'local';
}

export const DEFAULT_RESULTS_SETTINGS: ResultsSettings = { sortLimit: 100_000, timeZone: 'utc' };

/** The webview's block size (webview/main.ts BLOCK_SIZE): the first block is sent with the run. */
const FIRST_BLOCK = 250;
/** The rows a chart is drawn from: the first page's, up to this many (an aggregation is rarely larger). */
export const CHART_MAX_ROWS = 5000;

function rowsOfFirstPage(fields: readonly { name: string }[], page: ResultPage, n: number): unknown[][] {
    const index = new Map(fields.map((f, i) => [f.name, i]));
    const map = page.fields.map(f => index.get(f.name)!);
    const out: unknown[][] = [];
    for (let r = 0; r < Math.min(n, page.rows); r++) {
        const row: unknown[] = new Array(fields.length).fill(null);
        for (let c = 0; c < map.length; c++) row[map[c]] = page.columns[c][r] ?? null;
        out.push(row);
    }
    return out;
}

/** Rows of a table after the first sent with the run (a totals table has a few). */
const EXTRA_TABLE_ROWS = 1000;
/** Match positions sent to the view for next/previous (the count is always exact). */
const MATCHES_SENT = 50_000;
/** Groups of Group on the service sent to the view (the largest). */
const SERVICE_GROUPS_SENT = 200;
/** Distinct values of a column sent for a filter by value. */
const DISTINCT_SENT = 200;

/** The Stats tab of a run: the service's status as it came, every message included. */
export function queryStats(result: ResultSet): QueryStatsView {
    const s = result.status;
    const stats: QueryStatsView = {
        rowsExamined: s?.rowsExamined ?? 0,
        rowsMatched: s?.rowsMatched ?? 0,
        blocksExamined: s?.blocksExamined ?? 0,
        numGroups: s?.numGroups ?? 0,
        cacheStatus: s?.cacheStatus ?? 0,
        isPartial: s?.isPartial === true,
        isEstimate: s?.isEstimate === true,
        messages: (s?.messages ?? []).map(m => ({ priority: m.priority, code: m.code, count: m.count, msg: m.msg })),
    };
    if (typeof s?.elapsedTime === 'number') stats.serviceMs = s.elapsedTime / 1000;
    if (typeof s?.blocksSkipped === 'number') stats.blocksSkipped = s.blocksSkipped;
    if (s?.minBlockTime && !s.minBlockTime.startsWith('0001-')) stats.minBlockTime = s.minBlockTime;
    if (s?.maxBlockTime && !s.maxBlockTime.startsWith('0001-')) stats.maxBlockTime = s.maxBlockTime;
    return stats;
}

/** The tables of a one-request result after its first, row-major, capped. */
export function extraTables(result: ResultSet): ExtraTableView[] {
    if (result.mode !== 'once') return [];
    return (result.first.tables ?? []).slice(1).map(t => {
        const columns = t.columns ?? [];
        const rowCount = columns[0]?.length ?? 0;
        const rows: unknown[][] = [];
        for (let r = 0; r < Math.min(rowCount, EXTRA_TABLE_ROWS); r++) rows.push(t.fields.map((_, c) => columns[c]?.[r] ?? null));
        return { name: t.name, fields: t.fields, rows, rowCount };
    });
}

export function runView(run: Run): RunView {
    const r = run.result;
    const status = r?.status;
    const view: RunView = {
        runId: run.id,
        state: run.state,
        query: run.request.text,
        connection: run.connection.name,
        range: run.range.label,
        fields: r?.fields ?? [],
        rowsMatched: r?.rowsMatched ?? 0,
        rowCount: r?.rowCount ?? 0,
        rowsLoaded: r?.rowsLoaded ?? 0,
        pageSize: r?.pageSize ?? run.pageSize,
        mode: r?.mode ?? '',
        requests: r?.requests ?? 0,
        elapsedMs: run.elapsedMs,
        startedAt: run.request.invokedAt ?? run.startedAt,
        truncated: r?.truncated ?? false,
        isPartial: status?.isPartial === true,
        isEstimate: status?.isEstimate === true,
        messages: (status?.messages ?? []).filter(m => m.priority !== 'trace' && m.priority !== 'debug').map(m => ({ priority: m.priority, msg: m.msg })),
    };
    if (r) {
        view.stats = queryStats(r);
        const tables = extraTables(r);
        if (tables.length > 0) view.tables = tables;
    }
    if (run.emptyHint) view.emptyHint = run.emptyHint;
    if (run.saved) view.saved = { ...run.saved };
    if (run.error) view.error = { message: run.error.message, line: run.error.location?.line, column: run.error.location?.column };
    if (!run.request.pageable) view.notPaged = run.request.notPageableReason ?? 'the result cannot be paged';
    if (r && r.mode === 'once' && run.request.timeColumn) {
        const page = r.store.peek(0);
        if (page) view.chart = chartData(run.request.timeColumn, page.fields, page.columns);
    }
    return view;
}

export class ResultsPanel implements vscode.WebviewViewProvider, vscode.Disposable {
    static readonly viewType = 'apl.results';
    private readonly webviews = new Set<vscode.Webview>();
    private run: Run | undefined;
    /** The current run's rows for column sorts (read whole on the first sort). */
    private sorted: { runId: number; rows: SortedRows } | undefined;
    private readonly disposables: vscode.Disposable[] = [];
    /** The last search of the current run: its matches serve Only matching rows. */
    private search: { runId: number; searchId: number; matches: number[]; sort: SortKey | undefined } | undefined;
    /** The column filters applied here: the rows that pass, as indexes in the grid's order. */
    private filtered: { runId: number; filterId: number; rows: number[]; sort: SortKey | undefined } | undefined;

    constructor(
        private readonly extensionUri: vscode.Uri,
        private readonly actions: ResultsActions,
    ) {}

    private panelView: vscode.WebviewView | undefined;

    resolveWebviewView(view: vscode.WebviewView): void {
        this.panelView = view;
        view.onDidDispose(() => {
            if (this.panelView === view) this.panelView = undefined;
        });
        this.attach(view.webview, view);
    }

    /** Reveals the Results view in the panel (nothing to do when it is in view: a run starts sooner). */
    async reveal(): Promise<void> {
        if (this.panelView?.visible) return;
        await vscode.commands.executeCommand(`${ResultsPanel.viewType}.focus`, { preserveFocus: true });
    }

    private attach(webview: vscode.Webview, owner: { onDidDispose(listener: () => void): vscode.Disposable }): void {
        const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
        webview.options = { enableScripts: true, localResourceRoots: [dist] };
        webview.html = webviewHtml({
            script: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
            style: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
            cspSource: webview.cspSource,
        });
        this.webviews.add(webview);
        const sub = webview.onDidReceiveMessage((m: ViewMessage) => this.onMessage(webview, m));
        owner.onDidDispose(() => {
            this.webviews.delete(webview);
            sub.dispose();
        });
    }

    /** Shows `run` (called when it starts and when it ends); a finished run carries its first block of rows. */
    show(run: Run): void {
        this.run = run;
        if (this.search && this.search.runId !== run.id) this.search = undefined;
        if (this.filtered && this.filtered.runId !== run.id) this.filtered = undefined;
        if (this.sorted && this.sorted.runId !== run.id) {
            this.sorted.rows.dispose();
            this.sorted = undefined;
        }
        this.post({ type: 'run', run: { ...this.viewWithRows(run), requestedAt: run.startedAt, postedAt: Date.now() } });
    }

    showTimeRange(timeRange: TimeRangeSpec): void {
        this.post({ type: 'timeRange', timeRange });
    }

    private view(run: Run): RunView {
        const settings = this.actions.settings?.() ?? DEFAULT_RESULTS_SETTINGS;
        const view: RunView = { ...runView(run), sortLimit: settings.sortLimit, timeZone: settings.timeZone };
        const choice = this.actions.chartChoices?.get(run.request.text);
        if (choice) view.chartChoice = choice;
        return view;
    }

    /** The view of `run` with, when it is done, its first block of rows and the rows its chart draws. */
    private viewWithRows(run: Run): RunView {
        const view = this.view(run);
        const first = run.result?.store.peek(0);
        if (run.state === 'done' && first && run.result) {
            // The first page is in memory: rows of it, in the webview's first block, need no request.
            view.firstRows = rowsOfFirstPage(run.result.fields, first, FIRST_BLOCK);
            if (isChartable(run.result.fields)) {
                view.chartable = true;
                if (run.result.mode === 'once') view.chartRows = rowsOfFirstPage(run.result.fields, first, CHART_MAX_ROWS);
            }
        }
        return view;
    }

    private sortedRows(run: Run): SortedRows {
        if (!this.sorted || this.sorted.runId !== run.id) {
            this.sorted?.rows.dispose();
            const limit = (this.actions.settings?.() ?? DEFAULT_RESULTS_SETTINGS).sortLimit;
            this.sorted = { runId: run.id, rows: new SortedRows(run.result!, run.result!.rowCount, limit) };
        }
        return this.sorted.rows;
    }

    /**
     * Rows `start` .. `end`-1 of the grid's view: the rows that pass the filter, then among them the
     * search's matches (Only matching rows). Contiguous runs of rows are read together.
     */
    private async viewRows(run: Run, m: { start: number; end: number; sort?: SortKey; only?: number; filter?: number }): Promise<{ rows: unknown[][]; rowCount: number }> {
        const f = m.filter !== undefined ? this.filtered : undefined;
        if (m.filter !== undefined && (!f || f.runId !== run.id || f.filterId !== m.filter)) throw new Error('the filters changed: filter again');
        const s = m.only !== undefined ? this.search : undefined;
        if (m.only !== undefined && (!s || s.runId !== run.id || s.searchId !== m.only)) throw new Error('the search changed: search again');
        const positions = s ? s.matches : undefined;
        const count = positions ? positions.length : f!.rows.length;
        const wanted: number[] = [];
        for (let i = m.start; i < Math.min(m.end, count); i++) {
            const p = positions ? positions[i] : i;
            wanted.push(f ? f.rows[p] : p);
        }
        const sort = f?.sort ?? s?.sort ?? m.sort;
        const rows: unknown[][] = [];
        for (let i = 0; i < wanted.length; ) {
            let j = i + 1;
            while (j < wanted.length && wanted[j] === wanted[j - 1] + 1) j++;
            rows.push(...(await this.rowsFor(run, wanted[i], wanted[j - 1] + 1, sort)).rows);
            i = j;
        }
        return { rows, rowCount: count };
    }

    /** Every row of the result in the grid's order, when the host can hold them all (the sort limit), else undefined. */
    private async allRows(run: Run, sort: SortKey | undefined): Promise<unknown[][] | undefined> {
        const sorted = this.sortedRows(run);
        if (!sorted.possible) return undefined;
        return sort ? sorted.rows(sort, 0, await sorted.count()) : sorted.allRows();
    }

    /** Applies the filters here when every row can be held (each becomes a `where` too, shown); else only the `where`. */
    private async applyFilters(run: Run, filterId: number, filters: ColumnFilter[], sort: SortKey | undefined): Promise<FilterResultView> {
        const result = run.result!;
        const types = new Map(result.fields.map(f => [f.name, f.type]));
        const where = filtersClause(filters, types);
        const base = run.request.sortBase ?? run.request.text;
        const view: FilterResultView = { runId: run.id, filterId, local: false, rowCount: 0, where, serviceQuery: filters.length > 0 ? withFilter(base, where) : base };
        this.filtered = undefined;
        if (filters.length === 0) return { ...view, local: true, rowCount: result.rowCount };
        const all = await this.allRows(run, sort);
        if (!all) return { ...view, reason: `the result has more rows than VS Code holds for a filter (${result.rowCount.toLocaleString('en-US')}; the setting apl.results.sortLimit)` };
        let rows: number[];
        try {
            rows = filterRows(all, filters, result.fields);
        } catch (e) {
            // A regex JavaScript cannot read (RE2 syntax): the service applies it.
            return { ...view, reason: `VS Code cannot apply it (${e instanceof Error ? e.message : String(e)})` };
        }
        this.filtered = { runId: run.id, filterId, rows, sort };
        return { ...view, local: true, rowCount: rows.length };
    }

    /** A column's distinct values over every row when they can be held, else over the pages in memory. */
    private async distinct(run: Run, field: string): Promise<DistinctValuesView> {
        const result = run.result!;
        const column = result.fields.findIndex(f => f.name === field);
        if (column < 0) throw new RangeError(`the result has no field named ${field}`);
        let rows = await this.allRows(run, undefined);
        const complete = rows !== undefined;
        if (!rows) rows = (await Promise.all(result.heldPages().map(p => result.rows(p.start, p.start + p.page.rows)))).flat();
        const { values, distinct } = distinctValues(rows, column, DISTINCT_SENT);
        return { runId: run.id, field, values, distinct, rowsCounted: rows.length, complete };
    }

    /** Searches the rows held here, in the grid's order: a sorted result has every row in memory, else the pages held. */
    private async searchRun(run: Run, searchId: number, term: string, sort: SortKey | undefined, filter: number | undefined): Promise<SearchResultView> {
        const result = run.result!;
        let found: { matches: number[]; rowsSearched: number; complete: boolean };
        const f = this.filtered;
        if (filter !== undefined) {
            // Among the rows that pass the filters (all held here): positions in the filtered grid.
            if (!f || f.runId !== run.id || f.filterId !== filter) throw new Error('the filters changed: search again');
            const all = (await this.allRows(run, f.sort))!;
            const rows = f.rows.map(i => all[i]);
            found = { matches: searchRowMajor(rows, term), rowsSearched: rows.length, complete: true };
        } else if (sort) {
            const sorted = this.sortedRows(run);
            const all = await sorted.rows(sort, 0, await sorted.count());
            found = { matches: searchRowMajor(all, term), rowsSearched: all.length, complete: true };
        } else {
            found = searchHeld(result, term);
        }
        this.search = { runId: run.id, searchId, matches: found.matches, sort };
        return {
            runId: run.id,
            searchId,
            term,
            matches: found.matches.slice(0, MATCHES_SENT),
            matchCount: found.matches.length,
            rowsSearched: found.rowsSearched,
            complete: found.complete,
            serviceQuery: serviceSearchQuery(run.request.sortBase ?? run.request.text, term),
        };
    }

    /** Rows for the grid: the result's own order, or `sort`'s. */
    private async rowsFor(run: Run, start: number, end: number, sort: SortKey | undefined): Promise<{ rows: unknown[][]; rowCount: number }> {
        const result = run.result!;
        if (!sort) return { rows: await result.rows(start, end), rowCount: result.rowCount };
        const sorted = this.sortedRows(run);
        const rows = await sorted.rows(sort, start, end);
        return { rows, rowCount: await sorted.count() };
    }

    private post(message: HostMessage): void {
        for (const w of this.webviews) void w.postMessage(message);
    }

    private async onMessage(webview: vscode.Webview, m: ViewMessage): Promise<void> {
        const run = this.run;
        switch (m.type) {
            case 'ready':
                // A view opened after the run (or opened again) gets what a view open at its end got.
                void webview.postMessage({ type: 'init', timeRange: this.actions.timeRange(), run: run ? this.viewWithRows(run) : undefined } satisfies HostMessage);
                if (!run) void this.actions.recallLast?.().catch(() => undefined);
                return;
            case 'getRows': {
                // Always answered: the grid waits for every block it asked for.
                if (!run?.result || run.id !== m.runId) {
                    void webview.postMessage({ type: 'rowsFailed', runId: m.runId, requestId: m.requestId, message: 'these rows belong to an earlier run', stale: true } satisfies HostMessage);
                    return;
                }
                try {
                    const { rows, rowCount } = m.only !== undefined || m.filter !== undefined ? await this.viewRows(run, m) : await this.rowsFor(run, m.start, m.end, m.sort);
                    const message: HostMessage = { type: 'rows', runId: m.runId, requestId: m.requestId, start: m.start, rows, rowCount, rowsLoaded: run.result.rowsLoaded, requests: run.result.requests, sort: m.sort };
                    void webview.postMessage(message);
                } catch (e) {
                    void webview.postMessage({ type: 'rowsFailed', runId: m.runId, requestId: m.requestId, message: e instanceof Error ? e.message : String(e), stale: this.run !== run } satisfies HostMessage);
                }
                return;
            }
            case 'copyRows': {
                if (!run?.result || run.id !== m.runId) return;
                const sorted = [...m.rows].sort((a, b) => a - b);
                const rows: unknown[][] = [];
                for (const i of sorted) rows.push(...(await this.rowsFor(run, i, i + 1, m.sort)).rows);
                await vscode.env.clipboard.writeText(formatRows(run.result.fields.map(f => f.name), rows, m.format, m.headers, { formulaGuard: csvFormulaGuard() }));
                void vscode.window.setStatusBarMessage(`APL: copied ${rows.length} row${rows.length === 1 ? '' : 's'} as ${m.format.toUpperCase()}`, 3000);
                return;
            }
            case 'search': {
                if (!run?.result || run.id !== m.runId) return;
                try {
                    void webview.postMessage({ type: 'searchResult', result: await this.searchRun(run, m.searchId, m.term, m.sort, m.filter) } satisfies HostMessage);
                } catch (e) {
                    void webview.postMessage({ type: 'searchFailed', runId: m.runId, searchId: m.searchId, message: e instanceof Error ? e.message : String(e) } satisfies HostMessage);
                }
                return;
            }
            case 'filters': {
                if (!run?.result || run.id !== m.runId) return;
                try {
                    void webview.postMessage({ type: 'filterResult', result: await this.applyFilters(run, m.filterId, m.filters, m.sort) } satisfies HostMessage);
                } catch (e) {
                    const where = filtersClause(m.filters, new Map(run.result.fields.map(f => [f.name, f.type])));
                    void webview.postMessage({ type: 'filterResult', result: { runId: run.id, filterId: m.filterId, local: false, rowCount: 0, where, serviceQuery: withFilter(run.request.sortBase ?? run.request.text, where), reason: e instanceof Error ? e.message : String(e) } } satisfies HostMessage);
                }
                return;
            }
            case 'distinct': {
                if (!run?.result || run.id !== m.runId) return;
                try {
                    void webview.postMessage({ type: 'distinctValues', result: await this.distinct(run, m.field) } satisfies HostMessage);
                } catch {
                    // The list stays empty: the filter by text or range still works.
                }
                return;
            }
            case 'columnStats': {
                const field = run?.result?.fields.find(f => f.name === m.field);
                if (!run || run.id !== m.runId || !field || !this.actions.queryAside) return;
                const query = columnStatsQuery(run.request.sortBase ?? run.request.text, field.name, field.type);
                try {
                    const answer = await this.actions.queryAside(query);
                    const table = answer.tables?.[0];
                    const pairs = table ? statsPairs(table.fields, table.columns ?? []) : [];
                    void webview.postMessage({ type: 'columnStats', runId: m.runId, field: m.field, query, pairs } satisfies HostMessage);
                } catch (e) {
                    void webview.postMessage({ type: 'columnStats', runId: m.runId, field: m.field, query, error: e instanceof Error ? e.message : String(e) } satisfies HostMessage);
                }
                return;
            }
            case 'groupOnService': {
                const field = run?.result?.fields.find(f => f.name === m.field);
                if (!run || run.id !== m.runId || !field || !this.actions.queryAside) return;
                const query = groupCountQuery(run.request.sortBase ?? run.request.text, field.name, SERVICE_GROUPS_SENT);
                let answer: HostMessage;
                try {
                    const table = (await this.actions.queryAside(query)).tables?.[0];
                    const { groups, more } = groupCounts(field.name, table?.fields ?? [], table?.columns ?? [], SERVICE_GROUPS_SENT);
                    answer = { type: 'serviceGroups', runId: m.runId, field: m.field, query, groups, more };
                } catch (e) {
                    answer = { type: 'serviceGroups', runId: m.runId, field: m.field, query, error: e instanceof Error ? e.message : String(e) };
                }
                void webview.postMessage(answer);
                return;
            }
            case 'runQuery':
                this.actions.runQuery?.(m.text);
                return;
            case 'copyText':
                await vscode.env.clipboard.writeText(m.text);
                return;
            case 'filter': {
                const field = run?.result?.fields.find(f => f.name === m.field);
                if (run && run.id === m.runId && field) this.actions.filter(field.name, field.type, m.value, m.path);
                return;
            }
            case 'zoom':
                if (run && run.id === m.runId) this.actions.zoom(m.start, m.end);
                return;
            case 'cancel':
                this.actions.cancel();
                return;
            case 'rerun':
                this.actions.rerun();
                return;
            case 'export':
                this.actions.exportResults(m.format);
                return;
            case 'timeRange':
                this.actions.setTimeRange(m.timeRange);
                return;
            case 'openInEditor':
                // The rows as text (JSON) in an untitled editor: the extension's command does it.
                void vscode.commands.executeCommand('apl.openResultsInEditor');
                return;
            case 'painted':
                this.actions.painted(m.runId, m.at);
                return;
            case 'chartChoice':
                await this.actions.chartChoices?.set(m.query, m.choice);
                return;
            case 'saveChart':
                await this.saveChart(m.format, m.data);
                return;
            case 'chartRows': {
                const first = run?.result?.store.peek(0);
                if (!run?.result || run.id !== m.runId || !first) return;
                void webview.postMessage({ type: 'chartRows', runId: run.id, rows: rowsOfFirstPage(run.result.fields, first, CHART_MAX_ROWS) } satisfies HostMessage);
                return;
            }
            case 'compare': {
                const offset = compareOffset(m.offset);
                if (!run || run.id !== m.runId || !offset || !this.actions.earlierPeriod) return;
                let answer: HostMessage;
                try {
                    const { fields, rows } = await this.actions.earlierPeriod(run, offset.ms);
                    answer = { type: 'earlierPeriod', runId: run.id, offset: offset.key, fields, rows };
                } catch (e) {
                    answer = { type: 'earlierPeriod', runId: run.id, offset: offset.key, fields: [], rows: [], error: e instanceof Error ? e.message : String(e) };
                }
                void webview.postMessage(answer);
                return;
            }
            case 'command':
                if (m.command === 'apl.copyQueryAs' || m.command === 'apl.saveResult') void vscode.commands.executeCommand(m.command);
                return;
        }
    }

    /** Saves the chart image the webview drew to a file the user picks. */
    private async saveChart(format: 'svg' | 'png', data: string): Promise<void> {
        let bytes: Uint8Array;
        try {
            bytes = chartImageBytes(format, data);
        } catch (e) {
            void vscode.window.showErrorMessage(`APL: the chart could not be saved: ${e instanceof Error ? e.message : String(e)}.`);
            return;
        }
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const name = `apl-chart-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.${format}`;
        const target = await vscode.window.showSaveDialog({ defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined, filters: { [format.toUpperCase()]: [format] }, saveLabel: 'Save chart', title: `Save the chart as ${format.toUpperCase()}` });
        if (!target) return;
        await vscode.workspace.fs.writeFile(target, bytes);
        void vscode.window.setStatusBarMessage(`APL: saved the chart to ${target.fsPath}`, 5000);
    }

    dispose(): void {
        for (const d of this.disposables) d.dispose();
    }
}
