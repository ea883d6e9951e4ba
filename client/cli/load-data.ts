/**
 * Loads local event files for `apl run --data NAME=PATH`: NDJSON, a JSON array (or one object), or
 * CSV with a header row, optionally gzipped. Parsing is the service's ingest parser
 * (language/ingest/parse-events.ts), CSV typing included, so a file answers the same here as after
 * `apl ingest` into `apl serve`.
 */
import { createReadStream, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseEvents, type BodyFormat, type RawEvent } from '../../language/ingest/parse-events.js';
import { IngestError } from '../../language/ingest/errors.js';
import { CliError } from './cli-error.js';

export interface DataSpec {
    name: string;
    path: string;
}

/** `NAME=PATH`. */
export function parseDataSpec(value: string): DataSpec {
    const eq = value.indexOf('=');
    if (eq <= 0 || eq === value.length - 1) throw new CliError(`--data must be NAME=PATH (e.g. --data logs=./logs.ndjson), not '${value}'`);
    const name = value.slice(0, eq).trim();
    if (name === '' || /[\s'"[\]]/.test(name)) throw new CliError(`--data ${value}: '${name}' is not a usable dataset name`);
    return { name, path: value.slice(eq + 1) };
}

export interface SampleSpec {
    name: string;
    rows?: number;
}

/** `NAME[:ROWS]`. */
export function parseSampleSpec(value: string, known: readonly string[]): SampleSpec {
    const m = /^([^:]+)(?::(.*))?$/.exec(value);
    const name = m?.[1]?.trim() ?? '';
    if (!known.includes(name)) throw new CliError(`--sample: unknown sample dataset '${name}'; known: ${known.join(', ')}`);
    if (m?.[2] === undefined) return { name };
    const rows = Number(m[2]);
    if (m[2].trim() === '' || !Number.isInteger(rows) || rows < 0 || rows > 10_000_000) {
        throw new CliError(`--sample ${value}: ROWS must be an integer from 0 to 10000000`);
    }
    return { name, rows };
}

export type Progress = (text: string | undefined) => void;

function mb(n: number): string {
    return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Reads a whole file, reporting progress for big files. */
async function readWithProgress(path: string, progress: Progress | undefined, label: string): Promise<Buffer> {
    let size: number;
    try {
        const st = statSync(path);
        if (st.isDirectory()) throw new CliError(`--data ${label}: ${path} is a directory`);
        size = st.size;
    } catch (e) {
        if (e instanceof CliError) throw e;
        throw ioError(label, path, e);
    }
    const chunks: Buffer[] = [];
    let read = 0;
    let lastReport = 0;
    try {
        for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
            chunks.push(chunk as Buffer);
            read += (chunk as Buffer).length;
            if (progress && Date.now() - lastReport > 100) {
                lastReport = Date.now();
                progress(`reading ${label}: ${mb(read)} / ${mb(size)}`);
            }
        }
    } catch (e) {
        throw ioError(label, path, e);
    }
    return Buffer.concat(chunks, read);
}

function ioError(label: string, path: string, e: unknown): CliError {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new CliError(`--data ${label}: ${path}: no such file`);
    if (code === 'EACCES') return new CliError(`--data ${label}: ${path}: permission denied`);
    if (code === 'EISDIR') return new CliError(`--data ${label}: ${path} is a directory`);
    return new CliError(`--data ${label}: ${path}: cannot read (${(e as Error).message})`);
}

export function formatOf(path: string, bytes: Buffer): BodyFormat {
    const bare = path.replace(/\.gz$/i, '').toLowerCase();
    if (bare.endsWith('.csv') || bare.endsWith('.tsv')) return 'csv';
    if (bare.endsWith('.json') || bare.endsWith('.ndjson') || bare.endsWith('.jsonl')) return 'json';
    let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
    return bytes[i] === 0x5b || bytes[i] === 0x7b ? 'json' : 'csv';
}

export interface LoadedFile {
    events: RawEvent[];
    /** Per-event problems (a bad NDJSON line, a CSV row with the wrong number of cells). */
    failures: { index: number; error: string }[];
    format: BodyFormat;
}

export const LARGE_FILE_BYTES = 4 * 1024 * 1024;

/** Reads and parses one `--data` file. Problems with the file as a whole are CliErrors (exit 2). */
export async function loadDataFile(spec: DataSpec, progress?: Progress): Promise<LoadedFile> {
    const label = `${spec.name}=${spec.path}`;
    let bytes = await readWithProgress(spec.path, progress, label);
    if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
        progress?.(`decompressing ${label}`);
        try {
            bytes = gunzipSync(bytes);
        } catch (e) {
            throw new CliError(`--data ${label}: not valid gzip data (${(e as Error).message})`);
        }
    }
    if (bytes.length === 0 || bytes.every(b => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)) {
        throw new CliError(`--data ${label}: the file is empty`);
    }
    const format = formatOf(spec.path, bytes);
    const delimiter = spec.path.replace(/\.gz$/i, '').toLowerCase().endsWith('.tsv') ? '\t' : undefined;
    progress?.(`parsing ${label} (${mb(bytes.length)})`);
    let parsed;
    try {
        parsed = parseEvents(bytes, format, { csvDelimiter: delimiter });
    } catch (e) {
        if (e instanceof IngestError) throw new CliError(`--data ${label}: ${e.message}`);
        throw e;
    }
    return { events: parsed.events, failures: parsed.failures, format };
}
