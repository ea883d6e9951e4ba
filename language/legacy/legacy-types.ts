/**
 * The legacy structured query (`POST /v1/datasets/{id}/query`): its types (API.md §5, declared in
 * language/api/legacy.ts), the op tables, and `parseLegacyQuery`, the validating reader for request bodies.
 *
 * `parseLegacyQuery` normalises what the official clients send:
 * - axiom-go sends every key: `null` arrays, the empty filter (`op: ""`), `limit: 0`, `cursor: ""`,
 *   `continuationToken: ""`, `resolution: "auto"`. These all mean "not set" and are left out of the result.
 * - Filter ops are reduced to one spelling each (`eq` -> `==`, `gt` -> `>`, ...; see `FILTER_OP_SPELLINGS`).
 * - `resolution` `""` or `"0s"` is `"auto"`; a bare number of seconds becomes a Go duration.
 * Everything else that is not valid throws `LegacyQueryError` naming the field (as a JSON path) and value.
 */
import type { Aggregation, AggregationOp, Filter, FilterOp, FilterOpSpelling, LegacyQuery } from '../api/legacy.js';
import { parse } from '../apl-parse.js';
import { formatGoDuration, parseDatetime, parseGoDuration, type JsonValue } from '../values.js';
import { compileRegex } from '../builtins/functions-text-helpers.js';

// ------------------------------------------------------------------------------------------- request

export type {
    FilterOpSpelling, FilterOp, Filter, AggregationOp, Aggregation, Order, VirtualField, Projection, LegacyQuery,
    LegacyStatus, Entry, EntryGroupAgg, EntryGroup, Timeseries, LegacyResult, AplLegacyResult,
} from '../api/legacy.js';

export const FILTER_OP_SPELLINGS: Readonly<Record<FilterOpSpelling, FilterOp | ''>> = {
    '': '',
    and: 'and', or: 'or', not: 'not',
    '==': '==', eq: '==', '!=': '!=', ne: '!=',
    exists: 'exists', 'not-exists': 'not-exists',
    '>': '>', gt: '>', '>=': '>=', gte: '>=', '<': '<', lt: '<', '<=': '<=', lte: '<=',
    'starts-with': 'starts-with', 'not-starts-with': 'not-starts-with',
    'ends-with': 'ends-with', 'not-ends-with': 'not-ends-with',
    contains: 'contains', 'not-contains': 'not-contains',
    regexp: 'regexp', 'not-regexp': 'not-regexp',
};

export const LOGICAL_FILTER_OPS: ReadonlySet<FilterOp> = new Set(['and', 'or', 'not']);
/** Ops that compare the field with `value`. */
export const VALUE_FILTER_OPS: ReadonlySet<FilterOp> = new Set([
    '==', '!=', '>', '>=', '<', '<=', 'starts-with', 'not-starts-with', 'ends-with', 'not-ends-with', 'contains', 'not-contains', 'regexp', 'not-regexp',
]);

/** Ops that `caseSensitive` applies to. */
export const CASE_FILTER_OPS: ReadonlySet<FilterOp> = new Set([
    '==', '!=', 'starts-with', 'not-starts-with', 'ends-with', 'not-ends-with', 'contains', 'not-contains',
]);

export const AGGREGATION_OPS: readonly AggregationOp[] = [
    'count', 'distinct', 'sum', 'avg', 'min', 'max', 'topk', 'percentiles', 'histogram', 'stdev',
    'variance', 'argmin', 'argmax', 'makeset', 'makelist', 'rate', 'countif', 'distinctif', 'makesetif',
];

export const DEFAULT_LEGACY_LIMIT = 1000;
export const MAX_LEGACY_LIMIT = 50_000;

export type { MessagePriority, StatusMessage } from '../api/status.js';

// ------------------------------------------------------------------------------------------- parsing

/** A request body that is not a valid legacy query. `path` is the offending field, e.g. `filter.children[1].op`. */
export class LegacyQueryError extends Error {
    constructor(readonly path: string, message: string) {
        super(`${path}: ${message}`);
        this.name = 'LegacyQueryError';
    }
}

const KNOWN_KEYS = new Set([
    'startTime', 'endTime', 'resolution', 'filter', 'aggregations', 'groupBy', 'order', 'project', 'virtualFields',
    'limit', 'cursor', 'includeCursor', 'continuationToken', 'queryOptions',
]);

function show(v: unknown): string {
    if (v === undefined) return 'nothing';
    let s: string | undefined;
    try {
        s = JSON.stringify(v);
    } catch {
        // Too deep (or cyclic) to print: say what it is instead.
        return Array.isArray(v) ? 'a deeply nested array' : 'a deeply nested object';
    }
    return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function fail(path: string, message: string): never {
    throw new LegacyQueryError(path, message);
}

function isObject(v: unknown): v is Record<string, unknown> {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isJsonScalar(v: unknown): v is string | number | boolean | null {
    return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function optionalString(o: Record<string, unknown>, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') fail(path, `must be a string, got ${show(v)}`);
    return v;
}

/** An RFC 3339 timestamp (`2026-08-21T10:00:00.123456789+02:00`); returns ns since the epoch. */
export function parseLegacyTime(text: string): bigint | undefined {
    if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/.test(text)) return undefined;
    return parseDatetime(text);
}

function requiredTime(o: Record<string, unknown>, key: string): string {
    const v = o[key];
    if (v === undefined || v === null || v === '') fail(key, 'is required (an RFC 3339 timestamp)');
    if (typeof v !== 'string' || parseLegacyTime(v) === undefined) fail(key, `must be an RFC 3339 timestamp, got ${show(v)}`);
    return v;
}

/** `"auto"`, `""` (auto), a Go duration (`"1m30s"`), or a number of seconds; normalised to `"auto"` or a Go duration. */
export function parseResolution(v: unknown, path = 'resolution'): string {
    if (v === undefined || v === null || v === '' || v === 'auto') return 'auto';
    let ns: bigint | undefined;
    if (typeof v === 'number' && Number.isFinite(v)) ns = BigInt(Math.round(v * 1e9));
    else if (typeof v === 'string') ns = /^[0-9]+(\.[0-9]+)?$/.test(v.trim()) ? BigInt(Math.round(Number(v) * 1e9)) : parseGoDuration(v);
    if (ns === undefined) fail(path, `must be "auto" or a duration such as "1m30s", got ${show(v)}`);
    if (ns < 0n) fail(path, `must not be negative, got ${show(v)}`);
    if (ns === 0n) return 'auto';
    return formatGoDuration(ns);
}

/** The resolution in ns, or undefined for auto. */
export function resolutionNs(resolution: string): bigint | undefined {
    return resolution === 'auto' ? undefined : parseGoDuration(resolution);
}

/** Deepest and/or/not nesting of a legacy filter (deeper ones would exhaust the stack of every consumer). */
export const MAX_LEGACY_FILTER_DEPTH = 64;

export function parseFilter(v: unknown, path = 'filter', depth = 0): Filter | undefined {
    if (v === undefined || v === null) return undefined;
    if (depth > MAX_LEGACY_FILTER_DEPTH) fail(path, `is nested too deeply: at most ${MAX_LEGACY_FILTER_DEPTH} levels of and, or and not`);
    if (!isObject(v)) fail(path, `must be an object, got ${show(v)}`);
    const rawOp = v.op ?? '';
    if (typeof rawOp !== 'string') fail(`${path}.op`, `must be a string, got ${show(rawOp)}`);
    const spelling = rawOp.trim().toLowerCase();
    if (!Object.prototype.hasOwnProperty.call(FILTER_OP_SPELLINGS, spelling)) {
        fail(`${path}.op`, `unknown filter op ${show(rawOp)}; expected one of ${Object.keys(FILTER_OP_SPELLINGS).filter(k => k).join(', ')}`);
    }
    const op = FILTER_OP_SPELLINGS[spelling as FilterOpSpelling];
    if (op === '') return undefined; // the Go zero value: no filter
    const caseSensitive = v.caseSensitive ?? false;
    if (typeof caseSensitive !== 'boolean') fail(`${path}.caseSensitive`, `must be true or false, got ${show(caseSensitive)}`);
    const field = v.field ?? '';
    if (typeof field !== 'string') fail(`${path}.field`, `must be a string, got ${show(field)}`);

    if (LOGICAL_FILTER_OPS.has(op)) {
        const rawChildren = v.children;
        if (!Array.isArray(rawChildren) || rawChildren.length === 0) {
            fail(`${path}.children`, `'${op}' needs at least one child filter, got ${show(rawChildren)}`);
        }
        const children: Filter[] = [];
        rawChildren.forEach((c, i) => {
            const child = parseFilter(c, `${path}.children[${i}]`, depth + 1);
            if (!child) fail(`${path}.children[${i}].op`, `an empty filter cannot be an operand of '${op}'`);
            children.push(child);
        });
        return { op, field: '', children };
    }

    if (field === '') fail(`${path}.field`, `'${op}' needs a field`);
    const out: Filter = { op, field };
    if (VALUE_FILTER_OPS.has(op)) {
        if (!('value' in v)) fail(`${path}.value`, `'${op}' needs a value`);
        const value = v.value;
        if (op === '==' || op === '!=' || op === '>' || op === '>=' || op === '<' || op === '<=') {
            if (!isJsonScalar(value) || value === null) fail(`${path}.value`, `'${op}' needs a string, number or boolean, got ${show(value)}`);
        } else if (!isJsonScalar(value) || value === null) {
            fail(`${path}.value`, `'${op}' needs a string, got ${show(value)}`);
        }
        if ((op === 'regexp' || op === 'not-regexp')) {
            if (typeof value !== 'string') fail(`${path}.value`, `'${op}' needs a regular expression string, got ${show(value)}`);
            try {
                compileRegex(value);
            } catch (e) {
                fail(`${path}.value`, `${show(value)} is not a valid regular expression (${(e as Error).message})`);
            }
        }
        out.value = value;
        if (CASE_FILTER_OPS.has(op)) out.caseSensitive = caseSensitive;
    }
    return out;
}

function nullableArray(o: Record<string, unknown>, key: string): unknown[] | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) fail(key, `must be an array or null, got ${show(v)}`);
    return v.length === 0 ? undefined : v;
}

function positiveInteger(v: unknown, path: string, what: string): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) fail(path, `${what} must be a positive integer, got ${show(v)}`);
    return v;
}

function parseAggregation(v: unknown, path: string): Aggregation {
    if (!isObject(v)) fail(path, `must be an object, got ${show(v)}`);
    const rawOp = v.op;
    if (typeof rawOp !== 'string') fail(`${path}.op`, `must be a string, got ${show(rawOp)}`);
    const op = rawOp.trim().toLowerCase() as AggregationOp;
    if (!AGGREGATION_OPS.includes(op)) fail(`${path}.op`, `unknown aggregation op ${show(rawOp)}; expected one of ${AGGREGATION_OPS.join(', ')}`);
    const rawField = v.field;
    let field: string;
    if (typeof rawField === 'string' && rawField !== '') field = rawField;
    else if (op === 'count' || op === 'countif') field = '*';
    else fail(`${path}.field`, `'${op}' needs a field, got ${show(rawField)}`);
    if (field === '*' && op !== 'count' && op !== 'countif') fail(`${path}.field`, `'${op}' needs a field name, not "*"`);
    const out: Aggregation = { op, field };
    const alias = optionalString(v, 'alias', `${path}.alias`);
    if (alias) out.alias = alias;
    const arg = v.argument;
    const argPath = `${path}.argument`;
    switch (op) {
        case 'topk':
            out.argument = positiveInteger(arg, argPath, `'topk' needs k: the argument`);
            break;
        case 'histogram':
            out.argument = positiveInteger(arg, argPath, `'histogram' needs the number of bins: the argument`);
            break;
        case 'percentiles': {
            const list = Array.isArray(arg) ? arg : [arg];
            if (list.length === 0 || !list.every(p => typeof p === 'number' && p >= 0 && p <= 100)) {
                fail(argPath, `'percentiles' needs a percentile or a list of percentiles between 0 and 100, got ${show(arg)}`);
            }
            out.argument = arg as JsonValue;
            break;
        }
        case 'argmin':
        case 'argmax': {
            if (arg === undefined || arg === null) {
                out.argument = [];
                break;
            }
            const list = Array.isArray(arg) ? arg : [arg];
            if (!list.every(f => typeof f === 'string' && f !== '')) fail(argPath, `'${op}' needs a list of field names, got ${show(arg)}`);
            out.argument = list as string[];
            break;
        }
        case 'countif':
        case 'distinctif':
        case 'makesetif': {
            if (typeof arg === 'string') {
                if (arg.trim() === '') fail(argPath, `'${op}' needs a predicate`);
                checkAplExpression(arg, argPath);
                out.argument = arg;
            } else {
                const f = parseFilter(arg, argPath);
                if (!f) fail(argPath, `'${op}' needs a predicate: a filter or an APL expression, got ${show(arg)}`);
                out.argument = f;
            }
            break;
        }
        default:
            if (arg !== undefined && arg !== null) fail(argPath, `'${op}' takes no argument, got ${show(arg)}`);
    }
    return out;
}

/** Checks that `expr` is one APL scalar expression. */
function checkAplExpression(expr: string, path: string): void {
    const { problems } = parse(`print __legacy_check = (${expr})`);
    if (problems.length > 0) fail(path, `${show(expr)} is not a valid APL expression (${problems[0].message})`);
}

function nonEmptyString(v: unknown, path: string, what: string): string {
    if (typeof v !== 'string' || v === '') fail(path, `${what} must be a non-empty string, got ${show(v)}`);
    return v;
}

/**
 * Reads and validates a legacy query request body. Throws `LegacyQueryError` naming the field.
 * Unknown top-level keys are rejected too (a typo would otherwise silently change the query).
 */
export function parseLegacyQuery(json: unknown): LegacyQuery {
    if (!isObject(json)) fail('(body)', `must be a JSON object, got ${show(json)}`);
    for (const key of Object.keys(json)) {
        if (!KNOWN_KEYS.has(key)) fail(key, `unknown field; expected one of ${[...KNOWN_KEYS].join(', ')}`);
    }
    const startTime = requiredTime(json, 'startTime');
    const endTime = requiredTime(json, 'endTime');
    if (parseLegacyTime(endTime)! < parseLegacyTime(startTime)!) fail('endTime', `${show(endTime)} is before startTime ${show(startTime)}`);
    const query: LegacyQuery = { startTime, endTime, resolution: parseResolution(json.resolution) };

    const filter = parseFilter(json.filter, 'filter');
    if (filter) query.filter = filter;

    const aggregations = nullableArray(json, 'aggregations');
    if (aggregations) query.aggregations = aggregations.map((a, i) => parseAggregation(a, `aggregations[${i}]`));

    const groupBy = nullableArray(json, 'groupBy');
    if (groupBy) {
        query.groupBy = groupBy.map((g, i) => nonEmptyString(g, `groupBy[${i}]`, 'a group-by field'));
        if (!query.aggregations) fail('groupBy', 'is only valid together with aggregations');
    }

    const order = nullableArray(json, 'order');
    if (order) {
        query.order = order.map((o, i) => {
            if (!isObject(o)) fail(`order[${i}]`, `must be an object {field, desc}, got ${show(o)}`);
            const field = nonEmptyString(o.field, `order[${i}].field`, 'the sort field');
            const desc = o.desc ?? false;
            if (typeof desc !== 'boolean') fail(`order[${i}].desc`, `must be true or false, got ${show(desc)}`);
            return { field, desc };
        });
    }

    const project = nullableArray(json, 'project');
    if (project) {
        query.project = project.map((p, i) => {
            if (!isObject(p)) fail(`project[${i}]`, `must be an object {field, alias}, got ${show(p)}`);
            const field = nonEmptyString(p.field, `project[${i}].field`, 'the projected field');
            const alias = optionalString(p, 'alias', `project[${i}].alias`);
            return alias ? { field, alias } : { field };
        });
    }

    const virtualFields = nullableArray(json, 'virtualFields');
    if (virtualFields) {
        query.virtualFields = virtualFields.map((f, i) => {
            if (!isObject(f)) fail(`virtualFields[${i}]`, `must be an object {alias, expr}, got ${show(f)}`);
            const alias = nonEmptyString(f.alias, `virtualFields[${i}].alias`, 'the alias');
            const expr = nonEmptyString(f.expr, `virtualFields[${i}].expr`, 'the expression');
            checkAplExpression(expr, `virtualFields[${i}].expr`);
            return { alias, expr };
        });
    }

    const limit = json.limit;
    if (limit !== undefined && limit !== null) {
        if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || limit > 0xffffffff) {
            fail('limit', `must be a non-negative integer (0 means the default, ${DEFAULT_LEGACY_LIMIT}), got ${show(limit)}`);
        }
        if (limit > 0) query.limit = limit;
    }

    const cursor = optionalString(json, 'cursor', 'cursor');
    if (cursor) query.cursor = cursor;
    const includeCursor = json.includeCursor;
    if (includeCursor !== undefined && includeCursor !== null) {
        if (typeof includeCursor !== 'boolean') fail('includeCursor', `must be true or false, got ${show(includeCursor)}`);
        if (includeCursor) query.includeCursor = true;
    }
    const token = optionalString(json, 'continuationToken', 'continuationToken');
    if (token) query.continuationToken = token;

    const options = json.queryOptions;
    if (options !== undefined && options !== null) {
        if (!isObject(options)) fail('queryOptions', `must be an object, got ${show(options)}`);
        const out: Record<string, string> = {};
        for (const [k, val] of Object.entries(options)) {
            if (val === null || val === undefined) continue;
            if (typeof val !== 'string') fail(`queryOptions.${k}`, `must be a string, got ${show(val)}`);
            out[k] = val;
        }
        query.queryOptions = out;
    }
    return query;
}

/** The number of rows (or groups) a query returns at most: its limit, else the default, never above the maximum. */
export function effectiveLegacyLimit(query: Pick<LegacyQuery, 'limit'>): number {
    return Math.min(query.limit ?? DEFAULT_LEGACY_LIMIT, MAX_LEGACY_LIMIT);
}

