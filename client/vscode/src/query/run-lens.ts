/** The Run CodeLens: one above each runnable query block (blocks are separated by blank lines). */
import type { QueryBlockInfo } from '../../../../language/lsp/apl-query-info.js';

export interface RunLens {
    /** 0-based line the lens sits on: the block's first line. */
    line: number;
    title: string;
    tooltip: string;
    command: 'apl.run';
    arguments: [{ uri: string; line: number }];
}

export function runLenses(blocks: readonly QueryBlockInfo[], uri: string): RunLens[] {
    return blocks
        .filter(b => b.runnable)
        .map(b => ({ line: b.range.start.line, title: '$(play) Run', tooltip: 'Run this query (Ctrl+Enter)', command: 'apl.run', arguments: [{ uri, line: b.range.start.line }] }));
}

export interface ExplainLens {
    line: number;
    title: string;
    tooltip: string;
    command: 'apl.explainQuery';
    arguments: [{ uri: string; line: number }];
}

/** The Explain CodeLens, beside Run on each runnable block: its stages, the columns and rows after each. */
export function explainLenses(blocks: readonly QueryBlockInfo[], uri: string): ExplainLens[] {
    return blocks
        .filter(b => b.runnable)
        .map(b => ({
            line: b.range.start.line,
            title: '$(list-tree) Explain',
            tooltip: 'Show each stage of this query: the columns after it and, on the active connection, its row count',
            command: 'apl.explainQuery',
            arguments: [{ uri, line: b.range.start.line }],
        }));
}
