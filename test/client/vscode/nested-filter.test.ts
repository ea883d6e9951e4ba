/**
 * Filter by a nested value of a JSON cell (src/query/filter-clause.ts nestedFilterClause) and group
 * by a column on the service (src/results/service-group.ts): the queries run on the embedded engine
 * and keep exactly the rows they name, whatever the keys and values.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/eval/engine.js';
import { bracketName, quoteString } from '../../../language/quote-name.js';
import { nestedFilterClause, nestedPath, withFilter } from '../../../client/vscode/src/query/filter-clause.js';
import { jsonLeaves } from '../../../client/vscode/src/results/json-path.js';
import { groupCountQuery, groupCounts } from '../../../client/vscode/src/results/service-group.js';

const HOSTILE_KEYS = ["a'b", 'a\nb', 'a]b', '', 'a\u202Eb', 'x.y', "['k']"];

describe('filter by a nested value', () => {
    it("print geo = parse_json('{\"city\":\"Paris\",\"loc\":{\"lat\":48.8}}'): every nested value keeps the row, another value drops it", async () => {
        const engine = createEngine();
        const geo = { city: 'Paris', loc: { lat: 48.8 }, ok: true, none: null, tags: ['a', 1] };
        const base = `print geo = parse_json(${quoteString(JSON.stringify(geo))})`;
        const leaves = jsonLeaves('geo', geo);
        expect(nestedFilterClause('geo', ['city'], 'Paris')).toBe("| where tostring(['geo']['city']) == 'Paris'");
        for (const leaf of leaves) {
            expect(nestedPath('geo', leaf.keys), leaf.path).toBe(leaf.path);
            const kept = await engine.query(withFilter(base, nestedFilterClause('geo', leaf.keys, leaf.value)));
            expect(kept.tables[0].columns![0].length, leaf.path).toBe(1);
            if (leaf.value === null) continue;
            const other = typeof leaf.value === 'number' ? leaf.value + 1 : typeof leaf.value === 'boolean' ? !leaf.value : 'not-it';
            const dropped = await engine.query(withFilter(base, nestedFilterClause('geo', leaf.keys, other)));
            expect(dropped.tables[0].columns?.[0]?.length ?? 0, leaf.path).toBe(0);
        }
    });

    it('hostile keys and column name: the clause parses and keeps the row', async () => {
        const engine = createEngine();
        const column = "d'\n";
        const cell = Object.fromEntries(HOSTILE_KEYS.map(k => [k, `v${k}'`]));
        const base = `print ${bracketName(column)} = parse_json(${quoteString(JSON.stringify(cell))})`;
        for (const leaf of jsonLeaves(column, cell)) {
            const r = await engine.query(withFilter(base, nestedFilterClause(column, leaf.keys, leaf.value)));
            expect(r.tables[0].columns![0].length, leaf.path).toBe(1);
        }
    });
});

describe('group by a column on the service', () => {
    it("… | project level | summarize count() by level: the query shown, the groups largest first, capped", async () => {
        const engine = createEngine();
        const query = groupCountQuery("print x = 1\n| mv-expand l = parse_json('[\"info\",\"error\",\"info\",\"info\",\"debug\"]')\n| project level = tostring(l)", 'level', 2);
        expect(query.endsWith('\n| summarize count() by level\n| top 3 by count_')).toBe(true);
        const r = await engine.query(query);
        const t = r.tables[0];
        expect(groupCounts('level', t.fields, t.columns!, 2)).toMatchObject({ more: true, groups: [['info', 3], [expect.stringMatching(/^(error|debug)$/), 1]] });
        expect(groupCounts('level', t.fields, t.columns!, 3).more).toBe(false);
    });

    it('a hostile column name is quoted', () => {
        expect(groupCountQuery("['t']", "a'b", 200)).toBe("['t']\n| summarize count() by ['a\\'b']\n| top 201 by count_");
    });
});
