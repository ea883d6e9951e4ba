/**
 * One process per data directory, with a lock the kernel holds for us and releases when the
 * process ends, however it ends.
 *
 * WHY A LISTENING UNIX SOCKET (and not a pid file or an flock addon): a pid file needs a liveness
 * check, which a zombie passes (its pid still exists) and a reused pid fakes; `flock` needs a native
 * addon, i.e. a compiler on every machine that installs the package. A listening socket is a kernel
 * object owned by the process: binding fails while the owner lives, and the kernel closes it when
 * the process exits — a zombie has already closed every descriptor.
 *
 * On Linux the socket is in the abstract namespace (no file), named after the data directory's
 * device and inode, so the bind itself is the atomic test-and-set and nothing is left behind. (It
 * is per network namespace: two containers sharing one volume from different network namespaces do
 * not see each other's lock.) Elsewhere the socket is the file `LOCK.sock` in the directory: a
 * connect that is refused proves the owner is dead, and the stale file is replaced; two processes
 * replacing the same stale file at the same instant is the one race left there.
 *
 * `LOCK` (the owner's pid) is still written, for people and for older versions of this program,
 * which check it; it is not what excludes.
 */
import { promises as fsp } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { openPrivate } from './fsutil.js';

export interface DirLock {
    release(): Promise<void>;
}

export class DirLockedError extends Error {
    override readonly name = 'DirLockedError';
}

function listen(address: string): Promise<Server> {
    return new Promise((resolve, reject) => {
        const server = createServer((socket) => socket.destroy());
        server.once('error', reject);
        server.listen(address, () => {
            server.off('error', reject);
            // The lock must not keep the process alive.
            server.unref();
            resolve(server);
        });
    });
}

/** True when something accepts connections on `address` (the owner is alive). */
function answers(address: string): Promise<boolean> {
    return new Promise((resolve) => {
        const sock = createConnection(address);
        sock.once('connect', () => {
            sock.destroy();
            resolve(true);
        });
        sock.once('error', () => resolve(false));
    });
}

function inUse(root: string): DirLockedError {
    return new DirLockedError(`data directory ${root} is in use by another running apl server (only one process may use a data directory; stop the other one first)`);
}

async function lockAddress(root: string): Promise<{ address: string; file?: string }> {
    if (process.platform === 'linux') {
        const st = await fsp.stat(root, { bigint: true });
        return { address: `\0apl-tools-data-lock:${st.dev}:${st.ino}` };
    }
    const file = path.join(root, 'LOCK.sock');
    return { address: file, file };
}

/** Takes the data directory's lock, or throws DirLockedError when a live process holds it. */
export async function acquireDirLock(root: string): Promise<DirLock> {
    const { address, file } = await lockAddress(root);
    let server: Server;
    try {
        server = await listen(address);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        if (file === undefined || (await answers(address))) throw inUse(root);
        // A socket file whose owner is gone: replace it.
        await fsp.rm(file, { force: true });
        try {
            server = await listen(address);
        } catch (err2) {
            if ((err2 as NodeJS.ErrnoException).code === 'EADDRINUSE') throw inUse(root);
            throw err2;
        }
    }
    const pidFile = path.join(root, 'LOCK');
    try {
        const fh = await openPrivate(pidFile, 'w');
        await fh.writeFile(`${process.pid}\n`);
        await fh.close();
    } catch {
        // Informational only.
    }
    let released = false;
    return {
        async release() {
            if (released) return;
            released = true;
            await fsp.rm(pidFile, { force: true }).catch(() => undefined);
            await new Promise<void>((r) => server.close(() => r()));
        },
    };
}
