/**
 * WAL record framing (FORMAT.md, "Write-ahead log"): v2 records resynchronise after damage, torn
 * tails are told apart from damage in the middle, and v1 segments are still read.
 */
import { promises as fsp, statSync } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeFaults } from '../../../server/store/fsutil.js';
import { FRAME_HEADER, WalWriter, crc32Combine, frame, scanSegment } from '../../../server/store/wal.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('apl-wal-');
afterAll(() => tmp.cleanup());

let n = 0;
async function segment(bytes: Buffer): Promise<string> {
    const file = path.join(tmp.dir, `${(++n).toString(16).padStart(16, '0')}.wal`);
    await fsp.writeFile(file, bytes);
    return file;
}

const payload = (i: number): Buffer => Buffer.from(`payload-${i}-${'x'.repeat(20 + i)}`);
const record = (seq: number): Buffer => Buffer.concat(frame(seq, [payload(seq)]));
/** Three records seq 1..3 and the offsets where each starts. */
function three(): { bytes: Buffer; starts: number[] } {
    const recs = [record(1), record(2), record(3)];
    const starts = [0, recs[0].length, recs[0].length + recs[1].length];
    return { bytes: Buffer.concat(recs), starts };
}

describe('v2 framing', () => {
    it('crc32Combine(crc32(A), crc32(B), |B|) is crc32(A ‖ B), for empty, short and long parts', () => {
        let seed = 7;
        const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
        for (const [la, lb] of [[0, 0], [0, 9], [9, 0], [1, 1], [24, 3], [5, 540_000], [100, 1 << 20], [3, 2 ** 16 + 1]]) {
            const a = bytes(la);
            const b = bytes(lb);
            expect(crc32Combine(crc32(a), crc32(b), lb)).toBe(crc32(Buffer.concat([a, b])));
        }
    });

    it('a record framed with its last part\'s crc32 given is the record framed without it, and reads back', async () => {
        const parts = [Buffer.from([3, 0, 0, 0]), Buffer.from('{"v":2}'), Buffer.from('{"a":1}\n{"a":2}'.repeat(500))];
        const given = Buffer.concat(frame(9, parts, crc32(parts[2])));
        expect(given.equals(Buffer.concat(frame(9, parts)))).toBe(true);
        const scan = await scanSegment(await segment(given));
        expect(scan.bad).toEqual([]);
        expect(scan.records.map((r) => r.payload.equals(Buffer.concat(parts)))).toEqual([true]);
    });

    it('reads back every record with its seq', async () => {
        const scan = await scanSegment(await segment(three().bytes));
        expect(scan.format).toBe(2);
        expect(scan.records.map((r) => [r.seq, r.payload.toString()])).toEqual([1, 2, 3].map((i) => [i, payload(i).toString()]));
        expect(scan.bad).toEqual([]);
    });

    it('a flipped payload byte in the middle record loses that record only (seq known)', async () => {
        const { bytes, starts } = three();
        bytes[starts[1] + FRAME_HEADER + 3] ^= 0x40;
        const scan = await scanSegment(await segment(bytes));
        expect(scan.records.map((r) => r.seq)).toEqual([1, 3]);
        expect(scan.bad).toEqual([{ kind: 'record', offset: starts[1], length: starts[2] - starts[1], seq: 2 }]);
    });

    it.each([0, 4, 8, 16, 20])('a flipped byte at frame header offset %i of the middle record: resynchronises at the next record', async (at) => {
        const { bytes, starts } = three();
        bytes[starts[1] + at] ^= 0x01;
        const scan = await scanSegment(await segment(bytes));
        expect(scan.records.map((r) => r.seq)).toEqual([1, 3]);
        expect(scan.bad).toEqual([{ kind: 'garbage', offset: starts[1], length: starts[2] - starts[1] }]);
    });

    it('a length field damaged to point past the end is caught by the header checksum', async () => {
        const { bytes, starts } = three();
        bytes.writeUInt32LE(0x7fffffff, starts[1] + 4);
        const scan = await scanSegment(await segment(bytes));
        expect(scan.records.map((r) => r.seq)).toEqual([1, 3]);
        expect(scan.bad.map((b) => b.kind)).toEqual(['garbage']);
    });

    it('a half-written last record is a torn tail, not damage', async () => {
        const { bytes, starts } = three();
        for (const cut of [starts[2] + 5, starts[2] + FRAME_HEADER, starts[2] + FRAME_HEADER + 4]) {
            const scan = await scanSegment(await segment(bytes.subarray(0, cut)));
            expect(scan.records.map((r) => r.seq)).toEqual([1, 2]);
            expect(scan.bad).toEqual([expect.objectContaining({ kind: 'torn', offset: starts[2], length: cut - starts[2] })]);
            expect(scan.validBytes).toBe(starts[2]);
        }
    });

    it('zeros after the last record (a file extended but never written) are a torn tail', async () => {
        const { bytes } = three();
        const scan = await scanSegment(await segment(Buffer.concat([bytes, Buffer.alloc(100)])));
        expect(scan.records.length).toBe(3);
        expect(scan.bad).toEqual([{ kind: 'torn', offset: bytes.length, length: 100 }]);
    });

    it('damaged bytes at the end that are not an interrupted append are garbage', async () => {
        const { bytes, starts } = three();
        bytes[starts[2] + 2] ^= 0xff; // the last record's magic
        const scan = await scanSegment(await segment(bytes));
        expect(scan.records.map((r) => r.seq)).toEqual([1, 2]);
        expect(scan.bad).toEqual([{ kind: 'garbage', offset: starts[2], length: bytes.length - starts[2] }]);
    });
});

describe('v1 segments (written before the v2 framing) are still read', () => {
    const v1 = (p: Buffer): Buffer => {
        const h = Buffer.alloc(8);
        h.writeUInt32LE(p.length, 0);
        h.writeUInt32LE(crc32(p) >>> 0, 4);
        return Buffer.concat([h, p]);
    };

    it('intact v1 records', async () => {
        const scan = await scanSegment(await segment(Buffer.concat([v1(payload(1)), v1(payload(2))])));
        expect(scan.format).toBe(1);
        expect(scan.records.map((r) => [r.seq, r.payload.toString()])).toEqual([
            [undefined, payload(1).toString()],
            [undefined, payload(2).toString()],
        ]);
    });

    it('a v1 segment stops at the first damaged record; the rest is reported, not dropped silently', async () => {
        const a = v1(payload(1));
        const b = v1(payload(2));
        b[10] ^= 1;
        const scan = await scanSegment(await segment(Buffer.concat([a, b, v1(payload(3))])));
        expect(scan.records.length).toBe(1);
        expect(scan.bad).toEqual([{ kind: 'garbage', offset: a.length, length: scan.totalBytes - a.length }]);
    });

    it('a v1 torn tail', async () => {
        const a = v1(payload(1));
        const b = v1(payload(2));
        const scan = await scanSegment(await segment(Buffer.concat([a, b.subarray(0, 12)])));
        expect(scan.records.length).toBe(1);
        expect(scan.bad).toEqual([{ kind: 'torn', offset: a.length, length: 12 }]);
    });
});

describe('durable appends', () => {
    afterEach(() => {
        writeFaults.sync = undefined;
    });

    /** A sync held by the test seam until `release` (or failed by `fail`). */
    interface HeldSync {
        /** The segment's size when the sync was asked for: what it covers. */
        size: number;
        release(): void;
        fail(err: Error): void;
    }

    /** Holds every fdatasync of the WAL; `next()` resolves with each as it is asked for. */
    function holdSyncs(): { next(): Promise<HeldSync> } {
        const asked: HeldSync[] = [];
        const waiting: ((h: HeldSync) => void)[] = [];
        writeFaults.sync = (file) =>
            new Promise<void>((resolve, reject) => {
                const h: HeldSync = { size: statSync(file).size, release: resolve, fail: reject };
                const w = waiting.shift();
                if (w) w(h);
                else asked.push(h);
            });
        return { next: () => new Promise<HeldSync>((r) => (asked.length ? r(asked.shift()!) : waiting.push(r))) };
    }

    async function newWal(name: string): Promise<WalWriter> {
        const dir = path.join(tmp.dir, name);
        await fsp.mkdir(dir);
        return WalWriter.open(dir, undefined, 1);
    }

    it('a group appended while the sync of the one before runs is written and synced at once; each resolves only after a sync that began after its write, in order', async () => {
        const syncs = holdSyncs();
        const wal = await newWal('overlap');
        const order: string[] = [];
        const a = wal.append(frame(1, [payload(1)]), () => order.push('durable 1')).then(() => order.push('resolved 1'));
        const first = await syncs.next();
        const sizeA = record(1).length;
        expect(first.size).toBe(sizeA);
        // An append that arrives later (another request, another turn of the event loop).
        await new Promise((r) => setTimeout(r, 20));
        const b = wal.append(frame(2, [payload(2)]), () => order.push('durable 2')).then(() => order.push('resolved 2'));
        // The second group does not wait for the first sync: it is written and its own sync asked for.
        const second = await syncs.next();
        expect(second.size).toBe(sizeA + record(2).length);
        expect(order).toEqual([]);
        // The second sync began after both writes: it makes both durable, the first one first.
        second.release();
        await Promise.all([a, b]);
        expect(order).toEqual(['durable 1', 'durable 2', 'resolved 1', 'resolved 2']);
        first.release();
        await wal.close();
        expect((await scanSegment(wal.activeFile)).records.map((r) => r.seq)).toEqual([1, 2]);
    });

    it('nothing resolves before its sync returns: with the first sync held, the first group waits', async () => {
        const syncs = holdSyncs();
        const wal = await newWal('held');
        let done = false;
        const a = wal.append(frame(1, [payload(1)]), () => undefined).then(() => (done = true));
        const first = await syncs.next();
        await new Promise((r) => setImmediate(r));
        expect(done).toBe(false);
        first.release();
        await a;
        expect(done).toBe(true);
        await wal.close();
    });

    it('a failed fdatasync rejects every append not yet acknowledged and cuts the segment back; appends after it are written after the last acknowledged record', async () => {
        const syncs = holdSyncs();
        const wal = await newWal('syncfail');
        const a = wal.append(frame(1, [payload(1)]), () => undefined);
        (await syncs.next()).release();
        await a;
        const b = wal.append(frame(2, [payload(2)]), () => undefined);
        const syncB = await syncs.next();
        const c = wal.append(frame(3, [payload(3)]), () => undefined);
        const syncC = await syncs.next();
        const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        syncB.fail(eio);
        // C's sync returns fine, but after a failed one nothing not acknowledged is trusted.
        syncC.release();
        await expect(b).rejects.toMatchObject({ code: 'EIO' });
        await expect(c).rejects.toMatchObject({ code: 'EIO' });
        expect(statSync(wal.activeFile).size).toBe(record(1).length);
        const d = wal.append(frame(4, [payload(4)]), () => undefined);
        (await syncs.next()).release();
        await d;
        await wal.close();
        const scan = await scanSegment(wal.activeFile);
        expect(scan.records.map((r) => r.seq)).toEqual([1, 4]);
        expect(scan.bad).toEqual([]);
    });
});
