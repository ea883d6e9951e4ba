/**
 * Results kept for the history and saved to `.aplr` files: real runs against a real embedded
 * service, real files; reopening one sends no request; no token is ever written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../../client/vscode/src/connections/connection-manager.js';
import { HistoryManager } from '../../../client/vscode/src/history/history-manager.js';
import { ResultHistory } from '../../../client/vscode/src/history/result-history.js';
import { QueryRunner, type Run } from '../../../client/vscode/src/query/query-runner.js';
import { parseSavedResult, publicUrl, runOfSavedResult, savedResultOf, serializeSavedResult } from '../../../client/vscode/src/results/saved-result.js';
import { END, serviceWithEvents, START, TOKEN, type Fixture } from './service-fixture.js';

let fx: Fixture;
let dir: string;
let connections: ConnectionManager;
let requests = 0;

beforeAll(async () => {
    fx = await serviceWithEvents(1500);
    dir = mkdtempSync(join(tmpdir(), 'apl-result-history-'));
    connections = new ConnectionManager({ read: () => [], readUser: () => [], write: async () => undefined }, { get: async () => undefined, store: async () => undefined, delete: async () => undefined }, { get: () => undefined, update: async () => undefined }, {});
    connections.setLocal(fx.service.url, TOKEN);
    // Every request the service answers is counted (a reopened result must send none).
    fx.service.app.server.on('request', () => requests++);
});
afterAll(async () => {
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
});

function runnerWith(results: ResultHistory, history: HistoryManager): QueryRunner {
    return new QueryRunner(connections, history, () => ({ pageSize: 1000, cachedPages: 2 }), Date.now, run => results.keep(run));
}

async function runQuery(runner: QueryRunner, text: string, pageable: boolean): Promise<Run> {
    const run = await runner.run({ text, pageable, order: 'desc', timeRange: { start: START, end: END } });
    await run.done;
    await run.recorded;
    return run;
}

describe('the history keeps the results of the last runs', () => {
    it("['events'] | summarize n = count() by word: reopened from the history with its rows and status, without a request", async () => {
        const results = new ResultHistory(join(dir, 'a'));
        const history = new HistoryManager(join(dir, 'a', 'history.jsonl'));
        const runner = runnerWith(results, history);
        const run = await runQuery(runner, "['events'] | summarize n = count() by word", false);
        const [entry] = await history.entries();
        expect(entry.resultId).toMatch(/\.aplr$/);
        const saved = (await results.load(entry.resultId!))!;
        expect(saved.header).toMatchObject({ query: "['events'] | summarize n = count() by word", state: 'done', rowCount: run.result!.rowCount, rowsSaved: run.result!.rowCount, timeRange: { start: run.range.startTime, end: run.range.endTime } });
        const before = requests;
        const reopened = runOfSavedResult(saved, connections.active()!);
        expect(reopened.state).toBe('done');
        expect(await reopened.result!.rows(0, 1_000_000)).toEqual(await run.result!.rows(0, 1_000_000));
        expect(reopened.result!.rowsMatched).toBe(run.result!.rowsMatched);
        expect(reopened.saved).toMatchObject({ rowsSaved: run.result!.rowCount });
        expect(requests).toBe(before);
    });

    it("['events']: a paged result keeps its first page only, and says how many rows the whole result had", async () => {
        const results = new ResultHistory(join(dir, 'b'));
        const run = await runQuery(runnerWith(results, new HistoryManager(join(dir, 'b', 'h.jsonl'))), "['events']", true);
        const id = (await new HistoryManager(join(dir, 'b', 'h.jsonl')).entries())[0].resultId!;
        const saved = (await results.load(id))!;
        expect(saved.rows).toHaveLength(1000);
        expect(saved.header.rowCount).toBe(run.result!.rowCount);
        expect(saved.header.rowCount).toBe(1500);
    });

    it('the oldest results go: at most maxResults files and maxBytes in all; a result larger than the budget is not kept', async () => {
        const limits = { maxResults: 2, maxBytes: 1_000_000, maxRows: 1000 };
        let now = 1_700_000_000_000;
        const results = new ResultHistory(join(dir, 'c'), () => limits, () => now++);
        const runner = runnerWith(results, new HistoryManager(join(dir, 'c', 'h.jsonl')));
        for (const w of ['w1', 'w2', 'w4']) await runQuery(runner, `['events'] | where word == '${w}' | project seq`, false);
        const kept = readdirSync(join(dir, 'c')).filter(n => n.endsWith('.aplr'));
        expect(kept).toHaveLength(2);
        const queries = await Promise.all(kept.map(async n => (await results.load(n))!.header.query));
        expect(queries.sort()).toEqual(["['events'] | where word == 'w2' | project seq", "['events'] | where word == 'w4' | project seq"]);
        limits.maxBytes = 100;
        const big = await runQuery(runner, "['events'] | summarize n = count() by word", false);
        expect(await results.keep(big)).toBeUndefined();
    });

    it('an id that is not one of ours is not read (a hand-edited history cannot point outside the folder)', async () => {
        const results = new ResultHistory(join(dir, 'd'));
        expect(await results.load('../../etc/passwd')).toBeUndefined();
        expect(await results.load('1700000000000-00000000.aplr')).toBeUndefined();
    });
});

describe('a saved result (.aplr)', () => {
    it("['events'] | summarize n = count() by word: never a token, whatever the connection's URL carries", async () => {
        const runner = new QueryRunner(connections, new HistoryManager(join(dir, 'e', 'h.jsonl')), () => ({ pageSize: 1000, cachedPages: 2 }));
        const run = await runQuery(runner, "['events'] | summarize n = count() by word", false);
        const text = serializeSavedResult(savedResultOf(run, 1000)!);
        expect(text).not.toContain(TOKEN);
        expect(text).not.toMatch(/xaat-|authorization|bearer/i);
        // A URL with user information or a token in its query string loses both.
        const url = new URL(fx.service.url);
        const withSecrets = `${url.protocol}//user:${TOKEN}@${url.host}/?token=${TOKEN}#x`;
        const leaky = Object.assign(Object.create(Object.getPrototypeOf(run) as object) as Run, run, { connection: { ...run.connection, url: withSecrets } });
        const text2 = serializeSavedResult(savedResultOf(leaky, 1000)!);
        expect(text2).not.toContain(TOKEN);
        expect(publicUrl(withSecrets)).toBe(`${url.protocol}//${url.host}`);
    });

    it('reads back what it wrote: the header on line 1, a row per line', async () => {
        const runner = new QueryRunner(connections, new HistoryManager(join(dir, 'f', 'h.jsonl')), () => ({ pageSize: 1000, cachedPages: 2 }));
        const run = await runQuery(runner, "['events'] | where seq < 3 | project seq, word", false);
        const saved = savedResultOf(run, 1000)!;
        const text = serializeSavedResult(saved);
        expect(text.trimEnd().split('\n')).toHaveLength(4);
        expect(JSON.parse(text.split('\n')[1])).toHaveProperty('seq');
        const file = join(dir, 'r.aplr');
        writeFileSync(file, text);
        expect(parseSavedResult(readFileSync(file, 'utf8'), 'r.aplr')).toEqual(saved);
    });

    it('a broken file: the error names the file, the line and the field', () => {
        const header = { format: 'apl-result', version: 1, savedAt: 'x', ranAt: 'x', query: 'q', connection: { name: 'n', url: '' }, timeRange: { start: 's', end: 'e', label: 'l' }, state: 'done', elapsedMs: 1, fields: [{ name: 'a', type: 'integer' }], rowCount: 1, rowsSaved: 1 };
        expect(() => parseSavedResult('not json', 'x.aplr')).toThrow(/^x\.aplr:1: the first line is not the JSON header/);
        expect(() => parseSavedResult(JSON.stringify({ ...header, format: 'csv' }), 'x.aplr')).toThrow(/x\.aplr:1: field 'format'/);
        expect(() => parseSavedResult(JSON.stringify({ ...header, rowCount: -1 }), 'x.aplr')).toThrow(/x\.aplr:1: field 'rowCount'/);
        expect(() => parseSavedResult(`${JSON.stringify(header)}\n{"a":1`, 'x.aplr')).toThrow(/x\.aplr:2: the row is not JSON/);
        expect(() => parseSavedResult(`${JSON.stringify(header)}\n`, 'x.aplr')).toThrow(/says 1 rows were saved, the file holds 0/);
        expect(parseSavedResult(`${JSON.stringify(header)}\n{"a":7}\n`, 'x.aplr').rows).toEqual([[7]]);
    });
});
