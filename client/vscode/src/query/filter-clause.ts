/** "Filter by this value": the `| where` line that keeps the rows whose field equals a cell's value. */
import { bracketName, quoteName, quoteString } from '../../../../language/quote-name.js';

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

/** The APL path of a nested value of `field`: `['geo']['city']`, `['tags'][0]` (every key quoted by the one helper). */
export function nestedPath(field: string, keys: readonly (string | number)[]): string {
    return bracketName(field) + keys.map(k => (typeof k === 'number' ? `[${Math.trunc(k)}]` : `[${quoteString(k)}]`)).join('');
}

/** "Filter by this nested value" of a JSON cell: the value at `keys` under `field`, compared as its own kind. */
export function nestedFilterClause(field: string, keys: readonly (string | number)[], value: unknown): string {
    const path = nestedPath(field, keys);
    if (value === null || value === undefined) return `| where isnull(${path})`;
    if (typeof value === 'number' && Number.isFinite(value)) return `| where toreal(${path}) == ${value}`;
    if (typeof value === 'boolean') return `| where tobool(${path}) == ${value}`;
    return `| where tostring(${path}) == ${quoteString(typeof value === 'object' ? JSON.stringify(value) : String(value))}`;
}

/** The query with the filter added as its last line (after a trailing `;` or blank is dropped). */
export function withFilter(query: string, clause: string): string {
    return `${query.replace(/[\s;]+$/, '')}\n${clause}`;
}
