/**
 * Per-dataset write-ahead log: a directory of segment files `<16 hex>.wal`, replayed in name order.
 *
 * Record framing (v2, what this code writes), 24 bytes of frame header then the payload:
 *
 *   [u32 magic 0x4C41577F ("\x7fWAL")][u32 payload length][u32 seq low][u32 seq high]
 *   [u32 crc32(payload)][u32 crc32(the 20 bytes before)]
 *
 * The header checksum makes a damaged length detectable, and the magic lets recovery find the next
 * record after damage, so one flipped byte costs one record, not the rest of the segment. Segments
 * written in the v1 framing (`[u32 length][u32 crc32(payload)][payload]`, no magic) are still read.
 *
 * Appends are group-committed and their syncs overlap: every append queued while a write is in
 * flight joins the next single writev; the writes go one after another (so the file never has a
 * gap), and each is followed by an fdatasync that may run while the next group is written and
 * synced. An append's promise resolves only after an fdatasync that began after its bytes were
 * written has returned, and in append order.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { checkSyncFault, checkWriteFault, fsyncDir, openPrivate, writeFaults } from './fsutil.js';

/**
 * Syncs in flight at once. One durable write per group, each waiting for the one before it, made
 * an ingest request wait for the previous group's flush and then for its own: with a few requests
 * in flight the disk's flush latency, not the CPU, set the ingest rate. Syncs issued together are
 * flushed together by the file system (ext4 commits one journal transaction for them), so a
 * group's sync that starts while the previous one runs costs little; two at once leave the rest
 * of the libuv pool (4 threads) to the writes and to compaction's deflate.
 */
const MAX_SYNCS = 2;

export const FRAME_HEADER = 24;
export const RECORD_MAGIC = 0x4c41577f;
const MAGIC_BYTES = Buffer.from([0x7f, 0x57, 0x41, 0x4c]);
/** v1 framing: [u32 length][u32 crc32(payload)]. */
const V1_FRAME_HEADER = 8;
/** Refuse absurd lengths when reading (a torn length field can be anything). */
const MAX_RECORD = 1024 * 1024 * 1024;

export function segmentName(firstSeq: number): string {
    return `${firstSeq.toString(16).padStart(16, '0')}.wal`;
}

/** One intact record. `seq` comes from the frame (v2) or is undefined (v1: read it from the payload). */
export interface ScannedRecord {
    offset: number;
    seq: number | undefined;
    payload: Buffer;
}

/**
 * Bytes of a segment that are not intact records:
 * - `record`: a frame whose header is intact (so its seq and extent are known) but whose payload
 *   checksum fails;
 * - `garbage`: bytes with no intact frame header (seqs unknown);
 * - `torn`: the end of the segment looks like an interrupted append (an incomplete frame header,
 *   an intact header whose payload runs past the end of the file, or zeros): never acknowledged.
 */
export interface BadRegion {
    kind: 'record' | 'garbage' | 'torn';
    offset: number;
    length: number;
    seq?: number;
}

export interface SegmentScan {
    file: string;
    format: 1 | 2;
    records: ScannedRecord[];
    bad: BadRegion[];
    /** Offset just past the last intact record (where appending may continue when nothing else is bad). */
    validBytes: number;
    totalBytes: number;
}

function headerIntact(data: Buffer, p: number): boolean {
    return (
        p + FRAME_HEADER <= data.length &&
        data.readUInt32LE(p) === RECORD_MAGIC &&
        crc32(data.subarray(p, p + 20)) >>> 0 === data.readUInt32LE(p + 20) &&
        data.readUInt32LE(p + 4) <= MAX_RECORD
    );
}

/** Offset of the next intact frame header at or after `from`, or -1. */
function nextHeader(data: Buffer, from: number): number {
    for (let p = data.indexOf(MAGIC_BYTES, from); p >= 0; p = data.indexOf(MAGIC_BYTES, p + 1)) {
        if (headerIntact(data, p)) return p;
    }
    return -1;
}

function allZero(data: Buffer, from: number): boolean {
    for (let i = from; i < data.length; i++) if (data[i] !== 0) return false;
    return true;
}

/** Reads a segment: every intact record, and every damaged or torn region (see BadRegion). */
export async function scanSegment(file: string): Promise<SegmentScan> {
    const data = await fsp.readFile(file);
    return isV1Segment(data) ? scanV1(file, data) : scanV2(file, data);
}

/**
 * v1 segments have no magic: their first record is [length][crc] with a length below 1 GiB, which
 * a v2 magic (0x4C41577F) never is. An empty file is a (new) v2 segment.
 */
function isV1Segment(data: Buffer): boolean {
    if (data.length < V1_FRAME_HEADER || data.readUInt32LE(0) === RECORD_MAGIC) return false;
    const len = data.readUInt32LE(0);
    return len > 0 && len <= MAX_RECORD && V1_FRAME_HEADER + len <= data.length && crc32(data.subarray(V1_FRAME_HEADER, V1_FRAME_HEADER + len)) >>> 0 === data.readUInt32LE(4);
}

function scanV2(file: string, data: Buffer): SegmentScan {
    const records: ScannedRecord[] = [];
    const bad: BadRegion[] = [];
    let validBytes = 0;
    let p = 0;
    while (p < data.length) {
        if (!headerIntact(data, p)) {
            const q = nextHeader(data, p + 1);
            if (q < 0) {
                // Nothing intact follows: an interrupted append, or damage at the very end.
                const torn = data.length - p < FRAME_HEADER || allZero(data, p);
                bad.push({ kind: torn ? 'torn' : 'garbage', offset: p, length: data.length - p });
                break;
            }
            bad.push({ kind: 'garbage', offset: p, length: q - p });
            p = q;
            continue;
        }
        const len = data.readUInt32LE(p + 4);
        const seq = data.readUInt32LE(p + 8) + data.readUInt32LE(p + 12) * 2 ** 32;
        const end = p + FRAME_HEADER + len;
        if (end > data.length) {
            // An intact header whose payload is cut short: the last append was interrupted, unless
            // an intact record follows (then this header lies, and its bytes are garbage).
            const q = nextHeader(data, p + 1);
            if (q < 0) {
                bad.push({ kind: 'torn', offset: p, length: data.length - p, seq });
                break;
            }
            bad.push({ kind: 'garbage', offset: p, length: q - p });
            p = q;
            continue;
        }
        const payload = data.subarray(p + FRAME_HEADER, end);
        if (crc32(payload) >>> 0 === data.readUInt32LE(p + 16)) {
            records.push({ offset: p, seq, payload });
            validBytes = end;
        } else {
            bad.push({ kind: 'record', offset: p, length: end - p, seq });
        }
        p = end;
    }
    return { file, format: 2, records, bad, validBytes, totalBytes: data.length };
}

/** v1: no way to find the next record after damage, so reading stops at the first bad one. */
function scanV1(file: string, data: Buffer): SegmentScan {
    const records: ScannedRecord[] = [];
    let p = 0;
    while (p + V1_FRAME_HEADER <= data.length) {
        const len = data.readUInt32LE(p);
        const crc = data.readUInt32LE(p + 4);
        if (len === 0 || len > MAX_RECORD || p + V1_FRAME_HEADER + len > data.length) break;
        const payload = data.subarray(p + V1_FRAME_HEADER, p + V1_FRAME_HEADER + len);
        if (crc32(payload) >>> 0 !== crc) break;
        records.push({ offset: p, seq: undefined, payload });
        p += V1_FRAME_HEADER + len;
    }
    const bad: BadRegion[] = [];
    if (p < data.length) {
        const rest = data.length - p;
        const len = rest >= V1_FRAME_HEADER ? data.readUInt32LE(p) : 0;
        const torn = rest < V1_FRAME_HEADER || allZero(data, p) || (len > 0 && len <= MAX_RECORD && p + V1_FRAME_HEADER + len > data.length);
        bad.push({ kind: torn ? 'torn' : 'garbage', offset: p, length: rest });
    }
    return { file, format: 1, records, bad, validBytes: p, totalBytes: data.length };
}

/** Frames a payload given as parts (no copy of the parts), v2 framing. */
/**
 * The frame of a record whose payload is `parts` in order. `lastCrc`, when given, is crc32 of the
 * last part, computed by whoever had those bytes before (an ingest worker, of the body it parsed):
 * it is combined with the others' instead of reading that part again here (a request's body is
 * nearly all of its record, and this runs on the service's main thread).
 */
export function frame(seq: number, parts: Buffer[], lastCrc?: number): Buffer[] {
    let len = 0;
    let crc = 0;
    const n = parts.length;
    for (let i = 0; i < n; i++) {
        const part = parts[i];
        len += part.length;
        crc = i === n - 1 && lastCrc !== undefined ? crc32Combine(crc, lastCrc, part.length) : crc32(part, crc);
    }
    const head = Buffer.allocUnsafe(FRAME_HEADER);
    head.writeUInt32LE(RECORD_MAGIC, 0);
    head.writeUInt32LE(len, 4);
    head.writeUInt32LE(seq >>> 0, 8);
    head.writeUInt32LE(Math.floor(seq / 2 ** 32), 12);
    head.writeUInt32LE(crc >>> 0, 16);
    head.writeUInt32LE(crc32(head.subarray(0, 20)) >>> 0, 20);
    return [head, ...parts];
}

/** CRC-32's reflected polynomial (the one node:zlib's crc32 uses). */
const CRC_POLY = 0xedb88320;

/** a·b modulo the CRC polynomial (bit-reflected, as zlib's multmodp). */
function multModP(a: number, b: number): number {
    let m = 0x80000000;
    let p = 0;
    for (;;) {
        if ((a & m) !== 0) {
            p ^= b;
            if ((a & (m - 1)) === 0) break;
        }
        m >>>= 1;
        b = (b & 1) !== 0 ? (b >>> 1) ^ CRC_POLY : b >>> 1;
    }
    return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the CRC polynomial. */
const X2N: number[] = (() => {
    const t: number[] = [];
    let p = 0x40000000; // x^1
    t.push(p);
    for (let k = 1; k < 32; k++) t.push((p = multModP(p, p)));
    return t;
})();

/**
 * crc32 of `A ‖ B` from crc32(A), crc32(B) and B's length in bytes: zlib's crc32_combine
 * (crc32(A) times x^(8·len) modulo the polynomial, plus crc32(B)).
 */
export function crc32Combine(crcA: number, crcB: number, lenB: number): number {
    // x^(8·lenB): the bits of lenB, from x^(2^3) = x^8 on.
    let p = 0x80000000; // x^0
    let k = 3;
    for (let n = lenB; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multModP(X2N[k & 31], p);
    return (multModP(p, crcA >>> 0) ^ crcB) >>> 0;
}

interface Pending {
    bufs: Buffer[];
    bytes: number;
    onDurable: () => void;
    resolve: () => void;
    reject: (err: unknown) => void;
}

/** A group written to the segment and not acknowledged yet: its appends, and where it starts. */
interface Written {
    group: Pending[];
    start: number;
}

export class WalWriter {
    private queue: Pending[] = [];
    private flushing: Promise<void> | null = null;
    private closed = false;
    /** Groups written and not acknowledged yet, in file order. */
    private unacked: Written[] = [];
    /** Syncs running. */
    private syncing = 0;
    /** A group was written that no running sync covers. */
    private unsynced = false;
    /** Wakes the flush loop while it waits for a sync: one returned, or an append came. */
    private wake: (() => void) | null = null;
    /** A sync failed: the groups not acknowledged are rejected and cut off before anything else. */
    private syncFailure: { err: unknown } | undefined;

    private constructor(
        readonly dir: string,
        private fh: FileHandle,
        private file: string,
        private size: number,
    ) {}

    /**
     * Opens the active segment: `existing` (a recovered v2 segment whose only damage is a torn tail,
     * cut off here) to keep appending to, or else a new segment named after `nameSeq` or later.
     */
    static async open(dir: string, existing: { file: string; validBytes: number } | undefined, nameSeq: number): Promise<WalWriter> {
        if (existing) {
            const fh = await fsp.open(existing.file, 'r+');
            const st = await fh.stat();
            if (st.size !== existing.validBytes) {
                await fh.truncate(existing.validBytes);
                await fh.sync();
            }
            return new WalWriter(dir, fh, existing.file, existing.validBytes);
        }
        const file = path.join(dir, segmentName(nameSeq));
        const fh = await openPrivate(file, 'wx');
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
     * Queues a framed record. `onDurable` runs (synchronously, in queue order) once the record is
     * durable, before its promise resolves.
     */
    append(bufs: Buffer[], onDurable: () => void): Promise<void> {
        if (this.closed) return Promise.reject(new Error('write-ahead log is closed'));
        let bytes = 0;
        for (const b of bufs) bytes += b.length;
        return new Promise<void>((resolve, reject) => {
            this.queue.push({ bufs, bytes, onDurable, resolve, reject });
            if (!this.flushing) this.flushing = this.flushLoop();
            else this.wakeLoop(); // it may be waiting for a sync: this append need not
        });
    }

    /**
     * Writes the queued groups one after another, starting a sync after each (at most MAX_SYNCS at
     * once: a group written meanwhile is covered by the next). Ends once every group written is
     * acknowledged or rejected.
     */
    private async flushLoop(): Promise<void> {
        // Let appends issued in the same tick join the first group.
        await new Promise<void>((r) => setImmediate(r));
        for (;;) {
            if (this.syncFailure) await this.afterSyncFailure(this.syncFailure.err);
            else if (this.queue.length > 0) await this.writeGroup();
            else if (this.syncing > 0) await this.waitForWake();
            else break;
        }
        this.flushing = null;
    }

    private async writeGroup(): Promise<void> {
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
            checkWriteFault(this.file, total);
            await writeAllAt(this.fh, bufs, total, start);
        } catch (err) {
            // Roll the file back so that a later append does not follow garbage (the groups before
            // this one are whole: one write at a time).
            await this.fh.truncate(start).catch(() => undefined);
            for (const g of group) g.reject(err);
            return;
        }
        this.size = start + total;
        this.unacked.push({ group, start });
        this.unsynced = true;
        if (this.syncFailure === undefined && this.syncing < MAX_SYNCS) this.startSync();
    }

    /** Starts an fdatasync covering every group written so far; they are acknowledged when it returns. */
    private startSync(): void {
        if (this.unacked.length === 0) return;
        const last = this.unacked[this.unacked.length - 1];
        const { fh, file } = this;
        this.unsynced = false;
        this.syncing++;
        const sync = async (): Promise<void> => {
            if (writeFaults.sync) await checkSyncFault(file);
            await fh.datasync();
        };
        sync().then(
            () => {
                // Unless a sync failed meanwhile (then every group not acknowledged is rejected).
                if (this.syncFailure === undefined) {
                    const i = this.unacked.indexOf(last);
                    if (i >= 0) for (const w of this.unacked.splice(0, i + 1)) acknowledge(w.group);
                }
                this.syncReturned();
            },
            (err: unknown) => {
                this.syncFailure ??= { err };
                this.syncReturned();
            },
        );
    }

    private syncReturned(): void {
        this.syncing--;
        if (this.syncFailure === undefined && this.unsynced) this.startSync();
        this.wakeLoop();
    }

    private waitForWake(): Promise<void> {
        return new Promise<void>((r) => (this.wake = r));
    }

    private wakeLoop(): void {
        const wake = this.wake;
        this.wake = null;
        wake?.();
    }

    /**
     * A failed fdatasync does not say which written bytes are durable (nor will a later one say it
     * again): once the other syncs have returned, every group not acknowledged is rejected and the
     * file is cut back to where the first of them began.
     */
    private async afterSyncFailure(err: unknown): Promise<void> {
        while (this.syncing > 0) await this.waitForWake();
        const failed = this.unacked;
        this.unacked = [];
        this.unsynced = false;
        this.syncFailure = undefined;
        if (failed.length > 0) {
            this.size = failed[0].start;
            await this.fh.truncate(this.size).catch(() => undefined);
        }
        for (const w of failed) for (const g of w.group) g.reject(err);
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
        const fh = await openPrivate(file, 'wx');
        try {
            await fh.sync();
            await fsyncDir(this.dir);
            await this.drain();
        } catch (err) {
            // Nothing was switched: do not leave an empty segment per failed attempt.
            await fh.close();
            await fsp.rm(file, { force: true });
            throw err;
        }
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

/** Runs each append's `onDurable` in order, then resolves it (or rejects it when `onDurable` throws). */
function acknowledge(group: Pending[]): void {
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
