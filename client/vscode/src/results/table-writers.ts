/**
 * The binary export formats, written page by page like the text ones (export-writer.ts): Excel
 * (`.xlsx`, exceljs's streaming WorkbookWriter: each row is committed to the zip stream as it
 * comes) and Parquet (hyparquet-writer's ParquetWriter: one row group per page, each flushed to
 * the file before the next page is read). The columns are the first page's fields; a field that
 * first appears later is reported, as for CSV.
 *
 * Excel: numbers and booleans as such, text as text cells (never formulas), nested values as
 * JSON; a sheet holds at most 1,048,576 rows (the header included), so the rows go on in a next
 * sheet; a cell holds at most 32,767 characters, so a longer value is cut there (said in the summary).
 * Parquet: integers as INT64, reals as DOUBLE, booleans as BOOLEAN, times as TIMESTAMP (ms, UTC),
 * everything else as STRING (nested values as JSON). Values that do not fit the column's type are null.
 */
import { open, type FileHandle } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { ByteWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import type { TableField } from '../../../api/types.js';
import type { ResultPage } from './result-set.js';

export interface TableWriter {
    /** Writes a page (its rows, in the columns of the first page). */
    write(page: ResultPage): Promise<void>;
    /** Ends the file; the number of cells cut to fit the format. */
    close(): Promise<{ cut: number }>;
    /** Stops, leaving whatever was written (the caller removes it). */
    abort(): Promise<void>;
}

/** Excel's limits (https://support.microsoft.com/en-us/office/excel-specifications-and-limits). */
export const XLSX_MAX_ROWS = 1_048_576;
export const XLSX_MAX_CELL_CHARS = 32_767;

function columnOrder(header: readonly string[], page: ResultPage): number[] {
    const index = new Map(page.fields.map((f, i) => [f.name, i]));
    return header.map(name => index.get(name) ?? -1);
}

export function xlsxWriter(file: string, fields: readonly TableField[]): TableWriter {
    const header = fields.map(f => f.name);
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
    let sheet: ExcelJS.Worksheet | undefined;
    let sheetRows = 0;
    let sheets = 0;
    let cut = 0;
    const newSheet = () => {
        sheet?.commit();
        sheets++;
        sheet = book.addWorksheet(sheets === 1 ? 'Result' : `Result ${sheets}`);
        sheet.addRow(header).commit();
        sheetRows = 1;
    };
    const cell = (v: unknown): string | number | boolean | null => {
        if (v === null || v === undefined) return null;
        if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
        if (typeof v === 'boolean') return v;
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        if (text.length <= XLSX_MAX_CELL_CHARS) return text;
        cut++;
        return text.slice(0, XLSX_MAX_CELL_CHARS);
    };
    newSheet();
    return {
        async write(page) {
            const order = columnOrder(header, page);
            for (let r = 0; r < page.rows; r++) {
                if (sheetRows >= XLSX_MAX_ROWS) newSheet();
                sheet!.addRow(order.map(c => (c < 0 ? null : cell(page.columns[c][r])))).commit();
                sheetRows++;
            }
            // Let the zip stream drain between pages.
            await new Promise<void>(resolve => setImmediate(resolve));
        },
        async close() {
            sheet?.commit();
            await book.commit();
            return { cut };
        },
        async abort() {
            try {
                sheet?.commit();
                await book.commit();
            } catch {
                // the file is removed anyway
            }
        },
    };
}

type ParquetType = 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP' | 'STRING';

export function parquetType(type: string): ParquetType {
    const t = type.split('|')[0].toLowerCase();
    if (t === 'integer' || t === 'long' || t === 'int') return 'INT64';
    if (t === 'float' || t === 'real' || t === 'double' || t === 'number' || t === 'decimal') return 'DOUBLE';
    if (t === 'boolean' || t === 'bool') return 'BOOLEAN';
    if (t === 'datetime' || t === 'date' || t === 'timestamp') return 'TIMESTAMP';
    return 'STRING';
}

function parquetValue(type: ParquetType, v: unknown): unknown {
    if (v === null || v === undefined) return null;
    switch (type) {
        case 'INT64':
            if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
            if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
            return null;
        case 'DOUBLE': {
            const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
            return Number.isNaN(n) ? null : n;
        }
        case 'BOOLEAN':
            return typeof v === 'boolean' ? v : null;
        case 'TIMESTAMP': {
            const t = typeof v === 'string' ? Date.parse(v) : NaN;
            return Number.isFinite(t) ? new Date(t) : null;
        }
        case 'STRING':
            return typeof v === 'string' ? v : JSON.stringify(v);
    }
}

/** hyparquet-writer's ByteWriter, flushed to the file after every row group (memory stays at about a page). */
class FileByteWriter extends ByteWriter {
    constructor(private readonly handle: FileHandle) {
        super(1 << 20);
    }

    async flush(): Promise<void> {
        if (this.index === 0) return;
        const chunk = new Uint8Array(this.buffer.slice(0, this.index));
        this.index = 0;
        await this.handle.write(chunk);
    }

    async finish(): Promise<void> {
        await this.flush();
    }
}

export async function parquetWriter(file: string, fields: readonly TableField[]): Promise<TableWriter> {
    const handle = await open(file, 'w');
    const types = fields.map(f => parquetType(f.type));
    const header = fields.map(f => f.name);
    const schema = schemaFromColumnData({ columnData: header.map((name, i) => ({ name, data: [], type: types[i], nullable: true })) });
    const bytes = new FileByteWriter(handle);
    const writer = new ParquetWriter({ writer: bytes, schema });
    let closed = false;
    return {
        async write(page) {
            if (page.rows === 0) return;
            const order = columnOrder(header, page);
            const columnData = header.map((name, i) => {
                const source = order[i] < 0 ? undefined : page.columns[order[i]];
                const data = new Array<unknown>(page.rows);
                for (let r = 0; r < page.rows; r++) data[r] = parquetValue(types[i], source?.[r]);
                return { name, data, type: types[i], nullable: true };
            });
            await writer.write({ columnData, rowGroupSize: page.rows });
            await bytes.flush();
        },
        async close() {
            await writer.finish();
            closed = true;
            await handle.close();
            return { cut: 0 };
        },
        async abort() {
            if (!closed) await handle.close();
            closed = true;
        },
    };
}
