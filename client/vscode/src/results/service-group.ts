/**
 * Group by a column on the service: a copy of the query that counts the rows of the whole result
 * by the column's values (`| summarize count() by level`), shown to the user beside its answer;
 * the grid's own group-by counts only the rows VS Code holds.
 */
import { quoteName } from '../../../../language/quote-name.js';
import { withFilter } from '../query/filter-clause.js';

/**
 * The counting query: the largest `limit` + 1 groups (the service caps the rows of an answer, which
 * could otherwise leave out the largest groups; the one more says that there are more).
 */
export function groupCountQuery(query: string, field: string, limit: number): string {
    return withFilter(query, `| summarize count() by ${quoteName(field)}\n| top ${limit + 1} by count_`);
}

/**
 * The answer's groups as [value, count], largest first, up to `limit`, and whether there were more
 * (`more`: the answer of groupCountQuery had `limit` + 1 rows).
 */
export function groupCounts(field: string, fields: readonly { name: string }[], columns: readonly (readonly unknown[])[], limit: number): { groups: [unknown, number][]; more: boolean } {
    const by = fields.findIndex(f => f.name === field);
    const count = fields.findIndex((_, i) => i !== by);
    if (by < 0 || count < 0) return { groups: [], more: false };
    const values = columns[by] ?? [];
    const counts = columns[count] ?? [];
    const groups: [unknown, number][] = values.map((v, i) => [v ?? null, Number(counts[i] ?? 0)]);
    groups.sort((a, b) => b[1] - a[1]);
    return { groups: groups.slice(0, limit), more: groups.length > limit };
}
