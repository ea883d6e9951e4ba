/**
 * The language server's start-up snapshot on disk, beside the bundles in out/:
 * - language-server.snapshot.blob: made by `node --build-snapshot` from out/language-server-snapshot.cjs
 *   (snapshot.ts), for one build of node;
 * - language-server.snapshot.stamp: `<inode of the node binary that made it> <cksum of the blob>`
 *   (`cksum`'s POSIX CRC and the length, as `cksum < blob` prints them).
 *
 * The POSIX launcher (launcher.sh, the first lines of the `apl-language-server` bin) starts from
 * the snapshot only when the stamp names the `node` it would run, the blob is newer than that
 * binary, and the blob's length and CRC are the stamp's, because node exits at once, before any of
 * our code, when a snapshot was made by another build of node, and release builds of V8 do not
 * checksum a snapshot: a damaged, truncated or foreign blob makes node crash inside V8 (SIGSEGV,
 * SIGTRAP, exit 14). Otherwise it runs the bin as a script, which asks for a new snapshot
 * (`refreshSnapshotLater`), so the next start is fast again after node was upgraded.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SNAPSHOT_BLOB = 'language-server.snapshot.blob';
export const SNAPSHOT_STAMP = 'language-server.snapshot.stamp';
/** Written when making a snapshot failed for this node, so that every start does not try again. */
const SNAPSHOT_FAILED = 'language-server.snapshot.failed';
const SNAPSHOT_BUNDLE = 'language-server-snapshot.cjs';
const BIN = 'apl-language-server.cjs';

/** Makes the snapshot for the node running this, in `dir`; throws with node's own words when it cannot. */
export function makeSnapshot(dir: string): void {
    const partial = join(dir, `${SNAPSHOT_BLOB}.${process.pid}.tmp`);
    // NODE_OPTIONS may hold V8 flags, and a snapshot loads only under the flags it was made with:
    // the launcher uses it only when NODE_OPTIONS is empty, so it is made that way too.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    try {
        const build = spawnSync(process.execPath, ['--snapshot-blob', partial, '--build-snapshot', join(dir, SNAPSHOT_BUNDLE)], { env, encoding: 'utf8', timeout: 120_000 });
        if (build.status !== 0) throw new Error(`node --build-snapshot exited with ${build.status ?? build.signal}: ${build.stderr.trim()}`);
        // Node can refuse a snapshot only when a process starts from it: start one.
        const check = spawnSync(process.execPath, ['--snapshot-blob', partial, join(dir, BIN), '--version'], { env, encoding: 'utf8', timeout: 120_000 });
        if (check.status !== 0 || !check.stdout.startsWith('apl-language-server ')) {
            throw new Error(`a process started from the new snapshot exited with ${check.status ?? check.signal}: ${check.stderr.trim()}`);
        }
        // The blob first: a stamp never names a blob that is not there yet.
        const sum = blobChecksum(partial);
        renameSync(partial, join(dir, SNAPSHOT_BLOB));
        writeAside(join(dir, SNAPSHOT_STAMP), `${statSync(process.execPath).ino} ${sum}\n`);
        rmSync(join(dir, SNAPSHOT_FAILED), { force: true });
    } catch (e) {
        writeAside(join(dir, SNAPSHOT_FAILED), `${statSync(process.execPath).ino}\n`);
        throw e;
    } finally {
        rmSync(partial, { force: true });
    }
}

/** Whether `dir` holds a snapshot the launcher would use with the node running this. */
export function snapshotIsCurrent(dir: string): boolean {
    try {
        const node = statSync(process.execPath);
        const blob = join(dir, SNAPSHOT_BLOB);
        return readFileSync(join(dir, SNAPSHOT_STAMP), 'utf8').trim() === `${node.ino} ${blobChecksum(blob)}` && statSync(blob).mtimeMs > node.mtimeMs;
    } catch {
        return false;
    }
}

/**
 * Makes a new snapshot in the background, a while after this start, unless there is a current one
 * (the launcher may not have found it: without `readlink -f` it looks beside the link it was started
 * by), `dir` is read-only, or making one failed for this node before. Answers whether it will; the
 * server does not wait for it.
 */
export function refreshSnapshotLater(dir: string, delayMs = 10_000): boolean {
    if (process.platform === 'win32' || (process.env.NODE_OPTIONS ?? '') !== '' || snapshotIsCurrent(dir)) return false;
    try {
        accessSync(dir, constants.W_OK);
        if (readFileSync(join(dir, SNAPSHOT_FAILED), 'utf8').trim() === String(statSync(process.execPath).ino)) return false;
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    }
    setTimeout(() => {
        const child = spawn(process.execPath, [join(dir, BIN), '--make-snapshot'], { detached: true, stdio: 'ignore' });
        child.on('error', () => undefined);
        child.unref();
    }, delayMs).unref();
    return true;
}

/** What `cksum < file` prints (its POSIX CRC and length): what the launcher compares with the stamp. */
function blobChecksum(file: string): string {
    const fd = openSync(file, 'r');
    try {
        const r = spawnSync('cksum', [], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`cksum exited with ${r.status ?? r.signal ?? r.error?.message}: ${r.stderr?.trim() ?? ''}`);
        return r.stdout.trim();
    } finally {
        closeSync(fd);
    }
}

function writeAside(path: string, text: string): void {
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, path);
}
