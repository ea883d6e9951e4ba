/**
 * Wires the agent features into the extension: the language-model tools and, where VS Code supports
 * MCP server definitions, `apl mcp` itself (so agents outside the extension host get the same tools).
 * Both use the active connection; its token reaches `apl mcp` in its environment only.
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Connection } from '../connections/connection-manager.js';
import { lmApi, mcpStdioServerDefinitionClass } from './lm-api.js';
import { registerLanguageModelTools } from './lm-tools.js';
import { AplMcpSession, type McpConnection } from './mcp-session.js';

export const MCP_PROVIDER_ID = 'apl-tools.mcp';

export interface AgentDeps {
    /** The CLI bundle that runs `apl mcp` (dist/apl-cli.cjs in the extension). */
    cli: string;
    activeConnection(): Connection | undefined;
    token(connection: Connection): Promise<string | undefined>;
    onDidChangeConnections(listener: () => void): { dispose(): void };
    log(line: string): void;
}

/** The active connection as `apl mcp`'s environment; none: the sample datasets, locally. */
async function mcpConnection(deps: AgentDeps): Promise<McpConnection & { connected: boolean; label: string }> {
    const c = deps.activeConnection();
    if (!c) return { key: 'local', env: {}, connected: false, label: 'the sample datasets (local)' };
    const token = await deps.token(c);
    const env: Record<string, string> = { AXIOM_URL: c.url, ...(token ? { AXIOM_TOKEN: token } : {}), ...(c.orgId ? { AXIOM_ORG_ID: c.orgId } : {}) };
    // The key tells one connection from another (a new token restarts apl mcp) without holding the token.
    const key = createHash('sha256').update(JSON.stringify([c.name, c.url, c.orgId ?? '', token ?? ''])).digest('hex');
    return { key, env, connected: true, label: `'${c.name}' (${c.url})` };
}

export function registerAgentFeatures(deps: AgentDeps): vscode.Disposable[] {
    // In the extension host process.execPath is Node (code-server) or Electron run as Node (ELECTRON_RUN_AS_NODE).
    const session = new AplMcpSession(process.execPath, deps.cli, line => deps.log(`[apl mcp] ${line}`));
    const disposables: vscode.Disposable[] = [{ dispose: () => void session.dispose() }];
    disposables.push(
        ...registerLanguageModelTools({
            session,
            connection: () => mcpConnection(deps),
            showInResults: text => void vscode.commands.executeCommand('apl.run', { text }),
        }),
    );

    const lm = lmApi();
    const Definition = mcpStdioServerDefinitionClass();
    if (lm.registerMcpServerDefinitionProvider && Definition) {
        const changed = new vscode.EventEmitter<void>();
        disposables.push(changed, deps.onDidChangeConnections(() => changed.fire()));
        disposables.push(
            lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
                onDidChangeMcpServerDefinitions: changed.event,
                provideMcpServerDefinitions: async () => {
                    const { env, label } = await mcpConnection(deps);
                    const { command, args } = session.commandLine();
                    return [new Definition(`APL tools on ${label}`, command, args, { ELECTRON_RUN_AS_NODE: '1', ...env })];
                },
            }),
        );
    }
    return disposables;
}
