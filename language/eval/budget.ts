/**
 * The bounds of one query's intermediate results (EngineOptions.limits, docs/service.md "Limits").
 * Every operator that can multiply rows or cells (join, lookup, mv-expand, union, make-series, ...)
 * asks the budget before its result grows past a bound; going over is an AplQueryError of kind
 * `limit` naming the operator and its position, for that query alone, instead of a process that
 * dies with V8's "invalid size" or out of memory.
 *
 * This is also the one place long loops consult: a deadline or a cancellation check belongs here.
 */
import type { AstNode } from 'langium';
import { errorAt } from './errors.js';

export interface QueryLimits {
    /** Rows of any intermediate result (default 10,000,000). */
    maxRows: number;
    /** Cells (rows × columns) of any intermediate result (default 100,000,000, about 1 GB at 8 bytes a cell). */
    maxCells: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = { maxRows: 10_000_000, maxCells: 100_000_000 };

/** Why a running query must stop: its time limit passed, or whoever asked for it went away. */
export interface QueryInterruption {
    kind: 'timeout' | 'cancelled';
    message: string;
}

/** Calls of `admit` between two asks of the interrupt (it reads a clock or an atomic). */
const CHECK_EVERY = 1024;

export class QueryBudget {
    readonly limits: QueryLimits;
    private calls = 0;

    constructor(
        limits: Partial<QueryLimits> = {},
        private readonly interrupt?: () => QueryInterruption | undefined,
    ) {
        this.limits = { ...DEFAULT_QUERY_LIMITS, ...limits };
    }

    /**
     * Stops the query (an AplQueryError of the interruption's kind) when its interrupt says so.
     * The evaluator calls this between operators and in its long loops; a query stuck elsewhere is
     * ended from outside (server/query terminates its worker).
     */
    checkpoint(node?: AstNode): void {
        const stop = this.interrupt?.();
        if (stop) throw errorAt(node, stop.message, stop.kind);
    }

    /** `checkpoint` every CHECK_EVERY calls: cheap enough inside per-row loops. */
    tick(node?: AstNode): void {
        if (this.interrupt !== undefined && ++this.calls % CHECK_EVERY === 0) this.checkpoint(node);
    }

    /**
     * Fails when `what` (the operator at `node`) would hold `rows` rows of `columns` columns. Cheap
     * enough to call once per produced row.
     */
    admit(rows: number, columns: number, node: AstNode | undefined, what: string): void {
        this.tick(node);
        if (rows > this.limits.maxRows) {
            throw errorAt(node, `${what} would produce more than ${this.limits.maxRows.toLocaleString('en-US')} rows (the limit of an intermediate result); filter or summarize first`, 'limit');
        }
        if (rows * Math.max(1, columns) > this.limits.maxCells) {
            throw errorAt(
                node,
                `${what} would produce more than ${this.limits.maxCells.toLocaleString('en-US')} cells (${rows.toLocaleString('en-US')} rows × ${columns} columns; the limit of an intermediate result); project fewer columns, filter or summarize first`,
                'limit',
            );
        }
    }
}

/** The JavaScript engine's own size failures ("Invalid string length", "Invalid array length", stack overflow). */
export function isResourceError(e: unknown): e is RangeError {
    return e instanceof RangeError && /invalid (string|array|typed array) length|array buffer allocation|call stack/i.test(e.message);
}
