/**
 * The extension's language-model tools with VS Code's `lm` API mocked (the edge we do not own) and
 * the real `apl mcp` behind them (the BUILT out/apl.cjs): the first apl_run of a session asks for
 * confirmation and the next do not, a run is shown in the results view, answers are bounded, and on a
 * VS Code without the API nothing is registered. The MCP server definition VS Code gets starts the
 * same `apl mcp` with the active connection in its environment, never in its arguments.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

interface Registered {
    invoke(options: { input: unknown }, token: unknown): Promise<{ content: { value: string }[] }>;
    prepareInvocation(options: { input: unknown }, token: unknown): Promise<{ confirmationMessages?: { title: string; message: { value: string } } } | undefined>;
}

const registered = new Map<string, Registered>();
const mcpProviders: { id: string; provider: { provideMcpServerDefinitions(token: unknown): Promise<{ label: string; command: string; args: string[]; env: Record<string, string> }[]> } }[] = [];
const executed: unknown[][] = [];
let withLm = true;

vi.mock('vscode', () => {
    class MarkdownString {
        constructor(readonly value: string) {}
    }
    class LanguageModelTextPart {
        constructor(readonly value: string) {}
    }
    class LanguageModelToolResult {
        constructor(readonly content: unknown[]) {}
    }
    class McpStdioServerDefinition {
        constructor(readonly label: string, readonly command: string, readonly args: string[], readonly env: Record<string, string>) {}
    }
    class EventEmitter {
        event = () => ({ dispose() {} });
        fire() {}
        dispose() {}
    }
    const lm = {
        registerTool: (name: string, tool: Registered) => {
            registered.set(name, tool);
            return { dispose: () => registered.delete(name) };
        },
        registerMcpServerDefinitionProvider: (id: string, provider: (typeof mcpProviders)[number]['provider']) => {
            mcpProviders.push({ id, provider });
            return { dispose() {} };
        },
    };
    return {
        get lm() {
            return withLm ? lm : undefined;
        },
        MarkdownString,
        LanguageModelTextPart,
        LanguageModelToolResult,
        McpStdioServerDefinition,
        EventEmitter,
        commands: { executeCommand: async (...args: unknown[]) => void executed.push(args) },
    };
});

const { registerAgentFeatures } = await import('../../../client/vscode/src/agents/register-agents.js');
const { LM_ANSWER_MAX_CHARS, boundedAnswer } = await import('../../../client/vscode/src/agents/lm-tools.js');
const { APL_BIN } = await import('../../support/cli.js');

/** The built CLI stands in for the extension's dist/apl-cli.cjs (the same entry point, client/cli/main.ts). */
const cli = APL_BIN;
let disposables: { dispose(): unknown }[] = [];

beforeAll(() => {
    disposables = registerAgentFeatures({
        cli,
        // No connection: apl mcp runs over the sample datasets, locally.
        activeConnection: () => undefined,
        token: async () => undefined,
        onDidChangeConnections: () => ({ dispose() {} }),
        log: () => undefined,
    });
});

afterAll(async () => {
    for (const d of disposables) await d.dispose();
});

const text = (r: { content: { value: string }[] }) => r.content.map(p => p.value).join('\n');

describe('the language-model tools', () => {
    it('registers the six tools', () => {
        expect([...registered.keys()].sort()).toEqual(['apl_dataset_fields', 'apl_format', 'apl_list_datasets', 'apl_result_schema', 'apl_run', 'apl_validate']);
    });

    it("apl_run ['sample-http-logs'] | count: the first run of the session asks, names the query, and is shown in the results view; the next does not ask", async () => {
        const run = registered.get('apl_run')!;
        const query = "['sample-http-logs'] | count";
        const first = await run.prepareInvocation({ input: { query } }, undefined);
        expect(first?.confirmationMessages?.title).toBe('Run an APL query?');
        expect(first?.confirmationMessages?.message.value).toContain(query);
        expect(text(await run.invoke({ input: { query } }, undefined))).toMatch(/^1 row\(s\);.*\n\{"count":10000\}$/s);
        expect(executed).toContainEqual(['apl.run', { text: query }]);
        const second = await run.prepareInvocation({ input: { query } }, undefined);
        expect(second?.confirmationMessages).toBeUndefined();
    });

    it("apl_run ['sample-http-logs'] | take 500: at most 20 rows reach the model, with the total, in whole lines", async () => {
        const answer = text(await registered.get('apl_run')!.invoke({ input: { query: "['sample-http-logs'] | take 500", maxRows: 1000 } }, undefined));
        const lines = answer.split('\n');
        expect(lines[0]).toMatch(/^500 row\(s\), first 20 shown;/);
        expect(answer.length).toBeLessThanOrEqual(LM_ANSWER_MAX_CHARS + 100);
        const rows = lines.slice(1).filter(l => l.startsWith('{'));
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.length).toBeLessThanOrEqual(20);
        for (const row of rows) expect(() => JSON.parse(row)).not.toThrow();
    });

    it("apl_validate ['sample-http-logs'] | where: the syntax error APL1001; the read-only tools do not ask", async () => {
        const validate = registered.get('apl_validate')!;
        expect((await validate.prepareInvocation({ input: {} }, undefined))?.confirmationMessages).toBeUndefined();
        expect(text(await validate.invoke({ input: { query: "['sample-http-logs'] | where" } }, undefined))).toMatch(/^1:\d+: error APL1001 /m);
    });

    it('a long answer is cut to LM_ANSWER_MAX_CHARS and says so', () => {
        const cut = boundedAnswer({ isError: false, text: 'x'.repeat(LM_ANSWER_MAX_CHARS + 50) });
        expect(cut.length).toBeLessThan(LM_ANSWER_MAX_CHARS + 100);
        expect(cut).toMatch(/cut: 50 more characters/);
    });
});

describe('the MCP server definition', () => {
    it('starts apl mcp with the connection in its environment, never in its arguments', async () => {
        const connection = { name: 'prod', url: 'https://api.axiom.co', orgId: 'org-1', source: 'settings' as const };
        const before = mcpProviders.length;
        const more = registerAgentFeatures({ cli, activeConnection: () => connection, token: async () => 'xaat-unit-secret', onDidChangeConnections: () => ({ dispose() {} }), log: () => undefined });
        const [definition] = await mcpProviders[before].provider.provideMcpServerDefinitions(undefined);
        expect(mcpProviders[before].id).toBe('apl-tools.mcp');
        expect(definition.args).toEqual([cli, 'mcp']);
        expect(definition.env).toMatchObject({ AXIOM_URL: 'https://api.axiom.co', AXIOM_TOKEN: 'xaat-unit-secret', AXIOM_ORG_ID: 'org-1' });
        expect(JSON.stringify([definition.label, definition.command, definition.args])).not.toContain('xaat-unit-secret');
        for (const d of more) await d.dispose();
    });

    it('on a VS Code without the lm API, nothing is registered', () => {
        withLm = false;
        try {
            const none = registerAgentFeatures({ cli, activeConnection: () => undefined, token: async () => undefined, onDidChangeConnections: () => ({ dispose() {} }), log: () => undefined });
            expect(none.length).toBe(1); // only the session's own disposal
        } finally {
            withLm = true;
        }
    });
});
