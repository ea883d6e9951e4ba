/**
 * WAL record payload: [u32 LE header length][header JSON][decompressed request body].
 * The header carries the ingest parameters, so the events are rebuilt with `buildBatch` (the same
 * deterministic function the ingest path validated them with).
 */
import type { AppendInput, IngestParams } from '../ingest/ingest.js';
import type { ScannedRecord } from './wal.js';

export const WAL_RECORD_VERSION = 1;

export interface WalHeader {
    v: number;
    seq: number;
    /** Events the batch produced when it was acknowledged. */
    n: number;
    /** min/max _time (ns, decimal strings) of those events. */
    lo: string;
    hi: string;
    /** IngestParams with receiveTimeNs as a decimal string. */
    p: Omit<IngestParams, 'receiveTimeNs'> & { receiveTimeNs: string };
}

export function encodeWalPayload(seq: number, prep: AppendInput): Buffer[] {
    const header: WalHeader = {
        v: WAL_RECORD_VERSION,
        seq,
        n: prep.count,
        lo: prep.minTime.toString(),
        hi: prep.maxTime.toString(),
        p: { ...prep.params, receiveTimeNs: prep.params.receiveTimeNs.toString() },
    };
    const hdr = Buffer.from(JSON.stringify(header));
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(hdr.length, 0);
    // The body last: its crc32, when known (prep.bodyCrc), is the last part's for `frame`.
    return [len, hdr, prep.body];
}

export function decodeWalPayload(payload: Buffer): { header: WalHeader; params: IngestParams; body: Buffer } {
    const hlen = payload.readUInt32LE(0);
    const header = JSON.parse(payload.toString('utf8', 4, 4 + hlen)) as WalHeader;
    if (header.v !== WAL_RECORD_VERSION) throw new Error(`unsupported WAL record version ${header.v}`);
    const params: IngestParams = { ...header.p, receiveTimeNs: BigInt(header.p.receiveTimeNs) };
    return { header, params, body: payload.subarray(4 + hlen) };
}

export interface DecodedRecord {
    header: WalHeader;
    params: IngestParams;
    body: Buffer;
}

/**
 * Decodes an intact (checksummed) record; undefined when its payload still does not make sense
 * (unreadable header, or a frame seq that disagrees with the payload's): recovery and compaction
 * both treat such a record as damaged, so they agree on what the log holds.
 */
export function readRecord(rec: ScannedRecord): DecodedRecord | undefined {
    try {
        const d = decodeWalPayload(rec.payload);
        if (!Number.isSafeInteger(d.header.seq) || d.header.seq <= 0) return undefined;
        if (rec.seq !== undefined && rec.seq !== d.header.seq) return undefined;
        return d;
    } catch {
        return undefined;
    }
}
