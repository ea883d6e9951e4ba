/** Errors the evaluator reports: always with a 1-based line and column. */
import type { AstNode } from 'langium';

export class AplQueryError extends Error {
    override readonly name = 'AplQueryError';
    constructor(
        message: string,
        /** 1-based. */
        readonly line: number,
        /** 1-based. */
        readonly column: number,
        /**
         * `syntax` for parse errors, `semantic` for unknown names and type errors, `unsupported` for what
         * the reference evaluator refuses, `limit` for a result past the query's bounds (budget.ts),
         * `timeout` / `cancelled` for a query stopped from outside (budget.ts), `runtime` otherwise.
         */
        readonly kind: 'syntax' | 'semantic' | 'unsupported' | 'limit' | 'timeout' | 'cancelled' | 'runtime' = 'semantic',
    ) {
        super(`${message} (line ${line}, column ${column})`);
    }
    /** The message without the position suffix. */
    get detail(): string {
        return this.message.replace(/ \(line \d+, column \d+\)$/, '');
    }
}

export function positionOf(node: AstNode | undefined): { line: number; column: number } {
    const r = node?.$cstNode?.range.start;
    return r ? { line: r.line + 1, column: r.character + 1 } : { line: 1, column: 1 };
}

export function errorAt(node: AstNode | undefined, message: string, kind: AplQueryError['kind'] = 'semantic'): AplQueryError {
    const p = positionOf(node);
    return new AplQueryError(message, p.line, p.column, kind);
}

export function unsupportedAt(node: AstNode | undefined, what: string): AplQueryError {
    return errorAt(node, `the reference evaluator does not support ${what}`, 'unsupported');
}
