/**
 * The results webview: a toolbar (time range, run, cancel, paging, export, copy), a status line,
 * a time-series chart (uPlot) and a virtualized grid (AG Grid Community, infinite row model) whose
 * rows are asked from the extension host block by block. Everything is bundled (no CDN); styles
 * come from VS Code's `--vscode-*` theme variables; inline styles carry the CSP nonce.
 */
import {
    AllCommunityModule,
    createGrid,
    ModuleRegistry,
    themeQuartz,
    type CellFocusedEvent,
    type ColDef,
    type GridApi,
    type IDatasource,
    type IGetRowsParams,
    type SortChangedEvent,
} from 'ag-grid-community';
import type { HostMessage, RunView, ViewMessage } from '../src/protocol.js';
import { presetLabel, TIME_PRESETS, type TimeRangeSpec } from '../src/time-range.js';
import { renderChart, type ChartHandle } from './chart.js';
import { fmt, runNotes, statusText } from './status-text.js';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

ModuleRegistry.registerModules([AllCommunityModule]);

const vscode = acquireVsCodeApi();
const nonce = document.body.dataset.nonce ?? '';
const post = (m: ViewMessage) => vscode.postMessage(m);

/** Rows per block the grid asks for: small enough for a quick first paint and a light websocket message. */
const BLOCK_SIZE = 250;
/** Blocks the grid keeps (about 10,000 rows): the webview's memory stays bounded whatever the row count. */
const MAX_BLOCKS = 40;


function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
}

function button(label: string, title: string, onClick: () => void): HTMLButtonElement {
    const b = el('button', { type: 'button', title }, label);
    b.addEventListener('click', onClick);
    return b;
}

// ------------------------------------------------------------------------------------ layout

const app = document.getElementById('app')!;
const toolbar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Results' });
const rangeSelect = el('select', { 'aria-label': 'Time range', title: 'Time range' });
for (const p of TIME_PRESETS) rangeSelect.append(el('option', { value: p }, presetLabel(p)));
rangeSelect.append(el('option', { value: 'custom' }, 'Custom…'));
const customStart = el('input', { type: 'text', 'aria-label': 'Start time (RFC 3339)', placeholder: 'start, e.g. 2026-01-01T00:00:00Z', class: 'custom' });
const customEnd = el('input', { type: 'text', 'aria-label': 'End time (RFC 3339)', placeholder: 'end', class: 'custom' });
const applyCustom = button('Apply', 'Apply the custom time range', () => {
    const start = customStart.value.trim();
    const end = customEnd.value.trim();
    if (!Number.isFinite(Date.parse(start)) || !Number.isFinite(Date.parse(end)) || Date.parse(start) >= Date.parse(end)) {
        showNote('The custom range needs a start before its end, as RFC 3339 times (2026-01-01T00:00:00Z).');
        return;
    }
    post({ type: 'timeRange', timeRange: { start, end } });
});
applyCustom.classList.add('custom');
const runButton = button('Run', 'Run the query again', () => post({ type: 'rerun' }));
const cancelButton = button('Cancel', 'Cancel the running query', () => post({ type: 'cancel' }));
const prevButton = button('Previous page', 'Scroll to the previous page of rows', () => goToPage(-1));
const nextButton = button('Next page', 'Scroll to the next page of rows (fetched from the service)', () => goToPage(1));
const exportFormat = el('select', { 'aria-label': 'Export format', title: 'Export format' });
for (const f of ['csv', 'ndjson', 'json']) exportFormat.append(el('option', { value: f }, f.toUpperCase()));
const exportButton = button('Export', 'Export every row of the result to a file', () => post({ type: 'export', format: exportFormat.value as 'csv' | 'ndjson' | 'json' }));
const copyFormat = el('select', { 'aria-label': 'Copy format', title: 'Copy format' });
for (const f of ['tsv', 'csv', 'json', 'markdown']) copyFormat.append(el('option', { value: f }, f === 'markdown' ? 'Markdown' : f.toUpperCase()));
const copyHeaders = el('input', { type: 'checkbox', id: 'copy-headers', checked: '' });
const copyHeadersLabel = el('label', { for: 'copy-headers' }, 'headers');
const copyButton = button('Copy rows', 'Copy the selected rows (or the focused row)', () => copySelection());
const editorButton = button('Open in editor', 'Open the rows as JSON text in a new editor', () => post({ type: 'openInEditor' }));
toolbar.append(rangeSelect, customStart, customEnd, applyCustom, runButton, cancelButton, prevButton, nextButton, exportFormat, exportButton, copyFormat, copyHeaders, copyHeadersLabel, copyButton, editorButton);

const status = el('div', { 'data-testid': 'apl-status', 'data-state': 'idle', role: 'status', 'aria-live': 'polite', class: 'status' }, 'No query run yet. Press Ctrl+Enter in an .apl file.');
const notes = el('div', { class: 'notes', 'aria-live': 'polite' });
const chartBox = el('div', { 'data-testid': 'apl-chart', class: 'chart', role: 'img', 'aria-label': 'Time series chart' });
chartBox.hidden = true;
const main = el('div', { class: 'main' });
const gridBox = el('div', { class: 'grid' });
const details = el('aside', { class: 'details', 'aria-label': 'Row details' });
details.hidden = true;
main.append(gridBox, details);
app.append(toolbar, status, notes, chartBox, main);

rangeSelect.addEventListener('change', () => {
    const custom = rangeSelect.value === 'custom';
    for (const e of [customStart, customEnd, applyCustom]) e.classList.toggle('shown', custom);
    if (!custom) post({ type: 'timeRange', timeRange: { preset: rangeSelect.value as '1h' } });
});

function showTimeRange(range: TimeRangeSpec): void {
    if ('preset' in range) {
        rangeSelect.value = range.preset;
        for (const e of [customStart, customEnd, applyCustom]) e.classList.remove('shown');
    } else {
        rangeSelect.value = 'custom';
        customStart.value = range.start;
        customEnd.value = range.end;
        for (const e of [customStart, customEnd, applyCustom]) e.classList.add('shown');
    }
}

function showNote(text: string, kind: 'info' | 'warn' | 'error' = 'info'): void {
    const p = el('p', { class: kind }, text);
    notes.append(p);
}

// -------------------------------------------------------------------------------------- grid

let run: RunView | undefined;
let api: GridApi<unknown[]> | undefined;
let chart: ChartHandle | undefined;
let requestId = 0;
const pending = new Map<number, IGetRowsParams>();
let painted = false;
/** When the finished run reached the view (to tell the drawing time from the transport time). */
let doneAt = 0;

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

function cellText(v: unknown): string {
    if (v === null || v === undefined) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function columnDefs(view: RunView): ColDef<unknown[]>[] {
    const rowNumber: ColDef<unknown[]> = {
        colId: '#',
        headerName: '#',
        valueGetter: p => (p.node?.rowIndex ?? 0) + 1,
        width: 80,
        sortable: false,
        resizable: true,
        pinned: 'left',
        cellClass: 'row-number',
    };
    return [
        rowNumber,
        ...view.fields.map((f, i): ColDef<unknown[]> => ({
            colId: f.name,
            headerName: f.name,
            headerTooltip: `${f.name}: ${f.type}`,
            valueGetter: p => p.data?.[i] ?? null,
            valueFormatter: p => cellText(p.value),
            sortable: true,
            resizable: true,
            width: f.name === '_time' || f.name === '_sysTime' ? 230 : 160,
        })),
    ];
}

/** Rows that came with the run: the first block is answered from them without a round trip. */
let preloaded: { runId: number; rows: unknown[][] } | undefined;

const datasource: IDatasource = {
    getRows(params: IGetRowsParams) {
        if (!run) return params.failCallback();
        if (preloaded && preloaded.runId === run.runId && params.startRow === 0 && (preloaded.rows.length >= params.endRow || preloaded.rows.length === run.rowCount)) {
            const rows = preloaded.rows.slice(0, params.endRow);
            preloaded = undefined;
            params.successCallback(rows, rows.length < params.endRow ? rows.length : run.rowCount);
            onRowsShown(rows.length);
            return;
        }
        const id = ++requestId;
        pending.set(id, params);
        post({ type: 'getRows', runId: run.runId, requestId: id, start: params.startRow, end: params.endRow });
    },
};

let columnsShown = '';

function showGrid(view: RunView): void {
    const defs = columnDefs(view);
    if (!api) {
        api = createGrid<unknown[]>(gridBox, {
            theme,
            styleNonce: nonce,
            rowModelType: 'infinite',
            cacheBlockSize: BLOCK_SIZE,
            maxBlocksInCache: MAX_BLOCKS,
            maxConcurrentDatasourceRequests: 2,
            infiniteInitialRowCount: Math.min(view.rowCount, BLOCK_SIZE),
            columnDefs: defs,
            rowSelection: { mode: 'multiRow', checkboxes: false, headerCheckbox: false, enableClickSelection: true },
            suppressMultiSort: true,
            // A sort is done by the service: the query is run again with `| sort by` added.
            onSortChanged: (e: SortChangedEvent) => onSort(e),
            onCellFocused: (e: CellFocusedEvent) => showDetails(e.rowIndex ?? undefined),
            onBodyScroll: () => updateStatus(),
            ensureDomOrder: true,
            datasource,
        });
        gridBox.addEventListener('keydown', onGridKey);
    } else {
        // The same columns as the last run (running a query again): keep them, only the rows change.
        const signature = view.fields.map(f => `${f.name}:${f.type}`).join('\n');
        if (signature !== columnsShown) api.setGridOption('columnDefs', defs);
        api.setGridOption('datasource', datasource);
    }
    columnsShown = view.fields.map(f => `${f.name}:${f.type}`).join('\n');
}

function onGridKey(e: KeyboardEvent): void {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
        e.preventDefault();
        copySelection();
    }
}

function onSort(e: SortChangedEvent): void {
    if (!run || e.source !== 'uiColumnSorted') return;
    const col = e.api.getColumnState().find(c => c.sort);
    if (col) post({ type: 'sort', runId: run.runId, field: col.colId, desc: col.sort === 'desc' });
}

function selectedRowIndexes(): number[] {
    const nodes = api?.getSelectedNodes() ?? [];
    const indexes = nodes.map(n => n.rowIndex).filter((i): i is number => typeof i === 'number');
    if (indexes.length > 0) return indexes.sort((a, b) => a - b);
    const focused = api?.getFocusedCell()?.rowIndex;
    return typeof focused === 'number' ? [focused] : [];
}

function copySelection(): void {
    if (!run) return;
    const rows = selectedRowIndexes();
    if (rows.length === 0) return;
    post({ type: 'copyRows', runId: run.runId, rows, format: copyFormat.value as 'tsv', headers: copyHeaders.checked });
}

/** The first row in view (AG Grid's first displayed row includes the buffer rendered above the viewport). */
function firstVisibleRow(): number {
    if (!api) return 0;
    const height = api.getSizesForCurrentTheme().rowHeight || 1;
    return Math.max(0, Math.round(api.getVerticalPixelRange().top / height));
}

function goToPage(delta: number): void {
    if (!api || !run || run.rowCount === 0) return;
    const size = run.pageSize;
    const first = firstVisibleRow();
    const page = Math.floor(first / size);
    const target = Math.max(0, Math.min(run.rowCount - 1, (page + delta) * size));
    api.ensureIndexVisible(target, 'top');
    api.setFocusedCell(target, run.fields[0]?.name ?? '#');
    updateStatus(target);
}

// --------------------------------------------------------------------------------- details

function showDetails(rowIndex: number | undefined): void {
    if (!run || rowIndex === undefined || !api) return;
    const node = api.getDisplayedRowAtIndex(rowIndex);
    const data = node?.data;
    if (!data) return;
    details.hidden = false;
    details.replaceChildren();
    const title = el('h2', {}, `Row ${fmt(rowIndex + 1)}`);
    const object = Object.fromEntries(run.fields.map((f, i) => [f.name, data[i] ?? null]));
    const json = JSON.stringify(object, null, 2);
    const copyJson = button('Copy JSON', 'Copy this event as JSON', () => post({ type: 'copyText', text: json }));
    const close = button('Close', 'Close the row details', () => (details.hidden = true));
    const list = el('dl');
    run.fields.forEach((f, i) => {
        const dt = el('dt', { title: f.type }, f.name);
        const dd = el('dd');
        const value = el('code', {}, cellText(data[i]));
        const copy = button('Copy', `Copy the value of ${f.name}`, () => post({ type: 'copyText', text: cellText(data[i]) }));
        const filter = button('Filter', `Add | where ${f.name} == this value, and run again`, () => run && post({ type: 'filter', runId: run.runId, field: f.name, value: data[i] ?? null }));
        dd.append(value, copy, filter);
        list.append(dt, dd);
    });
    details.append(title, copyJson, close, list);
}

// ---------------------------------------------------------------------------------- status

function updateStatus(firstRow?: number): void {
    if (!run) return;
    status.dataset.state = run.state;
    status.dataset.rowsMatched = String(run.rowsMatched);
    status.dataset.rowCount = String(run.rowCount);
    status.dataset.requests = String(run.requests);
    status.dataset.elapsedMs = String(run.elapsedMs);
    status.textContent = statusText(run, firstRow ?? firstVisibleRow());
    cancelButton.disabled = run.state !== 'running';
    const paged = run.state === 'done' && run.rowCount > run.pageSize;
    nextButton.disabled = !paged;
    prevButton.disabled = !paged;
    exportButton.disabled = run.state !== 'done';
}

function onRowsShown(count: number): void {
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
        delete status.dataset.paintMs;
        notes.replaceChildren();
        painted = false;
        details.hidden = true;
    }
    updateStatus();
    // A chart belongs to the run that drew it.
    if (view.state !== 'done') {
        chart?.destroy();
        chart = undefined;
        chartBox.hidden = true;
    }
    if (view.state === 'running') return;
    notes.replaceChildren();
    for (const note of runNotes(view)) showNote(note.text, note.kind);
    if (view.emptyHint) {
        // Nothing in the range, but events elsewhere: say where, and offer the range that holds them.
        showNote(view.emptyHint, 'info');
        notes.lastElementChild?.append(' ', button('Search all time', 'Run the query again over all time', () => post({ type: 'timeRange', timeRange: { preset: 'all' } })));
    }
    if (view.state === 'done') {
        doneAt = Date.now();
        preloaded = view.firstRows ? { runId: view.runId, rows: view.firstRows } : undefined;
        view.firstRows = undefined;
        showGrid(view);
        chart?.destroy();
        chart = undefined;
        chartBox.hidden = !view.chart;
        if (view.chart) {
            chart = renderChart(chartBox, view.chart, (start, end) => run && post({ type: 'zoom', runId: run.runId, start, end }));
        }
    }
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
        case 'run':
            showRun(m.run);
            break;
        case 'rows': {
            const params = pending.get(m.requestId);
            pending.delete(m.requestId);
            if (!params || !run || m.runId !== run.runId) return;
            run.rowCount = m.rowCount;
            run.rowsLoaded = m.rowsLoaded;
            run.requests = m.requests;
            const lastRow = m.start + m.rows.length < params.endRow ? m.start + m.rows.length : m.rowCount;
            params.successCallback(m.rows, lastRow);
            onRowsShown(m.rows.length);
            break;
        }
        case 'rowsFailed': {
            const params = pending.get(m.requestId);
            pending.delete(m.requestId);
            params?.failCallback();
            showNote(`Rows could not be read: ${m.message}`, 'error');
            break;
        }
    }
});

post({ type: 'ready' });
