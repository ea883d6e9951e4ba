/**
 * How `apl run`, `apl translate` and `apl query` print an error located in the query:
 *
 *     <query>:1:22: error: unknown field 'x'
 *     1 | ['logs'] | where x > 1
 *       |                  ^
 */

/** 1-based line and column. */
export interface QueryErrorPosition {
    line: number;
    column: number;
    /** 1-based, exclusive, on the same line; default one character. */
    endColumn?: number;
}

export function formatQueryError(name: string, text: string, message: string, at?: QueryErrorPosition): string {
    if (!at) return `${name}: error: ${message}`;
    const lines = text.split(/\r?\n/);
    const line = Math.max(1, Math.min(at.line, lines.length));
    const source = lines[line - 1] ?? '';
    const col = Math.max(1, Math.min(at.column, source.length + 1));
    const width = Math.max(1, Math.min((at.endColumn ?? col + 1) - col, Math.max(1, source.length - col + 1)));
    const gutter = `${line} | `;
    const caret = `${' '.repeat(gutter.length - 2)}| ${' '.repeat(col - 1)}${'^'.repeat(width)}`;
    return `${name}:${line}:${col}: error: ${message}\n${gutter}${source}\n${caret}`;
}

export { positionInMessage } from '../api/errors.js';
