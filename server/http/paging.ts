/**
 * Request-level query parameters (API.md §4.2, §10): the time range (`startTime`/`endTime` as
 * RFC 3339 or `now`, `now-1h`, `now-1d`, `now-2w`…), cursors, booleans and the effective page size.
 */
import { formatDatetime, parseTimeExpression } from '../../language/index.js';
import { isRowId } from '../../language/api/index.js';
import { badRequest } from './errors.js';

/** Server default page size when neither the query nor the request sets a limit (API.md §10.3). */
export const DEFAULT_PAGE_SIZE = 1000;
/** Default server maximum page size (API.md §5.2: max 50,000). */
export const DEFAULT_MAX_RESULT_ROWS = 50_000;

/**
 * Parses a request time (`language/values.ts` parseTimeExpression: RFC 3339, `now`, `now-1h`, `now-7d`…).
 * Returns ns since the epoch, or throws a 400 naming the parameter.
 */
export function parseRequestTime(value: unknown, name: string, nowNs: bigint): bigint | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw badRequest(`invalid ${name}: expected an RFC 3339 timestamp or a relative time such as "now-1h", got ${JSON.stringify(value)}`);
    const parsed = parseTimeExpression(value, nowNs);
    if (!parsed.ok) throw badRequest(`invalid ${name} ${JSON.stringify(value)}: ${parsed.problem}`);
    return parsed.ns;
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
    if (typeof value !== 'string' || !isRowId(value.trim())) {
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
