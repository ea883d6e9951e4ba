/**
 * `apl-language-server`: the APL language server for any LSP client.
 *
 *     apl-language-server --stdio        (Neovim, Helix, Zed, ...)
 *     apl-language-server --node-ipc     (VS Code's LanguageClient)
 *
 * Datasets and fields come from a schema file (docs/schema-file.md): the `apl.schemaFile` setting
 * (workspace/configuration, or didChangeConfiguration `{"apl": {"schemaFile": ...}}`), else
 * `initializationOptions.schemaFile`. Without either, the built-in sample-data schemas are used so
 * that completion works out of the box. A file that cannot be read or parsed is reported with
 * `window/showMessage` and the built-in schemas are used instead. Clients may also push a schema
 * with the `apl/setSchema` notification (`{"datasets": ...}` in any schema-file shape).
 *
 * `apl/queryInfo` (`{ textDocument: { uri } }` or `{ text }`) answers the query blocks of a document
 * and how each one runs (language/lsp/apl-query-info.ts): editors use it to run the block at the
 * cursor and to page its results. `apl/translate` (`{ text, startTime, endTime }`) answers the legacy
 * query JSON of a query, or `{ error: { message, range, construct } }` when it has no legacy form.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { URI } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { startLanguageServer } from 'langium/lsp';
import {
    createConnection,
    ErrorCodes,
    MessageType,
    ProposedFeatures,
    ResponseError,
    ShowMessageNotification,
    StreamMessageWriter,
    type DidChangeConfigurationParams,
    type InitializeParams,
} from 'vscode-languageserver/node';
import packageJson from '../../package.json' with { type: 'json' };
import { FramedMessageReader } from './framed-message-reader.js';
import { SettlingDocumentBuilder } from './settling-document-builder.js';
import { createAplServices } from '../../language/apl-module.js';
import { translate, TranslationError, type Range as AplRange, type Translation } from '../../language/legacy/translate.js';
import { queryInfo, type QueryInfo } from '../../language/lsp/apl-query-info.js';
import { BuiltinSchemaProvider } from '../../language/schema/builtin-schema-provider.js';
import { MutableSchemaProvider } from '../../language/schema/mutable-schema-provider.js';
import { parseSchemaJson, schemaFromJsonValue } from '../../language/schema/static-schema-provider.js';

const USAGE = `Usage: apl-language-server (--stdio | --node-ipc | --socket=<port>) | --version

The APL (Axiom Processing Language) language server. Settings (section "apl"):
  schemaFile   path to a schema JSON file (datasets and fields); default: the built-in sample datasets
               (also accepted as initializationOptions.schemaFile)
`;

const argv = process.argv.slice(2);
if (argv.includes('--version') || argv.includes('-V')) {
    process.stdout.write(`apl-language-server ${packageJson.version}\n`);
    process.exit(0);
}
if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
}
if (!argv.some(a => a === '--stdio' || a === '--node-ipc' || a.startsWith('--socket') || a.startsWith('--pipe') || a.startsWith('--clientProcessId'))) {
    process.stderr.write(USAGE);
    process.exit(2);
}

const connection = argv.includes('--stdio') ? createConnection(ProposedFeatures.all, stdioReader(), new StreamMessageWriter(process.stdout)) : createConnection(ProposedFeatures.all);

/** Checked framing on stdin (framed-message-reader.ts): a broken client gets an answer or a clear exit, never silence. */
function stdioReader(): FramedMessageReader {
    return new FramedMessageReader(process.stdin, {
        onFramingError(reason) {
            process.stderr.write(`apl-language-server: cannot read the client's messages: ${reason}; exiting\n`);
            process.exit(1);
        },
        onInvalidBody(reason) {
            const reply = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.ParseError, message: `Parse error: ${reason}` } });
            process.stdout.write(`Content-Length: ${Buffer.byteLength(reply)}\r\n\r\n${reply}`);
        },
    });
}

const schema = new MutableSchemaProvider(new BuiltinSchemaProvider());
const { shared, Apl } = createAplServices({
    connection,
    ...NodeFileSystem,
    module: { schema: { SchemaProvider: () => schema } },
    sharedModule: { workspace: { DocumentBuilder: services => new SettlingDocumentBuilder(services) } },
});

let initOptionsSchemaFile: string | undefined;
let workspaceRoot: string | undefined;

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
    void shared.workspace.ConfigurationProvider.getConfiguration('apl', 'schemaFile').then(value => applySchemaSetting(value, true));
});

startLanguageServer(shared);

// Replaces Langium's handler (one handler per notification): keep its bookkeeping, then reload.
connection.onDidChangeConfiguration(async (change: DidChangeConfigurationParams) => {
    shared.workspace.ConfigurationProvider.updateConfiguration(change);
    let value: unknown;
    const settings = change.settings as { apl?: { schemaFile?: unknown } } | null | undefined;
    if (settings && typeof settings === 'object' && 'apl' in settings) {
        value = settings.apl?.schemaFile;
    } else {
        // Pull model (settings: null): ask the client.
        try {
            const section = (await connection.workspace.getConfiguration({ section: 'apl' })) as { schemaFile?: unknown } | null;
            value = section?.schemaFile;
        } catch {
            value = undefined;
        }
    }
    await applySchemaSetting(value, false);
});

connection.onNotification('apl/setSchema', async (params: unknown) => {
    try {
        const value = params && typeof params === 'object' && 'schema' in params ? (params as { schema: unknown }).schema : params;
        schema.replace(schemaFromJsonValue(value, 'apl/setSchema'));
        await revalidateOpenDocuments();
    } catch (e) {
        showError(`APL: the schema sent with apl/setSchema cannot be used: ${message(e)}`);
    }
});

connection.onRequest('apl/queryInfo', (params: { textDocument?: { uri?: unknown }; text?: unknown } | null): QueryInfo => {
    let text: string | undefined;
    if (typeof params?.text === 'string') text = params.text;
    else if (typeof params?.textDocument?.uri === 'string') text = shared.workspace.TextDocuments.get(params.textDocument.uri)?.getText();
    if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, 'apl/queryInfo: pass { text } or { textDocument: { uri } } of an open document');
    return queryInfo(text, Apl);
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

async function applySchemaSetting(value: unknown, initial: boolean): Promise<void> {
    const file = typeof value === 'string' && value.trim() !== '' ? value.trim() : initOptionsSchemaFile;
    const path = file !== undefined ? resolvePath(file) : undefined;
    if (path === undefined) {
        schema.replace(new BuiltinSchemaProvider());
    } else {
        try {
            const datasets = parseSchemaJson(readFileSync(path, 'utf8'), path);
            schema.replace(datasets);
            connection.console.info(`APL: loaded ${datasets.length} dataset(s) from ${path}`);
        } catch (e) {
            schema.replace(new BuiltinSchemaProvider());
            showError(`APL: cannot use the schema file ${path}: ${message(e)}. Using the built-in sample schemas instead.`);
        }
    }
    if (!initial || path !== undefined) await revalidateOpenDocuments();
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

/** A `window/showMessage` notification (not a request: the server never waits for the user). */
function showError(text: string): void {
    void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message: text });
}

function message(e: unknown): string {
    if (e instanceof Error) return e.message;
    return String(e);
}

