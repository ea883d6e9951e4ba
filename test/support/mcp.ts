import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APL_BIN, REPO_ROOT } from './cli.js';

export interface McpProcess {
    client: Client;
    /** Everything the server wrote to stderr so far. */
    stderr(): string;
    close(): Promise<void>;
}

/** Starts the BUILT `apl mcp` (out/apl.cjs) with `args` as a real process and connects an SDK client over stdio. */
export async function startAplMcp(args: string[], env: Record<string, string> = {}): Promise<McpProcess> {
    const transport = new StdioClientTransport({
        command: process.execPath,
        args: [APL_BIN, 'mcp', ...args],
        cwd: REPO_ROOT,
        // Only what the test means: the shell's connection variables must not leak in.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    const client = new Client({ name: 'apl-tools-test', version: '0.0.0' });
    await client.connect(transport);
    return { client, stderr: () => err, close: () => client.close() };
}

/** A tool call's result, with its text joined. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { text: string }> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map(c => (c.type === 'text' ? c.text : '')).join('\n');
    return { ...result, text };
}
