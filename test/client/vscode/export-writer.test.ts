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
