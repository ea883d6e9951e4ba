/** "Filter by this value": the `| where` line that keeps the rows whose field equals a cell's value. */
import { quoteName } from '../../../../language/quote-name.js';

function stringLiteral(s: string): string {
    return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}'`;
}

export function filterClause(field: string, type: string, value: unknown): string {
    const name = quoteName(field);
    if (value === null || value === undefined) return `| where isnull(${name})`;
    const base = type.split('|')[0];
    if (typeof value === 'number' && Number.isFinite(value)) return `| where ${name} == ${value}`;
    if (typeof value === 'boolean') return `| where ${name} == ${value}`;
    if (typeof value === 'string' && base === 'datetime') return `| where ${name} == datetime(${value})`;
    if (typeof value === 'object') return `| where tostring(${name}) == ${stringLiteral(JSON.stringify(value))}`;
    return `| where ${name} == ${stringLiteral(String(value))}`;
}

/** The query with the filter added as its last line (after a trailing `;` or blank is dropped). */
export function withFilter(query: string, clause: string): string {
    return `${query.replace(/[\s;]+$/, '')}\n${clause}`;
}
