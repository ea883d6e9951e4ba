/**
 * The project file `.aplrc.json` (or `apl.config.json`): found upward from a query file's folder, read
 * by the language server and by the CLI (`apl fmt`, `apl check`). This module only finds and parses
 * it; each section (`format`, `rules`, …) is validated by whoever uses it.
 *
 *     { "format": { "pipe": "end", "width": 80 }, "rules": { … } }
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The names looked for in each folder, the first found winning. */
export const APLRC_NAMES = ['.aplrc.json', 'apl.config.json'] as const;

/** The largest project file read: it holds settings, never data. */
const MAX_BYTES = 1024 * 1024;

export interface AplrcFile {
    /** Absolute path of the file read. */
    path: string;
    /** Its top-level object. */
    config: Record<string, unknown>;
}

/** A project file that exists but cannot be used; the message names the file and, for bad JSON, line:column. */
export class AplrcError extends Error {
    constructor(
        readonly path: string,
        detail: string,
    ) {
        super(`${path}: ${detail}`);
        this.name = 'AplrcError';
    }
}

/** The nearest project file in `startDir` or a folder above it; undefined when there is none. */
export function findAplrc(startDir: string): string | undefined {
    for (let dir = resolve(startDir); ; dir = dirname(dir)) {
        for (const name of APLRC_NAMES) {
            const path = join(dir, name);
            if (existsSync(path) && isFile(path)) return path;
        }
        if (dirname(dir) === dir) return undefined;
    }
}

/**
 * The nearest project file above `startDir`, parsed; undefined when there is none. Throws AplrcError
 * when it cannot be read, is not JSON (with line:column) or is not a JSON object.
 */
export function loadAplrc(startDir: string): AplrcFile | undefined {
    const path = findAplrc(startDir);
    return path === undefined ? undefined : readAplrc(path);
}

/** One project file, parsed (see loadAplrc for the errors). */
export function readAplrc(path: string): AplrcFile {
    let text: string;
    try {
        if (statSync(path).size > MAX_BYTES) throw new AplrcError(path, `larger than ${MAX_BYTES} bytes; a project file holds settings only`);
        text = readFileSync(path, 'utf8');
    } catch (e) {
        if (e instanceof AplrcError) throw e;
        throw new AplrcError(path, `cannot read (${(e as Error).message})`);
    }
    return { path, config: parseAplrc(text, path) };
}

/** The top-level object of a project file's text. */
export function parseAplrc(text: string, path: string): Record<string, unknown> {
    let value: unknown;
    try {
        value = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (e) {
        throw new AplrcError(path, `not valid JSON${jsonErrorPlace(text, (e as Error).message)}: ${(e as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new AplrcError(path, `expected a JSON object ({"format": {…}, "rules": {…}}), got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
    }
    return value as Record<string, unknown>;
}

function isFile(path: string): boolean {
    try {
        return statSync(path).isFile();
    } catch {
        return false;
    }
}

/** ` at line L, column C` from JSON.parse's `at position N` (V8), or nothing when it gives none. */
function jsonErrorPlace(text: string, message: string): string {
    const m = /at position (\d+)/.exec(message);
    if (!m) return /Unexpected end of JSON input/.test(message) ? ' at the end of the file' : '';
    const offset = Number(m[1]);
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return ` at line ${line}, column ${column}`;
}
