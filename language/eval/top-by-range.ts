/**
 * `top N by f` over a dataset with blocks on disk, without reading every block: each block's header
 * gives the largest value of each number field (cold-blocks.ts `ranges`), so once N rows with values
 * of f are found, a block whose largest value is below the N-th of them cannot hold a row of the
 * answer. The blocks are read largest first, so that the bound comes early.
 *
 * Only a single descending key that is a field of the dataset (`top 10 by f`, `top 10 by f desc`,
 * nulls last as by default), as the query's first step, and blocks whose rows the request's range
 * and the keep rules cover whole: the status then counts a block left out as matched rows without
 * reading it (after a `where` that count would need the rows). Ties need no care: a block is left
 * out only when all its values are below the N-th best, which no tie order can bring in.
 */
import type * as ast from '../generated/ast.js';
import type { ColdBlock } from './cold-blocks.js';
import { cellOf } from './frame.js';
import type { PartialResult } from './parallel.js';
import { ZONE_ROWS } from './zone-maps.js';

/** The field and row count of a `top` whose blocks a header can rule out, or undefined. */
export function topByField(op: ast.TabularOperator): { field: string; count: number } | undefined {
    if (op.$type !== 'TopOperator') return undefined;
    const top = op as ast.TopOperator;
    if (top.items.length !== 1 || top.count.$type !== 'LongLiteral') return undefined;
    const item = top.items[0];
    if (item.direction === 'asc' || item.nulls === 'first') return undefined;
    const e = item.expression;
    const field = e.$type === 'NameReference' ? (e as ast.NameReference).name : undefined;
    const count = Number((top.count as ast.LongLiteral).value);
    return field !== undefined && count > 0 ? { field, count } : undefined;
}

/** The N best values of the field seen so far in the parts' rows (descending). */
export class TopBound {
    private readonly best: number[] = [];
    /** False once a part's rows hold a value that is not a number: no bound from headers then. */
    usable = true;

    constructor(
        readonly field: string,
        readonly count: number,
    ) {}

    /** Takes a part's rows (its own top N). */
    add(p: PartialResult): void {
        if (p.kind !== 'top' || !p.frame) return;
        const col = p.frame.find(this.field);
        if (!col) {
            this.usable = false;
            return;
        }
        for (let i = 0; i < p.frame.length; i++) {
            const v = cellOf(col, i);
            if (v === null) continue;
            if (typeof v !== 'number' || v !== v) {
                this.usable = false;
                return;
            }
            this.best.push(v);
        }
        this.best.sort((a, b) => b - a);
        this.best.length = Math.min(this.best.length, this.count);
    }

    /** Whether the block may hold a row of the answer: no bound yet, no number range in its header, or its largest value reaches the bound. */
    mayHold(block: ColdBlock): boolean {
        if (!this.usable || this.best.length < this.count) return true;
        const r = block.ranges?.[this.field];
        if (r !== undefined && typeof r.max === 'number') return r.max >= this.best[this.count - 1];
        // No number range: a block without the field holds only nulls (last), one with other values may hold anything.
        return block.fields.some(f => f.name === this.field);
    }
}

/**
 * The part of a block left unread: no rows, its zones counted as skipped (`status.blocksSkipped`),
 * and its rows as matched (the caller skips only blocks whose every row the query's range and the
 * dataset's keep rules cover, with no filter before the top: every row matches).
 */
export function skippedPart(block: ColdBlock, source: number, dataset: string, zoneOffset: (source: number, zone: number) => number): PartialResult {
    const skipped: number[] = [];
    for (let z = 0; z * ZONE_ROWS < block.rows; z++) skipped.push(zoneOffset(source, z));
    return { kind: 'top', rows: [], stats: { rowsExamined: 0, rowsMatched: block.rows, blocks: [], skipped, datasets: [dataset] }, source: block.id };
}

/** The order to read a top's sources in: the rows in memory (no header bounds them), then the blocks by their largest value of the field, largest first. */
export function sourcesLargestFirst(blocks: readonly ColdBlock[], field: string, from: number): number[] {
    const max = (b: ColdBlock): number => {
        const r = b.ranges?.[field];
        return r !== undefined && typeof r.max === 'number' ? r.max : Infinity;
    };
    const rest = Array.from({ length: blocks.length - from }, (_, i) => from + i).sort((a, b) => {
        const x = max(blocks[a]);
        const y = max(blocks[b]);
        return x === y ? a - b : x > y ? -1 : 1;
    });
    return [blocks.length, ...rest];
}
