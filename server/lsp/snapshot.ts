/**
 * The language server's start-up snapshot (out/language-server.snapshot.blob), made with
 * `node --snapshot-blob <blob> --build-snapshot out/language-server-snapshot.cjs` (snapshot-file.ts)
 * and started with `node --snapshot-blob <blob> <bin> --stdio` (or `--node-ipc`, ...) by the bin's
 * POSIX launcher (launcher.sh).
 *
 * Why: of a start from a script, most is spent before the first message can be answered: loading
 * the bundle, building the parser and the lexer (chevrotain analyses the grammar, Langium builds its
 * rules), and compiling, function by function, the code that a first session runs. The snapshot is
 * the heap after all of that: the server built, listening on deferred transports
 * (deferred-transport.ts), with the bytecode of that code (V8 keeps the bytecode of the functions
 * that ran). A process started from it only binds the transports to the one its arguments name.
 */
import { eagerLoad, URI } from 'langium';
import { PassThrough } from 'node:stream';
import { startupSnapshot } from 'node:v8';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import packageJson from '../../package.json' with { type: 'json' };
import { fillGroupBy, groupByFilled, unfillGroupBy } from '../../language/parser/polyfills.js';
import { DeferredMessageReader, DeferredMessageWriter } from './deferred-transport.js';
import { FramedMessageReader } from './framed-message-reader.js';
import { startAplLanguageServer, type AplLanguageServer } from './server.js';
import { transportFromArgs, watchClientProcess } from './transport.js';

/** Uses most of what a first session does: several operators, functions, aggregations, a let, fields of a sample dataset. */
const WARM_UP_QUERY = `let threshold = 500;
['sample-http-logs']
| where _time > ago(1d) and toint(status) >= threshold and method in ("GET", "POST")
| where uri startswith "/api" and user_agent contains "Mozilla" and isnotempty(['geo.country'])
| extend duration_s = req_duration_ms / 1000, city = ['geo.city'], section = tostring(split(uri, "/")[2])
| extend tls = iff(is_tls, "tls", "plain"), kb = resp_body_size_bytes / 1024, hour = bin(_time, 1h)
| summarize requests = count(), slow = countif(req_duration_ms > 500), p95 = percentile(req_duration_ms, 95), avg_kb = avg(kb), cities = dcount(city) by hour, city, tls
| extend slow_ratio = todouble(slow) / requests
| where requests > 10
| order by slow_ratio desc
| project hour, city, tls, requests, slow_ratio, p95, avg_kb
| take 10
`;

void build();

async function build(): Promise<void> {
    if (groupByFilled) {
        // Node 22 builds a snapshot without the globals its V8 still stages (Object.groupBy among
        // them) and adds them to every process started from it: with our fill already there, V8
        // aborts that start (SIGTRAP, "Check failed: current_key != *desc->GetKey()"). So the
        // snapshot leaves the fill out, and a start fills it again only where the runtime has none (Node 20).
        startupSnapshot.addSerializeCallback(unfillGroupBy);
        startupSnapshot.addDeserializeCallback(fillGroupBy);
    }
    // First a session with a server of its own, thrown away after: the real one has had no client.
    await rehearse();
    const reader = new DeferredMessageReader();
    const writer = new DeferredMessageWriter();
    const server = startAplLanguageServer(reader, writer);
    // What the server's `initialize` would build: every service, the parsers and the lexer.
    eagerLoad(server.shared);
    eagerLoad(server.Apl);
    // Whatever the parser, the linker and the checks build on first use, per instance.
    await check(server, WARM_UP_QUERY);
    startupSnapshot.setDeserializeMainFunction(() => {
        // argv[1] is the path of the bin, which the launcher passes in the script's place.
        const args = process.argv.slice(2);
        const transport = transportFromArgs(args, packageJson.version);
        watchClientProcess(args);
        reader.bind(transport.reader);
        writer.bind(transport.writer);
    });
}

/** initialize, initialized, didOpen and the diagnostics, over in-memory streams, so that all that code ran. */
async function rehearse(): Promise<void> {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const framing = { onFramingError: () => undefined, onInvalidBody: () => undefined };
    const rehearsal = startAplLanguageServer(new FramedMessageReader(toServer, framing), new StreamMessageWriter(toClient));
    const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    const published = new Promise(resolve => client.onNotification('textDocument/publishDiagnostics', resolve));
    client.listen();
    // No processId: the server would watch that process. No shutdown: vscode-languageserver keeps that in a module variable.
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {}, workspaceFolders: null });
    await client.sendNotification('initialized', {});
    await client.sendNotification('textDocument/didOpen', { textDocument: { uri: 'file:///rehearsal.apl', languageId: 'apl', version: 1, text: WARM_UP_QUERY } });
    await published;
    client.dispose();
    rehearsal.connection.dispose();
    toServer.destroy();
    toClient.destroy();
}

async function check(server: AplLanguageServer, text: string): Promise<void> {
    const document = server.shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse('memory:///snapshot-warm-up.apl'));
    await server.Apl.references.Linker.link(document);
    await server.Apl.validation.DocumentValidator.validateDocument(document);
}
