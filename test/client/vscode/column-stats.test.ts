/**
 * Column statistics on the service (src/results/column-stats.ts): the query parses with hostile
 * names and the embedded engine answers it with the null count, distinct count, min/max and top values.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '../../../language/apl-parse.js';
import { createEngine } from '../../../language/eval/engine.js';
import { columnStatsQuery, statsPairs } from '../../../client/vscode/src/results/column-stats.js';

const RANGE = { startTime: '2025-01-01T00:00:00Z', endTime: '2027-01-01T00:00:00Z' };

describe('column statistics on the service', () => {
    const engine = createEngine();
    const events = Array.from({ length: 20 }, (_, i) => ({ _time: '2026-01-01T00:00:00Z', n: i % 4 === 0 ? null : i, "city'\n]": i % 3 === 0 ? null : `c${i % 5}` }));
    engine.ingest('t', events);

    it.each([["city'\n]", 'string'], ['n', 'long'], ['where', 'string'], ['a\u202Eb', 'datetime']])('%j (%s) parses', (field, type) => {
        const q = columnStatsQuery("['t'] | where true", field, type);
        expect(parse(q).problems, q).toEqual([]);
    });

    it("['t'] | summarize … of n: 5 nulls, 15 distinct, min 1, max 19", async () => {
        const r = await engine.query(columnStatsQuery("['t']", 'n', 'long'), RANGE);
        const pairs = Object.fromEntries(statsPairs(r.tables[0].fields, r.tables[0].columns!));
        expect(pairs).toMatchObject({ rows: 20, nulls: 5, distinct_values: 15, min_value: 1, max_value: 19 });
        expect(pairs.histogram).not.toBeNull();
    });

    it("['t'] | summarize … of the hostile string column: its nulls and top values", async () => {
        const r = await engine.query(columnStatsQuery("['t']", "city'\n]", 'string'), RANGE);
        const pairs = Object.fromEntries(statsPairs(r.tables[0].fields, r.tables[0].columns!));
        expect(pairs).toMatchObject({ rows: 20, nulls: 7, distinct_values: 5 });
        expect(JSON.stringify(pairs.top_values)).toContain('c');
    });
});
