/** Issue 25's host-side pieces that are plain functions: the empty-range hint, Export's file name, history labels, Add Connection's checks. */
import { describe, expect, it, vi } from 'vitest';
import { AplApiError } from '../../../client/api/errors.js';

vi.mock('vscode', () => import('./__mocks__/vscode.js'));

const { checkAnswer, failedStep } = await import('../../../client/vscode/src/connections/add-connection-prompt.js');
const { emptyRangeHint } = await import('../../../client/vscode/src/query/empty-hint.js');
const { exportFileName } = await import('../../../client/vscode/src/export-name.js');
const { historyLabel, relativeTime } = await import('../../../client/vscode/src/history/history-label.js');
const { resolveTimeRange, parseTimeRangeSpec } = await import('../../../client/vscode/src/time-range.js');

const NOW = new Date('2026-11-28T03:12:30Z');

describe('a run that found nothing in its time range', () => {
    const span = { name: 'sample-http-logs', events: 1000, minTime: '2026-10-01T00:00:00Z', maxTime: '2026-10-31T23:59:00Z' };

    it("['sample-http-logs'] over the last 1h: says where the events are", () => {
        expect(emptyRangeHint(resolveTimeRange({ preset: '1h' }, NOW), [span])).toBe("No events in the last 1h; 'sample-http-logs' has events from 2026-10-01 00:00 to 2026-10-31 23:59 UTC.");
    });

    it('a custom range names its ends', () => {
        expect(emptyRangeHint(resolveTimeRange({ start: '2020-01-01T00:00:00Z', end: '2020-01-02T00:00:00Z' }, NOW), [span])).toMatch(/^No events between 2020-01-01 00:00 and 2020-01-02 00:00 UTC; /);
    });

    it('no hint when the dataset has events in the range (the filters found nothing), or none at all', () => {
        expect(emptyRangeHint(resolveTimeRange({ preset: '30d' }, new Date('2026-11-05T00:00:00Z')), [span])).toBeUndefined();
        expect(emptyRangeHint(resolveTimeRange({ preset: '1h' }, NOW), [{ name: 'empty', events: 0, minTime: '0001-01-01T00:00:00Z', maxTime: '0001-01-01T00:00:00Z' }])).toBeUndefined();
        expect(emptyRangeHint(resolveTimeRange({ preset: '1h' }, NOW), [])).toBeUndefined();
    });

    it('All time is a preset: from the epoch to now, remembered like the others', () => {
        expect(resolveTimeRange({ preset: 'all' }, NOW)).toEqual({ startTime: '1970-01-01T00:00:00.000Z', endTime: NOW.toISOString(), label: 'all time' });
        expect(parseTimeRangeSpec('all')).toEqual({ preset: 'all' });
        expect(parseTimeRangeSpec({ preset: 'all' })).toEqual({ preset: 'all' });
    });

    it('a custom range reads as minutes in UTC (history, status), not as raw timestamps', () => {
        expect(resolveTimeRange({ start: '2020-01-01T00:00:00Z', end: '2020-01-02T06:30:15Z' }, NOW).label).toBe('2020-01-01 00:00 – 2020-01-02 06:30:15 UTC');
    });
});

describe("Export's proposed file name", () => {
    it('the dataset and the minute of the run', () => {
        expect(exportFileName(['sample-http-logs'], NOW, 'csv')).toBe('sample-http-logs-2026-11-28T0312.csv');
        expect(exportFileName(['a', 'b c'], NOW, 'ndjson')).toBe('a+b-c-2026-11-28T0312.ndjson');
        expect(exportFileName([], NOW, 'json')).toBe('apl-results-2026-11-28T0312.json');
    });
});

describe('history entries', () => {
    it('// errors by city ⏎ [\'events\'] ⏎ | where level == "error": the label is the query, without the comment', () => {
        expect(historyLabel("// errors by city\n// second note\n['events']\n| where level == 'error'")).toBe("['events'] | where level == 'error'");
        expect(historyLabel('// only a comment')).toBe('// only a comment');
        expect(historyLabel('x'.repeat(200))).toHaveLength(120);
    });

    it('times read as "just now", "5 min ago", "3 h ago", "yesterday"', () => {
        const ago = (ms: number) => relativeTime(new Date(NOW.getTime() - ms), NOW);
        expect([ago(10_000), ago(5 * 60_000), ago(3 * 3_600_000), ago(30 * 3_600_000), ago(4 * 86_400_000)]).toEqual(['just now', '5 min ago', '3 h ago', 'yesterday', '4 days ago']);
    });
});

describe("Add Connection's checks, as each answer is typed", () => {
    it('the URL: the scheme first, and 127.0.0.1:8686 read as http://127.0.0.1:8686 (as apl --url does)', () => {
        expect(checkAnswer('url', 'ftp://127.0.0.1:8686', [])).toEqual({ message: "The URL must start with http:// or https://, not 'ftp://'.", severity: 'error' });
        expect(checkAnswer('url', '127.0.0.1:8686', [])).toEqual({ message: 'Connects to http://127.0.0.1:8686', severity: 'info' });
        expect(checkAnswer('url', 'https://api.axiom.co', [])).toBeUndefined();
    });

    it('the name and the token', () => {
        expect(checkAnswer('name', ' ', [])?.severity).toBe('error');
        expect(checkAnswer('name', 'local service', [])?.severity).toBe('error');
        expect(checkAnswer('name', 'prod', ['prod'])).toEqual({ message: "A connection named 'prod' exists: it will be replaced.", severity: 'info' });
        expect(checkAnswer('token', '', [])?.severity).toBe('error');
        expect(checkAnswer('orgId', '', [])).toBeUndefined();
    });

    it('a refused check goes back to the step at fault', () => {
        const answers = { name: 'n', url: 'https://api.axiom.co', token: 'xaat-1', orgId: '' };
        expect(failedStep(new AplApiError(401, 'invalid token'), answers).step).toBe('token');
        expect(failedStep(new AplApiError(0, 'connect ECONNREFUSED'), answers).step).toBe('url');
        expect(failedStep(new AplApiError(403, 'forbidden'), { ...answers, token: 'xapt-1' }).step).toBe('orgId');
        expect(failedStep(new AplApiError(404, 'not found'), answers).step).toBe('url');
    });
});
