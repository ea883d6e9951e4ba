/**
 * Immutable columnar block files (see FORMAT.md):
 *
 *   "APLBLK01" | u32 LE header length | header JSON | sections... | u32 LE crc32(all previous bytes)
 *
 * The header JSON (version 2 and 3) also carries `crc32`, its own checksum: it is read alone for
 * blocks kept on disk, and decides which blocks a query skips unread. Version 3 deflates the per-row
 * sections in frames that inflate alone (see FRAME_ROWS).
 *
 * Sections (each raw-deflated when `compression` is "deflate-raw"): `_time` i64 LE, batch index
 * u32 (into header.batches), row index u32, and per field column:
 *   f64  — float64 LE values + a presence bitmap (bit i set = row i has a value)
 *   bool — u8 per row: 0 false, 1 true, 2 absent
 *   str  — dictionary (JSON array of strings) + u32 codes per row (0 absent, k = dict[k-1])
 *   json — JSON array with one value per row (null = absent), for mixed/array/object columns
 * A u32 section whose values all fit in 8 or 16 bits is stored that narrow (its reference says so).
 */
import { open, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { constants as zlibConstants, crc32, deflateRaw, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { yieldToLoop } from './yield-to-loop.js';
import type { JsonValue } from '../../language/values.js';
import { KIND_BOOL, KIND_NUM, KIND_OTHER, KIND_STR, columnValue, toColumns, type BatchColumn } from '../ingest/columnar.js';
import type { FlatFields } from '../../language/ingest/normalize-event.js';
import { StringIndex, stringHash } from '../../language/eval/string-index.js';
import { LITTLE_ENDIAN, splitTimes } from '../../language/eval/kernels/time.js';
import { timeOrder } from '../../language/eval/kernels/sort.js';
import { keyHash64 } from '../../language/eval/sketches.js';

const deflateRawAsync = promisify(deflateRaw);

export const BLOCK_MAGIC = 'APLBLK01';

/**
 * One ingest batch, normalised, as the block encoder consumes it: flat events, or the same events
 * as columns (an ingest batch prepared on a worker, see server/ingest/columnar.ts).
 */
export type BlockInput =
    | { seq: number; sysTime: bigint; times: BigInt64Array; fields: FlatFields[]; columns?: undefined }
    | { seq: number; sysTime: bigint; times: BigInt64Array; fields?: undefined; columns: readonly BatchColumn[] };

/**
 * Where a section is: offset from the end of the header, stored length, raw length, and for a u32
 * section stored narrow, the width of its values in bytes (1 or 2; absent or 0: as the table
 * says). A section of one value (or bit) per row in a deflated block of version 3 is deflated in
 * frames of `frameRows` rows, and lists their stored lengths: each frame inflates on its own (see
 * FRAME_ROWS), and together they are one deflate stream, as an unframed section is.
 */
type Section = [offset: number, length: number, rawLength: number, width?: 0 | 1 | 2, frames?: number[]];

/**
 * Rows per frame of a block's per-row sections. A query that reads a few rows of a block (the
 * winners of a `top`: decodeBlockRowsAt) inflates the frames that hold them, not every row of
 * every column: a block of 70,000 rows has 18 frames a section (a frame of float64 values, 32 KB,
 * inflates in about 0.1 ms). A frame ends in a full flush, so
 * the next one starts with no history (it costs each frame its own Huffman tables: under 1%).
 */
export const FRAME_ROWS = 4096;

/**
 * `axiom`: the Axiom type names of the column's values (`integer`, `float`, `integer|float`,
 * `string`, `boolean`, or for json the kinds seen joined by `|`), so a dataset's schema can be
 * told from its blocks' headers without reading their data. `min`/`max`: the smallest and largest
 * value (numbers; strings in UTF-16 code unit order), so a query can skip the block unread. All
 * three are absent in blocks written before they existed.
 */
type ColumnMeta = (
    | { name: string; kind: 'f64'; data: Section; present: Section; min?: number; max?: number }
    | { name: string; kind: 'bool'; data: Section }
    | {
          name: string;
          kind: 'str';
          /** The dictionary, or with `dictPart` its first `dictPart` values, `dictRest` holding the rest as many a section. */
          dict: Section;
          dictRest?: Section[];
          dictPart?: number;
          data: Section;
          min?: string;
          max?: string;
          counts?: [string, number][];
          hashes?: Section;
          rows?: Section;
      }
    | { name: string; kind: 'json'; data: Section }
) & { axiom?: string };

export type BlockColumnMeta = ColumnMeta;

export interface BlockHeader {
    /** 3: per-row sections in frames (`frameRows`); 2: the header JSON carries `crc32` (see encodeHeader); 1: written before it did. */
    v: 1 | 2 | 3;
    /** Rows per frame of the per-row sections that list frames (version 3). */
    frameRows?: number;
    /**
     * The rows are in the order a query reads them: by time, then batch seq, then row in the batch
     * (every block since version 3 whose batches are in seq order). A query then makes no order of
     * them, and reads their times only for their values.
     */
    ordered?: true;
    rows: number;
    minTime: string;
    maxTime: string;
    firstSeq: number;
    lastSeq: number;
    /**
     * The WAL seqs (after, upto] this block's compaction covered (some may have no rows left after
     * retention/trim). Makes a block self-describing: the manifest can be rebuilt from the blocks.
     * Absent in blocks written before it existed.
     */
    covers?: [number, number];
    /** [seq, sysTime ns as string] per batch referenced by the batch-index section. */
    batches: [number, string][];
    compression: 'none' | 'deflate-raw';
    time: Section;
    batch: Section;
    row: Section;
    columns: ColumnMeta[];
}

export interface DecodedBlock {
    rows: number;
    /** The header's `ordered`: the rows in time, batch seq and row order. */
    ordered?: boolean;
    times: BigInt64Array;
    batchIdx: Uint32Array;
    rowIdx: Uint32Array;
    batchSeqs: number[];
    batchSysTimes: bigint[];
    columns: DecodedColumn[];
}

/** One decoded column: its raw section data (for columnar readers) plus `get(i)`. */
export type DecodedColumn = (
    | { name: string; kind: 'f64'; values: Float64Array; /** bit i set = row i has a value */ present: Uint8Array }
    | { name: string; kind: 'bool'; /** 0 false, 1 true, 2 absent */ values: Uint8Array }
    | {
          name: string;
          kind: 'str';
          dict: string[];
          /** 0 absent, k -> dict[k - 1] */
          codes: Uint32Array;
          /** Section `hashes`: then `dict` is parsed when first read. */
          keyHashes?: Uint32Array;
          /** dict[k - 1] without parsing all of `dict`, for a dictionary stored in parts (`dictPart`): only k's part is read. */
          valueAt?: (k: number) => string;
      }
    | { name: string; kind: 'json'; /** null = absent */ values: JsonValue[] }
) & {
    /** Value of row i, or undefined when absent. */
    get(i: number): JsonValue | undefined;
};

export interface EncodeOptions {
    compress: boolean;
    /** Rows whose (batch seq, time) is rejected are left out (retention/trim). */
    keep?: (seq: number, timeNs: bigint) => boolean;
    /** Called every `yieldRows` rows (at the next batch boundary) so a long encode can yield to the event loop. */
    yieldEvery?: () => Promise<void>;
    /** Rows between `yieldEvery` calls (default 8192). */
    yieldRows?: number;
    /** The seqs (after, upto] the compaction covers, recorded in the header. */
    covers?: [number, number];
}

/**
 * Encodes batches into block bytes. Returns undefined when no row is kept. Batches of flat events
 * (recovered from the WAL, or prepared on the main thread when no worker was available) are turned
 * into columns first, so every block is made one way: column to column, as the live ingest path
 * delivers them.
 */
export async function encodeBlock(batches: BlockInput[], opts: EncodeOptions): Promise<{ bytes: Buffer; header: BlockHeader } | undefined> {
    const columnar: ColumnarInput[] = [];
    for (const b of batches) {
        if (b.columns !== undefined) {
            columnar.push(b);
        } else {
            columnar.push({ seq: b.seq, sysTime: b.sysTime, times: b.times, columns: toColumns(b.fields) });
            if (opts.yieldEvery) await opts.yieldEvery();
        }
    }
    return encodeColumnarBlock(columnar, opts);
}

/** One column of a block before it is written: the encodings of the file format. */
type BlockColumn =
    | { name: string; kind: 'f64'; values: Float64Array; present: Uint8Array }
    | { name: string; kind: 'bool'; values: Uint8Array }
    | { name: string; kind: 'str'; dict: string[]; codes: Uint32Array }
    | { name: string; kind: 'json'; values: JsonValue[] };

/** Lays out a block's sections (compressed on the thread pool) and writes header and checksum. */
class BlockWriter {
    private readonly sections: Buffer[] = [];
    private readonly refs: Section[] = [];
    /**
     * The sections being deflated, one after another: a large part on the libuv pool (the pool
     * also runs the write-ahead log's writes and fsyncs, and a block's dozens of sections queued
     * at once would hold every acknowledgement of an ingest request behind them), a small one here.
     */
    private deflating: Promise<void> = Promise.resolve();
    /** When the deflating on this thread last gave way to the event loop (see deflatePart). */
    private sliceStart = 0;
    private readonly columns: ColumnMeta[] = [];
    private readonly time: Section;
    private readonly batch: Section;
    private readonly row: Section;

    constructor(
        private readonly compress: boolean,
        times: BigInt64Array,
        batchIdx: Uint32Array,
        rowIdx: Uint32Array,
    ) {
        this.time = this.section(view(times), 'numbers', 8);
        // Not in frames: batch indexes are a few runs, and row indexes repeat 0, 1, 2, … batch after
        // batch, which LZ77 finds only across frames (framed, they took 7 times the bytes). Both inflate whole in well under a millisecond.
        this.batch = this.u32Section(batchIdx, 'runs', false);
        this.row = this.u32Section(rowIdx, 'repeats', false);
    }

    addColumn(c: BlockColumn): void {
        const axiom = axiomTypes(c);
        if (c.kind === 'f64') this.columns.push({ name: c.name, kind: 'f64', data: this.section(view(c.values), 'numbers', 8), present: this.section(view(c.present), 'runs', 1 / 8), axiom, ...numberRange(c.values, c.present) });
        else if (c.kind === 'bool') this.columns.push({ name: c.name, kind: 'bool', data: this.section(view(c.values), 'runs', 1), axiom });
        else if (c.kind === 'str') {
            const hashes = c.dict.length >= HASHED_VALUES ? { hashes: this.section(view(keyHashes(c.dict)), 'numbers') } : {};
            const counts = valueCounts(c.dict, c.codes);
            // Values too many (or too long) for the header: their rows in a section of their own.
            const rows = counts.counts === undefined && c.dict.length > 0 && c.dict.length <= ROWS_SECTION_VALUES ? { rows: this.u32Section(rowsPerValue(c.dict, c.codes), 'numbers', false) } : {};
            // A hashed dictionary in parts: a query that reads a few of its values (the rows of a `top`) reads their parts only.
            const parts = c.dict.length >= HASHED_VALUES ? Math.ceil(c.dict.length / DICT_PART_VALUES) : 1;
            const texts = Array.from({ length: parts }, (_, j) => Buffer.from(JSON.stringify(parts === 1 ? c.dict : c.dict.slice(j * DICT_PART_VALUES, (j + 1) * DICT_PART_VALUES))));
            // The parts of one dictionary are alike: the first decides how all of them are deflated.
            const content = textContent(texts[0]);
            const json = (text: Buffer) => this.section(text, content);
            const dict = parts === 1 ? { dict: json(texts[0]) } : { dict: json(texts[0]), dictRest: texts.slice(1).map(json), dictPart: DICT_PART_VALUES };
            this.columns.push({ name: c.name, kind: 'str', ...dict, data: this.u32Section(c.codes, 'numbers', true), axiom, ...stringRange(c.dict), ...counts, ...rows, ...hashes });
        }
        else {
            const text = Buffer.from(JSON.stringify(c.values));
            this.columns.push({ name: c.name, kind: 'json', data: this.section(text, textContent(text)), axiom });
        }
    }

    async finish(range: { rows: number; minT: bigint; maxT: bigint; batchList: [number, string][]; covers?: [number, number] }): Promise<{ bytes: Buffer; header: BlockHeader }> {
        await this.deflating;
        let offset = 0;
        for (let i = 0; i < this.sections.length; i++) {
            this.refs[i][0] = offset;
            this.refs[i][1] = this.sections[i].length;
            offset += this.sections[i].length;
        }
        const header: BlockHeader = {
            v: 3,
            frameRows: FRAME_ROWS,
            // The rows are in time order (encodeColumnarBlock), ties in the batches' order: the seqs' too if they ascend.
            ...(range.batchList.every((b, i) => i === 0 || b[0] > range.batchList[i - 1][0]) ? { ordered: true as const } : {}),
            rows: range.rows,
            minTime: range.minT.toString(),
            maxTime: range.maxT.toString(),
            firstSeq: range.batchList[0][0],
            lastSeq: range.batchList[range.batchList.length - 1][0],
            ...(range.covers ? { covers: range.covers } : {}),
            batches: range.batchList,
            compression: this.compress ? 'deflate-raw' : 'none',
            time: this.time,
            batch: this.batch,
            row: this.row,
            columns: this.columns,
        };
        const headerBytes = encodeHeader(header);
        const prefix = Buffer.alloc(12);
        prefix.write(BLOCK_MAGIC, 0, 'latin1');
        prefix.writeUInt32LE(headerBytes.length, 8);
        let length = prefix.length + headerBytes.length;
        for (const sec of this.sections) length += sec.length;
        // One copy of the sections, with room left for the checksum after them.
        const out = Buffer.concat([prefix, headerBytes, ...this.sections], length + 4);
        out.writeUInt32LE(crc32(out.subarray(0, length)) >>> 0, length);
        return { bytes: out, header };
    }

    /** A u32 section, stored in 1 or 2 bytes per value when every value fits; `perRow`: a value per row, in frames. */
    private u32Section(values: Uint32Array, content: SectionContent, perRow = true): Section {
        let max = 0;
        for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
        if (max > 0xffff) return this.section(view(values), content, perRow ? 4 : undefined);
        const width = max > 0xff ? 2 : 1;
        const narrow = width === 1 ? new Uint8Array(values.length) : new Uint16Array(values.length);
        narrow.set(values);
        const sec = this.section(view(narrow), content, perRow ? width : undefined);
        sec[3] = width;
        return sec;
    }

    /** `rowBytes`: the section holds that many bytes a row, deflated in frames of FRAME_ROWS rows. */
    private section(raw: Buffer, content: SectionContent, rowBytes?: number): Section {
        const sec: Section = [0, 0, raw.length];
        const idx = this.sections.length;
        this.sections.push(raw);
        this.refs.push(sec);
        if (!this.compress) return sec;
        // One sample decides for the whole section. Bytes deflate would not shrink are kept as they
        // are (its stored length is then its raw length): they read without an inflate, a row at a time.
        const opts = deflateOptions(raw, content);
        if (opts === undefined) return sec;
        const frame = rowBytes === undefined ? raw.length : FRAME_ROWS * rowBytes;
        this.deflating = this.deflating.then(async () => {
            if (raw.length <= frame) {
                const out = await this.deflatePart(raw, opts);
                if (out.length < raw.length) this.sections[idx] = out;
                return;
            }
            // In frames, each flushed full but the last.
            const parts: Buffer[] = [];
            const lengths: number[] = [];
            for (let at = 0; at < raw.length; at += frame) {
                const part = raw.subarray(at, at + frame);
                const out = await this.deflatePart(part, { ...opts, chunkSize: Math.min(opts.chunkSize!, chunkFor(part)), finishFlush: at + frame >= raw.length ? zlibConstants.Z_FINISH : zlibConstants.Z_FULL_FLUSH });
                parts.push(out);
                lengths.push(out.length);
            }
            const out = Buffer.concat(parts);
            if (out.length >= raw.length) return;
            this.sections[idx] = out;
            sec[3] ||= 0;
            sec[4] = lengths;
        });
        return sec;
    }

    /**
     * One deflate call. A small part (a frame, a short section) deflates on this thread: zlib's
     * asynchronous API (a stream, a trip through the thread pool and back) cost twice the deflate
     * itself for a 32 KB frame, and a block's compression was a sixth of the service's CPU while
     * it ingested. That work gives way to the event loop every SYNC_SLICE_MS, so that ingest
     * requests are not held behind it. A large part goes to the pool as before.
     */
    private async deflatePart(part: Buffer, opts: ZlibOptions): Promise<Buffer> {
        if (part.length > SYNC_DEFLATE_BYTES) return deflateRawAsync(part, opts);
        const now = performance.now();
        if (now - this.sliceStart > SYNC_SLICE_MS) {
            await yieldToLoop();
            this.sliceStart = performance.now();
        }
        return deflateRawSync(part, opts);
    }
}

/** Parts up to this size deflate on the calling thread (BlockWriter.deflatePart): well under a millisecond each. */
const SYNC_DEFLATE_BYTES = 64 * 1024;
/** Deflate work done on the calling thread between turns of the event loop, in milliseconds. */
const SYNC_SLICE_MS = 2;

/**
 * What a section holds, which decides how it is deflated. Compaction is on the ingest path, and
 * LZ77 matching (deflate's costly part) finds little in binary columns: codes, times and numbers
 * get Huffman coding only (about 3× faster at level 1, within a few per cent of its size); batch
 * indexes, presence bitmaps and flags are long runs (RLE); row indexes repeat 0, 1, 2, … batch
 * after batch, which LZ77 finds at once, and JSON text keeps it where its repeats pay (else it is
 * 'letters', Huffman-coded: textContent); numbers
 * that Huffman coding would shrink by less than a quarter, and any section deflate would not
 * shrink, are kept as they are (their stored length is their raw length: how the reader tells).
 * Every other choice is plain raw deflate: the reader does not need to know which was made.
 */
type SectionContent = 'numbers' | 'runs' | 'repeats' | 'text' | 'letters';

/** The sample of text (or numbers) that decides how the whole is deflated. */
const TEXT_SAMPLE_BYTES = 16 * 1024;

/**
 * 'letters' (Huffman coding only) for text of at least half a sample in which LZ77 matching finds
 * too little (unique ids: a dictionary of UUIDs is 54% of its size either way, at a third of the
 * CPU), else 'text'. Shorter text is left to LZ77: it costs little.
 */
function textContent(text: Buffer): SectionContent {
    return text.length >= TEXT_SAMPLE_BYTES / 2 && !matchingPays(text.subarray(0, TEXT_SAMPLE_BYTES)) ? 'letters' : 'text';
}

/** The output chunk that holds `raw` deflated (see deflateOptions). */
const chunkFor = (raw: Buffer): number => Math.min(8 * 1024 * 1024, Math.max(16 * 1024, raw.length + (raw.length >> 3) + 1024));

/** How to deflate a section; undefined: not at all (kept as it is). */
function deflateOptions(raw: Buffer, content: SectionContent): ZlibOptions | undefined {
    // One output chunk (each chunk of zlib's async API is a round trip to the main thread), up to
    // 8 MiB: zlib allocates the whole chunk up front.
    const chunkSize = chunkFor(raw);
    const strategy = content === 'runs' ? zlibConstants.Z_RLE : content === 'numbers' || content === 'letters' ? zlibConstants.Z_HUFFMAN_ONLY : zlibConstants.Z_DEFAULT_STRATEGY;
    // Numbers that Huffman coding hardly shrinks (random fractions, unique ids' codes, times spread
    // over the range) are kept as they are (about 20× less CPU than coding them, and nothing to
    // inflate: a read of a few rows reads their bytes alone). Reading pays too: inflating a block's
    // Huffman-coded times (15% smaller) took 1.4 ms per 70,000 rows, more than a query of its fields.
    if (content === 'numbers' && raw.length > 4 * TEXT_SAMPLE_BYTES && !huffmanPays(raw.subarray(0, TEXT_SAMPLE_BYTES))) return undefined;
    return { level: 1, strategy, chunkSize };
}

/** Whether Huffman coding makes a sample at least a quarter smaller. */
function huffmanPays(sample: Buffer): boolean {
    return deflateRawSync(sample, { level: 1, strategy: zlibConstants.Z_HUFFMAN_ONLY }).length < sample.length * (3 / 4);
}

/** Whether LZ77 matching makes a sample at least a sixth smaller than Huffman coding alone. */
function matchingPays(sample: Buffer): boolean {
    const matched = deflateRawSync(sample, { level: 1 }).length;
    const huffman = deflateRawSync(sample, { level: 1, strategy: zlibConstants.Z_HUFFMAN_ONLY }).length;
    return matched < huffman * (5 / 6);
}

/** The smallest and largest present value of an f64 column (none when no value is present). */
function numberRange(values: Float64Array, present: Uint8Array): { min?: number; max?: number } {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < values.length; i++) {
        if (((present[i >> 3] >> (i & 7)) & 1) === 0) continue;
        const x = values[i];
        if (x < min) min = x;
        if (x > max) max = x;
    }
    return min <= max ? { min, max } : {};
}

/** The first and last string of a dictionary in code unit order (the order of `<` on strings). */
function stringRange(dict: readonly string[]): { min?: string; max?: string } {
    if (dict.length === 0) return {};
    let min = dict[0];
    let max = dict[0];
    for (const s of dict) {
        if (s < min) min = s;
        if (s > max) max = s;
    }
    return { min, max };
}

/** A str column with at most this many values (of this many code units in all) lists them with their rows in the header (`counts`). */
const COUNTED_VALUES = 64;
const COUNTED_TEXT = 2048;

/**
 * Each value of a str column with few values, with its rows (header `counts`): a query that reads
 * only that field of a block, in no order (`where status == "500" | count`, `summarize count() by
 * status`), is answered from the header without reading the block.
 */
function valueCounts(dict: readonly string[], codes: Uint32Array): { counts?: [string, number][] } {
    if (dict.length === 0 || dict.length > COUNTED_VALUES) return {};
    let text = 0;
    for (const s of dict) text += s.length;
    if (text > COUNTED_TEXT) return {};
    const rows = rowsPerValue(dict, codes);
    return { counts: dict.map((s, k) => [s, rows[k]]) };
}

/** A str column with at most this many values and no header `counts` stores each value's rows (section `rows`). */
const ROWS_SECTION_VALUES = 4096;

/** The rows of each dictionary entry (k: dict[k]); absent rows are in none. */
function rowsPerValue(dict: readonly string[], codes: Uint32Array): Uint32Array {
    const rows = new Uint32Array(dict.length + 1);
    for (let i = 0; i < codes.length; i++) rows[codes[i]]++;
    return rows.subarray(1);
}

/** A str column with at least this many values stores their key hashes (section `hashes`), and its dictionary in parts. */
const HASHED_VALUES = 1024;
/** Values in each part of a dictionary stored in parts (header `dictPart`). */
const DICT_PART_VALUES = 1024;

/** A dictionary section's (or part's) strings. */
function dictOfBytes(b: Buffer): string[] {
    return JSON.parse(b.toString('utf8')) as string[];
}

/**
 * The values of a str column's dictionary by code (k: dict[k - 1]; undefined past its end), each
 * section parsed (`part`, by its index in dictSections) at most once: of a dictionary stored in
 * parts (`dictPart`), only the part that holds a code asked for.
 */
function dictionaryLookup(c: Extract<ColumnMeta, { kind: 'str' }>, part: (j: number) => string[]): { valueAt(k: number): string | undefined; all(): string[] } {
    const count = 1 + (c.dictRest?.length ?? 0);
    const parsed: (string[] | undefined)[] = [];
    const partAt = (j: number): string[] => (parsed[j] ??= part(j));
    let whole: string[] | undefined;
    const all = (): string[] => (whole ??= count === 1 ? partAt(0) : Array.from({ length: count }, (_, j) => partAt(j)).flat());
    const per = c.dictPart;
    return {
        all,
        valueAt(k) {
            if (per === undefined || whole !== undefined) return all()[k - 1];
            const j = Math.floor((k - 1) / per);
            return j >= 0 && j < count ? partAt(j)[(k - 1) % per] : undefined;
        },
    };
}

/** The sections of a str column's dictionary, in order (one, or its parts). */
function dictSections(c: Extract<ColumnMeta, { kind: 'str' }>): Section[] {
    return [c.dict, ...(c.dictRest ?? [])];
}

/**
 * keyHash64 (the hash a dcount keeps of a value, language/eval/sketches.ts) of each dictionary
 * entry, as (high, low) pairs: a dcount of the column reads these and its codes, and neither
 * reads nor hashes the strings (an id per event makes a dictionary most of a block).
 */
function keyHashes(dict: readonly string[]): Uint32Array {
    const out = new Uint32Array(2 * dict.length);
    for (let k = 0; k < dict.length; k++) keyHash64(dict[k], true, out, 2 * k);
    return out;
}

/** The `axiom` of a column's header entry (see ColumnMeta). */
function axiomTypes(c: BlockColumn): string {
    if (c.kind === 'str') return 'string';
    if (c.kind === 'bool') return 'boolean';
    if (c.kind === 'f64') {
        let int = false;
        let float = false;
        for (let i = 0; i < c.values.length; i++) {
            if (((c.present[i >> 3] >> (i & 7)) & 1) === 0) continue;
            if (Number.isInteger(c.values[i])) int = true;
            else float = true;
        }
        return int && float ? 'integer|float' : float ? 'float' : 'integer';
    }
    const kinds = new Set<string>();
    for (const v of c.values) {
        if (v === null) continue;
        const t = typeof v;
        kinds.add(t === 'number' ? (Number.isInteger(v) ? 'integer' : 'float') : t === 'string' ? 'string' : t === 'boolean' ? 'boolean' : Array.isArray(v) ? 'array' : 'map');
    }
    return [...kinds].sort().join('|');
}

const view = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

type ColumnarInput = Extract<BlockInput, { columns: readonly BatchColumn[] }>;

/**
 * The block of columnar batches, copied column to column, each string looked up once per batch
 * dictionary entry rather than once per row. It runs on the main thread for every tail compaction,
 * so it is on the ingest hot path.
 */
async function encodeColumnarBlock(batches: ColumnarInput[], opts: EncodeOptions): Promise<{ bytes: Buffer; header: BlockHeader } | undefined> {
    let total = 0;
    for (const b of batches) total += b.times.length;
    const times = new BigInt64Array(total);
    const batchIdx = new Uint32Array(total);
    const rowIdx = new Uint32Array(total);
    const batchList: [number, string][] = [];
    /** Per batch: its row r -> block row, or -1 when the row is not kept. */
    const rowMaps: Int32Array[] = [];
    let n = 0;
    let minT = 0n;
    let maxT = 0n;
    for (const b of batches) {
        const m = b.times.length;
        const out = new Int32Array(m);
        const bi = batchList.length;
        const first = n;
        if (opts.keep === undefined && m > 0) {
            // Every row kept (the WAL tail's columns always): copied whole, no BigInt made per row.
            times.set(b.times, n);
            batchIdx.fill(bi, n, n + m);
            for (let r = 0; r < m; r++) {
                rowIdx[n + r] = r;
                out[r] = n + r;
            }
            const [lo, hi] = timeExtremes(b.times);
            if (n === 0 || lo < minT) minT = lo;
            if (n === 0 || hi > maxT) maxT = hi;
            n += m;
            rowMaps.push(out);
            batchList.push([b.seq, b.sysTime.toString()]);
            continue;
        }
        for (let r = 0; r < m; r++) {
            const t = b.times[r];
            if (opts.keep && !opts.keep(b.seq, t)) {
                out[r] = -1;
                continue;
            }
            if (n === 0 || t < minT) minT = t;
            if (n === 0 || t > maxT) maxT = t;
            times[n] = t;
            batchIdx[n] = bi;
            rowIdx[n] = r;
            out[r] = n++;
        }
        rowMaps.push(out);
        if (n > first) batchList.push([b.seq, b.sysTime.toString()]);
    }
    if (n === 0) return undefined;

    // The columns in order of first appearance (by batch, then in the batch's column order), leaving
    // out those with no kept value; each with the kinds of its kept values.
    const plan = new Map<string, { kinds: number; parts: { column: BatchColumn; rows: Int32Array }[] }>();
    batches.forEach((b, bi) => {
        for (const column of b.columns) {
            const kinds = keptKinds(column, rowMaps[bi]);
            if (kinds === 0) continue;
            let entry = plan.get(column.name);
            if (entry === undefined) plan.set(column.name, (entry = { kinds: 0, parts: [] }));
            entry.kinds |= kinds;
            entry.parts.push({ column, rows: rowMaps[bi] });
        }
    });

    // Rows in time order (then in the order they came: batch, row), as a query scans them: a query of
    // the block then never sorts it (a query sorting a block of batches appended out of order cost
    // more than its scan).
    const order = timeSortedRows(times.subarray(0, n));
    if (order !== undefined) {
        const rank = new Int32Array(n);
        for (let k = 0; k < n; k++) rank[order[k]] = k;
        for (const out of rowMaps) for (let r = 0; r < out.length; r++) if (out[r] >= 0) out[r] = rank[out[r]];
        permute(times, order);
        permute(batchIdx, order);
        permute(rowIdx, order);
    }
    const writer = new BlockWriter(opts.compress, times.subarray(0, n), batchIdx.subarray(0, n), rowIdx.subarray(0, n));
    const pace = new Pace(opts.yieldEvery, opts.yieldRows ?? 8192);
    for (const [name, { kinds, parts }] of plan) writer.addColumn(await mergedColumn(name, kinds, parts, n, pace));
    return writer.finish({ rows: n, minT, maxT, batchList, covers: opts.covers });
}


/** The order of a block's rows by (time, row): undefined when they are in it already. */
function timeSortedRows(times: BigInt64Array): Uint32Array | undefined {
    const n = times.length;
    const ms = new Float64Array(n);
    const sub = new Int32Array(n);
    splitTimes(times, null, n, ms, sub, 0, 0);
    const order = timeOrder(ms, n, (a, b) => sub[a] - sub[b] || a - b);
    for (let k = 0; k < n; k++) if (order[k] !== k) return order;
    return undefined;
}

/** `a`'s first `order.length` entries put in `order` (entry k becomes a[order[k]]); an int64 as its two 32-bit words, no BigInt made. */
function permute(a: BigInt64Array | Uint32Array, order: Uint32Array): void {
    const n = order.length;
    if (a instanceof Uint32Array) {
        const copy = a.slice(0, n);
        for (let k = 0; k < n; k++) a[k] = copy[order[k]];
        return;
    }
    const w = new Int32Array(a.buffer, a.byteOffset, 2 * n);
    const copy = w.slice();
    for (let k = 0; k < n; k++) {
        w[2 * k] = copy[2 * order[k]];
        w[2 * k + 1] = copy[2 * order[k] + 1];
    }
}

/**
 * The least and greatest of `times` (not empty), compared as (signed high word, unsigned low word)
 * pairs so that no BigInt is made per value.
 */
function timeExtremes(times: BigInt64Array): [bigint, bigint] {
    if (!LITTLE_ENDIAN) {
        let lo = times[0];
        let hi = lo;
        for (let i = 1; i < times.length; i++) {
            const t = times[i];
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        return [lo, hi];
    }
    const w = new Int32Array(times.buffer, times.byteOffset, times.length * 2);
    let min = 0;
    let max = 0;
    for (let i = 1; i < times.length; i++) {
        const h = w[2 * i + 1];
        const l = w[2 * i] >>> 0;
        const hMin = w[2 * min + 1];
        if (h < hMin || (h === hMin && l < w[2 * min] >>> 0)) min = i;
        const hMax = w[2 * max + 1];
        if (h > hMax || (h === hMax && l > w[2 * max] >>> 0)) max = i;
    }
    return [times[min], times[max]];
}

/** Counts the rows encoded and yields to the event loop every `rows` of them (between batches). */
class Pace {
    private work = 0;
    constructor(
        private readonly yieldEvery: (() => Promise<void>) | undefined,
        private readonly rows: number,
    ) {}

    /** Notes `rows` more rows; the promise to await when it is time to yield, else undefined. */
    done(rows: number): Promise<void> | undefined {
        this.work += rows;
        if (this.yieldEvery === undefined || this.work < this.rows) return undefined;
        this.work = 0;
        return this.yieldEvery();
    }
}

/** The kinds (KIND_* bits) of a batch column's values in kept rows; 0 when it has none there. */
function keptKinds(column: BatchColumn, rows: Int32Array): number {
    let kinds = 0;
    for (let r = 0; r < rows.length; r++) {
        if (rows[r] < 0) continue;
        if (column.kind === 'f64') {
            if (column.present === null || ((column.present[r >> 3] >> (r & 7)) & 1) === 1) return KIND_NUM;
        } else if (column.kind === 'str') {
            if (column.codes[r] !== 0) return KIND_STR;
        } else if (column.kind === 'bool') {
            if (column.values[r] !== 2) return KIND_BOOL;
        } else {
            const v = column.values[r];
            if (v !== null && v !== undefined) kinds |= kindOf(v);
        }
    }
    return kinds;
}

function kindOf(v: JsonValue): number {
    const tv = typeof v;
    return tv === 'number' ? KIND_NUM : tv === 'string' ? KIND_STR : tv === 'boolean' ? KIND_BOOL : KIND_OTHER;
}

/** One block column from the parts of the batches that have it; the encoding follows its kinds. */
async function mergedColumn(name: string, kinds: number, parts: { column: BatchColumn; rows: Int32Array }[], n: number, pace: Pace): Promise<BlockColumn> {
    if (kinds === KIND_STR) {
        const byNumber = await mergedByNumber(name, parts, n, pace);
        if (byNumber !== undefined) return byNumber;
        // Codes in order of first appearance in the batches (batch by batch, row by row).
        const dict: string[] = [];
        // At most the batches' dictionaries together (every value of a high-cardinality column).
        let bound = 0;
        for (const { column, rows } of parts) bound += column.kind === 'str' ? column.dict.length : rows.length;
        const index = new StringIndex(dict, 1, bound);
        const codes = new Uint32Array(n);
        for (const { column, rows } of parts) {
            const remap = column.kind === 'str' ? new Uint32Array(column.dict.length + 1) : undefined;
            const hashes = column.kind === 'str' ? column.hashes : undefined;
            for (let r = 0; r < rows.length; r++) {
                const o = rows[r];
                if (o < 0) continue;
                let str: string;
                let h: number;
                if (column.kind === 'str') {
                    const k = column.codes[r];
                    if (k === 0) continue;
                    if (remap![k] !== 0) {
                        codes[o] = remap![k];
                        continue;
                    }
                    str = column.dict[k - 1];
                    h = hashes === undefined ? stringHash(str) : hashes[k - 1];
                } else {
                    const v = columnValue(column, r);
                    if (v === undefined) continue;
                    str = v as string;
                    h = stringHash(str);
                }
                const c = index.getOrAdd(str, h, dict.length + 1);
                if (c > dict.length) dict.push(str);
                if (remap !== undefined && column.kind === 'str') remap[column.codes[r]] = c;
                codes[o] = c;
            }
            const due = pace.done(rows.length);
            if (due) await due;
        }
        return { name, kind: 'str', dict, codes };
    }
    if (kinds === KIND_NUM) {
        const values = new Float64Array(n);
        const present = new Uint8Array((n + 7) >> 3);
        for (const { column, rows } of parts) {
            if (column.kind === 'f64') copyNumbers(column.values, column.present, rows, values, present);
            else {
                for (let r = 0; r < rows.length; r++) {
                    const o = rows[r];
                    if (o < 0) continue;
                    const v = columnValue(column, r);
                    if (v === undefined) continue;
                    values[o] = v as number;
                    present[o >> 3] |= 1 << (o & 7);
                }
            }
            const due = pace.done(rows.length);
            if (due) await due;
        }
        return { name, kind: 'f64', values, present };
    }
    if (kinds === KIND_BOOL) {
        const values = new Uint8Array(n).fill(2);
        for (const { column, rows } of parts) {
            for (let r = 0; r < rows.length; r++) {
                const o = rows[r];
                if (o < 0) continue;
                const v = columnValue(column, r);
                if (v !== undefined) values[o] = v ? 1 : 0;
            }
            const due = pace.done(rows.length);
            if (due) await due;
        }
        return { name, kind: 'bool', values };
    }
    const values: JsonValue[] = new Array<JsonValue>(n).fill(null);
    for (const { column, rows } of parts) {
        for (let r = 0; r < rows.length; r++) {
            const o = rows[r];
            if (o < 0) continue;
            const v = columnValue(column, r);
            if (v !== undefined) values[o] = v;
        }
        const due = pace.done(rows.length);
        if (due) await due;
    }
    return { name, kind: 'json', values };
}

/** An f64 batch column's values at their block rows (`rows[r]`, -1 for a row not kept). */
function copyNumbers(src: Float64Array, srcPresent: Uint8Array | null, rows: Int32Array, values: Float64Array, present: Uint8Array): void {
    for (let r = 0; r < rows.length; r++) {
        const o = rows[r];
        if (o < 0 || (srcPresent !== null && ((srcPresent[r >> 3] >> (r & 7)) & 1) === 0)) continue;
        values[o] = src[r];
        present[o >> 3] |= 1 << (o & 7);
    }
}

/**
 * A str column merged by the numbers the engine gave its batches' entries (`numbered`, see
 * `StringNumbering`): one number per distinct string across the batches, so the block's
 * dictionary is built with integer lookups only. The same dictionary and codes as the merge by
 * string (first appearance in the batches). Undefined when some part has no such numbers, or
 * numbers from another dictionary, or an entry a kept row uses has none (the caller merges by
 * string).
 */
async function mergedByNumber(name: string, parts: { column: BatchColumn; rows: Int32Array }[], n: number, pace: Pace): Promise<BlockColumn | undefined> {
    let dictRef: readonly string[] | undefined;
    let lo = 0xffffffff;
    let hi = 0;
    let bound = 0;
    for (const { column } of parts) {
        if (column.kind !== 'str' || column.numbered === undefined) return undefined;
        const { dict: d, codes: nums } = column.numbered;
        if (dictRef === undefined) dictRef = d;
        else if (d !== dictRef) return undefined;
        if (nums.length !== column.dict.length + 1) return undefined;
        bound += column.dict.length;
        for (let k = 1; k < nums.length; k++) {
            const e = nums[k];
            if (e === 0xffffffff) continue;
            if (e < lo) lo = e;
            if (e > hi) hi = e;
        }
    }
    // Block code by engine number: a dense table over the numbers' range when it is not much
    // larger than the strings merged, else open addressing (a column of ids whose values recur
    // from long ago spans the engine's whole dictionary).
    const dense = hi < lo ? new Uint32Array(0) : hi - lo < 4 * bound + 4096 ? new Uint32Array(hi - lo + 1) : undefined;
    const table = dense === undefined ? new NumberTable(bound) : undefined;
    const dict: string[] = [];
    const codes = new Uint32Array(n);
    for (const { column, rows } of parts) {
        if (column.kind !== 'str') return undefined; // checked above
        const nums = column.numbered!.codes;
        const remap = new Uint32Array(column.dict.length + 1);
        const src = column.codes;
        for (let r = 0; r < rows.length; r++) {
            const o = rows[r];
            const k = src[r];
            if (o < 0 || k === 0) continue;
            let c = remap[k];
            if (c === 0) {
                const e = nums[k];
                if (e === 0xffffffff) return undefined; // not numbered after all: the caller merges by string
                if (dense !== undefined) {
                    c = dense[e - lo];
                    if (c === 0) {
                        dict.push(column.dict[k - 1]);
                        c = dense[e - lo] = dict.length;
                    }
                } else {
                    c = table!.getOrAdd(e, dict.length + 1);
                    if (c > dict.length) dict.push(column.dict[k - 1]);
                }
                remap[k] = c;
            }
            codes[o] = c;
        }
        const due = pace.done(rows.length);
        if (due) await due;
    }
    return { name, kind: 'str', dict, codes };
}

/** No entry in a NumberTable slot (and no engine number: an unused entry's). */
const EMPTY_KEY = 0xffffffff;

/** Integer keys below 2^32 - 1 to positive values, open addressing (linear probing). */
class NumberTable {
    private readonly keys: Uint32Array;
    private readonly vals: Uint32Array;
    private readonly mask: number;

    constructor(expected: number) {
        let size = 16;
        while (size < expected * 2) size *= 2;
        this.keys = new Uint32Array(size).fill(EMPTY_KEY);
        this.vals = new Uint32Array(size);
        this.mask = size - 1;
    }

    /** The value of `key`, or `value` after adding it when new (at most `expected` keys). */
    getOrAdd(key: number, value: number): number {
        const { keys, mask } = this;
        for (let s = (Math.imul(key, 0x9e3779b1) >>> 0) & mask; ; s = (s + 1) & mask) {
            const k = keys[s];
            if (k === key) return this.vals[s];
            if (k === EMPTY_KEY) {
                keys[s] = key;
                this.vals[s] = value;
                return value;
            }
        }
    }
}

export class BlockCorruptError extends Error {}

/**
 * The header JSON with its own checksum, as the store's JSON files have (fsutil.ts checkedJson):
 * `crc32` is the CRC-32 of the compact JSON of the other keys. A dataset kept on disk decides from
 * the header alone which blocks a query reads (column ranges, kinds and names), without reading the
 * block, so those bytes must be checked on their own before they are trusted.
 */
function encodeHeader(header: BlockHeader): Buffer {
    return Buffer.from(JSON.stringify({ ...header, crc32: crc32(JSON.stringify(header)) >>> 0 }));
}

/**
 * Parses a header and checks it: versions 2 and 3 must carry a matching `crc32` (removed here); version 1
 * has none (`checked` false: its bytes are covered by the block's checksum alone).
 */
function parseHeader(text: string, checksum = true): { header: BlockHeader; checked: boolean } {
    let parsed: Record<string, unknown>;
    try {
        parsed = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
        throw new BlockCorruptError(`unreadable block header (${(err as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null) throw new BlockCorruptError('unreadable block header (not an object)');
    // A later format will say so here; reading it as this one would give wrong values, not errors.
    if (parsed.v === 1) return { header: parsed as unknown as BlockHeader, checked: false };
    if (parsed.v !== 2 && parsed.v !== 3) throw new BlockCorruptError(`unsupported block version ${JSON.stringify(parsed.v)}`);
    const { crc32: stored, ...rest } = parsed;
    if (checksum && stored !== crc32(JSON.stringify(rest)) >>> 0) throw new BlockCorruptError('block header checksum mismatch (its column ranges, kinds or counts are damaged)');
    return { header: rest as unknown as BlockHeader, checked: true };
}

/** `checksum`: false when these very bytes were checked before (see coldBlockReader). */
export function readBlockHeader(buf: Buffer, checksum = true): { header: BlockHeader; dataStart: number } {
    if (buf.length < 16 || buf.toString('latin1', 0, 8) !== BLOCK_MAGIC) throw new BlockCorruptError('not a block file (bad magic)');
    const crc = buf.readUInt32LE(buf.length - 4);
    if (checksum && crc32(buf.subarray(0, buf.length - 4)) >>> 0 !== crc) throw new BlockCorruptError('block checksum mismatch');
    const hlen = buf.readUInt32LE(8);
    if (12 + hlen > buf.length - 4) throw new BlockCorruptError('unreadable block header (its length runs past the block)');
    const { header } = parseHeader(buf.toString('utf8', 12, 12 + hlen));
    return { header, dataStart: 12 + hlen };
}

/** What readBlockHeaderOnly reads first: the 12-byte prefix and, most often, the whole header. */
const HEADER_READ_BYTES = 16 * 1024;

/**
 * A block file's header alone (one small read, two for a header past 16 KB), checked by its own checksum (version 2; the data
 * is checked when a query reads the block). For what a dataset's schema and block list need at
 * start-up. `checked` is false for a version 1 header, which has no checksum of its own.
 */
export async function readBlockHeaderOnly(file: string): Promise<BlockHeader & { checked: boolean }> {
    const fh = await open(file, 'r');
    try {
        // One read holds the prefix and a header of the usual size (a few KB); a larger header takes a second.
        const first = Buffer.alloc(HEADER_READ_BYTES);
        const { bytesRead: got } = await fh.read(first, 0, HEADER_READ_BYTES, 0);
        if (got < 12 || first.toString('latin1', 0, 8) !== BLOCK_MAGIC) throw new BlockCorruptError(`${file}: not a block file (bad magic)`);
        const hlen = first.readUInt32LE(8);
        let h: Buffer;
        let bytesRead: number;
        if (12 + hlen <= got) {
            h = first.subarray(12, 12 + hlen);
            bytesRead = hlen;
        } else {
            h = Buffer.alloc(hlen);
            ({ bytesRead } = await fh.read(h, 0, hlen, 12));
        }
        if (bytesRead !== hlen) throw new BlockCorruptError(`${file}: unreadable block header (the file ends inside its header)`);
        try {
            const { header, checked } = parseHeader(h.toString('utf8'));
            return { ...header, checked };
        } catch (err) {
            throw new BlockCorruptError(`${file}: ${(err as Error).message}`);
        }
    } finally {
        await fh.close();
    }
}

/** Reads a block file and checks it whole (magic, checksum, header); throws BlockCorruptError naming the file. */
export async function readBlockFileHeader(file: string): Promise<BlockHeader> {
    let buf: Buffer;
    try {
        buf = await readFile(file);
    } catch (err) {
        throw new BlockCorruptError(`${file}: cannot read (${(err as Error).message})`);
    }
    try {
        return readBlockHeader(buf).header;
    } catch (err) {
        throw new BlockCorruptError(`${file}: ${(err as Error).message}`);
    }
}

/** The largest output chunk an inflate asks for at once (a section's raw length, up to this). */
const MAX_INFLATE_CHUNK = 256 * 1024 * 1024;

/** Decodes a block file (checked whole unless `checksum` is false); `field` picks the columns to decode (default all). */
export function decodeBlock(buf: Buffer, field?: (name: string) => boolean, checksum = true): DecodedBlock {
    const { header, dataStart } = readBlockHeader(buf, checksum);
    const deflated = deflatedIn(header);
    // Sections a query may never read, and those not deflated (a column may be a view of them), are
    // copied out, so that the file's buffer is not kept alive for them.
    return decodeSections(header, (s, keep) => {
        const raw = buf.subarray(dataStart + s[0], dataStart + s[0] + s[1]);
        return keep || !deflated(s) ? Buffer.from(raw) : raw;
    }, field);
}

/** Reads `length` bytes of a block file from `offset`: all of them, or it throws. */
export type BlockBytesAt = (offset: number, length: number) => Buffer;

/** What `checkBlockBytes` reads at a time. */
const CHECK_CHUNK_BYTES = 1024 * 1024;

/**
 * Checks a block file of `size` bytes whole, as `readBlockHeader` does, a megabyte at a time: the
 * CRC-32 of all its bytes but the last four against those four. The first read of a block in a
 * process takes its sections after this (decodeBlockAt), without holding the whole file.
 */
export function checkBlockBytes(read: (into: Buffer, offset: number) => number, size: number): void {
    if (size < 16) throw new BlockCorruptError('not a block file (too short)');
    const buf = Buffer.allocUnsafe(Math.min(CHECK_CHUNK_BYTES, size));
    const end = size - 4;
    let crc = 0;
    for (let pos = 0; pos < end; ) {
        const n = read(buf.subarray(0, Math.min(buf.length, end - pos)), pos);
        if (n === 0) throw new BlockCorruptError(`the file ends at byte ${pos}, before its ${size} bytes`);
        crc = crc32(buf.subarray(0, n), crc);
        pos += n;
    }
    if (read(buf.subarray(0, 4), end) !== 4 || buf.readUInt32LE(0) !== crc >>> 0) throw new BlockCorruptError('block checksum mismatch');
}

/**
 * Decodes a block whose file was checked whole before (coldBlockReader), reading only its header and
 * the sections asked for: the fields `field` picks, and the times and row ids (decoded on first use).
 * A query of a few fields reads a small part of the file.
 */
export function decodeBlockAt(read: BlockBytesAt, field?: (name: string) => boolean, readLater?: BlockBytesAt): DecodedBlock {
    const { header, dataStart } = headerAt(read);
    // `readLater` reads the times and row ids when they are first decoded, not now (most queries of a block never do).
    const later = readLater && ((s: Section) => () => readLater(dataStart + s[0], s[1]));
    return decodeSections(header, (s) => read(dataStart + s[0], s[1]), field, later);
}

/**
 * Rows `rows` (ascending, each below the block's rows) of a block whose file was checked whole
 * before, as a block of those rows alone, in that order. Of each per-row section only the frames
 * that hold them are read and inflated (a block before version 3: each section whole); a string
 * column's dictionary is cut to the values of those rows, read from their parts only where the
 * dictionary is stored in parts. For the few rows a query picked by other fields (a `top`'s winners).
 * `blockRows`: the rows the caller knows the block by; a block of another size (a dataset made again
 * under the same block names) gives undefined.
 */
export function decodeBlockRowsAt(read: BlockBytesAt, rows: Uint32Array, field?: (name: string) => boolean, blockRows?: number): DecodedBlock | undefined {
    // The header's own checksum is not checked again (its file was, whole): a JSON.stringify of it
    // would cost as much as reading a row.
    const { header, dataStart } = headerAt(read, false);
    if (blockRows !== undefined && header.rows !== blockRows) return undefined;
    const deflated = deflatedIn(header);
    const m = rows.length;
    for (let k = 0; k < m; k++) if (rows[k] >= header.rows || (k > 0 && rows[k] <= rows[k - 1])) throw new Error(`row ${rows[k]}: not a row of the block in order (${header.rows} rows)`);
    const { sec } = sectionDecoder(deflated, (s) => read(dataStart + s[0], s[1]));
    const perFrame = header.frameRows ?? Math.max(1, header.rows);
    /** The bytes of each of `rows` in a per-row section of `rowBytes` a row (1/8: a bitmap), handed to `take` with the row's index in its bytes. */
    const eachRow = (s: Section, rowBytes: number, take: (bytes: Buffer, at: number, k: number) => void): void => {
        if (!deflated(s)) {
            // As it is: each row's bytes read alone (a bitmap's row: the byte that holds its bit).
            for (let k = 0; k < m; k++) {
                const r = rows[k];
                take(read(dataStart + s[0] + Math.floor(r * rowBytes), Math.ceil(rowBytes)), rowBytes < 1 ? r & 7 : 0, k);
            }
            return;
        }
        const frames = s[4];
        // An unframed section is one frame: of every row.
        const frameRows = frames === undefined ? Math.max(1, header.rows) : perFrame;
        let whole: Buffer | undefined;
        const frameBytes = frameRows * rowBytes;
        let j = -1;
        let bytes: Buffer = Buffer.alloc(0);
        for (let k = 0; k < m; k++) {
            const r = rows[k];
            const f = Math.floor(r / frameRows);
            if (f !== j) {
                j = f;
                if (frames === undefined) bytes = whole ??= sec(s);
                else {
                    if (f >= frames.length) throw new BlockCorruptError(`a section of ${s[2]} bytes lists ${frames.length} frames, not one for row ${r}`);
                    let offset = s[0];
                    for (let x = 0; x < f; x++) offset += frames[x];
                    // Not the last frame: its stream ends in a full flush, not a final block.
                    bytes = inflateRawSync(read(dataStart + offset, frames[f]), { finishFlush: zlibConstants.Z_SYNC_FLUSH, chunkSize: Math.max(64, Math.ceil(frameBytes)) });
                }
            }
            take(bytes, r - f * frameRows, k);
        }
    };
    const u32Rows = (s: Section): Uint32Array => {
        const width = s[3] || 4;
        const out = new Uint32Array(m);
        eachRow(s, width, (b, at, k) => (out[k] = b.readUIntLE(at * width, width)));
        return out;
    };
    const times = new BigInt64Array(m);
    eachRow(header.time, 8, (b, at, k) => (times[k] = b.readBigInt64LE(at * 8)));
    const batchIdx = u32Rows(header.batch);
    const rowIdx = u32Rows(header.row);
    const columns = header.columns.filter((c) => field === undefined || field(c.name)).map((c): DecodedColumn => {
        switch (c.kind) {
            case 'f64': {
                const values = new Float64Array(m);
                const present = new Uint8Array((m + 7) >> 3);
                eachRow(c.data, 8, (b, at, k) => (values[k] = b.readDoubleLE(at * 8)));
                eachRow(c.present, 1 / 8, (b, at, k) => {
                    if ((b[at >> 3] >> (at & 7)) & 1) present[k >> 3] |= 1 << (k & 7);
                });
                return { name: c.name, kind: 'f64', values, present, get: (i) => ((present[i >> 3] >> (i & 7)) & 1 ? values[i] : undefined) };
            }
            case 'bool': {
                const values = new Uint8Array(m);
                eachRow(c.data, 1, (b, at, k) => (values[k] = b[at]));
                return { name: c.name, kind: 'bool', values, get: (i) => (values[i] === 2 ? undefined : values[i] === 1) };
            }
            case 'str': {
                const stored = u32Rows(c.data);
                const parts = dictSections(c);
                // A dictionary in parts: the parts of the rows' values only.
                const lookup = dictionaryLookup(c, (j) => dictOfBytes(sec(parts[j])));
                const valueAt = (code: number): string => {
                    const v = lookup.valueAt(code);
                    if (v === undefined) throw new BlockCorruptError(`column ${c.name}: code ${code} past its dictionary`);
                    return v;
                };
                // The rows' values, each once, as a dictionary of their own.
                const dict: string[] = [];
                const recoded = new Map<number, number>();
                const codes = new Uint32Array(m);
                for (let k = 0; k < m; k++) {
                    const code = stored[k];
                    if (code === 0) continue;
                    let mine = recoded.get(code);
                    if (mine === undefined) {
                        dict.push(valueAt(code));
                        recoded.set(code, (mine = dict.length));
                    }
                    codes[k] = mine;
                }
                return { name: c.name, kind: 'str', dict, codes, get: (i) => (codes[i] === 0 ? undefined : dict[codes[i] - 1]) };
            }
            case 'json': {
                const all = JSON.parse(sec(c.data).toString('utf8')) as JsonValue[];
                const values = Array.from(rows, (r) => all[r] ?? null);
                return { name: c.name, kind: 'json', values, get: (i) => (values[i] === null ? undefined : values[i]) };
            }
        }
    });
    // Rows of an ordered block, taken in order, are in order.
    return { rows: m, ordered: header.ordered === true, times, batchIdx, rowIdx, batchSeqs: header.batches.map((b) => b[0]), batchSysTimes: header.batches.map((b) => BigInt(b[1])), columns };
}

/**
 * Where a block file's value rows are (section `rows` of its str columns, with their dictionaries):
 * what decodeValueRows needs of its header, small enough for a reader to keep per file.
 */
export interface ValueRowsIndex {
    blockRows: number;
    dataStart: number;
    deflated: (s: Section) => boolean;
    fields: ReadonlyMap<string, readonly [dict: readonly Section[], rows: Section]>;
}

/** The ValueRowsIndex of a block file (its header is read and checked). */
export function valueRowsIndexAt(read: BlockBytesAt): ValueRowsIndex {
    const { header, dataStart } = headerAt(read);
    const fields = new Map<string, readonly [readonly Section[], Section]>();
    for (const c of header.columns) if (c.kind === 'str' && c.rows !== undefined) fields.set(c.name, [dictSections(c), c.rows]);
    return { blockRows: header.rows, dataStart, deflated: deflatedIn(header), fields };
}

/**
 * The values of the str column `field` and each one's rows, from a block whose file was checked
 * whole before, without its codes: its dictionary and its section `rows` alone are read.
 * Undefined when the block stores no rows for it.
 */
export function decodeValueRows(read: BlockBytesAt, index: ValueRowsIndex, field: string): { values: string[]; rows: Uint32Array } | undefined {
    const refs = index.fields.get(field);
    if (refs === undefined) return undefined;
    const { sec, u32 } = sectionDecoder(index.deflated, (s) => read(index.dataStart + s[0], s[1]));
    const values = refs[0].flatMap((d) => dictOfBytes(sec(d)));
    const rows = u32(refs[1]);
    if (rows.length !== values.length) throw new BlockCorruptError(`column ${field}: ${rows.length} row counts for ${values.length} values`);
    return { values, rows };
}

/**
 * The header of a block file checked whole before, and where its sections begin. `checksum`: false
 * to skip the header's own (its magic and version are checked still).
 */
function headerAt(read: BlockBytesAt, checksum = true): { header: BlockHeader; dataStart: number } {
    const prefix = read(0, 12);
    if (prefix.toString('latin1', 0, 8) !== BLOCK_MAGIC) throw new BlockCorruptError('not a block file (bad magic)');
    const hlen = prefix.readUInt32LE(8);
    const { header } = parseHeader(read(12, hlen).toString('utf8'), checksum);
    return { header, dataStart: 12 + hlen };
}

/**
 * Whether a section's stored bytes are deflated: in a deflated block, every section before version
 * 3; since, those shorter than their raw bytes (the writer keeps a section deflate would not shrink
 * as it is, which a stored length equal to the raw length says).
 */
function deflatedIn(header: Pick<BlockHeader, 'compression' | 'v'>): (s: Section) => boolean {
    if (header.compression !== 'deflate-raw') return () => false;
    return header.v >= 3 ? (s) => s[1] !== s[2] : () => true;
}

/** Decoders of a block's sections from their stored bytes: inflated (those deflated), as bytes or u32s. */
function sectionDecoder(deflated: (s: Section) => boolean, stored: (s: Section) => Buffer) {
    // One output chunk of the section's raw length: zlib's default 16 KiB chunks are joined after
    // (a stored section of 560 KB inflated in 0.22 ms that way, 0.09 ms this way).
    const inflate = (raw: Buffer, s: Section): Buffer => inflateRawSync(raw, { chunkSize: Math.min(Math.max(64, s[2]), MAX_INFLATE_CHUNK) });
    const sec = (s: Section): Buffer => {
        const raw = stored(s);
        return deflated(s) ? inflate(raw, s) : raw;
    };
    const u32Of = (b: Buffer, s: Section): Uint32Array => {
        if (!s[3]) return typedOf(Uint32Array, b);
        const out = new Uint32Array(b.length / s[3]);
        out.set(s[3] === 1 ? b : typedOf(Uint16Array, b));
        return out;
    };
    return { inflate, sec, u32Of, u32: (s: Section): Uint32Array => u32Of(sec(s), s) };
}

/**
 * A section's bytes as a typed array: a view when they are the whole of their own memory (a section
 * inflated, or read on its own, past Node's pool size), else a copy. Typed arrays need aligned
 * memory, and a view of a larger buffer (a whole block file, a pool slab) would keep all of it alive.
 */
function typedOf<T>(Ctor: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; new (buffer: ArrayBuffer): T; readonly BYTES_PER_ELEMENT: number }, b: Buffer): T {
    if (b.byteOffset === 0 && b.buffer.byteLength === b.length && b.buffer instanceof ArrayBuffer) return new Ctor(b.buffer, 0, b.length / Ctor.BYTES_PER_ELEMENT);
    return new Ctor(aligned(b));
}

/** Typed arrays need aligned memory: a copy into a fresh ArrayBuffer. */
function aligned(b: Buffer): ArrayBuffer {
    const ab = new ArrayBuffer(b.length);
    new Uint8Array(ab).set(b);
    return ab;
}

/**
 * A block's columns from its sections' stored bytes (`stored`; `keep`: the bytes are kept for a
 * later decode). The times and row ids are decoded on first use: a query of a block's fields alone
 * never reads them (server/query/cold-reader.ts); `storedLater` reads their bytes only then.
 */
function decodeSections(header: BlockHeader, stored: (s: Section, keep: boolean) => Buffer, field?: (name: string) => boolean, storedLater?: (s: Section) => () => Buffer): DecodedBlock {
    const deflated = deflatedIn(header);
    const { inflate, sec, u32Of, u32 } = sectionDecoder(deflated, (s) => stored(s, false));
    const later = <T>(s: Section, decode: (b: Buffer) => T): (() => T) => {
        let raw: (() => Buffer) | undefined = storedLater?.(s);
        if (raw === undefined) {
            const kept = stored(s, true);
            raw = () => kept;
        }
        const read = raw;
        let v: T | undefined;
        return () => (v ??= decode(deflated(s) ? inflate(read(), s) : read()));
    };
    const rows = header.rows;
    const columns: DecodedColumn[] = header.columns.filter((c) => field === undefined || field(c.name)).map((c): DecodedColumn => {
        switch (c.kind) {
            case 'f64': {
                const data = typedOf(Float64Array, sec(c.data));
                const present = sec(c.present);
                return { name: c.name, kind: 'f64', values: data, present, get: (i) => ((present[i >> 3] >> (i & 7)) & 1 ? data[i] : undefined) };
            }
            case 'bool': {
                const data = sec(c.data);
                return { name: c.name, kind: 'bool', values: data, get: (i) => (data[i] === 2 ? undefined : data[i] === 1) };
            }
            case 'str': {
                const codes = u32(c.data);
                if (c.hashes !== undefined) {
                    // The strings are read (the sections again, from the file) only if something asks for them:
                    // all of them, or the part of one value (valueAt).
                    const keyHashes = typedOf(Uint32Array, sec(c.hashes));
                    const parts = dictSections(c).map((d) => later(d, dictOfBytes));
                    const lookup = dictionaryLookup(c, (j) => parts[j]());
                    // A code past the dictionary (never in a block whose checksum held) reads as absent, as dict[k - 1] would.
                    const valueAt = (k: number): string => lookup.valueAt(k) as string;
                    return {
                        name: c.name,
                        kind: 'str',
                        get dict() {
                            return lookup.all();
                        },
                        codes,
                        keyHashes,
                        valueAt,
                        get: (i) => (codes[i] === 0 ? undefined : valueAt(codes[i])),
                    };
                }
                const dict = dictSections(c).flatMap((d) => dictOfBytes(sec(d)));
                return { name: c.name, kind: 'str', dict, codes, get: (i) => (codes[i] === 0 ? undefined : dict[codes[i] - 1]) };
            }
            case 'json': {
                const vals = JSON.parse(sec(c.data).toString('utf8')) as JsonValue[];
                return { name: c.name, kind: 'json', values: vals, get: (i) => (vals[i] === null ? undefined : vals[i]) };
            }
        }
    });
    const times = later(header.time, (b) => typedOf(BigInt64Array, b));
    const batchIdx = later(header.batch, (b) => u32Of(b, header.batch));
    const rowIdx = later(header.row, (b) => u32Of(b, header.row));
    return {
        rows,
        ordered: header.ordered === true,
        get times() {
            return times();
        },
        get batchIdx() {
            return batchIdx();
        },
        get rowIdx() {
            return rowIdx();
        },
        batchSeqs: header.batches.map((b) => b[0]),
        batchSysTimes: header.batches.map((b) => BigInt(b[1])),
        columns,
    };
}
