/**
 * The language server's command line: `--version`, `--help`, and the transport to talk on
 * (`--stdio`, `--node-ipc`, `--socket=<port>`, `--pipe=<name>`), as vscode-languageserver reads
 * them, except that `--stdio` reads with the checked framing of framed-message-reader.ts.
 */
import {
    createServerPipeTransport,
    createServerSocketTransport,
    ErrorCodes,
    IPCMessageReader,
    IPCMessageWriter,
    StreamMessageWriter,
    type MessageReader,
    type MessageWriter,
} from 'vscode-languageserver/node';
import { FramedMessageReader } from './framed-message-reader.js';

const USAGE = `Usage: apl-language-server (--stdio | --node-ipc | --socket=<port> | --pipe=<name>) | --version

The APL (Axiom Processing Language) language server. Settings (section "apl"):
  schemaFile   path to a schema JSON file (datasets and fields); default: the built-in sample datasets
               (also accepted as initializationOptions.schemaFile)
`;

export interface Transport {
    readonly reader: MessageReader;
    readonly writer: MessageWriter;
}

/** The transport `args` name; prints the version or the usage and exits when that is what they ask. */
export function transportFromArgs(args: readonly string[], version: string): Transport {
    if (args.includes('--version') || args.includes('-V')) exitWith(0, process.stdout, `apl-language-server ${version}\n`);
    if (args.includes('--help') || args.includes('-h')) exitWith(0, process.stdout, USAGE);
    if (args.includes('--stdio')) return { reader: stdioReader(), writer: new StreamMessageWriter(process.stdout) };
    if (args.includes('--node-ipc')) {
        if (!process.send) exitWith(2, process.stderr, 'apl-language-server: --node-ipc needs a parent process with an IPC channel\n');
        return { reader: new IPCMessageReader(process), writer: new IPCMessageWriter(process) };
    }
    const port = optionValue(args, '--socket');
    if (port !== undefined) {
        const n = Number(port);
        if (!Number.isInteger(n) || n <= 0 || n > 65535) exitWith(2, process.stderr, `apl-language-server: --socket=${port}: not a port number (1-65535)\n`);
        const [reader, writer] = createServerSocketTransport(n);
        return { reader, writer };
    }
    const pipe = optionValue(args, '--pipe');
    if (pipe !== undefined && pipe !== '') {
        const [reader, writer] = createServerPipeTransport(pipe);
        return { reader, writer };
    }
    return exitWith(2, process.stderr, USAGE);
}

/**
 * Ends the server when the client process named by `--clientProcessId` is gone (vscode-languageserver
 * does this itself when it is loaded, which in a snapshot was before these arguments existed).
 */
export function watchClientProcess(args: readonly string[]): void {
    const pid = Number(optionValue(args, '--clientProcessId'));
    if (!Number.isInteger(pid) || pid <= 0) return;
    setInterval(() => {
        try {
            process.kill(pid, 0);
        } catch {
            process.exit(1);
        }
    }, 3000).unref();
}

/** `--name=value` or `--name value`. */
function optionValue(args: readonly string[], name: string): string | undefined {
    for (let i = 0; i < args.length; i++) {
        if (args[i] === name) return args[i + 1] ?? '';
        if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
    return undefined;
}

function exitWith(code: number, stream: NodeJS.WriteStream, text: string): never {
    stream.write(text);
    process.exit(code);
}

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
