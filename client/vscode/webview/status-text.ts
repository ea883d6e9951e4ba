/**
 * The words of the results view's status line and notes for a run, as pure functions of the run
 * (main.ts puts them on screen). Truncation is always stated with both counts.
 */
import type { RunView } from '../src/protocol.js';

export const fmt = (n: number): string => n.toLocaleString('en-US');

export interface RunNote {
    text: string;
    kind: 'info' | 'warn' | 'error';
}

/** The status line; `firstRow` is the first row in view (for "page N of M"). */
export function statusText(run: RunView, firstRow: number): string {
    const parts: string[] = [];
    switch (run.state) {
        case 'running':
            parts.push(`Running on ${run.connection} (${run.range})…`);
            break;
        case 'cancelled':
            parts.push('Cancelled.');
            break;
        case 'error':
            parts.push(`Error: ${run.error?.message ?? 'the query failed'}`);
            break;
        case 'done': {
            const pages = run.pageSize > 0 ? Math.max(1, Math.ceil(run.rowCount / run.pageSize)) : 1;
            const page = Math.min(pages, Math.floor(firstRow / Math.max(1, run.pageSize)) + 1);
            if (run.mode === 'once') {
                // rowsMatched counts the events that matched; an aggregation has fewer rows, all of them here.
                if (!run.truncated) parts.push(`${fmt(run.rowCount)} rows (${fmt(run.rowsMatched)} events matched)`);
                // rowsMatched is no row total when operators make rows (mv-expand): then say "the first N".
                else if (run.rowsMatched > run.rowCount) parts.push(`showing ${fmt(run.rowCount)} of ${fmt(run.rowsMatched)} rows: the service limited the result`);
                else parts.push(`showing the first ${fmt(run.rowCount)} rows: the service limited the result`);
            } else {
                parts.push(`${fmt(run.rowCount)} rows (rowsMatched ${fmt(run.rowsMatched)}) · page ${page} of ${fmt(pages)} · ${fmt(run.rowsLoaded)} loaded in ${run.requests} request${run.requests === 1 ? '' : 's'}`);
            }
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

/** The notes shown under the status line once a run is no longer running. */
export function runNotes(view: RunView): RunNote[] {
    if (view.state === 'running') return [];
    const notes: RunNote[] = view.messages.map(m => ({ text: `${m.priority}: ${m.msg}`, kind: m.priority === 'error' || m.priority === 'fatal' ? 'error' : 'warn' }));
    if (view.notPaged && view.mode === 'once' && view.state === 'done') notes.push({ text: `Runs as one request: ${view.notPaged}.`, kind: 'info' });
    if (view.state === 'error' && view.error) {
        const where = view.error.line !== undefined ? ` (line ${view.error.line}, column ${view.error.column})` : '';
        notes.push({ text: `${view.error.message}${where}`, kind: 'error' });
    }
    return notes;
}
