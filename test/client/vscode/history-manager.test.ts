import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryManager, type HistoryEntry } from '../../../client/vscode/src/history/history-manager.js';

const dir = mkdtempSync(join(tmpdir(), 'apl-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (i: number, over: Partial<HistoryEntry> = {}): HistoryEntry => ({
    at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    text: `['logs'] | where n == ${i}`,
    connection: 'local',
    startTime: '2026-01-01T00:00:00Z',
    endTime: '2026-01-02T00:00:00Z',
    range: 'last 24h',
    rowsMatched: i,
    elapsedMs: 10,
    outcome: 'done',
    ...over,
});

describe('HistoryManager', () => {
    it('appends one JSON line per run and lists them newest first', async () => {
        const file = join(dir, 'a', 'history.jsonl');
        const h = new HistoryManager(file);
        await h.add(entry(1));
        await h.add(entry(2, { outcome: 'error', error: 'unknown field x' }));
        expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(2);
        expect((await h.entries()).map(e => e.rowsMatched)).toEqual([2, 1]);
        // A new manager (a new window) reads the same file.
        expect((await new HistoryManager(file).entries()).map(e => e.outcome)).toEqual(['error', 'done']);
    });

    it('is capped: the oldest entries go', async () => {
        const file = join(dir, 'b', 'history.jsonl');
        const h = new HistoryManager(file, () => 3);
        for (let i = 0; i < 7; i++) await h.add(entry(i));
        expect((await h.entries()).map(e => e.rowsMatched)).toEqual([6, 5, 4]);
        expect(readFileSync(file, 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(3);
    });

    it('searches text, connection, outcome and error by every word, case-insensitively', async () => {
        const h = new HistoryManager(join(dir, 'c', 'history.jsonl'));
        await h.add(entry(1, { text: "['http-logs'] | where status == 500", connection: 'prod' }));
        await h.add(entry(2, { text: "['traces'] | count", connection: 'local', outcome: 'cancelled' }));
        expect((await h.search('HTTP-LOGS status')).map(e => e.connection)).toEqual(['prod']);
        expect((await h.search('cancelled')).map(e => e.text)).toEqual(["['traces'] | count"]);
        expect(await h.search('nothing-like-this')).toEqual([]);
        expect(await h.search('')).toHaveLength(2);
    });

    it('skips a torn last line instead of failing', async () => {
        const file = join(dir, 'd', 'history.jsonl');
        const h = new HistoryManager(file);
        await h.add(entry(1));
        appendFileSync(file, '{"at":"2026-01-0');
        expect((await new HistoryManager(file).entries()).map(e => e.rowsMatched)).toEqual([1]);
    });
});
