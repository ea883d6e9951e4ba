/** One MCP server (one session) of `apl mcp`: its tools, resources and prompts over `settings`. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import packageJson from '../../package.json' with { type: 'json' };
import { registerAplResources } from './resources.js';
import type { McpSettings } from './session.js';
import { registerAplTools } from './tools.js';

export const MCP_INSTRUCTIONS = `Tools for APL, the Axiom Processing Language (Axiom's dialect of Kusto KQL).
Check a query with check_apl before you run it; result_schema and explain_apl tell the columns without running anything.
run_apl is read-only, returns at most a few rows with the total, and counts against this session's query budget.`;

export function createAplMcpServer(settings: McpSettings): McpServer {
    const server = new McpServer({ name: 'apl', title: 'APL tools', version: packageJson.version }, { instructions: MCP_INSTRUCTIONS });
    registerAplTools(server, settings);
    registerAplResources(server, settings);
    return server;
}
