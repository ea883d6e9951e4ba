import type { AplType } from '../types/apl-types.js';

/** One field of a dataset. `name` is the flattened name and may contain dots (`geo.city`). */
export interface FieldSchema {
    name: string;
    type: AplType;
    description?: string;
    /** Display unit as Axiom names them (`ms`, `decbytes`). */
    unit?: string;
}

export interface DatasetSchema {
    name: string;
    fields: FieldSchema[];
}

/**
 * Where dataset and field names come from. Language code never does I/O: a provider is handed its
 * content (a parsed schema file, the sample datasets, a client notification).
 */
export interface SchemaProvider {
    datasets(): DatasetSchema[];
    dataset(name: string): DatasetSchema | undefined;
    /** Increases whenever the content changes, so caches can tell when to recompute. */
    readonly version: number;
    /**
     * Whether `datasets()` lists every dataset a query can read. False when the datasets only stand
     * in for the user's own (the sample datasets while no connection's schema or schema file is
     * known): a dataset not listed is then no finding (no APL0011); a listed one's fields are checked.
     */
    readonly complete: boolean;
}

/** How a provider built from a list of datasets describes it. */
export interface SchemaProviderOptions {
    /** Whether the list is every dataset there is (default true): see `SchemaProvider.complete`. */
    complete?: boolean;
}

/** The reserved time fields every dataset has. */
export const TIME_FIELD = '_time';
export const SYS_TIME_FIELD = '_sysTime';

/** A field reached by a dotted path, plus the keys still to apply to its (dynamic) value. */
export interface FieldPathResolution {
    field: FieldSchema;
    /** The remaining segments, applied as dynamic accesses: `['http', 'protocol']`. Empty for an exact match. */
    keys: string[];
}

interface FieldIndex {
    fields: FieldSchema[];
    length: number;
    byName: Map<string, FieldSchema>;
}

const indexes = new WeakMap<DatasetSchema, FieldIndex>();

/** Looks a field up by its exact (flattened) name. Indexes the schema on first use (and again if its field list changed). */
export function findField(schema: DatasetSchema, name: string): FieldSchema | undefined {
    let index = indexes.get(schema);
    if (!index || index.fields !== schema.fields || index.length !== schema.fields.length) {
        const byName = new Map<string, FieldSchema>();
        for (const f of schema.fields) if (!byName.has(f.name)) byName.set(f.name, f);
        index = { fields: schema.fields, length: schema.fields.length, byName };
        indexes.set(schema, index);
    }
    return index.byName.get(name);
}

/**
 * Resolves a dotted name (`a.b.c`, as segments `['a', 'b', 'c']`) the way APL does: the longest
 * existing flattened field wins. Tries `a.b.c`, then `a.b` with key `c`, then `a` with keys `b.c`.
 * Returns undefined when no prefix names a field.
 */
export function resolveFieldPath(schema: DatasetSchema, segments: readonly string[]): FieldPathResolution | undefined {
    for (let n = segments.length; n >= 1; n--) {
        const field = findField(schema, segments.slice(0, n).join('.'));
        if (field) return { field, keys: segments.slice(n) };
    }
    return undefined;
}
