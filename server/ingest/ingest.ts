/**
 * The ingest pipeline without any HTTP framework: decode → parse → normalise, plus the IngestStatus
 * response builder (API.md §3.4).
 *
 * `IngestParams` is everything (besides the decompressed body) that determines the stored events.
 * The store writes `IngestParams` + the decompressed body to its write-ahead log and re-runs
 * `buildBatch` on recovery; `buildBatch` is therefore a pure, deterministic function of its inputs
 * (the receive time is a parameter, never read from the clock here).
 */
import { formatDatetime } from '../../language/values.js';
import type { ColumnarBatch } from './columnar.js';
import { decodeBody, DEFAULT_MAX_BODY_BYTES } from './decode-body.js';
import { IngestError } from '../../language/ingest/errors.js';
import { normalizeEvents, parseEventLabels, type FlatFields, type NormalizedEvents } from '../../language/ingest/normalize-event.js';
import { formatFromContentType, parseEvents, type BodyFormat, type EventFailure, type ParsedEvents } from '../../language/ingest/parse-events.js';

export interface IngestParams {
    format: BodyFormat;
    timestampField?: string;
    timestampFormat?: string;
    csvDelimiter?: string;
    /** Raw `X-Axiom-CSV-Fields`. */
    csvFields?: string;
    /** Raw `X-Axiom-Event-Labels` JSON. */
    labels?: string;
    /** Map fields of the dataset at ingest time (they stop flattening). */
    mapFields?: string[];
    /** Server receive time, ns: `_time` of events without one, and the failure timestamps. */
    receiveTimeNs: bigint;
}

/** What the HTTP layer hands over: the raw request pieces. */
export interface IngestRequest {
    /** Body bytes exactly as received (possibly compressed). */
    body: Buffer;
    contentType?: string | null;
    contentEncoding?: string | string[] | null;
    /** Query `timestamp-field`. */
    timestampField?: string | null;
    /** Query `timestamp-format` (a Go layout). */
    timestampFormat?: string | null;
    /** Query `csv-delimiter`. */
    csvDelimiter?: string | null;
    /** Header `X-Axiom-CSV-Fields`. */
    csvFields?: string | null;
    /** Header `X-Axiom-Event-Labels`. */
    eventLabels?: string | null;
}

/**
 * A validated request, ready to append. The body is parsed and normalised exactly once, here:
 * `batch` is what `buildBatch(body, params)` produces (same function, same inputs), handed to the
 * live consumer (the service's engine) so that nothing parses the body twice. The store keeps only
 * `body` + `params` (the WAL is a logical log) and rebuilds with `buildBatch` on recovery,
 * compaction or a snapshot read. `count`/`failures` are exactly what `buildBatch` will produce.
 */
export interface PreparedIngest {
    params: IngestParams;
    /** Decompressed body (what the WAL stores). */
    body: Buffer;
    /** crc32 of `body`, when whoever read it computed it (an ingest worker): the WAL record's checksum then need not read it again. */
    bodyCrc?: number;
    /**
     * The normalised events (`batch.fields.length === count`). Shared, read-only: the store keeps
     * them in its in-memory WAL tail (compaction encodes them into a block) and the service's
     * engine feed copies the values into its columns. Nobody may mutate them.
     */
    batch: NormalizedEvents;
    /** Events that will be stored. */
    count: number;
    /** Parse + time failures, in body order. */
    failures: EventFailure[];
    /** `_time` range of the stored events (0n when count is 0). */
    minTime: bigint;
    maxTime: bigint;
    processedBytes: number;
}

/**
 * What the store appends: a PreparedIngest, or one whose events were built off the main thread
 * as columns (no `batch`: the store keeps the body, rebuilds flat events from it when it needs
 * them, and encodes the columns when it compacts).
 */
export type AppendInput = Omit<PreparedIngest, 'batch'> & { batch?: NormalizedEvents; columnar?: ColumnarBatch };

export type { IngestFailure, IngestStatus } from '../../language/api/ingest.js';
import type { IngestStatus } from '../../language/api/ingest.js';

export interface PrepareOptions {
    maxBodyBytes?: number;
    mapFields?: string[];
    /** Receive time override (tests); default the wall clock. */
    receiveTimeNs?: bigint;
}

/** Wall-clock time in ns with sub-ms resolution (wall clock at start + monotonic clock), never repeating. */
export function nowNs(): bigint {
    const wall = BigInt(Date.now()) * 1_000_000n;
    let t = clockBase + (process.hrtime.bigint() - hrBase);
    if (t - wall > 20_000_000n || wall - t > 20_000_000n) {
        // the wall clock moved (NTP step, suspend): re-anchor
        clockBase = wall;
        hrBase = process.hrtime.bigint();
        t = wall;
    }
    if (t <= lastNow) t = lastNow + 1n;
    lastNow = t;
    return t;
}
let clockBase = BigInt(Date.now()) * 1_000_000n;
let hrBase = process.hrtime.bigint();
let lastNow = 0n;

/** Parse + normalise a decompressed body. Deterministic (used again by WAL recovery). */
export function buildBatch(body: Buffer, params: IngestParams): { batch: NormalizedEvents; failures: EventFailure[] } {
    const parsed = parseEvents(body, params.format, { csvDelimiter: params.csvDelimiter, csvFields: params.csvFields });
    return normalizeParsed(parsed, params, parseEventLabels(params.labels));
}

function normalizeParsed(parsed: ParsedEvents, params: IngestParams, labels: FlatFields | null): { batch: NormalizedEvents; failures: EventFailure[] } {
    const batch = normalizeEvents(parsed.events, {
        timestampField: params.timestampField,
        timestampFormat: params.timestampFormat,
        labels,
        mapFields: params.mapFields && params.mapFields.length ? new Set(params.mapFields) : null,
        receiveTimeNs: params.receiveTimeNs,
    });
    const failures = parsed.failures.length === 0 ? batch.failures : parsed.failures.concat(batch.failures);
    return { batch, failures };
}

function nonEmpty(s: string | null | undefined): string | undefined {
    return s === null || s === undefined || s === '' ? undefined : s;
}

/** Decodes and normalises one request. Throws IngestError (400/413/415) for whole-request problems. */
export async function prepareIngest(req: IngestRequest, opts: PrepareOptions = {}): Promise<PreparedIngest> {
    const { params, body } = await decodeIngestRequest(req, opts);
    return prepareDecoded(params, body);
}

/** The second half of prepareIngest: parse + normalise a decoded body (throws its 400 for bad labels). */
export function prepareDecoded(params: IngestParams, body: Buffer): PreparedIngest {
    const parsed = parseEvents(body, params.format, { csvDelimiter: params.csvDelimiter, csvFields: params.csvFields });
    const labels = parseEventLabels(params.labels); // a bad header is a 400 for the whole request
    // The same steps as buildBatch, on the one parse of the body.
    const { batch, failures } = normalizeParsed(parsed, params, labels);
    const { minTime, maxTime } = timeRange(batch.times);
    return { params, body, batch, count: batch.times.length, failures, minTime, maxTime, processedBytes: processedBytes(body, params) };
}

/** The earliest and latest event time of a batch (0n for both when it is empty). */
export function timeRange(times: BigInt64Array): { minTime: bigint; maxTime: bigint } {
    const n = times.length;
    if (n === 0) return { minTime: 0n, maxTime: 0n };
    // Compared as 32-bit halves (high signed, low unsigned): reading an element as a bigint makes one.
    const w = new Int32Array(times.buffer, times.byteOffset, n * 2);
    let minAt = 0;
    let maxAt = 0;
    let minHi = w[HI];
    let minLo = w[LO] >>> 0;
    let maxHi = minHi;
    let maxLo = minLo;
    for (let i = 1; i < n; i++) {
        const hi = w[2 * i + HI];
        const lo = w[2 * i + LO] >>> 0;
        if (hi < minHi || (hi === minHi && lo < minLo)) {
            minAt = i;
            minHi = hi;
            minLo = lo;
        } else if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
            maxAt = i;
            maxHi = hi;
            maxLo = lo;
        }
    }
    return { minTime: times[minAt], maxTime: times[maxAt] };
}

/** Where an int64's low and high 32-bit halves are in an Int32Array over it (native byte order). */
export const LO = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
export const HI = 1 - LO;

/**
 * The first half of prepareIngest: receive time, format, decompressed body and validated
 * parameters (throws the same IngestErrors, in the same order). The rest is `buildBatch(body, params)`.
 */
export async function decodeIngestRequest(req: IngestRequest, opts: PrepareOptions = {}): Promise<{ params: IngestParams; body: Buffer }> {
    const receiveTimeNs = opts.receiveTimeNs ?? nowNs();
    const format = formatFromContentType(req.contentType);
    const body = await decodeBody(req.body, req.contentEncoding, opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    const delim = nonEmpty(req.csvDelimiter);
    if (delim !== undefined && delim.length !== 1) {
        throw new IngestError(400, `invalid csv-delimiter ${JSON.stringify(delim)}: must be one character`);
    }
    const params: IngestParams = {
        format,
        timestampField: nonEmpty(req.timestampField),
        timestampFormat: nonEmpty(req.timestampFormat),
        csvDelimiter: delim,
        csvFields: nonEmpty(req.csvFields),
        labels: nonEmpty(req.eventLabels),
        mapFields: opts.mapFields && opts.mapFields.length ? [...opts.mapFields] : undefined,
        receiveTimeNs,
    };
    return { params, body };
}

/** API.md §3.4: decompressed body length + the labels header's byte length once per request. */
export function processedBytes(body: Buffer, params: IngestParams): number {
    return body.length + (params.labels ? Buffer.byteLength(params.labels) : 0);
}

/** Builds the IngestStatus response (all six keys, `failures` always present). */
export function ingestStatus(p: { ingested: number; failures: EventFailure[]; processedBytes: number; receiveTimeNs: bigint; walLength?: number }): IngestStatus {
    const ts = formatDatetime(p.receiveTimeNs);
    return {
        ingested: p.ingested,
        failed: p.failures.length,
        failures: p.failures.map((f) => ({ timestamp: ts, error: f.error })),
        processedBytes: p.processedBytes,
        blocksCreated: 0,
        walLength: p.walLength ?? p.ingested,
    };
}

export { IngestError } from '../../language/ingest/errors.js';
export { decodeBody, parseContentEncoding, DEFAULT_MAX_BODY_BYTES } from './decode-body.js';
export { formatFromContentType, parseEvents } from '../../language/ingest/parse-events.js';
export type { BodyFormat, EventFailure, RawEvent, ParsedEvents, ParseOptions } from '../../language/ingest/parse-events.js';
export { normalizeEvents, parseEventLabels, parseTimeValue, epochToNs, renameReserved, RESERVED_FIELDS } from '../../language/ingest/normalize-event.js';
export type { FlatFields, NormalizedEvents, NormalizeOptions } from '../../language/ingest/normalize-event.js';
export { parseGoLayout } from '../../language/ingest/go-layout.js';
