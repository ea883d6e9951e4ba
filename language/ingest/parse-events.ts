/**
 * Body formats (API.md §3.2–3.3): JSON array / single object, NDJSON (also when sent as
 * application/json), and CSV. Parsing yields plain objects plus per-event failures; only a body that
 * cannot be parsed at all (a malformed JSON array, a bad delimiter) is a whole-request 400.
 *
 * CSV value typing (API.md U4, undocumented by Axiom) — DECISION: columns are typed per request, the
 * one rule of `apl serve`, `apl ingest` and `apl run` (`typeCsvColumns`): a column whose every
 * non-empty cell is exactly a number (no leading zeros, integers within 2^53) holds numbers, one
 * whose every cell is true/false holds booleans, any other column keeps its cells as strings, so
 * `007` next to `10` stays text. Storing numbers as text made `max(units)` answer "5" over 5 and 10
 * and `sum(units)` 0; `toint()` in a query still works on either. Header names ARE trimmed of surrounding whitespace (`user, name` gives the
 * fields `user` and `name`, as in the docs' CSV example). Empty cells are omitted from the event
 * (a missing value and an empty CSV cell are both null to APL). The `_time` column, if any, goes
 * through the normal time heuristics (which accept numeric strings as epochs).
 */
import { isAscii } from 'node:buffer';
import Papa from 'papaparse';
import { IngestError } from './errors.js';
import { MAX_FIELDS_PER_EVENT } from './limits.js';

export type BodyFormat = 'json' | 'ndjson' | 'csv';

/** A freshly parsed event: a plain JSON object we own (normalisation may mutate it). */
export type RawEvent = Record<string, unknown>;

export interface EventFailure {
    /** 0-based index of the event in the body (its line for NDJSON, its data row for CSV). */
    index: number;
    error: string;
}

export interface ParsedEvents {
    events: RawEvent[];
    failures: EventFailure[];
}

export interface ParseOptions {
    /** `csv-delimiter` query parameter: one character, default `,`. */
    csvDelimiter?: string | null;
    /** `X-Axiom-CSV-Fields` header, raw: comma-separated names; empty/absent = first row is the header. */
    csvFields?: string | null;
}

/** Maps a Content-Type header to a body format; throws 415 for anything else. */
export function formatFromContentType(contentType: string | undefined | null): BodyFormat {
    const mime = (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
    switch (mime) {
        case 'application/json':
        case '': // absent: treat as JSON and sniff
            return 'json';
        case 'application/x-ndjson':
        case 'application/nd-json':
        case 'application/ndjson':
        case 'application/jsonl':
        case 'application/x-jsonlines':
            return 'ndjson';
        case 'text/csv':
        case 'application/csv':
            return 'csv';
        default:
            throw new IngestError(
                415,
                `unsupported Content-Type "${mime}": use application/json, application/x-ndjson or text/csv`,
            );
    }
}

/** Parses a (decompressed) body. */
export function parseEvents(body: Buffer, format: BodyFormat, options: ParseOptions = {}): ParsedEvents {
    if (format === 'csv') return parseCsv(body.toString('utf8'), options);
    // Sniff JSON bodies: `[` is an array; anything else is a stream of values (NDJSON).
    const start = skipWsBytes(body);
    if (start >= body.length) return { events: [], failures: [] };
    // From `start`: a byte-order mark before the array is not JSON (NDJSON lines skip it too).
    if (body[start] === 0x5b /* [ */) return parseJsonArray(body.toString('utf8', start));
    const lines = decodeLines(body);
    if (format === 'json' && !parsesAsJson(lines[0])) {
        // Not one value per line: maybe a single object pretty-printed over many lines, one event.
        const text = body.toString('utf8');
        try {
            const v: unknown = JSON.parse(text);
            return isPlainObject(v)
                ? { events: [v], failures: [] }
                : { events: [], failures: [{ index: 0, error: `line 1: event is not a JSON object (${jsonKind(v)})` }] };
        } catch {
            // fall through: more than one top-level value
        }
    }
    return parseNdjson(lines);
}

/**
 * The body's lines (split at `\n`), each decoded on its own: a pure-ASCII line becomes a one-byte
 * string, which JSON.parse reads much faster than the two-byte string that decoding the whole body
 * gives as soon as any line holds a non-ASCII character (sample-http-logs: 6% of the lines, so
 * every body; decoding and parsing take a third less). The same strings as
 * `body.toString('utf8').split('\n')`: a 0x0A byte is never part of a multi-byte UTF-8 sequence.
 */
export function decodeLines(body: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
        const newline = body.indexOf(0x0a, start);
        const end = newline < 0 ? body.length : newline;
        lines.push(body.toString(isAscii(body.subarray(start, end)) ? 'latin1' : 'utf8', start, end));
        if (newline < 0) return lines;
        start = newline + 1;
    }
}

function parsesAsJson(text: string): boolean {
    try {
        JSON.parse(text);
        return true;
    } catch {
        return false;
    }
}

/** The offset of the first byte that is not JSON whitespace or a UTF-8 byte-order mark. */
export function skipWsBytes(body: Buffer): number {
    let i = 0;
    while (i < body.length) {
        const c = body[i];
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
        else if (c === 0xef && body[i + 1] === 0xbb && body[i + 2] === 0xbf) i += 3;
        else break;
    }
    return i;
}

function skipWs(text: string, i: number): number {
    for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) break;
    }
    return i;
}

function isPlainObject(v: unknown): v is RawEvent {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
    return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function parseJsonArray(text: string): ParsedEvents {
    let arr: unknown;
    try {
        arr = JSON.parse(text);
    } catch (err) {
        throw new IngestError(400, `invalid JSON body: ${describeJsonError(err, text)}`);
    }
    if (!Array.isArray(arr)) throw new IngestError(400, 'invalid JSON body: expected an array of objects');
    const events: RawEvent[] = [];
    const failures: EventFailure[] = [];
    for (let i = 0; i < arr.length; i++) {
        const v: unknown = arr[i];
        if (isPlainObject(v)) events.push(v);
        else failures.push({ index: i, error: `element ${i}: event is not a JSON object (${jsonKind(v)})` });
    }
    return { events, failures };
}

/** Adds line/column to V8's "… at position N" messages. */
function describeJsonError(err: unknown, text: string): string {
    let msg = err instanceof Error ? err.message : String(err);
    const m = /position (\d+)/.exec(msg);
    let pos: number;
    if (m) pos = Number(m[1]);
    else {
        // V8 quotes short inputs instead of giving a position: find it by growing a prefix (the
        // first prefix that fails with something other than "unexpected end" ends at the error).
        if (text.length > 4096) return msg;
        pos = -1;
        for (let k = 1; k <= text.length && pos < 0; k++) {
            try {
                JSON.parse(text.slice(0, k));
            } catch (e) {
                const em = e instanceof Error ? e.message : '';
                const at = /position (\d+)/.exec(em);
                const incomplete = /end of JSON input|Unterminated string/i.test(em) || (at !== null && Number(at[1]) >= k);
                if (!incomplete) pos = at ? Number(at[1]) : k - 1;
            }
        }
        if (pos < 0) return msg;
        msg = `${msg.split(',')[0]} at position ${pos}`;
    }
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
        line++;
        lineStart = i + 1;
    }
    return `${msg} (line ${line}, column ${pos - lineStart + 1})`;
}

/** Longest multi-line value the NDJSON fallback scanner will accept (a pretty-printed object). */
const MAX_MULTILINE_VALUE = 1024 * 1024;

/**
 * NDJSON / JSON value stream. Fast path: one split on '\n' and JSON.parse per line (leading
 * whitespace and '\r' are fine for JSON.parse). A line that does not parse is retried with a small
 * scanner that finds top-level value boundaries, so concatenated (`{..}{..}`) and pretty-printed
 * objects still work; if that fails too, the line fails alone.
 */
function parseNdjson(lines: string[]): ParsedEvents {
    const out: ParsedEvents = { events: [], failures: [] };
    let index = 0; // event index within the body
    for (let li = 0; li < lines.length; li++) {
        const next = parseNdjsonLine(lines, li, index, out);
        index = next.index;
        li = next.lastLine;
    }
    return out;
}

/**
 * One step of `parseNdjson`: the values starting at `lines[li]` (the body's lines, as
 * `decodeLines` gives them), added to `out` (`index` is the body index of the first value).
 * Returns the index after them and the last line they took.
 */
export function parseNdjsonLine(lines: readonly string[], li: number, index: number, out: ParsedEvents): { index: number; lastLine: number } {
    const line = lines[li];
    let v: unknown;
    try {
        v = JSON.parse(line);
    } catch (err) {
        if (skipWs(line, 0) >= line.length) return { index, lastLine: li }; // blank line
        // Slow path: scan values starting at this line.
        const res = scanValues(lines, li);
        if (res === undefined) {
            out.failures.push({ index, error: `line ${li + 1}: invalid JSON: ${shortJsonError(err)}` });
            return { index: index + 1, lastLine: li };
        }
        for (const value of res.values) {
            if (isPlainObject(value)) out.events.push(value);
            else out.failures.push({ index, error: `line ${li + 1}: event is not a JSON object (${jsonKind(value)})` });
            index++;
        }
        return { index, lastLine: res.lastLine };
    }
    if (isPlainObject(v)) out.events.push(v);
    else out.failures.push({ index, error: `line ${li + 1}: event is not a JSON object (${jsonKind(v)})` });
    return { index: index + 1, lastLine: li };
}

function shortJsonError(err: unknown): string {
    const msg = err instanceof Error ? err.message : String(err);
    return msg.length > 200 ? `${msg.slice(0, 200)}…` : msg;
}

/**
 * From the start of `lines[first]`, reads complete top-level values (objects/arrays by bracket
 * depth, scalars up to the next delimiter) until a value ends at the end of a line. Returns the
 * parsed values and the last line consumed, or undefined when that does not work out. A value is
 * never extended over a line that is a complete JSON object on its own (so one broken line cannot
 * swallow the good lines after it), nor past MAX_MULTILINE_VALUE characters.
 */
function scanValues(lines: readonly string[], first: number): { values: unknown[]; lastLine: number } | undefined {
    const values: unknown[] = [];
    let li = first;
    let buf = lines[li];
    let i = 0;
    for (;;) {
        i = skipWs(buf, i);
        if (i >= buf.length) {
            // the current value list ends exactly at a line end
            return values.length ? { values, lastLine: li } : undefined;
        }
        const start = i;
        const c = buf.charCodeAt(i);
        if (c === 0x7b || c === 0x5b) {
            let depth = 0;
            let inStr = false;
            let end = -1;
            for (;;) {
                for (; i < buf.length; i++) {
                    const ch = buf.charCodeAt(i);
                    if (inStr) {
                        if (ch === 0x5c) i++;
                        else if (ch === 0x22) inStr = false;
                    } else if (ch === 0x22) inStr = true;
                    else if (ch === 0x7b || ch === 0x5b) depth++;
                    else if (ch === 0x7d || ch === 0x5d) {
                        if (--depth === 0) {
                            end = i + 1;
                            break;
                        }
                    }
                }
                if (end !== -1) break;
                if (li + 1 >= lines.length || buf.length - start > MAX_MULTILINE_VALUE) return undefined;
                const next = lines[li + 1];
                if (isCompleteObjectLine(next)) return undefined;
                buf += '\n' + next;
                li++;
            }
            try {
                values.push(JSON.parse(buf.slice(start, end)));
            } catch {
                return undefined;
            }
            i = end;
        } else {
            // a scalar: up to whitespace or the next value
            let j = i;
            while (j < buf.length) {
                const ch = buf.charCodeAt(j);
                if (ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x7b || ch === 0x5b) break;
                if (ch === 0x22 && j > i) break;
                if (ch === 0x22) {
                    // string scalar
                    j++;
                    while (j < buf.length && buf.charCodeAt(j) !== 0x22) j += buf.charCodeAt(j) === 0x5c ? 2 : 1;
                    j++;
                    break;
                }
                j++;
            }
            try {
                values.push(JSON.parse(buf.slice(i, j)));
            } catch {
                return undefined;
            }
            i = j;
        }
    }
}

function isCompleteObjectLine(line: string): boolean {
    const i = skipWs(line, 0);
    if (line.charCodeAt(i) !== 0x7b) return false;
    try {
        return isPlainObject(JSON.parse(line));
    } catch {
        return false;
    }
}

/** Trimmed header names, checked: none empty, at most MAX_FIELDS_PER_EVENT. */
function csvHeader(names: string[]): string[] {
    const header = names.map((s) => s.trim());
    if (header.some((h) => h === '')) throw new IngestError(400, 'invalid CSV header: empty field name');
    // Every row would fail the per-event field limit: refuse before building any event.
    if (header.length > MAX_FIELDS_PER_EVENT) {
        throw new IngestError(400, `invalid CSV header: ${header.length} columns; at most ${MAX_FIELDS_PER_EVENT} fields per event are stored`);
    }
    return header;
}

function parseCsv(text: string, options: ParseOptions): ParsedEvents {
    const delimiter = options.csvDelimiter ?? ',';
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
        throw new IngestError(400, `invalid csv-delimiter ${JSON.stringify(delimiter)}: must be one character`);
    }
    const fieldsHeader = (options.csvFields ?? '').trim();
    let header: string[] | undefined;
    if (fieldsHeader !== '') header = csvHeader(fieldsHeader.split(','));
    else {
        // The header row alone first: a huge one is refused before the rows are parsed at all.
        const first = Papa.parse<string[]>(text, { delimiter, header: false, skipEmptyLines: true, preview: 1 });
        if (first.data.length === 0) return { events: [], failures: [] };
        if (first.errors.length) throw new IngestError(400, `invalid CSV header row: ${first.errors[0].code}: ${first.errors[0].message}`);
        csvHeader(first.data[0]);
    }
    const res = Papa.parse<string[]>(text, { delimiter, header: false, skipEmptyLines: true });
    const rows = res.data;
    const rowErrors = new Map<number, string>();
    for (const e of res.errors) {
        if (typeof e.row === 'number' && !rowErrors.has(e.row)) rowErrors.set(e.row, `${e.code}: ${e.message}`);
    }
    let firstData = 0;
    if (header === undefined) {
        if (rows.length === 0) return { events: [], failures: [] };
        if (rowErrors.has(0)) throw new IngestError(400, `invalid CSV header row: ${rowErrors.get(0)}`);
        header = csvHeader(rows[0]);
        firstData = 1;
    }
    const events: RawEvent[] = [];
    const failures: EventFailure[] = [];
    const n = header.length;
    for (let r = firstData; r < rows.length; r++) {
        const row = rows[r];
        const index = r - firstData;
        const rowNo = r + 1; // 1-based record number in the body, header included
        const perr = rowErrors.get(r);
        if (perr !== undefined) {
            failures.push({ index, error: `CSV row ${rowNo}: ${perr}` });
            continue;
        }
        if (row.length !== n) {
            failures.push({ index, error: `CSV row ${rowNo}: has ${row.length} fields, expected ${n}` });
            continue;
        }
        const ev: RawEvent = {};
        for (let k = 0; k < n; k++) {
            const v = row[k];
            if (v !== '') ev[header[k]] = v;
        }
        events.push(ev);
    }
    typeCsvColumns(events);
    return { events, failures };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$|^-?\.\d+$/;

/** A CSV cell as a number, when it is one exactly (no leading zeros, integers within 2^53). */
export function csvNumber(s: string): number | undefined {
    if (!NUMBER.test(s)) return undefined;
    const n = Number(s);
    if (!Number.isFinite(n) || (/^-?\d+$/.test(s) && !Number.isSafeInteger(n))) return undefined;
    return n;
}

function csvBool(s: string): boolean | undefined {
    const lower = s.toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

/**
 * Types CSV columns in place: a column whose every non-empty cell is a number becomes numbers, one
 * whose every cell is true/false becomes booleans; any other column stays strings (so `007` and
 * `10` in one column are both kept as text).
 */
export function typeCsvColumns(events: RawEvent[]): void {
    const kinds = new Map<string, 'number' | 'bool' | 'string'>();
    for (const ev of events) {
        for (const k in ev) {
            const v = ev[k];
            if (typeof v !== 'string') continue;
            const was = kinds.get(k);
            if (was === 'string') continue;
            const isNum = csvNumber(v) !== undefined;
            const isBool = !isNum && csvBool(v) !== undefined;
            const now = isNum ? 'number' : isBool ? 'bool' : 'string';
            kinds.set(k, was === undefined || was === now ? now : 'string');
        }
    }
    for (const ev of events) {
        for (const k in ev) {
            const v = ev[k];
            if (typeof v !== 'string') continue;
            const kind = kinds.get(k);
            if (kind === 'number') ev[k] = csvNumber(v);
            else if (kind === 'bool') ev[k] = csvBool(v);
        }
    }
}


