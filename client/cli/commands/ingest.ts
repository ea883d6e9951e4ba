import { createReadStream, openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import type { AplClient } from '../../api/client.js';
import { AplApiError } from '../../api/errors.js';
import type { IngestOptions, IngestStatus } from '../../api/types.js';
import { CliError } from '../cli-error.js';
import { clientFrom, CONNECTION_OPTIONS, CONNECTION_USAGE, reportApiError, warnAboutTokenArgument } from '../connection.js';
import { parseIntOption } from '../options.js';
import { terminalLines, terminalText } from '../terminal-text.js';
import { helpPointer } from '../usage-error.js';

export const INGEST_USAGE = `apl ingest DATASET FILE... [--url URL] [--token TOKEN] [--org-id ID] [--create]
           [--content-type json|ndjson|csv] [--timestamp-field F] [--timestamp-format LAYOUT]
           [--csv-delimiter C] [--label KEY=VALUE]... [--batch-lines N]

Sends events from files to a service (apl serve, or Axiom itself) and prints the ingest status
(summed over all requests) as JSON. FILE may be NDJSON, a JSON array or CSV with a header row;
'.gz' files are sent gzip-encoded as they are; '-' reads standard input. NDJSON is sent in batches.
Exit code 0: every event was ingested; 1: the service refused some events or a request; 2: usage
error, unreadable file, or the service could not be reached.
${CONNECTION_USAGE}
  --create              create DATASET first if it does not exist
  --content-type T      json, ndjson, csv or a MIME type (default: from the file's first character)
  --timestamp-field F   the field that holds the event time (default _time)
  --timestamp-format L  its format as a Go layout, e.g. 2006-01-02T15:04:05Z07:00
  --csv-delimiter C     CSV delimiter (default ,)
  --label KEY=VALUE     add a field to every event (repeatable)
  --batch-lines N       NDJSON lines per request (default 10000)`;

type Kind = 'json' | 'ndjson' | 'csv';
const MIME: Record<Kind, string> = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv' };
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export async function runIngestCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            ...CONNECTION_OPTIONS,
            create: { type: 'boolean', default: false },
            'content-type': { type: 'string' },
            'timestamp-field': { type: 'string' },
            'timestamp-format': { type: 'string' },
            'csv-delimiter': { type: 'string' },
            label: { type: 'string', multiple: true },
            'batch-lines': { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(INGEST_USAGE + '\n');
        return 0;
    }
    const [dataset, ...files] = positionals;
    if (dataset === undefined) throw new CliError(`missing DATASET and FILE (apl ingest DATASET FILE...)\n${helpPointer('ingest')}`);
    if (files.length === 0) throw new CliError(`missing FILE (a path, or - for standard input)\n${helpPointer('ingest')}`);
    if (files.filter(f => f === '-').length > 1) throw new CliError("standard input ('-') can be read only once");
    const forced = values['content-type'] !== undefined ? parseKind(values['content-type']) : undefined;
    if (values['csv-delimiter'] !== undefined && [...values['csv-delimiter']].length !== 1) throw new CliError('--csv-delimiter must be one character');
    const labels = parseLabels(values.label ?? []);
    const batchLines = values['batch-lines'] !== undefined ? parseIntOption('--batch-lines', values['batch-lines'], 1) : 10_000;
    const options: IngestOptions = {
        timestampField: values['timestamp-field'],
        timestampFormat: values['timestamp-format'],
        csvDelimiter: values['csv-delimiter'],
        labels,
    };
    // Check every file before sending anything.
    const inputs = files.map(f => openInput(f, forced));
    if (values['csv-delimiter'] === undefined) for (const input of inputs) checkCsvDelimiter(input);
    warnAboutTokenArgument(values, err, 'ingest');
    const client = clientFrom(values);
    const total: IngestStatus = { ingested: 0, failed: 0, failures: [], processedBytes: 0, blocksCreated: 0, walLength: 0 };
    const progress = (err as NodeJS.WriteStream).isTTY === true;
    try {
        if (values.create) await createIfMissing(client, dataset, err);
        for (const input of inputs) {
            const add = (s: IngestStatus | undefined) => {
                if (!s) return;
                total.ingested += s.ingested ?? 0;
                total.failed += s.failed ?? 0;
                total.processedBytes += s.processedBytes ?? 0;
                total.blocksCreated += s.blocksCreated ?? 0;
                total.walLength = s.walLength ?? total.walLength;
                for (const f of s.failures ?? []) total.failures.push({ ...f, error: inputs.length > 1 ? `${input.name}: ${f.error}` : f.error });
            };
            await sendInput(client, dataset, input, { ...options, contentType: MIME[input.kind] }, batchLines, add, progress ? err : undefined);
        }
    } catch (e) {
        if (progress) err.write('\r\x1b[K');
        if (e instanceof AplApiError && e.status === 404 && !values.create) {
            err.write(`apl ingest: ${terminalLines(e.message)} (use --create to create the dataset)\n`);
            return 1;
        }
        return reportApiError(e, err, 'ingest');
    }
    out.write(JSON.stringify(total, null, 2) + '\n');
    if (total.failed > 0) {
        err.write(`apl ingest: ${total.failed} event(s) failed; first: ${terminalLines(total.failures[0]?.error ?? 'unknown')}\n`);
        return 1;
    }
    return 0;
}

function parseKind(v: string): Kind {
    const s = v.trim().toLowerCase();
    if (s === 'json' || s === 'application/json') return 'json';
    if (s === 'ndjson' || s === 'jsonl' || s === 'application/x-ndjson' || s === 'application/nd-json' || s === 'application/ndjson') return 'ndjson';
    if (s === 'csv' || s === 'text/csv') return 'csv';
    throw new CliError(`--content-type must be json, ndjson or csv, not '${v}'`);
}

function parseLabels(items: string[]): Record<string, string> | undefined {
    if (items.length === 0) return undefined;
    const labels: Record<string, string> = {};
    for (const item of items) {
        const eq = item.indexOf('=');
        const colon = item.indexOf(':');
        const at = eq > 0 ? eq : colon > 0 ? colon : -1;
        if (at <= 0) throw new CliError(`--label must be KEY=VALUE, not '${item}'`);
        labels[item.slice(0, at)] = item.slice(at + 1);
    }
    return labels;
}

interface Input {
    name: string;
    path: string;
    kind: Kind;
    gzip: boolean;
    size: number;
    /** Standard input, read whole. */
    bytes?: Buffer;
    /** The first line (of the decompressed text), for the CSV delimiter check. */
    firstLine: string;
}

/** Delimiters a CSV file may use instead of the comma, as spreadsheets in many locales write them. */
const OTHER_DELIMITERS = [';', '\t', '|'] as const;

/**
 * A CSV header without a comma but with another delimiter would land as one column holding whole
 * lines: say how to split it instead of sending it (`--csv-delimiter ,` sends it as it is).
 */
function checkCsvDelimiter(input: Input): void {
    if (input.kind !== 'csv' || input.firstLine.includes(',')) return;
    const other = OTHER_DELIMITERS.find(d => input.firstLine.includes(d));
    if (other === undefined) return;
    const shown = other === '\t' ? "$'\\t'" : `'${other}'`;
    throw new CliError(
        `${terminalText(input.name)}: the CSV header has no ',' but '${other === '\t' ? '\\t' : other}': every line would land in one column. ` +
            `Add --csv-delimiter ${shown} to split the fields (or --csv-delimiter , to send it as it is)`,
    );
}

function ioError(name: string, e: unknown): CliError {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new CliError(`${name}: no such file`);
    if (code === 'EACCES') return new CliError(`${name}: permission denied`);
    if (code === 'EISDIR') return new CliError(`${name}: is a directory`);
    return new CliError(`${name}: cannot read (${(e as Error).message})`);
}

/** Peeks at a file: gzip magic, and the first non-blank character for the content type. */
function openInput(path: string, forced: Kind | undefined): Input {
    const name = path === '-' ? '<stdin>' : path;
    let head: Buffer;
    let size: number;
    let bytes: Buffer | undefined;
    try {
        if (path === '-') {
            bytes = readFileSync(0);
            size = bytes.length;
            head = bytes.subarray(0, 65536);
        } else {
            const st = statSync(path);
            if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
            size = st.size;
            const fd = openSync(path, 'r');
            try {
                head = Buffer.alloc(Math.min(65536, size));
                readSync(fd, head, 0, head.length, 0);
            } finally {
                closeSync(fd);
            }
        }
    } catch (e) {
        throw ioError(name, e);
    }
    if (size === 0) throw new CliError(`${name}: the file is empty`);
    const gzip = head[0] === 0x1f && head[1] === 0x8b;
    let text = head;
    if (gzip) {
        try {
            text = gunzipSync(head, { finishFlush: 2 /* Z_SYNC_FLUSH: a prefix is fine */ });
        } catch {
            throw new CliError(`${name}: not valid gzip data`);
        }
    }
    const kind = forced ?? sniff(text, path);
    const firstLine = text.subarray(0, Math.max(0, text.indexOf(0x0a) === -1 ? text.length : text.indexOf(0x0a))).toString('utf8').replace(/^\uFEFF/, '').replace(/\r$/, '');
    return { name, path, kind, gzip, size, bytes, firstLine };
}

function sniff(head: Buffer, path: string): Kind {
    const bare = path.replace(/\.gz$/i, '').toLowerCase();
    if (bare.endsWith('.csv')) return 'csv';
    let i = 0;
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
    while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
    if (head[i] === 0x5b /* [ */) return 'json';
    if (head[i] === 0x7b /* { */) return 'ndjson';
    if (bare.endsWith('.json')) return 'json';
    if (bare.endsWith('.ndjson') || bare.endsWith('.jsonl')) return 'ndjson';
    return 'csv';
}

async function createIfMissing(client: AplClient, dataset: string, err: NodeJS.WritableStream): Promise<void> {
    try {
        await client.datasets.get(dataset);
        return;
    } catch (e) {
        if (!(e instanceof AplApiError) || e.status !== 404) throw e;
    }
    try {
        await client.datasets.create({ name: dataset });
        err.write(`created dataset ${dataset}\n`);
    } catch (e) {
        if (e instanceof AplApiError && e.status === 409) return;
        throw e;
    }
}

function mb(n: number): string {
    return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

async function sendInput(
    client: AplClient,
    dataset: string,
    input: Input,
    options: IngestOptions,
    batchLines: number,
    add: (s: IngestStatus) => void,
    progress: NodeJS.WritableStream | undefined,
): Promise<void> {
    const stream = () => {
        const s = input.bytes ? null : createReadStream(input.path);
        s?.on('error', () => undefined);
        return s;
    };
    const wrap = async <T>(p: Promise<T>): Promise<T> => {
        try {
            return await p;
        } catch (e) {
            // a read error surfaces as a failed fetch; report the file instead
            if (e instanceof AplApiError && e.status === 0 && input.bytes === undefined) {
                try {
                    statSync(input.path);
                } catch (se) {
                    throw ioError(input.name, se);
                }
            }
            throw e;
        }
    };
    if (input.kind !== 'ndjson' || input.gzip) {
        // One request, the file streamed as it is.
        if (progress) progress.write(`\r${input.name}: sending ${mb(input.size)}…`);
        const body = input.bytes ? new Uint8Array(input.bytes) : (stream() as AsyncIterable<Uint8Array>);
        add(await wrap(client.ingest(dataset, body, { ...options, contentEncoding: input.gzip ? 'gzip' : '' })));
        if (progress) progress.write('\r\x1b[K');
        return;
    }
    // NDJSON: batches of lines, cut only before a line that starts a new top-level object.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lines = 0;
    let sent = 0;
    const flush = async () => {
        if (pendingBytes === 0) return;
        const body = Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
        lines = 0;
        add(await wrap(client.ingest(dataset, new Uint8Array(body.buffer, body.byteOffset, body.byteLength), { ...options, contentEncoding: '' })));
        sent += body.length;
        if (progress) progress.write(`\r${input.name}: ${mb(sent)} / ${mb(input.size)}`);
    };
    let carry = Buffer.alloc(0);
    const source: AsyncIterable<Buffer> = input.bytes ? [input.bytes] as unknown as AsyncIterable<Buffer> : (stream() as unknown as AsyncIterable<Buffer>);
    try {
        for await (const chunk of source) {
            let buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
            let start = 0;
            for (let nl = buf.indexOf(0x0a, start); nl !== -1; nl = buf.indexOf(0x0a, start)) {
                const line = buf.subarray(start, nl + 1);
                start = nl + 1;
                const startsObject = firstNonBlank(line) === 0x7b;
                if (startsObject && (lines >= batchLines || pendingBytes + line.length > MAX_BATCH_BYTES) && pendingBytes > 0) await flush();
                pending.push(line);
                pendingBytes += line.length;
                lines++;
            }
            buf = buf.subarray(start);
            carry = Buffer.from(buf);
        }
    } catch (e) {
        if (e instanceof AplApiError || e instanceof CliError) throw e;
        throw ioError(input.name, e);
    }
    if (carry.length) {
        pending.push(carry);
        pendingBytes += carry.length;
    }
    await flush();
    if (progress) progress.write('\r\x1b[K');
}

function firstNonBlank(line: Buffer): number | undefined {
    for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return c;
    }
    return undefined;
}

// exported for tests
export { sniff as sniffContentKind, parseLabels };
