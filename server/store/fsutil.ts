/** Small durable-filesystem helpers. */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** fsync a directory so that creates/renames/unlinks inside it are durable. */
export async function fsyncDir(dir: string): Promise<void> {
    const fh = await fsp.open(dir, 'r');
    try {
        await fh.sync();
    } finally {
        await fh.close();
    }
}

/** Writes a file atomically: temp file in the same dir + fsync + rename + fsync dir. */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
    const dir = path.dirname(file);
    const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
    const fh = await fsp.open(tmp, 'w');
    try {
        await fh.writeFile(data);
        await fh.sync();
    } finally {
        await fh.close();
    }
    try {
        await fsp.rename(tmp, file);
    } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
    }
    await fsyncDir(dir);
}

export async function readJsonIfExists<T>(file: string): Promise<T | undefined> {
    try {
        return JSON.parse(await fsp.readFile(file, 'utf8')) as T;
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
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
