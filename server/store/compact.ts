/**
 * Compaction jobs: encode one block file from the batches with seq in (afterSeq, uptoSeq] and
 * write it durably. The job touches no shared state: the caller publishes the block by writing the
 * manifest.
 *
 * - `runTailCompaction`: the batches are the normalised events the ingest path already built and
 *   the dataset keeps in its in-memory WAL tail (no parse, column encoding only). Runs on the main
 *   thread in small chunks, yielding to the event loop; deflate runs on the libuv pool.
 * - `runCompactJob`: re-reads the WAL segments and rebuilds the events with `buildBatch` (a parse
 *   per event). Used for batches recovered from the WAL after a restart, in the compaction worker
 *   (compact-worker.ts) or, if no worker can be started, on the main thread.
 */
import { buildBatch, type NormalizedEvents } from '../ingest/ingest.js';
import { encodeBlock, type BlockHeader, type BlockInput, type EncodeOptions } from './block.js';
import { writeFileAtomic } from './fsutil.js';
import { scanSegment } from './wal.js';
import { readRecord } from './wal-record.js';

export interface CompactJob {
    segments: string[];
    afterSeq: number;
    uptoSeq: number;
    compress: boolean;
    /** Retention: drop events with _time below this (ns, decimal) */
    retentionCutoff: string | null;
    trims: { seq: number; before: string }[];
    outFile: string;
}

export interface CompactResult {
    header: BlockHeader | null;
    bytes: number;
}

export function keepFilter(cutoffStr: string | null, trimSpec: { seq: number; before: string }[]): ((seq: number, t: bigint) => boolean) | undefined {
    const cutoff = cutoffStr === null ? undefined : BigInt(cutoffStr);
    const trims = trimSpec.map((t) => ({ seq: t.seq, before: BigInt(t.before) }));
    if (cutoff === undefined && trims.length === 0) return undefined;
    return (seq, t) => {
        if (cutoff !== undefined && t < cutoff) return false;
        for (const tr of trims) if (seq <= tr.seq && t < tr.before) return false;
        return true;
    };
}

export async function runCompactJob(job: CompactJob, yieldEvery?: () => Promise<void>): Promise<CompactResult> {
    const inputs: BlockInput[] = [];
    for (const seg of job.segments) {
        const scan = await scanSegment(seg);
        for (const rec of scan.records) {
            const dec = readRecord(rec);
            if (dec === undefined) continue; // damaged: recovery left it out of the tail too
            const { header, params, body } = dec;
            if (header.seq <= job.afterSeq || header.seq > job.uptoSeq) continue;
            let batch: NormalizedEvents;
            try {
                ({ batch } = buildBatch(body, params));
            } catch {
                continue; // no longer rebuilds: the dataset serves nothing of it either (dataset.ts `rebuild`)
            }
            inputs.push({ seq: header.seq, sysTime: params.receiveTimeNs, times: batch.times, fields: batch.fields });
            if (yieldEvery) await yieldEvery();
        }
    }
    const enc = await encodeBlock(inputs, { compress: job.compress, keep: keepFilter(job.retentionCutoff, job.trims), yieldEvery, covers: [job.afterSeq, job.uptoSeq] });
    if (!enc) return { header: null, bytes: 0 };
    await writeFileAtomic(job.outFile, enc.bytes);
    return { header: enc.header, bytes: enc.bytes.length };
}

/**
 * Encodes already-normalised batches (the dataset's in-memory WAL tail) into one block and writes
 * it durably. `yieldEvery` is awaited every `yieldRows` rows (and between columns).
 */
export async function runTailCompaction(
    inputs: BlockInput[],
    job: Pick<CompactJob, 'compress' | 'retentionCutoff' | 'trims' | 'outFile' | 'afterSeq' | 'uptoSeq'>,
    yieldEvery: EncodeOptions['yieldEvery'],
    yieldRows?: number,
): Promise<CompactResult> {
    const enc = await encodeBlock(inputs, { compress: job.compress, keep: keepFilter(job.retentionCutoff, job.trims), yieldEvery, yieldRows, covers: [job.afterSeq, job.uptoSeq] });
    if (!enc) return { header: null, bytes: 0 };
    await writeFileAtomic(job.outFile, enc.bytes);
    return { header: enc.header, bytes: enc.bytes.length };
}
