/**
 * The results webview: a toolbar (time range, run, cancel, paging, export, copy) in VS Code's look,
 * a status line, and the views of the result as tabs: Results (a virtualized grid, AG Grid Community,
 * infinite row model, whose rows are asked from the extension host block by block, with a search
 * bar over it), the result's other tables, Chart (its panel `apl-chart-panel` holds the chart) and
 * Stats (stats-view.ts). Everything is bundled (no
 * CDN); styles come from VS Code's `--vscode-*` theme variables; inline styles carry the CSP nonce.
 *
 * The grid belongs to one run at a time. A new run fails every block still awaited, clears the sort
 * and gives the grid a new data source; until it is done the grid is hidden, so a failed or
 * cancelled run never leaves the previous rows on screen. A header click sorts the whole result in
 * the extension host (src/results/sorted-rows.ts): the grid asks for blocks in that order, from the
 * top; removing the sort gives back the result's own order.
 */
import {
    AllCommunityModule,
    createGrid,
    ModuleRegistry,
    themeQuartz,
    type CellFocusedEvent,
    type ColDef,
    type ICellRendererComp,
    type ICellRendererParams,
    type GridApi,
    type IDatasource,
    type IGetRowsParams,
    type SortModelItem,
} from 'ag-grid-community';
import type { DistinctValuesView, ExtraTableView, FilterResultView, HostMessage, RunView, SearchResultView, ViewMessage } from '../src/protocol.js';
import type { ColumnFilter } from '../src/results/column-filter.js';
import { cellSearchText } from '../src/results/row-search.js';
import { selectionStats, selectionStatsText } from '../src/results/selection-stats.js';
import { presetLabel, TIME_PRESETS, type TimeRangeSpec } from '../src/time-range.js';
import type { SortKey } from '../src/results/sorted-rows.js';
import type { ExportFormat } from '../src/results/export-writer.js';
import { cellText, columnWidth, detailText, fullText, headerText, isNumericType, type Measure, type TimeZone } from './cell-format.js';
import { ChartView } from './chart-view.js';
import { button, checkbox, select, setEnabled, textField } from './controls.js';
import { createFilterBar, type ColumnAction } from './filter-bar.js';
import { JsonPopup } from './json-popup.js';
import { overflowToolbar } from './overflow-menu.js';
import { detailsSplit } from './details-split.js';
import { jsonLeaves } from '../src/results/json-path.js';
import { renderStats } from './stats-view.js';
import { fmt, runNotes, statusText, type SortShown } from './status-text.js';
import { createTabs } from './tabs.js';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

ModuleRegistry.registerModules([AllCommunityModule]);

const vscode = acquireVsCodeApi();
const nonce = document.body.dataset.nonce ?? '';
const post = (m: ViewMessage) => vscode.postMessage(m);

/** Rows per block the grid asks for: small enough for a quick first paint and a light websocket message. */
const BLOCK_SIZE = 250;
/** Blocks the grid keeps (about 10,000 rows): the webview's memory stays bounded whatever the row count. */
const MAX_BLOCKS = 40;
/** Rows drawn past each edge of the viewport (AG Grid's default), for smooth scrolling. */
const ROW_BUFFER = 10;


function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
}

// ------------------------------------------------------------------------------------ layout

const app = document.getElementById('app')!;
const toolbar = el('div', { class: 'toolbar results-toolbar', role: 'toolbar', 'aria-label': 'Results' });
const rangeSelect = select('Time range', [...TIME_PRESETS.map(p => [p, presetLabel(p)] as const), ['custom', 'Custom…']], { 'data-testid': 'apl-time-range' });
const customStart = textField('Start time (RFC 3339)', 'start, e.g. 2026-01-01T00:00:00Z');
const customEnd = textField('End time (RFC 3339)', 'end');
const applyCustom = button('Apply', 'Apply the custom time range', () => {
    const start = customStart.value.trim();
    const end = customEnd.value.trim();
    if (!Number.isFinite(Date.parse(start)) || !Number.isFinite(Date.parse(end)) || Date.parse(start) >= Date.parse(end)) {
        showNote('The custom range needs a start before its end, as RFC 3339 times (2026-01-01T00:00:00Z).');
        return;
    }
    zoomedFrom = undefined;
    post({ type: 'timeRange', timeRange: { start, end } });
});
for (const e of [customStart, customEnd, applyCustom]) e.classList.add('custom');
const runButton = button('Run', 'Run the query again', () => post({ type: 'rerun' }), true);
const cancelButton = button('Cancel', 'Cancel the running query', () => post({ type: 'cancel' }));
// Short on screen (the toolbar holds on one row in a panel beside the side bar), named in full.
const prevButton = button('‹ Page', 'Scroll to the previous page of rows', () => goToPage(-1));
prevButton.setAttribute('aria-label', 'Previous page');
const nextButton = button('Page ›', 'Scroll to the next page of rows', () => goToPage(1));
nextButton.setAttribute('aria-label', 'Next page');
const exportFormat = select('Export format', [['csv', 'CSV'], ['ndjson', 'NDJSON'], ['json', 'JSON'], ['xlsx', 'Excel'], ['parquet', 'Parquet']]);
const exportButton = button('Export', 'Save every row of the result to a file', () => post({ type: 'export', format: exportFormat.value as ExportFormat }));
const copyFormat = select('Copy format', [['tsv', 'TSV'], ['csv', 'CSV'], ['json', 'JSON'], ['markdown', 'Markdown']]);
const copyHeaders = checkbox('headers', true);
const copyButton = button('Copy rows', 'Copy the selected rows (click a row, Shift or Ctrl+click for more)', () => copySelection());
const editorButton = button('Open in editor', 'Open the rows as JSON text in a new editor', () => post({ type: 'openInEditor' }));
const shareButton = button('Share…', 'Copy the query as an Axiom Console link, a curl command or an @axiomhq/js snippet (without the token)', () => post({ type: 'command', command: 'apl.copyQueryAs' }));
const saveResultButton = button('Save result…', 'Save the query, its time range and the loaded rows to a .aplr file', () => post({ type: 'command', command: 'apl.saveResult' }));
const resetZoomButton = button('Reset zoom', 'Go back to the time range before the zoom (or double-click the chart)', () => resetZoom());
resetZoomButton.hidden = true;
/** A label that a narrow panel shortens (styles.css, by the view bar's width); the name stays the long one. */
function shortLabel(b: HTMLElement, long: string, short: string): void {
    b.setAttribute('aria-label', long);
    b.replaceChildren(el('span', { class: 'long-label' }, long), el('span', { class: 'short-label' }, short));
}
const group = (...children: HTMLElement[]) => {
    const g = el('div', { class: 'group' });
    g.append(...children);
    return g;
};
const rangeGroup = group(rangeSelect, customStart, customEnd, applyCustom, resetZoomButton);
const copyGroup = group(copyFormat, copyHeaders, copyButton, editorButton);
const shareGroup = group(shareButton, saveResultButton);
toolbar.append(rangeGroup, group(runButton, cancelButton), group(prevButton, nextButton), group(exportFormat, exportButton), copyGroup, shareGroup);
/**
 * In a narrow panel the toolbar keeps one row: Share/Save go into More actions first, then copying, the
 * export's format and the time range; Run, Cancel, paging and Export always stay.
 */
const toolbarFit = overflowToolbar(toolbar, [shareGroup, copyGroup, exportFormat, rangeGroup]);
// Measured again once the controls have drawn themselves (web components: their width comes a moment later).
void customElements.whenDefined('vscode-button').then(() => requestAnimationFrame(() => toolbarFit.update()));

const status = el('div', { 'data-testid': 'apl-status', 'data-state': 'idle', role: 'status', 'aria-live': 'polite', class: 'status' }, 'No query run yet. Press Ctrl+Enter in an .apl file.');
const notes = el('div', { class: 'notes', 'aria-live': 'polite' });
/** Statistics of the selected cells (the focused cell's column over the selected rows). */
const selectionLine = el('div', { 'data-testid': 'apl-selection-stats', class: 'selection-stats', 'aria-live': 'polite' });
const filterToSelection = button('Filter to selection', 'Keep the rows whose value in this column is one of the selected cells (== or in)', () => selectionFilter(false));
const excludeSelection = button('Exclude selection', 'Leave out the rows whose value in this column is one of the selected cells (!= or !in)', () => selectionFilter(true));
const selectionBar = el('div', { class: 'selection-bar' });
selectionBar.append(selectionLine, filterToSelection, excludeSelection);
selectionBar.hidden = true;
const chartBox = el('div', { 'data-testid': 'apl-chart', class: 'chart', role: 'img', 'aria-label': 'Time series chart' });
chartBox.hidden = true;
const noChart = el('p', { class: 'placeholder' }, 'No chart for this result: a chart needs a numeric column.');
/** The Chart tab's panel: the chart module renders into it. */
const chartPanel = el('div', { id: 'apl-chart-panel', class: 'panel chart-panel' });
const chartView = new ChartView(chartBox, { post, zoomTo, resetZoom, note: showNote });
chartPanel.append(chartView.element, noChart);
const statsPanel = el('div', { id: 'apl-stats-panel', class: 'panel stats-panel' });
const resultsPanel = el('div', { id: 'apl-results-panel', class: 'panel results-panel' });
const searchBar = el('div', { class: 'search-bar', role: 'search' });
const searchField = textField('Search results', 'Search the rows (Ctrl+F)');
// Arrows, as in VS Code's find widget (and short in a narrow panel), named in full.
const prevMatchButton = button('↑', 'Go to the previous matching row (Shift+Enter)', () => goToMatch(-1));
prevMatchButton.setAttribute('aria-label', 'Previous match');
const nextMatchButton = button('↓', 'Go to the next matching row (Enter)', () => goToMatch(1));
nextMatchButton.setAttribute('aria-label', 'Next match');
const onlyMatchingButton = button('Only matching rows', 'Show only the rows that match the search', () => setOnlyMatching(!onlyMatching));
onlyMatchingButton.setAttribute('aria-pressed', 'false');
const searchInfo = el('span', { class: 'search-info', 'data-testid': 'apl-search-info', 'aria-live': 'polite' });
const toolsButton = button('Filters and columns', 'Show or hide the column filters and column tools (statistics, pin, hide, group)', () => {
    const open = toolsButton.getAttribute('aria-expanded') !== 'true';
    toolsButton.setAttribute('aria-expanded', String(open));
    filterBar.toggleEditor(open);
});
toolsButton.setAttribute('aria-expanded', 'false');
shortLabel(toolsButton, 'Filters and columns', 'Filters');
shortLabel(onlyMatchingButton, 'Only matching rows', 'Only matching');
searchBar.append(searchField, prevMatchButton, nextMatchButton, onlyMatchingButton, toolsButton, searchInfo);
/** The same search on the service: the query shown, run only when asked. */
const serviceSearch = el('div', { class: 'service-search', 'data-testid': 'apl-service-search' });
serviceSearch.hidden = true;
const main = el('div', { class: 'main' });
const gridBox = el('div', { class: 'grid' });
const details = el('aside', { class: 'details', id: 'apl-row-details', 'aria-label': 'Row details' });
details.hidden = true;
/** The grid, and the row details docked under it (details-split.ts): they never cover a column or the row they show. */
const split = detailsSplit(gridBox, details, {
    chosenHeight: (vscode.getState() as { detailsHeight?: number } | undefined)?.detailsHeight,
    onResize: height => {
        vscode.setState({ ...((vscode.getState() as object | undefined) ?? {}), detailsHeight: height });
        revealDetailsRow();
    },
});
main.append(split);
main.hidden = true;
const filterBar = createFilterBar({
    onChange: filters => applyFilters(filters),
    askDistinct: field => run && post({ type: 'distinct', runId: run.runId, field }),
    runQuery: text => post({ type: 'runQuery', text }),
    columnAction: (action, field) => columnAction(action, field),
    columnStats: field => {
        if (!run) return;
        columnStatsBox.hidden = false;
        columnStatsBox.replaceChildren(el('p', {}, `Computing the statistics of ${headerText(field)} on the service…`));
        post({ type: 'columnStats', runId: run.runId, field });
    },
});
/** Column statistics from the service, with the query that computed them. */
const columnStatsBox = el('section', { class: 'column-stats', 'data-testid': 'apl-column-stats', 'aria-label': 'Column statistics', 'aria-live': 'polite' });
columnStatsBox.hidden = true;
/**
 * The column filters and tools and their answers sit beside the grid, scrolling on their own: the grid
 * keeps its height in a short panel (styles.css hides the side while it shows nothing).
 */
const side = el('div', { class: 'side' });
side.append(filterBar.element, columnStatsBox);
main.append(side);
resultsPanel.append(serviceSearch, main);
const tabs = createTabs('Result views', id => onTabSelected(id));
/** The tabs and, beside them, the search of the Results tab: one row, so a panel of default height keeps room for rows. */
const viewBar = el('div', { class: 'view-bar' });
viewBar.append(tabs.list, searchBar);
/** Said to screen readers (a column moved by the keyboard). */
const announcer = el('div', { class: 'announce', 'data-testid': 'apl-announce', role: 'status', 'aria-live': 'polite' });
const panels = el('div', { class: 'panels' });
panels.append(resultsPanel, chartPanel, statsPanel);
tabs.add('results', 'Results', resultsPanel);
tabs.add('chart', 'Chart', chartPanel);
tabs.add('stats', 'Stats', statsPanel);
// The selection's statistics on the status line's row (wrapping under it when there is no room): a row saved for the grid.
const statusRow = el('div', { class: 'status-row' });
statusRow.append(status, selectionBar);
app.append(toolbar, statusRow, notes, viewBar, panels, announcer);
renderStats(statsPanel, undefined);

function onTabSelected(id: string): void {
    searchBar.hidden = id !== 'results';
    if (id === 'stats') renderStats(statsPanel, run);
    if (id === 'chart') chartView.inView();
}

// Ctrl+F anywhere in the view goes to the search field. Stopped here, before VS Code's own listener on
// the window, which would hand the key to the workbench (and open the editor's Find).
document.addEventListener('keydown', e => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        e.stopPropagation();
        tabs.select('results');
        searchField.focus();
    }
});

let currentRange: TimeRangeSpec | undefined;
/** The time range before the first drag-zoom (Reset zoom goes back to it). */
let zoomedFrom: TimeRangeSpec | undefined;

rangeSelect.addEventListener('change', () => {
    const custom = rangeSelect.value === 'custom';
    for (const e of [customStart, customEnd, applyCustom]) e.classList.toggle('shown', custom);
    if (!custom) {
        zoomedFrom = undefined;
        post({ type: 'timeRange', timeRange: { preset: rangeSelect.value as '1h' } });
    }
});

function showTimeRange(range: TimeRangeSpec): void {
    currentRange = range;
    if ('preset' in range) {
        rangeSelect.value = range.preset;
        for (const e of [customStart, customEnd, applyCustom]) e.classList.remove('shown');
    } else {
        rangeSelect.value = 'custom';
        customStart.value = range.start;
        customEnd.value = range.end;
        for (const e of [customStart, customEnd, applyCustom]) e.classList.add('shown');
    }
    resetZoomButton.hidden = !zoomedFrom;
}

function zoomTo(start: string, end: string): void {
    if (!run) return;
    zoomedFrom ??= currentRange;
    post({ type: 'zoom', runId: run.runId, start, end });
}

function resetZoom(): void {
    const back = zoomedFrom;
    if (!back) return;
    zoomedFrom = undefined;
    resetZoomButton.hidden = true;
    post({ type: 'timeRange', timeRange: back });
}

function showNote(text: string, kind: 'info' | 'warn' | 'error' = 'info'): void {
    const p = el('p', { class: kind }, text);
    notes.append(p);
}

// -------------------------------------------------------------------------------------- grid

let run: RunView | undefined;
let api: GridApi<unknown[]> | undefined;
let requestId = 0;
/** Every block the grid asked for and is waiting for: each is answered, failed, or failed when a new run comes. */
const pending = new Map<number, { params: IGetRowsParams; runId: number; exact: boolean }>();
let painted = false;
/** When the finished run reached the view (to tell the drawing time from the transport time). */
let doneAt = 0;
/** The sort the grid asks for, and whether its rows have come. */
let sortShown: SortShown | undefined;
/** A sort asked for the top: scroll there once its first block is in. */
let scrollToTopOnRows = false;
/** The run whose columns were fitted to its rows. */
let fittedRunId = -1;

const theme = themeQuartz.withParams({
    backgroundColor: 'var(--vscode-editor-background)',
    foregroundColor: 'var(--vscode-editor-foreground)',
    headerBackgroundColor: 'var(--vscode-editorGroupHeader-tabsBackground, var(--vscode-editor-background))',
    headerTextColor: 'var(--vscode-foreground)',
    borderColor: 'var(--vscode-panel-border, var(--vscode-widget-border, #8884))',
    accentColor: 'var(--vscode-focusBorder)',
    rowHoverColor: 'var(--vscode-list-hoverBackground)',
    selectedRowBackgroundColor: 'var(--vscode-list-inactiveSelectionBackground)',
    fontFamily: 'var(--vscode-editor-font-family, monospace)',
    fontSize: 'var(--vscode-editor-font-size, 13px)',
    spacing: 4,
    wrapperBorderRadius: 0,
});

/** A measure with the grid's fonts (read from VS Code's theme variables). */
function canvasMeasure(cellFont: string, headerFont: string): Measure {
    const ctx = document.createElement('canvas').getContext('2d');
    const widths = new Map<string, number>();
    const measure = (font: string, s: string) => {
        if (!ctx) return s.length * 8;
        const key = `${font}\u0000${s}`;
        let w = widths.get(key);
        if (w === undefined) {
            ctx.font = font;
            w = ctx.measureText(s).width;
            if (widths.size > 5000) widths.clear();
            widths.set(key, w);
        }
        return w;
    };
    return { text: s => measure(cellFont, s), header: s => measure(headerFont, s) };
}

let measure: Measure | undefined;
function textMeasure(): Measure {
    if (!measure) {
        const css = getComputedStyle(document.body);
        const family = css.getPropertyValue('--vscode-editor-font-family').trim() || 'monospace';
        const size = css.getPropertyValue('--vscode-editor-font-size').trim() || '13px';
        measure = canvasMeasure(`${size} ${family}`, `600 ${size} ${family}`);
    }
    return measure;
}

const zoneOf = (view: RunView): TimeZone => view.timeZone ?? 'utc';

function columnDefs(view: RunView, rows: readonly unknown[][] | undefined): ColDef<unknown[]>[] {
    const sortable = view.rowCount <= (view.sortLimit ?? Infinity);
    const zone = zoneOf(view);
    const m = textMeasure();
    const rowNumber: ColDef<unknown[]> = {
        colId: '#',
        headerName: '#',
        valueGetter: p => (p.node?.rowIndex ?? 0) + 1,
        width: columnWidth('#', [fmt(view.rowCount)], m),
        sortable: false,
        resizable: true,
        pinned: 'left',
        cellClass: ['row-number', 'num'],
    };
    return [
        rowNumber,
        ...view.fields.map((f, i): ColDef<unknown[]> => {
            const numeric = isNumericType(f.type);
            const texts = rows ? rows.map(r => cellText(r[i], f.type, zone)) : [];
            return {
                colId: f.name,
                headerName: headerText(f.name),
                headerTooltip: sortable ? `${headerText(f.name)} (${f.type}): click to sort` : `${headerText(f.name)} (${f.type}); a result of more than ${fmt(view.sortLimit ?? 0)} rows is sorted in the query (| sort by)`,
                valueGetter: p => p.data?.[i] ?? null,
                valueFormatter: p => cellText(p.value, f.type, zone),
                sortable,
                sortingOrder: ['asc', 'desc', null],
                resizable: true,
                width: columnWidth(headerText(f.name), texts, m),
                type: numeric ? 'rightAligned' : undefined,
                cellClass: numeric ? 'num' : undefined,
                cellClassRules: { 'search-hit': p => needle !== '' && cellSearchText(p.value).toLowerCase().includes(needle) },
                // A JSON value gets a toggle that expands it in place (Enter on the cell does too).
                cellRendererSelector: p => (p.value !== null && typeof p.value === 'object' ? { component: JsonCellRenderer } : undefined),
            };
        }),
    ];
}

/** Fits the columns to the first rows that came (when the run brought none). */
function fitColumns(view: RunView, rows: readonly unknown[][]): void {
    if (!api || fittedRunId === view.runId || rows.length === 0) return;
    fittedRunId = view.runId;
    const defs = columnDefs(view, rows);
    api.applyColumnState({ state: defs.map(d => ({ colId: d.colId!, width: d.width })) });
}

function sortKeyOf(model: SortModelItem[] | undefined): SortKey | undefined {
    const first = model?.[0];
    return first ? { field: first.colId, desc: first.sort === 'desc' } : undefined;
}

const sameSort = (a: SortKey | undefined, b: SortKey | undefined) => a?.field === b?.field && a?.desc === b?.desc;

/** Rows that came with the run: the first block is answered from them without a round trip. */
let preloaded: { runId: number; rows: unknown[][] } | undefined;

/**
 * Blocks the grid asked for while its run is still running (the grid is drawn before the first
 * block arrives): asked again, in the grid's order at that time, when the run is done.
 */
let waiting: { runId: number; params: IGetRowsParams; source: IDatasource }[] = [];

/** A run's data source; `runId` moves to the next run when its grid is refreshed in place (showGrid). */
interface RunSource extends IDatasource {
    runId: number;
    /** Every row of the run, in its own order: no search's matches, no filter. */
    readonly plain: boolean;
}

/** The data source the grid has now. */
let gridSource: RunSource | undefined;

/** The data source of one run (`only`: the matches of that search): blocks asked for another run are failed at once. */
function datasourceFor(runId: number, only?: number, filter?: number): RunSource {
    const source: RunSource = {
        runId,
        plain: only === undefined && filter === undefined,
        getRows(params: IGetRowsParams) {
            const runId = source.runId;
            if (run && run.runId === runId && run.state === 'running') {
                waiting.push({ runId, params, source });
                return;
            }
            if (!run || run.runId !== runId || run.state !== 'done') return params.failCallback();
            const sort = sortKeyOf(params.sortModel);
            if (only === undefined && filter === undefined && !sort && preloaded && preloaded.runId === runId && params.startRow === 0 && (preloaded.rows.length >= params.endRow || preloaded.rows.length === run.rowCount)) {
                const rows = preloaded.rows.slice(0, params.endRow);
                preloaded = undefined;
                params.successCallback(rows, rows.length < params.endRow ? rows.length : run.rowCount);
                onRowsShown(rows.length, undefined);
                return;
            }
            const id = ++requestId;
            pending.set(id, { params, runId, exact: only !== undefined || filter !== undefined });
            post({ type: 'getRows', runId, requestId: id, start: params.startRow, end: params.endRow, sort, only, filter });
        },
    };
    gridSource = source;
    return source;
}

/**
 * The blocks asked for while the run was running, now that it is done: those in the grid's order now
 * are asked for (the first from the rows that came with the run), the others (a sort chosen since,
 * whatever order the messages came in) are failed, the grid no longer wants them.
 */
function answerWaiting(): void {
    const all = waiting;
    waiting = [];
    const now = sortKeyOf(currentSortModel());
    for (const w of all) {
        if (run?.runId === w.runId && sameSort(sortKeyOf(w.params.sortModel), now)) w.source.getRows(w.params);
        else w.params.failCallback();
    }
}

function failWaiting(): void {
    const all = waiting;
    waiting = [];
    for (const w of all) w.params.failCallback();
}

function currentSortModel(): SortModelItem[] {
    const col = api?.getColumnState().find(c => c.sort);
    return col?.sort ? [{ colId: col.colId, sort: col.sort }] : [];
}

/** Fails every awaited block (the grid would otherwise wait for them and stop asking). */
function failPending(): void {
    const all = [...pending.values()];
    pending.clear();
    for (const p of all) p.params.failCallback();
    failWaiting();
}

let columnsShown = '';

const columnsSignature = (view: RunView) => view.fields.map(f => `${f.name}:${f.type}`).join('\n') + `\n${view.timeZone}\n${view.rowCount <= (view.sortLimit ?? Infinity)}`;

/** What a query's last result showed: a new run of it draws its grid with these columns before its first block arrives. */
type KnownColumns = Pick<RunView, 'fields' | 'rowCount' | 'sortLimit' | 'timeZone'>;
const knownColumns = new Map<string, KnownColumns>();
/** The run whose grid was drawn while it was running. */
let drawnEarly = -1;

function rememberColumns(view: RunView): void {
    knownColumns.delete(view.query);
    if (view.fields.length === 0) return;
    knownColumns.set(view.query, { fields: view.fields, rowCount: view.rowCount, sortLimit: view.sortLimit, timeZone: view.timeZone });
    // A few dozen queries are remembered, the oldest go first.
    for (const k of [...knownColumns.keys()].slice(0, Math.max(0, knownColumns.size - 50))) knownColumns.delete(k);
}

/**
 * Draws the grid of `view` (a running run's with the columns of its query's last result, or a
 * finished run's with its first rows). True when the grid was refreshed in place.
 */
function showGrid(view: RunView): boolean {
    const rows = view.firstRows;
    const signature = columnsSignature(view);
    if (api && !rows && signature === columnsShown && gridSource?.plain && !api.getColumnState().some(c => c.sort)) {
        // The same columns, unsorted, every row: the rows on screen stay (the view dims them) and are
        // refilled in place when the run's rows come. A new data source would throw every row's
        // cells away now and build them again then: about 10 ms on the thread the workbench shares,
        // in the way of the rows' own message (docs/benchmarks.md, first rows).
        gridSource.runId = view.runId;
        api.deselectAll();
        api.clearFocusedCell();
        api.refreshInfiniteCache();
        api.ensureIndexVisible(0, 'top');
        sortShown = undefined;
        return true;
    }
    if (!api) {
        api = createGrid<unknown[]>(gridBox, {
            theme,
            styleNonce: nonce,
            rowModelType: 'infinite',
            cacheBlockSize: BLOCK_SIZE,
            maxBlocksInCache: MAX_BLOCKS,
            maxConcurrentDatasourceRequests: 2,
            rowBuffer: ROW_BUFFER,
            // One placeholder row until a run's first block comes, not a screenful: each placeholder is a
            // row of cells drawn and then thrown away, and a grid drawn before its rows (a query run
            // before) was still drawing them when a quick run's rows came (the first paint waited).
            infiniteInitialRowCount: 1,
            columnDefs: columnDefs(view, rows),
            rowSelection: { mode: 'multiRow', checkboxes: false, headerCheckbox: false, enableClickSelection: true },
            suppressMultiSort: true,
            // Tab leaves the grid (to the row details, the next controls): arrows move between cells (ARIA grid).
            tabToNextCell: () => false,
            tabToNextHeader: () => false,
            onSortChanged: () => onSort(),
            onCellFocused: (e: CellFocusedEvent) => {
                updateStatus();
                // Paging and match-finding move the focus (the grid may say so again once the row is drawn):
                // that selects nothing (selected rows stay selected).
                const col = typeof e.column === 'object' && e.column ? e.column.getColId() : e.column;
                const moved = movingFocus || (movedTo !== undefined && movedTo.row === e.rowIndex && movedTo.col === col);
                if (!moved) {
                    movedTo = undefined;
                    // Open row details follow the focused row (the arrows); a press of the mouse opens them
                    // when it comes up (detailsOnRelease).
                    if (!details.hidden) showDetails(e.rowIndex ?? undefined, col ?? undefined);
                    else if (pressing && !selecting) pressedCell = { row: e.rowIndex ?? undefined, col: col ?? undefined };
                }
                // A press's statistics come with its release (detailsOnRelease): shown now, they could
                // move the grid under the mouse before it comes up.
                if (!pressing) updateSelectionStats(moved);
            },
            // A click opens the row's details (a Shift or Ctrl click only selects, unless they are open);
            // on the cell the view focused, it is the user's own choice of it.
            onCellClicked: e => {
                const viewMoved = movedTo !== undefined;
                movedTo = undefined;
                const m = e.event as MouseEvent | null | undefined;
                if (!details.hidden || !(m?.shiftKey || m?.ctrlKey || m?.metaKey)) showDetails(e.rowIndex ?? undefined, e.column.getColId());
                if (viewMoved) updateSelectionStats();
            },
            // The split gave the grid less (or more) height: the row in the details stays in view.
            onGridSizeChanged: () => revealDetailsRow(),
            onSelectionChanged: () => {
                updateStatus();
                updateSelectionStats();
            },
            onBodyScroll: () => {
                jsonPopup.close();
                updateStatus();
            },
            onColumnMoved: e => e.finished && e.source === 'uiColumnMoved' && saveColumns(),
            onColumnResized: e => e.finished && e.source === 'uiColumnResized' && saveColumns(),
            ensureDomOrder: true,
            datasource: datasourceFor(view.runId),
        });
        gridBox.addEventListener(
            'pointerdown',
            e => {
                pressing = e.button === 0 && !!(e.target as HTMLElement | null)?.closest('.ag-cell');
                selecting = e.shiftKey || e.ctrlKey || e.metaKey;
            },
            true,
        );
        window.addEventListener('pointerup', detailsOnRelease, true);
        window.addEventListener(
            'pointercancel',
            () => {
                pressing = false;
                pressedCell = undefined;
            },
            true,
        );
        gridBox.addEventListener('keydown', onGridKey);
        gridBox.addEventListener('keydown', onHeaderKey, true);
    } else {
        // A new run starts unsorted, at the top left, with nothing of the last run's rows.
        if (api.getColumnState().some(c => c.sort)) api.applyColumnState({ defaultState: { sort: null } });
        if (signature !== columnsShown) api.setGridOption('columnDefs', columnDefs(view, rows));
        else if (rows) api.applyColumnState({ state: columnDefs(view, rows).map(d => ({ colId: d.colId!, width: d.width })) });
        api.deselectAll();
        api.clearFocusedCell();
        api.setGridOption('datasource', datasourceFor(view.runId));
        api.ensureIndexVisible(0, 'top');
        const first = view.fields[0]?.name;
        if (first) api.ensureColumnVisible(first, 'start');
    }
    if (rows) fittedRunId = view.runId;
    restoreColumns(view);
    columnsShown = signature;
    sortShown = undefined;
    return false;
}

function onGridKey(e: KeyboardEvent): void {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
        e.preventDefault();
        copySelection();
    } else if (e.key === 'Enter' && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && api) {
        const focused = api.getFocusedCell();
        const target = e.target as HTMLElement | null;
        if (!focused || target?.closest('.ag-header-cell')) return;
        e.preventDefault();
        // A JSON cell expands in place; any other opens the row's details (the focus stays in the grid).
        if (!openJson(focused.rowIndex, focused.column.getColId())) showDetails(focused.rowIndex, focused.column.getColId());
    } else if (e.key === 'Escape' && !details.hidden && !(e.target as HTMLElement | null)?.closest('.ag-header-cell')) {
        e.preventDefault();
        closeDetails(false);
    }
}

/** Alt+Shift+Left/Right on a focused column header moves that column (before AG Grid's own arrow keys). */
function onHeaderKey(e: KeyboardEvent): void {
    if (!e.altKey || !e.shiftKey || e.ctrlKey || e.metaKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
    const colId = (e.target as HTMLElement | null)?.closest?.('.ag-header-cell[col-id]')?.getAttribute('col-id');
    if (!api || !colId || colId === '#') return;
    e.preventDefault();
    e.stopPropagation();
    moveColumn(colId, e.key === 'ArrowLeft' ? -1 : 1);
}

/** Moves a column one place (within its pinned or unpinned part), keeps the focus on its header and says where it went. */
function moveColumn(colId: string, delta: -1 | 1): void {
    if (!api) return;
    const shown = api.getAllDisplayedColumns();
    const at = shown.findIndex(c => c.getColId() === colId);
    const neighbour = shown[at + delta];
    const name = headerText(colId);
    if (at < 0 || !neighbour || neighbour.getColId() === '#' || neighbour.getPinned() !== shown[at].getPinned()) {
        announce(`${name} cannot move further ${delta < 0 ? 'left' : 'right'}`);
        return;
    }
    api.moveColumns([colId], api.getAllGridColumns().indexOf(neighbour));
    api.setFocusedHeader(colId);
    const data = api.getAllDisplayedColumns().filter(c => c.getColId() !== '#');
    announce(`${name} moved to column ${data.findIndex(c => c.getColId() === colId) + 1} of ${data.length}`);
    saveColumns();
}

function announce(text: string): void {
    announcer.textContent = text;
}

/** A JSON cell's value: a toggle (expand in place) before its one-line text. */
class JsonCellRenderer implements ICellRendererComp<unknown[]> {
    private gui!: HTMLElement;

    init(p: ICellRendererParams<unknown[]>): void {
        const colId = p.column?.getColId() ?? '';
        this.gui = document.createElement('span');
        this.gui.className = 'json-cell';
        const toggle = document.createElement('button');
        toggle.type = 'button';
        toggle.className = 'json-toggle';
        // The cell, not the toggle, is in the grid's keyboard order: Enter on the cell opens it.
        toggle.tabIndex = -1;
        toggle.textContent = '▸';
        toggle.title = 'Expand the value in place (Enter on the cell)';
        toggle.setAttribute('aria-label', `Expand ${headerText(colId)}`);
        toggle.addEventListener('click', e => {
            e.stopPropagation();
            if (typeof p.node.rowIndex === 'number') openJson(p.node.rowIndex, colId);
        });
        this.gui.append(toggle, document.createTextNode(p.valueFormatted ?? ''));
    }

    getGui(): HTMLElement {
        return this.gui;
    }

    refresh(): boolean {
        return false;
    }
}

const jsonPopup = new JsonPopup(document.body, {
    copy: text => post({ type: 'copyText', text }),
    filter: (field, keys, value) => {
        jsonPopup.close();
        if (run) post({ type: 'filter', runId: run.runId, field, value: value ?? null, path: keys });
    },
    escaped: (rowIndex, field) => api?.setFocusedCell(rowIndex, field),
});

/** Expands the JSON cell at (row, column) in place; false when it holds no JSON object or array. */
function openJson(rowIndex: number, colId: string): boolean {
    if (!api || !run) return false;
    const field = run.fields.findIndex(f => f.name === colId);
    const data = api.getDisplayedRowAtIndex(rowIndex)?.data;
    const value = field >= 0 ? data?.[field] : undefined;
    if (value === null || typeof value !== 'object') return false;
    const cell = [...gridBox.querySelectorAll<HTMLElement>(`.ag-row[row-index="${rowIndex}"] .ag-cell`)].find(c => c.getAttribute('col-id') === colId);
    if (!cell) return false;
    details.hidden = true;
    jsonPopup.show(cell, colId, rowIndex, value);
    return true;
}

/** A header click: the grid asks again for its blocks, in the new order, from the top. */
function onSort(): void {
    if (!api || !run) return;
    const col = api.getColumnState().find(c => c.sort);
    const key = col ? { field: col.colId, desc: col.sort === 'desc' } : undefined;
    sortShown = key ? { key, pending: true } : undefined;
    details.hidden = true;
    api.deselectAll();
    api.clearFocusedCell();
    api.ensureIndexVisible(0, 'top');
    // The grid may still be resetting its blocks: go to the top again when the first block comes.
    scrollToTopOnRows = true;
    updateStatus(0);
    // Filtered rows and matches are row positions in the grid's order: find them again in the new one.
    if (filterBar.filters.length > 0) applyFilters(filterBar.filters);
    else if (needle !== '') startSearch();
}

function selectedRowIndexes(): number[] {
    const nodes = api?.getSelectedNodes() ?? [];
    const indexes = nodes.map(n => n.rowIndex).filter((i): i is number => typeof i === 'number');
    if (indexes.length > 0) return indexes.sort((a, b) => a - b);
    const focused = api?.getFocusedCell()?.rowIndex;
    return typeof focused === 'number' ? [focused] : [];
}

function copySelection(): void {
    if (!run || run.state !== 'done') return;
    const rows = selectedRowIndexes();
    if (rows.length === 0) return;
    post({ type: 'copyRows', runId: run.runId, rows, format: copyFormat.value as 'tsv', headers: copyHeaders.checked, sort: sortShown?.key });
}

/** The first row in view (AG Grid's first displayed row includes the buffer rendered above the viewport). */
function firstVisibleRow(): number {
    if (!api) return 0;
    const height = api.getSizesForCurrentTheme().rowHeight || 1;
    return Math.max(0, Math.round(api.getVerticalPixelRange().top / height));
}

/** Set while the view itself moves the focus (paging, next match): no selection statistics for it. */
let movingFocus = false;
/** The cell the view focused last, until the user focuses or clicks one. */
let movedTo: { row: number; col: string } | undefined;

function moveFocus(row: number, column: string): void {
    movingFocus = true;
    movedTo = { row, col: column };
    try {
        api?.setFocusedCell(row, column);
    } finally {
        movingFocus = false;
    }
}

function goToPage(delta: number): void {
    const rows = shownRows() ?? run?.rowCount ?? 0;
    if (!api || !run || rows === 0) return;
    const size = run.pageSize;
    const first = firstVisibleRow();
    const page = Math.floor(first / size);
    const target = Math.max(0, Math.min(rows - 1, (page + delta) * size));
    api.ensureIndexVisible(target, 'top');
    moveFocus(target, run.fields[0]?.name ?? '#');
    updateStatus(target);
}

// ---------------------------------------------------------------------------------- search

/** The search term, lower-cased (what cells are highlighted for); '' when nothing is searched. */
let needle = '';
let searchId = 0;
/** The current run's last search result. */
let found: SearchResultView | undefined;
let onlyMatching = false;
/** The match gone to last (an index into `found.matches`). */
let matchAt = -1;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

/** Keys typed closer together than this are one term: the search waits for the pause after them. */
const SEARCH_PAUSE = 150;
let lastSearchInput = -Infinity;
searchField.addEventListener('input', () => {
    clearTimeout(searchTimer);
    const now = performance.now();
    const afterPause = now - lastSearchInput > SEARCH_PAUSE;
    lastSearchInput = now;
    // A term pasted or typed after a pause is searched at once (its matches show without waiting);
    // keys typed in a row wait for the pause after them.
    if (afterPause) startSearch();
    else {
        // The result shown is of a shorter term now.
        delete searchInfo.dataset.matches;
        searchTimer = setTimeout(startSearch, SEARCH_PAUSE);
    }
});
searchField.addEventListener('keydown', (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
        e.preventDefault();
        goToMatch(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape' && searchField.value !== '') {
        e.preventDefault();
        searchField.value = '';
        startSearch();
    }
});

/** Asks the host to search the rows it holds for the field's text (in the grid's order). */
function startSearch(): void {
    clearTimeout(searchTimer);
    const term = searchField.value;
    needle = term.toLowerCase();
    resetSearchResult();
    api?.refreshCells({ force: true });
    if (!run || run.state !== 'done' || term === '') {
        if (onlyMatching) showGridRows();
        return;
    }
    searchInfo.textContent = 'Searching…';
    post({ type: 'search', runId: run.runId, searchId: ++searchId, term, sort: sortShown?.key, filter: applied?.filterId });
}

function resetSearchResult(): void {
    found = undefined;
    matchAt = -1;
    searchInfo.textContent = '';
    delete searchInfo.dataset.matches;
    serviceSearch.hidden = true;
    serviceSearch.replaceChildren();
    setEnabled(prevMatchButton, false);
    setEnabled(nextMatchButton, false);
}

function showSearchResult(result: SearchResultView): void {
    // A term still being typed (its search waits for a pause) makes this result stale already.
    if (!run || result.runId !== run.runId || result.searchId !== searchId || result.term !== searchField.value) return;
    found = result;
    matchAt = -1;
    const count = `${fmt(result.matchCount)} matching row${result.matchCount === 1 ? '' : 's'}`;
    const scope = result.complete ? `all ${fmt(result.rowsSearched)} rows searched` : `searched the ${fmt(result.rowsSearched)} rows in memory of ${fmt(run.rowCount)}`;
    searchInfo.textContent = `${count} · ${scope}`;
    searchInfo.dataset.matches = String(result.matchCount);
    searchInfo.dataset.rowsSearched = String(result.rowsSearched);
    searchInfo.dataset.complete = String(result.complete);
    setEnabled(prevMatchButton, result.matchCount > 0);
    setEnabled(nextMatchButton, result.matchCount > 0);
    if (!result.complete) offerServiceSearch(result);
    if (onlyMatching) showGridRows();
}

/** Against a result not wholly here: the same search on the service, shown, run only when asked. */
function offerServiceSearch(result: SearchResultView): void {
    serviceSearch.replaceChildren(
        el('span', {}, 'Search the whole result on the service with this query:'),
        el('pre', { class: 'query' }, result.serviceQuery),
        button('Run on the service', 'Run this query as a new query (it opens in an editor)', () => post({ type: 'runQuery', text: result.serviceQuery })),
    );
    serviceSearch.hidden = false;
}

function setOnlyMatching(on: boolean): void {
    onlyMatching = on;
    onlyMatchingButton.setAttribute('aria-pressed', String(on));
    onlyMatchingButton.classList.toggle('pressed', on);
    showGridRows();
}

/** The grid's rows: every row, or the last search's matches (then `aria-rowcount` counts those). */
function showGridRows(): void {
    if (!api || !run || run.state !== 'done') return;
    failPending();
    preloaded = undefined;
    const only = onlyMatching && found ? found.searchId : undefined;
    api.setGridOption('datasource', datasourceFor(run.runId, only, applied?.filterId));
    matchAt = -1;
    updateStatus(0);
}

/** Goes to the next (1) or previous (-1) matching row, focusing its first matching cell. */
function goToMatch(delta: number): void {
    if (!api || !run || !found || found.matches.length === 0) return;
    const n = found.matches.length;
    matchAt = matchAt < 0 ? (delta > 0 ? 0 : n - 1) : (matchAt + delta + n) % n;
    const row = onlyMatching ? matchAt : found.matches[matchAt];
    api.ensureIndexVisible(row, 'middle');
    const data = api.getDisplayedRowAtIndex(row)?.data;
    const col = data ? run.fields.findIndex((_, i) => cellSearchText(data[i]).toLowerCase().includes(needle)) : -1;
    moveFocus(row, run.fields[Math.max(0, col)]?.name ?? '#');
    searchInfo.textContent = `match ${fmt(matchAt + 1)} of ${fmt(found.matchCount)} (row ${fmt(found.matches[matchAt] + 1)})${found.complete ? '' : ` · searched the ${fmt(found.rowsSearched)} rows in memory of ${fmt(run.rowCount)}`}`;
}

// ---------------------------------------------------------------------------- column tools

/** The grid's one-line row height (Wrap text makes rows three of them). */
let wrapLineHeight: number | undefined;
/** The column whose counts (Group by column) are awaited. */
let groupField: string | undefined;

function columnAction(action: ColumnAction, field: string): void {
    if (!api || !run) return;
    switch (action) {
        case 'pin': {
            const pinned = api.getColumnState().find(c => c.colId === field)?.pinned;
            api.applyColumnState({ state: [{ colId: field, pinned: pinned ? null : 'left' }] });
            break;
        }
        case 'hide':
            api.applyColumnState({ state: [{ colId: field, hide: true }] });
            break;
        case 'showAll':
            api.applyColumnState({ state: run.fields.map(f => ({ colId: f.name, hide: false })) });
            break;
        case 'autoSize':
            api.autoSizeAllColumns();
            break;
        case 'wrap': {
            // The infinite row model has one row height: wrapped rows are three lines tall, all of them.
            const on = !gridBox.classList.contains('wrap');
            wrapLineHeight ??= api.getSizesForCurrentTheme().rowHeight;
            gridBox.classList.toggle('wrap', on);
            gridBox.dataset.wrap = String(on);
            filterBar.element.querySelector('[data-action="wrap"]')?.setAttribute('aria-pressed', String(on));
            api.setGridOption('rowHeight', on ? wrapLineHeight * 3 : wrapLineHeight);
            return;
        }
        case 'groupService':
            columnStatsBox.hidden = false;
            columnStatsBox.replaceChildren(el('p', {}, `Counting the rows by ${headerText(field)} on the service…`));
            post({ type: 'groupOnService', runId: run.runId, field });
            return;
        case 'group':
            groupField = field;
            columnStatsBox.hidden = false;
            columnStatsBox.replaceChildren(el('p', {}, `Counting the rows by ${headerText(field)}…`));
            post({ type: 'distinct', runId: run.runId, field });
            return;
    }
    saveColumns();
}

/** Group by column: the counts of each value, labelled as local (over the rows VS Code holds). */
function showGroups(v: DistinctValuesView): void {
    groupField = undefined;
    const type = run?.fields.find(f => f.name === v.field)?.type ?? 'string';
    const head = el('div', { class: 'details-head' });
    const scope = v.complete ? `all ${fmt(v.rowsCounted)} rows` : `the ${fmt(v.rowsCounted)} rows in memory (not the whole result)`;
    head.append(el('h2', {}, `Rows by ${headerText(v.field)}, counted in VS Code over ${scope}`), button('Close', 'Close the counts', () => (columnStatsBox.hidden = true)));
    const table = el('table', { class: 'group-counts', 'aria-label': `Rows by ${headerText(v.field)}` });
    const hr = el('tr');
    hr.append(el('th', { scope: 'col' }, headerText(v.field)), el('th', { scope: 'col' }, 'rows'));
    table.append(hr);
    for (const d of v.values) {
        const tr = el('tr');
        tr.append(el('td', {}, d.value === null ? '(null)' : cellText(d.value, type, run ? zoneOf(run) : 'utc')), el('td', { class: 'num' }, fmt(d.count)));
        table.append(tr);
    }
    const more = v.distinct > v.values.length ? [el('p', {}, `The ${fmt(v.values.length)} largest of ${fmt(v.distinct)} groups.`)] : [];
    columnStatsBox.replaceChildren(head, table, ...more);
}

/** Group on the service: the counts over the whole result, with the query that counted them. */
function showServiceGroups(m: Extract<HostMessage, { type: 'serviceGroups' }>): void {
    const head = el('div', { class: 'details-head' });
    head.append(
        el('h2', {}, `Rows by ${headerText(m.field)}, counted on the service over the whole result`),
        button('Run as a query', 'Open this query in an editor and run it', () => post({ type: 'runQuery', text: m.query })),
        button('Close', 'Close the counts', () => (columnStatsBox.hidden = true)),
    );
    const body: HTMLElement[] = [head, el('pre', { class: 'query' }, m.query)];
    if (m.error !== undefined) body.push(el('p', { class: 'error' }, `The query failed: ${m.error}`));
    if (m.groups) {
        const type = run?.fields.find(f => f.name === m.field)?.type ?? 'string';
        const table = el('table', { class: 'group-counts', 'aria-label': `Rows by ${headerText(m.field)}, on the service` });
        const hr = el('tr');
        hr.append(el('th', { scope: 'col' }, headerText(m.field)), el('th', { scope: 'col' }, 'rows'));
        table.append(hr);
        for (const [value, count] of m.groups) {
            const tr = el('tr');
            tr.append(el('td', {}, value === null ? '(null)' : cellText(value, type, run ? zoneOf(run) : 'utc')), el('td', { class: 'num' }, fmt(count)));
            table.append(tr);
        }
        body.push(table);
        if (m.more) body.push(el('p', {}, `The ${fmt(m.groups.length)} largest groups; there are more.`));
    }
    columnStatsBox.replaceChildren(...body);
}

interface SavedColumn {
    colId: string;
    hide?: boolean | null;
    pinned?: 'left' | 'right' | boolean | null;
    width?: number;
}

/** The grid's columns (order, hidden, pinned, width) per query text: a query block opens as it was left. */
function savedColumns(): Record<string, SavedColumn[]> {
    const state = vscode.getState() as { columns?: Record<string, SavedColumn[]> } | undefined;
    return state?.columns ?? {};
}

function saveColumns(): void {
    if (!api || !run || run.state !== 'done') return;
    const all = savedColumns();
    all[run.query] = api.getColumnState().map(c => ({ colId: c.colId, hide: c.hide, pinned: c.pinned, width: c.width ?? undefined }));
    // A few dozen queries are remembered: the oldest go first.
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - 50))) delete all[k];
    vscode.setState({ ...((vscode.getState() as object | undefined) ?? {}), columns: all });
}

function restoreColumns(view: RunView): void {
    const saved = savedColumns()[view.query];
    if (api && saved) api.applyColumnState({ state: saved.filter(c => c.colId === '#' || view.fields.some(f => f.name === c.colId)), applyOrder: true });
}

// ------------------------------------------------------------------------------ column stats

function showColumnStats(m: Extract<HostMessage, { type: 'columnStats' }>): void {
    const head = el('div', { class: 'details-head' });
    head.append(el('h2', {}, `Statistics of ${headerText(m.field)} over the whole result (on the service)`), button('Close', 'Close the column statistics', () => (columnStatsBox.hidden = true)));
    const body: HTMLElement[] = [head, el('pre', { class: 'query' }, m.query)];
    if (m.error !== undefined) body.push(el('p', { class: 'error' }, `The statistics query failed: ${m.error}`));
    const list = el('dl', { class: 'stats-list' });
    for (const [name, value] of m.pairs ?? []) list.append(el('dt', {}, name.replace(/_/g, ' ')), el('dd', {}, value !== null && typeof value === 'object' ? detailText(JSON.stringify(value)) : detailText(value)));
    if (m.pairs) body.push(list);
    columnStatsBox.replaceChildren(...body);
}

// ---------------------------------------------------------------------------------- filters

let filterId = 0;
/** The run whose fields the filter bar offers. */
let filtersRunId = -1;
/** The filters the host applied here (their rows are the grid's); undefined: every row. */
let applied: FilterResultView | undefined;

function applyFilters(filters: readonly ColumnFilter[]): void {
    if (!run || run.state !== 'done') return;
    post({ type: 'filters', runId: run.runId, filterId: ++filterId, filters: [...filters], sort: sortShown?.key });
}

function showFilterResult(r: FilterResultView): void {
    if (!run || r.runId !== run.runId || r.filterId !== filterId) return;
    applied = r.local && filterBar.filters.length > 0 ? r : undefined;
    filterBar.showResult(r, run.rowCount);
    // The search and its matches are over the rows shown: search again.
    if (needle !== '') startSearch();
    showGridRows();
}

/** The selected cells' values of the focused column as a filter (one value: == / !=, more: in / !in). */
function selectionFilter(exclude: boolean): void {
    const sel = selectedCells();
    if (!sel) return;
    const values: unknown[] = [];
    const keys = new Set<string>();
    for (const v of sel.values) {
        const key = JSON.stringify(v);
        if (!keys.has(key)) {
            keys.add(key);
            values.push(v);
        }
    }
    filterBar.add({ field: sel.field, kind: 'values', values, exclude });
}

// --------------------------------------------------------------------------- selection stats

/** The selected cells: the focused cell's column over the selected rows (the focused row when none is selected). */
function selectedCells(): { field: string; type: string; values: unknown[] } | undefined {
    if (!api || !run || run.state !== 'done') return undefined;
    const focused = api.getFocusedCell();
    const field = focused ? run.fields.findIndex(f => f.name === focused.column.getColId()) : -1;
    if (field < 0) return undefined;
    const nodes = api.getSelectedNodes();
    const rows = nodes.length > 0 ? nodes : [api.getDisplayedRowAtIndex(focused!.rowIndex)].filter(n => n !== undefined);
    const values = rows.filter(n => n.data).map(n => (n.data as unknown[])[field] ?? null);
    return { field: run.fields[field].name, type: run.fields[field].type, values };
}


/** Statistics of the focused cell's column over the selected rows (the focused row when none is selected). */
function updateSelectionStats(onlySelectedRows = false): void {
    // A focused row whose block has not come yet selects no cell: nothing to say.
    const sel = onlySelectedRows && (api?.getSelectedNodes().length ?? 0) === 0 ? undefined : selectedCells();
    const shown = sel && sel.values.length > 0 ? sel : undefined;
    selectionBar.hidden = !shown;
    selectionLine.textContent = shown ? selectionStatsText(headerText(shown.field), selectionStats(shown.values, shown.type)) : '';
}

// ------------------------------------------------------------------------------ more tables

/** Grids of the result's other tables (small: sent whole), one tab each, before Chart. */
const extraGrids: GridApi<unknown[]>[] = [];

function showExtraTables(tables: readonly ExtraTableView[]): void {
    for (const g of extraGrids.splice(0)) g.destroy();
    for (let i = 1; tabs.has(`table-${i}`); i++) tabs.remove(`table-${i}`);
    tables.forEach((t, k) => {
        const id = `table-${k + 1}`;
        const panel = el('div', { class: 'panel table-panel' });
        const note = t.rowCount > t.rows.length ? el('p', {}, `The first ${fmt(t.rows.length)} of ${fmt(t.rowCount)} rows.`) : undefined;
        const box = el('div', { class: 'grid' });
        if (note) panel.append(note);
        panel.append(box);
        panels.append(panel);
        tabs.add(id, `Table ${k + 2}: ${headerText(t.name)}`, panel, 'chart');
        const zone = run ? zoneOf(run) : 'utc';
        extraGrids.push(
            createGrid<unknown[]>(box, {
                theme,
                styleNonce: nonce,
                rowData: t.rows,
                columnDefs: t.fields.map((f, i) => ({
                    colId: f.name,
                    headerName: headerText(f.name),
                    valueGetter: p => p.data?.[i] ?? null,
                    valueFormatter: p => cellText(p.value, f.type, zone),
                    type: isNumericType(f.type) ? 'rightAligned' : undefined,
                    width: columnWidth(headerText(f.name), t.rows.map(r => cellText(r[i], f.type, zone)), textMeasure()),
                })),
            }),
        );
    });
}

// --------------------------------------------------------------------------------- details

/** The mouse is down on a cell (a press opens the row details). */
let pressing = false;
/** That press has Shift, Ctrl or Cmd: it selects rows (a range, one more), and opens no details. */
let selecting = false;
/** The cell a press focused while the row details were closed: they open for it when the mouse comes up. */
let pressedCell: { row: number | undefined; col: string | undefined } | undefined;

/**
 * The release of a press, not the press itself, opens the details and shows the selection's
 * statistics: the details shrink the grid and scroll the row into view above them, and the statistics
 * can wrap under the status line, so that a row moved before the mouse came up got no click (no
 * selection, no Shift+click range). Here the release's hit is made already: the click comes after,
 * on the row pressed.
 */
function detailsOnRelease(): void {
    if (!pressing) return;
    pressing = false;
    const cell = pressedCell;
    pressedCell = undefined;
    if (cell) showDetails(cell.row, cell.col);
    updateSelectionStats();
}
/** The cell the row details were opened from or followed to: the focus goes back to it when they close. */
let detailsCell: { row: number; col: string | undefined } | undefined;

/** The row in the details, in view above them (the grid just gave them some of its height). */
function revealDetailsRow(): void {
    if (details.hidden || !detailsCell) return;
    const row = detailsCell.row;
    api?.ensureIndexVisible(row);
    requestAnimationFrame(() => {
        if (!details.hidden && detailsCell?.row === row) api?.ensureIndexVisible(row);
    });
}

/** Closes the row details; `refocus` gives the focus back to the grid's cell (Escape, Close). */
function closeDetails(refocus: boolean): void {
    if (details.hidden) return;
    details.hidden = true;
    const cell = detailsCell;
    if (refocus && cell && api) {
        const col = cell.col ?? api.getAllDisplayedColumns()[0]?.getColId();
        if (col) api.setFocusedCell(cell.row, col);
    }
}

details.addEventListener('keydown', e => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    e.stopPropagation();
    closeDetails(true);
});

function showDetails(rowIndex: number | undefined, colId?: string): void {
    if (!run || rowIndex === undefined || !api) return;
    const node = api.getDisplayedRowAtIndex(rowIndex);
    const data = node?.data;
    if (!data) return;
    const shown = run;
    const opening = details.hidden;
    detailsCell = { row: rowIndex, col: colId };
    details.hidden = false;
    if (opening) revealDetailsRow();
    details.replaceChildren();
    const title = el('h2', {}, `Row ${fmt(rowIndex + 1)}`);
    const object = Object.fromEntries(shown.fields.map((f, i) => [f.name, data[i] ?? null]));
    const json = JSON.stringify(object, null, 2);
    const head = el('div', { class: 'details-head' });
    head.append(
        title,
        button('Copy JSON', 'Copy this event as JSON', () => post({ type: 'copyText', text: json })),
        button('Close', 'Close the row details (Escape)', () => closeDetails(true)),
    );
    const list = el('dl');
    shown.fields.forEach((f, i) => {
        const dt = el('dt', { title: f.type }, headerText(f.name));
        const dd = el('dd');
        // The full value, as the service gave it (the grid may round it).
        // Bidi and invisible characters shown (`\u202E`); Copy keeps the value exact.
        const value = el('code', {}, detailText(data[i]));
        const copy = button('Copy', `Copy the value of ${headerText(f.name)}`, () => post({ type: 'copyText', text: fullText(data[i]) }));
        const filter = button('Filter', `Keep the rows where ${headerText(f.name)} has this value (the query is run again)`, () => post({ type: 'filter', runId: shown.runId, field: f.name, value: data[i] ?? null }));
        dd.append(value, copy, filter);
        // A name and its value side by side, the fields in as many columns as the width holds (styles.css).
        const field = el('div', { class: 'field' });
        field.append(dt, dd);
        list.append(field);
        // A JSON cell: its nested values, each with its value and its path (`['geo']['city']`) to copy.
        const leaves = data[i] !== null && typeof data[i] === 'object' ? jsonLeaves(f.name, data[i]) : [];
        if (leaves.length > 0) {
            const nested = el('details', { class: 'json-tree' });
            nested.append(el('summary', {}, `Nested values of ${headerText(f.name)} (${fmt(leaves.length)})`));
            const ul = el('ul');
            for (const leaf of leaves) {
                const li = el('li');
                li.dataset.depth = String(leaf.depth);
                const isBranch = leaf.value !== null && typeof leaf.value === 'object';
                li.append(
                    el('code', { class: 'json-path' }, detailText(leaf.path)),
                    ...(isBranch ? [] : [el('code', {}, detailText(leaf.value))]),
                    button('Copy value', `Copy the value at ${leaf.path}`, () => post({ type: 'copyText', text: fullText(leaf.value) })),
                    button('Copy path', `Copy the path ${leaf.path}`, () => post({ type: 'copyText', text: leaf.path })),
                );
                ul.append(li);
            }
            nested.append(ul);
            dd.append(nested);
        }
    });
    details.append(head, list);
}

// ---------------------------------------------------------------------------------- status

/** The rows the grid shows when a filter or Only matching rows narrows it (what `aria-rowcount` counts); undefined: every row. */
function shownRows(): number | undefined {
    if (onlyMatching && found) return found.matchCount;
    return applied?.rowCount;
}

function updateStatus(firstRow?: number): void {
    if (!run) {
        // Nothing run (or recalled) yet, as after a window reload: no control has anything to act on.
        for (const c of [cancelButton, prevButton, nextButton, exportButton, copyButton, editorButton, prevMatchButton, nextMatchButton, onlyMatchingButton, toolsButton, shareButton, saveResultButton]) setEnabled(c, false);
        return;
    }
    status.dataset.state = run.state;
    status.dataset.runId = String(run.runId);
    status.dataset.rowsMatched = String(run.rowsMatched);
    status.dataset.rowCount = String(run.rowCount);
    status.dataset.requests = String(run.requests);
    status.dataset.elapsedMs = String(run.elapsedMs);
    status.dataset.sort = sortShown && !sortShown.pending ? `${sortShown.key.field} ${sortShown.key.desc ? 'desc' : 'asc'}` : '';
    const shown = shownRows();
    status.textContent = statusText(run, firstRow ?? firstVisibleRow(), sortShown, shown);
    const done = run.state === 'done';
    setEnabled(cancelButton, run.state === 'running');
    // Paging buttons act only where there is a page to go to.
    const pages = done && run.pageSize > 0 ? Math.ceil((shown ?? run.rowCount) / run.pageSize) : 0;
    const page = Math.floor((firstRow ?? firstVisibleRow()) / Math.max(1, run.pageSize));
    setEnabled(prevButton, pages > 1 && page > 0);
    setEnabled(nextButton, pages > 1 && page < pages - 1);
    setEnabled(exportButton, done);
    // Copy acts on the selected rows (or the focused one).
    setEnabled(copyButton, done && run.rowCount > 0 && selectedRowIndexes().length > 0);
    setEnabled(editorButton, done);
    setEnabled(shareButton, true);
    setEnabled(saveResultButton, done);
    setEnabled(onlyMatchingButton, done);
    setEnabled(toolsButton, done && run.fields.length > 0);
}

function onRowsShown(count: number, sort: SortKey | undefined): void {
    if (sortShown && sameSort(sort, sortShown.key)) sortShown = { key: sortShown.key, pending: false };
    if (!painted && run && count > 0) {
        painted = true;
        const { runId, startedAt } = run;
        requestAnimationFrame(() => {
            const at = Date.now();
            // The time from the start of the run to its first rows on screen (benchmarks read it).
            status.dataset.paintMs = String(at - startedAt);
            status.dataset.drawMs = String(at - doneAt);
            post({ type: 'painted', runId, rows: count, at });
        });
    }
    updateStatus();
}

function showRun(view: RunView): void {
    const previous = run;
    run = view;
    if (previous?.runId !== view.runId) {
        // Everything of the last run goes: its awaited blocks, its rows, its notes, its details.
        failPending();
        delete status.dataset.paintMs;
        notes.replaceChildren();
        painted = false;
        details.hidden = true;
        sortShown = undefined;
        preloaded = undefined;
        resetSearchResult();
        selectionLine.textContent = '';
        selectionBar.hidden = true;
        applied = undefined;
        // The filter bar is set to the new result's columns once its rows are painted (afterPaint).
        columnStatsBox.hidden = true;
        jsonPopup.close();
    }
    // The hop of a small message (a running run carries no rows), beside the finished run's (benchmarks read both).
    if (view.state === 'running' && view.postedAt !== undefined) status.dataset.runningHopMs = String(Date.now() - view.postedAt);
    const known = view.state === 'running' ? knownColumns.get(view.query) : undefined;
    if (known && drawnEarly !== view.runId) {
        // A query run before: its grid is drawn now with the columns of its last result, its rows
        // asked for when the run is done; a sort chosen meanwhile is kept.
        drawnEarly = view.runId;
        main.hidden = false;
        // The first rows paint sooner without the rows drawn past the viewport: they come back after
        // (rows refreshed in place are refilled, not drawn: they stay).
        if (!showGrid({ ...view, ...known })) api?.setGridOption('rowBuffer', 0);
    } else if (view.state !== 'done' && drawnEarly !== view.runId) main.hidden = true;
    if (view.state !== 'done' && view.state !== 'running') {
        main.hidden = true;
        failWaiting();
    }
    // While it runs, the rows on screen may be the last result's (refilled in place when the rows
    // come): dimmed. The grid stays usable (a sort chosen now applies to the rows that come).
    main.classList.toggle('stale', view.state === 'running' && !main.hidden);
    updateStatus();
    // A chart belongs to the run that drew it.
    if (view.state !== 'done') chartView.clear();
    if (view.state === 'running') return;
    if (view.state === 'done') {
        doneAt = Date.now();
        const handling = performance.now();
        // From the start of the run to its end reaching the view (benchmarks read it).
        status.dataset.receivedMs = String(doneAt - view.startedAt);
        if (view.postedAt !== undefined) status.dataset.postedMs = String(view.postedAt - view.startedAt);
        if (view.requestedAt !== undefined) status.dataset.requestedMs = String(view.requestedAt - view.startedAt);
        const firstRows = view.firstRows;
        preloaded = firstRows ? { runId: view.runId, rows: firstRows } : undefined;
        main.hidden = false;
        if (drawnEarly === view.runId && columnsSignature(view) === columnsShown) {
            // The grid is there: only its rows are awaited (in the order a sort chosen meanwhile asks).
            answerWaiting();
        } else {
            const chosen = drawnEarly === view.runId ? sortKeyOf(currentSortModel()) : undefined;
            failWaiting();
            showGrid(view);
            if (chosen && api && view.fields.some(f => f.name === chosen.field) && view.rowCount <= (view.sortLimit ?? Infinity)) {
                api.applyColumnState({ state: [{ colId: chosen.field, sort: chosen.desc ? 'desc' : 'asc' }] });
            }
        }
        view.firstRows = undefined;
        rememberColumns(view);
        updateStatus(0);
        // The view's own work on the finished run (its first rows drawn into the grid), before the frame that shows them.
        status.dataset.rowsJsMs = (performance.now() - handling).toFixed(1);
        // The rest waits for the frame that paints the first rows.
        afterPaint(view, () => {
            if (api && api.getGridOption('rowBuffer') !== ROW_BUFFER) api.setGridOption('rowBuffer', ROW_BUFFER);
            if (firstRows && fittedRunId !== view.runId) {
                fitColumns(view, firstRows);
                restoreColumns(view);
            }
            showRunNotes(view);
            // The Chart tab: drawn now, or when a paged result's chart rows come (chartable).
            const drawn = chartView.show(view, tabs.selected === 'chart');
            noChart.hidden = drawn || view.chartable === true;
            showExtraTables(view.tables ?? []);
            if (filtersRunId !== view.runId) {
                filtersRunId = view.runId;
                filterBar.reset(view.fields);
            }
            // A search typed before the run finds its rows in the new result.
            if (needle !== '') startSearch();
            if (tabs.selected === 'stats') renderStats(statsPanel, view);
        });
        return;
    }
    showRunNotes(view);
    showExtraTables([]);
    if (tabs.selected === 'stats') renderStats(statsPanel, view);
}

function showRunNotes(view: RunView): void {
    notes.replaceChildren();
    for (const note of runNotes(view)) showNote(note.text, note.kind);
    if (view.emptyHint) {
        // Nothing in the range, but events elsewhere: say where, and offer the range that holds them.
        showNote(view.emptyHint, 'info');
        notes.lastElementChild?.append(' ', button('Search all time', 'Run the query again over all time', () => post({ type: 'timeRange', timeRange: { preset: 'all' } })));
    }
}

/** Runs `then` after the next frame (the one that paints the first rows), if `view` is still the run shown. */
function afterPaint(view: RunView, then: () => void): void {
    requestAnimationFrame(() =>
        setTimeout(() => {
            if (run === view) then();
        }, 0),
    );
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    const m = event.data;
    switch (m.type) {
        case 'init':
            showTimeRange(m.timeRange);
            if (m.run) showRun(m.run);
            break;
        case 'timeRange':
            showTimeRange(m.timeRange);
            break;
        case 'earlierPeriod':
            chartView.showEarlier(m);
            break;
        case 'chartRows':
            chartView.showRows(m);
            break;
        case 'run':
            showRun(m.run);
            break;
        case 'rows': {
            const p = pending.get(m.requestId);
            pending.delete(m.requestId);
            if (!p) return;
            if (!run || m.runId !== run.runId || p.runId !== run.runId) {
                p.params.failCallback();
                return;
            }
            if (!p.exact) run.rowCount = m.rowCount;
            run.rowsLoaded = m.rowsLoaded;
            run.requests = m.requests;
            // A sorted or searched view knows its exact row count.
            const lastRow = m.sort || p.exact ? m.rowCount : m.start + m.rows.length < p.params.endRow ? m.start + m.rows.length : m.rowCount;
            p.params.successCallback(m.rows, lastRow);
            if (m.start === 0) {
                fitColumns(run, m.rows);
                if (scrollToTopOnRows && sameSort(m.sort, sortShown?.key)) {
                    scrollToTopOnRows = false;
                    api?.ensureIndexVisible(0, 'top');
                }
            }
            onRowsShown(m.rows.length, m.sort);
            break;
        }
        case 'searchResult':
            showSearchResult(m.result);
            break;
        case 'filterResult':
            showFilterResult(m.result);
            break;
        case 'distinctValues':
            if (!run || m.result.runId !== run.runId) break;
            if (groupField === m.result.field) showGroups(m.result);
            else filterBar.showDistinct(m.result);
            break;
        case 'columnStats':
            if (run && m.runId === run.runId) showColumnStats(m);
            break;
        case 'serviceGroups':
            if (run && m.runId === run.runId) showServiceGroups(m);
            break;
        case 'searchFailed':
            if (run && m.runId === run.runId && m.searchId === searchId) searchInfo.textContent = `The search failed: ${m.message}`;
            break;
        case 'rowsFailed': {
            const p = pending.get(m.requestId);
            pending.delete(m.requestId);
            p?.params.failCallback();
            if (!m.stale && run && m.runId === run.runId) {
                if (sortShown?.pending) sortShown = undefined;
                showNote(`Rows could not be read: ${m.message}`, 'error');
                updateStatus();
            }
            break;
        }
    }
});

updateStatus();
post({ type: 'ready' });
