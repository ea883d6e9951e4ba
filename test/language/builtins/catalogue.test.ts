/**
 * Checks THE catalogue of built-ins against the language inventory: every function, aggregation,
 * scalar operator and tabular operator the inventory lists must be found by the lookups.
 * The inventory is read at test time from ../shared/design/APL-INVENTORY.md (never copied).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
    AGGREGATES,
    SCALAR_FUNCTIONS,
    SCALAR_OPERATORS,
    TABULAR_OPERATORS,
    lookupAggregate,
    lookupScalarFunction,
    lookupScalarOperator,
    lookupTabularOperator,
} from '../../../language/builtins/index.js';

const inventory = readFileSync(new URL('../../../../shared/design/APL-INVENTORY.md', import.meta.url), 'utf8');

/** The text of a section, from its heading line to the next heading of the same or a higher level. */
function section(heading: RegExp): string {
    const lines = inventory.split('\n');
    const start = lines.findIndex(l => heading.test(l));
    if (start < 0) throw new Error(`inventory: no section ${heading}`);
    const level = /^#+/.exec(lines[start])![0].length;
    let end = lines.length;
    for (let i = start + 1; i < lines.length; i++) {
        const m = /^(#+)\s/.exec(lines[i]);
        if (m && m[1].length <= level) {
            end = i;
            break;
        }
    }
    return lines.slice(start + 1, end).join('\n');
}

/** Backticked names in the first column of every markdown table row, e.g. "`todouble`, `toreal`" or "`bag_pack` (alias `pack`)". */
function firstColumnNames(text: string): string[] {
    const names: string[] = [];
    for (const line of text.split('\n')) {
        if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
        const first = line.split('|')[1] ?? '';
        for (const m of first.matchAll(/`([^`]+)`/g)) names.push(m[1]);
    }
    return names;
}

const SYMBOL_OPERATOR = /^[-+*/%<>=!~]+$/;
const WORD_OPERATOR = /^!?[a-z_]+~?$/;

/** Operator names from the §3.2 bullet list (the KQL-only bullet is skipped). */
function scalarOperatorNames(): string[] {
    const names = new Set<string>();
    // One entry per bullet (continuation lines are indented and belong to the bullet above).
    const bullets = section(/^### 3\.2 /).split(/\n(?=\* )/);
    for (const line of bullets) {
        if (/Not documented for APL/.test(line)) continue;
        for (const m of line.matchAll(/`([^`]+)`/g)) {
            let chunk = m[1].replace(/\s*\(\.\.\.\)$/, '').trim();
            if (/^!?matches regex$/.test(chunk)) {
                names.add(chunk);
                continue;
            }
            if (chunk.endsWith('()')) continue; // `not()` is a function
            const parts = chunk.split(/\s+/);
            if (parts.length > 1) {
                if (parts.every(p => SYMBOL_OPERATOR.test(p))) parts.forEach(p => names.add(p));
                continue;
            }
            chunk = parts[0];
            if (SYMBOL_OPERATOR.test(chunk) || (WORD_OPERATOR.test(chunk) && !['null', 'true', 'false'].includes(chunk))) names.add(chunk);
        }
    }
    return [...names];
}

const scalarFunctionNames = [
    ...firstColumnNames(section(/^## 6\. Scalar functions/)),
];
const aggregateNames = firstColumnNames(section(/^## 5\. Aggregation functions/)).filter(n => !n.includes('(') && !n.includes(' '));
const tabularNames = firstColumnNames(section(/^## 4\. Tabular operators/));
const operatorNames = [...scalarOperatorNames(), 'between', '!between', '<>'];

function missing(names: readonly string[], lookup: (n: string) => unknown): string[] {
    return [...new Set(names)].filter(n => lookup(n) === undefined);
}

describe('catalogue covers the inventory', () => {
    it('the inventory parses into the expected numbers of names', () => {
        // 256 documented pages, 259 names including aliases (§6).
        expect(new Set(scalarFunctionNames).size).toBe(259);
        expect(new Set(aggregateNames).size).toBe(33);
        expect(new Set(tabularNames).size).toBe(29);
        expect(operatorNames).toEqual(expect.arrayContaining(['contains', '!contains_cs', 'matches regex', '!matches regex', 'in~', 'has_any_cs', '+', '%', '<>', 'and']));
    });

    it('every scalar function of §6 is found by lookupScalarFunction', () => {
        const absent = missing(scalarFunctionNames, lookupScalarFunction);
        expect(absent, `missing scalar functions (${absent.length}): ${absent.join(', ')}`).toEqual([]);
    });

    it('every aggregation of §5 is found by lookupAggregate', () => {
        const absent = missing(aggregateNames, lookupAggregate);
        expect(absent, `missing aggregations: ${absent.join(', ')}`).toEqual([]);
    });

    it('every scalar operator of §3 is found by lookupScalarOperator', () => {
        const absent = missing(operatorNames, lookupScalarOperator);
        expect(absent, `missing scalar operators: ${absent.join(', ')}`).toEqual([]);
    });

    it('every tabular operator of §4 is found by lookupTabularOperator', () => {
        const absent = missing(tabularNames, lookupTabularOperator);
        expect(absent, `missing tabular operators: ${absent.join(', ')}`).toEqual([]);
    });
});

describe('catalogue entries are complete', () => {
    const callables = [...SCALAR_FUNCTIONS, ...AGGREGATES];

    it('every function and aggregation has a description, an example and a signature', () => {
        const bad = callables.filter(e => !e.description.trim() || !e.example.trim() || e.signatures.length === 0).map(e => e.name);
        expect(bad, `incomplete entries: ${bad.join(', ')}`).toEqual([]);
    });

    it('every function and aggregation either runs or says why not', () => {
        const bad = [
            ...SCALAR_FUNCTIONS.filter(f => !f.evaluate && !f.unsupported && f.evaluatedBy !== 'evaluator'),
            ...AGGREGATES.filter(a => !a.accumulator && !a.unsupported),
        ].map(e => e.name);
        expect(bad, `entries without evaluate/accumulator or unsupported: ${bad.join(', ')}`).toEqual([]);
    });

    it('every operator has a description and an example', () => {
        const bad = [...SCALAR_OPERATORS, ...TABULAR_OPERATORS].filter(e => !e.description.trim() || !e.example.trim()).map(e => e.name);
        expect(bad, `incomplete operators: ${bad.join(', ')}`).toEqual([]);
    });

    it('variadic parameters come last', () => {
        const bad = callables.filter(e => e.signatures.some(s => s.params.some((p, i) => p.variadic && i !== s.params.length - 1))).map(e => e.name);
        expect(bad).toEqual([]);
    });

    it('no name is registered twice', () => {
        const dupes = (names: string[]) => names.filter((n, i) => names.indexOf(n) !== i);
        const fnNames = SCALAR_FUNCTIONS.flatMap(f => [f.name, ...(f.aliases ?? [])]);
        const aggNames = AGGREGATES.flatMap(a => [a.name, ...(a.aliases ?? [])]);
        const opNames = SCALAR_OPERATORS.map(o => o.name);
        const tabNames = TABULAR_OPERATORS.flatMap(t => [t.name, ...(t.aliases ?? [])]);
        expect(dupes(fnNames), 'scalar functions listed twice').toEqual([]);
        expect(dupes(aggNames), 'aggregations listed twice').toEqual([]);
        expect(dupes(opNames), 'scalar operators listed twice').toEqual([]);
        expect(dupes(tabNames), 'tabular operators listed twice').toEqual([]);
        // A name is either a scalar function or an aggregation, never both.
        expect(fnNames.filter(n => aggNames.includes(n)), 'names both scalar and aggregate').toEqual([]);
    });

    it('operator negations point at existing operators', () => {
        const bad = SCALAR_OPERATORS.filter(o => o.negation !== undefined && lookupScalarOperator(o.negation) === undefined).map(o => o.name);
        expect(bad).toEqual([]);
    });

    it('aggregations report an agg.name Axiom accepts (API.md §6.3) and a legacy op from §6.1', () => {
        const aggNames = new Set(
            'count countif distinct distinctif sum sumif avg avgif min minif max maxif topk topkif percentiles percentilesif histogram histogramif stdev stdevif variance varianceif argmin argmax rate makeset makesetif makelist makelistif computed spotlight'.split(
                ' ',
            ),
        );
        const legacyOps = new Set('count distinct sum avg min max topk percentiles histogram stdev variance argmin argmax makeset makelist rate countif distinctif makesetif'.split(' '));
        expect(AGGREGATES.filter(a => !a.axiomAggName || !aggNames.has(a.axiomAggName)).map(a => a.name)).toEqual([]);
        expect(AGGREGATES.filter(a => a.legacyOp !== undefined && !legacyOps.has(a.legacyOp)).map(a => a.name)).toEqual([]);
    });
});
