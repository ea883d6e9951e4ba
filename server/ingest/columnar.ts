/**
 * Off-main-thread ingest preparation: parse + normalise a decompressed body (the same steps as
 * `buildBatch`) and turn the flat events into columns (the engine's `ColumnarChunk` encodings,
 * the same classification as the store's block encoder), so a worker thread can hand them back as
 * transferable typed arrays instead of cloning one object per event.
 */
import type { JsonValue } from '../../language/values.js';
import { buildBatch, timeRange, type IngestParams } from './ingest.js';
import type { FlatFields } from '../../language/ingest/normalize-event.js';
import type { EventFailure } from '../../language/ingest/parse-events.js';

/** One column, as `ColumnChunk` of language/eval/tables.ts. */
export type BatchColumn =
    | { name: string; kind: 'f64'; values: Float64Array; present: Uint8Array | null }
    | { name: string; kind: 'bool'; values: Uint8Array }
    | { name: string; kind: 'str'; dict: string[]; codes: Uint32Array }
    | { name: string; kind: 'json'; values: (JsonValue | null)[] };

export interface ColumnarBatch {
    times: BigInt64Array;
    columns: BatchColumn[];
    failures: EventFailure[];
    minTime: bigint;
    maxTime: bigint;
}

/** Which JSON kinds a column has seen (bit flags), to choose its encoding. */
export const KIND_NUM = 1;
export const KIND_STR = 2;
export const KIND_BOOL = 4;
export const KIND_OTHER = 8;

/**
 * One column being gathered, written in place in its final encoding: the first value decides it
 * (number → f64, string → str, boolean → bool, anything else → json), and a value of another kind
 * turns what was written into json values (rare: a field whose type changes within one request).
 */
type FieldBuilder =
    | { name: string; kind: 'f64'; values: Float64Array; present: Uint8Array; count: number }
    | { name: string; kind: 'str'; codes: Uint32Array; dict: string[]; index: Map<string, number> }
    | { name: string; kind: 'bool'; values: Uint8Array }
    | { name: string; kind: 'json'; values: (JsonValue | null)[] };

function newBuilder(name: string, v: JsonValue, n: number): FieldBuilder {
    switch (typeof v) {
        case 'number': return { name, kind: 'f64', values: new Float64Array(n), present: new Uint8Array((n + 7) >> 3), count: 0 };
        case 'string': return { name, kind: 'str', codes: new Uint32Array(n), dict: [], index: new Map() };
        case 'boolean': return { name, kind: 'bool', values: new Uint8Array(n).fill(2) };
        default: return { name, kind: 'json', values: new Array<JsonValue | null>(n).fill(null) };
    }
}

/** The value of a column at row r, or undefined when absent. */
export function columnValue(column: BatchColumn, r: number): JsonValue | undefined {
    switch (column.kind) {
        case 'f64':
            return column.present === null || ((column.present[r >> 3] >> (r & 7)) & 1) === 1 ? column.values[r] : undefined;
        case 'str':
            return column.codes[r] === 0 ? undefined : column.dict[column.codes[r] - 1];
        case 'bool':
            return column.values[r] === 2 ? undefined : column.values[r] === 1;
        default: {
            const v = column.values[r];
            return v === null ? undefined : v;
        }
    }
}

/** The builder as json values, with the values written so far (rows before `upto`). */
function asJson(bl: FieldBuilder, n: number, upto: number): FieldBuilder {
    const values = new Array<JsonValue | null>(n).fill(null);
    // A builder is laid out as the column it becomes.
    for (let r = 0; r < upto; r++) values[r] = columnValue(bl as BatchColumn, r) ?? null;
    return { name: bl.name, kind: 'json', values };
}

/** Writes `v` at `row`; returns false when `v` is not of the builder's kind. */
function put(bl: FieldBuilder, v: JsonValue, row: number): boolean {
    switch (bl.kind) {
        case 'f64':
            if (typeof v !== 'number') return false;
            bl.values[row] = v;
            bl.present[row >> 3] |= 1 << (row & 7);
            bl.count++;
            return true;
        case 'str': {
            if (typeof v !== 'string') return false;
            let c = bl.index.get(v);
            if (c === undefined) {
                bl.dict.push(v);
                c = bl.dict.length;
                bl.index.set(v, c);
            }
            bl.codes[row] = c;
            return true;
        }
        case 'bool':
            if (typeof v !== 'boolean') return false;
            bl.values[row] = v ? 1 : 0;
            return true;
        case 'json':
            bl.values[row] = v;
            return true;
    }
}

/**
 * The builders of the previous event's fields, by position: events of one batch mostly have the
 * same fields in the same order, so a field name is compared with the one at its position (the
 * same string, as JSON.parse gives keys) before it is looked up.
 */
interface Shape {
    keys: string[];
    builders: FieldBuilder[];
}

/** Columns of flat events, fields in order of first appearance (null/undefined = absent). */
export function toColumns(fields: readonly FlatFields[]): BatchColumn[] {
    const n = fields.length;
    const builders = new Map<string, FieldBuilder>();
    const shape: Shape = { keys: [], builders: [] };
    for (let row = 0; row < n; row++) {
        const ev = fields[row];
        let j = 0;
        for (const k in ev) {
            const v = ev[k];
            if (v === null || v === undefined) continue;
            let bl: FieldBuilder | undefined;
            if (shape.keys[j] === k) bl = shape.builders[j];
            else {
                bl = builders.get(k);
                if (bl === undefined) {
                    bl = newBuilder(k, v, n);
                    builders.set(k, bl);
                }
                shape.keys[j] = k;
                shape.builders[j] = bl;
            }
            if (!put(bl, v, row)) {
                bl = asJson(bl, n, row);
                put(bl, v, row);
                builders.set(k, bl);
                // Other positions of the shape may still hold the replaced builder: start it afresh.
                shape.keys.length = 0;
                shape.builders.length = 0;
                shape.keys[j] = k;
                shape.builders[j] = bl;
            }
            j++;
        }
    }
    const out: BatchColumn[] = [];
    for (const bl of builders.values()) {
        if (bl.kind === 'f64') out.push({ name: bl.name, kind: 'f64', values: bl.values, present: bl.count === n ? null : bl.present });
        else if (bl.kind === 'str') out.push({ name: bl.name, kind: 'str', dict: bl.dict, codes: bl.codes });
        else out.push({ name: bl.name, kind: bl.kind, values: bl.values } as BatchColumn);
    }
    return out;
}

/**
 * The flat events of a columnar batch, the inverse of `toColumns`: each event's fields in the
 * columns' order, which keeps every field's first appearance where it was.
 */
export function fromColumns(batch: Pick<ColumnarBatch, 'times' | 'columns'>): FlatFields[] {
    const n = batch.times.length;
    const fields: FlatFields[] = Array.from({ length: n }, () => ({}));
    for (const c of batch.columns) {
        for (let r = 0; r < n; r++) {
            const v = columnValue(c, r);
            if (v !== undefined) fields[r][c.name] = v;
        }
    }
    return fields;
}

/** `buildBatch` + min/max time + columns. Throws IngestError exactly where prepareIngest does. */
export function buildColumnarBatch(body: Buffer, params: IngestParams): ColumnarBatch {
    const { batch, failures } = buildBatch(body, params);
    return { times: batch.times, columns: toColumns(batch.fields), failures, ...timeRange(batch.times) };
}

/** The transferable buffers of a columnar batch. */
export function transferList(b: ColumnarBatch): ArrayBuffer[] {
    const list: ArrayBuffer[] = [b.times.buffer as ArrayBuffer];
    for (const c of b.columns) {
        if (c.kind === 'f64') {
            list.push(c.values.buffer as ArrayBuffer);
            if (c.present) list.push(c.present.buffer as ArrayBuffer);
        } else if (c.kind === 'bool') list.push(c.values.buffer as ArrayBuffer);
        else if (c.kind === 'str') list.push(c.codes.buffer as ArrayBuffer);
    }
    return list;
}
