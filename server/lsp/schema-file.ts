/**
 * Reads the `apl.schemaFile` the user named, safely: only a regular file, at most
 * MAX_SCHEMA_FILE_BYTES, asynchronously. `readFileSync` on a FIFO blocked the server for good and on
 * `/dev/zero` read until memory ran out (issue 26); anything but a regular file is refused with a
 * reason that names what the path is.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** Schema files are small (names and types of fields); a larger one is refused. */
export const MAX_SCHEMA_FILE_BYTES = 16 * 1024 * 1024;

export class SchemaFileError extends Error {}

export async function readSchemaFile(path: string): Promise<string> {
    const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
        throw new SchemaFileError(e.code === 'ENOENT' ? 'no such file' : `cannot read it (${e.code ?? e.message})`);
    });
    checkRegularFile(info);
    // O_NONBLOCK: if the path was swapped for a FIFO after the stat, opening it does not wait for a writer.
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
        throw new SchemaFileError(`cannot read it (${e.code ?? e.message})`);
    });
    try {
        checkRegularFile(await file.stat());
        const buffer = Buffer.alloc(Math.min(info.size, MAX_SCHEMA_FILE_BYTES) + 1);
        let length = 0;
        for (;;) {
            const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
            if (bytesRead === 0) break;
            length += bytesRead;
            if (length > MAX_SCHEMA_FILE_BYTES) throw tooLarge();
            if (length === buffer.length) break; // grew since the stat: read what was there
        }
        return buffer.subarray(0, length).toString('utf8');
    } finally {
        await file.close();
    }
}

function checkRegularFile(info: import('node:fs').Stats): void {
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
