/**
 * Writes every row of a run to a file, page by page as they come from the service, with the
 * stream's back-pressure respected: memory stays at about one page whatever the row count. The
 * rows never pass through the webview.
 *
 * Formats: `csv` (RFC 4180, a header of the first page's fields; text a spreadsheet would run as a
 * formula gets a leading `'` unless `formulaGuard` is off), `ndjson` (one object per line),
 * `json` (an array of objects, one per line), and the binary `xlsx` and `parquet` (table-writers.ts).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { csvField } from '../../../cli/render.js';
import type { ResultPage } from './result-set.js';
import { parquetWriter, xlsxWriter, type TableWriter } from './table-writers.js';

export const EXPORT_FORMATS = ['csv', 'ndjson', 'json', 'xlsx', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(value: unknown): value is ExportFormat {
    return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

export interface ExportSummary {
    rows: number;
    bytes: number;
    /** Fields that first appeared after the CSV header was written (their values are not in the CSV). */
    fieldsAfterHeader: string[];
    /** Excel: cells cut to the format's 32,767 characters. */
    cellsCut?: number;
}

export interface ExportOptions {
    /** The rows the query matched: an export that wrote another number fails (ExportIncompleteError). */
    expectedRows?: number;
    /** CSV: a text that a spreadsheet would run as a formula gets a leading `'` (OWASP); off for exact data. */
    formulaGuard?: boolean;
}

/** The pages gave another number of rows than the query matched: the file would silently be wrong. */
export class ExportIncompleteError extends Error {
    constructor(
        readonly written: number,
        readonly expected: number,
    ) {
        super(`the export wrote ${written.toLocaleString('en-US')} rows, but the query matched ${expected.toLocaleString('en-US')}: no file was written`);
        this.name = 'ExportIncompleteError';
    }
}

/**
 * Streams `pages` to `file` in `format`. The file is written next to its target under a temporary
 * name and renamed at the end, so a cancelled, failed or incomplete export leaves no half file behind.
 */
export async function exportPages(
    pages: AsyncIterable<ResultPage>,
    file: string,
    format: ExportFormat,
    onProgress: (rows: number) => void = () => undefined,
    options: ExportOptions = {},
): Promise<ExportSummary> {
    if (format === 'xlsx' || format === 'parquet') return exportTable(pages, file, format, onProgress, options);
    const formulaGuard = options.formulaGuard ?? true;
    const csv = (v: unknown) => csvField(v, formulaGuard);
    const partial = `${file}.partial-${process.pid}`;
    const out = createWriteStream(partial, { encoding: 'utf8' });
    const writer = new ChunkWriter(out);
    let rows = 0;
    let header: string[] | undefined;
    const late = new Set<string>();
    try {
        if (format === 'json') await writer.write('[');
        for await (const page of pages) {
            const names = page.fields.map(f => f.name);
            const lines: string[] = [];
            if (format === 'csv') {
                if (!header) {
                    header = names;
                    lines.push(header.map(csv).join(','));
                }
                const order = header.map(name => names.indexOf(name));
                for (const name of names) if (!header.includes(name)) late.add(name);
                for (let r = 0; r < page.rows; r++) {
                    const cells = order.map(c => (c < 0 ? '' : csv(page.columns[c][r])));
                    lines.push(cells.join(','));
                }
                await writer.write(lines.join('\n') + (lines.length ? '\n' : ''));
            } else {
                for (let r = 0; r < page.rows; r++) {
                    const row: Record<string, unknown> = {};
                    for (let c = 0; c < names.length; c++) row[names[c]] = page.columns[c][r] ?? null;
                    const json = JSON.stringify(row);
                    lines.push(format === 'json' ? `${rows + r === 0 ? '\n' : ',\n'}${json}` : `${json}\n`);
                }
                await writer.write(lines.join(''));
            }
            rows += page.rows;
            onProgress(rows);
        }
        if (format === 'csv' && !header) await writer.write('');
        if (format === 'json') await writer.write(rows === 0 ? ']\n' : '\n]\n');
        await writer.close();
        if (options.expectedRows !== undefined && rows !== options.expectedRows) throw new ExportIncompleteError(rows, options.expectedRows);
        await rename(partial, file);
        return { rows, bytes: writer.bytes, fieldsAfterHeader: [...late] };
    } catch (e) {
        out.destroy();
        await rm(partial, { force: true });
        throw e;
    }
}

/** The binary formats: the columns of the first page, a page at a time, through a `TableWriter`. */
async function exportTable(pages: AsyncIterable<ResultPage>, file: string, format: 'xlsx' | 'parquet', onProgress: (rows: number) => void, options: ExportOptions): Promise<ExportSummary> {
    const partial = `${file}.partial-${process.pid}`;
    let writer: TableWriter | undefined;
    let header: string[] = [];
    const late = new Set<string>();
    let rows = 0;
    try {
        for await (const page of pages) {
            if (!writer) {
                header = page.fields.map(f => f.name);
                writer = format === 'xlsx' ? xlsxWriter(partial, page.fields) : await parquetWriter(partial, page.fields);
            }
            for (const f of page.fields) if (!header.includes(f.name)) late.add(f.name);
            await writer.write(page);
            rows += page.rows;
            onProgress(rows);
        }
        writer ??= format === 'xlsx' ? xlsxWriter(partial, []) : await parquetWriter(partial, []);
        const { cut } = await writer.close();
        if (options.expectedRows !== undefined && rows !== options.expectedRows) throw new ExportIncompleteError(rows, options.expectedRows);
        const { size } = await stat(partial);
        await rename(partial, file);
        return { rows, bytes: size, fieldsAfterHeader: [...late], ...(cut > 0 ? { cellsCut: cut } : {}) };
    } catch (e) {
        await writer?.abort().catch(() => undefined);
        await rm(partial, { force: true });
        throw e;
    }
}

/** Writes strings to a file stream, waiting for 'drain' when its buffer is full. */
class ChunkWriter {
    bytes = 0;
    constructor(private readonly out: WriteStream) {}

    async write(text: string): Promise<void> {
        if (text === '') return;
        this.bytes += Buffer.byteLength(text);
        if (!this.out.write(text)) {
            await new Promise<void>((resolve, reject) => {
                const onError = (e: Error) => reject(e);
                this.out.once('error', onError);
                this.out.once('drain', () => {
                    this.out.off('error', onError);
                    resolve();
                });
            });
        }
    }

    close(): Promise<void> {
        return new Promise((resolve, reject) => {
            this.out.once('error', reject);
            this.out.end(() => resolve());
        });
    }
}
