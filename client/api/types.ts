/**
 * Request and response types of the Axiom-compatible service contract (API.md), as `AplClient`
 * sends and receives them. The same shapes are served by `apl serve` and by the live endpoint.
 */

// ------------------------------------------------------------------------------------ datasets (§7)

export type DatasetKind = 'axiom:events:v1' | 'otel:logs:v1' | 'otel:traces:v1' | 'otel:metrics:v1' | (string & {});

export interface Dataset {
    id: string;
    name: string;
    kind?: DatasetKind;
    description: string;
    who: string;
    /** RFC 3339. */
    created: string;
    updatedAt?: string;
    canWrite?: boolean;
    useRetentionPeriod?: boolean;
    retentionDays?: number;
    mapFields?: string[] | null;
    edgeDeployment?: string;
    region?: string;
    sharedByOrg?: string;
}

export interface CreateDatasetRequest {
    name: string;
    description?: string;
    kind?: DatasetKind;
    retentionDays?: number;
    useRetentionPeriod?: boolean;
    edgeDeployment?: string;
}

export interface UpdateDatasetRequest {
    description?: string;
    retentionDays?: number;
    useRetentionPeriod?: boolean;
}

export type { DatasetField } from '../../language/api/tabular.js';
import type { DatasetField } from '../../language/api/tabular.js';

/** `GET /v1/datasets/{id}/info`: a dataset's statistics (times RFC 3339; `0001-01-01…` when empty). */
export interface DatasetInfo {
    name: string;
    numBlocks: number;
    numEvents: number;
    numFields: number;
    inputBytes: number;
    compressedBytes: number;
    minTime: string;
    maxTime: string;
    fields?: DatasetField[];
    who?: string;
    created?: string;
}

// ---------------------------------------------------------------------------------------- user (§8)

export interface User {
    id: string;
    name: string;
    email: string;
    role?: { id: string; name: string };
}

// -------------------------------------------------------------------------------------- ingest (§3)

export type IngestContentType = 'application/json' | 'application/x-ndjson' | 'text/csv' | (string & {});
export type IngestContentEncoding = '' | 'identity' | 'gzip' | 'zstd';

export interface IngestOptions {
    /** Content type of a raw body. Events (an array of objects) are always sent as NDJSON. */
    contentType?: IngestContentType;
    /** Encoding of a raw body as given (`gzip` when the bytes are already gzipped). Events are gzipped. */
    contentEncoding?: IngestContentEncoding;
    /** `timestamp-field`: the field holding the event time (default `_time`). */
    timestampField?: string;
    /** `timestamp-format`: a Go reference layout (`2006-01-02`). */
    timestampFormat?: string;
    /** `X-Axiom-Event-Labels`: fields added to every event. */
    labels?: Record<string, unknown>;
    /** `csv-delimiter`: one character. */
    csvDelimiter?: string;
    /** `X-Axiom-CSV-Fields`: header names of a headerless CSV body. */
    csvFields?: string[];
}

/** The ingest response (API.md §3.4). */
export type { IngestFailure, IngestStatus } from '../../language/api/ingest.js';

/** A raw ingest body: bytes, text, or a stream of bytes (a file being read). */
export type IngestBody = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

// --------------------------------------------------------------------------------- query status (§4.5)

export type { MessagePriority, QueryStatus, StatusMessage } from '../../language/api/status.js';

// --------------------------------------------------------------------------------- APL tabular (§4.3)

// The lenient forms: the live endpoint may leave keys out and send `columns: null`.
export type { FieldAgg, Table, TableField, TabularResponse as TabularResult } from '../../language/api/tabular.js';
import type { TableField, TabularResponse as TabularResult } from '../../language/api/tabular.js';

// ------------------------------------------------------------------------------------- legacy (§5)

export interface LegacyFilter {
    op: string;
    field?: string;
    value?: unknown;
    caseSensitive?: boolean;
    children?: LegacyFilter[] | null;
}

export interface LegacyQuery {
    startTime: string;
    endTime: string;
    resolution?: string;
    aggregations?: { alias?: string; op: string; field: string; argument?: unknown }[] | null;
    groupBy?: string[] | null;
    filter?: LegacyFilter;
    order?: { field: string; desc: boolean }[] | null;
    limit?: number;
    virtualFields?: { alias: string; expr: string }[] | null;
    project?: { field: string; alias?: string }[] | null;
    cursor?: string;
    includeCursor?: boolean;
    continuationToken?: string;
    queryOptions?: Record<string, string>;
}

export type { Entry as LegacyEntry, EntryGroup as LegacyEntryGroup, LegacyResult, AplLegacyResult } from '../../language/api/legacy.js';

// ------------------------------------------------------------------------------------ query options

export type QueryFormat = 'tabular' | 'legacy';

export interface QueryOptions {
    /** RFC 3339, or what the service accepts (`now-1h`). Absent: not time-bounded. */
    startTime?: string | Date;
    endTime?: string | Date;
    format?: QueryFormat;
    /** Continue after (or, with `includeCursor`, at) this row id (§10.2). */
    cursor?: string;
    includeCursor?: boolean;
    /** Add a `_cursor` column to the result. */
    includeCursorField?: boolean;
    /** `declare query_parameters` values; a `let` in the APL wins. */
    variables?: Record<string, unknown>;
    noCache?: boolean;
    /** Abort after this many milliseconds (default: the client's timeout). */
    timeoutMs?: number;
    signal?: AbortSignal;
}

export interface LegacyQueryOptions {
    noCache?: boolean;
    streamingDuration?: string;
    signal?: AbortSignal;
}

// ----------------------------------------------------------------------------------- paging (§10)

export type PageOrder = 'desc' | 'asc';

export interface PagingOptions {
    /** Rows per page (appended to the query as `| limit N`). Default 1000. */
    pageSize?: number;
    /** Time order of the pages. Default `desc` (newest first). */
    order?: PageOrder;
    startTime?: string | Date;
    endTime?: string | Date;
    /** Stop after this many pages (a safety net). Default unlimited. */
    maxPages?: number;
    variables?: Record<string, unknown>;
    signal?: AbortSignal;
}

export interface Page {
    /** 0-based page number. */
    index: number;
    /** The rows of the first table, as objects keyed by field name. */
    rows: Record<string, unknown>[];
    fields: TableField[];
    /** The whole response of this page. */
    result: TabularResult;
    /** The cursor the next page will be requested with (cursor paging), or undefined on the last page. */
    nextCursor?: string;
}

// annotations and monitors (v2): the wire types live in language/api/.
export type * from '../../language/api/annotations-monitors.js';
