/**
 * Small durable-filesystem helpers. Everything the store creates is private to its owner: files
 * 0600 and directories 0700, set explicitly after creation so that the process umask (which can
 * only remove bits, and may remove the owner's own) never decides.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/**
 * Test seam for faults the file system rarely gives on demand (a full disk where no small file
 * system can be mounted): when set, every data write of the store asks it first and throws what it
 * returns. Production code never sets it.
 */
export const writeFaults: {
    inject?: (file: string, bytes: number) => NodeJS.ErrnoException | undefined;
    /**
     * Asked before each fdatasync of a write-ahead log segment: a promise it returns is awaited
     * first (a slow disk), and one that rejects fails the sync (a failing disk).
     */
    sync?: (file: string) => Promise<void> | undefined;
} = {};

/** Throws the injected fault for a write of `bytes` to `file`, if any. */
export function checkWriteFault(file: string, bytes: number): void {
    const err = writeFaults.inject?.(file, bytes);
    if (err) throw err;
}

/** Waits for, or throws, what the test seam makes of an fdatasync of `file` (nothing when unset). */
export async function checkSyncFault(file: string): Promise<void> {
    const hook = writeFaults.sync?.(file);
    if (hook) await hook;
}

/** True for the errors a full disk (or an exhausted quota) gives. */
export function isDiskFull(err: unknown): boolean {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    return code === 'ENOSPC' || code === 'EDQUOT';
}

/** True for the errors a read-only file system or a directory the process may not write gives. */
export function isReadOnly(err: unknown): boolean {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}

/** Whether `dir` takes a new file: undefined when it does, else the error code (EROFS, EACCES …). */
export async function writeProbe(dir: string): Promise<string | undefined> {
    const probe = path.join(dir, `.probe-${randomBytes(6).toString('hex')}`);
    try {
        await (await fsp.open(probe, 'wx', FILE_MODE)).close();
        await fsp.rm(probe, { force: true });
        return undefined;
    } catch (err) {
        if (isReadOnly(err)) return (err as NodeJS.ErrnoException).code;
        throw err;
    }
}

/** Opens a new file for writing with mode 0600 whatever the umask (`flag` 'w' or 'wx', or open(2) flags). */
export async function openPrivate(file: string, flag: 'w' | 'wx' | number): Promise<FileHandle> {
    const fh = await fsp.open(file, flag, FILE_MODE);
    try {
        await fh.chmod(FILE_MODE);
    } catch (err) {
        await fh.close();
        throw err;
    }
    return fh;
}

/** mkdir -p with mode 0700 for every directory it creates (existing ones are left as they are). */
export async function ensureDir(dir: string): Promise<void> {
    const first = await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
    if (first === undefined) return;
    // mkdir's mode passes through the umask: set it exactly on each directory created.
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
        await fsp.chmod(d, DIR_MODE);
        if (d === path.resolve(first) || path.dirname(d) === d) break;
    }
}

/** fsync a directory so that creates/renames/unlinks inside it are durable. */
export async function fsyncDir(dir: string): Promise<void> {
    const fh = await fsp.open(dir, 'r');
    try {
        await fh.sync();
    } finally {
        await fh.close();
    }
}

/**
 * A failed atomic write. `renamed` tells whether the new file had already replaced the old one
 * (only the directory fsync failed): then readers see the new content, but a crash may undo it.
 */
export class AtomicWriteError extends Error {
    constructor(
        cause: unknown,
        readonly renamed: boolean,
    ) {
        super(cause instanceof Error ? cause.message : String(cause), { cause });
        this.name = 'AtomicWriteError';
        const code = (cause as NodeJS.ErrnoException | null)?.code;
        if (code !== undefined) (this as unknown as NodeJS.ErrnoException).code = code;
    }
}

/**
 * Writes a file atomically: temp file (0600) in the same dir + fsync + rename + fsync dir. On any
 * failure before the rename the temp file is removed, so a failing disk leaves nothing behind.
 * Throws AtomicWriteError.
 */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
    const dir = path.dirname(file);
    const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
        checkWriteFault(file, typeof data === 'string' ? Buffer.byteLength(data) : data.length);
        const fh = await openPrivate(tmp, 'wx');
        try {
            await fh.writeFile(data);
            await fh.sync();
        } finally {
            await fh.close();
        }
        await fsp.rename(tmp, file);
    } catch (err) {
        await fsp.rm(tmp, { force: true }).catch(() => undefined);
        throw new AtomicWriteError(err, false);
    }
    try {
        await fsyncDir(dir);
    } catch (err) {
        throw new AtomicWriteError(err, true);
    }
}

/**
 * Metadata files (manifest.json, meta.json, tokens.json) carry a checksum, so a flipped byte that
 * still parses (a digit of coveredSeq) is caught instead of silently obeyed: the object is written
 * with a last key `crc32` = crc32 of the compact JSON of the other keys, in order.
 */
export function checkedJson(obj: object, indent?: number): string {
    const crc = crc32(JSON.stringify(obj)) >>> 0;
    return JSON.stringify({ ...obj, crc32: crc }, null, indent);
}

/** Parses `text` (JSON); when it has a `crc32` key it must match (see checkedJson), which is removed. */
export function parseCheckedJson<T>(text: string, file: string): T {
    let v: unknown;
    try {
        v = JSON.parse(text);
    } catch (err) {
        throw new Error(`${file}: not valid JSON (${(err as Error).message})`, { cause: err });
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'crc32' in v) {
        const { crc32: stored, ...rest } = v as Record<string, unknown>;
        if (stored !== crc32(JSON.stringify(rest)) >>> 0) throw new Error(`${file}: checksum mismatch (the file is damaged)`);
        return rest as T;
    }
    return v as T;
}

/** readJsonIfExists for files written with checkedJson (files without a checksum are accepted). */
export async function readCheckedJsonIfExists<T>(file: string): Promise<T | undefined> {
    const text = await readTextIfExists(file);
    return text === undefined ? undefined : parseCheckedJson<T>(text, file);
}

/** A file's text; undefined when it does not exist. */
async function readTextIfExists(file: string): Promise<string | undefined> {
    try {
        return await fsp.readFile(file, 'utf8');
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
    }
}

/** Reads and parses a JSON file; undefined when it does not exist. Errors name the file. */
export async function readJsonIfExists<T>(file: string): Promise<T | undefined> {
    const text = await readTextIfExists(file);
    if (text === undefined) return undefined;
    try {
        return JSON.parse(text) as T;
    } catch (err) {
        throw new Error(`${file}: not valid JSON (${(err as Error).message})`, { cause: err });
    }
}

/** Removes leftover `*.tmp` files from interrupted atomic writes. */
export async function removeTempFiles(dir: string): Promise<void> {
    let names: string[];
    try {
        names = await fsp.readdir(dir);
    } catch {
        return;
    }
    await Promise.all(names.filter((n) => n.endsWith('.tmp')).map((n) => fsp.rm(path.join(dir, n), { force: true })));
}

/** Total size of the regular files under a directory (recursive). */
export async function dirSize(dir: string): Promise<number> {
    let total = 0;
    let entries;
    try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
        return 0;
    }
    for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) total += await dirSize(p);
        else if (e.isFile()) total += (await fsp.stat(p).catch(() => ({ size: 0 }))).size;
    }
    return total;
}
