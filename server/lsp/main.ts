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
 * Formatting follows the `apl.format` settings (language/lsp/apl-format-options.ts) and, over them, the
 * `format` object of the nearest `.aplrc.json` above the document (server/config/aplrc.ts). Refactors
 * (extract/inline a let, rewrite a where, requote a name) are code actions of kind `refactor.*`.
 *
 * `apl/queryInfo` (`{ textDocument: { uri } }` or `{ text }`) answers the query blocks of a document
 * and how each one runs (language/lsp/apl-query-info.ts): editors use it to run the block at the
 * cursor and to page its results; it yields between blocks and honours `$/cancelRequest`, and a document
 * longer than MAX_PARSED_LENGTH gets its blocks without analysis (`analysed: false`). `apl/translate` (`{ text, startTime, endTime }`) answers the legacy
 * query JSON of a query, or `{ error: { message, range, construct } }` when it has no legacy form.
 * `apl/explain` (`{ textDocument: { uri } }` or `{ text }`, and `position`) answers the stages of the
 * query block there: each stage's range, the query up to it, and the columns after it (language/explain.ts),
 * or null when no block is there.
 */
import packageJson from '../../package.json' with { type: 'json' };
import { startAplLanguageServer } from './server.js';
import { transportFromArgs } from './transport.js';

const transport = transportFromArgs(process.argv.slice(2), packageJson.version);
startAplLanguageServer(transport.reader, transport.writer);
