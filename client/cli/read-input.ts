import { readFileSync, statSync } from 'node:fs';
import { CliError } from './cli-error.js';

export interface InputText {
    /** What to call it in messages: the path, or `<stdin>`. */
    name: string;
    text: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a query file (or `-` for standard input) as strict UTF-8. Problems become CliErrors that name
 * the file and what is wrong, never a stack trace.
 */
export function readInput(path: string): InputText {
    const name = path === '-' ? '<stdin>' : path;
    let bytes: Buffer;
    try {
        if (path !== '-' && statSync(path).isDirectory()) throw new CliError(`${name}: is a directory, not a query file`);
        bytes = readFileSync(path === '-' ? 0 : path);
    } catch (e) {
        if (e instanceof CliError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new CliError(`${name}: no such file`);
        if (code === 'EACCES') throw new CliError(`${name}: permission denied`);
        throw new CliError(`${name}: cannot read (${(e as Error).message})`);
    }
    return { name, text: decodeUtf8(name, bytes) };
}

/**
 * `readInput` for commands that go on to the next file after a bad one: the problem is written to
 * `err` as `apl COMMAND: …` and the result is undefined (the caller exits 2 at the end).
 */
export function readInputOrReport(path: string, command: string, err: NodeJS.WritableStream): InputText | undefined {
    try {
        return readInput(path);
    } catch (e) {
        if (!(e instanceof CliError)) throw e;
        err.write(`apl ${command}: ${e.message}\n`);
        return undefined;
    }
}

export function decodeUtf8(name: string, bytes: Uint8Array): string {
    let text: string;
    try {
        text = utf8.decode(bytes);
    } catch {
        const bad = firstInvalidUtf8Offset(bytes);
        throw new CliError(`${name}: not valid UTF-8 (first bad byte at offset ${bad})`);
    }
    if (text.startsWith('\ufeff')) text = text.slice(1);
    if (text.trim() === '') throw new CliError(`${name}: the file is empty`);
    return text;
}

/** The offset of the first byte that starts an invalid UTF-8 sequence. */
function firstInvalidUtf8Offset(bytes: Uint8Array): number {
    let i = 0;
    while (i < bytes.length) {
        const b = bytes[i];
        const extra = b < 0x80 ? 0 : (b & 0xe0) === 0xc0 ? 1 : (b & 0xf0) === 0xe0 ? 2 : (b & 0xf8) === 0xf0 ? 3 : -1;
        if (extra < 0) return i;
        for (let k = 1; k <= extra; k++) {
            if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
        }
        i += extra + 1;
    }
    return i;
}
