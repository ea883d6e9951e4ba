/**
 * `apl run`'s `externaldata` reader: local files only, relative to a base directory, at most
 * `maxBytes` read (a device such as /dev/zero, or a file that grows, is refused rather than read
 * without end). The engine itself does no I/O; the service passes no reader at all.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExternalDataError, type ExternalDataReader } from '../../language/eval/engine.js';

export const DEFAULT_EXTERNAL_DATA_BYTES = 5 * 1024 * 1024;

export function localFileReader(options: { baseDir?: string; maxBytes?: number } = {}): ExternalDataReader {
    const baseDir = options.baseDir ?? process.cwd();
    const maxBytes = options.maxBytes ?? DEFAULT_EXTERNAL_DATA_BYTES;
    return {
        read(uri) {
            let path: string;
            if (/^file:\/\//i.test(uri)) {
                try {
                    path = fileURLToPath(uri);
                } catch {
                    throw new ExternalDataError(`'${uri}' is not a valid file URL`);
                }
            } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) {
                throw new ExternalDataError(`apl run reads local files only and cannot fetch '${uri}'`, true);
            } else path = isAbsolute(uri) ? uri : resolve(baseDir, uri);
            return readBounded(path, uri, maxBytes);
        },
    };
}

function readBounded(path: string, uri: string, maxBytes: number): string {
    let fd: number;
    try {
        fd = openSync(path, 'r');
    } catch (e) {
        throw new ExternalDataError(`cannot read '${uri}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    try {
        if (!fstatSync(fd).isFile()) throw new ExternalDataError(`'${uri}' is not a regular file`);
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
            // One byte more than allowed tells "too large" from "exactly the limit".
            const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
            const n = readSync(fd, chunk, 0, chunk.length, null);
            if (n === 0) break;
            chunks.push(chunk.subarray(0, n));
            total += n;
            if (total > maxBytes) throw new ExternalDataError(`'${uri}' is larger than ${maxBytes.toLocaleString('en-US')} bytes`);
        }
        return Buffer.concat(chunks, total).toString('utf8');
    } finally {
        closeSync(fd);
    }
}
