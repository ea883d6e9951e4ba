/** JSON paths of nested values (src/results/json-path.ts): they parse and read back the value on the embedded engine. */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/eval/engine.js';
import { bracketName, quoteString } from '../../../language/quote-name.js';
import { jsonLeaves } from '../../../client/vscode/src/results/json-path.js';

describe('the JSON path of a nested value', () => {
    it("{ geo: { city: 'Paris' } } in column geo: ['geo']['city']", () => {
        expect(jsonLeaves('geo', { geo2: 1, city: 'Paris' }).map(l => l.path)).toEqual(["['geo']['geo2']", "['geo']['city']"]);
        expect(jsonLeaves('tags', ['a', { k: 1 }]).map(l => [l.path, l.depth])).toEqual([
            ["['tags'][0]", 1],
            ["['tags'][1]", 1],
            ["['tags'][1]['k']", 2],
        ]);
    });

    it('hostile keys read back their values on the engine', async () => {
        const keys = ["a'b", 'a\nb', 'a]b', '', 'a\u202Eb', 'x.y'];
        const cell = Object.fromEntries(keys.map((k, i) => [k, i]));
        const engine = createEngine();
        for (const leaf of jsonLeaves("d'\n", cell)) {
            const r = await engine.query(`print ${bracketName("d'\n")} = parse_json(${quoteString(JSON.stringify(cell))}) | project v = ${leaf.path}`);
            expect(r.tables[0].columns![0][0], leaf.path).toBe(leaf.value);
        }
    });
});
