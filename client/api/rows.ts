import type { Table } from './types.js';

/** The number of rows of a column-major table. */
export function rowCount(table: Pick<Table, 'columns'>): number {
    const cols = table.columns;
    return cols && cols.length > 0 ? (cols[0]?.length ?? 0) : 0;
}

/**
 * The rows of a tabular result table as objects keyed by field name (like `@axiomhq/js`'s
 * `events()`; a later duplicate field name wins).
 */
export function tableRows(table: Pick<Table, 'fields' | 'columns'>): Record<string, unknown>[] {
    const n = rowCount(table);
    const cols = table.columns ?? [];
    const rows: Record<string, unknown>[] = new Array(n);
    for (let r = 0; r < n; r++) {
        const row: Record<string, unknown> = {};
        for (let c = 0; c < table.fields.length; c++) row[table.fields[c].name] = cols[c]?.[r] ?? null;
        rows[r] = row;
    }
    return rows;
}
