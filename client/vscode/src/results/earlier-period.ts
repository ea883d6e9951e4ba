/**
 * "Compare with an earlier period": the same query over its range shifted back by an offset, one
 * request (an aggregation's buckets), its first table as rows for the chart.
 */
import type { AplClient } from '../../../api/client.js';
import type { Table, TableField } from '../../../api/types.js';

/** A service table (column-major) as rows aligned with its fields, up to `max` rows. */
export function tableRows(table: Table | undefined, max: number): { fields: TableField[]; rows: unknown[][] } {
    if (!table) return { fields: [], rows: [] };
    const columns = table.columns ?? [];
    const count = Math.min(max, columns.reduce((n, c) => Math.max(n, c.length), 0));
    const rows: unknown[][] = [];
    for (let r = 0; r < count; r++) rows.push(table.fields.map((_, c) => columns[c]?.[r] ?? null));
    return { fields: table.fields.map(f => ({ name: f.name, type: f.type })), rows };
}

export async function earlierPeriodRows(client: AplClient, apl: string, range: { startTime: string; endTime: string }, offsetMs: number, max: number, signal?: AbortSignal): Promise<{ fields: TableField[]; rows: unknown[][] }> {
    const shift = (t: string) => new Date(Date.parse(t) - offsetMs).toISOString();
    const result = await client.query(apl, { format: 'tabular', startTime: shift(range.startTime), endTime: shift(range.endTime), signal });
    return tableRows(result.tables?.[0], max);
}
