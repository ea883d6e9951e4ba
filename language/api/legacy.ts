/**
 * The legacy structured query (API.md §5) as the service reads it once normalised, and the legacy
 * result (§5.3) and the `format=legacy` APL result (§4.4) as it serves them.
 */
import type { JsonValue } from '../values.js';
import type { QueryStatus } from './status.js';
import type { FieldMeta } from './tabular.js';

// ------------------------------------------------------------------------------------------- request

/** Every filter op spelling a client may send (API.md §6.2). */
export type FilterOpSpelling =
    | ''
    | 'and' | 'or' | 'not'
    | '==' | 'eq' | '!=' | 'ne'
    | 'exists' | 'not-exists'
    | '>' | 'gt' | '>=' | 'gte' | '<' | 'lt' | '<=' | 'lte'
    | 'starts-with' | 'not-starts-with' | 'ends-with' | 'not-ends-with'
    | 'contains' | 'not-contains'
    | 'regexp' | 'not-regexp';

/** The one spelling `parseLegacyQuery` keeps for each op (the symbolic forms axiom-go sends). */
export type FilterOp = Exclude<FilterOpSpelling, '' | 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'>;

/**
 * A filter. `children` holds the operands of `and`/`or`/`not` (a `not` with several children negates
 * their conjunction); on any other op they are ignored (the go integration test sends them under `exists`).
 * `caseSensitive` (default false) applies to `==`, `!=`, the starts/ends-with and contains ops; the
 * regexp ops ignore it (the pattern decides, e.g. `(?i)`).
 */
export interface Filter {
    op: FilterOp;
    field: string;
    value?: JsonValue;
    caseSensitive?: boolean;
    children?: Filter[];
}

/** Every aggregation op a client may send (API.md §6.1). */
export type AggregationOp =
    | 'count' | 'distinct' | 'sum' | 'avg' | 'min' | 'max' | 'topk' | 'percentiles' | 'histogram'
    | 'stdev' | 'variance' | 'argmin' | 'argmax' | 'makeset' | 'makelist' | 'rate'
    | 'countif' | 'distinctif' | 'makesetif';

/**
 * An aggregation. `field` is `"*"` for count. `argument` depends on the op:
 * - `topk`: k (a positive integer); `histogram`: the number of bins (a positive integer);
 * - `percentiles`: one percentile (a number, the result is one value) or a list (the result is a list);
 * - `argmin`/`argmax`: the list of other fields to return with the extreme row (may be empty);
 * - `countif`, `distinctif`, `makesetif`: the predicate, a Filter (or an APL predicate as a string).
 */
export interface Aggregation {
    op: AggregationOp;
    field: string;
    alias?: string;
    argument?: JsonValue | Filter;
}

export interface Order {
    field: string;
    desc: boolean;
}

/** A computed field: `expr` is an APL scalar expression, e.g. `toint(response) < 400`. */
export interface VirtualField {
    alias: string;
    expr: string;
}

export interface Projection {
    field: string;
    alias?: string;
}

export interface LegacyQuery {
    /** RFC 3339, as sent. */
    startTime: string;
    endTime: string;
    /** `"auto"` or a Go duration (`"1m30s"`). */
    resolution: string;
    filter?: Filter;
    aggregations?: Aggregation[];
    groupBy?: string[];
    order?: Order[];
    project?: Projection[];
    virtualFields?: VirtualField[];
    /** Absent means the default, `DEFAULT_LEGACY_LIMIT`. */
    limit?: number;
    cursor?: string;
    includeCursor?: boolean;
    continuationToken?: string;
    /** Documented but without effect here (API.md §5.2: "docs only; ignore"). */
    queryOptions?: Record<string, string>;
}

// -------------------------------------------------------------------------------------------- result

/** API.md §4.5: sent in full with every result. */
export type LegacyStatus = QueryStatus;

/** One matching event: system fields at the top level, user fields in `data`. */
export interface Entry {
    _time: string;
    _sysTime: string;
    _rowId: string;
    data: Record<string, JsonValue>;
}

/** `op` is the aggregation's alias, or the upper-cased op when it has none (API.md §5.3, U8). */
export interface EntryGroupAgg {
    op: string;
    value: JsonValue;
}

export interface EntryGroup {
    id: number;
    group: Record<string, JsonValue>;
    aggregations: EntryGroupAgg[];
}

export interface Timeseries {
    startTime: string;
    endTime: string;
    groups: EntryGroup[];
}

export interface LegacyResult {
    status: LegacyStatus;
    matches: Entry[];
    buckets: { series: Timeseries[]; totals: EntryGroup[] };
    format?: 'legacy';
    fieldsMeta?: unknown;
}

/**
 * The `format=legacy` APL result (API.md §4.4): the legacy result plus the request the APL stands
 * for (its time range and resolution; the compiled query's keys when there is one).
 */
export interface AplLegacyResult extends LegacyResult {
    format: 'legacy';
    request: { startTime: string; endTime: string; resolution: string; [k: string]: unknown };
    datasetNames: string[];
    fieldsMetaMap: Record<string, FieldMeta[]>;
}
