/**
 * The words of the results view's status line and notes for a run, as pure functions of the run
 * (main.ts puts them on screen). Truncation is always stated with both counts; a sort says how it
 * is done; an error is said once (in the status line, with where it is). Users read these: no API
 * field names, no implementation words.
 */
import type { RunView } from '../src/protocol.js';
import type { SortKey } from '../src/results/sorted-rows.js';
import { formatTime } from './cell-format.js';

export const fmt = (n: number): string => n.toLocaleString('en-US');

export interface RunNote {
    text: string;
    kind: 'info' | 'warn' | 'error';
}

/** How the grid is sorted: `pending` while the sorted rows are on their way. */
export interface SortShown {
    key: SortKey;
    pending: boolean;
}

function sortText(sort: SortShown, rows: number): string {
    const by = `${sort.key.field} (${sort.key.desc ? 'descending' : 'ascending'})`;
    return sort.pending ? `sorting ${fmt(rows)} rows by ${by}…` : `sorted by ${by} in VS Code, over all ${fmt(rows)} rows`;
}

/**
 * The status line; `firstRow` is the first row in view (for "page N of M"); `shown`: the rows the
 * grid shows when a filter or Only matching rows narrows it (said as "N of M rows", pages over them).
 */
export function statusText(run: RunView, firstRow: number, sort?: SortShown, shown?: number): string {
    const parts: string[] = [];
    switch (run.state) {
        case 'running':
            parts.push(`Running on ${run.connection} (${run.range})…`);
            break;
        case 'cancelled':
            parts.push('Cancelled.');
            break;
        case 'error': {
            const e = run.error;
            parts.push(`Error: ${e?.message ?? 'the query failed'}${e?.line !== undefined ? ` (line ${e.line}, column ${e.column})` : ''}`);
            break;
        }
        case 'done': {
            const rows = shown ?? run.rowCount;
            const pages = run.pageSize > 0 ? Math.max(1, Math.ceil(rows / run.pageSize)) : 1;
            const page = Math.min(pages, Math.floor(firstRow / Math.max(1, run.pageSize)) + 1);
            const of = shown === undefined ? '' : `${fmt(shown)} of `;
            if (run.mode === 'once') {
                // rowsMatched counts the events that matched; an aggregation has fewer rows, all of them here.
                if (!run.truncated) parts.push(`${of}${fmt(run.rowCount)} row${run.rowCount === 1 && !of ? '' : 's'} (${fmt(run.rowsMatched)} events matched)`);
                else if (shown !== undefined) parts.push(`${of}the ${fmt(run.rowCount)} rows shown of ${fmt(Math.max(run.rowsMatched, run.rowCount))}: the service limited the result`);
                // rowsMatched is no row total when operators make rows (mv-expand): then say "the first N".
                else if (run.rowsMatched > run.rowCount) parts.push(`showing ${fmt(run.rowCount)} of ${fmt(run.rowsMatched)} rows: the service limited the result`);
                else parts.push(`showing the first ${fmt(run.rowCount)} rows: the service limited the result`);
            } else {
                parts.push(`${of}${fmt(run.rowCount)} rows · page ${page} of ${fmt(pages)} · ${fmt(run.rowsLoaded)} read from the service in ${run.requests} request${run.requests === 1 ? '' : 's'}`);
            }
            if (sort) parts.push(sortText(sort, rows));
            parts.push(`${fmt(run.elapsedMs)} ms`);
            if (run.isPartial) parts.push('partial result');
            if (run.isEstimate) parts.push('estimated counts');
            break;
        }
        default:
            parts.push('No query run yet.');
    }
    return parts.join(' · ');
}

/** When a result was saved, to the minute, in the view's time zone. */
function savedWhen(iso: string, zone: RunView['timeZone']): string {
    const ms = Date.parse(iso);
    if (!Number.isFinite(ms)) return iso;
    const utc = new Date(ms).toISOString();
    if (zone !== 'local') return `${utc.slice(0, 10)} ${utc.slice(11, 16)} UTC`;
    return formatTime(utc, 'local').replace(/(\d\d:\d\d):\d\d(\.\d+)?/, '$1');
}

/** The sentence that says a result was reopened (history, `.aplr`), not run: when, how much of it, and how to run it. */
function savedNote(saved: NonNullable<RunView['saved']>, zone: RunView['timeZone']): string {
    const { savedAt, rowsSaved, rowCount } = saved;
    const rows = rowsSaved < rowCount ? `the first ${fmt(rowsSaved)} of its ${fmt(rowCount)} rows` : rowsSaved === 1 ? 'its one row' : `all ${fmt(rowsSaved)} rows`;
    return `This is a saved result from ${savedWhen(savedAt, zone)} with ${rows}; the query was not run again (Run runs it).`;
}

/** The notes shown under the status line once a run is no longer running. */
export function runNotes(view: RunView): RunNote[] {
    if (view.state === 'running') return [];
    const notes: RunNote[] = [];
    if (view.saved) notes.push({ text: savedNote(view.saved, view.timeZone), kind: 'info' });
    notes.push(...view.messages.map((m): RunNote => ({ text: `${m.priority}: ${m.msg}`, kind: m.priority === 'error' || m.priority === 'fatal' ? 'error' : 'warn' })));
    // Said only when it matters: a limited result that could not be read page by page.
    if (view.notPaged && view.mode === 'once' && view.state === 'done' && view.truncated) {
        notes.push({ text: `This result is not read page by page because ${view.notPaged}: narrow the query (where, take, summarize) to see all of it.`, kind: 'info' });
    }
    // An error is in the status line already (said once).
    return notes;
}
