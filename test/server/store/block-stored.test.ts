/**
 * Number sections that Huffman coding hardly shrinks (random fractions, times spread over a range)
 * are kept in the block as they are: a copy instead of the coding, which costs compaction (on the
 * ingest path) about twenty times more CPU for a few per cent of size. Sections that do shrink are
 * still coded, text that LZ77 matching hardly shrinks is Huffman-coded only, and either way the
 * block reads back the same.
 */
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toColumns } from '../../../server/ingest/columnar.js';
import { BlockCorruptError, checkBlockBytes, decodeBlock, decodeBlockAt, decodeBlockRowsAt, decodeValueRows, encodeBlock, readBlockHeader, valueRowsIndexAt } from '../../../server/store/block.js';
import { keyHash64 } from '../../../language/eval/sketches.js';

/** A deterministic stream of doubles in [0, 1) with all 52 bits of mantissa in use. */
function fractions(n: number): number[] {
    let x = 0x2545f491;
    return Array.from({ length: n }, () => {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const hi = (x >>> 0) / 2 ** 32;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        return hi + (x >>> 0) / 2 ** 64;
    });
}

describe('block sections deflate does not pay for', () => {
    it('random fractions are stored, small integers and repeated strings are coded; both read back', async () => {
        const n = 20_000;
        const ms = fractions(n);
        const events = ms.map((v, i) => ({ req_duration_ms: v, status: 200 + (i % 5), method: i % 3 ? 'GET' : 'POST' }));
        const times = BigInt64Array.from(events, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n);
        const block = (await encodeBlock([{ seq: 1, sysTime: 1n, times, columns: toColumns(events) }], { compress: true }))!;
        const { header } = readBlockHeader(block.bytes);
        const section = (name: string) => header.columns.find(c => c.name === name)!.data;
        const [, storedMs, rawMs] = section('req_duration_ms');
        expect(rawMs).toBe(n * 8);
        // Stored blocks: the bytes themselves plus a few bytes of block headers.
        expect(storedMs).toBeGreaterThanOrEqual(rawMs);
        expect(storedMs).toBeLessThan(rawMs + 64);
        const [, storedStatus, rawStatus] = section('status');
        expect(storedStatus).toBeLessThan(rawStatus / 4);
        const [, storedCodes, rawCodes] = section('method');
        expect(storedCodes).toBeLessThan(rawCodes / 4);
        const decoded = decodeBlock(block.bytes);
        const col = (name: string) => decoded.columns.find(c => c.name === name)!;
        expect(Array.from({ length: n }, (_, i) => col('req_duration_ms').get(i))).toEqual(ms);
        expect(Array.from({ length: n }, (_, i) => col('status').get(i))).toEqual(events.map(e => e.status));
        expect(Array.from({ length: n }, (_, i) => col('method').get(i))).toEqual(events.map(e => e.method));
        expect([...decoded.times]).toEqual([...times]);
    });
});

describe('a block read by its sections', () => {
    /** Events about 26 ms apart with sub-second jitter, as a busy service's log: its times' low bytes are noise. */
    async function sample(n: number) {
        let x = 0x9e3779b9;
        const next = () => {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            return (x >>> 0) / 2 ** 32;
        };
        const times = BigInt64Array.from({ length: n }, (_, i) => 1_730_000_000_000_000_000n + BigInt(i) * 26_000_000n + BigInt(Math.floor(next() * 900_000_000)));
        const events = Array.from({ length: n }, (_, i) => ({ status: ['200', '404', '500'][i % 3], ms: next() * 100, ok: i % 4 === 0, ...(i % 9 === 0 ? {} : { n: i }) }));
        const block = (await encodeBlock([{ seq: 7, sysTime: 99n, times, columns: toColumns(events) }], { compress: true }))!;
        return { times, block: block.bytes };
    }

    it('times of events milliseconds apart are stored (Huffman coding saves less than a quarter), and read back', async () => {
        const { times, block } = await sample(20_000);
        const { header } = readBlockHeader(block);
        const [, stored, raw] = header.time;
        expect(raw).toBe(20_000 * 8);
        expect(stored).toBeGreaterThanOrEqual(raw);
        // Stored in time order (the jitter puts neighbours out of it), each row with its row index.
        const order = [...times.keys()].sort((a, b) => (times[a] < times[b] ? -1 : times[a] > times[b] ? 1 : a - b));
        const decoded = decodeBlock(block);
        expect([...decoded.times]).toEqual(order.map(i => times[i]));
        expect([...decoded.rowIdx]).toEqual(order);
    });

    it('decodeBlockAt reads the header and the sections asked for, and decodes as decodeBlock does', async () => {
        const { block } = await sample(5_000);
        const read: [number, number][] = [];
        const at = (offset: number, length: number) => {
            read.push([offset, length]);
            return Buffer.from(block.subarray(offset, offset + length));
        };
        const whole = decodeBlock(block);
        const some = decodeBlockAt(at, name => name === 'status');
        expect(some.columns.map(c => c.name)).toEqual(['status']);
        const bytesRead = read.reduce((n, [, l]) => n + l, 0);
        // The prefix, the header, the status column, and the times and row ids (decoded only when read).
        expect(bytesRead).toBeLessThan(block.length / 2);
        expect(Array.from({ length: 5_000 }, (_, i) => some.columns[0].get(i))).toEqual(Array.from({ length: 5_000 }, (_, i) => whole.columns.find(c => c.name === 'status')!.get(i)));
        const all = decodeBlockAt(at);
        expect(all.columns.map(c => c.name)).toEqual(whole.columns.map(c => c.name));
        for (const c of whole.columns) expect(Array.from({ length: 5_000 }, (_, i) => all.columns.find(d => d.name === c.name)!.get(i)), c.name).toEqual(Array.from({ length: 5_000 }, (_, i) => c.get(i)));
        expect([...all.times]).toEqual([...whole.times]);
        expect([...all.batchIdx]).toEqual([...whole.batchIdx]);
        expect([...all.rowIdx]).toEqual([...whole.rowIdx]);
        expect([all.batchSeqs, all.batchSysTimes]).toEqual([whole.batchSeqs, whole.batchSysTimes]);
    });

    it("a dictionary of 1,024 values or more stores each value's key hash; decodeBlockAt reads its strings only when asked", async () => {
        const n = 3000;
        const times = BigInt64Array.from({ length: n }, (_, i) => 1_730_000_000_000_000_000n + BigInt(i) * 1_000_000n);
        const events = Array.from({ length: n }, (_, i) => ({ id: `user-${i % 1500}`, few: `f${i % 1023}` }));
        const block = (await encodeBlock([{ seq: 1, sysTime: 1n, times, columns: toColumns(events) }], { compress: true }))!.bytes;
        const { header, dataStart } = readBlockHeader(block);
        const meta = (name: string) => header.columns.find(c => c.name === name)! as { dict: number[]; hashes?: number[] };
        expect(meta('few').hashes).toBeUndefined();
        const read: number[] = [];
        const at = (offset: number, length: number) => {
            read.push(offset);
            return Buffer.from(block.subarray(offset, offset + length));
        };
        const dec = decodeBlockAt(at, name => name === 'id', at);
        const id = dec.columns[0] as { dict: string[]; keyHashes?: Uint32Array; codes: Uint32Array };
        expect(read).not.toContain(dataStart + meta('id').dict[0]);
        const want = new Uint32Array(2 * 1500);
        for (let k = 0; k < 1500; k++) keyHash64(`user-${k}`, true, want, 2 * k);
        expect([...id.keyHashes!]).toEqual([...want]);
        // Asked for, the strings come from the file then, as decodeBlock reads them.
        expect(id.dict).toEqual(Array.from({ length: 1500 }, (_, k) => `user-${k}`));
        expect(read).toContain(dataStart + meta('id').dict[0]);
        expect(Array.from({ length: n }, (_, i) => dec.columns[0].get(i))).toEqual(events.map(e => e.id));
    });

    it('a dictionary of 1,024 values or more is stored in parts of 1,024: one value reads its part only', async () => {
        const n = 3000;
        const times = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
        const events = Array.from({ length: n }, (_, i) => ({ id: `user-${(i * 7) % 2500}` }));
        const block = (await encodeBlock([{ seq: 1, sysTime: 1n, times, columns: toColumns(events) }], { compress: true }))!.bytes;
        const { header, dataStart } = readBlockHeader(block);
        const meta = header.columns[0] as { dict: number[]; dictRest?: number[][]; dictPart?: number };
        expect(meta.dictPart).toBe(1024);
        expect(meta.dictRest).toHaveLength(2);
        const read: number[] = [];
        const at = (offset: number, length: number) => {
            read.push(offset);
            return Buffer.from(block.subarray(offset, offset + length));
        };
        const id = decodeBlockAt(at, undefined, at).columns[0] as { dict: string[]; codes: Uint32Array; valueAt: (k: number) => string; get(i: number): unknown };
        const parts = [meta.dict, ...meta.dictRest!].map(s => dataStart + s[0]);
        // The value of code 2,000 (the second part) reads that part alone.
        const value = id.valueAt(2000);
        expect(parts.filter(p => read.includes(p))).toEqual([parts[1]]);
        expect(Array.from({ length: n }, (_, i) => id.get(i))).toEqual(events.map(e => e.id));
        expect(id.dict[1999]).toBe(value);
        expect(id.dict).toHaveLength(2500);
        // Read whole (decodeBlock), the parts make one dictionary.
        expect(decodeBlock(block).columns[0].get(17)).toBe(events[17].id);
        // A few rows (decodeBlockRowsAt): the parts of their values only, each read once.
        read.length = 0;
        const rows = Uint32Array.of(2, 1700, 2900);
        const few = decodeBlockRowsAt(at, rows)!.columns[0];
        expect([...rows].map((_, k) => few.get(k))).toEqual([...rows].map(r => events[r].id));
        const codes = [...rows].map(r => id.codes[r]);
        const wanted = new Set(codes.map(k => Math.floor((k - 1) / 1024)));
        expect(read.filter(p => parts.includes(p))).toEqual(parts.filter((_, j) => wanted.has(j)));
    });

    it('a dictionary of ids (LZ77 finds little in them) is Huffman-coded in every part; one of paths keeps LZ77', async () => {
        const n = 3000;
        const hex = fractions(4 * n).map(f => Math.floor(f * 2 ** 32).toString(16).padStart(8, '0'));
        const events = Array.from({ length: n }, (_, i) => ({ id: `${hex[4 * i]}-${hex[4 * i + 1].slice(0, 4)}-${hex[4 * i + 2].slice(4)}-${hex[4 * i + 3]}`, path: `/api/v1/products/${i % 1500}/details` }));
        const times = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
        const block = (await encodeBlock([{ seq: 1, sysTime: 1n, times, columns: toColumns(events) }], { compress: true }))!.bytes;
        const { header, dataStart } = readBlockHeader(block);
        const decoded = decodeBlock(block);
        for (const [name, strategy] of [['id', zlibConstants.Z_HUFFMAN_ONLY], ['path', zlibConstants.Z_DEFAULT_STRATEGY]] as const) {
            const meta = header.columns.find(c => c.name === name) as { dict: number[]; dictRest?: number[][]; dictPart?: number };
            const dict = (decoded.columns.find(c => c.name === name) as { dict: string[] }).dict;
            const parts = [meta.dict, ...(meta.dictRest ?? [])];
            expect(parts.length).toBeGreaterThan(1);
            parts.forEach((s, j) => {
                const text = Buffer.from(JSON.stringify(dict.slice(j * meta.dictPart!, (j + 1) * meta.dictPart!)));
                expect(block.subarray(dataStart + s[0], dataStart + s[0] + s[1]).equals(deflateRawSync(text, { level: 1, strategy })), `${name} part ${j}`).toBe(true);
            });
        }
        expect(Array.from({ length: n }, (_, i) => decoded.columns.find(c => c.name === 'id')!.get(i))).toEqual(events.map(e => e.id));
    });

    it('a str column of 65 to 4,096 values stores each value\'s rows (section rows), read with its dictionary and without its codes', async () => {
        const n = 20_000;
        const times = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
        // few: 64 values (header counts); mid: 300 (rows), some rows without it; many: 5,000 (neither).
        const events = Array.from({ length: n }, (_, i) => ({ few: `f${i % 64}`, ...(i % 7 === 0 ? {} : { mid: `/api/v${i % 300}` }), many: `m${i % 5000}`, wide: `w${i % 2000}` }));
        const block = (await encodeBlock([{ seq: 1, sysTime: 1n, times, columns: toColumns(events) }], { compress: true }))!.bytes;
        const { header, dataStart } = readBlockHeader(block);
        const meta = (name: string) => header.columns.find(c => c.name === name)! as { dict: number[]; data: number[]; rows?: number[]; counts?: unknown };
        expect(meta('few').counts).toBeDefined();
        expect(meta('few').rows).toBeUndefined();
        expect(meta('many').rows).toBeUndefined();
        expect(meta('mid').rows).toBeDefined();
        const read: number[] = [];
        const at = (offset: number, length: number) => {
            read.push(offset);
            return Buffer.from(block.subarray(offset, offset + length));
        };
        const index = valueRowsIndexAt(at);
        expect([...index.fields.keys()].sort()).toEqual(['mid', 'wide']);
        // 2,000 values: a dictionary in parts, read whole here.
        const wide = decodeValueRows(at, index, 'wide')!;
        expect(wide.values).toEqual(Array.from({ length: 2000 }, (_, k) => `w${k}`));
        expect([...wide.rows]).toEqual(new Array(2000).fill(n / 2000));
        expect(decodeValueRows(at, index, 'few')).toBeUndefined();
        const got = decodeValueRows(at, index, 'mid')!;
        const want = new Map<string, number>();
        for (const e of events) if (e.mid !== undefined) want.set(e.mid, (want.get(e.mid) ?? 0) + 1);
        expect(new Map(got.values.map((v, k) => [v, got.rows[k]]))).toEqual(want);
        expect(read).toContain(dataStart + meta('mid').dict[0]);
        expect(read).not.toContain(dataStart + meta('mid').data[0]);
    });

    it('checkBlockBytes checks a block read in short pieces, and fails one with a changed byte or cut short', async () => {
        const { block } = await sample(5_000);
        // A reader that returns at most 777 bytes a call, as a read may.
        const of = (bytes: Buffer) => (into: Buffer, offset: number) => bytes.copy(into, 0, offset, Math.min(bytes.length, offset + Math.min(into.length, 777)));
        expect(() => checkBlockBytes(of(block), block.length)).not.toThrow();
        const changed = Buffer.from(block);
        changed[Math.floor(changed.length / 2)] ^= 0x01;
        expect(() => checkBlockBytes(of(changed), changed.length)).toThrow(/checksum mismatch/);
        expect(() => checkBlockBytes(of(block.subarray(0, block.length - 100)), block.length)).toThrow(BlockCorruptError);
        expect(() => checkBlockBytes(of(block.subarray(0, 10)), 10)).toThrow(/too short/);
    });

    it('decodeBlockAt of a file that is not a block, or whose header is damaged, is BlockCorruptError', async () => {
        const { block } = await sample(100);
        const of = (bytes: Buffer) => (offset: number, length: number) => bytes.subarray(offset, offset + length);
        const notBlock = Buffer.from(block);
        notBlock.write('XPLBLK01', 0, 'latin1');
        expect(() => decodeBlockAt(of(notBlock))).toThrow(BlockCorruptError);
        const damaged = Buffer.from(block);
        // A digit of the header's row count changed: its own checksum no longer matches.
        const h = damaged.indexOf('"rows":');
        damaged[h + 7] = damaged[h + 7] === 0x31 ? 0x32 : 0x31;
        expect(() => decodeBlockAt(of(damaged))).toThrow(/header checksum/);
    });
});

describe('block time range', () => {
    it('the least and greatest time of batches kept whole: negative times, and times that differ only in the low or only in the high word', async () => {
        const lists: bigint[][] = [
            [5n, -5n, 2n ** 40n, -(2n ** 40n), 2n ** 32n - 1n, 2n ** 32n],
            [-(2n ** 40n) - 1n, 2n ** 40n + 1n, 0n],
            [2n ** 32n + 7n, 2n ** 32n + 3n, -1n],
            [2n ** 62n, -(2n ** 62n)],
        ];
        for (let n = 1; n <= lists.length; n++) {
            const batches = lists.slice(0, n).map((times, i) => ({ seq: i + 1, sysTime: 1n, times: BigInt64Array.from(times), columns: toColumns(times.map(() => ({ a: 1 }))) }));
            const all = lists.slice(0, n).flat();
            const { header } = readBlockHeader((await encodeBlock(batches, { compress: false }))!.bytes);
            const min = all.reduce((a, b) => (b < a ? b : a));
            const max = all.reduce((a, b) => (b > a ? b : a));
            expect([header.minTime, header.maxTime]).toEqual([min.toString(), max.toString()]);
        }
    });
});
