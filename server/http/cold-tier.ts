/**
 * Which datasets the service keeps on disk, and what the engine needs to know of their blocks.
 *
 * Under `--memory-limit`, half of the limit is for the engine's in-memory copies of datasets, a
 * quarter for the blocks that queries read from disk (split among the query threads), and the rest
 * is left for everything else (ingest batches in flight, the WAL tail, results, V8). A dataset that
 * does not fit the first half keeps its blocks on disk: only its WAL tail stays in memory, and
 * queries read the blocks they need (language/eval/cold-blocks.ts).
 */
import path from 'node:path';
import { totalmem } from 'node:os';
import type { ColdBlock, ColdField } from '../../language/index.js';
import { readBlockFileHeader, readBlockHeaderOnly, type BlockColumnMeta, type BlockHeader } from '../store/block.js';
import type { BlockInfo } from '../store/store.js';
import { BlockCorruptError } from '../store/block.js';
import { datasetDirName } from '../store/dataset-dir.js';
import { youngGenerationMb } from '../query/pool.js';

/** A block whose header failed its check: `file` (under blocks/) and why. */
export class BlockDamagedError extends BlockCorruptError {
    constructor(
        readonly file: string,
        readonly why: string,
    ) {
        super(`blocks/${file} is damaged: ${why}`);
    }
}

/** In-memory size of an event, for deciding before a dataset is loaded (1M sample-http-logs events: 114 MB). */
export const EST_BYTES_PER_EVENT = 150;

/** The default `--memory-limit`: half of the machine's memory. */
export function defaultMemoryLimit(): number {
    return Math.floor(totalmem() / 2);
}

export interface MemoryPlan {
    /** For the engine's in-memory copies of datasets. */
    inMemoryBytes: number;
    /** For blocks read from disk, all query threads together. */
    coldCacheBytes: number;
    /**
     * Each query worker's young generation (MB): a sixteenth of the limit, 16 to 64. A query's
     * allocations fill it before each scavenge, and its memory stays with the process: at the pool's
     * usual 64 MB a worker, 20M events on disk under 512m peaked at 930-953 MB; at 32 MB, 840 MB
     * (docs/benchmarks.md).
     */
    workerYoungMb: number;
}

export function memoryPlan(limit: number): MemoryPlan {
    return { inMemoryBytes: Math.floor(limit / 2), coldCacheBytes: Math.floor(limit / 4), workerYoungMb: youngGenerationMb(limit / 2 ** 20) };
}

/** A block column's field as the engine types it (f64 columns: `long` when every value is whole). */
function coldField(c: BlockColumnMeta, mapFields: ReadonlySet<string>): ColdField {
    if (mapFields.has(c.name)) return { name: c.name, type: 'dynamic', axiomType: c.axiom || 'map' };
    switch (c.kind) {
        case 'str':
            return { name: c.name, type: 'string', axiomType: 'string' };
        case 'bool':
            return { name: c.name, type: 'bool', axiomType: 'boolean' };
        case 'f64':
            return c.axiom === 'integer' ? { name: c.name, type: 'long', axiomType: 'integer' } : { name: c.name, type: 'real', axiomType: c.axiom ?? 'float' };
        default:
            return { name: c.name, type: 'dynamic', axiomType: c.axiom || 'string' };
    }
}

export function coldBlock(info: BlockInfo, h: BlockHeader, mapFields: ReadonlySet<string>): ColdBlock {
    const ranges: Record<string, { min: number; max: number } | { min: string; max: string }> = {};
    const counts: Record<string, [string, number][]> = {};
    const valueRows: string[] = [];
    for (const c of h.columns) {
        if (mapFields.has(c.name)) continue;
        if (c.kind === 'f64' && c.min !== undefined && c.max !== undefined) ranges[c.name] = { min: c.min, max: c.max };
        else if (c.kind === 'str' && c.min !== undefined && c.max !== undefined) ranges[c.name] = { min: c.min, max: c.max };
        if (c.kind === 'str' && c.counts !== undefined) counts[c.name] = c.counts;
        if (c.kind === 'str' && c.rows !== undefined) valueRows.push(c.name);
    }
    return { id: info.file, rows: info.rows, minTime: BigInt(info.minTime), maxTime: BigInt(info.maxTime), fields: h.columns.map((c) => coldField(c, mapFields)), ranges, counts, valueRows };
}

/** Block header reads in flight at once (BlockHeaders.readAll). */
const HEADER_READS_IN_FLIGHT = 16;

/**
 * The headers of the blocks of datasets kept on disk, read once per block (two small reads; the
 * block's data is checked when a query reads it). Blocks never change; a dataset deleted and made
 * again starts over (`forget`).
 */
export class BlockHeaders {
    private readonly headers = new Map<string, BlockHeader>();

    constructor(private readonly datasetsDir: string) {}

    private key(dataset: string, file: string): string {
        return `${dataset}/${file}`;
    }

    has(dataset: string, file: string): boolean {
        return this.headers.has(this.key(dataset, file));
    }

    get(dataset: string, file: string): BlockHeader {
        const h = this.headers.get(this.key(dataset, file));
        if (!h) throw new Error(`block header of ${dataset}/${file} not read`);
        return h;
    }

    /**
     * Reads and checks a block's header. Throws BlockDamagedError (naming what failed) when it
     * does not check out: its column ranges decide which blocks a query skips unread, so a header
     * is trusted only once verified (its own checksum; a version 1 header, which has none, is
     * verified with the whole block, once).
     */
    async read(dataset: string, info: BlockInfo): Promise<void> {
        const file = path.join(this.datasetsDir, datasetDirName(dataset), 'blocks', info.file);
        const damaged = (err: unknown) => {
            throw new BlockDamagedError(info.file, (err as Error).message.replace(`${file}: `, ''));
        };
        const { checked, ...h } = await readBlockHeaderOnly(file).catch(damaged);
        if (!checked) await readBlockFileHeader(file).catch(damaged);
        if (h.rows !== info.rows) throw new BlockDamagedError(info.file, `holds ${h.rows} rows, the manifest says ${info.rows}`);
        this.headers.set(this.key(dataset, info.file), h);
    }

    /**
     * `read` for each of `blocks` not read yet, several at once (each is a few round trips to the
     * thread pool, and a dataset can have hundreds of blocks: issue 31). A header that fails its
     * check rejects with its BlockDamagedError, unless `damaged` takes it (the others are read on);
     * `stop` ends it early.
     */
    async readAll(dataset: string, blocks: readonly BlockInfo[], damaged?: (err: BlockDamagedError) => Promise<void>, stop?: () => boolean): Promise<void> {
        const todo = blocks.filter((b) => !this.has(dataset, b.file));
        let next = 0;
        const lane = async (): Promise<void> => {
            while (next < todo.length && !stop?.()) {
                const b = todo[next++];
                try {
                    await this.read(dataset, b);
                } catch (err) {
                    if (!(damaged && err instanceof BlockDamagedError)) throw err;
                    await damaged(err);
                }
            }
        };
        await Promise.all(Array.from({ length: Math.min(HEADER_READS_IN_FLIGHT, todo.length) }, lane));
    }

    forget(dataset: string): void {
        for (const k of [...this.headers.keys()]) if (k.startsWith(`${dataset}/`)) this.headers.delete(k);
    }
}
