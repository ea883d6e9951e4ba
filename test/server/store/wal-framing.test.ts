/**
 * WAL record framing (FORMAT.md, "Write-ahead log"): v2 records resynchronise after damage, torn
 * tails are told apart from damage in the middle, and v1 segments are still read.
 */
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FRAME_HEADER, WalWriter, frame, scanSegment } from '../../../server/store/wal.js';
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
    // The WAL acknowledges an append after one write to a segment opened with O_DSYNC (no separate
    // fdatasync): the flag is what makes it durable, so check that the open file carries it, for a
    // new segment, a rotated one and a reopened one (Linux shows open flags in /proc/self/fdinfo).
    const dsyncFlags = async (file: string): Promise<boolean[]> => {
        const out: boolean[] = [];
        for (const fd of await fsp.readdir('/proc/self/fd')) {
            const target = await fsp.readlink(`/proc/self/fd/${fd}`).catch(() => '');
            if (target !== file) continue;
            const info = await fsp.readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
            out.push((parseInt(/flags:\s+([0-7]+)/.exec(info)![1], 8) & fsConstants.O_DSYNC) !== 0);
        }
        return out;
    };

    it.runIf(process.platform === 'linux')('new, rotated and reopened segments are written with O_DSYNC', async () => {
        const dir = path.join(tmp.dir, 'dsync');
        await fsp.mkdir(dir);
        const wal = await WalWriter.open(dir, undefined, 1);
        await wal.append(frame(1, [payload(1)]), () => undefined);
        expect(await dsyncFlags(wal.activeFile)).toEqual([true]);
        await wal.rotate(2, () => undefined);
        await wal.append(frame(2, [payload(2)]), () => undefined);
        expect(await dsyncFlags(wal.activeFile)).toEqual([true]);
        const file = wal.activeFile;
        await wal.close();
        const again = await WalWriter.open(dir, { file, validBytes: (await fsp.stat(file)).size }, 3);
        expect(await dsyncFlags(file)).toEqual([true]);
        await again.close();
        expect((await scanSegment(file)).records.map((r) => r.seq)).toEqual([2]);
    });
});
