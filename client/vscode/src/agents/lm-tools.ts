/**
 * The language-model tools of the extension (`contributes.languageModelTools`): Copilot and other chat
 * participants in VS Code validate, format, type and run APL with the active connection. Each calls the
 * same tool of the extension's `apl mcp` (mcp-session.ts). `apl_run` is read-only, asks the user to
 * confirm the first time in a session, shows its result in the results view as well, and returns a
 * bounded summary to the model.
 */
import * as vscode from 'vscode';
import { lmApi, lmResultClasses, type LmTool } from './lm-api.js';
import type { AplMcpSession, McpConnection, McpToolAnswer } from './mcp-session.js';

/** Characters of a tool's answer a model gets at most (a result is summarised, never dumped). */
export const LM_ANSWER_MAX_CHARS = 8000;
/** Rows `apl_run` shows the model at most. */
export const LM_RUN_ROWS = 20;

export interface LmToolSpec {
    /** The name in package.json's `languageModelTools`. */
    name: string;
    /** The `apl mcp` tool it calls, and its arguments. */
    mcpTool: string;
    args(input: Record<string, unknown>, connected: boolean): Record<string, unknown>;
    /** Runs a query: confirmed once a session, and shown in the results view. */
    runs?: boolean;
}

const query = (input: Record<string, unknown>): string => (typeof input.query === 'string' ? input.query : '');

export const LM_TOOLS: readonly LmToolSpec[] = [
    { name: 'apl_validate', mcpTool: 'check_apl', args: (input, connected) => ({ query: query(input), useConnection: connected }) },
    { name: 'apl_format', mcpTool: 'format_apl', args: input => ({ query: query(input) }) },
    { name: 'apl_result_schema', mcpTool: 'result_schema', args: input => ({ query: query(input) }) },
    { name: 'apl_list_datasets', mcpTool: 'list_datasets', args: () => ({}) },
    { name: 'apl_dataset_fields', mcpTool: 'dataset_fields', args: input => ({ dataset: typeof input.dataset === 'string' ? input.dataset : '' }) },
    {
        name: 'apl_run',
        mcpTool: 'run_apl',
        runs: true,
        args: input => ({
            query: query(input),
            maxRows: Math.min(LM_RUN_ROWS, typeof input.maxRows === 'number' && input.maxRows > 0 ? Math.floor(input.maxRows) : LM_RUN_ROWS),
            ...(typeof input.start === 'string' ? { start: input.start } : {}),
            ...(typeof input.end === 'string' ? { end: input.end } : {}),
        }),
    },
];

/** An answer of `apl mcp` as the model reads it: the text, cut to LM_ANSWER_MAX_CHARS. */
export function boundedAnswer(answer: McpToolAnswer): string {
    const text = answer.isError ? `Error: ${answer.text}` : answer.text;
    if (text.length <= LM_ANSWER_MAX_CHARS) return text;
    // Whole lines (a row of a result is one line), unless one line alone is longer than the bound.
    const lastBreak = text.lastIndexOf('\n', LM_ANSWER_MAX_CHARS);
    const end = lastBreak > 0 ? lastBreak : LM_ANSWER_MAX_CHARS;
    return `${text.slice(0, end)}\n… (cut: ${text.length - end} more characters)`;
}

export interface LmToolHost {
    session: AplMcpSession;
    /** The active connection as `apl mcp` takes it (url, token, org id in its environment). */
    connection(): Promise<McpConnection & { connected: boolean; label: string }>;
    /** Shows a query's result in the results view (the extension's own run). */
    showInResults(text: string): void;
}

/** Registers the tools where VS Code has the API; returns what to dispose (nothing on an older VS Code). */
export function registerLanguageModelTools(host: LmToolHost): vscode.Disposable[] {
    const lm = lmApi();
    const classes = lmResultClasses();
    if (!lm.registerTool || !classes) return [];
    let runConfirmed = false;
    return LM_TOOLS.map(spec => {
        const tool: LmTool<Record<string, unknown>> = {
            prepareInvocation: async ({ input }) => {
                if (!spec.runs) return { invocationMessage: `APL: ${spec.mcpTool.replace(/_/g, ' ')}` };
                const { label } = await host.connection();
                if (runConfirmed) return { invocationMessage: `Running the APL query on ${label}` };
                return {
                    invocationMessage: `Running the APL query on ${label}`,
                    confirmationMessages: {
                        title: 'Run an APL query?',
                        message: new vscode.MarkdownString(`The query runs read-only on **${label}** (later runs in this session do not ask again):\n\n\`\`\`apl\n${query(input)}\n\`\`\``),
                    },
                };
            },
            invoke: async ({ input }) => {
                const connection = await host.connection();
                const answer = await host.session.call(connection, spec.mcpTool, spec.args(input, connection.connected));
                if (spec.runs) {
                    runConfirmed = true;
                    if (!answer.isError) host.showInResults(query(input));
                }
                return new classes.LanguageModelToolResult([new classes.LanguageModelTextPart(boundedAnswer(answer))]);
            },
        };
        return lm.registerTool!(spec.name, tool);
    });
}
