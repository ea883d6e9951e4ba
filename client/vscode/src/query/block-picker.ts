/**
 * Which text `APL: Run` runs: the selection when there is one, else the query block at the cursor
 * (the blocks come from the language server's `apl/queryInfo`). On a blank line between blocks the
 * block above is taken, as the cursor usually sits just after the query that was written.
 */
import type { QueryBlockInfo } from '../../../../language/lsp/apl-query-info.js';

export interface Position {
    line: number;
    character: number;
}

export function blockAt(blocks: readonly QueryBlockInfo[], at: Position): QueryBlockInfo | undefined {
    let above: QueryBlockInfo | undefined;
    for (const b of blocks) {
        if (at.line >= b.range.start.line && at.line <= b.range.end.line) return b;
        if (b.range.end.line < at.line) above = b;
    }
    return above ?? blocks[0];
}
