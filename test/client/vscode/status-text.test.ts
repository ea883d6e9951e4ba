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
        expect(statusText(paged, 0)).toBe('48,210 rows (rowsMatched 48,210) · page 1 of 49 · 2,000 loaded in 2 requests · 35 ms');
        expect(statusText(paged, 1500)).toContain('page 2 of 49');
        expect(statusText({ ...paged, rowsLoaded: 1000, requests: 1 }, 0)).toContain('1,000 loaded in 1 request ·');
    });

    it('isPartial and isEstimate are stated', () => {
        expect(statusText(run({ rowCount: 3, rowsMatched: 3, isPartial: true, truncated: true, isEstimate: true }), 0)).toBe('showing the first 3 rows: the service limited the result · 35 ms · partial result · estimated counts');
        expect(statusText(run({ mode: 'time', rowCount: 10, rowsMatched: 10, isEstimate: true }), 0)).toMatch(/ · estimated counts$/);
    });

    it('running, cancelled, failed and idle runs', () => {
        expect(statusText(run({ state: 'running' }), 0)).toBe('Running on local (last 1h)…');
        expect(statusText(run({ state: 'cancelled' }), 0)).toBe('Cancelled.');
        expect(statusText(run({ state: 'error', error: { message: 'unknown field foo' } }), 0)).toBe('Error: unknown field foo');
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

    it('a one-request run says why it is not paged; a failed one where it failed', () => {
        expect(runNotes(run({ notPaged: 'the query sorts by another field' }))).toEqual([{ text: 'Runs as one request: the query sorts by another field.', kind: 'info' }]);
        expect(runNotes(run({ state: 'error', error: { message: 'syntax error', line: 2, column: 7 } }))).toEqual([{ text: 'syntax error (line 2, column 7)', kind: 'error' }]);
    });

    it('a running run has no notes yet', () => {
        expect(runNotes(run({ state: 'running', messages: [{ priority: 'warn', msg: 'x' }] }))).toEqual([]);
    });
});
