/**
 * APL notebooks in VS Code (docs/notebooks.md): the `.aplnb` serializer, the controller that runs
 * APL cells on a connection (the notebook's, by name, else the active one), the renderer's messages
 * (pages, export, cancel: the rows stay here, the renderer asks for what it shows), the notebook and
 * cell time range pickers, and the Markdown/.ipynb export and .ipynb import commands.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { notebookFromIpynb } from '../../../notebook/ipynb.js';
import type { NotebookCell, NotebookTimeRange } from '../../../notebook/aplnb.js';
import type { Connection, ConnectionManager } from '../connections/connection-manager.js';
import type { AplLanguageClient } from '../language-client.js';
import { exportPages, isExportFormat } from '../results/export-writer.js';
import type { ResultSet } from '../results/result-set.js';
import { ALL_TIME_START, presetLabel, resolveTimeRange, TIME_PRESETS, type TimeRangeSpec } from '../time-range.js';
import { cellPreludes } from './cell-preludes.js';
import { importedNotebookPath } from './import-name.js';
import { runCell } from './cell-runner.js';
import { NOTEBOOK_TYPE, OUTPUT_MIME, readNotebookRecord, toAplNotebook, writeNotebookRecord, type CellOutputData, type CellRecord, type NotebookRecord } from './notebook-model.js';
import { reportedByLanguageServer, yieldToLanguageServer } from '../run-diagnostics.js';

export const RENDERER_ID = 'apl-tools.notebook-renderer';

export interface NotebookHost {
    connections: ConnectionManager;
    languageClient: AplLanguageClient;
    /** The editor's time range (the results toolbar's), for a notebook that sets none. */
    timeRange: () => TimeRangeSpec;
    settings: () => { pageSize: number; cachedPages: number };
    formulaGuard: () => boolean;
}

/** Renderer → host. */
type RendererMessage = { type: 'page'; runId: number; page: number } | { type: 'export'; runId: number; format?: string } | { type: 'cancel'; runId: number };

interface LiveRun {
    set?: ResultSet;
    controller: AbortController;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function outputOf(outputs: readonly { items: readonly { mime: string; data: Uint8Array }[] }[] | undefined): CellOutputData | undefined {
    for (const o of outputs ?? []) {
        const item = o.items.find(i => i.mime === OUTPUT_MIME);
        if (item) return JSON.parse(decoder.decode(item.data)) as CellOutputData;
    }
    return undefined;
}

function timeRangeOf(metadata: { [key: string]: unknown } | undefined): NotebookTimeRange | undefined {
    const v = metadata?.timeRange;
    if (!v || typeof v !== 'object') return undefined;
    const { start, end } = v as { start?: unknown; end?: unknown };
    return { ...(typeof start === 'string' && { start }), ...(typeof end === 'string' && { end }) };
}

interface CellLike {
    kind: vscode.NotebookCellKind;
    text: string;
    metadata?: { [key: string]: unknown };
    outputs?: readonly { items: readonly { mime: string; data: Uint8Array }[] }[];
}

/** The notebook's cells and metadata as the file's record (for saving and for export). */
export function recordOf(cells: readonly CellLike[], metadata: { [key: string]: unknown } | undefined): NotebookRecord {
    const connection = typeof metadata?.connection === 'string' ? metadata.connection : undefined;
    const range = timeRangeOf(metadata);
    return {
        ...(connection !== undefined && { connection }),
        ...(range && { timeRange: range }),
        cells: cells.map((c): CellRecord => {
            if (c.kind === vscode.NotebookCellKind.Markup) return { kind: 'markdown', text: c.text };
            const cellRange = timeRangeOf(c.metadata);
            const output = outputOf(c.outputs);
            return { kind: 'apl', text: c.text, ...(cellRange && { timeRange: cellRange }), ...(output && { output }) };
        }),
    };
}

function documentRecord(nb: vscode.NotebookDocument): NotebookRecord {
    return recordOf(
        nb.getCells().map(c => ({ kind: c.kind, text: c.document.getText(), metadata: c.metadata, outputs: c.outputs })),
        nb.metadata,
    );
}

function outputItem(data: CellOutputData): vscode.NotebookCellOutput {
    return new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.json(data, OUTPUT_MIME)]);
}

/** The record as VS Code's notebook data (new notebooks, imports and opened files). */
export function notebookData(record: NotebookRecord): vscode.NotebookData {
    const data = new vscode.NotebookData(
        record.cells.map(c => {
            if (c.kind === 'markdown') return new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, c.text, 'markdown');
            const cell = new vscode.NotebookCellData(vscode.NotebookCellKind.Code, c.text, 'apl');
            if (c.timeRange) cell.metadata = { timeRange: c.timeRange };
            if (c.output) cell.outputs = [outputItem(c.output)];
            return cell;
        }),
    );
    data.metadata = { ...(record.connection !== undefined && { connection: record.connection }), ...(record.timeRange && { timeRange: record.timeRange }) };
    return data;
}

export class AplNotebookSerializer implements vscode.NotebookSerializer {
    deserializeNotebook(content: Uint8Array): vscode.NotebookData {
        return notebookData(readNotebookRecord(decoder.decode(content)));
    }

    serializeNotebook(data: vscode.NotebookData): Uint8Array {
        return encoder.encode(writeNotebookRecord(recordOf(data.cells.map(c => ({ kind: c.kind, text: c.value, metadata: c.metadata, outputs: c.outputs })), data.metadata)));
    }
}

/** The picker's ranges as the file stores them (relative to "now" at each run). */
function rangeOfPreset(preset: (typeof TIME_PRESETS)[number]): NotebookTimeRange {
    return preset === 'all' ? { start: ALL_TIME_START } : { start: `now-${preset}` };
}

async function pickTimeRange(current: NotebookTimeRange | undefined, clearLabel: string): Promise<NotebookTimeRange | null | undefined> {
    type Item = vscode.QuickPickItem & { range?: NotebookTimeRange | null };
    const items: Item[] = [
        { label: clearLabel, range: null },
        ...TIME_PRESETS.map(p => ({ label: presetLabel(p), range: rangeOfPreset(p) })),
        { label: 'Custom…', description: 'a start and an end: RFC 3339, a date, or now-2h' },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'APL notebook time range', placeHolder: current ? `now: ${current.start ?? '…'} to ${current.end ?? 'now'}` : undefined });
    if (!picked) return undefined;
    if (picked.range !== undefined) return picked.range;
    const start = await vscode.window.showInputBox({ title: 'Start', value: current?.start ?? 'now-1h' });
    if (start === undefined) return undefined;
    const end = await vscode.window.showInputBox({ title: 'End (empty: now)', value: current?.end ?? '' });
    if (end === undefined) return undefined;
    return { start, ...(end.trim() !== '' && { end }) };
}

/** The cells without their outputs (what a script is made of). */
function plainCells(record: NotebookRecord): NotebookCell[] {
    return record.cells.map(c => (c.kind === 'apl' ? { kind: 'apl', text: c.text, ...(c.timeRange && { timeRange: c.timeRange }) } : { kind: 'markdown', text: c.text }));
}

function withoutTimeRange(metadata: { [key: string]: unknown }): { [key: string]: unknown } {
    const rest = { ...metadata };
    delete rest.timeRange;
    return rest;
}

export function registerNotebooks(context: vscode.ExtensionContext, host: NotebookHost): void {
    const subs = context.subscriptions;
    subs.push(vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, new AplNotebookSerializer()));
    const diagnostics = vscode.languages.createDiagnosticCollection('apl-notebook');
    subs.push(diagnostics, yieldToLanguageServer(diagnostics));
    const live = new Map<number, LiveRun>();
    const runOfCell = new Map<string, number>();
    let nextRunId = 1;
    let executionOrder = 0;

    const controller = vscode.notebooks.createNotebookController('apl-notebook-controller', NOTEBOOK_TYPE, 'APL');
    controller.supportedLanguages = ['apl'];
    controller.supportsExecutionOrder = true;
    subs.push(controller);
    // The only kernel of an APL notebook: preferred, so a run does not first ask which kernel to use.
    const prefer = (nb: vscode.NotebookDocument) => {
        if (nb.notebookType === NOTEBOOK_TYPE) controller.updateNotebookAffinity(nb, vscode.NotebookControllerAffinity.Preferred);
    };
    vscode.workspace.notebookDocuments.forEach(prefer);
    subs.push(vscode.workspace.onDidOpenNotebookDocument(prefer));

    // The language server checks each cell with the lets of the cells above it (apl/cellPrelude).
    const pending = new Map<vscode.NotebookDocument, ReturnType<typeof setTimeout>>();
    const sendPreludes = (nb: vscode.NotebookDocument) => {
        if (nb.notebookType !== NOTEBOOK_TYPE) return;
        const cells = nb.getCells();
        for (const p of cellPreludes(plainCells(documentRecord(nb)))) void host.languageClient.cellPrelude(cells[p.index].document.uri.toString(), p.prelude, p.later);
    };
    const schedule = (nb: vscode.NotebookDocument) => {
        clearTimeout(pending.get(nb));
        pending.set(nb, setTimeout(() => { pending.delete(nb); sendPreludes(nb); }, 250));
    };
    vscode.workspace.notebookDocuments.forEach(sendPreludes);
    subs.push(
        vscode.workspace.onDidOpenNotebookDocument(sendPreludes),
        // A server started after a crash or a restart knows no preludes: each open notebook's are sent again.
        host.languageClient.onDidStartServer(() => vscode.workspace.notebookDocuments.forEach(sendPreludes)),
        vscode.workspace.onDidChangeNotebookDocument(e => {
            if (e.contentChanges.length > 0 || e.cellChanges.some(c => c.document)) schedule(e.notebook);
        }),
        { dispose: () => pending.forEach(t => clearTimeout(t)) },
        // A closed notebook's results are let go.
        vscode.workspace.onDidCloseNotebookDocument(nb => {
            for (const cell of nb.getCells()) {
                const id = runOfCell.get(cell.document.uri.toString());
                if (id === undefined) continue;
                live.get(id)?.controller.abort();
                live.delete(id);
                runOfCell.delete(cell.document.uri.toString());
            }
        }),
    );

    function connectionFor(nb: vscode.NotebookDocument): Connection | undefined {
        const name = typeof nb.metadata.connection === 'string' ? nb.metadata.connection : undefined;
        return (name !== undefined ? host.connections.list().find(c => c.name === name) : undefined) ?? host.connections.active();
    }

    async function runOne(cell: vscode.NotebookCell): Promise<void> {
        const nb = cell.notebook;
        const execution = controller.createNotebookCellExecution(cell);
        execution.executionOrder = ++executionOrder;
        execution.start(Date.now());
        const runId = nextRunId++;
        const run: LiveRun = { controller: new AbortController() };
        // A cell holds one result: the one before is let go (its output is replaced).
        const previous = runOfCell.get(cell.document.uri.toString());
        if (previous !== undefined) {
            live.get(previous)?.controller.abort();
            live.delete(previous);
        }
        runOfCell.set(cell.document.uri.toString(), runId);
        live.set(runId, run);
        execution.token.onCancellationRequested(() => run.controller.abort());
        diagnostics.delete(cell.document.uri);
        const ranAt = new Date().toISOString();
        await execution.replaceOutput(outputItem({ snapshot: { ranAt, tables: [] }, live: { runId, state: 'running', rowCount: 0, pageSize: 0, pageRows: 0, fields: [], columns: [], rowsMatched: 0, requests: 0 } }));
        const connection = connectionFor(nb);
        try {
            if (!connection) throw new Error("no connection: run 'APL: Start Local Service' or 'APL: Add Connection'");
            const cells = plainCells(documentRecord(nb));
            const result = await runCell({
                cells,
                index: cell.index,
                notebookRange: timeRangeOf(nb.metadata),
                fallbackRange: resolveTimeRange(host.timeRange(), new Date()),
                client: await host.connections.client(connection),
                connectionName: connection.name,
                paging: host.connections.pagingOf(connection),
                info: async text => {
                    const info = await host.languageClient.queryInfo(text);
                    const block = info.blocks.length === 1 ? info.blocks[0] : undefined;
                    return { pageable: block?.pageable ?? false, order: block?.order ?? 'desc', timeColumn: block?.timeColumn };
                },
                ...host.settings(),
                signal: run.controller.signal,
                runId,
            });
            run.set = result.set;
            if (!result.set) live.delete(runId);
            await execution.replaceOutput(outputItem(result.output));
            if (result.error) {
                const line = Math.max(0, (result.error.line ?? 1) - 1);
                const text = cell.document.lineAt(Math.min(line, cell.document.lineCount - 1));
                const start = result.error.line !== undefined ? Math.max(0, (result.error.column ?? 1) - 1) : text.firstNonWhitespaceCharacterIndex;
                const range = new vscode.Range(text.lineNumber, Math.min(start, text.text.length), text.lineNumber, text.text.length);
                const where = result.error.line === undefined ? ' (in the statements this cell takes from the cells above it)' : '';
                const d = new vscode.Diagnostic(range, `${result.error.message}${where}`, vscode.DiagnosticSeverity.Error);
                d.source = 'apl service';
                // The cell's output says it either way; the squiggle is the language server's when it has one there.
                if (!reportedByLanguageServer(cell.document.uri, range)) diagnostics.set(cell.document.uri, [d]);
            }
            execution.end(!result.error, Date.now());
        } catch (e) {
            live.delete(runId);
            const cancelled = run.controller.signal.aborted;
            const message = cancelled ? 'cancelled' : e instanceof Error ? e.message : String(e);
            await execution.replaceOutput(outputItem({ snapshot: { ranAt, ...(connection && { ranOn: connection.name }), tables: [], error: { message } } }));
            execution.end(cancelled ? undefined : false, Date.now());
        }
    }

    controller.executeHandler = async cells => {
        for (const cell of cells) if (cell.kind === vscode.NotebookCellKind.Code) await runOne(cell);
    };
    controller.interruptHandler = () => {
        for (const r of live.values()) r.controller.abort();
    };

    const messaging = vscode.notebooks.createRendererMessaging(RENDERER_ID);
    subs.push(
        messaging.onDidReceiveMessage(async ({ editor, message }) => {
            const m = message as RendererMessage;
            const run = live.get(m.runId);
            if (m.type === 'cancel') {
                run?.controller.abort();
                return;
            }
            if (!run?.set) {
                void messaging.postMessage({ type: 'gone', runId: m.runId }, editor);
                return;
            }
            const set = run.set;
            try {
                if (m.type === 'page') {
                    const page = await set.page(m.page);
                    void messaging.postMessage({ type: 'page', runId: m.runId, page: m.page, fields: page.fields, columns: page.columns, rows: page.rows, rowCount: set.rowCount, requests: set.requests }, editor);
                } else if (m.type === 'export') {
                    const format = isExportFormat(m.format) ? m.format : 'csv';
                    const target = await vscode.window.showSaveDialog({ title: 'Export all rows', filters: { [format.toUpperCase()]: [format] } });
                    if (!target) return;
                    const summary = await exportPages(set.allPages(run.controller.signal), target.fsPath, format, undefined, { formulaGuard: host.formulaGuard() });
                    void messaging.postMessage({ type: 'exported', runId: m.runId, rows: summary.rows, file: target.fsPath }, editor);
                }
            } catch (e) {
                void messaging.postMessage({ type: 'failed', runId: m.runId, message: e instanceof Error ? e.message : String(e) }, editor);
            }
        }),
    );

    const register = (id: string, fn: (...args: never[]) => unknown) => subs.push(vscode.commands.registerCommand(id, fn));
    register('apl.newNotebook', async () => {
        const record: NotebookRecord = { cells: [{ kind: 'markdown', text: '# APL notebook' }, { kind: 'apl', text: '' }] };
        const nb = await vscode.workspace.openNotebookDocument(NOTEBOOK_TYPE, notebookData(record));
        await vscode.window.showNotebookDocument(nb);
    });
    register('apl.notebookTimeRange', async () => {
        const editor = vscode.window.activeNotebookEditor;
        if (!editor || editor.notebook.notebookType !== NOTEBOOK_TYPE) return;
        const nb = editor.notebook;
        const picked = await pickTimeRange(timeRangeOf(nb.metadata), "The editor's (results toolbar)");
        if (picked === undefined) return;
        const rest = withoutTimeRange(nb.metadata);
        const edit = new vscode.WorkspaceEdit();
        edit.set(nb.uri, [vscode.NotebookEdit.updateNotebookMetadata(picked === null ? rest : { ...rest, timeRange: picked })]);
        await vscode.workspace.applyEdit(edit);
    });
    register('apl.notebookCellTimeRange', async (arg?: vscode.NotebookCell) => {
        const editor = vscode.window.activeNotebookEditor;
        const cell = arg ?? (editor ? editor.notebook.cellAt(editor.selection.start) : undefined);
        if (!cell || cell.notebook.notebookType !== NOTEBOOK_TYPE) return;
        const picked = await pickTimeRange(timeRangeOf(cell.metadata), "The notebook's");
        if (picked === undefined) return;
        const rest = withoutTimeRange(cell.metadata);
        const edit = new vscode.WorkspaceEdit();
        edit.set(cell.notebook.uri, [vscode.NotebookEdit.updateCellMetadata(cell.index, picked === null ? rest : { ...rest, timeRange: picked })]);
        await vscode.workspace.applyEdit(edit);
    });
    async function exportNotebook(kind: 'md' | 'ipynb', arg?: vscode.Uri): Promise<void> {
        const editor = vscode.window.activeNotebookEditor;
        if (!editor || editor.notebook.notebookType !== NOTEBOOK_TYPE) return void vscode.window.showInformationMessage('APL: open an APL notebook to export it');
        const record = documentRecord(editor.notebook);
        const base = editor.notebook.uri.path.replace(/\.aplnb$/, '');
        // A target given by the caller (a test, a keybinding's args) skips the dialog.
        const target = arg ?? (await vscode.window.showSaveDialog({ defaultUri: editor.notebook.uri.with({ path: `${base}.${kind}` }), filters: kind === 'md' ? { Markdown: ['md'] } : { Jupyter: ['ipynb'] } }));
        if (!target) return;
        // Loaded on first use: the charts' renderer (ECharts) is not needed to open a notebook.
        const { exportNotebook: write } = await import('../../../notebook/notebook-export.js');
        const charts = new Map(record.cells.flatMap((c, i) => (c.output?.chart ? [[i, c.output.chart] as const] : [])));
        try {
            const files = await write(toAplNotebook(record), target.fsPath, kind === 'md' ? 'markdown' : 'ipynb', charts);
            const pictures = files.length - 1;
            void vscode.window.showInformationMessage(`APL: exported the notebook to ${target.fsPath}${pictures > 0 ? ` and ${pictures} chart${pictures === 1 ? '' : 's'} beside it` : ''}`);
        } catch (e) {
            void vscode.window.showErrorMessage(`APL: the notebook could not be exported to ${target.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
        }
    }
    register('apl.exportNotebookMarkdown', (target?: vscode.Uri) => exportNotebook('md', target instanceof vscode.Uri ? target : undefined));
    register('apl.exportNotebookIpynb', (target?: vscode.Uri) => exportNotebook('ipynb', target instanceof vscode.Uri ? target : undefined));
    register('apl.importIpynb', async (arg?: vscode.Uri) => {
        const uri = arg ?? (await vscode.window.showOpenDialog({ filters: { Jupyter: ['ipynb'] }, canSelectMany: false }))?.[0];
        if (!uri) return;
        let record: NotebookRecord;
        try {
            record = readNotebookRecord(JSON.stringify(notebookFromIpynb(await readFile(uri.fsPath, 'utf8'))));
        } catch (e) {
            return void vscode.window.showErrorMessage(`APL: ${uri.fsPath} cannot be imported: ${e instanceof Error ? e.message : String(e)}`);
        }
        // Untitled but named after the .ipynb (its Save proposes <name>.aplnb), filled by an edit.
        const open = new Set(vscode.workspace.notebookDocuments.filter(d => d.uri.scheme === 'untitled').map(d => d.uri.path));
        const path = importedNotebookPath(uri.fsPath, p => existsSync(p) || open.has(vscode.Uri.file(p).path));
        const nb = await vscode.workspace.openNotebookDocument(vscode.Uri.file(path).with({ scheme: 'untitled' }));
        const data = notebookData(record);
        const edit = new vscode.WorkspaceEdit();
        edit.set(nb.uri, [vscode.NotebookEdit.replaceCells(new vscode.NotebookRange(0, nb.cellCount), data.cells), vscode.NotebookEdit.updateNotebookMetadata(data.metadata ?? {})]);
        await vscode.workspace.applyEdit(edit);
        await vscode.window.showNotebookDocument(nb);
    });
}
