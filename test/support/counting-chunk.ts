import type { ColumnarChunk } from '../../language/eval/tables.js';

/** The chunk with its times and row id parts behind getters that note each read in `reads` (what a query decoded of a block). */
export function countingChunk(chunk: ColumnarChunk, reads: string[]): ColumnarChunk {
    return {
        ...chunk,
        get times() {
            reads.push('times');
            return chunk.times;
        },
        get batchOf() {
            reads.push('batchOf');
            return chunk.batchOf;
        },
        get rowInBatch() {
            reads.push('rowInBatch');
            return chunk.rowInBatch;
        },
    };
}
