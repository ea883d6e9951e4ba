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

/** One column being gathered: the rows that have a value (ascending) and those values. */
interface FieldBuilder {
    name: string;
    kinds: number;
    rows: Int32Array | number[];
    values: JsonValue[];
}

/** Adds one event's fields at `row` (null/undefined = absent); columns keep first-appearance order. */
function addFields(builders: Map<string, FieldBuilder>, fields: FlatFields, row: number): void {
    for (const k in fields) {
        const v = fields[k];
        if (v === null || v === undefined) continue;
        let bl = builders.get(k);
        if (bl === undefined) {
            bl = { name: k, kinds: 0, rows: [], values: [] };
            builders.set(k, bl);
        }
        const tv = typeof v;
        bl.kinds |= tv === 'number' ? KIND_NUM : tv === 'string' ? KIND_STR : tv === 'boolean' ? KIND_BOOL : KIND_OTHER;
        (bl.rows as number[]).push(row);
        bl.values.push(v);
    }
}

/** Columns of flat events, fields in order of first appearance (null/undefined = absent). */
export function toColumns(fields: readonly FlatFields[]): BatchColumn[] {
    const n = fields.length;
    const builders = new Map<string, FieldBuilder>();
    for (let r = 0; r < n; r++) {
        addFields(builders, fields[r], r);
    }
    const out: BatchColumn[] = [];
    for (const bl of builders.values()) {
        const { rows, values } = bl;
        const m = rows.length;
        if (bl.kinds === KIND_NUM) {
            const vals = new Float64Array(n);
            let present: Uint8Array | null = null;
            if (m !== n) present = new Uint8Array((n + 7) >> 3);
            for (let i = 0; i < m; i++) {
                const r = rows[i];
                vals[r] = values[i] as number;
                if (present !== null) present[r >> 3] |= 1 << (r & 7);
            }
            out.push({ name: bl.name, kind: 'f64', values: vals, present });
        } else if (bl.kinds === KIND_STR) {
            const codes = new Uint32Array(n);
            const dict: string[] = [];
            const index = new Map<string, number>();
            for (let i = 0; i < m; i++) {
                const s = values[i] as string;
                let c = index.get(s);
                if (c === undefined) {
                    dict.push(s);
                    c = dict.length;
                    index.set(s, c);
                }
                codes[rows[i]] = c;
            }
            out.push({ name: bl.name, kind: 'str', dict, codes });
        } else if (bl.kinds === KIND_BOOL) {
            const vals = new Uint8Array(n).fill(2);
            for (let i = 0; i < m; i++) vals[rows[i]] = values[i] ? 1 : 0;
            out.push({ name: bl.name, kind: 'bool', values: vals });
        } else {
            const vals = new Array<JsonValue | null>(n).fill(null);
            for (let i = 0; i < m; i++) vals[rows[i]] = values[i];
            out.push({ name: bl.name, kind: 'json', values: vals });
        }
    }
    return out;
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
