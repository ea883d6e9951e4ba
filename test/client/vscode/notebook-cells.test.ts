/** The notebook's model (the .aplnb file as VS Code's cells) and one cell's run against a real service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotebookCell } from '../../../client/notebook/aplnb.js';
import { runCell, cellTimeRange, type CellRunOptions } from '../../../client/vscode/src/notebook/cell-runner.js';
import { readNotebookRecord, snapshotAge, writeNotebookRecord } from '../../../client/vscode/src/notebook/notebook-model.js';
import { END, START, serviceWithEvents, type Fixture } from './service-fixture.js';

const FILE = {
    format: 1,
    connection: 'local service',
    timeRange: { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' },
    cells: [
        { kind: 'markdown', text: '# Report' },
        { kind: 'apl', text: 'let n = 3;\n["events"] | take n', timeRange: { start: 'now-1h' } },
        {
            kind: 'apl',
            text: '["events"] | summarize count() by bin(_time, 1h)',
            output: {
                ranAt: '2026-01-01T00:00:00.000Z',
                ranOn: 'local service',
                elapsedMs: 12,
                tables: [{ name: '0', fields: [{ name: '_time', type: 'datetime' }, { name: 'count_', type: 'integer' }], rows: [['2024-01-01T01:00:00Z', 5]], totalRows: 1 }],
                chart: { timeColumn: '_time' },
            },
        },
    ],
};

describe('notebook model', () => {
    it('round-trips every field of the file through the cell records', () => {
        const text = JSON.stringify(FILE);
        const record = readNotebookRecord(text);
        expect(record.cells.map(c => c.kind)).toEqual(['markdown', 'apl', 'apl']);
        expect(record.cells[2].output?.chart?.series[0].values).toEqual([5]);
        expect(JSON.parse(writeNotebookRecord(record))).toEqual(FILE);
    });

    it('saves only the snapshot of a live output (not the run the host holds)', () => {
        const record = readNotebookRecord(JSON.stringify(FILE));
        const output = record.cells[2].output!;
        output.live = { runId: 1, rowCount: 9, pageSize: 1, pageRows: 1, fields: [], columns: [], state: 'done', rowsMatched: 9, requests: 1 };
        expect(JSON.parse(writeNotebookRecord(record))).toEqual(FILE);
    });

    it('says how old a stored output is', () => {
        const ranAt = '2026-01-01T00:00:00.000Z';
        expect(snapshotAge(ranAt, Date.parse(ranAt) + 3 * 3_600_000 + 5)).toBe('ran 3 hours ago');
        expect(snapshotAge(ranAt, Date.parse(ranAt) + 86_400_000)).toBe('ran 1 day ago');
        expect(snapshotAge(ranAt, Date.parse(ranAt) + 10)).toBe('ran just now');
    });

    it('refuses a bad file with the field path', () => {
        expect(() => readNotebookRecord('{"format":1,"cells":[{"kind":"sql","text":""}]}')).toThrow(/cells\[0\]\.kind/);
    });
});

describe('a cell run', () => {
    let fx: Fixture;
    beforeAll(async () => {
        fx = await serviceWithEvents(5000);
    });
    afterAll(async () => fx.close());

    const fallback = { startTime: START, endTime: END, label: 'test' };
    function options(cells: NotebookCell[], index: number, pageable = true): CellRunOptions {
        return {
            cells,
            index,
            fallbackRange: fallback,
            client: fx.client,
            connectionName: 'test',
            paging: 'cursor',
            info: async () => ({ pageable, order: 'asc' }),
            pageSize: 1000,
            cachedPages: 4,
            signal: new AbortController().signal,
            runId: 7,
        };
    }

    it('["events"] | where seq >= lo  (lo from an earlier cell) pages from the service', async () => {
        const cells: NotebookCell[] = [
            { kind: 'apl', text: 'let lo = 0;' },
            { kind: 'apl', text: '["events"] | where seq >= lo' },
        ];
        const r = await runCell(options(cells, 1));
        expect(r.error).toBeUndefined();
        expect(r.output.live?.rowCount).toBe(5000);
        expect(r.output.live?.pageRows).toBe(1000);
        expect(r.output.snapshot.tables[0].rows.length).toBe(500);
        expect(r.output.snapshot.tables[0].totalRows).toBe(5000);
        const second = await r.set!.page(1);
        expect(second.rows).toBe(1000);
        expect(r.set!.requests).toBe(2);
    });

    it('["events"]\\n| where nope > 1  reports the error on the cell\'s own line', async () => {
        const cells: NotebookCell[] = [
            { kind: 'apl', text: 'let lo = 0;\nlet hi = 9;' },
            { kind: 'apl', text: '["events"]\n| where nope(seq) > 1' },
        ];
        const r = await runCell(options(cells, 1, false));
        expect(r.error?.line).toBe(2);
        expect(r.output.snapshot.error?.line).toBe(2);
        expect(r.output.live).toBeUndefined();
    });

    it('takes the cell\'s time range over the notebook\'s', () => {
        const now = Date.parse('2024-01-01T12:00:00Z');
        const r = cellTimeRange({ start: 'now-1h' }, { start: '2020-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }, fallback, now);
        expect(r.startTime).toBe('2024-01-01T11:00:00Z');
        expect(r.endTime).toBe('2024-01-02T00:00:00Z');
        expect(cellTimeRange(undefined, undefined, fallback, now)).toBe(fallback);
        expect(() => cellTimeRange({ start: 'yesterdayish' }, undefined, fallback, now)).toThrow(/time range/);
    });
});

describe('cell preludes for the language server', () => {
    it('gives each APL cell the lets above it and the names only cells below define', async () => {
        const { cellPreludes } = await import('../../../client/vscode/src/notebook/cell-preludes.js');
        const cells: NotebookCell[] = [
            { kind: 'apl', text: 'let lo = 1;' },
            { kind: 'markdown', text: '# x' },
            { kind: 'apl', text: "['events'] | where seq > lo and seq < hi" },
            { kind: 'apl', text: "// as recent\nlet hi = 9;\n['events'] | take 3" },
        ];
        expect(cellPreludes(cells)).toEqual([
            { index: 0, prelude: '', later: [{ name: 'hi', cell: 4 }, { name: 'recent', cell: 4 }] },
            { index: 2, prelude: 'let lo = 1;\n', later: [{ name: 'hi', cell: 4 }, { name: 'recent', cell: 4 }] },
            { index: 3, prelude: 'let lo = 1;\n', later: [] },
        ]);
    });
});
