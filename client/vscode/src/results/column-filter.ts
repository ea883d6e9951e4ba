/**
 * Column filters of the results grid: by value (a list of values, kept or left out), by range
 * (numbers, times, timespans as numbers of the column's kind) and by text (contains, has, startswith,
 * regex). Each one is both a test of a row here (when the host holds every row of the result) and a
 * `where` on the service (when it does not, and always shown, so that what the grid shows is a query).
 * Names and strings are written by the one quoting helper (language/quote-name.ts).
 */
import { quoteName, quoteString } from '../../../../language/quote-name.js';
import { cellSearchText } from './row-search.js';

export type TextOp = 'contains' | 'has' | 'startswith' | 'matches regex';

export type ColumnFilter =
    | { field: string; kind: 'values'; values: unknown[]; exclude?: boolean }
    | { field: string; kind: 'range'; from?: number | string; to?: number | string }
    | { field: string; kind: 'text'; op: TextOp; text: string };

/** A datetime is compared through `todatetime('…')` so that any text (a `)`, a line break) stays a string. */
function literal(type: string, value: unknown): string {
    const base = type.split('|')[0];
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'boolean') return String(value);
    if (base === 'datetime' && typeof value === 'string') return `todatetime(${quoteString(value)})`;
    if (base === 'timespan' && typeof value === 'string') return `totimespan(${quoteString(value)})`;
    if (value !== null && typeof value === 'object') return quoteString(JSON.stringify(value));
    return quoteString(String(value));
}

/** The column as compared: a dynamic value as its JSON text (its values are listed as such). */
function operand(field: string, values: readonly unknown[]): string {
    const name = quoteName(field);
    return values.some(v => v !== null && typeof v === 'object') ? `tostring(${name})` : name;
}

/** The predicate of `filter` on a column of `type` (what follows `where`). */
export function filterPredicate(filter: ColumnFilter, type: string): string {
    const name = quoteName(filter.field);
    switch (filter.kind) {
        case 'values': {
            const nulls = filter.values.some(v => v === null || v === undefined);
            const values = filter.values.filter(v => v !== null && v !== undefined);
            const col = operand(filter.field, values);
            const parts: string[] = [];
            if (values.length === 1) parts.push(`${col} ${filter.exclude ? '!=' : '=='} ${literal(type, values[0])}`);
            else if (values.length > 1) parts.push(`${col} ${filter.exclude ? '!in' : 'in'} (${values.map(v => literal(type, v)).join(', ')})`);
            if (nulls) parts.push(filter.exclude ? `isnotnull(${name})` : `isnull(${name})`);
            if (parts.length === 0) return filter.exclude ? 'true' : 'false';
            return parts.length === 1 ? parts[0] : filter.exclude ? parts.join(' and ') : `(${parts.join(' or ')})`;
        }
        case 'range': {
            const parts: string[] = [];
            if (filter.from !== undefined) parts.push(`${name} >= ${literal(type, filter.from)}`);
            if (filter.to !== undefined) parts.push(`${name} <= ${literal(type, filter.to)}`);
            return parts.length === 0 ? 'true' : parts.join(' and ');
        }
        case 'text':
            return `tostring(${name}) ${filter.op} ${quoteString(filter.text)}`;
    }
}

/** `| where …` for every filter (one line each). */
export function filtersClause(filters: readonly ColumnFilter[], types: ReadonlyMap<string, string>): string {
    return filters.map(f => `| where ${filterPredicate(f, types.get(f.field) ?? 'string')}`).join('\n');
}

/** `has`: the text holds `term` as whole words (Kusto's terms: runs of letters and digits), case-insensitive. */
function hasTerm(text: string, term: string): boolean {
    const t = term.toLowerCase();
    if (t === '') return true;
    const s = text.toLowerCase();
    const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
    for (let i = s.indexOf(t); i >= 0; i = s.indexOf(t, i + 1)) {
        if (!word(s[i - 1]) && !word(s[i + t.length])) return true;
    }
    return false;
}

/** A comparable number of a cell for a range: numbers as they are, times as ms since the epoch. */
function rangeValue(type: string, v: unknown): number | undefined {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && type.split('|')[0] === 'datetime') {
        const t = Date.parse(v);
        return Number.isFinite(t) ? t : undefined;
    }
    return undefined;
}

const sameValue = (a: unknown, b: unknown) => a === b || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

/**
 * The test of a cell, as the service would do it. Throws (a `SyntaxError`) for a regex JavaScript
 * cannot read: the caller then keeps the filter for the service.
 */
export function cellTest(filter: ColumnFilter, type: string): (value: unknown) => boolean {
    switch (filter.kind) {
        case 'values': {
            const values = filter.values.map(v => (v === undefined ? null : v));
            const test = (v: unknown) => values.some(w => sameValue(w, v === undefined ? null : v));
            return filter.exclude ? v => !test(v) : test;
        }
        case 'range': {
            const from = filter.from === undefined ? undefined : rangeValue(type, filter.from);
            const to = filter.to === undefined ? undefined : rangeValue(type, filter.to);
            return v => {
                const n = rangeValue(type, v);
                return n !== undefined && (from === undefined || n >= from) && (to === undefined || n <= to);
            };
        }
        case 'text': {
            const text = filter.text;
            const lower = text.toLowerCase();
            switch (filter.op) {
                case 'contains':
                    return v => v !== null && v !== undefined && cellSearchText(v).toLowerCase().includes(lower);
                case 'startswith':
                    return v => v !== null && v !== undefined && cellSearchText(v).toLowerCase().startsWith(lower);
                case 'has':
                    return v => v !== null && v !== undefined && hasTerm(cellSearchText(v), text);
                case 'matches regex': {
                    // RE2's syntax is close to JavaScript's for what people write; what JavaScript refuses throws here.
                    const re = new RegExp(text, 'u');
                    return v => v !== null && v !== undefined && re.test(cellSearchText(v));
                }
            }
        }
    }
}

/** The indexes of row-major `rows` that pass every filter. */
export function filterRows(rows: readonly (readonly unknown[])[], filters: readonly ColumnFilter[], fields: readonly { name: string; type: string }[]): number[] {
    const tests = filters.map(f => {
        const column = fields.findIndex(x => x.name === f.field);
        if (column < 0) throw new RangeError(`the result has no field named ${f.field}`);
        return { column, test: cellTest(f, fields[column].type) };
    });
    const out: number[] = [];
    rows.forEach((row, i) => {
        if (tests.every(t => t.test(row[t.column]))) out.push(i);
    });
    return out;
}

/** The distinct values of one column with their counts, most frequent first (ties in first-seen order), up to `limit`. */
export function distinctValues(rows: readonly (readonly unknown[])[], column: number, limit: number): { values: { value: unknown; count: number }[]; distinct: number } {
    const counts = new Map<string, { value: unknown; count: number }>();
    for (const row of rows) {
        const v = row[column] ?? null;
        const key = v !== null && typeof v === 'object' ? `o${JSON.stringify(v)}` : `${typeof v}:${String(v)}`;
        const e = counts.get(key);
        if (e) e.count++;
        else counts.set(key, { value: v, count: 1 });
    }
    const all = [...counts.values()];
    all.sort((a, b) => b.count - a.count);
    return { values: all.slice(0, limit), distinct: all.length };
}
