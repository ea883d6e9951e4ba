/**
 * The notebook renderer of an APL cell's output (contributes.notebookRenderer): a status line, the
 * page as an accessible grid (role="grid", aria-rowcount = the whole result), Previous/Next page,
 * Export of all rows and Cancel, and the chart of a time-binned result (ECharts, the panel's option). The rows stay in the
 * extension host: a page is asked for through the renderer messaging API and comes from the
 * service (client/vscode/src/notebook/notebook-extension.ts). A stored output (a reopened notebook)
 * shows its snapshot and how old it is.
 */
import * as echarts from 'echarts/core';
import { cellChartOption } from '../../../notebook/chart-image.js';
import { snapshotAge, type CellOutputData } from '../../src/notebook/notebook-model.js';
import { chartTheme } from '../chart-theme.js';

/** The parts of VS Code's renderer API used here (the `vscode-notebook-renderer` types are not a dependency). */
interface OutputItem {
    id: string;
    json(): unknown;
}
interface RendererContext {
    postMessage?(message: unknown): void;
    onDidReceiveMessage?(listener: (message: unknown) => void): { dispose(): void };
}

type HostMessage =
    | { type: 'page'; runId: number; page: number; fields: { name: string; type: string }[]; columns: unknown[][]; rows: number; rowCount: number; requests: number }
    | { type: 'exported'; runId: number; rows: number; file: string }
    | { type: 'failed'; runId: number; message: string }
    | { type: 'gone'; runId: number };

const STYLE = `
.apl-nb { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
.apl-nb .status { margin: 4px 0; opacity: .85; }
.apl-nb .error { color: var(--vscode-errorForeground); white-space: pre-wrap; }
.apl-nb .bar { display: flex; gap: 6px; margin: 4px 0; }
.apl-nb button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; padding: 2px 8px; cursor: pointer; }
.apl-nb button:disabled { opacity: .5; cursor: default; }
.apl-nb .grid-wrap { max-height: 360px; overflow: auto; }
.apl-nb table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: 12px; }
.apl-nb th, .apl-nb td { border: 1px solid var(--vscode-editorWidget-border, #8884); padding: 1px 6px; text-align: left; white-space: nowrap; max-width: 40em; overflow: hidden; text-overflow: ellipsis; }
.apl-nb th { position: sticky; top: 0; background: var(--vscode-editor-background); }
.apl-nb .chart { margin: 4px 0; height: 220px; max-width: 100%; overflow: hidden; }
`;

function text(v: unknown): string {
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, content?: string): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (content !== undefined) e.textContent = content;
    return e;
}

/** The grid of one page: `first` is the 0-based index of its first row in the whole result. */
function grid(fields: readonly { name: string; type: string }[], rows: readonly unknown[][], first: number, total: number): HTMLElement {
    const table = el('table', { role: 'grid', 'aria-rowcount': String(total + 1), 'aria-colcount': String(fields.length), 'aria-label': 'Result' });
    const head = el('tr', { role: 'row', 'aria-rowindex': '1' });
    fields.forEach((f, i) => head.append(el('th', { role: 'columnheader', 'aria-colindex': String(i + 1), title: f.type }, f.name)));
    const body = el('tbody');
    rows.forEach((row, r) => {
        const tr = el('tr', { role: 'row', 'aria-rowindex': String(first + r + 2) });
        row.forEach((v, c) => tr.append(el('td', { role: 'gridcell', 'aria-colindex': String(c + 1) }, text(v))));
        body.append(tr);
    });
    const thead = el('thead');
    thead.append(head);
    table.append(thead, body);
    const wrap = el('div', { class: 'grid-wrap' });
    wrap.append(table);
    return wrap;
}

/**
 * The line chart of a time-binned result: the same ECharts option the results panel draws and the
 * exports write (client/notebook/chart-image.ts), live here (tooltips, legend).
 */
function chart(data: NonNullable<CellOutputData['chart']>, width: number): { box: HTMLElement; chart: echarts.ECharts } {
    const box = el('div', { class: 'chart', 'data-testid': 'apl-chart', role: 'img', 'aria-label': `Line chart of ${data.series.map(s => s.label).join(', ')} over ${data.timeColumn}, ${data.x.length} points` });
    box.dataset.series = String(data.series.length);
    box.dataset.points = String(data.x.length);
    const instance = echarts.init(box, undefined, { renderer: 'svg', width: Math.max(320, width), height: CHART_HEIGHT });
    instance.setOption(cellChartOption(data, chartTheme('utc')));
    return { box, chart: instance };
}

const CHART_HEIGHT = 220;

function columnsToRows(columns: readonly unknown[][], rows: number): unknown[][] {
    return Array.from({ length: rows }, (_, r) => columns.map(c => c[r]));
}

export function activate(context: RendererContext) {
    const views = new Map<number, (m: HostMessage) => void>();
    context.onDidReceiveMessage?.(m => views.get((m as HostMessage).runId)?.(m as HostMessage));
    const charts = new Map<string, echarts.ECharts>();
    const observers = new Map<string, ResizeObserver>();
    const dispose = (id: string) => {
        observers.get(id)?.disconnect();
        observers.delete(id);
        charts.get(id)?.dispose();
        charts.delete(id);
    };

    return {
        disposeOutputItem(id?: string) {
            for (const key of id === undefined ? [...charts.keys()] : [id]) dispose(key);
        },
        renderOutputItem(item: OutputItem, element: HTMLElement) {
            const data = item.json() as CellOutputData;
            dispose(item.id);
            element.replaceChildren();
            const style = el('style', {}, STYLE);
            const root = el('div', { class: 'apl-nb' });
            element.append(style, root);
            const s = data.snapshot;
            const live = data.live;
            const status = el('div', { class: 'status', role: 'status' });
            root.append(status);

            if (live?.state === 'running') {
                status.textContent = 'Running…';
                const cancel = el('button', { type: 'button' }, 'Cancel');
                cancel.addEventListener('click', () => context.postMessage?.({ type: 'cancel', runId: live.runId }));
                root.append(cancel);
                return;
            }
            if (s.error) {
                status.textContent = `${s.ranOn ? `${s.ranOn} · ` : ''}${data.live ? '' : snapshotAge(s.ranAt, Date.now())}`;
                const where = s.error.line !== undefined ? `line ${s.error.line}, column ${s.error.column ?? 1}: ` : '';
                root.append(el('div', { class: 'error', role: 'alert' }, `${where}${s.error.message}`));
                return;
            }
            if (data.chart && data.chart.series.length > 0) {
                const drawn = chart(data.chart, element.clientWidth || root.clientWidth || 640);
                root.append(drawn.box);
                charts.set(item.id, drawn.chart);
                const resize = new ResizeObserver(() => drawn.chart.resize({ width: Math.max(320, root.clientWidth || 640) }));
                resize.observe(root);
                observers.set(item.id, resize);
            }
            const table = s.tables[0];
            if (!live) {
                // A stored output: its snapshot, and how old it is.
                const total = table?.totalRows ?? 0;
                const shown = table?.rows.length ?? 0;
                status.textContent = `Stored output: ${snapshotAge(s.ranAt, Date.now())}${s.ranOn ? ` on ${s.ranOn}` : ''} · ${total.toLocaleString('en-US')} rows${shown < total ? ` (the first ${shown} kept)` : ''}${data.range ? ` · ${data.range}` : ''} · run the cell again to refresh`;
                if (table) root.append(grid(table.fields, table.rows, 0, total));
                return;
            }

            let page = 0;
            let rowCount = live.rowCount;
            const pages = () => Math.max(1, Math.ceil(rowCount / Math.max(1, live.pageSize)));
            const bar = el('div', { class: 'bar', role: 'toolbar', 'aria-label': 'Result pages' });
            const prev = el('button', { type: 'button' }, 'Previous page');
            const next = el('button', { type: 'button' }, 'Next page');
            const exportButton = el('button', { type: 'button' }, 'Export…');
            const cancel = el('button', { type: 'button' }, 'Cancel');
            const note = el('span', { 'aria-live': 'polite' });
            bar.append(prev, next, exportButton, cancel, note);
            let gridEl = grid(live.fields, columnsToRows(live.columns, live.pageRows), 0, rowCount);
            root.append(bar, gridEl);
            const paint = (requests: number) => {
                status.textContent = `${rowCount.toLocaleString('en-US')} rows · page ${page + 1} of ${pages()} · ${requests} request${requests === 1 ? '' : 's'} · ${s.elapsedMs ?? 0} ms${s.ranOn ? ` · ${s.ranOn}` : ''}${data.range ? ` · ${data.range}` : ''}${s.isPartial ? ' · partial' : ''}`;
                prev.disabled = page === 0;
                next.disabled = page + 1 >= pages();
            };
            paint(live.requests);
            const ask = (p: number) => {
                note.textContent = 'Loading…';
                prev.disabled = next.disabled = true;
                context.postMessage?.({ type: 'page', runId: live.runId, page: p });
            };
            prev.addEventListener('click', () => ask(page - 1));
            next.addEventListener('click', () => ask(page + 1));
            exportButton.addEventListener('click', () => {
                note.textContent = 'Exporting…';
                context.postMessage?.({ type: 'export', runId: live.runId, format: 'csv' });
            });
            cancel.addEventListener('click', () => context.postMessage?.({ type: 'cancel', runId: live.runId }));
            views.set(live.runId, m => {
                if (m.type === 'page') {
                    page = m.page;
                    rowCount = m.rowCount;
                    const fresh = grid(m.fields, columnsToRows(m.columns, m.rows), m.page * live.pageSize, rowCount);
                    gridEl.replaceWith(fresh);
                    gridEl = fresh;
                    note.textContent = '';
                    paint(m.requests);
                } else if (m.type === 'exported') {
                    note.textContent = `Exported ${m.rows.toLocaleString('en-US')} rows to ${m.file}`;
                } else if (m.type === 'failed') {
                    note.textContent = m.message;
                    paint(live.requests);
                } else {
                    note.textContent = 'This result is no longer held: run the cell again for more pages.';
                    prev.disabled = next.disabled = true;
                    exportButton.disabled = true;
                }
            });
        },
    };
}
