/**
 * Reads the `apl.schemaFile` the user named, safely: only a regular file, at most
 * MAX_SCHEMA_FILE_BYTES. `readFileSync` on a FIFO blocked the server for good and on `/dev/zero` read
 * until memory ran out (issue 26); anything but a regular file is refused with a reason that names
 * what the path is. Nothing here can block (stat first, O_NONBLOCK open, a bounded read of a regular
 * file), so it stays synchronous: the schema is in place before the documents opened next are built
 * (an asynchronous read let a didOpen and completion right after start see the built-in schemas).
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** Schema files are small (names and types of fields); a larger one is refused. */
export const MAX_SCHEMA_FILE_BYTES = 16 * 1024 * 1024;

export class SchemaFileError extends Error {}

export function readSchemaFile(path: string): string {
    let info: Stats;
    try {
        info = statSync(path);
    } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new SchemaFileError(code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? String(e)})`);
    }
    checkRegularFile(info);
    // O_NONBLOCK: if the path was swapped for a FIFO after the stat, opening it does not wait for a writer.
    let fd: number;
    try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
        throw new SchemaFileError(`cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    try {
        checkRegularFile(fstatSync(fd));
        const buffer = Buffer.alloc(Math.min(info.size, MAX_SCHEMA_FILE_BYTES) + 1);
        let length = 0;
        for (;;) {
            const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
            if (bytesRead === 0) break;
            length += bytesRead;
            if (length > MAX_SCHEMA_FILE_BYTES) throw tooLarge();
            if (length === buffer.length) break; // grew since the stat: read what was there
        }
        return buffer.subarray(0, length).toString('utf8');
    } finally {
        closeSync(fd);
    }
}

function checkRegularFile(info: Stats): void {
    if (info.isDirectory()) throw new SchemaFileError('it is a directory, not a file');
    if (info.isFIFO()) throw new SchemaFileError('it is a named pipe (FIFO), not a regular file');
    if (info.isCharacterDevice() || info.isBlockDevice()) throw new SchemaFileError('it is a device, not a regular file');
    if (info.isSocket()) throw new SchemaFileError('it is a socket, not a regular file');
    if (!info.isFile()) throw new SchemaFileError('it is not a regular file');
    if (info.size > MAX_SCHEMA_FILE_BYTES) throw tooLarge();
}

function tooLarge(): SchemaFileError {
    return new SchemaFileError(`it is larger than the ${MAX_SCHEMA_FILE_BYTES / (1024 * 1024)} MiB a schema file may have`);
}
