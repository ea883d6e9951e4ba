/**
 * Column statistics computed on the service over the whole result, not only the rows loaded: a
 * copy of the query with one `summarize` (null count, distinct count, min and max, and the top
 * values, or a histogram for a number). The view shows this query with its answer.
 */
import { quoteName } from '../../../../language/quote-name.js';
import { withFilter } from '../query/filter-clause.js';

const NUMERIC = new Set(['int', 'long', 'real', 'double', 'decimal']);
const ORDERED = new Set([...NUMERIC, 'datetime', 'timespan']);

/** The statistics query of `field` (of `type`) over the result of `query`. */
export function columnStatsQuery(query: string, field: string, type: string): string {
    const c = quoteName(field);
    const base = type.split('|')[0];
    const aggs = ['rows = count()', `nulls = countif(isnull(${c}))`, `distinct_values = dcount(${c})`];
    if (ORDERED.has(base)) aggs.push(`min_value = min(${c})`, `max_value = max(${c})`);
    aggs.push(NUMERIC.has(base) ? `histogram = histogram(${c}, 10)` : `top_values = topk(${c}, 10)`);
    return withFilter(query, `| summarize ${aggs.join(', ')}`);
}

/** The first row of a statistics answer as [name, value] pairs. */
export function statsPairs(fields: readonly { name: string }[], columns: readonly (readonly unknown[])[]): [string, unknown][] {
    return fields.map((f, i) => [f.name, columns[i]?.[0] ?? null]);
}
