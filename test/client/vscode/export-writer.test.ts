/** exportPages writes real files: every row once, in each format, nothing left behind when it fails. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportIncompleteError, exportPages } from '../../../client/vscode/src/results/export-writer.js';
import { ResultSet, type ResultPage } from '../../../client/vscode/src/results/result-set.js';
import { END, serviceWithEvents, START, type Fixture } from './service-fixture.js';

const N = 2300;
let fx: Fixture;
let dir: string;

beforeAll(async () => {
    fx = await serviceWithEvents(N);
    dir = mkdtempSync(join(tmpdir(), 'apl-export-'));
});
afterAll(async () => {
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
});

async function openAll(): Promise<ResultSet> {
    return ResultSet.open({ client: fx.client, apl: "['events']", mode: 'cursor', pageSize: 1000, order: 'desc', startTime: START, endTime: END, cachedPages: 1, signal: new AbortController().signal });
}

describe('exportPages', () => {
    it("['events'] to CSV: a header and every event exactly once (rows written = rowsMatched), quoting per RFC 4180", async () => {
        const set = await openAll();
        const file = join(dir, 'all.csv');
        const progress: number[] = [];
        const summary = await exportPages(set.allPages(new AbortController().signal), file, 'csv', rows => progress.push(rows));
        expect(summary.rows).toBe(set.rowsMatched);
        expect(progress).toEqual([1000, 2000, 2300]);
        const parsed = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
        expect(parsed.errors).toEqual([]);
        expect(parsed.data).toHaveLength(N);
        expect(new Set(parsed.data.map(r => r.seq)).size).toBe(N);
        expect(parsed.data.find(r => r.seq === '3')?.word).toBe('a,"b"');
        expect(readFileSync(file, 'utf8')).toContain('"a,""b"""');
    });

    it("['events'] to NDJSON and JSON", async () => {
        const set = await openAll();
        const nd = join(dir, 'all.ndjson');
        await exportPages(set.allPages(new AbortController().signal), nd, 'ndjson');
        const lines = readFileSync(nd, 'utf8').trimEnd().split('\n').map(l => JSON.parse(l) as { seq: number });
        expect(new Set(lines.map(l => l.seq)).size).toBe(N);
        const js = join(dir, 'all.json');
        await exportPages(set.allPages(new AbortController().signal), js, 'json');
        const array = JSON.parse(readFileSync(js, 'utf8')) as { seq: number; _time: string }[];
        expect(array).toHaveLength(N);
        expect(typeof array[0]._time).toBe('string');
    });

    it('CSV guards what a spreadsheet would run (=, +, -, @, tab, CR first) in values and names; numbers stay exact; the guard can be turned off', async () => {
        async function* page(): AsyncIterable<ResultPage> {
            yield { fields: [{ name: '=name', type: 'string' }, { name: 'n', type: 'real' }], columns: [['=HYPERLINK("http://evil")', '+1', '-2+3', '@SUM(A1)', 'ok'], [-5, -0.5, 1e21, 0, -7]], rows: 5 };
        }
        const guarded = join(dir, 'guarded.csv');
        await exportPages(page(), guarded, 'csv');
        expect(readFileSync(guarded, 'utf8')).toBe(`'=name,n\n"'=HYPERLINK(""http://evil"")",-5\n+1,-0.5\n'-2+3,1e+21\n'@SUM(A1),0\nok,-7\n`);
        const exact = join(dir, 'exact.csv');
        await exportPages(page(), exact, 'csv', undefined, { formulaGuard: false });
        expect(readFileSync(exact, 'utf8')).toBe(`=name,n\n"=HYPERLINK(""http://evil"")",-5\n+1,-0.5\n-2+3,1e+21\n@SUM(A1),0\nok,-7\n`);
    });

    it('an empty result: a JSON [] and an empty CSV', async () => {
        const empty: ResultPage = { fields: [{ name: 'a', type: 'string' }], columns: [[]], rows: 0 };
        async function* one() {
            yield empty;
        }
        const js = join(dir, 'empty.json');
        expect((await exportPages(one(), js, 'json')).rows).toBe(0);
        expect(JSON.parse(readFileSync(js, 'utf8'))).toEqual([]);
        const csv = join(dir, 'empty.csv');
        await exportPages(one(), csv, 'csv');
        expect(readFileSync(csv, 'utf8')).toBe('a\n');
    });

    it('a field that first appears after the CSV header is reported, and kept in NDJSON', async () => {
        async function* pages(): AsyncGenerator<ResultPage> {
            yield { fields: [{ name: 'a', type: 'integer' }], columns: [[1]], rows: 1 };
            yield { fields: [{ name: 'a', type: 'integer' }, { name: 'late', type: 'string' }], columns: [[2], ['x']], rows: 1 };
        }
        const csv = join(dir, 'late.csv');
        expect((await exportPages(pages(), csv, 'csv')).fieldsAfterHeader).toEqual(['late']);
        expect(readFileSync(csv, 'utf8')).toBe('a\n1\n2\n');
        const nd = join(dir, 'late.ndjson');
        await exportPages(pages(), nd, 'ndjson');
        expect(readFileSync(nd, 'utf8')).toBe('{"a":1}\n{"a":2,"late":"x"}\n');
    });

    it('a cancelled export leaves neither the file nor a partial one', async () => {
        const set = await openAll();
        const controller = new AbortController();
        const file = join(dir, 'cancelled.csv');
        await expect(
            exportPages(set.allPages(controller.signal), file, 'csv', rows => {
                if (rows >= 1000) controller.abort();
            }),
        ).rejects.toThrow();
        expect(existsSync(file)).toBe(false);
        expect(readdirSync(dir).filter(f => f.startsWith('cancelled'))).toEqual([]);
    });
});

describe('exportPages checks the rows written against the rows matched', () => {
    async function* twoPages(): AsyncGenerator<ResultPage> {
        yield { fields: [{ name: 'a', type: 'integer' }], columns: [[1, 2]], rows: 2 };
        yield { fields: [{ name: 'a', type: 'integer' }], columns: [[3]], rows: 1 };
    }

    it('3 rows written of 3 matched: the summary says 3', async () => {
        const file = join(dir, 'checked.csv');
        expect((await exportPages(twoPages(), file, 'csv', undefined, { expectedRows: 3 })).rows).toBe(3);
        expect(readFileSync(file, 'utf8')).toBe('a\n1\n2\n3\n');
    });

    it('3 rows written of 5 matched: ExportIncompleteError naming both, and no file', async () => {
        for (const format of ['csv', 'ndjson', 'json'] as const) {
            const file = join(dir, `short.${format}`);
            const err = await exportPages(twoPages(), file, format, undefined, { expectedRows: 5 }).catch((e: unknown) => e);
            expect(err).toBeInstanceOf(ExportIncompleteError);
            expect(err).toMatchObject({ written: 3, expected: 5 });
            expect(existsSync(file)).toBe(false);
            expect(readdirSync(dir).filter(f => f.startsWith('short.'))).toEqual([]);
        }
    });
});

describe('exportPages to Excel and Parquet', () => {
    it("['events'] to xlsx: a header and every event, read back with exceljs", async () => {
        const ExcelJS = (await import('exceljs')).default;
        const set = await openAll();
        const file = join(dir, 'all.xlsx');
        const progress: number[] = [];
        const summary = await exportPages(set.allPages(new AbortController().signal), file, 'xlsx', rows => progress.push(rows), { expectedRows: N });
        expect(summary.rows).toBe(N);
        expect(progress).toEqual([1000, 2000, 2300]);
        const book = new ExcelJS.Workbook();
        await book.xlsx.readFile(file);
        const sheet = book.worksheets[0];
        expect(sheet.rowCount).toBe(N + 1);
        const header = (sheet.getRow(1).values as unknown[]).slice(1);
        const seqColumn = header.indexOf('seq') + 1;
        const seqs = new Set<unknown>();
        sheet.eachRow((row, i) => {
            if (i > 1) seqs.add(row.getCell(seqColumn).value);
        });
        expect(seqs.size).toBe(N);
        // Numbers are numbers; a value a spreadsheet would run is text, not a formula.
        expect(typeof sheet.getRow(2).getCell(seqColumn).value).toBe('number');
        expect(readdirSync(dir).filter(f => f.includes('.partial-'))).toEqual([]);
    });

    it("['events'] to Parquet: every event once, read back with hyparquet, with its column types", async () => {
        const { parquetReadObjects } = await import('hyparquet');
        const set = await openAll();
        const file = join(dir, 'all.parquet');
        const summary = await exportPages(set.allPages(new AbortController().signal), file, 'parquet', undefined, { expectedRows: N });
        expect(summary.rows).toBe(N);
        const buffer = readFileSync(file);
        const rows = (await parquetReadObjects({ file: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) })) as Record<string, unknown>[];
        expect(rows).toHaveLength(N);
        expect(new Set(rows.map(r => r.seq)).size).toBe(N);
        expect(typeof rows[0].seq).toBe('bigint');
        expect(rows[0]._time).toBeInstanceOf(Date);
    });

    it('Excel: a value longer than a cell holds is cut there (and counted); text starting with = stays text', async () => {
        const ExcelJS = (await import('exceljs')).default;
        async function* page(): AsyncIterable<ResultPage> {
            yield { fields: [{ name: 's', type: 'string' }, { name: 'o', type: 'dynamic' }], columns: [['x'.repeat(40_000), '=HYPERLINK("http://evil")'], [{ a: 1 }, null]], rows: 2 };
        }
        const file = join(dir, 'long.xlsx');
        const summary = await exportPages(page(), file, 'xlsx');
        expect(summary.cellsCut).toBe(1);
        const book = new ExcelJS.Workbook();
        await book.xlsx.readFile(file);
        const sheet = book.worksheets[0];
        expect(String(sheet.getRow(2).getCell(1).value)).toHaveLength(32_767);
        expect(sheet.getRow(2).getCell(2).value).toBe('{"a":1}');
        expect(sheet.getRow(3).getCell(1).value).toBe('=HYPERLINK("http://evil")');
        expect(sheet.getRow(3).getCell(1).formula).toBeUndefined();
    });
});
