/**
 * APL queries are checked like `apl check` does, against the service's datasets and fields, before
 * they run (in the query worker): an error of the checker is a 400 with its code, message
 * (did-you-mean included) and line/column; warnings never fail a query; an unknown dataset stays
 * the evaluator's 404. The same answers with and without query workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, startService, type TestService } from './helpers.js';

const query = (t: TestService, apl: string) => t.call('POST', '/v1/datasets/_apl?format=tabular', { apl, startTime: '2000-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z' });

describe.each([1, 0])('queries checked before they run (queryWorkers: %i)', (queryWorkers) => {
    let t: TestService;

    beforeAll(async () => {
        t = await startService({ queryWorkers });
        await createDataset(t, 'd');
        const r = await t.raw('POST', '/v1/datasets/d/ingest', ndjson([{ _time: '2024-05-01T00:00:00Z', n: 1, s: 'a' }]), { 'content-type': 'application/x-ndjson' });
        expect(r.status, r.text).toBe(200);
    });
    afterAll(async () => {
        await t?.stop();
    });

    it("['d'] | summarize cnt()", async () => {
        const r = await query(t, "['d'] | summarize cnt()");
        expect(r.status, r.text).toBe(400);
        expect(r.json.code).toBe(400);
        expect(r.json.detail).toMatchObject({ code: 'APL0001', suggestion: 'count', line: 1, column: 19, errorType: 'semantic' });
        expect(r.json.detail.message).toContain("'count'");
        expect(r.json.message).toMatch(/'count'.*\(line 1, column 19\)$/);
    });

    it("['d']\\n| where n > 0\\n| summarize cnt() by s", async () => {
        const r = await query(t, "['d']\n| where n > 0\n| summarize cnt() by s");
        expect(r.status, r.text).toBe(400);
        expect(r.json.detail).toMatchObject({ code: 'APL0001', line: 3, column: 13 });
    });

    it("['d'] | extend l = strlen(s, 2)", async () => {
        const r = await query(t, "['d'] | extend l = strlen(s, 2)");
        expect(r.status, r.text).toBe(400);
        expect(r.json.detail).toMatchObject({ code: 'APL0002', line: 1, column: 20 });
    });

    it("['d'] | where n == | summarize cnt() | project y", async () => {
        const r = await query(t, "['d'] | where n == | summarize cnt() | project y");
        expect(r.status, r.text).toBe(400);
        expect(r.json.detail).toMatchObject({ code: 'APL1001', errorType: 'syntax', line: 1, column: 20 });
        expect(r.json.message).toMatch(/^invalid query: syntax error: .*\(line 1, column 20\)$/);
        expect(r.text).not.toMatch(/APL0001|cnt|count/);
    });

    it("['d'] | where s == 200 | count", async () => {
        // APL0013, a warning: the query runs
        const r = await query(t, "['d'] | where s == 200 | count");
        expect(r.status, r.text).toBe(200);
        expect(r.json.tables[0].columns[0]).toEqual([0]);
    });

    it("['d'] | where nosuch == 1", async () => {
        // APL0012, a warning: the evaluator answers, as before the check existed
        const r = await query(t, "['d'] | where nosuch == 1");
        expect(r.status, r.text).toBe(400);
        expect(r.json.detail.code).toBeUndefined();
        expect(r.json.message).toMatch(/'nosuch' \(line 1, column 15\)$/);
    });

    it("['nope'] | take 1", async () => {
        const r = await query(t, "['nope'] | take 1");
        expect(r.status, r.text).toBe(404);
        expect(r.json.message).toMatch(/not found/);
    });

    it("['nope'] | summarize cnt()", async () => {
        // the unknown dataset comes first in the text: the evaluator's 404, not the checker's 400
        const r = await query(t, "['nope'] | summarize cnt()");
        expect(r.status, r.text).toBe(404);
    });

    it("['d'] | summarize cnt() twice: the second answer is the first's (the verdict is kept for the text)", async () => {
        const [a, b] = [await query(t, "['d'] | summarize cnt()"), await query(t, "['d'] | summarize cnt()")];
        expect(b.status).toBe(400);
        expect(b.json).toEqual(a.json);
    });

    it("['e'] | summarize cnt() before and after dataset e exists: a verdict is not kept past a change of the schema", async () => {
        const name = `e${queryWorkers}`;
        const apl = `['${name}'] | summarize cnt()`;
        expect((await query(t, apl)).status).toBe(404);
        await createDataset(t, name);
        const r = await t.raw('POST', `/v1/datasets/${name}/ingest`, ndjson([{ _time: '2024-05-01T00:00:00Z', n: 1 }]), { 'content-type': 'application/x-ndjson' });
        expect(r.status, r.text).toBe(200);
        const after = await query(t, apl);
        expect(after.status, after.text).toBe(400);
        expect(after.json.detail).toMatchObject({ code: 'APL0001', suggestion: 'count' });
    });

    it("['d'] | summarize count() by s", async () => {
        const r = await query(t, "['d'] | summarize count() by s");
        expect(r.status, r.text).toBe(200);
        expect(r.json.tables[0].columns).toEqual([['a'], [1]]);
    });
});
