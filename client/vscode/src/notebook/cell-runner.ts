/**
 * Runs one APL cell of a notebook against a service, without the `vscode` module: the cell's script
 * (client/notebook/cell-script.ts: the lets of the cells above, their `// as NAME` results), its time
 * range (the cell's, else the notebook's, else the editor's), a ResultSet that stays in the host
 * for the renderer's pages and export, and the output data: the snapshot the file stores, and the
 * first page the grid shows. A service error's position is mapped onto the cell's own lines.
 */
import type { AplClient } from '../../../api/client.js';
import { queryErrorLocation } from '../../../api/errors.js';
import type { PagingKind } from '../../../api/paging.js';
import { rowCount } from '../../../api/rows.js';
import { resolveTimeRange as resolveArgs } from '../../../cli/time-arg.js';
import { snapshotTables, type CellError, type NotebookCell, type NotebookTimeRange } from '../../../notebook/aplnb.js';
import { cellLine, cellScript } from '../../../notebook/cell-script.js';
import { chartData } from '../results/chart-data.js';
import { ResultSet, type ResultMode } from '../results/result-set.js';
import type { ResolvedTimeRange } from '../time-range.js';
import type { CellOutputData } from './notebook-model.js';

export interface CellQueryInfo {
    pageable: boolean;
    order: 'asc' | 'desc';
    timeColumn?: string;
}

export interface CellRunOptions {
    cells: readonly NotebookCell[];
    index: number;
    notebookRange?: NotebookTimeRange;
    /** The editor's range, for a cell and notebook that set none (or set only an end). */
    fallbackRange: ResolvedTimeRange;
    client: AplClient;
    /** The connection's name, stored as where the cell ran. */
    connectionName: string;
    paging: PagingKind;
    /** From the language server's `apl/queryInfo` on the script. */
    info: (script: string) => Promise<CellQueryInfo>;
    pageSize: number;
    cachedPages: number;
    signal: AbortSignal;
    runId: number;
    now?: () => number;
}

export interface CellRunResult {
    output: CellOutputData;
    set?: ResultSet;
    /** The error in the cell's own 1-based line and column (undefined line: in the prelude). */
    error?: CellError;
}

/** The cell's range: its own ends, else the notebook's; relative times (`now-1h`) resolved at `now`. */
export function cellTimeRange(cell: NotebookTimeRange | undefined, notebook: NotebookTimeRange | undefined, fallback: ResolvedTimeRange, now: number): ResolvedTimeRange {
    const start = cell?.start ?? notebook?.start;
    const end = cell?.end ?? notebook?.end;
    if (start === undefined && end === undefined) return fallback;
    let resolved;
    try {
        resolved = resolveArgs({ start, end }, BigInt(now) * 1_000_000n);
    } catch (e) {
        throw new Error(`time range: ${e instanceof Error ? e.message.replace(/--(start|end)/g, '$1') : String(e)}`, { cause: e });
    }
    const startTime = resolved.startTime ?? fallback.startTime;
    const endTime = resolved.endTime ?? new Date(now).toISOString();
    return { startTime, endTime, label: `${start ?? fallback.label} … ${end ?? 'now'}` };
}

function columnsToRows(columns: readonly unknown[][], rows: number): unknown[][] {
    return Array.from({ length: rows }, (_, r) => columns.map(c => c[r]));
}

export async function runCell(o: CellRunOptions): Promise<CellRunResult> {
    const now = o.now ?? Date.now;
    const started = now();
    const ranAt = new Date(started).toISOString();
    const cell = o.cells[o.index];
    const script = cellScript(o.cells, o.index);
    const range = cellTimeRange(cell.kind === 'apl' ? cell.timeRange : undefined, o.notebookRange, o.fallbackRange, started);
    const info = await o.info(script.text);
    const mode: ResultMode = info.pageable ? o.paging : 'once';
    try {
        const set = await ResultSet.open({
            client: o.client,
            apl: script.text,
            mode,
            pageSize: o.pageSize,
            order: info.order,
            startTime: range.startTime,
            endTime: range.endTime,
            cachedPages: o.cachedPages,
            signal: o.signal,
        });
        const page = await set.page(0);
        const status = set.status;
        const others = (set.first.tables ?? []).slice(1).map(t => ({ name: t.name, fields: t.fields, rows: columnsToRows(t.columns ?? [], rowCount(t)) }));
        const tables = snapshotTables([{ name: '0', fields: page.fields, rows: columnsToRows(page.columns, page.rows), totalRows: set.rowCount }, ...others]);
        const chart = info.timeColumn ? chartData(info.timeColumn, page.fields, page.columns) : undefined;
        const messages = (status?.messages ?? []).map(m => m.msg);
        return {
            set,
            output: {
                snapshot: {
                    ranAt,
                    ranOn: o.connectionName,
                    elapsedMs: Math.round(now() - started),
                    ...(status?.isPartial !== undefined && { isPartial: status.isPartial }),
                    ...(messages.length > 0 && { messages }),
                    tables,
                    ...(chart && { chart: { timeColumn: chart.timeColumn } }),
                },
                live: {
                    runId: o.runId,
                    rowCount: set.rowCount,
                    pageSize: set.pageSize,
                    pageRows: page.rows,
                    fields: page.fields,
                    columns: page.columns,
                    state: 'done',
                    rowsMatched: set.rowsMatched,
                    requests: set.requests,
                },
                ...(chart && { chart }),
                range: range.label,
            },
        };
    } catch (e) {
        if (o.signal.aborted) throw e;
        const location = queryErrorLocation(e);
        const message = location?.message ?? (e instanceof Error ? e.message : String(e));
        const line = location ? cellLine(script, location.line) : undefined;
        const error: CellError = { message, ...(line !== undefined && location && { line, column: location.column }) };
        return { error, output: { snapshot: { ranAt, ranOn: o.connectionName, elapsedMs: Math.round(now() - started), tables: [], error }, range: range.label } };
    }
}
