/**
 * The .aplnb serializer as VS Code calls it: bytes in, NotebookData out and back. Only VS Code's
 * notebook classes are mocked (plain records of what VS Code would hold).
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', () => {
    class NotebookCellData {
        metadata?: Record<string, unknown>;
        outputs?: unknown[];
        constructor(
            readonly kind: number,
            readonly value: string,
            readonly languageId: string,
        ) {}
    }
    class NotebookData {
        metadata?: Record<string, unknown>;
        constructor(readonly cells: NotebookCellData[]) {}
    }
    class NotebookCellOutput {
        constructor(readonly items: { mime: string; data: Uint8Array }[]) {}
    }
    const NotebookCellOutputItem = { json: (value: unknown, mime: string) => ({ mime, data: new TextEncoder().encode(JSON.stringify(value)) }) };
    return { NotebookCellData, NotebookData, NotebookCellOutput, NotebookCellOutputItem, NotebookCellKind: { Markup: 1, Code: 2 } };
});

const { AplNotebookSerializer } = await import('../../../client/vscode/src/notebook/notebook-extension.js');
const { OUTPUT_MIME } = await import('../../../client/vscode/src/notebook/notebook-model.js');

const FILE = {
    format: 1,
    connection: 'prod',
    timeRange: { start: 'now-6h' },
    cells: [
        { kind: 'markdown', text: '# Errors' },
        { kind: 'apl', text: "['events'] | where seq > 1", timeRange: { start: 'now-1h', end: 'now' } },
        {
            kind: 'apl',
            text: "['events'] | where nope(x)",
            output: { ranAt: '2026-01-01T00:00:00.000Z', ranOn: 'prod', elapsedMs: 3, tables: [], error: { message: "'nope' is not a known function", line: 1, column: 20 } },
        },
    ],
};
const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as unknown;

describe('the .aplnb serializer', () => {
    const serializer = new AplNotebookSerializer();

    it('reads markdown and APL cells, the notebook and cell metadata, and a stored output as the renderer\'s JSON', () => {
        const data = serializer.deserializeNotebook(bytes(FILE));
        expect(data.cells.map(c => [c.kind, c.languageId])).toEqual([
            [1, 'markdown'],
            [2, 'apl'],
            [2, 'apl'],
        ]);
        expect(data.metadata).toEqual({ connection: 'prod', timeRange: { start: 'now-6h' } });
        expect(data.cells[1].metadata).toEqual({ timeRange: { start: 'now-1h', end: 'now' } });
        const item = data.cells[2].outputs![0].items[0];
        expect(item.mime).toBe(OUTPUT_MIME);
        expect(json(item.data)).toEqual({ snapshot: FILE.cells[2].output });
    });

    it('writes back every field', () => {
        expect(json(serializer.serializeNotebook(serializer.deserializeNotebook(bytes(FILE))))).toEqual(FILE);
    });

    it('saves a live output as its snapshot only, and ignores outputs of other kinds', () => {
        const data = serializer.deserializeNotebook(bytes(FILE));
        const snapshot = { ranAt: '2026-01-02T00:00:00.000Z', ranOn: 'prod', tables: [{ name: '0', fields: [{ name: 'seq', type: 'integer' }], rows: [[1]], totalRows: 5000 }] };
        const live = { runId: 3, rowCount: 5000, pageSize: 1000, pageRows: 1000, fields: [{ name: 'seq', type: 'integer' }], columns: [Array.from({ length: 1000 }, (_, i) => i)], state: 'done', rowsMatched: 5000, requests: 1 };
        data.cells[1].outputs = [
            { items: [{ mime: 'text/plain', data: new TextEncoder().encode('x') }] },
            { items: [{ mime: OUTPUT_MIME, data: bytes({ snapshot, live }) }] },
        ];
        const saved = json(serializer.serializeNotebook(data)) as typeof FILE;
        expect((saved.cells[1] as { output?: unknown }).output).toEqual(snapshot);
    });

    it('reads no bytes (an untitled notebook opened by name, as an import does) as a notebook without cells', () => {
        expect(serializer.deserializeNotebook(new Uint8Array()).cells).toEqual([]);
    });

    it('refuses a bad file naming the field', () => {
        expect(() => serializer.deserializeNotebook(bytes({ format: 1, cells: [{ kind: 'apl' }] }))).toThrow(/cells\[0\]\.text/);
    });
});
