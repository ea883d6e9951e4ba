/**
 * Per-dataset write-ahead log: a directory of segment files `<first-seq as 16 hex>.wal`. Each
 * record is framed `[payload length u32 LE][crc32(payload) u32 LE][payload]`.
 *
 * Appends are group-committed: every append queued while a write+fdatasync is in flight joins the
 * next single writev+fdatasync. An append's promise resolves only after its bytes are durable.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDir } from './fsutil.js';

export const FRAME_HEADER = 8;
/** Refuse absurd lengths when reading (a torn length field can be anything). */
const MAX_RECORD = 1024 * 1024 * 1024;

export function segmentName(firstSeq: number): string {
    return `${firstSeq.toString(16).padStart(16, '0')}.wal`;
}

export interface WalRecord {
    payload: Buffer;
}

export interface SegmentScan {
    file: string;
    records: Buffer[];
    /** Bytes of valid records; anything after is torn/corrupt. */
    validBytes: number;
    totalBytes: number;
}

/** Reads a segment, stopping at the first record with a bad length or CRC. */
export async function scanSegment(file: string): Promise<SegmentScan> {
    const data = await fsp.readFile(file);
    const records: Buffer[] = [];
    let p = 0;
    while (p + FRAME_HEADER <= data.length) {
        const len = data.readUInt32LE(p);
        const crc = data.readUInt32LE(p + 4);
        if (len === 0 || len > MAX_RECORD || p + FRAME_HEADER + len > data.length) break;
        const payload = data.subarray(p + FRAME_HEADER, p + FRAME_HEADER + len);
        if (crc32(payload) >>> 0 !== crc) break;
        records.push(payload);
        p += FRAME_HEADER + len;
    }
    return { file, records, validBytes: p, totalBytes: data.length };
}

/** Frames a payload given as parts (no copy of the parts). */
export function frame(parts: Buffer[]): Buffer[] {
    let len = 0;
    let crc = 0;
    for (const part of parts) {
        len += part.length;
        crc = crc32(part, crc);
    }
    const head = Buffer.allocUnsafe(FRAME_HEADER);
    head.writeUInt32LE(len, 0);
    head.writeUInt32LE(crc >>> 0, 4);
    return [head, ...parts];
}

interface Pending {
    bufs: Buffer[];
    bytes: number;
    onDurable: () => void;
    resolve: () => void;
    reject: (err: unknown) => void;
}

export class WalWriter {
    private queue: Pending[] = [];
    private flushing: Promise<void> | null = null;
    private closed = false;

    private constructor(
        readonly dir: string,
        private fh: FileHandle,
        private file: string,
        private size: number,
    ) {}

    /** Opens (or creates) the active segment. `existing` is a recovered segment to keep appending to. */
    static async open(dir: string, existing: { file: string; validBytes: number } | undefined, nextSeq: number): Promise<WalWriter> {
        if (existing) {
            const fh = await fsp.open(existing.file, 'r+');
            const st = await fh.stat();
            if (st.size !== existing.validBytes) {
                await fh.truncate(existing.validBytes);
                await fh.sync();
            }
            return new WalWriter(dir, fh, existing.file, existing.validBytes);
        }
        const file = path.join(dir, segmentName(nextSeq));
        const fh = await fsp.open(file, 'w');
        await fh.sync();
        await fsyncDir(dir);
        return new WalWriter(dir, fh, file, 0);
    }

    get activeFile(): string {
        return this.file;
    }

    get bytes(): number {
        return this.size;
    }

    /**
     * Queues a framed record. `onDurable` runs (synchronously, in queue order) right after the group's
     * fdatasync and before any promise of the group resolves.
     */
    append(bufs: Buffer[], onDurable: () => void): Promise<void> {
        if (this.closed) return Promise.reject(new Error('write-ahead log is closed'));
        let bytes = 0;
        for (const b of bufs) bytes += b.length;
        return new Promise<void>((resolve, reject) => {
            this.queue.push({ bufs, bytes, onDurable, resolve, reject });
            if (!this.flushing) this.flushing = this.flushLoop();
        });
    }

    private async flushLoop(): Promise<void> {
        // Let appends issued in the same tick join the first group.
        await new Promise<void>((r) => setImmediate(r));
        while (this.queue.length) {
            const group = this.queue;
            this.queue = [];
            const bufs: Buffer[] = [];
            let total = 0;
            for (const g of group) {
                for (const b of g.bufs) bufs.push(b);
                total += g.bytes;
            }
            const start = this.size;
            try {
                await writeAllAt(this.fh, bufs, total, start);
                await this.fh.datasync();
                this.size = start + total;
            } catch (err) {
                // Roll the file back so that a later append does not follow garbage.
                await this.fh.truncate(start).catch(() => undefined);
                for (const g of group) g.reject(err);
                continue;
            }
            for (const g of group) {
                try {
                    g.onDurable();
                } catch (err) {
                    g.reject(err);
                    continue;
                }
                g.resolve();
            }
        }
        this.flushing = null;
    }

    /** Waits until everything queued so far is durable. */
    async drain(): Promise<void> {
        while (this.flushing) await this.flushing;
    }

    /**
     * Starts a new segment named after `nameSeq` (a sequence number no record of an older segment
     * reaches past in name order; segments are replayed in name order). Everything durable before
     * the switch stays in the old segment; `onSwitch` runs synchronously at the switch, so the
     * caller can note exactly which records the old segments hold. Returns the old segment's path.
     */
    async rotate(nameSeq: number, onSwitch: () => void): Promise<string> {
        // After a crash right after a rotation the active segment may already carry nextSeq's name.
        const current = parseInt(path.basename(this.file, '.wal'), 16);
        if (Number.isFinite(current) && nameSeq <= current) nameSeq = current + 1;
        const file = path.join(this.dir, segmentName(nameSeq));
        const fh = await fsp.open(file, 'wx');
        await fh.sync();
        await fsyncDir(this.dir);
        await this.drain();
        // No await between the end of drain and the switch: a flush started from here on (it first
        // waits a setImmediate) reads this.fh/this.size lazily and so writes to the new segment.
        const old = this.file;
        const oldFh = this.fh;
        this.fh = fh;
        this.file = file;
        this.size = 0;
        onSwitch();
        await oldFh.close();
        return old;
    }

    async close(): Promise<void> {
        await this.drain();
        this.closed = true;
        await this.fh.close();
    }
}

async function writeAllAt(fh: FileHandle, bufs: Buffer[], total: number, position: number): Promise<void> {
    const { bytesWritten } = await fh.writev(bufs, position);
    if (bytesWritten === total) return;
    // Partial write (rare for regular files): write the rest as one buffer.
    const all = Buffer.concat(bufs, total);
    let off = bytesWritten;
    while (off < total) {
        const r = await fh.write(all, off, total - off, position + off);
        off += r.bytesWritten;
    }
}
