/** "Filter by this value": the `| where` line that keeps the rows whose field equals a cell's value. */
import { quoteName, quoteString } from '../../../../language/quote-name.js';

/** What `datetime(…)` can hold as written: anything else (a `)`, a line break) is compared through `todatetime('…')`. */
const PLAIN_DATETIME = /^[0-9A-Za-z:.+\- ]+$/;

export function filterClause(field: string, type: string, value: unknown): string {
    const name = quoteName(field);
    if (value === null || value === undefined) return `| where isnull(${name})`;
    const base = type.split('|')[0];
    if (typeof value === 'number' && Number.isFinite(value)) return `| where ${name} == ${value}`;
    if (typeof value === 'boolean') return `| where ${name} == ${value}`;
    if (typeof value === 'string' && base === 'datetime') return PLAIN_DATETIME.test(value) ? `| where ${name} == datetime(${value})` : `| where ${name} == todatetime(${quoteString(value)})`;
    if (typeof value === 'object') return `| where tostring(${name}) == ${quoteString(JSON.stringify(value))}`;
    return `| where ${name} == ${quoteString(String(value))}`;
}

/** The query with the filter added as its last line (after a trailing `;` or blank is dropped). */
export function withFilter(query: string, clause: string): string {
    return `${query.replace(/[\s;]+$/, '')}\n${clause}`;
}
