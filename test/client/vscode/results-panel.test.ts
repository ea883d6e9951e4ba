/** The results panel's side of the webview protocol, with `vscode` mocked at the edge and real rows from the service. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('vscode', () => import('./__mocks__/vscode.js'));

import { ConnectionManager } from '../../../client/vscode/src/connections/connection-manager.js';
import { HistoryManager } from '../../../client/vscode/src/history/history-manager.js';
import type { HostMessage } from '../../../client/vscode/src/protocol.js';
import { QueryRunner, type Run } from '../../../client/vscode/src/query/query-runner.js';
import { ResultsPanel, runView, type ResultsActions } from '../../../client/vscode/src/results/results-panel.js';
import { clipboardWrites, FakeWebview, Uri } from './__mocks__/vscode.js';
import { END, serviceWithEvents, START, TOKEN, type Fixture } from './service-fixture.js';

let fx: Fixture;
let run: Run;
const calls: string[] = [];

beforeAll(async () => {
    fx = await serviceWithEvents(1500);
    const connections = new ConnectionManager({ read: () => [], readUser: () => [], write: async () => undefined }, { get: async () => undefined, store: async () => undefined, delete: async () => undefined }, { get: () => undefined, update: async () => undefined }, {});
    connections.setLocal(fx.service.url, TOKEN);
    const runner = new QueryRunner(connections, new HistoryManager(`/tmp/apl-panel-test-${process.pid}/history.jsonl`), () => ({ pageSize: 1000, cachedPages: 2 }));
    run = await runner.run({ text: "['events']", pageable: true, order: 'desc', timeRange: { start: START, end: END } });
    await run.done;
});
afterAll(async () => fx?.close());

function noActions(): ResultsActions {
    return {
        rerun: () => undefined,
        cancel: () => undefined,
        exportResults: () => undefined,
        setTimeRange: () => undefined,
        timeRange: () => ({ preset: '24h' }),
        zoom: () => undefined,
        filter: () => undefined,
        painted: () => undefined,
    };
}

function panel() {
    const actions: ResultsActions = {
        rerun: () => calls.push('rerun'),
        cancel: () => calls.push('cancel'),
        exportResults: f => calls.push(`export ${f}`),
        setTimeRange: r => calls.push(`range ${JSON.stringify(r)}`),
        timeRange: () => ({ preset: '24h' }),
        zoom: (s, e) => calls.push(`zoom ${s} ${e}`),
        filter: (f, t, v, path) => calls.push(`filter ${f} ${t} ${JSON.stringify(v)}${path ? ` at ${JSON.stringify(path)}` : ''}`),
        painted: () => calls.push('painted'),
    };
    const p = new ResultsPanel(Uri.file('/ext') as never, actions);
    const webview = new FakeWebview();
    p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
    p.show(run);
    return { p, webview };
}

describe('ResultsPanel', () => {
    it('the run view: counts, fields, paging mode', () => {
        const view = runView(run);
        expect(view).toMatchObject({ state: 'done', rowsMatched: 1500, rowCount: 1500, rowsLoaded: 1000, pageSize: 1000, mode: 'cursor', requests: 1 });
        expect(view.fields.map(f => f.name)).toContain('seq');
    });

    it('answers getRows with row arrays from the host, fetching the next page from the service', async () => {
        const { webview } = panel();
        await webview.receive({ type: 'getRows', runId: run.id, requestId: 7, start: 990, end: 1010 });
        const rows = webview.posted.find((m): m is Extract<HostMessage, { type: 'rows' }> => (m as HostMessage).type === 'rows')!;
        expect(rows).toMatchObject({ requestId: 7, start: 990, rowCount: 1500, rowsLoaded: 1500, requests: 2 });
        expect(rows.rows).toHaveLength(20);
        expect(rows.rows[0]).toHaveLength(run.result!.fields.length);
    });

    it('a getRows for an older run is still answered, as a stale failure (a grid left waiting stops asking)', async () => {
        const { webview } = panel();
        await webview.receive({ type: 'getRows', runId: run.id + 100, requestId: 1, start: 0, end: 10 });
        expect(webview.posted[webview.posted.length - 1]).toMatchObject({ type: 'rowsFailed', requestId: 1, stale: true });
    });

    it('getRows with a sort answers from every row of the result, in that order, with the whole row count', async () => {
        const { webview } = panel();
        const seq = run.result!.fields.findIndex(f => f.name === 'seq');
        await webview.receive({ type: 'getRows', runId: run.id, requestId: 2, start: 0, end: 3, sort: { field: 'seq', desc: false } });
        const first = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'rows' }>;
        expect(first).toMatchObject({ type: 'rows', requestId: 2, rowCount: 1500, sort: { field: 'seq', desc: false } });
        expect(first.rows.map(r => r[seq])).toEqual([0, 1, 2]);
        await webview.receive({ type: 'getRows', runId: run.id, requestId: 3, start: 1497, end: 1600, sort: { field: 'seq', desc: false } });
        const last = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'rows' }>;
        expect(last.rows.map(r => r[seq])).toEqual([1497, 1498, 1499]);
        await webview.receive({ type: 'getRows', runId: run.id, requestId: 4, start: 0, end: 2, sort: { field: 'seq', desc: true } });
        const desc = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'rows' }>;
        expect(desc.rows.map(r => r[seq])).toEqual([1499, 1498]);
    });

    it('getRows with a sort over more rows than the sort limit fails with the reason', async () => {
        const actions: ResultsActions = { ...noActions(), settings: () => ({ sortLimit: 1000, timeZone: 'utc' }) };
        const p = new ResultsPanel(Uri.file('/ext') as never, actions);
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        p.show(run);
        await webview.receive({ type: 'getRows', runId: run.id, requestId: 5, start: 0, end: 3, sort: { field: 'seq', desc: false } });
        const failed = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'rowsFailed' }>;
        expect(failed).toMatchObject({ type: 'rowsFailed', requestId: 5 });
        expect(failed.stale).toBeFalsy();
        expect(failed.message).toContain('apl.results.sortLimit');
    });

    it('copyRows puts the rows on the clipboard in the chosen format', async () => {
        const { webview } = panel();
        await webview.receive({ type: 'copyRows', runId: run.id, rows: [1, 0], format: 'csv', headers: true });
        const text = clipboardWrites[clipboardWrites.length - 1];
        const lines = text.split('\n');
        expect(lines).toHaveLength(3);
        expect(lines[0].split(',')).toContain('seq');
    });

    it('hands filter, zoom, export and time range to the extension', async () => {
        const { webview } = panel();
        await webview.receive({ type: 'filter', runId: run.id, field: 'seq', value: 3 });
        await webview.receive({ type: 'filter', runId: run.id, field: 'word', value: 'x', path: ['k', 0] });
        await webview.receive({ type: 'zoom', runId: run.id, start: 'a', end: 'b' });
        await webview.receive({ type: 'export', format: 'ndjson' });
        await webview.receive({ type: 'timeRange', timeRange: { preset: '1h' } });
        expect(calls).toEqual(expect.arrayContaining(['filter seq integer 3', 'filter word string "x" at ["k",0]', 'zoom a b', 'export ndjson', 'range {"preset":"1h"}']));
    });
});

describe('the chart of a run', () => {
    it("['events']: a paged run says it can be charted; its chart's rows are sent when asked for (not with the run, for a quick first paint); the choice remembered for its query comes with it", async () => {
        const { ChartChoices } = await import('../../../client/vscode/src/results/chart-choices.js');
        const data = new Map<string, unknown>();
        const choices = new ChartChoices({ get: <T>(k: string) => data.get(k) as T | undefined, update: async (k, v) => void data.set(k, v) });
        const p = new ResultsPanel(Uri.file('/ext') as never, { ...noActions(), chartChoices: choices });
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        p.show(run);
        const first = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'run' }>;
        expect(first.run.chartable).toBe(true);
        expect(first.run.chartRows).toBeUndefined();
        expect(first.run.chartChoice).toBeUndefined();
        await webview.receive({ type: 'chartRows', runId: run.id });
        const rows = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'chartRows' }>;
        expect(rows.rows).toHaveLength(1000);
        expect(rows.rows[0]).toHaveLength(run.result!.fields.length);
        // The view says the user picked Bar: the next show of the same query carries it.
        await webview.receive({ type: 'chartChoice', query: run.request.text, choice: { type: 'bar', x: 'level', y: ['seq'] } });
        p.show(run);
        const second = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'run' }>;
        expect(second.run.chartChoice).toEqual({ type: 'bar', x: 'level', y: ['seq'] });
    });
});

describe('a view opened after the run', () => {
    it("['events']: its init carries the first rows, as a view open at the run's end got", async () => {
        const p = new ResultsPanel(Uri.file('/ext') as never, noActions());
        p.show(run);
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        await webview.receive({ type: 'ready' });
        const init = webview.posted[0] as Extract<HostMessage, { type: 'init' }>;
        expect(init.run?.firstRows).toHaveLength(250);
        expect(init.run?.chartable).toBe(true);
    });
});

describe('compare with an earlier period', () => {
    it("['events'] | summarize count() by bin(_time, 1h) over the day after the events, compared with a day earlier: the earlier buckets come back for the chart", async () => {
        const { earlierPeriodRows } = await import('../../../client/vscode/src/results/earlier-period.js');
        const { QueryRunner } = await import('../../../client/vscode/src/query/query-runner.js');
        const connections = new ConnectionManager({ read: () => [], readUser: () => [], write: async () => undefined }, { get: async () => undefined, store: async () => undefined, delete: async () => undefined }, { get: () => undefined, update: async () => undefined }, {});
        connections.setLocal(fx.service.url, TOKEN);
        const runner = new QueryRunner(connections, new HistoryManager(`/tmp/apl-panel-test-${process.pid}/h2.jsonl`), () => ({ pageSize: 1000, cachedPages: 2 }));
        const later = await runner.run({ text: "['events'] | summarize count() by bin(_time, 1h)", pageable: false, order: 'desc', timeRange: { start: '2024-01-02T00:00:00Z', end: '2024-01-03T00:00:00Z' } });
        await later.done;
        expect(later.result!.rowCount).toBe(0);
        const p = new ResultsPanel(Uri.file('/ext') as never, { ...noActions(), earlierPeriod: (r, ms) => earlierPeriodRows(fx.client, r.request.text, r.range, ms, 5000) });
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        p.show(later);
        await webview.receive({ type: 'compare', runId: later.id, offset: '1d' });
        const answer = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'earlierPeriod' }>;
        expect(answer).toMatchObject({ type: 'earlierPeriod', runId: later.id, offset: '1d' });
        expect(answer.error).toBeUndefined();
        expect(answer.fields.map(f => f.name)).toEqual(['_time', 'count_']);
        // 1,500 events, two a second from 01:00: the first 13 minutes of the earlier day, one bucket.
        expect(answer.rows).toEqual([['2024-01-01T01:00:00Z', 1500]]);
        // An offset it does not offer is not run.
        const before = webview.posted.length;
        await webview.receive({ type: 'compare', runId: later.id, offset: '2y' });
        expect(webview.posted.length).toBe(before);
    });
});

describe('a view opened with nothing run in this window (a reload)', () => {
    it('asks the extension to recall the last kept result; a view opened after a run does not', async () => {
        let recalled = 0;
        const p = new ResultsPanel(Uri.file('/ext') as never, { ...noActions(), recallLast: async () => void recalled++ });
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        await webview.receive({ type: 'ready' });
        expect((webview.posted[0] as Extract<HostMessage, { type: 'init' }>).run).toBeUndefined();
        expect(recalled).toBe(1);
        p.show(run);
        await webview.receive({ type: 'ready' });
        expect(recalled).toBe(1);
    });
});

describe('group by a column on the service', () => {
    it("['events'] grouped by word: the summarize it ran, with the counts of every row, the largest 200 groups sent", async () => {
        const asked: string[] = [];
        const p = new ResultsPanel(Uri.file('/ext') as never, {
            ...noActions(),
            queryAside: async text => {
                asked.push(text);
                return fx.client.query(text, { startTime: START, endTime: END });
            },
        });
        const webview = new FakeWebview();
        p.resolveWebviewView({ webview, onDidDispose: () => ({ dispose() {} }) } as never);
        p.show(run);
        await webview.receive({ type: 'groupOnService', runId: run.id, field: 'word' });
        const answer = webview.posted[webview.posted.length - 1] as Extract<HostMessage, { type: 'serviceGroups' }>;
        expect(asked).toEqual(["['events']\n| summarize count() by word\n| top 201 by count_"]);
        expect(answer).toMatchObject({ type: 'serviceGroups', runId: run.id, field: 'word', query: asked[0], more: true });
        expect(answer.error).toBeUndefined();
        // One event in three has the word a,"b"; every other word is its own.
        expect(answer.groups![0]).toEqual(['a,"b"', 500]);
        expect(answer.groups).toHaveLength(200);
    });
});
