/**
 * The extension's own `apl mcp`: the bundled CLI (dist/apl-cli.cjs) started over stdio with the active
 * connection in its environment (the token in AXIOM_TOKEN, never in its arguments), and an MCP client
 * from the same SDK. The language-model tools call its tools, so Copilot in VS Code and an agent that
 * runs `apl mcp` get the same answers. One process per connection; a new one when the active
 * connection changes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What `apl mcp` is started with: the connection, or none (the sample datasets, locally). */
export interface McpConnection {
    /** Stable identity: a new one restarts the server. */
    key: string;
    env: Record<string, string>;
}

export interface McpToolAnswer {
    isError: boolean;
    text: string;
    structured?: Record<string, unknown>;
}

export class AplMcpSession {
    private client: Client | undefined;
    private key: string | undefined;
    private starting: Promise<Client> | undefined;

    constructor(
        /** The Node binary and the CLI bundle: `node apl-cli.cjs mcp`. */
        private readonly command: string,
        private readonly cliPath: string,
        private readonly log: (line: string) => void,
    ) {}

    /** The command line `apl mcp` runs with (for the MCP server definition VS Code starts itself). */
    commandLine(): { command: string; args: string[] } {
        return { command: this.command, args: [this.cliPath, 'mcp'] };
    }

    async call(connection: McpConnection, name: string, args: Record<string, unknown>): Promise<McpToolAnswer> {
        const client = await this.clientFor(connection);
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const text = result.content.map(c => (c.type === 'text' ? c.text : '')).join('\n');
        return { isError: result.isError === true, text, structured: result.structuredContent };
    }

    private async clientFor(connection: McpConnection): Promise<Client> {
        if (this.key === connection.key && this.starting) return this.starting;
        await this.dispose();
        this.key = connection.key;
        this.starting = (async () => {
            const transport = new StdioClientTransport({
                command: this.command,
                args: [this.cliPath, 'mcp'],
                // Only what apl mcp needs: the extension host's own environment may hold other secrets.
                env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ELECTRON_RUN_AS_NODE: '1', ...connection.env },
                stderr: 'pipe',
            });
            transport.stderr?.on('data', (b: Buffer) => this.log(b.toString().trimEnd()));
            const client = new Client({ name: 'apl-tools-vscode', version: '0.1.0' });
            await client.connect(transport);
            this.client = client;
            return client;
        })();
        return this.starting;
    }

    async dispose(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        this.starting = undefined;
        this.key = undefined;
        await client?.close();
    }
}
