/** QueryRunner against the real service: every run ends in done, error or cancelled, and is in the history. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../../client/vscode/src/connections/connection-manager.js';
import { HistoryManager } from '../../../client/vscode/src/history/history-manager.js';
import { QueryRunner, type RunRequest } from '../../../client/vscode/src/query/query-runner.js';
import { END, serviceWithEvents, START, TOKEN, type Fixture } from './service-fixture.js';

let fx: Fixture;
let dir: string;
let runner: QueryRunner;
let history: HistoryManager;
const now = Date.parse(END);

beforeAll(async () => {
    fx = await serviceWithEvents(2500);
    dir = mkdtempSync(join(tmpdir(), 'apl-runner-'));
    const connections = new ConnectionManager({ read: () => [], readUser: () => [], write: async () => undefined }, { get: async () => undefined, store: async () => undefined, delete: async () => undefined }, { get: () => undefined, update: async () => undefined }, {});
    connections.setLocal(fx.service.url, TOKEN);
    history = new HistoryManager(join(dir, 'history.jsonl'));
    runner = new QueryRunner(connections, history, () => ({ pageSize: 1000, cachedPages: 4 }), () => now);
});
afterAll(async () => {
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
});

const request = (text: string, over: Partial<RunRequest> = {}): RunRequest => ({ text, pageable: true, order: 'desc', timeRange: { start: START, end: END }, ...over });

describe('QueryRunner', () => {
    it("['events']: done, rowsMatched 2,500, the first page of 1,000 read, by cursor against the local service", async () => {
        const run = await runner.run(request("['events']"));
        const summary = await run.done;
        expect(summary).toMatchObject({ state: 'done', rowsMatched: 2500, rowsLoaded: 1000, rowCount: 2500, pageSize: 1000, mode: 'cursor', requests: 1 });
        expect(run.range).toEqual({ startTime: '2024-01-01T00:00:00.000Z', endTime: '2024-01-02T00:00:00.000Z', label: expect.any(String) });
    });

    it("['events']: the request leaves before the run is shown as running (the view's work for it then does not delay the request)", async () => {
        const seen: string[] = [];
        const sub = runner.onDidChange(r => seen.push(`run ${r.state}`));
        const real = globalThis.fetch;
        // The network is the edge: the real request goes out, its start is noted.
        globalThis.fetch = (input, init) => {
            seen.push('request');
            return real(input, init);
        };
        try {
            const run = await runner.run(request("['events']"));
            await run.done;
            await new Promise(r => setTimeout(r, 20));
        } finally {
            globalThis.fetch = real;
            sub.dispose();
        }
        expect(seen[0]).toBe('request');
        // A quick run may be done before it would have been shown running: never running after done.
        expect(seen.slice(1).filter(s => s !== 'request')).toEqual(expect.arrayContaining(['run done']));
        expect(seen.lastIndexOf('run running')).toBeLessThan(seen.indexOf('run done'));
    });

    it('a preset range is resolved once, from the clock at the start of the run', async () => {
        const run = await runner.run(request("['events'] | count", { pageable: false, timeRange: { preset: '1h' } }));
        await run.done;
        expect(run.range.endTime).toBe(new Date(now).toISOString());
        expect(Date.parse(run.range.endTime) - Date.parse(run.range.startTime)).toBe(3_600_000);
    });

    it("['events'] ⏎ | where nosuch == 1: error, with the line and column the service names", async () => {
        const run = await runner.run(request("['events']\n| where nosuch == 1"));
        const summary = await run.done;
        expect(summary.state).toBe('error');
        expect(run.error?.location).toMatchObject({ line: 2, column: 9 });
        expect(run.error?.message).toMatch(/nosuch/);
    });

    it('cancel aborts the request: cancelled; a new run cancels the one before', async () => {
        const slow = "['events'] | join kind=inner (['events']) on $left.seq == $right.seq | count";
        const first = await runner.run(request(slow, { pageable: false }));
        expect(runner.cancel()).toBe(true);
        expect((await first.done).state).toBe('cancelled');
        const second = await runner.run(request(slow, { pageable: false }));
        const third = await runner.run(request("['events'] | count", { pageable: false }));
        expect((await second.done).state).toBe('cancelled');
        expect((await third.done).state).toBe('done');
        expect(runner.cancel()).toBe(false);
    });

    it('every run is in the history with its outcome and resolved range', async () => {
        await new Promise(r => setTimeout(r, 50));
        const entries = await history.entries();
        expect(entries.map(e => e.outcome)).toEqual(expect.arrayContaining(['done', 'error', 'cancelled']));
        const error = entries.find(e => e.outcome === 'error')!;
        expect(error.error).toMatch(/nosuch/);
        expect(error.startTime).toBe('2024-01-01T00:00:00.000Z');
    });

    it('without a connection: a clear error', async () => {
        const none = new QueryRunner(new ConnectionManager({ read: () => [], readUser: () => [], write: async () => undefined }, { get: async () => undefined, store: async () => undefined, delete: async () => undefined }, { get: () => undefined, update: async () => undefined }, {}), history, () => ({ pageSize: 10, cachedPages: 1 }));
        await expect(none.run(request("['events']"))).rejects.toThrow(/Start Local Service/);
    });
});
