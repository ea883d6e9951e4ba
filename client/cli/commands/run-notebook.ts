/**
 * `apl run --notebook FILE.aplnb`: every APL cell in order, each as the script the notebook makes of
 * it (client/notebook/cell-script.ts: the `let`s of the cells above, and their `// as NAME` results),
 * over the engine `apl run` loaded, or on a service with `--url`. Each result is printed under a header naming the cell; an error
 * is reported at the cell's own line and column. `--update` writes each cell's snapshot back into
 * the file (atomically: a CI job that refreshes a report never leaves half a notebook).
 */
import { renameSync, writeFileSync } from 'node:fs';
import type { AplClient } from '../../api/client.js';
import { AplApiError, queryErrorLocation } from '../../api/errors.js';
import type { TabularResponse } from '../../../language/api/tabular.js';
import { AplQueryError, type Engine } from '../../../language/eval/engine.js';
import { parseNotebook, serializeNotebook, snapshotTables, NotebookFormatError, type AplCell, type AplNotebook, type CellSnapshot } from '../../notebook/aplnb.js';
import { cellLine, cellScript } from '../../notebook/cell-script.js';
import { exportNotebook, type ExportKind } from '../../notebook/notebook-export.js';
import { checkServices } from '../../../language/check.js';
import { queryInfo } from '../../../language/lsp/apl-query-info.js';
import { CliError } from '../cli-error.js';
import { writeResult } from '../output.js';
import type { OutputFormat } from '../render.js';
import { formatQueryError } from '../query-error.js';
import { terminalLines } from '../terminal-text.js';
import { resolveTimeRange } from '../time-arg.js';

/** A query's failure, at its line and column in the script when the runner knows them. */
export class CellQueryError extends Error {
    constructor(
        message: string,
        readonly line?: number,
        readonly column?: number,
    ) {
        super(message);
    }
}

/** Where the cells run: the engine `apl run` loaded, or a service (`--url`). */
export interface CellRunner {
    /** `local`, or the service's URL: what the snapshots say they ran on. */
    label: string;
    run(script: string, options: { startTime?: string; endTime?: string; limit?: number }): Promise<TabularResponse>;
}

export function localRunner(engine: Engine): CellRunner {
    return {
        label: 'local',
        run: async (script, options) => {
            try {
                return await engine.query(script, options);
            } catch (e) {
                if (e instanceof AplQueryError) throw new CellQueryError(e.detail, e.line, e.column);
                throw e;
            }
        },
    };
}

export function serviceRunner(client: AplClient): CellRunner {
    const url = new URL(client.url);
    url.username = url.password = '';
    return {
        label: url.toString().replace(/\/$/, ''),
        run: async (script, options) => {
            try {
                return await client.query(script, { format: 'tabular', ...options });
            } catch (e) {
                if (!(e instanceof AplApiError)) throw e;
                // No answer at all (the service is not there) ends the run: exit 2, as `apl query` does.
                if (e.status === 0) throw new CliError(e.message);
                const at = queryErrorLocation(e);
                throw at ? new CellQueryError(at.message, at.line, at.column) : new CellQueryError(`${e.status} ${e.message}`);
            }
        },
    };
}

export interface NotebookRunOptions {
    format: OutputFormat;
    width?: number;
    limit?: number;
    csvExact: boolean;
    /** --start / --end: over every cell's and the notebook's own range. */
    start?: string;
    end?: string;
    update: boolean;
    /** --export: the notebook with its results written to Markdown or Jupyter after the run. */
    exportTo?: { path: string; kind: ExportKind };
}

/** Reads the notebook (a bad file is a usage error naming the field). */
export function readNotebook(name: string, text: string): AplNotebook {
    try {
        return parseNotebook(text);
    } catch (e) {
        if (e instanceof NotebookFormatError) throw new CliError(`${name}: not an APL notebook: ${e.message}`);
        throw e;
    }
}

/** Every APL cell's text, for choosing the sample datasets to load. */
export function notebookText(notebook: AplNotebook): string {
    return notebook.cells.map(c => c.text).join('\n');
}

function tablesOf(result: TabularResponse): { name: string; fields: { name: string; type: string }[]; rows: unknown[][] }[] {
    return result.tables.map(t => {
        // A service may send `columns: null` for a table without rows.
        const columns = t.columns ?? [];
        const n = columns[0]?.length ?? 0;
        const rows = Array.from({ length: n }, (_, r) => columns.map(c => c[r]));
        return { name: t.name, fields: t.fields.map(f => ({ name: f.name, type: f.type })), rows };
    });
}

export async function runNotebookCells(
    file: { name: string; text: string },
    notebook: AplNotebook,
    runner: CellRunner,
    options: NotebookRunOptions,
    out: NodeJS.WritableStream,
    err: NodeJS.WritableStream,
): Promise<number> {
    const aplCells = notebook.cells.map((c, i) => [c, i] as const).filter((e): e is readonly [AplCell, number] => e[0].kind === 'apl');
    if (aplCells.length === 0) {
        err.write(`apl run: ${file.name} has no APL cells\n`);
        return 0;
    }
    if (aplCells.length > 1 && (options.format === 'json' || options.format === 'csv')) {
        throw new CliError(`--format ${options.format} writes one table; a notebook of ${aplCells.length} APL cells needs --format table or tabular`);
    }
    let failed = false;
    for (const [k, [cell, index]] of aplCells.entries()) {
        const script = cellScript(notebook.cells, index);
        const range = resolveTimeRange({
            start: options.start ?? cell.timeRange?.start ?? notebook.timeRange?.start,
            end: options.end ?? cell.timeRange?.end ?? notebook.timeRange?.end,
        });
        if (options.format === 'table') out.write(`${k > 0 ? '\n' : ''}# Cell ${index + 1} (APL ${k + 1} of ${aplCells.length})\n`);
        const ranAt = new Date().toISOString();
        const started = performance.now();
        let snapshot: CellSnapshot;
        try {
            const result = await runner.run(script.text, { startTime: range.startTime, endTime: range.endTime, limit: options.limit });
            writeResult(out, options.format, { tabular: result }, { width: options.width, err, command: 'run', csvExact: options.csvExact });
            snapshot = {
                ranAt,
                ranOn: runner.label,
                elapsedMs: Math.round(performance.now() - started),
                isPartial: result.status.isPartial,
                ...(result.status.messages?.length ? { messages: result.status.messages.map(m => m.msg) } : {}),
                tables: snapshotTables(tablesOf(result)),
                ...chartOf(script.text),
            };
        } catch (e) {
            if (!(e instanceof CellQueryError)) throw e;
            const line = e.line === undefined ? undefined : cellLine(script, e.line);
            const column = line === undefined ? undefined : e.column;
            const where = `${file.name} cell ${index + 1}`;
            err.write(formatQueryError(where, cell.text, terminalLines(e.message), line === undefined ? undefined : { line, column: column ?? 1 }) + '\n');
            if (line === undefined && e.line !== undefined) err.write(`  (in the statements this cell takes from the cells above it)\n`);
            snapshot = { ranAt, ranOn: runner.label, tables: [], error: { message: e.message, ...(line !== undefined && { line, ...(column !== undefined && { column }) }) } };
            failed = true;
        }
        if (options.update || options.exportTo) cell.output = snapshot;
    }
    if (options.update && file.name !== '<stdin>') {
        const tmp = `${file.name}.${process.pid}.tmp`;
        writeFileSync(tmp, serializeNotebook(notebook));
        renameSync(tmp, file.name);
        err.write(`apl run: updated the outputs of ${aplCells.length} cell(s) in ${file.name}\n`);
    }
    if (options.exportTo) {
        const files = await exportNotebook(notebook, options.exportTo.path, options.exportTo.kind);
        err.write(`apl run: exported the notebook to ${files[0]}${files.length > 1 ? ` and ${files.length - 1} chart(s) beside it` : ''}\n`);
    }
    return failed ? 1 : 0;
}

/** A time-binned result (`summarize … by bin(_time, …)`) is charted: its snapshot names the column, as the editor's does. */
function chartOf(script: string): Pick<CellSnapshot, 'chart'> {
    const blocks = queryInfo(script, checkServices()).blocks;
    const timeColumn = blocks[blocks.length - 1]?.timeColumn;
    return timeColumn === undefined ? {} : { chart: { timeColumn } };
}
