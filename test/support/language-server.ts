import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';

/** The BUILT `apl-language-server` bin (out/apl-language-server.cjs). */
export const LANGUAGE_SERVER_BIN = fileURLToPath(new URL('../../out/apl-language-server.cjs', import.meta.url));

export interface LanguageServerStart {
    readonly name: string;
    readonly command: string;
    readonly args: readonly string[];
    /** Whether the process is expected to start from the start-up snapshot (server/lsp/snapshot.ts). */
    readonly snapshot: boolean;
}

/**
 * The ways editors start the server: `node <bin>` (VS Code's LanguageClient forks the module; on
 * Windows npm's shim does the same), and the bin itself, whose POSIX launcher starts it from the
 * snapshot the build made.
 */
export const LANGUAGE_SERVER_STARTS: readonly LanguageServerStart[] = [
    { name: 'node <bin>', command: process.execPath, args: [LANGUAGE_SERVER_BIN], snapshot: false },
    ...(process.platform === 'win32' ? [] : [{ name: 'the bin, from its snapshot', command: LANGUAGE_SERVER_BIN, args: [], snapshot: true }]),
];

/** Whether process `pid` runs from a snapshot blob, read from its command line (Linux's /proc). */
export function runsFromSnapshot(pid: number): boolean {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--snapshot-blob');
}

/**
 * An LSP client on a spawned `--stdio` server: what a server asks of its client is answered (no
 * configuration, registrations accepted; notifications dropped), `setUp` adds the test's own
 * handlers (a later handler for a method replaces the default), then initialize (with `initialize`'s
 * fields over the defaults) and initialized.
 */
export async function initializedClient(
    child: ChildProcessWithoutNullStreams,
    setUp: (rpc: MessageConnection) => void = () => undefined,
    initialize: Record<string, unknown> = {},
): Promise<MessageConnection> {
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    rpc.onNotification('textDocument/publishDiagnostics', () => undefined);
    rpc.onNotification('window/logMessage', () => undefined);
    rpc.onNotification('window/showMessage', () => undefined);
    rpc.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => null));
    rpc.onRequest('client/registerCapability', () => null);
    setUp(rpc);
    rpc.listen();
    await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, ...initialize });
    await rpc.sendNotification('initialized', {});
    return rpc;
}

/** The end of a test's server: shutdown and exit as an editor would, then the process is killed if still there. */
export async function stopServer(rpc: MessageConnection | undefined, child: ChildProcessWithoutNullStreams | undefined): Promise<void> {
    try {
        await rpc?.sendRequest('shutdown');
        await rpc?.sendNotification('exit');
    } catch {
        // already gone
    }
    rpc?.dispose();
    child?.kill();
}
