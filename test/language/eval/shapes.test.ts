import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { logsEngine } from './helpers.js';

const FIXTURES = fileURLToPath(new URL('../../../../shared/fixtures/api/', import.meta.url));
const fixture = (name: string) => JSON.parse(readFileSync(FIXTURES + name, 'utf8')).json;

const TABLE_KEYS = ['name', 'sources', 'fields', 'order', 'groups', 'range', 'buckets', 'columns'];
const TOP_KEYS = ['tables', 'status', 'format', 'request', 'datasetNames', 'fieldsMetaMap'];
const STATUS_REQUIRED = ['elapsedTime', 'blocksExamined', 'rowsExamined', 'rowsMatched', 'numGroups', 'isPartial', 'cacheStatus', 'minBlockTime', 'maxBlockTime'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

const engine = logsEngine();

describe('result shapes', () => {
    it("['logs'] | take 3 (tabular, like docs_apl-tabular-result)", async () => {
        const docs = fixture('docs_apl-tabular-result.response.json');
        const r = await engine.query("['logs'] | take 3");
        expect(Object.keys(r).sort()).toEqual(Object.keys(docs).sort());
        for (const k of Object.keys(r)) expect(TOP_KEYS).toContain(k);
        const t = r.tables[0];
        for (const k of Object.keys(t)) expect(TABLE_KEYS).toContain(k);
        for (const k of ['name', 'sources', 'fields', 'order', 'groups', 'range', 'columns']) expect(t).toHaveProperty(k);
        expect(t.name).toBe('0');
        expect(t.sources).toEqual([{ name: 'logs' }]);
        expect(t.order).toEqual([{ field: '_time', desc: true }]);
        expect(t.columns).toHaveLength(t.fields.length);
        for (const c of t.columns) expect(c).toHaveLength(3);
        expect(t.fields.map(f => f.name)).not.toContain('_rowId');
        expect(t.range!.start).toBe('1970-01-01T00:00:00Z');
        for (const f of t.fields) for (const k of Object.keys(f)) expect(['name', 'type', 'agg']).toContain(k);
        for (const k of Object.keys(docs.status)) if (k !== 'blocksCached' && k !== 'blocksMatched') expect(r.status).toHaveProperty(k);
        for (const k of STATUS_REQUIRED) expect(r.status).toHaveProperty(k);
        expect(Number.isInteger(r.status.elapsedTime)).toBe(true);
        expect(r.status.minBlockTime).toMatch(RFC3339);
        expect(r.status.minCursor! <= r.status.maxCursor!).toBe(true);
        expect(t.fields.find(f => f.name === 'dur')!.type).toBe('float');
        expect(t.fields.find(f => f.name === 'size')!.type).toBe('integer');
        expect(t.fields.find(f => f.name === 'ok')!.type).toBe('boolean');
        expect(t.fields.find(f => f.name === '_time')!.type).toBe('datetime');
        expect(r.fieldsMetaMap.logs.length).toBeGreaterThan(0);
    });

    it("['logs'] | summarize count() by bin(_time, 1h), method (buckets, groups, agg, _totals)", async () => {
        const r = await engine.query("['logs'] | summarize count() by bin(_time, 1h), method");
        const [t, totals] = r.tables;
        expect(t.buckets).toEqual({ field: '_time', size: 3_600_000_000_000 });
        expect(t.groups).toEqual([{ name: 'method' }]);
        expect(t.fields.find(f => f.name === 'count_')!.agg).toEqual({ name: 'count', fields: [], args: [] });
        expect(totals.name).toBe('_totals');
        expect(totals.fields.map(f => f.name)).toEqual(['method', 'count_']);
        expect(r.status.numGroups).toBe(5);
        expect(r.status.rowsMatched).toBe(6);
    });

    it("['logs'] | summarize topk(method, 1) (agg like go-integration_topk-tabular)", async () => {
        const go = fixture('go-integration_topk-tabular.partial-response.json');
        const r = await engine.query("['logs'] | summarize topk(method, 1)");
        expect(r.tables[0].fields[0].agg).toEqual({ name: 'topk', fields: ['method'], args: [1] });
        expect(Object.keys((r.tables[0].columns[0][0] as object[])[0])).toEqual(Object.keys(go.tables[0].columns[0][0][0]));
    });

    it("['logs'] | sort by _time desc | limit 2 (rowsMatched counts the matched rows, not the page)", async () => {
        const all = await engine.query("['logs']");
        const r = await engine.query("['logs'] | sort by _time desc | limit 2");
        expect(r.tables[0].columns[0]).toHaveLength(2);
        expect(all.status.rowsMatched).toBeGreaterThan(2);
        expect(r.status.rowsMatched).toBe(all.status.rowsMatched);
        const top = await engine.query("['logs'] | where method == 'GET' | top 1 by _time");
        expect(top.status.rowsMatched).toBe((await engine.query("['logs'] | where method == 'GET'")).status.rowsMatched);
    });

    it("['logs'] | where method == 'nope' (zero rows: one empty array per field)", async () => {
        const r = await engine.query("['logs'] | where method == 'nope'");
        const t = r.tables[0];
        expect(t.fields.length).toBeGreaterThan(0);
        expect(t.columns).toEqual(t.fields.map(() => []));
        expect(r.status.rowsMatched).toBe(0);
    });

    it("['logs'] | take 2 (legacy, like js-test_apl-legacy-format-result)", async () => {
        const js = fixture('js-test_apl-legacy-format-result.response.json');
        const r = await engine.queryLegacyFormat("['logs'] | take 2");
        for (const k of Object.keys(js)) expect(r).toHaveProperty(k);
        expect(Object.keys(r.matches[0]).sort()).toEqual(Object.keys(js.matches[0]).sort());
        expect(r.matches[0]._time).toMatch(RFC3339);
        expect(r.buckets).toEqual({ series: [], totals: [] });
        for (const k of Object.keys(js.status)) expect(r.status).toHaveProperty(k);
    });

    it("['logs'] | summarize event_count = count() by method (legacy totals: op is the alias)", async () => {
        const r = await engine.queryLegacyFormat("['logs'] | summarize event_count = count() by method");
        expect(r.matches).toEqual([]);
        expect(r.buckets.series).toEqual([]);
        expect(r.buckets.totals.find(g => g.group.method === 'GET')).toMatchObject({ group: { method: 'GET' }, aggregations: [{ op: 'event_count', value: 3 }] });
    });

    it("['logs'] | summarize count() by bin(_time, 1h) (legacy series)", async () => {
        const r = await engine.queryLegacyFormat("['logs'] | summarize count() by bin(_time, 1h)");
        expect(r.buckets.series).toEqual([
            { startTime: '2024-05-01T10:00:00Z', endTime: '2024-05-01T11:00:00Z', groups: [{ id: 0, group: {}, aggregations: [{ op: 'count_', value: 3 }] }] },
            { startTime: '2024-05-01T11:00:00Z', endTime: '2024-05-01T12:00:00Z', groups: [{ id: 0, group: {}, aggregations: [{ op: 'count_', value: 3 }] }] },
        ]);
        expect(r.buckets.totals).toEqual([{ id: 0, group: {}, aggregations: [{ op: 'count_', value: 6 }] }]);
    });
});
