/**
 * Queries the extension writes for the user (filter by value, a field or dataset name dropped from
 * the schema tree) with hostile names and values: each must parse (the language's own parser) and
 * name exactly the field and value it was made from.
 */
import { describe, expect, it, vi } from 'vitest';
import { parse } from '../../../language/apl-parse.js';
import { bracketName, quoteName, quoteString } from '../../../language/quote-name.js';
import { filterClause, withFilter } from '../../../client/vscode/src/query/filter-clause.js';

vi.mock('vscode', () => import('./__mocks__/vscode.js'));

const { insertText } = await import('../../../client/vscode/src/schema/schema-tree.js');

const HOSTILE = ["a'b", 'a\\b', 'a\\', 'a\nb', 'a\r\nb', 'a]b', "['x']", 'a"b', 'a\tb', "'", '\\', ']', '[', 'where', 'a\u202Eb', 'a\u0000b', "x\\'\n]", '😀', ''];

interface Node {
    $type: string;
    [k: string]: unknown;
}

/** Every node under `node` (properties that start with `$` are Langium's links, not children). */
function* walk(node: unknown): Generator<Node> {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
        for (const n of node) yield* walk(n);
        return;
    }
    const n = node as Node;
    if (typeof n.$type === 'string') yield n;
    for (const [k, v] of Object.entries(n)) if (!k.startsWith('$')) yield* walk(v);
}

/** Parses `query` (it must parse cleanly) and returns the names and string values its `where` uses. */
function whereParts(query: string): { names: string[]; strings: string[] } {
    const { model, problems } = parse(query);
    expect(problems, query).toEqual([]);
    const where = [...walk(model)].find(n => n.$type === 'WhereOperator');
    expect(where, query).toBeDefined();
    const nodes = [...walk(where!.predicate)];
    return {
        names: nodes.filter(n => /Reference$/.test(n.$type)).map(n => n.name as string),
        strings: nodes.filter(n => n.$type === 'StringLiteral').map(n => n.value as string),
    };
}

describe('filter by value with hostile field names', () => {
    it.each(HOSTILE.map(name => [name]))('field %j', name => {
        const cases: [string, unknown, string[]][] = [
            ['string', 'v', ['v']],
            ['string', "x'\n\\\u202E", ["x'\n\\\u202E"]],
            ['long', 42, []],
            ['bool', true, []],
            ['string', null, []],
            ['dynamic', { k: "v'\n" }, [JSON.stringify({ k: "v'\n" })]],
            ['datetime', '2024-01-15T14:00:00Z', []],
        ];
        for (const [type, value, strings] of cases) {
            const query = withFilter("['logs']", filterClause(name, type, value));
            const parts = whereParts(query);
            expect(parts.names, query).toEqual([name]);
            expect(parts.strings, query).toEqual(strings);
        }
    });

    it('a datetime value that is not a plain timestamp still parses and is compared as written', () => {
        const query = withFilter("['logs']", filterClause('t', 'datetime', "2024) | take 1 //\nx"));
        expect(whereParts(query)).toEqual({ names: ['t'], strings: ["2024) | take 1 //\nx"] });
    });
});

describe('names and strings from the one quoting helper', () => {
    it.each(HOSTILE.map(name => [name]))('%j', name => {
        expect(whereParts(`['logs'] | where ${quoteName(name)} == ${quoteString(name)}`)).toEqual({ names: [name], strings: [name] });
        expect(whereParts(`['logs'] | where ${bracketName(name)} == 1`).names).toEqual([name]);
    });

    it('a dataset and a field from the schema tree are inserted so that they parse', () => {
        for (const name of HOSTILE) {
            const dataset = insertText({ kind: 'dataset', dataset: { name, fields: [] } });
            const field = insertText({ kind: 'field', dataset: 'logs', name, type: 'string' });
            const { model, problems } = parse(`${dataset} | where ${field} == 1`);
            expect(problems, dataset).toEqual([]);
            expect([...walk(model)].filter(n => n.$type === 'BracketReference' || /Reference$/.test(n.$type)).map(n => n.name)).toEqual([name, name]);
        }
    });
});
