/**
 * Blocks are made column to column: from batches that arrived as columns (the live ingest path) and
 * from flat events (WAL recovery), turned into columns first. Either way a block must hold exactly the
 * kept events: the rows in order, each field's value, an encoding that fits the values (f64, str,
 * bool, or json when they are mixed or nested), the columns in order of first appearance.
 */
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../language/values.js';
import { toColumns } from '../../../server/ingest/columnar.js';
import { BlockDamagedError, BlockHeaders } from '../../../server/http/cold-tier.js';
import type { FlatFields } from '../../../language/ingest/normalize-event.js';
import { FRAME_ROWS, decodeBlock, decodeBlockRowsAt, encodeBlock, readBlockHeader, readBlockHeaderOnly, type BlockHeader, type BlockInput, type EncodeOptions } from '../../../server/store/block.js';

/** `times`: each event's time (default: batch after batch, in order; see timeOf). */
type Batch = { seq: number; events: FlatFields[]; times?: bigint[] };

const timeOf = (b: Batch, row: number): bigint => b.times?.[row] ?? BigInt(b.seq) * 1_000_000n + BigInt(row);

function inputs(batches: Batch[], columnar: boolean): BlockInput[] {
    return batches.map(b => {
        const { seq, events } = b;
        const times = BigInt64Array.from(events, (_, i) => timeOf(b, i));
        const sysTime = BigInt(seq) * 7n;
        return columnar ? { seq, sysTime, times, columns: toColumns(events) } : { seq, sysTime, times, fields: events };
    });
}

/** What the block must hold, worked out from the events alone: the kept rows in time order, then as they came (batch, row). */
function expected(batches: Batch[], keep: EncodeOptions['keep']) {
    const kept = batches
        .flatMap(b => b.events.map((fields, row) => ({ seq: b.seq, row, fields, time: timeOf(b, row) })).filter(e => !keep || keep(e.seq, e.time)))
        .sort((x, y) => (x.time !== y.time ? (x.time < y.time ? -1 : 1) : x.seq - y.seq || x.row - y.row));
    const names = [...new Set(kept.flatMap(e => Object.keys(e.fields).filter(k => e.fields[k] !== null && e.fields[k] !== undefined)))].sort();
    const columns = Object.fromEntries(
        names.map(name => {
            const values = kept.map(e => (e.fields[name] === null ? undefined : e.fields[name]));
            const kinds = new Set(values.filter(v => v !== undefined).map(v => (typeof v === 'object' ? 'other' : typeof v)));
            const kind = kinds.size > 1 || kinds.has('other') ? 'json' : kinds.has('number') ? 'f64' : kinds.has('string') ? 'str' : 'bool';
            // A json column holds JSON: what JSON cannot tell apart (-0 and 0) comes back as JSON
            // reads it, and so does every answer, since results go out as JSON.
            return [name, { kind, values: kind === 'json' ? values.map(v => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as unknown))) : values }];
        }),
    );
    return {
        rows: kept.length,
        times: kept.map(e => e.time),
        batches: kept.map(e => e.seq),
        rowIdx: kept.map(e => e.row),
        columns,
    };
}

function content(bytes: Buffer) {
    const b = decodeBlock(bytes);
    const columns = Object.fromEntries(
        [...b.columns].sort((x, y) => (x.name < y.name ? -1 : 1)).map(c => [c.name, { kind: c.kind, values: Array.from({ length: b.rows }, (_, i) => c.get(i)) }]),
    );
    return { rows: b.rows, times: [...b.times], batches: [...b.batchIdx].map(i => b.batchSeqs[i]), rowIdx: [...b.rowIdx], columns };
}

async function expectBlockHolds(batches: Batch[], opts: EncodeOptions): Promise<void> {
    const want = expected(batches, opts.keep);
    for (const columnar of [true, false]) {
        const block = await encodeBlock(inputs(batches, columnar), opts);
        if (want.rows === 0) {
            expect(block).toBeUndefined();
            continue;
        }
        expect(content(block!.bytes)).toEqual(want);
        expectHeaderDescribes(block!.bytes);
    }
}

/**
 * The header's per-column `axiom` types and `min`/`max` ranges (what a dataset kept on disk plans
 * queries by, unread) agree with the values the block holds.
 */
function expectHeaderDescribes(bytes: Buffer): void {
    const { header } = readBlockHeader(bytes);
    const b = decodeBlock(bytes);
    for (const meta of header.columns) {
        const col = b.columns.find(c => c.name === meta.name)!;
        const values = Array.from({ length: b.rows }, (_, i) => col.get(i)).filter(v => v !== undefined);
        const kinds = new Set(values.map(v => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'float') : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : Array.isArray(v) ? 'array' : 'map')));
        if (meta.kind === 'f64') {
            const xs = values as number[];
            expect(meta.axiom).toBe(kinds.size === 2 ? 'integer|float' : [...kinds][0]);
            // === : -0 and 0 are one value to a range.
            expect(meta.min === Math.min(...xs) && meta.max === Math.max(...xs)).toBe(true);
        } else if (meta.kind === 'str') {
            const xs = (values as string[]).slice().sort();
            expect([meta.axiom, meta.min, meta.max]).toEqual(['string', xs[0], xs[xs.length - 1]]);
            // Few values (64 at most, 2,048 code units in all): each with its rows, in the dictionary's order.
            const distinct = [...new Set(values as string[])];
            const few = distinct.length <= 64 && distinct.join('').length <= 2048;
            const rows = (v: string) => (values as string[]).filter(x => x === v).length;
            expect(meta.counts && Object.fromEntries(meta.counts)).toEqual(few ? Object.fromEntries(distinct.map(v => [v, rows(v)])) : undefined);
        } else if (meta.kind === 'bool') {
            expect(meta.axiom).toBe('boolean');
        } else {
            expect(meta.axiom).toBe([...kinds].sort().join('|'));
        }
    }
}

const value: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom('GET', 'POST', 'São Paulo', ''),
    fc.string(),
    fc.boolean(),
    fc.constant<JsonValue>([1, 'a']),
    fc.constant<JsonValue>({ nested: true }),
);
const event = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'geo.city', 'status'), value, { maxKeys: 5 }) as fc.Arbitrary<FlatFields>;
const batchList = fc.array(fc.array(event, { minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 5 }).map(list => list.map((events, i) => ({ seq: i + 1, events })));

/**
 * An uncompressed block rewritten in the layout blocks had before u32 sections were stored narrow:
 * each narrow section widened to 4 bytes per value, its reference without the width.
 */
function widened(bytes: Buffer): Buffer {
    const { header, dataStart } = readBlockHeader(bytes);
    type Ref = [number, number, number, (0 | 1 | 2)?, number[]?];
    const refs: Ref[] = [header.time, header.batch, header.row, ...header.columns.flatMap(c => ('dict' in c ? [c.dict, c.data] : 'present' in c ? [c.data, c.present] : [c.data]))];
    const parts: Buffer[] = [];
    let offset = 0;
    for (const ref of [...refs].sort((a, b) => a[0] - b[0])) {
        let raw = bytes.subarray(dataStart + ref[0], dataStart + ref[0] + ref[1]);
        if (ref[3]) {
            const wide = new Uint32Array(raw.length / ref[3]);
            wide.set(ref[3] === 1 ? raw : new Uint16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)));
            raw = Buffer.from(wide.buffer);
            ref.length = 3;
        }
        ref[0] = offset;
        ref[1] = ref[2] = raw.length;
        offset += raw.length;
        parts.push(raw);
    }
    // Blocks written before narrowing predate the header's own checksum too (version 1).
    return rewritten(bytes, { ...header, v: 1 }, parts);
}

/** The block with another header (and sections, default its own), checksummed again. */
function rewritten(bytes: Buffer, header: BlockHeader, sections?: Buffer[]): Buffer {
    const { dataStart } = readBlockHeader(bytes);
    const head = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(12);
    prefix.write('APLBLK01', 0, 'latin1');
    prefix.writeUInt32LE(head.length, 8);
    const body = Buffer.concat([prefix, head, ...(sections ?? [bytes.subarray(dataStart, bytes.length - 4)])]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(crc32(body) >>> 0);
    return Buffer.concat([body, crc]);
}

/**
 * A deflated block of version 3 rewritten as blocks were before it: every section deflated whole
 * (none kept as it is, none in frames), the header of version 1 (no checksum of its own).
 */
function asVersion1(bytes: Buffer): Buffer {
    const { header, dataStart } = readBlockHeader(bytes);
    const refs: Section[] = [header.time, header.batch, header.row, ...header.columns.flatMap(c => ('dict' in c ? [c.dict, ...(c.dictRest ?? []), c.data, ...(c.hashes ? [c.hashes] : []), ...(c.rows ? [c.rows] : [])] : 'present' in c ? [c.data, c.present] : [c.data]))];
    const parts: Buffer[] = [];
    let offset = 0;
    for (const ref of [...refs].sort((a, b) => a[0] - b[0])) {
        const stored = bytes.subarray(dataStart + ref[0], dataStart + ref[0] + ref[1]);
        const raw = ref[1] === ref[2] ? stored : inflateRawSync(stored);
        const out = deflateRawSync(raw, { level: 1 });
        ref[0] = offset;
        ref[1] = out.length;
        ref.length = ref[3] ? 4 : 3;
        offset += out.length;
        parts.push(out);
    }
    return rewritten(bytes, { ...header, v: 1, frameRows: undefined }, parts);
}

type Section = BlockHeader['time'];

describe('blocks', () => {
    it('uniform kinds, low and high cardinality strings, compressed; columns in order of first appearance', async () => {
        const batch = (seq: number): Batch => ({
            seq,
            events: Array.from({ length: 50 }, (_, i) => ({ method: i % 3 ? 'GET' : 'POST', id: `${seq}-${i}`, ms: i * 1.5, ...(i > 0 ? { ok: i % 2 === 0 } : {}) })),
        });
        await expectBlockHolds([batch(1), batch(2), batch(3)], { compress: true });
        const block = decodeBlock((await encodeBlock(inputs([batch(1), batch(2)], true), { compress: true }))!.bytes);
        expect(block.columns.map(c => [c.name, c.kind])).toEqual([['method', 'str'], ['id', 'str'], ['ms', 'f64'], ['ok', 'bool']]);
        expect(block.columns[1]!.get(50)).toBe('2-0');
        expect(block.columns[3]!.get(0)).toBeUndefined();
    });

    it('a field that is a number in one batch and a string in another becomes a json column', async () => {
        const batches: Batch[] = [{ seq: 1, events: [{ status: 200 }, {}] }, { seq: 2, events: [{ status: "404" }] }];
        await expectBlockHolds(batches, { compress: false });
        expect(decodeBlock((await encodeBlock(inputs(batches, true), { compress: false }))!.bytes).columns[0]!.kind).toBe('json');
    });

    it('rows and whole batches left out by retention', async () => {
        const keep = (seq: number, t: bigint) => seq !== 2 && t % 2n === 0n;
        await expectBlockHolds([{ seq: 1, events: [{ a: 'x' }, { b: 1 }, { a: 'y', b: 2 }] }, { seq: 2, events: [{ c: true }] }, { seq: 3, events: [{ b: 'z' }, { a: 'x' }] }], { compress: false, keep });
        expect(await encodeBlock(inputs([{ seq: 2, events: [{ c: true }] }], true), { compress: false, keep })).toBeUndefined();
    });

    it('flat events among columnar batches (a batch prepared without a worker)', async () => {
        const batches: Batch[] = [{ seq: 1, events: [{ a: 'x', n: 1 }] }, { seq: 2, events: [{ n: 2.5, b: true }] }, { seq: 3, events: [{ a: 'y' }] }];
        const mixed = inputs(batches, true).map((b, i) => (i === 1 ? inputs(batches, false)[1]! : b));
        const block = await encodeBlock(mixed, { compress: false });
        expect(content(block!.bytes)).toEqual(expected(batches, undefined));
    });

    it('codes and row indexes stored in 1, 2 and 4 bytes; large dictionaries of repeating and of random text, compressed', async () => {
        // 70,000 rows in one batch: row indexes need 4 bytes; `few` needs 1, `some` 2, `many` 4.
        const random = (i: number) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0');
        const events = Array.from({ length: 70_000 }, (_, i) => ({ few: `f${i % 200}`, some: `s${i % 60_000}`, many: `m${i}`, url: `/api/v1/users/${i % 5000}/orders`, hex: random(i) }));
        const batches: Batch[] = [{ seq: 1, events: events.slice(0, 300) }, { seq: 2, events }];
        const block = await encodeBlock(inputs(batches, true), { compress: true });
        const { header } = readBlockHeader(block!.bytes);
        // Absent, or 0 in a framed section: as the format's table says (4 bytes).
        const width = (name: string) => header.columns.find(c => c.name === name)!.data[3] || 4;
        expect([width('few'), width('some'), width('many'), header.batch[3] || 4, header.row[3] || 4]).toEqual([1, 2, 4, 1, 4]);
        await expectBlockHolds(batches, { compress: true });
    });

    it('a block written before narrowing (every u32 section 4 bytes wide, no width) reads the same', async () => {
        const events = Array.from({ length: 300 }, (_, i) => ({ few: `f${i % 7}`, many: `m${i}`, n: i }));
        const batches: Batch[] = [{ seq: 1, events }, { seq: 2, events: events.slice(0, 20) }];
        const now = (await encodeBlock(inputs(batches, true), { compress: false }))!.bytes;
        expect([readBlockHeader(now).header.row[3], readBlockHeader(widened(now)).header.row[3]]).toEqual([2, undefined]);
        expect(content(widened(now))).toEqual(content(now));
        expect(content(now)).toEqual(expected(batches, undefined));
    });

    it('a long encode yields to the event loop every yieldRows rows within a column, at batch boundaries', async () => {
        const batches: Batch[] = Array.from({ length: 10 }, (_, b) => ({ seq: b + 1, events: Array.from({ length: 50 }, (_, i) => ({ s: `v${i % 4}`, n: i, j: i % 2 ? [i] : 'x' })) }));
        let yields = 0;
        const block = await encodeBlock(inputs(batches, true), { compress: false, yieldRows: 100, yieldEvery: async () => void yields++ });
        // 3 columns of 500 rows, a yield after every 100: 15 (one per column before yields came between batches).
        expect(yields).toBe(15);
        expect(content(block!.bytes)).toEqual(expected(batches, undefined));
    });

    it('a block of another format version is refused, not misread (whole and header only)', async () => {
        const bytes = (await encodeBlock(inputs([{ seq: 1, events: [{ a: 'x' }] }], true), { compress: false }))!.bytes;
        const { header } = readBlockHeader(bytes);
        const other = rewritten(bytes, { ...header, v: 4 as 3 });
        expect(() => readBlockHeader(other)).toThrow(/unsupported block version 4/);
        const file = path.join(mkdtempSync(path.join(tmpdir(), 'apl-block-')), '00000001.blk');
        writeFileSync(file, other);
        await expect(readBlockHeaderOnly(file)).rejects.toThrow(/unsupported block version 4/);
        rmSync(path.dirname(file), { recursive: true });
    });

    it('a header read alone: small and past the first read (a block of 600 columns), and a file that ends inside its header', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'apl-block-'));
        const file = path.join(dir, '00000001.blk');
        for (const columns of [3, 600]) {
            const event = Object.fromEntries(Array.from({ length: columns }, (_, c) => [`a_rather_long_field_name_${c}`, c]));
            const bytes = (await encodeBlock(inputs([{ seq: 1, events: [event, event] }], true), { compress: false }))!.bytes;
            writeFileSync(file, bytes);
            const { checked, ...alone } = await readBlockHeaderOnly(file);
            expect(checked).toBe(true);
            expect(alone).toEqual(readBlockHeader(bytes).header);
            expect(alone.columns).toHaveLength(columns);
            const hlen = bytes.readUInt32LE(8);
            if (columns === 600) expect(hlen).toBeGreaterThan(16 * 1024);
            writeFileSync(file, bytes.subarray(0, 12 + hlen - 1));
            await expect(readBlockHeaderOnly(file)).rejects.toThrow(/the file ends inside its header/);
        }
        rmSync(dir, { recursive: true });
    });

    // The header decides, alone, which blocks of a dataset kept on disk a query skips (issue 26).
    it("a flipped bit in a header's column max fails the header's own checksum (whole and header only); a version 1 header says it is unchecked", async () => {
        const bytes = (await encodeBlock(inputs([{ seq: 1, events: Array.from({ length: 20 }, (_, i) => ({ b: 30 + (i % 10) })) }], true), { compress: false }))!.bytes;
        const dir = mkdtempSync(path.join(tmpdir(), 'apl-block-'));
        const file = path.join(dir, '00000001.blk');
        writeFileSync(file, bytes);
        expect(await readBlockHeaderOnly(file)).toMatchObject({ v: 3, checked: true, columns: [{ name: 'b', min: 30, max: 39 }] });
        expect(readBlockHeader(bytes).header).not.toHaveProperty('crc32');
        const flipped = Buffer.from(bytes);
        const at = flipped.indexOf('"max":39');
        flipped[at + '"max":'.length] ^= 0x02; // 39 → 19
        // Checksum the whole block again: only the header's own checksum can tell.
        const body = flipped.subarray(0, flipped.length - 4);
        flipped.writeUInt32LE(crc32(body) >>> 0, flipped.length - 4);
        expect(() => readBlockHeader(flipped)).toThrow(/block header checksum mismatch/);
        writeFileSync(file, flipped);
        await expect(readBlockHeaderOnly(file)).rejects.toThrow(/block header checksum mismatch/);
        writeFileSync(file, rewritten(bytes, { ...readBlockHeader(bytes).header, v: 1 }));
        expect(await readBlockHeaderOnly(file)).toMatchObject({ v: 1, checked: false });
        rmSync(dir, { recursive: true });
    });

    it('the cold tier trusts a version 1 header only once the whole block checks out', async () => {
        const bytes = (await encodeBlock(inputs([{ seq: 1, events: Array.from({ length: 20 }, (_, i) => ({ b: 30 + (i % 10) })) }], true), { compress: false }))!.bytes;
        const v1 = rewritten(bytes, { ...readBlockHeader(bytes).header, v: 1 });
        const datasets = mkdtempSync(path.join(tmpdir(), 'apl-cold-'));
        const blocks = path.join(datasets, 'd', 'blocks');
        mkdirSync(blocks, { recursive: true });
        const h = readBlockHeader(v1).header;
        const info = { file: '00000001.blk', rows: h.rows, minTime: h.minTime, maxTime: h.maxTime, firstSeq: 1, lastSeq: 1, bytes: v1.length };
        writeFileSync(path.join(blocks, info.file), v1);
        const headers = new BlockHeaders(datasets);
        await headers.read('d', info);
        expect(headers.get('d', info.file).columns[0]).toMatchObject({ name: 'b', max: 39 });
        const flipped = Buffer.from(v1);
        flipped[flipped.indexOf('"max":39') + '"max":'.length] ^= 0x02; // the whole block's checksum now fails
        writeFileSync(path.join(blocks, info.file), flipped);
        const fresh = new BlockHeaders(datasets);
        const err = await fresh.read('d', info).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BlockDamagedError);
        expect(err).toMatchObject({ file: info.file, why: expect.stringMatching(/checksum mismatch/) });
        rmSync(datasets, { recursive: true });
    });

    it('-0 next to an array: a json column holds 0 (found by the property below)', async () => {
        await expectBlockHolds([{ seq: 1, events: [{ a: -0 }, { a: [1, 'a'] }] }], { compress: false });
    });

    it('batches out of time order, rows sharing a time within and across batches: stored in time order, then batch and row', async () => {
        const t = (ms: number, ns = 0) => 1_700_000_000_000_000_000n + BigInt(ms) * 1_000_000n + BigInt(ns);
        const batches: Batch[] = [
            { seq: 1, events: [{ a: 'late', n: 1 }, { a: 'x', ok: true }, { n: 2.5, j: [1] }], times: [t(900), t(901), t(901)] },
            { seq: 2, events: [{ a: 'early' }, { n: 3 }, { a: 'tie', ok: false }], times: [t(5), t(901), t(5, 7)] },
            { seq: 3, events: [{ a: 'x', j: { k: 1 } }, { n: -1 }], times: [t(5), t(1)] },
        ];
        await expectBlockHolds(batches, { compress: true });
        await expectBlockHolds(batches, { compress: false, keep: (seq, time) => seq !== 2 || time > t(5) });
        const block = decodeBlock((await encodeBlock(inputs(batches, true), { compress: false }))!.bytes);
        expect(block.columns.find(c => c.name === 'a')!.get(0)).toBeUndefined();
        expect(Array.from({ length: block.rows }, (_, i) => `${block.batchSeqs[block.batchIdx[i]]}:${block.rowIdx[i]}`)).toEqual(['3:1', '2:0', '3:0', '2:2', '1:0', '1:1', '1:2', '2:1']);
    });

    it('any events at any times, with and without a retention filter (property)', async () => {
        const keep = (seq: number, t: bigint) => (BigInt(seq) + t) % 3n !== 0n;
        // Times from a few values, so that rows share them within and across batches.
        const timed = batchList.chain(list =>
            fc.tuple(...list.map(b => fc.array(fc.bigInt({ min: 0n, max: 6n }), { minLength: b.events.length, maxLength: b.events.length }))).map(times => list.map((b, i) => ({ ...b, times: times[i] }))),
        );
        await fc.assert(
            fc.asyncProperty(timed, fc.boolean(), async (batches, filter) => expectBlockHolds(batches, { compress: false, keep: filter ? keep : undefined })),
            { numRuns: 200 },
        );
    });

    it('any events, with and without a retention filter (property)', async () => {
        const keep = (seq: number, t: bigint) => (BigInt(seq) + t) % 3n !== 0n;
        await fc.assert(
            fc.asyncProperty(batchList, fc.boolean(), async (batches, filter) => expectBlockHolds(batches, { compress: false, keep: filter ? keep : undefined })),
            { numRuns: 300 },
        );
    });

    it('a block whose batches are in seq order says its rows are in order; one of batches out of seq order does not', async () => {
        const batch = (seq: number, at: number): Batch => ({ seq, events: [{ a: 1 }, { a: 2 }], times: [BigInt(at), BigInt(at)] });
        const inOrder = (await encodeBlock(inputs([batch(1, 5), batch(2, 5), batch(3, 1)], true), { compress: true }))!;
        expect(readBlockHeader(inOrder.bytes).header.ordered).toBe(true);
        expect(decodeBlock(inOrder.bytes).ordered).toBe(true);
        // Rows of one time would be in batch order, not seq order.
        const outOfOrder = (await encodeBlock(inputs([batch(2, 5), batch(1, 5)], true), { compress: true }))!;
        expect(readBlockHeader(outOfOrder.bytes).header.ordered).toBeUndefined();
        expect(decodeBlock(outOfOrder.bytes).ordered).toBe(false);
    });

    describe('rows read alone (decodeBlockRowsAt)', () => {
        // Past nine frames (an id's 2-byte codes past 64 KB: kept as they are); an id per row (its
        // dictionary in parts), few values, numbers with gaps, flags, mixed kinds.
        const n = 9 * FRAME_ROWS + 1000;
        const events = Array.from({ length: n }, (_, i): FlatFields => ({
            id: `id-${i}`,
            method: i % 3 ? 'GET' : 'POST',
            ...(i % 5 ? { ms: i * 0.25 } : {}),
            ...(i % 7 ? { ok: i % 2 === 0 } : {}),
            mixed: i % 4 ? i : `t${i}`,
        }));
        // Batches of 1,000 events, as an ingest client sends them (row indexes repeat: their section is not in frames).
        const batches: Batch[] = Array.from({ length: Math.ceil(n / 1000) }, (_, b) => ({ seq: b + 1, events: events.slice(b * 1000, (b + 1) * 1000) }));
        /** Every section's bytes read, and the block of `rows` alone. */
        const readRows = (bytes: Buffer, rows: number[], field?: (name: string) => boolean) => {
            let read = 0;
            const block = decodeBlockRowsAt((o, l) => ((read += l), bytes.subarray(o, o + l)), Uint32Array.from(rows), field)!;
            return { block, read };
        };
        const rowsOf = (b: ReturnType<typeof decodeBlock>, rows: number[]) => ({
            times: rows.map(r => b.times[r]),
            batches: rows.map(r => b.batchSeqs[b.batchIdx[r]]),
            rowIdx: rows.map(r => b.rowIdx[r]),
            columns: b.columns.map(c => [c.name, c.kind, rows.map(r => c.get(r))]),
        });
        const alone = (b: ReturnType<typeof decodeBlock>) => rowsOf(b, Array.from({ length: b.rows }, (_, k) => k));
        const picks = [[0], [FRAME_ROWS - 1, FRAME_ROWS], [n - 1], Array.from({ length: 60 }, (_, k) => k * 613 + 7), Array.from({ length: n }, (_, k) => k), []];

        for (const compress of [true, false]) {
            it(`equal the same rows of the whole block (${compress ? 'deflated, in frames' : 'not deflated'})`, async () => {
                const bytes = (await encodeBlock(inputs(batches, true), { compress }))!.bytes;
                const { header } = readBlockHeader(bytes);
                if (compress) {
                    // Sections in frames, and sections deflate would not shrink (an id's code per row), kept as they are.
                    const perRow = [header.time, ...header.columns.flatMap(c => ('present' in c ? [c.data, c.present] : c.kind === 'json' ? [] : [c.data]))];
                    expect(perRow.some(r => r[4]?.length === Math.ceil(n / FRAME_ROWS))).toBe(true);
                    expect(header.columns.find(c => c.name === 'id')!.data).toSatisfy((r: Section) => r[1] === r[2] && r[4] === undefined);
                }
                const whole = decodeBlock(bytes);
                for (const rows of picks) {
                    const { block } = readRows(bytes, rows);
                    expect(block.rows).toBe(rows.length);
                    expect(alone(block)).toEqual(rowsOf(whole, rows));
                }
            });
        }

        it('a row of a framed block reads a part of it; one of a block written before frames, each section whole', async () => {
            const bytes = (await encodeBlock(inputs(batches, true), { compress: true }))!.bytes;
            // The json column is read whole either way.
            const perRow = (name: string) => name !== 'mixed';
            const framed = readRows(bytes, [FRAME_ROWS + 5], perRow);
            const before = asVersion1(bytes);
            const old = readRows(before, [FRAME_ROWS + 5], perRow);
            expect(alone(old.block)).toEqual(alone(framed.block));
            expect(alone(framed.block)).toEqual(rowsOf(decodeBlock(bytes, perRow), [FRAME_ROWS + 5]));
            // Of ten frames a section, one read (of a section kept as it is, the row's bytes); of the
            // id dictionary's parts, one (the header and the row indexes are read whole either way).
            expect(framed.read).toBeLessThan(old.read / 3);
        });

        it('rows out of order, or past the block, are refused; a block of another size is not this one', async () => {
            const bytes = (await encodeBlock(inputs(batches, true), { compress: true }))!.bytes;
            expect(() => readRows(bytes, [5, 3])).toThrow(/not a row of the block in order/);
            expect(() => readRows(bytes, [n])).toThrow(/not a row of the block in order/);
            expect(decodeBlockRowsAt((o, l) => bytes.subarray(o, o + l), Uint32Array.of(1), undefined, n + 1)).toBeUndefined();
        });
    });
});
