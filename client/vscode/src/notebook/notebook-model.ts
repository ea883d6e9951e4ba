/**
 * The `.aplnb` file (client/notebook/aplnb.ts) as VS Code's notebook model sees it, without the
 * `vscode` module: plain cell records that notebook-serializer.ts turns into NotebookCellData. An
 * APL cell's output is one JSON item of OUTPUT_MIME (what the renderer draws); its `snapshot` is
 * exactly what the file stores, so saving a notebook keeps what the output shows, trimmed by
 * snapshotTables, and a reopened notebook shows it again without asking the service.
 */
import { APLNB_FORMAT, parseNotebook, serializeNotebook, type AplNotebook, type CellSnapshot, type NotebookCell, type NotebookTimeRange } from '../../../notebook/aplnb.js';
import type { TableField } from '../../../api/types.js';
import { snapshotChart } from '../../../notebook/stored-chart.js';
import type { ChartData } from '../results/chart-data.js';

export const NOTEBOOK_TYPE = 'apl-notebook';
export const OUTPUT_MIME = 'application/vnd.apl-tools.result+json';

/** What a live output adds to its snapshot: the run the renderer asks for more pages of. */
export interface LiveResult {
    runId: number;
    rowCount: number;
    pageSize: number;
    /** Rows of the snapshot's first table that make the first page (the snapshot may hold fewer). */
    pageRows: number;
    fields: TableField[];
    /** The first page, column-major, as the grid shows it. */
    columns: unknown[][];
    state: 'running' | 'done' | 'error' | 'cancelled';
    rowsMatched: number;
    requests: number;
}

/** The JSON of an output item: the snapshot always, the live run while the host holds it. */
export interface CellOutputData {
    snapshot: CellSnapshot;
    live?: LiveResult;
    chart?: ChartData;
    /** The cell's time range label, for the status line. */
    range?: string;
}

export interface CellRecord {
    kind: 'markdown' | 'apl';
    text: string;
    /** Per-cell time range (cell metadata `timeRange`). */
    timeRange?: NotebookTimeRange;
    output?: CellOutputData;
}

export interface NotebookRecord {
    connection?: string;
    timeRange?: NotebookTimeRange;
    cells: CellRecord[];
}

export function readNotebookRecord(text: string): NotebookRecord {
    const nb = parseNotebook(text);
    return {
        ...(nb.connection !== undefined && { connection: nb.connection }),
        ...(nb.timeRange && { timeRange: nb.timeRange }),
        cells: nb.cells.map((c): CellRecord => {
            if (c.kind === 'markdown') return { kind: 'markdown', text: c.text };
            const chart = c.output ? snapshotChart(c.output) : undefined;
            return {
                kind: 'apl',
                text: c.text,
                ...(c.timeRange && { timeRange: c.timeRange }),
                ...(c.output && { output: { snapshot: c.output, ...(chart && { chart }) } }),
            };
        }),
    };
}

/** The notebook as the format has it (a live output's rows beyond its snapshot are not saved). */
export function toAplNotebook(record: NotebookRecord): AplNotebook {
    return {
        format: APLNB_FORMAT,
        ...(record.connection !== undefined && { connection: record.connection }),
        ...(record.timeRange && { timeRange: record.timeRange }),
        cells: record.cells.map((c): NotebookCell => {
            if (c.kind === 'markdown') return { kind: 'markdown', text: c.text };
            return { kind: 'apl', text: c.text, ...(c.timeRange && { timeRange: c.timeRange }), ...(c.output && { output: c.output.snapshot }) };
        }),
    };
}

export function writeNotebookRecord(record: NotebookRecord): string {
    return serializeNotebook(toAplNotebook(record));
}

/** "ran 3 hours ago", for a stored output's status line. */
export function snapshotAge(ranAt: string, now: number): string {
    const ms = now - Date.parse(ranAt);
    if (!Number.isFinite(ms)) return 'ran at an unknown time';
    if (ms < 60_000) return 'ran just now';
    const units: [number, string][] = [
        [86_400_000, 'day'],
        [3_600_000, 'hour'],
        [60_000, 'minute'],
    ];
    for (const [size, name] of units) {
        const n = Math.floor(ms / size);
        if (n >= 1) return `ran ${n} ${name}${n === 1 ? '' : 's'} ago`;
    }
    return 'ran just now';
}
