/**
 * The UI half of the results: the Results view in the panel and any "open in editor" tabs, all
 * showing the current run. It turns runs into `RunView`s, answers every row request of the webview
 * (from the run's `ResultSet`, in a column's order through `SortedRows`, or with a failure when the
 * request belongs to an earlier run: a grid left waiting stops asking), and hands the webview's
 * actions (copy, filter, zoom, export, time range) to the extension through `ResultsActions`.
 */
import * as vscode from 'vscode';
import type { HostMessage, RunView, ViewMessage } from '../protocol.js';
import type { Run } from '../query/query-runner.js';
import type { TimeRangeSpec } from '../time-range.js';
import { chartData } from './chart-data.js';
import { chartImageBytes } from './chart-file.js';
import type { TableField } from '../../../api/types.js';
import type { ChartChoice } from './chart-spec.js';
import { compareOffset, isChartable } from './chart-spec.js';
import { formatRows } from './copy-format.js';
import type { ExportFormat } from './export-writer.js';
import type { ResultPage } from './result-set.js';
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
    filter(field: string, type: string, value: unknown): void;
    painted(runId: number, at: number): void;
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
    if (run.emptyHint) view.emptyHint = run.emptyHint;
    if (run.saved) {
        const { savedAt, rowsSaved, rowCount } = run.saved;
        const of = rowsSaved < rowCount ? `the first ${rowsSaved.toLocaleString('en-US')} of ${rowCount.toLocaleString('en-US')} rows` : `all ${rowsSaved.toLocaleString('en-US')} rows`;
        view.messages.push({ priority: 'info', msg: `a saved result (${savedAt}), ${of}, shown without running the query; Run runs it again` });
    }
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

    constructor(
        private readonly extensionUri: vscode.Uri,
        private readonly actions: ResultsActions,
    ) {}

    resolveWebviewView(view: vscode.WebviewView): void {
        this.attach(view.webview, view);
    }

    /** Reveals the Results view in the panel. */
    async reveal(): Promise<void> {
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
        if (this.sorted && this.sorted.runId !== run.id) {
            this.sorted.rows.dispose();
            this.sorted = undefined;
        }
        this.post({ type: 'run', run: this.viewWithRows(run) });
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
                return;
            case 'getRows': {
                // Always answered: the grid waits for every block it asked for.
                if (!run?.result || run.id !== m.runId) {
                    void webview.postMessage({ type: 'rowsFailed', runId: m.runId, requestId: m.requestId, message: 'these rows belong to an earlier run', stale: true } satisfies HostMessage);
                    return;
                }
                try {
                    const { rows, rowCount } = await this.rowsFor(run, m.start, m.end, m.sort);
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
            case 'copyText':
                await vscode.env.clipboard.writeText(m.text);
                return;
            case 'filter': {
                const field = run?.result?.fields.find(f => f.name === m.field);
                if (run && run.id === m.runId && field) this.actions.filter(field.name, field.type, m.value);
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
