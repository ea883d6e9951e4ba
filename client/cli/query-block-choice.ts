import { documentQueryBlocks, type DocumentQueryBlock } from '../../language/check.js';
import { CliError } from './cli-error.js';
import { parseIntOption, type QueryText } from './options.js';

const lines = (b: DocumentQueryBlock) => (b.startLine === b.endLine ? `line ${b.startLine + 1}` : `lines ${b.startLine + 1}–${b.endLine + 1}`);

/**
 * The query blocks `apl run` runs: a blank line separates queries (as in the editor and every Kusto
 * tool), so a file of several blocks runs the one under `--line N`, block `--block N`, or each in turn.
 * Several results need the table format, which gives each block a header.
 */
export function chooseQueryBlocks(query: QueryText, options: { line?: string; block?: string; format: string }): DocumentQueryBlock[] {
    const blocks = documentQueryBlocks(query.text);
    if (blocks.length === 0) throw new CliError(`${query.name}: no query in it (only blank lines)`);
    if (options.line !== undefined && options.block !== undefined) throw new CliError('give --line or --block, not both');
    if (options.block !== undefined) {
        const n = parseIntOption('--block', options.block, 1);
        if (n > blocks.length) throw new CliError(`--block ${n}: ${query.name} holds ${blocks.length} query block(s) (a blank line separates them)`);
        return [blocks[n - 1]];
    }
    if (options.line !== undefined) {
        const n = parseIntOption('--line', options.line, 1);
        const block = blocks.find(b => b.startLine <= n - 1 && n - 1 <= b.endLine);
        if (!block) throw new CliError(`--line ${n}: no query on that line of ${query.name}; its query blocks are at ${blocks.map(lines).join(', ')}`);
        return [block];
    }
    if (blocks.length > 1 && options.format !== 'table') {
        throw new CliError(`${query.name} holds ${blocks.length} query blocks (${blocks.map(lines).join(', ')}): choose one with --block N or --line N, or use --format table to run each in turn`);
    }
    return blocks;
}

/** The header printed above each block's result when a file of several blocks runs. */
export function queryBlockHeader(block: DocumentQueryBlock, index: number, count: number): string {
    return `── query ${index + 1} of ${count} · ${lines(block)} ──`;
}
