/**
 * Request-level query parameters (API.md §4.2, §10): the time range (`startTime`/`endTime` as
 * RFC 3339 or `now`, `now-1h`, `now-1d`, `now-2w`…), cursors, booleans and the effective page size.
 */
import { formatDatetime, NS_PER_DAY, parseDatetime, parseGoDuration } from '../../language/values.js';
import { parseRowId } from '../store/row-id.js';
import { badRequest } from './errors.js';

/** Server default page size when neither the query nor the request sets a limit (API.md §10.3). */
export const DEFAULT_PAGE_SIZE = 1000;
/** Default server maximum page size (API.md §5.2: max 50,000). */
export const DEFAULT_MAX_RESULT_ROWS = 50_000;

const RELATIVE_UNITS: Record<string, bigint> = { d: NS_PER_DAY, w: 7n * NS_PER_DAY, y: 365n * NS_PER_DAY };

/**
 * Parses a request time: RFC 3339 (any offset), `now`, or `now` followed by signed durations
 * (`now-1h`, `now-1h30m`, `now-7d`, `now - 2w`, `now+5m`). Durations use Go units plus `d`, `w`
 * and `y` (365 days). Returns ns since the epoch, or throws a 400 naming the parameter.
 */
export function parseRequestTime(value: unknown, name: string, nowNs: bigint): bigint | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw badRequest(`invalid ${name}: expected an RFC 3339 timestamp or a relative time such as "now-1h", got ${JSON.stringify(value)}`);
    const s = value.trim();
    const rel = /^now((?:\s*[-+]\s*[0-9.]+[a-zµμ]+)*)\s*$/i.exec(s);
    if (rel) {
        let t = nowNs;
        const terms = rel[1].match(/[-+]\s*[0-9.]+[a-zµμ]+(?:[0-9.]+[a-zµμ]+)*/gi) ?? [];
        for (const term of terms) {
            const sign = term[0] === '-' ? -1n : 1n;
            const ns = parseRelativeDuration(term.slice(1).trim());
            if (ns === undefined) throw badRequest(`invalid ${name} ${JSON.stringify(value)}: unknown duration "${term.slice(1).trim()}" (use e.g. 30s, 15m, 1h, 7d, 2w)`);
            t += sign * ns;
        }
        return t;
    }
    if (!/^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?)?\s*([Zz]|[+-]\d{2}:?\d{2})?$/.test(s)) {
        throw badRequest(`invalid ${name} ${JSON.stringify(value)}: expected an RFC 3339 timestamp (2024-01-02T15:04:05Z) or a relative time such as "now-1h"`);
    }
    const ns = parseDatetime(s);
    if (ns === undefined) throw badRequest(`invalid ${name} ${JSON.stringify(value)}: not a valid date and time`);
    return ns;
}

function parseRelativeDuration(text: string): bigint | undefined {
    // Go durations first (1h30m, 90s, 1.5h), then d/w/y (possibly combined: 1d12h).
    const go = parseGoDuration(text);
    if (go !== undefined) return go;
    const re = /([0-9]+(?:\.[0-9]+)?)(d|w|y)/y;
    let pos = 0;
    let total = 0n;
    while (pos < text.length) {
        re.lastIndex = pos;
        const m = re.exec(text);
        if (!m) {
            const rest = parseGoDuration(text.slice(pos));
            return rest === undefined ? undefined : total + rest;
        }
        total += BigInt(Math.round(Number(m[1]) * 1e6)) * (RELATIVE_UNITS[m[2]] / 1_000_000n);
        pos = re.lastIndex;
    }
    return total;
}

export interface TimeRange {
    startNs: bigint | undefined;
    endNs: bigint | undefined;
}

export function parseTimeRange(body: { startTime?: unknown; endTime?: unknown }, nowNs: bigint): TimeRange {
    const startNs = parseRequestTime(body.startTime, 'startTime', nowNs);
    const endNs = parseRequestTime(body.endTime, 'endTime', nowNs);
    if (startNs !== undefined && endNs !== undefined && startNs > endNs) {
        throw badRequest(`invalid time range: startTime ${formatDatetime(startNs)} is after endTime ${formatDatetime(endNs)}`);
    }
    return { startNs, endNs };
}

/** Validates a cursor (a row id, API.md §10.1). Empty means none. */
export function parseCursorParam(value: unknown, name = 'cursor'): string | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string' || !parseRowId(value.trim())) {
        throw badRequest(`invalid ${name} ${JSON.stringify(value)}: expected a row id such as "0d3fzkox77jls-0000000000000001-00000000" (use status.minCursor/maxCursor or a _rowId)`);
    }
    return value.trim();
}

/** Booleans from query strings or JSON: `true`/`True`/`1` (API.md §1.3: parse case-insensitively). */
export function parseBool(value: unknown, name: string): boolean | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string') {
        const v = value.trim().toLowerCase();
        if (v === 'true' || v === '1') return true;
        if (v === 'false' || v === '0') return false;
    }
    throw badRequest(`invalid ${name} ${JSON.stringify(value)}: expected true or false`);
}

/** A non-negative integer limit from the request body; 0 or absent = none. */
export function parseLimit(value: unknown, name = 'limit'): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw badRequest(`invalid ${name} ${JSON.stringify(value)}: expected a non-negative integer`);
    }
    return value === 0 ? undefined : value;
}
