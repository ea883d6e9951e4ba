/**
 * Reads the store's block files for the engine's datasets that keep their events on disk
 * (language/eval/cold-blocks.ts). It runs where the query runs (a query worker, or the main thread
 * without workers): a block read is a synchronous file read plus a decode, a few milliseconds for a
 * block of 65,536 events, and never on the main thread's event loop when queries run on workers.
 *
 * Only files of the form `<datasets>/<valid dataset name>/blocks/<8 hex>.blk` are read: the names
 * come from the store's manifest, and are checked again here so that nothing else can be.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { ColdBlock, ColdBlockReader, ColumnarChunk } from '../../language/index.js';
import { validateDatasetName } from '../store/errors.js';
import { BlockCorruptError, checkBlockBytes, decodeBlockAt, decodeBlockRowsAt, decodeValueRows, valueRowsIndexAt, type BlockBytesAt, type DecodedBlock, type ValueRowsIndex } from '../store/block.js';
import { HttpError } from '../http/errors.js';
import { datasetDirName } from '../store/dataset-dir.js';

const BLOCK_FILE = /^[0-9a-f]{8}\.blk$/;

/** A store block as the engine's columnar input. */
export function blockChunk(b: DecodedBlock): ColumnarChunk {
    // Getters: the block decodes its times and row ids on first use (block.ts decodeBlock).
    return {
        rows: b.rows,
        inTimeOrder: b.ordered,
        get times() {
            return b.times;
        },
        get batchOf() {
            return b.batchIdx;
        },
        get rowInBatch() {
            return b.rowIdx;
        },
        batches: b.batchSeqs.map((seq, i) => ({ seq, sysTime: b.batchSysTimes[i] })),
        columns: b.columns,
        // Its dictionaries come from JSON.parse of their sections: fresh strings of their own, not
        // cut from a larger one, so the engine keeps them without a copy each.
        flatStrings: true,
    };
}

/** The reader of the blocks under `datasetsDir` (the store's `<data dir>/datasets`). */
export function coldBlockReader(datasetsDir: string): ColdBlockReader {
    /**
     * Files whose checksum held, by path, inode, size and change time: a block file is written once
     * (renamed into place) and never changed, so its checksum is computed once per reader.
     */
    const checked = new Set<string>();
    /** Where each file's value rows are (block.ts ValueRowsIndex), by the same identity: a few hundred bytes a file, not its header. */
    const indexes = new Map<string, ValueRowsIndex>();
    const fileOf = (dataset: string, block: ColdBlock): string => {
        validateDatasetName(dataset);
        if (!BLOCK_FILE.test(block.id)) throw new Error(`not a block file name: ${JSON.stringify(block.id)}`);
        return path.join(datasetsDir, datasetDirName(dataset), 'blocks', block.id);
    };
    return {
        rows(dataset: string, block: ColdBlock): number {
            // Its header was read and checked when the block was listed (cold-tier.ts BlockHeaders);
            // a file removed since (a trim or retention hid every row of it) holds none.
            return existsSync(fileOf(dataset, block)) ? block.rows : 0;
        },
        read(dataset: string, block: ColdBlock, field?: (name: string) => boolean): ColumnarChunk | undefined {
            const dec = readChecked(dataset, block, (at, file, identity) => {
                // The times and row ids are read when a query first reads them: a block in the cache
                // holds only what its queries decoded.
                const later = (offset: number, length: number): Buffer => readLater(file, identity, dataset, block, offset, length);
                return decodeBlockAt(at, field, later);
            });
            // Another block of that name (the dataset was deleted and made again since): not this one.
            if (dec === undefined || dec.rows !== block.rows) return undefined;
            return blockChunk(dec);
        },
        readRows(dataset: string, block: ColdBlock, rows: Uint32Array, field?: (name: string) => boolean): ColumnarChunk | undefined {
            // Undefined from the decode: another block of that name (see read), not this one.
            const dec = readChecked(dataset, block, (at) => decodeBlockRowsAt(at, rows, field, block.rows));
            return dec && blockChunk(dec);
        },
        valueRows(dataset: string, block: ColdBlock, field: string): { values: string[]; rows: Uint32Array } | undefined {
            return readChecked(dataset, block, (at, _file, identity) => {
                let index = indexes.get(identity);
                if (index === undefined) indexes.set(identity, (index = valueRowsIndexAt(at)));
                // Another block of that name (see read): not this one.
                return index.blockRows === block.rows ? decodeValueRows(at, index, field) : undefined;
            });
        },
    };

    /**
     * `decode` of the block's file, open, checked whole once per file (a megabyte at a time), read
     * at offsets; undefined when the file is gone (a trim or retention hid every row of it since the
     * block list was made). Damage is a 423 that names the block.
     */
    function readChecked<T>(dataset: string, block: ColdBlock, decode: (at: BlockBytesAt, file: string, identity: string) => T): T | undefined {
        const file = fileOf(dataset, block);
        let fd: number;
        try {
            fd = openSync(file, 'r');
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
            throw err;
        }
        try {
            const st = fstatSync(fd, { bigint: true });
            const identity = `${file}:${st.ino}:${st.size}:${st.ctimeNs}`;
            if (!checked.has(identity)) {
                checkBlockBytes((into, offset) => readSync(fd, into, 0, into.length, offset), Number(st.size));
                checked.add(identity);
            }
            return decode((offset, length) => readAt(fd, offset, length), file, identity);
        } catch (err) {
            // A failed read or stat is the disk's, not damage in the block.
            if ((err as NodeJS.ErrnoException).syscall !== undefined) throw err;
            throw new HttpError(423, `dataset "${dataset}": blocks/${block.id} is damaged (${(err as Error).message}); see FORMAT.md, "Repair"`);
        } finally {
            closeSync(fd);
        }
    }
}

/**
 * `length` bytes of a block file read after its other sections (cold-reader's `read` has closed it):
 * the same file, or the query stops. Block files never change, but a trim, the retention or a
 * delete removes them.
 */
function readLater(file: string, identity: string, dataset: string, block: ColdBlock, offset: number, length: number): Buffer {
    let fd: number;
    try {
        fd = openSync(file, 'r');
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        throw new HttpError(409, `dataset "${dataset}": blocks/${block.id} was removed while the query read it (a trim, the retention or a delete): run the query again`);
    }
    try {
        const st = fstatSync(fd, { bigint: true });
        if (`${file}:${st.ino}:${st.size}:${st.ctimeNs}` !== identity) throw new HttpError(409, `dataset "${dataset}": blocks/${block.id} was replaced while the query read it: run the query again`);
        return readAt(fd, offset, length);
    } finally {
        closeSync(fd);
    }
}

/** `length` bytes of an open file from `offset`; a file that ends first is damaged (block files never change). */
function readAt(fd: number, offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
        const n = readSync(fd, out, got, length - got, offset + got);
        if (n === 0) throw new BlockCorruptError(`the file ends at byte ${offset + got}, inside a section that runs to byte ${offset + length}`);
        got += n;
    }
    return out;
}
