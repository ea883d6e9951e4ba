/** Writes a query result in one of the CLI's output formats. */
import { renderCsv, renderJson, renderTable, terminalWidth, type OutputFormat, type RenderTable } from './render.js';
import { terminalText } from './terminal-text.js';

export interface ResultOutput {
    /** The tabular result (service shape). */
    tabular?: { tables: readonly RenderTable[] };
    /** The legacy-format result, for `--format legacy`. */
    legacy?: unknown;
}

export interface WriteOptions {
    width?: number;
    /** Where notes about the output go (the totals a json or csv output leaves out); default stderr. */
    err?: NodeJS.WritableStream;
    /** The command, for the notes: `apl <command>: note: …`. */
    command?: string;
    /** `--csv-exact`: CSV without the formula guard (a leading `'` on text a spreadsheet would run). */
    csvExact?: boolean;
}

const TOTALS = '_totals';

/** A table's title in words when a result has several: a time-binned result has its bins, then totals. */
function tableTitle(table: RenderTable, index: number, tables: readonly RenderTable[]): string {
    if (table.name === TOTALS) return 'Totals over the whole range';
    if (index === 0 && tables.some(t => t.name === TOTALS)) return 'Per time bin';
    return `Table ${terminalText(table.name ?? String(index))}`;
}

export function writeResult(out: NodeJS.WritableStream, format: OutputFormat, result: ResultOutput, options: WriteOptions = {}): void {
    if (format === 'legacy') {
        out.write(JSON.stringify(result.legacy, null, 2) + '\n');
        return;
    }
    const tabular = result.tabular ?? { tables: [] };
    if (format === 'tabular') {
        out.write(JSON.stringify(tabular, null, 2) + '\n');
        return;
    }
    const tables = tabular.tables.length > 0 ? tabular.tables : [{ name: '0', fields: [], columns: [] }];
    const first = tables[0];
    switch (format) {
        case 'json':
        case 'csv':
            // JSON escapes control characters itself; CSV guards formulas (unless --csv-exact) and escapes control characters for a terminal.
            out.write(format === 'json' ? renderJson(first) : renderCsv(first, { terminal: (out as NodeJS.WriteStream).isTTY === true, exact: options.csvExact === true }));
            noteTablesLeftOut(tables.slice(1), format, options);
            return;
        case 'table': {
            const width = options.width ?? terminalWidth(out);
            tables.forEach((t, i) => {
                if (tables.length > 1) out.write(`${i > 0 ? '\n' : ''}# ${tableTitle(t, i, tables)}\n`);
                out.write(renderTable(t, { width }));
            });
            return;
        }
    }
}

/** json and csv hold one table: say on stderr where the others (the totals of a time-binned result) went. */
function noteTablesLeftOut(rest: readonly RenderTable[], format: 'json' | 'csv', options: WriteOptions): void {
    if (rest.length === 0) return;
    const err = options.err ?? process.stderr;
    const prefix = options.command ? `apl ${options.command}` : 'apl';
    const what = rest.length === 1 && rest[0].name === TOTALS
        ? `the totals over the whole range (table ${TOTALS}) are`
        : `${rest.length} more tables (${rest.map(t => terminalText(t.name ?? '?')).join(', ')}) are`;
    err.write(`${prefix}: note: ${format} holds the first table only; ${what} in --format tabular, or drop bin()/bin_auto() from the summarize\n`);
}

/** Appends the rows of `next` to `acc` by field name (fields new to `acc` are added, missing cells are null). */
export function appendTable(acc: RenderTable, next: RenderTable): RenderTable {
    const accRows = acc.columns?.[0]?.length ?? 0;
    const nextRows = next.columns?.[0]?.length ?? 0;
    const fields = [...acc.fields];
    const columns = (acc.columns ?? []).map(c => c.slice());
    const index = new Map(fields.map((f, i) => [f.name, i]));
    for (const f of next.fields) {
        if (!index.has(f.name)) {
            index.set(f.name, fields.length);
            fields.push(f);
            columns.push(new Array(accRows).fill(null));
        }
    }
    const fromNext = new Map(next.fields.map((f, i) => [f.name, i]));
    for (const f of fields) {
        const target = columns[index.get(f.name)!];
        const src = fromNext.get(f.name);
        for (let r = 0; r < nextRows; r++) target.push(src === undefined ? null : (next.columns?.[src]?.[r] ?? null));
    }
    return { ...acc, fields, columns };
}
