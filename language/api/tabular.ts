/**
 * The tabular query result (API.md §4.3), in two strengths:
 * - what a client accepts from any endpoint (the live one leaves keys out and may send `columns: null`):
 *   `Table`, `TableField`, `FieldAgg`, `DatasetField`, `TabularResponse`;
 * - what this implementation serves, with every key present: `TabularTable`, `TabularField`,
 *   `FieldMeta`, `TabularResult`. Each is assignable to its lenient counterpart.
 */
import type { JsonValue } from '../values.js';
import type { QueryStatus } from './status.js';

// ------------------------------------------------------------------------- as a client receives it

export interface FieldAgg {
    name: string;
    fields?: string[];
    args?: unknown[];
}

export interface TableField {
    name: string;
    type: string;
    agg?: FieldAgg;
}

export interface Table {
    name: string;
    sources?: { name: string }[];
    fields: TableField[];
    order?: { field: string; desc: boolean }[];
    groups?: { name: string }[];
    range?: { field: string; start: string; end: string } | null;
    buckets?: { field: string; size: number } | null;
    /** Column-major, aligned with `fields`. */
    columns: unknown[][] | null;
}

/** A field of a dataset (`/v1/datasets/{id}/fields`, `fieldsMetaMap`). */
export interface DatasetField {
    name: string;
    type: string;
    description?: string;
    unit?: string;
    hidden?: boolean;
}

export interface TabularResponse {
    format: 'tabular';
    status: QueryStatus;
    tables: Table[];
    datasetNames?: string[];
    fieldsMetaMap?: Record<string, DatasetField[]>;
    request?: unknown;
}

// ---------------------------------------------------------------------------- as this service serves it

/** A summarize column's aggregation: its name, the fields it reads and its other arguments. */
export interface AggInfo {
    name: string;
    fields: string[];
    args: JsonValue[];
}

export interface TabularField {
    name: string;
    type: string;
    agg?: AggInfo;
}

export interface TabularTable {
    name: string;
    sources: { name: string }[];
    fields: TabularField[];
    order: { field: string; desc: boolean }[];
    groups: { name: string }[];
    range?: { field: string; start: string; end: string };
    buckets?: { field: string; size: number };
    columns: JsonValue[][];
}

export interface FieldMeta {
    name: string;
    type: string;
    unit: string;
    hidden: boolean;
    description: string;
}

export interface TabularResult {
    format: 'tabular';
    status: QueryStatus;
    tables: TabularTable[];
    datasetNames: string[];
    fieldsMetaMap: Record<string, FieldMeta[]>;
}
