/** The `.aplnb` format: every field round-trips, and a bad file is refused naming the field. */
import { describe, expect, it } from 'vitest';
import { APLNB_FORMAT, NotebookFormatError, parseNotebook, serializeNotebook, snapshotTables, SNAPSHOT_MAX_ROWS, type AplNotebook } from '../../../client/notebook/aplnb.js';

const FULL: AplNotebook = {
    format: APLNB_FORMAT,
    connection: 'local',
    timeRange: { start: 'now-1h', end: 'now' },
    cells: [
        { kind: 'markdown', text: '# Errors\nBy status.' },
        {
            kind: 'apl',
            text: "// as errors\n['sample-http-logs'] | where status == '500'",
            timeRange: { start: '2026-01-01T00:00:00Z' },
            output: {
                ranAt: '2026-11-28T07:00:00.000Z',
                ranOn: 'local',
                elapsedMs: 12,
                isPartial: false,
                messages: ['a message'],
                tables: [{ name: '0', fields: [{ name: 'status', type: 'string' }, { name: 'n', type: 'long' }], rows: [['500', 3]], totalRows: 40 }],
            },
        },
        { kind: 'apl', text: 'errors | count', output: { ranAt: '2026-11-28T07:00:01.000Z', tables: [], error: { message: 'unknown dataset', line: 1, column: 1 } } },
    ],
};

describe('aplnb', () => {
    it('every field round-trips through serialize and parse', () => {
        expect(parseNotebook(serializeNotebook(FULL))).toEqual(FULL);
    });

    it('an empty file is an empty notebook (VS Code creates new files empty)', () => {
        expect(parseNotebook('')).toEqual({ format: APLNB_FORMAT, cells: [] });
    });

    it.each([
        ['{', '(file)'],
        ['[]', '(file)'],
        ['{"format":2,"cells":[]}', 'format'],
        ['{"format":1}', 'cells'],
        ['{"format":1,"cells":[{"kind":"sql","text":"x"}]}', 'cells[0].kind'],
        ['{"format":1,"cells":[{"kind":"apl"}]}', 'cells[0].text'],
        ['{"format":1,"cells":[{"kind":"apl","text":"x","timeRange":{"start":3}}]}', 'cells[0].timeRange.start'],
        ['{"format":1,"cells":[{"kind":"apl","text":"x","output":{"tables":[]}}]}', 'cells[0].output.ranAt'],
        ['{"format":1,"cells":[{"kind":"apl","text":"x","output":{"ranAt":"2026-01-01T00:00:00Z","tables":[{"fields":[{"name":"a","type":"long"}],"rows":[[1,2]]}]}}]}', 'cells[0].output.tables[0].rows[0]'],
        ['{"format":1,"cells":[{"kind":"apl","text":"x","output":{"ranAt":"2026-01-01T00:00:00Z","tables":[],"error":{"message":"m","line":0}}}]}', 'cells[0].output.error.line'],
    ])('%s is refused at %s', (text, path) => {
        expect(() => parseNotebook(text)).toThrow(NotebookFormatError);
        try {
            parseNotebook(text);
        } catch (e) {
            expect((e as NotebookFormatError).path).toBe(path);
        }
    });

    it('a snapshot keeps at most SNAPSHOT_MAX_ROWS rows and counts the rest', () => {
        const rows = Array.from({ length: 2000 }, (_, i) => [i]);
        const [t] = snapshotTables([{ name: '0', fields: [{ name: 'i', type: 'long' }], rows }]);
        expect(t.rows.length).toBe(SNAPSHOT_MAX_ROWS);
        expect(t.totalRows).toBe(2000);
    });

    it('a snapshot of wide rows stops at the byte budget', () => {
        const rows = Array.from({ length: 100 }, () => ['x'.repeat(10_000)]);
        const [t] = snapshotTables([{ name: '0', fields: [{ name: 's', type: 'string' }], rows }]);
        expect(t.rows.length).toBeLessThan(30);
        expect(t.totalRows).toBe(100);
    });
});
