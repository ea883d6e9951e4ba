/** Writes a query result in one of the CLI's output formats. */
import { renderCsv, renderJson, renderTable, terminalWidth, type OutputFormat, type RenderTable } from './render.js';

export interface ResultOutput {
    /** The tabular result (service shape). */
    tabular?: { tables: readonly RenderTable[] };
    /** The legacy-format result, for `--format legacy`. */
    legacy?: unknown;
}

export interface WriteOptions {
    width?: number;
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
            out.write(renderJson(first));
            return;
        case 'csv':
            out.write(renderCsv(first));
            return;
        case 'table': {
            const width = options.width ?? terminalWidth(out);
            tables.forEach((t, i) => {
                if (tables.length > 1) out.write(`${i > 0 ? '\n' : ''}# ${t.name ?? i}\n`);
                out.write(renderTable(t, { width }));
            });
            return;
        }
    }
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
