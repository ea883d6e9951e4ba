/** The results view's status line and notes (client/vscode/webview/status-text.ts). */
import { describe, expect, it } from 'vitest';
import type { RunView } from '../../../client/vscode/src/protocol.js';
import { runNotes, statusText } from '../../../client/vscode/webview/status-text.js';

function run(over: Partial<RunView> = {}): RunView {
    return {
        runId: 1, state: 'done', query: "['sample-http-logs'] | take 5", connection: 'local', range: 'last 1h', fields: [],
        rowsMatched: 0, rowCount: 0, rowsLoaded: 0, pageSize: 1000, mode: 'once', requests: 1, elapsedMs: 35, startedAt: 0,
        truncated: false, isPartial: false, isEstimate: false, messages: [], ...over,
    };
}

describe('status line', () => {
    it('a capped one-request result states the truncation with both counts', () => {
        expect(statusText(run({ rowCount: 1000, rowsMatched: 48_210, truncated: true }), 0)).toBe('showing 1,000 of 48,210 rows: the service limited the result · 35 ms');
    });

    it('a capped result with more rows than matched events (mv-expand) still states the truncation', () => {
        expect(statusText(run({ rowCount: 1000, rowsMatched: 400, truncated: true }), 0)).toBe('showing the first 1,000 rows: the service limited the result · 35 ms');
    });

    it('a complete one-request result gives rows and matched events', () => {
        expect(statusText(run({ rowCount: 12, rowsMatched: 48_210, elapsedMs: 1234 }), 0)).toBe('12 rows (48,210 events matched) · 1,234 ms');
    });

    it('a paged result gives the page in view, the pages and what was loaded', () => {
        const paged = run({ mode: 'cursor', rowCount: 48_210, rowsMatched: 48_210, rowsLoaded: 2000, requests: 2 });
        expect(statusText(paged, 0)).toBe('48,210 rows · page 1 of 49 · 2,000 read from the service in 2 requests · 35 ms');
        expect(statusText(paged, 1500)).toContain('page 2 of 49');
        expect(statusText({ ...paged, rowsLoaded: 1000, requests: 1 }, 0)).toContain('1,000 read from the service in 1 request ·');
    });

    it('a sort says how it is done: in VS Code, over every row', () => {
        const paged = run({ mode: 'cursor', rowCount: 30_000, rowsMatched: 30_000, rowsLoaded: 1000, requests: 1 });
        expect(statusText(paged, 0, { key: { field: 'seq', desc: false }, pending: true })).toContain('sorting 30,000 rows by seq (ascending)…');
        expect(statusText(paged, 0, { key: { field: 'seq', desc: true }, pending: false })).toContain('sorted by seq (descending) in VS Code, over all 30,000 rows');
    });

    it('a filter or Only matching rows: the rows shown of the rows of the result, the pages over the rows shown', () => {
        const paged = run({ mode: 'cursor', rowCount: 30_000, rowsMatched: 30_000, rowsLoaded: 1000, requests: 1 });
        expect(statusText(paged, 0, undefined, 1234)).toBe('1,234 of 30,000 rows · page 1 of 2 · 1,000 read from the service in 1 request · 35 ms');
        expect(statusText(paged, 1000, undefined, 1234)).toContain('page 2 of 2');
        expect(statusText(paged, 0, { key: { field: 'seq', desc: false }, pending: false }, 1234)).toContain('sorted by seq (ascending) in VS Code, over all 1,234 rows');
        const once = run({ rowCount: 12, rowsMatched: 48_210 });
        expect(statusText(once, 0, undefined, 1)).toBe('1 of 12 rows (48,210 events matched) · 35 ms');
        expect(statusText(run({ rowCount: 1000, rowsMatched: 48_210, truncated: true }), 0, undefined, 7)).toBe('7 of the 1,000 rows shown of 48,210: the service limited the result · 35 ms');
        // A filter that keeps every row still says the grid is filtered.
        expect(statusText(paged, 0, undefined, 30_000)).toBe('30,000 of 30,000 rows · page 1 of 30 · 1,000 read from the service in 1 request · 35 ms');
    });

    it('what users read names no API field and no implementation detail', () => {
        const texts = [
            statusText(run({ mode: 'cursor', rowCount: 5000, rowsMatched: 5000, rowsLoaded: 1000 }), 0),
            statusText(run({ rowCount: 12, rowsMatched: 48_210 }), 0),
            ...runNotes(run({ notPaged: 'it aggregates (summarize)', truncated: true, rowCount: 1000 })).map(n => n.text),
        ].join('\n');
        expect(texts).not.toMatch(/rowsMatched|one request|Runs as/);
    });

    it('isPartial and isEstimate are stated', () => {
        expect(statusText(run({ rowCount: 3, rowsMatched: 3, isPartial: true, truncated: true, isEstimate: true }), 0)).toBe('showing the first 3 rows: the service limited the result · 35 ms · partial result · estimated counts');
        expect(statusText(run({ mode: 'time', rowCount: 10, rowsMatched: 10, isEstimate: true }), 0)).toMatch(/ · estimated counts$/);
    });

    it('running, cancelled, failed and idle runs', () => {
        expect(statusText(run({ state: 'running' }), 0)).toBe('Running on local (last 1h)…');
        expect(statusText(run({ state: 'cancelled' }), 0)).toBe('Cancelled.');
        expect(statusText(run({ state: 'error', error: { message: 'unknown field foo' } }), 0)).toBe('Error: unknown field foo');
        expect(statusText(run({ state: 'error', error: { message: 'syntax error', line: 2, column: 7 } }), 0)).toBe('Error: syntax error (line 2, column 7)');
        expect(statusText(run({ state: 'error' }), 0)).toBe('Error: the query failed');
    });
});

describe('notes', () => {
    it('status.messages become notes; error and fatal ones are errors', () => {
        const notes = runNotes(run({ messages: [{ priority: 'warn', msg: 'query limited to 1000 rows' }, { priority: 'error', msg: 'field missing' }, { priority: 'fatal', msg: 'stopped' }] }));
        expect(notes).toEqual([
            { text: 'warn: query limited to 1000 rows', kind: 'warn' },
            { text: 'error: field missing', kind: 'error' },
            { text: 'fatal: stopped', kind: 'error' },
        ]);
    });

    it('a limited one-request result says why it is not paged; a complete one needs no note; an error is said once (in the status line)', () => {
        expect(runNotes(run({ notPaged: 'it is sorted by something other than _time', truncated: true }))).toEqual([
            { text: 'This result is not read page by page because it is sorted by something other than _time: narrow the query (where, take, summarize) to see all of it.', kind: 'info' },
        ]);
        expect(runNotes(run({ notPaged: 'it aggregates (summarize)' }))).toEqual([]);
        expect(runNotes(run({ state: 'error', error: { message: 'syntax error', line: 2, column: 7 } }))).toEqual([]);
    });

    it('a result reopened from the history says so in a sentence (when it was saved, how many rows), not as a bare "info:" message', () => {
        const saved = run({ mode: 'cursor', rowCount: 30_000, timeZone: 'utc', saved: { savedAt: '2026-11-28T12:54:58.120Z', rowsSaved: 1000, rowCount: 30_000 } });
        expect(runNotes(saved)).toEqual([{ text: 'This is a saved result from 2026-11-28 12:54 UTC with the first 1,000 of its 30,000 rows; the query was not run again (Run runs it).', kind: 'info' }]);
        expect(runNotes(run({ saved: { savedAt: '2026-11-28T12:54:58Z', rowsSaved: 3, rowCount: 3 } }))[0]?.text).toContain('with all 3 rows;');
        expect(runNotes(run({ saved: { savedAt: '2026-11-28T12:54:58Z', rowsSaved: 1, rowCount: 1 } }))[0]?.text).toContain('with its one row;');
    });

    it('a running run has no notes yet', () => {
        expect(runNotes(run({ state: 'running', messages: [{ priority: 'warn', msg: 'x' }] }))).toEqual([]);
    });
});
