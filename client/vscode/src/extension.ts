/**
 * The composition root: builds the managers (connections, runner, history, schema, local service)
 * and their UI halves (results panel, schema tree, status bar, CodeLens), and registers the
 * commands. The command ids and their arguments are a stable contract (README, tests):
 *
 *   apl.run({ uri?, line?, text?, timeRange?, connection? }) → { rowsMatched, rowsLoaded, state, … }
 *   apl.cancel() · apl.exportResults({ format, uri? }) · apl.addConnection({ name, url, token, orgId?, paging? }?)
 *   apl.selectConnection(name?) · apl.removeConnection(name?) · apl.startLocalService() · apl.refreshSchema()
 *   apl.showHistory() · apl.translateToLegacy({ uri?, line? }?) · apl.widenTimeRange() → RunSummary
 *   apl.filterByValue({ field, value }) → RunSummary · apl.openResultsInEditor({ format? }?)
 *   apl.explainQuery({ uri?, line?, text?, timeRange?, rows? }?) → ExplainSummary (the Explain view's content)
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import * as vscode from 'vscode';
import { measureNote, measureStages } from '../../../language/explain.js';
import type { QueryBlockInfo } from '../../../language/lsp/apl-query-info.js';
import { promptConnection } from './connections/add-connection-prompt.js';
import { parseAxiomConfig } from './connections/axiom-config.js';
import { ConnectionManager, LOCAL_CONNECTION, type Connection, type ConnectionProfile, type PagingSetting } from './connections/connection-manager.js';
import { LocalService } from './connections/local-service.js';
import { exportFileName } from './export-name.js';
import { historyLabel, localTime, relativeTime } from './history/history-label.js';
import { HistoryManager, type HistoryEntry } from './history/history-manager.js';
import { ResultHistory } from './history/result-history.js';
import { parseSavedResult, runOfSavedResult, savedResultOf, serializeSavedResult, type SavedResult } from './results/saved-result.js';
import { SavedResultEditor } from './results/saved-result-editor.js';
import { axiomJsSnippet, consoleLink, curlCommand } from './results/query-links.js';
import { LegacyDocuments } from './legacy-documents.js';
import { AplLanguageClient } from './language-client.js';
import { blockAt } from './query/block-picker.js';
import { emptyRangeHint, type DatasetSpan } from './query/empty-hint.js';
import { filterClause, nestedFilterClause, withFilter } from './query/filter-clause.js';
import { registerAgentFeatures } from './agents/register-agents.js';
import { QueryRunner, type Run, type RunRequest, type RunSummary } from './query/query-runner.js';
import { explainHtml, type ExplainSummary, type ExplainViewStage } from './query/explain-view.js';
import { explainLenses, runLenses } from './query/run-lens.js';
import { formatRows } from './results/copy-format.js';
import { ChartChoices } from './results/chart-choices.js';
import { earlierPeriodRows } from './results/earlier-period.js';
import { EXPORT_FORMATS, ExportIncompleteError, exportPages, isExportFormat, type ExportFormat } from './results/export-writer.js';
import { CHART_MAX_ROWS, csvFormulaGuard, ResultsPanel } from './results/results-panel.js';
import { registerNotebooks } from './notebook/notebook-extension.js';
import { reportedByLanguageServer, yieldToLanguageServer } from './run-diagnostics.js';
import { fetchSchema, schemaPayload } from './schema/schema-manager.js';
import { INSERT_COMMAND, insertText, SchemaTree, type SchemaNode } from './schema/schema-tree.js';
import { parseTimeRangeSpec, resolveTimeRange, TIME_PRESETS, type TimeRangeSpec } from './time-range.js';

const TIME_RANGE_KEY = 'apl.timeRange';
/** At most this long after a run ends, the `apl.running` context key says so (sooner once its rows are painted). */
const RUNNING_KEY_AFTER_MS = 100;

/** What the extension returns from `activate`: read-only views for tests and other extensions (never a token). */
export interface AplExtensionApi {
    lastRun(): RunSummary | undefined;
    connections: { names(): string[]; active(): string | undefined; hasToken(name: string): Promise<boolean> };
    history: { search(text: string): Promise<HistoryEntry[]>; file: string };
    /** Milliseconds from the start of the last run to its first rows painted in a results view. */
    lastPaintMs(): number | undefined;
    schemaDatasets(): string[];
    /** The time range runs use, as remembered for this workspace. */
    timeRange(): TimeRangeSpec | undefined;
}

/** The first rows the Explain view shows after each stage. */
const EXPLAIN_SAMPLE_ROWS = 3;

/** Rows "Open in editor" puts in a text editor; more belong in a file (Export). */
const OPEN_IN_EDITOR_MAX_ROWS = 10_000;

function config() {
    return vscode.workspace.getConfiguration('apl');
}

export async function activate(context: vscode.ExtensionContext): Promise<AplExtensionApi> {
    const output = vscode.window.createOutputChannel('APL', { log: true });
    const dist = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath;
    const storage = context.globalStorageUri.fsPath;

    // ------------------------------------------------------------------------------ managers
    const connections = new ConnectionManager(
        {
            read: () => config().get('connections'),
            // The user's own value: a folder's settings never decide where a saved token may go.
            readUser: () => config().inspect('connections')?.globalValue,
            write: profiles => config().update('connections', profiles, vscode.ConfigurationTarget.Global),
        },
        context.secrets,
        context.globalState,
        process.env,
        message => {
            output.warn(message);
            void vscode.window.showWarningMessage(`APL: ${message}`);
        },
    );
    /** Runs whose first paint something waits for (paintedOrAfter). */
    const paintWaiters = new Map<number, Set<() => void>>();
    /** Resolves when the results view painted run `runId`'s first rows, or after `ms` (no view open, no rows). */
    const paintedOrAfter = (runId: number, ms: number) =>
        new Promise<void>(resolve => {
            const done = () => {
                clearTimeout(timer);
                const waiters = paintWaiters.get(runId);
                waiters?.delete(done);
                if (waiters?.size === 0) paintWaiters.delete(runId);
                resolve();
            };
            const timer = setTimeout(done, ms);
            paintWaiters.set(runId, (paintWaiters.get(runId) ?? new Set()).add(done));
        });
    const history = new HistoryManager(join(storage, 'history.jsonl'), () => config().get<number>('history.maxEntries', 500));
    const resultHistory = new ResultHistory(join(storage, 'results'), () => ({
        maxResults: clampInt(config().get<number>('history.maxResults', 50), 0, 10_000),
        maxBytes: Math.max(0, config().get<number>('history.maxResultMegabytes', 50)) * 1024 * 1024,
        maxRows: clampInt(config().get<number>('results.pageSize', 1000), 1, 50_000),
    }));
    const runner = new QueryRunner(
        connections,
        history,
        () => ({
            pageSize: clampInt(config().get<number>('results.pageSize', 1000), 1, 50_000),
            cachedPages: clampInt(config().get<number>('results.cachedPages', 20), 1, 1000),
        }),
        Date.now,
        // The history keeps the first page once the view has painted it: copying and writing its
        // rows right away would hold up the message that carries them to the view.
        run => paintedOrAfter(run.id, 1000).then(() => resultHistory.keep(run)),
    );
    const localService = new LocalService(dist, join(storage, 'local-service'), line => output.appendLine(`[apl serve] ${line}`));
    context.subscriptions.push({ dispose: () => localService.stop() });
    const languageClient = await AplLanguageClient.start(join(dist, 'language-server.cjs'), output);
    context.subscriptions.push(languageClient);
    context.subscriptions.push(
        ...registerAgentFeatures({
            cli: join(dist, 'apl-cli.cjs'),
            activeConnection: () => connections.active(),
            token: c => connections.token(c),
            onDidChangeConnections: listener => connections.onDidChange(listener),
            log: line => output.appendLine(line),
        }),
    );

    // ------------------------------------------------------------------------------ UI halves
    const runDiagnostics = vscode.languages.createDiagnosticCollection('apl-run');
    context.subscriptions.push(runDiagnostics);
    // The last range picked in this workspace (a project of old logs keeps All time), else the setting.
    let timeRange: TimeRangeSpec = parseTimeRangeSpec(context.workspaceState.get(TIME_RANGE_KEY)) ?? parseTimeRangeSpec(config().get('defaultTimeRange')) ?? { preset: '24h' };
    let lastPaint: { runId: number; ms: number } | undefined;

    registerNotebooks(context, {
        connections,
        languageClient,
        timeRange: () => timeRange,
        settings: () => ({ pageSize: clampInt(config().get<number>('results.pageSize', 1000), 1, 50_000), cachedPages: clampInt(config().get<number>('results.cachedPages', 20), 1, 1000) }),
        formulaGuard: csvFormulaGuard,
    });

    const panel = new ResultsPanel(context.extensionUri, {
        rerun: () => void rerun(),
        cancel: () => runner.cancel(),
        exportResults: format => void vscode.commands.executeCommand('apl.exportResults', { format }),
        setTimeRange: range => void setTimeRange(range, true),
        timeRange: () => timeRange,
        zoom: (start, end) => void setTimeRange({ start, end }, true),
        filter: (field, _type, value, path) => void vscode.commands.executeCommand('apl.filterByValue', { field, value, ...(path ? { path } : {}) }),
        runQuery: text => void runInNewEditor(text),
        queryAside: text => {
            const run = runner.current;
            if (!run) return Promise.reject(new Error('no query has run'));
            return runner.aside(run, text);
        },
        settings: () => ({
            sortLimit: clampInt(config().get<number>('results.sortLimit', 100_000), 0, 10_000_000),
            timeZone: config().get<string>('results.timeZone', 'utc') === 'local' ? 'local' : 'utc',
        }),
        chartChoices: new ChartChoices(context.workspaceState),
        earlierPeriod: async (run, offsetMs) => earlierPeriodRows(await connections.client(run.connection), run.request.text, run.range, offsetMs, CHART_MAX_ROWS),
        recallLast: async () => {
            const entry = (await history.entries()).find(e => e.outcome === 'done' && e.resultId);
            const saved = entry?.resultId ? await resultHistory.load(entry.resultId) : undefined;
            // A run started while the history was read wins over the recall.
            if (saved && !runner.current) showSaved(saved, false);
        },
        painted: (runId, at) => {
            const run = runner.current;
            if (run && run.id === runId && (!lastPaint || lastPaint.runId !== runId)) lastPaint = { runId, ms: Math.max(0, at - run.startedAt) };
            for (const done of [...(paintWaiters.get(runId) ?? [])]) done();
        },
    });
    context.subscriptions.push(vscode.window.registerWebviewViewProvider(ResultsPanel.viewType, panel, { webviewOptions: { retainContextWhenHidden: true } }), panel);

    const legacyDocuments = new LegacyDocuments();
    context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(LegacyDocuments.scheme, legacyDocuments));

    const schemaTree = new SchemaTree();
    context.subscriptions.push(vscode.window.registerTreeDataProvider('apl.schema', schemaTree));
    let schemaDatasets: string[] = [];

    const statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
    statusItem.command = 'apl.selectConnection';
    context.subscriptions.push(statusItem);
    const updateStatusItem = () => {
        const active = connections.active();
        statusItem.text = `$(database) APL: ${active ? active.name : 'no connection'}`;
        statusItem.tooltip = active ? `${active.url}${active.orgId ? ` (org ${active.orgId})` : ''}\nClick to pick another connection` : 'Click to add or pick a connection';
        statusItem.show();
    };
    updateStatusItem();

    runner.onDidChange(run => {
        panel.show(run);
        const setRunning = (running: boolean) => void vscode.commands.executeCommand('setContext', 'apl.running', running);
        // A finished run's rows are painted first: the workbench updates its menus for the context key
        // on the thread the results view runs on, in the way of the rows' message (docs/benchmarks.md).
        // A run that failed or was cancelled brings no rows: its key changes at once.
        if (run.state !== 'done') setRunning(run.state === 'running');
        else void paintedOrAfter(run.id, RUNNING_KEY_AFTER_MS).then(() => runner.current?.state !== 'running' && setRunning(false));
        if (run.state === 'error') showRunError(run);
        if (run.state === 'done' && run.result?.rowCount === 0) void explainEmpty(run);
    });

    /** A run that found nothing: when the time range is why, the view says where the events are (and offers All time). */
    async function explainEmpty(run: Run): Promise<void> {
        const datasets = run.request.datasets ?? [];
        if (datasets.length === 0 || ('preset' in run.request.timeRange && run.request.timeRange.preset === 'all')) return;
        try {
            const client = await connections.client(run.connection);
            const spans: DatasetSpan[] = await Promise.all(
                datasets.map(async name => {
                    const info = await client.datasets.info(name);
                    return { name, events: info.numEvents, minTime: info.minTime, maxTime: info.maxTime };
                }),
            );
            const hint = emptyRangeHint(run.range, spans);
            if (hint && runner.current === run) {
                run.emptyHint = hint;
                panel.show(run);
            }
        } catch (e) {
            // The explanation is a courtesy: without the dataset's info the view only says 0 rows.
            output.debug(`no explanation for the empty result: ${errorText(e)}`);
        }
    }

    let schemaRefresh: AbortController | undefined;
    const refreshSchema = async (): Promise<number> => {
        schemaRefresh?.abort();
        const controller = new AbortController();
        schemaRefresh = controller;
        const active = connections.active();
        if (!active) {
            schemaTree.showMessage('No connection: run "APL: Start Local Service" or "APL: Add Connection".');
            return 0;
        }
        try {
            const datasets = await fetchSchema(await connections.client(active), controller.signal);
            if (controller.signal.aborted) return 0;
            schemaDatasets = datasets.map(d => d.name);
            await languageClient.setSchema(schemaPayload(datasets));
            schemaTree.show(datasets, active.name);
            return datasets.length;
        } catch (e) {
            if (!controller.signal.aborted) schemaTree.showMessage(`Cannot read the schema of ${active.name}: ${errorText(e)}`);
            return 0;
        }
    };
    connections.onDidChange(() => {
        updateStatusItem();
        void refreshSchema();
    });
    void refreshSchema();

    context.subscriptions.push(
        vscode.workspace.onDidChangeConfiguration(e => {
            if (e.affectsConfiguration('apl.connections')) connections.changed();
            if (e.affectsConfiguration('apl.server.trace')) void languageClient.applyTrace();
        }),
        vscode.workspace.onDidChangeTextDocument(e => {
            if (e.document.languageId === 'apl' && e.contentChanges.length > 0) runDiagnostics.delete(e.document.uri);
        }),
        yieldToLanguageServer(runDiagnostics),
    );

    // ------------------------------------------------------------------------------ running
    async function requestFor(document: vscode.TextDocument, selection: vscode.Selection | undefined, line: number | undefined): Promise<RunRequest | undefined> {
        if (selection && !selection.isEmpty) {
            const text = document.getText(selection);
            const info = await languageClient.queryInfo(text);
            const single = info.blocks.length === 1 ? info.blocks[0] : undefined;
            return requestFromBlock(text, single, { uri: document.uri.toString(), line: selection.start.line, character: selection.start.character });
        }
        const info = await languageClient.queryInfo(document);
        const at = line ?? (selection ? selection.active.line : 0);
        const block = blockAt(info.blocks, { line: at, character: 0 });
        if (!block || !block.runnable) return undefined;
        const text = document.getText().slice(block.startOffset, block.endOffset);
        // A document past the analysis limits has its blocks found but not analysed: analyse this one alone.
        const analysed = block.analysed ? block : (await languageClient.queryInfo(text)).blocks[0];
        return requestFromBlock(text, analysed, { uri: document.uri.toString(), line: block.range.start.line, character: block.range.start.character });
    }

    function requestFromBlock(text: string, block: QueryBlockInfo | undefined, origin: RunRequest['origin']): RunRequest {
        return {
            text,
            pageable: block?.pageable ?? false,
            order: block?.order ?? 'desc',
            notPageableReason: block ? block.notPageableReason : 'the selection holds more than one query block',
            timeColumn: block?.timeColumn,
            datasets: block?.datasets ?? [],
            timeRange,
            origin,
        };
    }

    /** `invokedAt`: when the command asking for this run started (a run started again from the view has none). */
    async function startRun(request: RunRequest, connection?: Connection, invokedAt?: number): Promise<Run> {
        runDiagnostics.clear();
        lastPaint = undefined;
        // The view opens while the request is on its way.
        void panel.reveal();
        return runner.run({ ...request, timeRange, invokedAt }, connection);
    }

    async function rerun(): Promise<void> {
        const run = runner.current;
        if (run) await startRun(run.request, run.connection);
        else await vscode.commands.executeCommand('apl.run');
    }

    async function setTimeRange(range: TimeRangeSpec, andRerun: boolean): Promise<void> {
        timeRange = range;
        await context.workspaceState.update(TIME_RANGE_KEY, range);
        panel.showTimeRange(range);
        if (andRerun && runner.current) await startRun(runner.current.request, runner.current.connection);
    }

    function showRunError(run: Run): void {
        const origin = run.request.origin;
        const location = run.error?.location;
        if (!origin || !location) return;
        const uri = vscode.Uri.parse(origin.uri);
        const document = vscode.workspace.textDocuments.find(d => d.uri.toString() === origin.uri);
        const line = origin.line + location.line - 1;
        const character = (location.line === 1 ? origin.character : 0) + Math.max(0, location.column - 1);
        let range = new vscode.Range(line, character, line, character + 1);
        if (document && line < document.lineCount) {
            const word = document.getWordRangeAtPosition(new vscode.Position(line, character));
            const lineEnd = document.lineAt(line).range.end.character;
            range = word ?? new vscode.Range(line, Math.min(character, lineEnd), line, Math.min(lineEnd, character + 1));
        }
        // One problem, one diagnostic: the language server's (with its code and quick fix) wins.
        if (reportedByLanguageServer(uri, range)) return;
        const diagnostic = new vscode.Diagnostic(range, run.error!.message, vscode.DiagnosticSeverity.Error);
        diagnostic.source = `apl (${run.connection.name})`;
        runDiagnostics.set(uri, [diagnostic]);
    }

    // ------------------------------------------------------------------------------ commands
    const register = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

    register('apl.run', async (args?: { uri?: string; line?: number; text?: string; timeRange?: unknown; connection?: string; wait?: boolean }): Promise<RunSummary | undefined> => {
        const invokedAt = Date.now();
        const range = args?.timeRange !== undefined ? parseTimeRangeSpec(args.timeRange) : undefined;
        if (args?.timeRange !== undefined && !range) throw new Error(`apl.run: timeRange must be one of ${TIME_PRESETS.join(', ')} or { start, end }`);
        if (range) await setTimeRange(range, false);
        let connection: Connection | undefined;
        if (args?.connection !== undefined) {
            connection = connections.list().find(c => c.name === args.connection);
            if (!connection) throw new Error(`apl.run: no connection named '${args.connection}'`);
        }
        let request: RunRequest | undefined;
        if (args?.text !== undefined) {
            const info = await languageClient.queryInfo(args.text);
            request = requestFromBlock(args.text, info.blocks.length === 1 ? info.blocks[0] : undefined, undefined);
        } else {
            const editor = vscode.window.activeTextEditor;
            const document = args?.uri ? await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri)) : editor?.document;
            if (!document) {
                void vscode.window.showWarningMessage('APL: open an .apl file and put the cursor in a query to run it.');
                return undefined;
            }
            const selection = !args?.uri && editor?.document === document ? editor.selection : undefined;
            request = await requestFor(document, args?.line !== undefined ? undefined : selection, args?.line);
        }
        if (!request) {
            void vscode.window.showWarningMessage('APL: no query at the cursor.');
            return undefined;
        }
        if (!connection && !connections.active()) {
            const pick = await vscode.window.showWarningMessage('APL: no connection to run the query on.', 'Start Local Service', 'Add Connection');
            if (pick === 'Start Local Service') await vscode.commands.executeCommand('apl.startLocalService');
            else if (pick === 'Add Connection') await vscode.commands.executeCommand('apl.addConnection');
            if (!connections.active()) return undefined;
        }
        const run = await startRun(request, connection, invokedAt);
        return run.done;
    });

    register('apl.cancel', () => runner.cancel());

    register('apl.exportResults', async (args?: { format?: unknown; uri?: unknown }) => {
        const run = runner.current;
        if (!run?.result || run.state !== 'done') throw new Error('apl.exportResults: no finished run to export: run a query first');
        let format: ExportFormat | undefined = isExportFormat(args?.format) ? args.format : undefined;
        if (args?.format !== undefined && !format) throw new Error(`apl.exportResults: format must be ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(args.format)}`);
        if (!format) {
            const pick = await vscode.window.showQuickPick([...EXPORT_FORMATS], { title: 'Export every row as' });
            if (!pick) return undefined;
            format = pick as ExportFormat;
        }
        let target: vscode.Uri | undefined = typeof args?.uri === 'string' ? vscode.Uri.parse(args.uri) : args?.uri instanceof vscode.Uri ? args.uri : undefined;
        if (!target) {
            const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
            const defaultUri = vscode.Uri.joinPath(folder, exportFileName(run.request.datasets ?? [], new Date(run.startedAt), format));
            target = await vscode.window.showSaveDialog({ defaultUri, filters: { [format.toUpperCase()]: [format] }, saveLabel: 'Export', title: `Export ${run.result.rowCount.toLocaleString('en-US')} rows` });
            if (!target) return undefined;
        }
        if (target.scheme !== 'file') throw new Error(`apl.exportResults: the export goes to a local file, not ${target.scheme}:`);
        const result = run.result;
        const file = target.fsPath;
        const total = result.rowCount;
        return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `APL: exporting to ${file}`, cancellable: true }, async (progress, token) => {
            const controller = new AbortController();
            token.onCancellationRequested(() => controller.abort());
            let reported = 0;
            try {
                const summary = await exportPages(result.allPages(controller.signal), file, format, rows => {
                    progress.report({ message: `${rows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows`, increment: total > 0 ? ((rows - reported) / total) * 100 : undefined });
                    reported = rows;
                }, { formulaGuard: csvFormulaGuard(), expectedRows: total });
                if (summary.fieldsAfterHeader.length > 0) {
                    void vscode.window.showWarningMessage(`APL: ${summary.fieldsAfterHeader.join(', ')} first appeared after the ${format === 'csv' ? 'CSV header' : 'columns'} was written; export as NDJSON to keep them.`);
                }
                if (summary.cellsCut) void vscode.window.showWarningMessage(`APL: ${summary.cellsCut.toLocaleString('en-US')} values were longer than an Excel cell holds (32,767 characters) and were cut; export as NDJSON to keep them whole.`);
                void vscode.window.setStatusBarMessage(`APL: exported ${summary.rows.toLocaleString('en-US')} rows to ${file}`, 5000);
                return { rows: summary.rows, bytes: summary.bytes, file };
            } catch (e) {
                if (controller.signal.aborted) {
                    void vscode.window.showInformationMessage('APL: export cancelled (no file written).');
                    return { rows: 0, bytes: 0, file, cancelled: true };
                }
                // Loud, not a success message over a short file (the view said how many rows there are).
                if (e instanceof ExportIncompleteError) void vscode.window.showErrorMessage(`APL: export failed: ${e.message}.`);
                throw e;
            }
        });
    });

    register('apl.addConnection', async (args?: { name?: string; url?: string; token?: string; orgId?: string; paging?: PagingSetting }) => {
        const save = async (profile: ConnectionProfile, token: string) => (await connections.add(profile, token, client => client.user())).name;
        if (!args) {
            // The prompts check each answer as it is typed and come back to the step at fault, answers kept.
            const name = await promptConnection(connections.profiles().map(p => p.name), a => save({ name: a.name, url: a.url, orgId: a.orgId || undefined }, a.token));
            if (name) void vscode.window.showInformationMessage(`APL: connected to ${name}.`);
            return name ? { name } : undefined;
        }
        try {
            return { name: await save({ name: args.name ?? '', url: args.url ?? '', orgId: args.orgId || undefined, paging: args.paging }, args.token ?? '') };
        } catch (e) {
            throw new Error(`APL: cannot add the connection '${args.name}': ${errorText(e)}`, { cause: e });
        }
    });

    register('apl.selectConnection', async (name?: string) => {
        if (typeof name === 'string') return (await connections.select(name)).name;
        const list = connections.list();
        const items: (vscode.QuickPickItem & { action?: string })[] = list.map(c => ({ label: c.name, description: c.url, detail: c.source === 'environment' ? 'from AXIOM_URL / AXIOM_TOKEN' : c.source === 'local' ? 'apl serve started by this window' : undefined, picked: c.name === connections.active()?.name }));
        items.push({ label: '$(add) Add Connection…', action: 'apl.addConnection' }, { label: '$(server) Start Local Service', action: 'apl.startLocalService' }, { label: '$(cloud-download) Import from ~/.axiom.toml', action: 'apl.importAxiomConfig' });
        const pick = await vscode.window.showQuickPick(items, { title: 'APL: Select Connection' });
        if (!pick) return undefined;
        if (pick.action) return vscode.commands.executeCommand(pick.action);
        return (await connections.select(pick.label)).name;
    });

    register('apl.removeConnection', async (name?: string) => {
        const target = typeof name === 'string' ? name : (await vscode.window.showQuickPick(connections.profiles().map(p => p.name), { title: 'APL: Remove Connection' }));
        if (!target) return undefined;
        await connections.remove(target);
        return target;
    });

    register('apl.importAxiomConfig', async () => {
        let text: string;
        const file = join(homedir(), '.axiom.toml');
        try {
            text = await readFile(file, 'utf8');
        } catch {
            void vscode.window.showWarningMessage(`APL: no ${file} to import.`);
            return 0;
        }
        const deployments = parseAxiomConfig(text);
        let imported = 0;
        for (const d of deployments) {
            try {
                await connections.add({ name: d.name, url: d.url, orgId: d.orgId }, d.token, client => client.user());
                imported++;
            } catch (e) {
                void vscode.window.showWarningMessage(`APL: deployment '${d.name}' was not imported: ${errorText(e)}`);
            }
        }
        const active = deployments.find(d => d.active);
        if (active && connections.list().some(c => c.name === active.name)) await connections.select(active.name);
        void vscode.window.showInformationMessage(`APL: imported ${imported} of ${deployments.length} deployment(s) from ${file}; their tokens are in the secret storage.`);
        return imported;
    });

    register('apl.startLocalService', async () => {
        const service = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'APL: starting the local service…' }, () => localService.start());
        connections.setLocal(service.url, service.token);
        await connections.select(LOCAL_CONNECTION);
        void vscode.window.showInformationMessage(`APL: local service on ${service.url} with the sample datasets. Press Ctrl+Enter in an .apl file to run a query.`);
        return { url: service.url };
    });

    register('apl.stopLocalService', () => {
        localService.stop();
        connections.clearLocal();
    });

    register('apl.refreshSchema', () => refreshSchema());

    /** A history entry's kept result, in the results view, without a request. */
    async function showSavedResult(entry: HistoryEntry): Promise<boolean> {
        const saved = entry.resultId ? await resultHistory.load(entry.resultId) : undefined;
        if (!saved) {
            void vscode.window.showInformationMessage('APL: this result is no longer kept (the oldest go first); run the query again.');
            return false;
        }
        showSaved(saved);
        return true;
    }

    /** Shows a saved result (history or .aplr) as the current run: Run runs its query again on the connection of that name. */
    function showSaved(saved: SavedResult, reveal = true): void {
        const { name, url } = saved.header.connection;
        const connection = connections.list().find(c => c.name === name) ?? { name, url, source: 'settings' as const };
        runner.show(runOfSavedResult(saved, connection));
        if (reveal) void panel.reveal();
    }

    register('apl.showHistory', async () => {
        type Item = vscode.QuickPickItem & { entry: HistoryEntry };
        const openButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: 'Open in editor' };
        const runButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('play'), tooltip: 'Run again' };
        const resultButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('table'), tooltip: 'Show the saved result' };
        const pick = vscode.window.createQuickPick<Item>();
        pick.title = 'APL: Query History';
        pick.placeholder = 'Type to search; Enter runs a query again';
        pick.matchOnDetail = true;
        pick.matchOnDescription = true;
        const entries = await history.entries();
        const now = new Date();
        pick.items = entries.map(entry => {
            const at = new Date(entry.at);
            const rows = entry.rowsMatched !== undefined ? `${entry.rowsMatched.toLocaleString()} rows` : undefined;
            const outcome = entry.outcome === 'done' ? rows : entry.outcome === 'error' ? 'failed' : 'cancelled';
            return {
                label: historyLabel(entry.text),
                description: [relativeTime(at, now), outcome, `${entry.elapsedMs.toLocaleString()} ms`].filter(Boolean).join(' · '),
                detail: [localTime(at), entry.connection, entry.range, entry.error].filter(Boolean).join(' · '),
                buttons: entry.resultId ? [resultButton, openButton, runButton] : [openButton, runButton],
                entry,
            };
        });
        const open = async (entry: HistoryEntry) => {
            const document = await vscode.workspace.openTextDocument({ language: 'apl', content: entry.text + '\n' });
            await vscode.window.showTextDocument(document);
            return document;
        };
        const runAgain = async (entry: HistoryEntry) => {
            const document = await open(entry);
            await vscode.commands.executeCommand('apl.run', { uri: document.uri.toString(), line: 0, connection: connections.list().some(c => c.name === entry.connection) ? entry.connection : undefined });
        };
        pick.onDidTriggerItemButton(async e => {
            pick.hide();
            if (e.button === openButton) await open(e.item.entry);
            else if (e.button === resultButton) await showSavedResult(e.item.entry);
            else await runAgain(e.item.entry);
        });
        pick.onDidAccept(async () => {
            const chosen = pick.selectedItems[0]?.entry;
            pick.hide();
            if (chosen) await runAgain(chosen);
        });
        pick.onDidHide(() => pick.dispose());
        pick.show();
        return entries.length;
    });

    register('apl.translateToLegacy', async (args?: { uri?: string; line?: number }) => {
        const editor = vscode.window.activeTextEditor;
        const document = args?.uri ? await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri)) : editor?.document;
        if (!document) return undefined;
        const request = await requestFor(document, args?.uri ? undefined : editor?.selection, args?.line);
        if (!request) return undefined;
        const range = resolveTimeRange(timeRange, new Date());
        const answer = await languageClient.translate(request.text, range.startTime, range.endTime);
        if ('error' in answer) {
            const at = answer.error.range.start;
            const line = (request.origin?.line ?? 0) + at.line;
            const character = (at.line === 0 ? (request.origin?.character ?? 0) : 0) + at.character;
            const diagnostic = new vscode.Diagnostic(new vscode.Range(line, character, line, character + 1), `no legacy form: ${answer.error.message}`, vscode.DiagnosticSeverity.Error);
            diagnostic.source = 'apl (translate)';
            runDiagnostics.set(document.uri, [diagnostic]);
            void vscode.window.showErrorMessage(`APL: ${answer.error.message} (line ${line + 1}, column ${character + 1})`);
            return { error: answer.error.message, line: line + 1, column: character + 1 };
        }
        // A read-only document: closing it asks nothing (an untitled one with content asks to be saved).
        const opened = await vscode.workspace.openTextDocument(legacyDocuments.add(JSON.stringify(answer, null, 2) + '\n'));
        await vscode.window.showTextDocument(opened, { viewColumn: vscode.ViewColumn.Beside });
        return answer;
    });

    context.subscriptions.push(vscode.window.registerCustomEditorProvider(SavedResultEditor.viewType, new SavedResultEditor(showSaved), { supportsMultipleEditorsPerDocument: true }));

    /** Saves the current result (its first page, with the query, connection and range; never a token) to a .aplr file. */
    register('apl.saveResult', async (args?: { uri?: unknown }) => {
        const run = runner.current;
        const saved = run ? savedResultOf(run, Number.MAX_SAFE_INTEGER) : undefined;
        if (!run || !saved) throw new Error('apl.saveResult: no finished run to save: run a query first');
        let target = typeof args?.uri === 'string' ? vscode.Uri.parse(args.uri) : undefined;
        if (!target) {
            const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
            target = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(folder, exportFileName(run.request.datasets ?? [], new Date(run.startedAt), 'aplr')), filters: { 'APL result': ['aplr'] }, saveLabel: 'Save result', title: 'Save the result (its query, range and loaded rows)' });
            if (!target) return undefined;
        }
        const text = serializeSavedResult(saved);
        await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
        void vscode.window.setStatusBarMessage(`APL: saved ${saved.header.rowsSaved.toLocaleString('en-US')} rows to ${target.fsPath}`, 5000);
        return { file: target.fsPath, rows: saved.header.rowsSaved };
    });

    /** Copies the current query as a Console link, a curl command or an @axiomhq/js snippet (never with the token). */
    register('apl.copyQueryAs', async (args?: { as?: unknown }) => {
        const run = runner.current;
        if (!run) throw new Error('apl.copyQueryAs: no query run yet: run a query first');
        const kinds = { link: 'Axiom Console link', curl: 'curl command', js: '@axiomhq/js snippet' } as const;
        let kind = typeof args?.as === 'string' && args.as in kinds ? (args.as as keyof typeof kinds) : undefined;
        if (args?.as !== undefined && !kind) throw new Error(`apl.copyQueryAs: 'as' must be link, curl or js, got ${JSON.stringify(args.as)}`);
        if (!kind) {
            const pick = await vscode.window.showQuickPick(
                (Object.keys(kinds) as (keyof typeof kinds)[]).map(k => ({ label: kinds[k], as: k })),
                { title: 'Copy the query as' },
            );
            if (!pick) return undefined;
            kind = pick.as;
        }
        const q = { apl: run.request.text, startTime: run.range.startTime, endTime: run.range.endTime, url: run.connection.url, orgId: run.connection.orgId };
        let text: string;
        if (kind === 'link') {
            const link = consoleLink(q);
            if ('reason' in link) {
                void vscode.window.showWarningMessage(`APL: no Console link: ${link.reason}.`);
                return { error: link.reason };
            }
            text = link.url;
        } else {
            text = kind === 'curl' ? curlCommand(q) : axiomJsSnippet(q);
        }
        await vscode.env.clipboard.writeText(text);
        void vscode.window.setStatusBarMessage(`APL: copied the query as ${kinds[kind]}`, 3000);
        return { text };
    });

    /** Opens a .aplr file in the results view. */
    register('apl.openResultFile', async (args?: { uri?: unknown } | vscode.Uri) => {
        let target = args instanceof vscode.Uri ? args : typeof args?.uri === 'string' ? vscode.Uri.parse(args.uri) : undefined;
        if (!target) {
            const picked = await vscode.window.showOpenDialog({ filters: { 'APL result': ['aplr'] }, openLabel: 'Open result', canSelectMany: false });
            target = picked?.[0];
            if (!target) return undefined;
        }
        const saved = parseSavedResult(new TextDecoder().decode(await vscode.workspace.fs.readFile(target)), target.path.split('/').pop() ?? target.toString());
        showSaved(saved);
        return { rows: saved.header.rowsSaved, query: saved.header.query };
    });

    register('apl.openResultsInEditor', async (args?: { format?: unknown }) => {
        const run = runner.current;
        if (!run?.result || run.state !== 'done') {
            void vscode.window.showWarningMessage('APL: no result to open: run a query first.');
            return undefined;
        }
        const format = args?.format === 'csv' ? 'csv' : 'json';
        const result = run.result;
        const count = Math.min(result.rowCount, OPEN_IN_EDITOR_MAX_ROWS);
        const rows = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'APL: reading the rows' }, () => result.rows(0, count));
        const text = formatRows(result.fields.map(f => f.name), rows, format, true, { formulaGuard: csvFormulaGuard() }) + '\n';
        const document = await vscode.workspace.openTextDocument({ language: format === 'json' ? 'json' : 'plaintext', content: text });
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Active });
        if (result.rowCount > count) {
            void vscode.window.showInformationMessage(`APL: the editor holds the first ${count.toLocaleString()} of ${result.rowCount.toLocaleString()} rows; Export writes every row to a file.`);
        }
        return { uri: document.uri.toString(), rows: rows.length };
    });

    // The project's README and docs/, bundled in dist/docs/ (the build copies them), as a Markdown preview.
    register('apl.openDocumentation', async (page?: string) => {
        const file = vscode.Uri.joinPath(context.extensionUri, 'dist', 'docs', typeof page === 'string' && /^docs\/[\w-]+\.md$/.test(page) ? page : 'README.md');
        await vscode.commands.executeCommand('markdown.showPreview', file);
        return file.toString();
    });

    register('apl.filterByValue', async (args: { field: string; value: unknown; path?: unknown }) => {
        const path = args.path;
        if (path !== undefined && !(Array.isArray(path) && path.every(k => typeof k === 'string' || (typeof k === 'number' && Number.isInteger(k) && k >= 0)))) {
            throw new Error(`apl.filterByValue: 'path' must be a list of keys (strings) and indexes (whole numbers), got ${JSON.stringify(path)}`);
        }
        return filterByValue(args.field, args.value, path as (string | number)[] | undefined);
    });

    register('apl.widenTimeRange', async (): Promise<RunSummary | undefined> => {
        await setTimeRange({ preset: 'all' }, false);
        const run = runner.current;
        if (!run) return undefined;
        return (await startRun(run.request, run.connection)).done;
    });

    // From the Schema view's inline "Insert" button or context menu (a node), or a script (a string).
    register(INSERT_COMMAND, async (what: SchemaNode | string) => {
        const text = typeof what === 'string' ? what : insertText(what);
        if (!text) return;
        const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find(e => e.document.languageId === 'apl');
        if (!editor) {
            await vscode.env.clipboard.writeText(text);
            void vscode.window.setStatusBarMessage(`APL: ${text} copied (no editor open)`, 3000);
            return;
        }
        await editor.edit(edit => {
            for (const s of editor.selections) edit.replace(s, text);
        });
        await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    });

    /**
     * "Filter by this value": the `| where` goes into the query in its editor, and that text runs, so
     * what is on screen is what ran. A query without a document (a script's text) opens in a new one.
     */
    async function filterByValue(fieldName: string, value: unknown, path?: (string | number)[]): Promise<RunSummary | undefined> {
        const run = runner.current;
        const field = run?.result?.fields.find(f => f.name === fieldName);
        if (!run || !field) return undefined;
        const clause = path && path.length > 0 ? nestedFilterClause(field.name, path, value) : filterClause(field.name, field.type, value);
        // A sort from the grid is not in the editor's text: filter the text the editor holds.
        const shown = run.request.sortBase ?? run.request.text;
        const origin = run.request.origin;
        const document = origin && vscode.workspace.textDocuments.find(d => d.uri.toString() === origin.uri);
        if (document && origin) {
            const start = document.offsetAt(new vscode.Position(origin.line, origin.character));
            if (document.getText().slice(start, start + shown.length) === shown) {
                // After the block's last character that is not a blank or a trailing ';'.
                const kept = shown.replace(/[\s;]+$/, '').length;
                const at = document.positionAt(start + kept);
                const editor = await vscode.window.showTextDocument(document, { preserveFocus: false, preview: false });
                const ok = await editor.edit(edit => edit.replace(new vscode.Range(at, document.positionAt(start + shown.length)), `\n${clause}`));
                if (ok) {
                    const text = document.getText().slice(start, start + kept + 1 + clause.length);
                    editor.selection = new vscode.Selection(document.positionAt(start + kept + 1), document.positionAt(start + kept + 1 + clause.length));
                    editor.revealRange(editor.selection);
                    const info = await languageClient.queryInfo(text);
                    const request = requestFromBlock(text, info.blocks.length === 1 ? info.blocks[0] : undefined, origin);
                    return (await startRun(request, run.connection)).done;
                }
            }
        }
        return runInNewEditor(withFilter(shown, clause));
    }

    /** Runs `text` (a query the results view made: a filter, a search on the service) from a new editor that shows it. */
    async function runInNewEditor(text: string): Promise<RunSummary | undefined> {
        const connection = runner.current?.connection;
        const opened = await vscode.workspace.openTextDocument({ language: 'apl', content: text + '\n' });
        await vscode.window.showTextDocument(opened);
        const info = await languageClient.queryInfo(text);
        return (await startRun(requestFromBlock(text, info.blocks.length === 1 ? info.blocks[0] : undefined, { uri: opened.uri.toString(), line: 0, character: 0 }), connection)).done;
    }

    // ------------------------------------------------------------------------------ Explain
    let explainPanel: vscode.WebviewPanel | undefined;
    function showExplain(summary: ExplainSummary): void {
        if (!explainPanel) {
            // Static HTML, no script: the page only shows what the command computed.
            explainPanel = vscode.window.createWebviewPanel('apl.explain', 'APL Explain', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
            explainPanel.onDidDispose(() => (explainPanel = undefined));
            context.subscriptions.push(explainPanel);
        }
        explainPanel.title = `Explain: ${summary.title}`;
        explainPanel.webview.html = explainHtml(summary, explainPanel.webview.cspSource);
        explainPanel.reveal(undefined, true);
    }

    /**
     * The stages of the query block at the cursor (or `line`), the columns after each (the language
     * server's `apl/explain`), and on the active connection the rows after each and its first rows:
     * each stage runs as its own bounded query (`| count`, `| take N`), never the whole query.
     */
    register('apl.explainQuery', async (args?: { uri?: string; line?: number; text?: string; timeRange?: unknown; rows?: number }): Promise<ExplainSummary | undefined> => {
        const range = args?.timeRange !== undefined ? parseTimeRangeSpec(args.timeRange) : timeRange;
        if (!range) throw new Error(`apl.explainQuery: timeRange must be one of ${TIME_PRESETS.join(', ')} or { start, end }`);
        let text: string;
        let position: { line: number; character: number };
        let name: string;
        if (args?.text !== undefined) {
            text = args.text;
            position = { line: 0, character: 0 };
            name = 'query';
        } else {
            const editor = vscode.window.activeTextEditor;
            const document = args?.uri ? await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri)) : editor?.document;
            if (!document) {
                void vscode.window.showWarningMessage('APL: open an .apl file and put the cursor in a query to explain it.');
                return undefined;
            }
            text = document.getText();
            const cursor = editor?.document === document ? editor.selection.active : undefined;
            position = args?.line !== undefined ? { line: args.line, character: 0 } : { line: cursor?.line ?? 0, character: cursor?.character ?? 0 };
            name = posix.basename(document.uri.path);
        }
        const explanation = await languageClient.explain(text, position);
        if (!explanation || explanation.stages.length === 0) {
            void vscode.window.showWarningMessage(`APL: ${explanation?.problem ?? 'no query at the cursor'}.`);
            return undefined;
        }
        const { start, end } = explanation.range;
        const rows = clampInt(args?.rows ?? EXPLAIN_SAMPLE_ROWS, 0, 100);
        const stages: ExplainViewStage[] = explanation.stages.map(s => ({ index: s.index, keyword: s.keyword, text: s.text, columns: s.columns, open: s.open }));
        const summary: ExplainSummary = {
            title: `${name}, ${start.line === end.line ? `line ${start.line + 1}` : `lines ${start.line + 1}–${end.line + 1}`}`,
            ran: 'nowhere',
            note: measureNote(rows),
            state: 'schema',
            stages,
        };
        const active = connections.active();
        if (!explanation.syntaxOk) summary.ran = 'nowhere: the query has a syntax error (the columns are what the editor can tell)';
        else if (!active) summary.ran = 'nowhere: no connection (the columns come from the schema; start the local service or add a connection for row counts)';
        if (!explanation.syntaxOk || !active) {
            showExplain(summary);
            return summary;
        }
        const resolved = resolveTimeRange(range, new Date());
        Object.assign(summary, { ran: `on ${active.name} (${active.url})`, timeRange: resolved.label, state: 'running' });
        showExplain(summary);
        try {
            const client = await connections.client(active);
            const measures = await measureStages(explanation.stages, apl => client.query(apl, { format: 'tabular', startTime: resolved.startTime, endTime: resolved.endTime }), rows);
            for (const m of measures) Object.assign(stages[m.index], { rows: m.rows, sample: m.sample, error: m.error, skipped: m.skipped });
            summary.state = 'done';
        } catch (e) {
            summary.state = 'error';
            summary.ran = `on ${active.name} (${active.url}): ${errorText(e)}`;
        }
        showExplain(summary);
        return summary;
    });

    // ------------------------------------------------------------------------------ CodeLens
    context.subscriptions.push(
        vscode.languages.registerCodeLensProvider({ language: 'apl' }, {
            async provideCodeLenses(document) {
                // A notebook cell runs from its own Run button (the notebook's controller).
                if (document.uri.scheme === 'vscode-notebook-cell') return [];
                const info = await languageClient.queryInfo(document);
                const uri = document.uri.toString();
                return [...runLenses(info.blocks, uri), ...explainLenses(info.blocks, uri)].map(({ line, ...command }) => new vscode.CodeLens(new vscode.Range(line, 0, line, 0), command));
            },
        }),
    );

    return {
        lastRun: () => runner.current?.summary(),
        connections: {
            names: () => connections.list().map(c => c.name),
            active: () => connections.active()?.name,
            hasToken: async name => {
                const c = connections.list().find(x => x.name === name);
                return c ? (await connections.token(c)) !== undefined : false;
            },
        },
        history: { search: text => history.search(text), file: history.file },
        lastPaintMs: () => (lastPaint && runner.current && lastPaint.runId === runner.current.id ? lastPaint.ms : undefined),
        schemaDatasets: () => schemaDatasets,
        timeRange: () => parseTimeRangeSpec(context.workspaceState.get(TIME_RANGE_KEY)),
    };
}

export function deactivate(): void {
    // Everything is disposed through context.subscriptions (the local service is stopped there).
}

function clampInt(value: number | undefined, min: number, max: number): number {
    const n = Number.isFinite(value) ? Math.floor(value as number) : min;
    return Math.min(max, Math.max(min, n));
}

function errorText(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

