/**
 * The APL language server itself, on a given message reader and writer (main.ts picks them from the
 * command line; snapshot.ts builds the server into a start-up snapshot on deferred ones). See
 * main.ts for what it offers.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { isOperationCancelled, URI } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { startLanguageServer } from 'langium/lsp';
import {
    createConnection,
    ErrorCodes,
    LSPErrorCodes,
    MessageType,
    ProposedFeatures,
    ResponseError,
    ShowMessageNotification,
    type Connection,
    type DidChangeConfigurationParams,
    type InitializeParams,
    type Message,
    type MessageReader,
    type MessageWriter,
} from 'vscode-languageserver/node';
import { CellPreludes, NotebookCellValidator, readCellPrelude } from './cell-prelude.js';
import { GuardedMessageReader } from './guarded-message-reader.js';
import { OpenDocumentsOnly, WorkspaceFilesLoader } from './open-documents-only.js';
import { readSchemaFile } from './schema-file.js';
import { SettlingDocumentBuilder } from './settling-document-builder.js';
import { AplrcError, loadAplrc } from '../config/aplrc.js';
import { ServerAnalyzerSettings } from './analyzer-settings.js';
import { createAplServices, type AplServices } from '../../language/apl-module.js';
import { AplValidator } from '../../language/apl-validator.js';
import { translate, TranslationError, type Range as AplRange, type Translation } from '../../language/legacy/translate.js';
import { queryInfoAsync, type QueryInfo } from '../../language/lsp/apl-query-info.js';
import type { AplFormatter } from '../../language/lsp/apl-formatter.js';
import { readFormatOptions, type AplFormatOptions } from '../../language/lsp/apl-format-options.js';
import { explainQuery, type Explanation } from '../../language/explain.js';
import { BuiltinSchemaProvider } from '../../language/schema/builtin-schema-provider.js';
import { MutableSchemaProvider } from '../../language/schema/mutable-schema-provider.js';
import { parseSchemaJson, schemaFromJsonValue } from '../../language/schema/static-schema-provider.js';
import type { LangiumSharedServices } from 'langium/lsp';

export interface AplLanguageServer {
    readonly connection: Connection;
    readonly shared: LangiumSharedServices;
    readonly Apl: AplServices;
}

/** Builds the server on `reader` and `writer` and starts listening: it answers once messages come. */
export function startAplLanguageServer(reader: MessageReader, writer: MessageWriter): AplLanguageServer {
    // Bad messages are dropped or answered before any handler (guarded-message-reader.ts).
    const guarded = new GuardedMessageReader(reader, {
        log: text => connection.console.warn(text),
        reject: (id, code, text) => void writer.write({ jsonrpc: '2.0', id, error: { code, message: text } } as Message).catch(() => undefined),
    });
    const connection = createConnection(ProposedFeatures.all, guarded, writer);
    consoleToClient(connection);
    // While only the sample datasets are known (no connection's schema, no schema file), they say
    // nothing of the user's own datasets: an incomplete schema (no APL0011, as `apl check` without --schema).
    const samples = () => new BuiltinSchemaProvider({ complete: false });
    const schema = new MutableSchemaProvider(samples());
    const useSamples = () => schema.replace(samples());
    // Best-practice analyzers: on by default, `apl.analyzers` and the nearest .aplrc.json select rules.
    const analyzerSettings = new ServerAnalyzerSettings(text => showError(text));
    const preludes = new CellPreludes();
    const { shared, Apl } = createAplServices({
        connection,
        ...NodeFileSystem,
        module: {
            schema: { SchemaProvider: () => schema },
            analyzers: { AnalyzerSettings: () => analyzerSettings },
            validation: { AplValidator: services => new AplValidator(services), DocumentValidator: services => new NotebookCellValidator(services, preludes) },
        },
        sharedModule: { workspace: { DocumentBuilder: services => new SettlingDocumentBuilder(services), LangiumDocuments: services => new OpenDocumentsOnly(services), WorkspaceManager: services => new WorkspaceFilesLoader(services) } },
    });

    let initOptionsSchemaFile: string | undefined;
    /** The schema file last applied (undefined: the built-in schemas, or a pushed one). */
    let appliedSchemaFile: string | undefined;
    /** Whether a client pushed a schema (apl/setSchema): one pushed before the settings were first read stays. */
    let schemaPushed = false;
    let workspaceRoot: string | undefined;
    let formatSettings: Partial<AplFormatOptions> = {};
    // The formatter's options for a document: the `apl.format` settings, then the `format` of the
    // nearest .aplrc.json above the document (the project's choice wins over one editor's).
    (Apl.lsp.Formatter as AplFormatter).optionsFor = uri => ({ ...formatSettings, ...projectFormatOptions(uri) });

    shared.lsp.LanguageServer.onInitialize((params: InitializeParams) => {
        const options = params.initializationOptions as { schemaFile?: unknown } | undefined;
        if (typeof options?.schemaFile === 'string' && options.schemaFile.trim() !== '') initOptionsSchemaFile = options.schemaFile;
        const root = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
        if (root) {
            try {
                workspaceRoot = fileURLToPath(root);
            } catch {
                workspaceRoot = undefined;
            }
        }
    });

    shared.lsp.LanguageServer.onInitialized(() => {
        void shared.workspace.ConfigurationProvider.getConfiguration('apl', 'analyzers').then(async value => {
            analyzerSettings.applySetting(value);
            if (value !== undefined && value !== null) await revalidateOpenDocuments();
        });
        void shared.workspace.ConfigurationProvider.getConfiguration('apl', 'schemaFile').then(value => applySchemaSetting(value, true));
        void shared.workspace.ConfigurationProvider.getConfiguration('apl', 'format').then(applyFormatSetting);
    });

    startLanguageServer(shared);

    // Replaces Langium's handler (one handler per notification): keep its bookkeeping, then reload.
    connection.onDidChangeConfiguration(async (change: DidChangeConfigurationParams) => {
        shared.workspace.ConfigurationProvider.updateConfiguration(change);
        let value: unknown;
        let format: unknown;
        let analyzers: unknown;
        const settings = change.settings as { apl?: { schemaFile?: unknown; format?: unknown; analyzers?: unknown } } | null | undefined;
        if (settings && typeof settings === 'object' && 'apl' in settings) {
            value = settings.apl?.schemaFile;
            format = settings.apl?.format;
            analyzers = settings.apl?.analyzers;
        } else {
            // Pull model (settings: null): ask the client.
            try {
                const section = (await connection.workspace.getConfiguration({ section: 'apl' })) as { schemaFile?: unknown; format?: unknown; analyzers?: unknown } | null;
                value = section?.schemaFile;
                format = section?.format;
                analyzers = section?.analyzers;
                // Langium's configuration (read by the inlay hints) keeps the pulled settings too.
                if (section && typeof section === 'object') shared.workspace.ConfigurationProvider.updateConfiguration({ settings: { apl: section } });
            } catch {
                value = undefined;
            }
        }
        applyFormatSetting(format);
        analyzerSettings.applySetting(analyzers);
        // Another apl.* setting changed (the analyzers, the inlay hints, the results' page size): the schema
        // stays, a schema the client pushed with apl/setSchema included; the open documents are checked
        // again with the analyzers' settings.
        if (schemaFileOf(value) === appliedSchemaFile) {
            await revalidateOpenDocuments();
            return;
        }
        await applySchemaSetting(value, false);
    });

    // A notebook cell's prelude (cell-prelude.ts): the cell is checked again with it.
    connection.onNotification('apl/cellPrelude', async (params: unknown) => {
        try {
            const { uri, ...prelude } = readCellPrelude(params);
            preludes.set(uri, prelude);
            const parsed = URI.parse(uri);
            if (!shared.workspace.LangiumDocuments.hasDocument(parsed)) return;
            await shared.workspace.WorkspaceLock.write(token => shared.workspace.DocumentBuilder.update([parsed], [], token));
        } catch (e) {
            connection.console.warn(message(e));
        }
    });

    connection.onNotification('apl/setSchema', async (params: unknown) => {
        try {
            const value = params && typeof params === 'object' && 'schema' in params ? (params as { schema: unknown }).schema : params;
            schema.replace(schemaFromJsonValue(value, 'apl/setSchema'));
            schemaPushed = true;
            await revalidateOpenDocuments();
        } catch (e) {
            showError(`APL: the schema sent with apl/setSchema cannot be used: ${message(e)}`);
        }
    });

    // Analyses block after block, yielding between them: other requests are answered meanwhile, and a
    // cancelled request (an edit made the Run lenses stale) stops.
    connection.onRequest('apl/queryInfo', async (params: { textDocument?: { uri?: unknown }; text?: unknown } | null, token): Promise<QueryInfo> => {
        let text: string | undefined;
        if (typeof params?.text === 'string') text = params.text;
        else if (typeof params?.textDocument?.uri === 'string') text = shared.workspace.TextDocuments.get(params.textDocument.uri)?.getText();
        if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, 'apl/queryInfo: pass { text } or { textDocument: { uri } } of an open document');
        try {
            return await queryInfoAsync(text, Apl, token);
        } catch (e) {
            if (isOperationCancelled(e)) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'apl/queryInfo: cancelled');
            throw e;
        }
    });

    // The stages of the query block at a position and the schema after each (language/explain.ts).
    connection.onRequest('apl/explain', (params: { textDocument?: { uri?: unknown }; text?: unknown; position?: unknown } | null): Explanation | null => {
        let text: string | undefined;
        if (typeof params?.text === 'string') text = params.text;
        else if (typeof params?.textDocument?.uri === 'string') text = shared.workspace.TextDocuments.get(params.textDocument.uri)?.getText();
        if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, 'apl/explain: pass { text } or { textDocument: { uri } } of an open document, and a position');
        const position = params?.position as { line?: unknown; character?: unknown } | undefined;
        if (position !== undefined && (typeof position?.line !== 'number' || typeof position.character !== 'number' || position.line < 0 || position.character < 0)) {
            throw new ResponseError(ErrorCodes.InvalidParams, 'apl/explain: position must be { line, character } (0-based numbers)');
        }
        const offset = position ? offsetOf(text, position.line as number, position.character as number) : 0;
        return explainQuery(text, offset, Apl) ?? null;
    });

    type TranslateAnswer = Translation | { error: { message: string; range: AplRange; construct: string } };

    connection.onRequest<TranslateAnswer, never>('apl/translate', (params: { text?: unknown; startTime?: unknown; endTime?: unknown } | null): TranslateAnswer => {
        const { text, startTime, endTime } = params ?? {};
        if (typeof text !== 'string' || typeof startTime !== 'string' || typeof endTime !== 'string') {
            throw new ResponseError(ErrorCodes.InvalidParams, 'apl/translate: pass { text, startTime, endTime } (RFC 3339 times)');
        }
        try {
            return translate(text, { startTime, endTime });
        } catch (e) {
            if (e instanceof TranslationError) return { error: { message: e.message, range: e.range, construct: e.construct } };
            throw new ResponseError(ErrorCodes.InvalidParams, `apl/translate: ${message(e)}`);
        }
    });

    /** The schema file a setting value names (else the initialization option's). */
    function schemaFileOf(value: unknown): string | undefined {
        return typeof value === 'string' && value.trim() !== '' ? value.trim() : initOptionsSchemaFile;
    }

    async function applySchemaSetting(value: unknown, initial: boolean): Promise<void> {
        const file = schemaFileOf(value);
        appliedSchemaFile = file;
        // VS Code's client pushes its schema again as soon as a restarted server runs, before the server's
        // settings are read: the push wins, as it does when it comes after them.
        if (initial && schemaPushed) return;
        const path = file !== undefined ? resolvePath(file) : undefined;
        if (path === undefined) {
            useSamples();
        } else {
            try {
                const datasets = parseSchemaJson(readSchemaFile(path), path);
                schema.replace(datasets);
                connection.console.info(`APL: loaded ${datasets.length} dataset(s) from ${path}`);
            } catch (e) {
                useSamples();
                showError(`APL: cannot use the schema file ${path}: ${message(e)}. Using the built-in sample schemas instead.`);
            }
        }
        if (!initial || path !== undefined) await revalidateOpenDocuments();
    }

    function applyFormatSetting(value: unknown): void {
        const { options, problems } = readFormatOptions(value, 'apl.format');
        formatSettings = options;
        for (const p of problems) showErrorOnce(`APL: setting ${p}; the formatter ignores it.`);
    }

    /** The `format` of the nearest project file above the document (or the workspace for an unsaved one). */
    function projectFormatOptions(uri: string): Partial<AplFormatOptions> {
        let dir: string | undefined;
        try {
            dir = uri.startsWith('file:') ? dirname(fileURLToPath(uri)) : workspaceRoot;
        } catch {
            dir = workspaceRoot;
        }
        if (dir === undefined) return {};
        try {
            const file = loadAplrc(dir);
            if (!file) return {};
            const { options, problems } = readFormatOptions(file.config.format, `${file.path}: format`);
            for (const p of problems) showErrorOnce(`APL: ${p}; the formatter ignores it.`);
            return options;
        } catch (e) {
            if (!(e instanceof AplrcError)) throw e;
            showErrorOnce(`APL: ${e.message}. The formatter uses the settings only.`);
            return {};
        }
    }

    function resolvePath(file: string): string {
        const expanded = file.startsWith('~/') ? resolve(homedir(), file.slice(2)) : file;
        if (expanded.startsWith('file://')) return fileURLToPath(expanded);
        return isAbsolute(expanded) ? expanded : resolve(workspaceRoot ?? process.cwd(), expanded);
    }

    async function revalidateOpenDocuments(): Promise<void> {
        const uris: URI[] = shared.workspace.LangiumDocuments.all.map(d => d.uri).toArray();
        if (uris.length === 0) return;
        await shared.workspace.WorkspaceLock.write(token => shared.workspace.DocumentBuilder.update(uris, [], token));
    }

    // Each formatting request reads the project file again: the same problem is shown once, not at every format.
    const shown = new Set<string>();
    function showErrorOnce(text: string): void {
        if (shown.has(text)) return;
        shown.add(text);
        showError(text);
    }

    /** A `window/showMessage` notification (not a request: the server never waits for the user). */
    function showError(text: string): void {
        void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message: text });
    }

    return { connection, shared, Apl };
}

/**
 * Sends `console.*` to the client's log. vscode-languageserver does this only when it opens stdio
 * itself; on our reader, Langium's `console.debug` (a request for a uri of no known language) wrote
 * plain text into the LSP stream on stdout, and the client could read nothing after it (issue 26).
 */
function consoleToClient(connection: Connection): void {
    const text = (args: unknown[]) => args.map(a => (typeof a === 'string' ? a : inspect(a))).join(' ');
    console.log = console.debug = (...args: unknown[]) => connection.console.log(text(args));
    console.info = (...args: unknown[]) => connection.console.info(text(args));
    console.warn = (...args: unknown[]) => connection.console.warn(text(args));
    console.error = console.trace = (...args: unknown[]) => connection.console.error(text(args));
}

/** The offset of a 0-based line and character in `text` (clamped to its end, as LSP positions are). */
function offsetOf(text: string, line: number, character: number): number {
    let at = 0;
    for (let l = 0; l < line; l++) {
        const next = text.indexOf('\n', at);
        if (next < 0) return text.length;
        at = next + 1;
    }
    const lineEnd = text.indexOf('\n', at);
    return Math.min(at + character, lineEnd < 0 ? text.length : lineEnd);
}

function message(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}
