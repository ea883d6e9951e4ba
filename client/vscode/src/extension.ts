/**
 * The composition root: builds the managers (connections, runner, history, schema, local service)
 * and their UI halves (results panel, schema tree, status bar, CodeLens), and registers the
 * commands. The command ids and their arguments are a stable contract (README, tests):
 *
 *   apl.run({ uri?, line?, text?, timeRange?, connection? }) → { rowsMatched, rowsLoaded, state, … }
 *   apl.cancel() · apl.exportResults({ format, uri? }) · apl.addConnection({ name, url, token, orgId?, paging? }?)
 *   apl.selectConnection(name?) · apl.removeConnection(name?) · apl.startLocalService() · apl.refreshSchema()
 *   apl.showHistory() · apl.translateToLegacy({ uri?, line? }?)
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { QueryBlockInfo } from '../../../language/lsp/apl-query-info.js';
import { parseAxiomConfig } from './connections/axiom-config.js';
import { ConnectionManager, LOCAL_CONNECTION, type Connection, type ConnectionProfile, type PagingSetting } from './connections/connection-manager.js';
import { LocalService } from './connections/local-service.js';
import { HistoryManager, type HistoryEntry } from './history/history-manager.js';
import { AplLanguageClient } from './language-client.js';
import { blockAt } from './query/block-picker.js';
import { filterClause, withFilter } from './query/filter-clause.js';
import { QueryRunner, type Run, type RunRequest, type RunSummary } from './query/query-runner.js';
import { runLenses } from './query/run-lens.js';
import { exportPages, isExportFormat, type ExportFormat } from './results/export-writer.js';
import { ResultsPanel } from './results/results-panel.js';
import { fetchSchema, schemaPayload } from './schema/schema-manager.js';
import { INSERT_COMMAND, SchemaTree } from './schema/schema-tree.js';
import { parseTimeRangeSpec, resolveTimeRange, TIME_PRESETS, type TimeRangeSpec } from './time-range.js';

const TIME_RANGE_KEY = 'apl.timeRange';

/** What the extension returns from `activate`: read-only views for tests and other extensions (never a token). */
export interface AplExtensionApi {
    lastRun(): RunSummary | undefined;
    connections: { names(): string[]; active(): string | undefined; hasToken(name: string): Promise<boolean> };
    history: { search(text: string): Promise<HistoryEntry[]>; file: string };
    /** Milliseconds from the start of the last run to its first rows painted in a results view. */
    lastPaintMs(): number | undefined;
    schemaDatasets(): string[];
}

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
            write: profiles => config().update('connections', profiles, vscode.ConfigurationTarget.Global),
        },
        context.secrets,
        context.globalState,
        process.env,
    );
    const history = new HistoryManager(join(storage, 'history.jsonl'), () => config().get<number>('history.maxEntries', 500));
    const runner = new QueryRunner(connections, history, () => ({
        pageSize: clampInt(config().get<number>('results.pageSize', 1000), 1, 50_000),
        cachedPages: clampInt(config().get<number>('results.cachedPages', 20), 1, 1000),
    }));
    const localService = new LocalService(dist, join(storage, 'local-service'), line => output.appendLine(`[apl serve] ${line}`));
    context.subscriptions.push({ dispose: () => localService.stop() });
    const languageClient = await AplLanguageClient.start(join(dist, 'language-server.cjs'), output);
    context.subscriptions.push(languageClient);

    // ------------------------------------------------------------------------------ UI halves
    const runDiagnostics = vscode.languages.createDiagnosticCollection('apl-run');
    context.subscriptions.push(runDiagnostics);
    let timeRange: TimeRangeSpec = parseTimeRangeSpec(context.globalState.get(TIME_RANGE_KEY)) ?? parseTimeRangeSpec(config().get('defaultTimeRange')) ?? { preset: '24h' };
    let lastPaint: { runId: number; ms: number } | undefined;

    const panel = new ResultsPanel(context.extensionUri, {
        rerun: () => void rerun(),
        cancel: () => runner.cancel(),
        exportResults: format => void vscode.commands.executeCommand('apl.exportResults', { format }),
        setTimeRange: range => void setTimeRange(range, true),
        timeRange: () => timeRange,
        zoom: (start, end) => void setTimeRange({ start, end }, true),
        filter: (field, type, value) => {
            const run = runner.current;
            if (run) void startRun({ ...run.request, text: withFilter(run.request.text, filterClause(field, type, value)), origin: undefined }, run.connection);
        },
        settings: () => ({
            sortLimit: clampInt(config().get<number>('results.sortLimit', 100_000), 0, 10_000_000),
            timeZone: config().get<string>('results.timeZone', 'utc') === 'local' ? 'local' : 'utc',
        }),
        painted: (runId, at) => {
            const run = runner.current;
            if (run && run.id === runId && (!lastPaint || lastPaint.runId !== runId)) lastPaint = { runId, ms: Math.max(0, at - run.startedAt) };
        },
    });
    context.subscriptions.push(vscode.window.registerWebviewViewProvider(ResultsPanel.viewType, panel, { webviewOptions: { retainContextWhenHidden: true } }), panel);

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
        void vscode.commands.executeCommand('setContext', 'apl.running', run.state === 'running');
        if (run.state === 'error') showRunError(run);
    });

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
        return requestFromBlock(text, block, { uri: document.uri.toString(), line: block.range.start.line, character: block.range.start.character });
    }

    function requestFromBlock(text: string, block: QueryBlockInfo | undefined, origin: RunRequest['origin']): RunRequest {
        return {
            text,
            pageable: block?.pageable ?? false,
            order: block?.order ?? 'desc',
            notPageableReason: block ? block.notPageableReason : 'the selection holds more than one query block',
            timeColumn: block?.timeColumn,
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
        await context.globalState.update(TIME_RANGE_KEY, range);
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
        const diagnostic = new vscode.Diagnostic(range, run.error!.message, vscode.DiagnosticSeverity.Error);
        diagnostic.source = `APL (${run.connection.name})`;
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
        if (args?.format !== undefined && !format) throw new Error(`apl.exportResults: format must be csv, ndjson or json, got ${JSON.stringify(args.format)}`);
        if (!format) {
            const pick = await vscode.window.showQuickPick(['csv', 'ndjson', 'json'], { title: 'Export every row as' });
            if (!pick) return undefined;
            format = pick as ExportFormat;
        }
        let target: vscode.Uri | undefined = typeof args?.uri === 'string' ? vscode.Uri.parse(args.uri) : args?.uri instanceof vscode.Uri ? args.uri : undefined;
        if (!target) {
            target = await vscode.window.showSaveDialog({ filters: { [format.toUpperCase()]: [format] }, saveLabel: 'Export', title: `Export ${run.result.rowCount.toLocaleString('en-US')} rows` });
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
                });
                if (summary.fieldsAfterHeader.length > 0) {
                    void vscode.window.showWarningMessage(`APL: ${summary.fieldsAfterHeader.join(', ')} first appeared after the CSV header was written; export as NDJSON to keep them.`);
                }
                void vscode.window.setStatusBarMessage(`APL: exported ${summary.rows.toLocaleString('en-US')} rows to ${file}`, 5000);
                return { rows: summary.rows, bytes: summary.bytes, file };
            } catch (e) {
                if (controller.signal.aborted) {
                    void vscode.window.showInformationMessage('APL: export cancelled (no file written).');
                    return { rows: 0, bytes: 0, file, cancelled: true };
                }
                throw e;
            }
        });
    });

    register('apl.addConnection', async (args?: { name?: string; url?: string; token?: string; orgId?: string; paging?: PagingSetting }) => {
        const interactive = !args;
        const name = args?.name ?? (await vscode.window.showInputBox({ title: 'APL: Add Connection (1/3)', prompt: 'A name for the connection', placeHolder: 'production', ignoreFocusOut: true }));
        if (!name) return undefined;
        const url = args?.url ?? (await vscode.window.showInputBox({ title: 'APL: Add Connection (2/3)', prompt: 'The URL of the Axiom API or of apl serve', value: 'https://api.axiom.co', ignoreFocusOut: true }));
        if (!url) return undefined;
        const token = args?.token ?? (await vscode.window.showInputBox({ title: 'APL: Add Connection (3/3)', prompt: 'An API token (xaat-…) or personal token (xapt-…); it is kept in the secret storage', password: true, ignoreFocusOut: true }));
        if (!token) return undefined;
        const orgId = args ? args.orgId : await vscode.window.showInputBox({ title: 'APL: Add Connection', prompt: 'Organisation id (needed with a personal token; leave empty otherwise)', ignoreFocusOut: true });
        const profile: ConnectionProfile = { name, url, orgId: orgId || undefined, paging: args?.paging };
        try {
            const saved = await connections.add(profile, token, client => client.user());
            if (interactive) void vscode.window.showInformationMessage(`APL: connected to ${saved.name}.`);
            return { name: saved.name };
        } catch (e) {
            const message = `APL: cannot add the connection '${name}': ${errorText(e)}`;
            if (interactive) {
                void vscode.window.showErrorMessage(message);
                return undefined;
            }
            throw new Error(message, { cause: e });
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

    register('apl.showHistory', async () => {
        const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { entry: HistoryEntry }>();
        pick.title = 'APL: Query History (type to search; Enter runs it again)';
        pick.matchOnDetail = true;
        pick.matchOnDescription = true;
        const entries = await history.entries();
        pick.items = entries.map(entry => ({
            label: entry.text.replace(/\s+/g, ' ').slice(0, 120),
            description: `${entry.outcome} · ${entry.rowsMatched?.toLocaleString('en-US') ?? '–'} rows · ${entry.elapsedMs} ms`,
            detail: `${entry.at} · ${entry.connection} · ${entry.range}${entry.error ? ` · ${entry.error}` : ''}`,
            entry,
        }));
        pick.onDidAccept(async () => {
            const chosen = pick.selectedItems[0]?.entry;
            pick.hide();
            if (!chosen) return;
            const document = await vscode.workspace.openTextDocument({ language: 'apl', content: chosen.text + '\n' });
            await vscode.window.showTextDocument(document);
            await vscode.commands.executeCommand('apl.run', { uri: document.uri.toString(), line: 0, connection: connections.list().some(c => c.name === chosen.connection) ? chosen.connection : undefined });
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
            diagnostic.source = 'APL translate';
            runDiagnostics.set(document.uri, [diagnostic]);
            void vscode.window.showErrorMessage(`APL: ${answer.error.message} (line ${line + 1}, column ${character + 1})`);
            return { error: answer.error.message, line: line + 1, column: character + 1 };
        }
        const json = JSON.stringify(answer, null, 2);
        const opened = await vscode.workspace.openTextDocument({ language: 'json', content: json + '\n' });
        await vscode.window.showTextDocument(opened, { viewColumn: vscode.ViewColumn.Beside });
        return answer;
    });

    register('apl.openResultsInEditor', () => panel.openInEditor());

    register(INSERT_COMMAND, async (text: string) => {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
            await vscode.env.clipboard.writeText(text);
            void vscode.window.setStatusBarMessage(`APL: ${text} copied (no editor open)`, 3000);
            return;
        }
        await editor.edit(edit => {
            for (const s of editor.selections) edit.replace(s, text);
        });
    });

    // ------------------------------------------------------------------------------ CodeLens
    context.subscriptions.push(
        vscode.languages.registerCodeLensProvider({ language: 'apl' }, {
            async provideCodeLenses(document) {
                const info = await languageClient.queryInfo(document);
                return runLenses(info.blocks, document.uri.toString()).map(({ line, ...command }) => new vscode.CodeLens(new vscode.Range(line, 0, line, 0), command));
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

