/**
 * Legacy query -> APL text, so that legacy queries run on the one reference evaluator.
 *
 * The APL reproduces the legacy query's fixed order of evaluation (see translate.ts):
 *
 *     ['ds'] | extend <virtualFields, one per extend> | where <filter>
 *            | summarize <aggregations> by <groupBy>[, bin(_time, <resolution>)]   (aggregating queries)
 *            | sort by <order> | take <limit> | project <project>
 *
 * Filter semantics are spelled out exactly: `caseSensitive` picks `==`/`=~`, `contains`/`contains_cs`,
 * `startswith`/`startswith_cs`, ...; `exists` is `isnotnull`; string values compared with `_time` or
 * `_sysTime` become datetimes. The pattern `and(exists f, != f "")` that translate emits for
 * `isnotempty(f)` is written back as `isnotempty(f)` (likewise `isempty`), so translate -> decompile
 * gives back the original predicate.
 */
import { autoBinSize } from '../builtins/functions-numeric-time.js';
import { NS_PER_DAY, NS_PER_HOUR, NS_PER_MINUTE, NS_PER_MS, NS_PER_SECOND, type JsonValue } from '../values.js';
import { parseLegacyTime, resolutionNs, type Aggregation, type Filter, type LegacyQuery } from './legacy-types.js';

/** Hidden columns the matches query adds to carry the system fields through a `project`. */
export const TIME_COLUMN = '__legacy_time';
export const SYSTIME_COLUMN = '__legacy_systime';
export const ROWID_COLUMN = '__legacy_rowid';

/** `['name']`, escaped. */
export function quoteName(name: string): string {
    return `['${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

export function stringLiteral(s: string): string {
    return JSON.stringify(s);
}

/** A JSON scalar as an APL literal. */
export function literal(v: JsonValue | undefined): string {
    if (v === null || v === undefined) return 'dynamic(null)';
    if (typeof v === 'string') return stringLiteral(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
        if (!Number.isFinite(v)) return v > 0 ? 'real(+inf)' : v < 0 ? 'real(-inf)' : 'real(nan)';
        const text = Number.isInteger(v) && Math.abs(v) < 1e21 ? BigInt(v).toString() : String(v);
        return text.startsWith('-') ? `(${text})` : text;
    }
    return `dynamic(${JSON.stringify(v)})`;
}

/** A timespan literal in the largest unit that divides it (`1h`, `90s`, `1500ms`). */
export function timespanLiteral(ns: bigint): string {
    const units: [bigint, string][] = [[NS_PER_DAY, 'd'], [NS_PER_HOUR, 'h'], [NS_PER_MINUTE, 'm'], [NS_PER_SECOND, 's'], [NS_PER_MS, 'ms'], [1000n, 'micros']];
    for (const [size, suffix] of units) if (ns % size === 0n) return `${ns / size}${suffix}`;
    return `${ns}nanos`;
}

const TIME_FIELDS = new Set(['_time', '_sysTime']);

function valueFor(field: string, v: JsonValue | undefined): string {
    if (typeof v === 'string' && TIME_FIELDS.has(field) && parseLegacyTime(v) !== undefined) return `datetime(${v})`;
    return literal(v);
}

function text(v: JsonValue | undefined): string {
    return stringLiteral(typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
}

const STRING_OPERATORS: Readonly<Record<string, [string, string]>> = {
    contains: ['contains', 'contains_cs'],
    'not-contains': ['!contains', '!contains_cs'],
    'starts-with': ['startswith', 'startswith_cs'],
    'not-starts-with': ['!startswith', '!startswith_cs'],
    'ends-with': ['endswith', 'endswith_cs'],
    'not-ends-with': ['!endswith', '!endswith_cs'],
};

function isEmptyPattern(f: Filter, outer: 'and' | 'or'): string | undefined {
    const c = f.children;
    if (f.op !== outer || !c || c.length !== 2) return undefined;
    const [a, b] = c;
    const existsOp = outer === 'and' ? 'exists' : 'not-exists';
    const cmpOp = outer === 'and' ? '!=' : '==';
    if (a.op === existsOp && b.op === cmpOp && a.field === b.field && b.value === '' && b.caseSensitive === true) return a.field;
    return undefined;
}

/** A legacy filter as an APL predicate. */
export function filterToApl(f: Filter): string {
    const field = quoteName(f.field);
    switch (f.op) {
        case 'and': {
            const ne = isEmptyPattern(f, 'and');
            if (ne !== undefined) return `isnotempty(${quoteName(ne)})`;
            return f.children!.map(c => `(${filterToApl(c)})`).join(' and ');
        }
        case 'or': {
            const e = isEmptyPattern(f, 'or');
            if (e !== undefined) return `isempty(${quoteName(e)})`;
            return f.children!.map(c => `(${filterToApl(c)})`).join(' or ');
        }
        case 'not':
            return `not(${f.children!.map(c => `(${filterToApl(c)})`).join(' and ')})`;
        case 'exists':
            return `isnotnull(${field})`;
        case 'not-exists':
            return `isnull(${field})`;
        case '==':
        case '!=': {
            const insensitive = typeof f.value === 'string' && !f.caseSensitive && !TIME_FIELDS.has(f.field);
            const op = insensitive ? (f.op === '==' ? '=~' : '!~') : f.op;
            return `${field} ${op} ${valueFor(f.field, f.value)}`;
        }
        case '>':
        case '>=':
        case '<':
        case '<=':
            return `${field} ${f.op} ${valueFor(f.field, f.value)}`;
        case 'regexp':
            return `${field} matches regex ${text(f.value)}`;
        case 'not-regexp':
            return `${field} !matches regex ${text(f.value)}`;
        default: {
            const [insensitive, sensitive] = STRING_OPERATORS[f.op];
            return `${field} ${f.caseSensitive ? sensitive : insensitive} ${text(f.value)}`;
        }
    }
}

function predicate(arg: Aggregation['argument']): string {
    if (typeof arg === 'string') return `(${arg})`;
    return filterToApl(arg as Filter);
}

/** One legacy aggregation as an APL aggregation call. */
export function aggregationToApl(a: Aggregation): string {
    const f = quoteName(a.field);
    switch (a.op) {
        case 'count': return 'count()';
        case 'countif': return `countif(${predicate(a.argument)})`;
        case 'distinct': return `dcount(${f})`;
        case 'distinctif': return `dcountif(${f}, ${predicate(a.argument)})`;
        case 'makeset': return `make_set(${f})`;
        case 'makelist': return `make_list(${f})`;
        case 'makesetif': return `make_set_if(${f}, ${predicate(a.argument)})`;
        case 'topk': return `topk(${f}, ${literal(a.argument as number)})`;
        case 'histogram': return `histogram(${f}, ${literal(a.argument as number)})`;
        case 'percentiles':
            return Array.isArray(a.argument)
                ? `percentiles_array(${f}, ${(a.argument as number[]).map(p => literal(p)).join(', ')})`
                : `percentile(${f}, ${literal(a.argument as number)})`;
        case 'argmin':
        case 'argmax': {
            const others = Array.isArray(a.argument) ? (a.argument as string[]) : [];
            return `${a.op === 'argmin' ? 'arg_min' : 'arg_max'}(${[a.field, ...(others.length ? others : [a.field])].map(quoteName).join(', ')})`;
        }
        default:
            return `${a.op}(${f})`;
    }
}

/** The name an aggregation reports as `op` in the result: its alias, else the upper-cased op (API.md §5.3). */
export function aggregationName(a: Aggregation): string {
    return a.alias || a.op.toUpperCase();
}

export interface DecompiledLegacy {
    /** The APL for the matches (non-aggregating queries). */
    matches?: string;
    /** The APL for `buckets.totals`: one row per group. */
    totals?: string;
    /** The APL for `buckets.series`: one row per group and time bucket (column `_time`). */
    series?: string;
    /** Per aggregation: the result column and the name reported as `op`. */
    aggregations: { column: string; op: string }[];
    /** The bucket size of the series, ns. */
    binNs?: bigint;
}

export interface DecompileOptions {
    /** The bucket size for `resolution: "auto"` (default: `autoBinSize` over the query's range). */
    autoBinNs?: bigint;
}

/** The APL that computes a legacy query's result on the reference evaluator. */
export function decompileLegacy(dataset: string, query: LegacyQuery, options: DecompileOptions = {}): DecompiledLegacy {
    const head: string[] = [quoteName(dataset)];
    for (const vf of query.virtualFields ?? []) head.push(`extend ${quoteName(vf.alias)} = (${vf.expr})`);
    if (query.filter) head.push(`where ${filterToApl(query.filter)}`);
    const sort = (skip: Set<string> = new Set()) => {
        const items = (query.order ?? []).filter(o => !skip.has(o.field)).map(o => `${quoteName(o.field)} ${o.desc ? 'desc' : 'asc'}`);
        return items.length ? [`sort by ${items.join(', ')}`] : [];
    };
    const take = query.limit !== undefined ? [`take ${query.limit}`] : [];

    if (!query.aggregations || query.aggregations.length === 0) {
        // The system fields are captured first, so that no virtual field or projection can hide them.
        const capture = `extend ${quoteName(TIME_COLUMN)} = _time, ${quoteName(SYSTIME_COLUMN)} = _sysTime, ${quoteName(ROWID_COLUMN)} = cursor_current()`;
        const system = [TIME_COLUMN, SYSTIME_COLUMN, ROWID_COLUMN].map(quoteName).join(', ');
        const tail = query.project
            ? [`project ${query.project.map(p => (p.alias && p.alias !== p.field ? `${quoteName(p.alias)} = ${quoteName(p.field)}` : quoteName(p.field))).join(', ')}, ${system}`]
            : [];
        return { matches: [head[0], capture, ...head.slice(1), ...sort(), ...take, ...tail].join('\n| '), aggregations: [] };
    }

    const used = new Set<string>(query.groupBy ?? []);
    const aggregations = query.aggregations.map(a => {
        const op = aggregationName(a);
        let column = op;
        for (let i = 1; used.has(column) || column === '_time'; i++) column = `${op}_${i}`;
        used.add(column);
        return { column, op, call: aggregationToApl(a) };
    });
    const aggText = aggregations.map(a => `${quoteName(a.column)} = ${a.call}`).join(', ');
    const groups = (query.groupBy ?? []).map(quoteName);
    const by = (keys: string[]) => (keys.length ? ` by ${keys.join(', ')}` : '');
    const totals = [...head, `summarize ${aggText}${by(groups)}`, ...sort(new Set(['_time'])), ...take].join('\n| ');
    const explicit = resolutionNs(query.resolution);
    const binNs = explicit ?? options.autoBinNs ?? autoBinSize(parseLegacyTime(query.startTime)!, parseLegacyTime(query.endTime)!);
    const series = [...head, `summarize ${aggText}${by([...groups, `bin(_time, ${timespanLiteral(binNs)})`])}`].join('\n| ');
    return { totals, series, aggregations: aggregations.map(({ column, op }) => ({ column, op })), binNs };
}
