/**
 * The parts of VS Code's language-model tool and MCP APIs the extension uses. @types/vscode is pinned
 * at 1.91 (the oldest VS Code the extension supports), which predates them (tools: 1.95, MCP server
 * definitions: 1.101), so they are declared here and looked up at run time: on an older VS Code they
 * are absent and the extension goes without them.
 */
import * as vscode from 'vscode';

export interface LmToolInvocationOptions<T> {
    input: T;
    toolInvocationToken?: unknown;
}

export interface LmPreparedInvocation {
    invocationMessage?: string;
    confirmationMessages?: { title: string; message: string | vscode.MarkdownString };
}

export interface LmTool<T> {
    invoke(options: LmToolInvocationOptions<T>, token: vscode.CancellationToken): Promise<unknown>;
    prepareInvocation?(options: { input: T }, token: vscode.CancellationToken): LmPreparedInvocation | undefined | Promise<LmPreparedInvocation | undefined>;
}

/** `vscode.LanguageModelToolResult` and `vscode.LanguageModelTextPart`, as constructors. */
export interface LmResultClasses {
    LanguageModelToolResult: new (content: unknown[]) => unknown;
    LanguageModelTextPart: new (value: string) => unknown;
}

export interface McpStdioServerDefinitionClass {
    new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string): unknown;
}

export interface LmNamespace {
    registerTool?<T>(name: string, tool: LmTool<T>): vscode.Disposable;
    invokeTool?(name: string, options: LmToolInvocationOptions<unknown>, token?: vscode.CancellationToken): Thenable<{ content: unknown[] }>;
    registerMcpServerDefinitionProvider?(id: string, provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] | Thenable<unknown[]> }): vscode.Disposable;
}

/** VS Code's `lm` namespace as far as this VS Code has it. */
export function lmApi(): LmNamespace {
    return (vscode as unknown as { lm?: LmNamespace }).lm ?? {};
}

export function lmResultClasses(): LmResultClasses | undefined {
    const v = vscode as unknown as Partial<LmResultClasses>;
    return v.LanguageModelToolResult && v.LanguageModelTextPart ? { LanguageModelToolResult: v.LanguageModelToolResult, LanguageModelTextPart: v.LanguageModelTextPart } : undefined;
}

export function mcpStdioServerDefinitionClass(): McpStdioServerDefinitionClass | undefined {
    return (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionClass }).McpStdioServerDefinition;
}
