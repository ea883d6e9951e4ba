/**
 * Search across the rows of a result, done in the extension host where the rows are (the webview
 * holds only the blocks in view). A cell matches when its text contains the term, case-insensitive:
 * the text of a string is itself, of a number or a boolean its JSON, of an object its JSON (so a
 * nested value is found too), and a null has none. The same search on the service is a copy of the
 * query with `| search '…'` (APL's own full-text operator), built with the one quoting helper.
 */
import { quoteString } from '../../../../language/quote-name.js';
import { withFilter } from '../query/filter-clause.js';

/** The text a cell is searched in. */
export function cellSearchText(value: unknown): string {
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
}

/** Whether a value contains `needle` (already lower-cased). */
export function valueMatches(value: unknown, needle: string): boolean {
    return cellSearchText(value).toLowerCase().includes(needle);
}

/**
 * The rows (local indexes, ascending) of column-major `columns` holding `term` in any cell.
 * Column by column: a column of numbers is read without the row's other cells.
 */
export function searchColumns(columns: readonly (readonly unknown[])[], rows: number, term: string): number[] {
    const needle = term.toLowerCase();
    if (needle === '') return [];
    const hit = new Uint8Array(rows);
    for (const column of columns) {
        for (let r = 0; r < rows; r++) if (hit[r] === 0 && valueMatches(column[r], needle)) hit[r] = 1;
    }
    const out: number[] = [];
    for (let r = 0; r < rows; r++) if (hit[r] === 1) out.push(r);
    return out;
}

/** The indexes of row-major `rows` holding `term` in any cell. */
export function searchRowMajor(rows: readonly (readonly unknown[])[], term: string): number[] {
    const needle = term.toLowerCase();
    if (needle === '') return [];
    const out: number[] = [];
    rows.forEach((row, i) => {
        if (row.some(v => valueMatches(v, needle))) out.push(i);
    });
    return out;
}

/** The query that runs the same search on the service: the whole result, not only the rows held here. */
export function serviceSearchQuery(query: string, term: string): string {
    return withFilter(query, `| search ${quoteString(term)}`);
}

/** What a search reads of a result: the pages the host holds. */
export interface HeldRows {
    heldPages(): { start: number; page: { columns: readonly (readonly unknown[])[]; rows: number } }[];
    readonly allHeld: boolean;
}

export interface HeldSearch {
    /** Matching row indexes of the result, ascending. */
    matches: number[];
    rowsSearched: number;
    complete: boolean;
}

/** Searches the pages `result` holds in memory (a paged result's others stay on the service). */
export function searchHeld(result: HeldRows, term: string): HeldSearch {
    const matches: number[] = [];
    let rowsSearched = 0;
    for (const { start, page } of result.heldPages()) {
        rowsSearched += page.rows;
        for (const r of searchColumns(page.columns, page.rows, term)) matches.push(start + r);
    }
    return { matches, rowsSearched, complete: result.allHeld };
}
