import { parseArgs } from 'node:util';
import { AplApiError } from '../../api/errors.js';
import { matchedRows } from '../../api/paging.js';
import { rowCount } from '../../api/rows.js';
import type { Table, TabularResult } from '../../api/types.js';
import { CliError } from '../cli-error.js';
import { clientFrom, CONNECTION_OPTIONS, CONNECTION_USAGE, reportApiError, warnAboutTokenArgument } from '../connection.js';
import { parseIntOption, parseOutputFormat, queryTextFrom, type QueryText } from '../options.js';
import { appendTable, writeResult } from '../output.js';
import { formatQueryError, positionInMessage, type QueryErrorPosition } from '../query-error.js';
import type { RenderTable } from '../render.js';
import { terminalLines } from '../terminal-text.js';
import { resolveTimeRange } from '../time-arg.js';

export const QUERY_USAGE = `apl query [--url URL] [--token TOKEN] [--org-id ID] [--format table|json|csv|tabular|legacy]
          [--csv-exact] [--start TIME] [--end TIME] [--all [--page-size N] [--order desc|asc]] [--width N]
          (QUERY | --file F)

Runs an APL query against a service (apl serve, or Axiom itself) and prints the result.
Exit code 0: ok; 1: the service refused the query (the message, with line:col when it has one);
2: usage error, or the service could not be reached.
${CONNECTION_USAGE}
  --format         table (default; fitted to the terminal), json (array of row objects), csv,
                   tabular or legacy (the service's result JSON)
  --csv-exact      with --format csv: the data exactly; by default a text that starts with =, +, -, @,
                   a tab or a carriage return gets a leading ' so that a spreadsheet does not run it
  --start, --end   time range: RFC 3339, a date, or now-1h / now-7d (default: not bounded)
  --all            page through every row by cursor (appends | sort by _time | limit N); ends
                   with the number of rows written on stderr, and exit 1 when it differs from
                   the rows the query matches (counted with | count)
  --page-size N    rows per page with --all (default 1000)
  --order          with --all: desc (newest first, default) or asc
  --width N        fit tables to N columns (default: the terminal width)
  --file F         read the query from F ('-' for standard input)`;

export async function runQueryCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            ...CONNECTION_OPTIONS,
            format: { type: 'string' },
            'csv-exact': { type: 'boolean', default: false },
            start: { type: 'string' },
            end: { type: 'string' },
            all: { type: 'boolean', default: false },
            'page-size': { type: 'string' },
            order: { type: 'string' },
            width: { type: 'string' },
            file: { type: 'string', short: 'f' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(QUERY_USAGE + '\n');
        return 0;
    }
    const format = parseOutputFormat(values.format);
    if (values['csv-exact'] && format !== 'csv') throw new CliError('--csv-exact goes with --format csv');
    const query = queryTextFrom(positionals, values.file, QUERY_USAGE);
    const range = resolveTimeRange({ start: values.start, end: values.end });
    const width = values.width !== undefined ? parseIntOption('--width', values.width, 20) : undefined;
    if (!values.all && (values['page-size'] !== undefined || values.order !== undefined)) throw new CliError('--page-size and --order go with --all');
    if (values.all && format === 'legacy') throw new CliError('--all pages tabular results; use another --format');
    const pageSize = values['page-size'] !== undefined ? parseIntOption('--page-size', values['page-size'], 1) : 1000;
    const order = values.order ?? 'desc';
    if (order !== 'desc' && order !== 'asc') throw new CliError(`--order must be desc or asc, not '${order}'`);
    warnAboutTokenArgument(values, err, 'query');
    const client = clientFrom(values);

    try {
        if (format === 'legacy') {
            const legacy = await client.query(query.text, { format: 'legacy', startTime: range.startTime, endTime: range.endTime });
            writeResult(out, format, { legacy }, { width });
            reportMessages(legacy.status, err);
            return 0;
        }
        if (!values.all) {
            const result = await client.query(query.text, { format: 'tabular', startTime: range.startTime, endTime: range.endTime });
            writeResult(out, format, { tabular: withRenderableTables(result) }, { width, err, command: 'query', csvExact: values['csv-exact'] });
            reportMessages(result.status, err);
            return 0;
        }
        let merged: RenderTable | undefined;
        let last: TabularResult | undefined;
        let pages = 0;
        const progress = (err as NodeJS.WriteStream).isTTY === true;
        for await (const page of client.pagesByCursor(query.text, { pageSize, order: order as 'desc' | 'asc', startTime: range.startTime, endTime: range.endTime })) {
            const table = page.result.tables?.[0] ?? { name: '0', fields: [], columns: [] };
            merged = merged ? appendTable(merged, table) : { ...table };
            last = page.result;
            pages++;
            if (progress) err.write(`\r${(merged.columns?.[0]?.length ?? 0).toLocaleString('en-US')} rows, ${pages} pages…`);
        }
        if (progress) err.write('\r\x1b[K');
        const table = merged ?? { name: '0', fields: [], columns: [] };
        const tabular = last ? { ...last, tables: [table as Table] } : { tables: [table] };
        writeResult(out, format, { tabular }, { width, csvExact: values['csv-exact'] });
        // A reader that stopped early (`| head`) wants nothing more: no count and no verdict (the
        // EPIPE handler in main.ts ends the command quietly).
        if (!(await flushed(out))) return 0;
        // Every row or a loud failure: the rows written against the rows the query matches.
        const written = rowCount(table);
        const matched = await matchedRows(client, query.text, { startTime: range.startTime, endTime: range.endTime });
        err.write(`${written.toLocaleString('en-US')} rows written\n`);
        if (matched !== undefined && matched !== written) {
            err.write(`apl query: error: ${written.toLocaleString('en-US')} rows written, but the query matches ${matched.toLocaleString('en-US')}: the output is incomplete (or events arrived while it ran: bound the time with --end)\n`);
            return 1;
        }
        return 0;
    } catch (e) {
        return reportQueryError(e, query, err, 'query', values.all ? `| sort by _time ${order} | limit ${pageSize}` : undefined);
    }
}

function withRenderableTables(result: TabularResult): TabularResult {
    return { ...result, tables: (result.tables ?? []).map(t => ({ ...t, columns: t.columns ?? t.fields.map(() => []) })) };
}

function reportMessages(status: { messages?: { priority: string; msg: string }[] | null; isPartial?: boolean } | undefined, err: NodeJS.WritableStream): void {
    for (const m of status?.messages ?? []) {
        if (m.priority === 'warn' || m.priority === 'error' || m.priority === 'fatal') err.write(`${m.priority}: ${terminalLines(m.msg)}\n`);
    }
    if (status?.isPartial) err.write('warning: the result is partial\n');
}

/** A 400 about the query is printed with the query line and a caret; other errors as they are. */
export function reportQueryError(e: unknown, query: QueryText, err: NodeJS.WritableStream, command: string, appended?: string): number {
    if (e instanceof AplApiError && e.status === 400) {
        const detail = (e.body as { detail?: { line?: unknown; column?: unknown; message?: unknown } } | undefined)?.detail;
        let at: QueryErrorPosition | undefined;
        let message = e.message;
        if (detail && typeof detail.line === 'number' && typeof detail.column === 'number') {
            at = { line: detail.line, column: detail.column };
            if (typeof detail.message === 'string') message = detail.message;
        } else {
            at = positionInMessage(e.message);
        }
        const userLines = query.text.replace(/[\s;]+$/, '').split(/\r?\n/).length;
        if (at && appended !== undefined && at.line > userLines) {
            err.write(`apl ${command}: --all appends '${appended}' to the query, so it must keep _time: ${terminalLines(message)}\n`);
            return 1;
        }
        if (at) {
            err.write(formatQueryError(query.name, query.text, terminalLines(message), at) + '\n');
            return 1;
        }
    }
    return reportApiError(e, err, command);
}

/** Whether everything written to `out` went out (false once the reader has gone: EPIPE). */
function flushed(out: NodeJS.WritableStream): Promise<boolean> {
    return new Promise(resolve => out.write('', err => resolve(!err)));
}
