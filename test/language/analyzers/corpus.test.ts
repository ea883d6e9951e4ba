/**
 * The analyzers over the APL documentation's example queries (../shared/corpus, read in place), as
 * the editor sees them (the sample datasets' schema). What they find is listed by rule (a change in
 * a rule shows here, and the list is in the README); every safe fix gives a query that checks with no
 * new error or warning, and, on the sample data, the same rows.
 */
import { describe, expect, it } from 'vitest';
import { checkText } from '../../../language/check.js';
import { applyFixes } from '../../../language/analyzers/apply-fixes.js';
import { AplQueryError } from '../../../language/index.js';
import { SAMPLE_DATASET_NAMES } from '../../../language/samples/index.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';
import { loadCorpus } from '../../support/corpus.js';
import { sampleEngine } from '../../support/sample-engine.js';

const schema = new BuiltinSchemaProvider();
const engine = sampleEngine({ rows: 200, seed: 3 });

/** The findings on the corpus by rule, each kind reviewed (README, "Analyzers"). */
const EXPECTED: Record<string, number> = { APL2003: 5, APL2006: 38, APL2009: 3, APL2014: 1 };

async function rows(query: string): Promise<unknown> {
    try {
        const table = (await engine.query(query, {})).tables[0];
        return { fields: table.fields.map(f => `${f.name}:${f.type}`), columns: table.columns };
    } catch (e) {
        if (e instanceof AplQueryError) return { error: e.kind };
        throw e;
    }
}

describe('analyzers on the docs corpus', () => {
    const entries = loadCorpus().filter(e => e.shape === 'query' && e.flags.length === 0);

    it('finds what was reviewed, and every safe fix checks clean and keeps the rows', async () => {
        const counts: Record<string, number> = {};
        const problems: string[] = [];
        for (const entry of entries) {
            const found = (await checkText(entry.query, { schema, analyzers: {} }));
            const advice = found.filter(d => d.code.startsWith('APL2'));
            for (const d of advice) counts[d.code] = (counts[d.code] ?? 0) + 1;
            const fixed = applyFixes(entry.query, advice);
            if (fixed.applied === 0) continue;
            const loud = (list: typeof found) => list.filter(d => d.severity === 'error' || d.severity === 'warning').map(d => d.code).sort().join(' ');
            const after = await checkText(fixed.text, { schema, analyzers: {} });
            if (loud(after) !== loud(found)) problems.push(`${entry.query_id}: the fixed query checks with '${loud(after)}', not '${loud(found)}'`);
            if (entry.datasets.every(d => SAMPLE_DATASET_NAMES.includes(d))) {
                const [a, b] = [await rows(entry.query), await rows(fixed.text)];
                if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`${entry.query_id}: the fixed query gives other rows`);
            }
        }
        expect(problems).toEqual([]);
        expect(counts).toEqual(EXPECTED);
    }, 120_000);

    it('with a time filter required, APL2005 is the only new finding', async () => {
        let missing = 0;
        for (const entry of entries.slice(0, 200)) {
            const a = (await checkText(entry.query, { schema, analyzers: {} })).map(d => d.code);
            const b = (await checkText(entry.query, { schema, analyzers: { requireTimeFilter: true } })).map(d => d.code);
            missing += b.filter(c => c === 'APL2005').length;
            expect(b.filter(c => c !== 'APL2005'), entry.query_id).toEqual(a);
        }
        // Documentation queries run under the UI's time picker: most have no filter of their own.
        expect(missing).toBeGreaterThan(100);
    }, 120_000);
});

describe('analyzers on broken and deep queries', () => {
    it('never throw, and advise nothing after a syntax error', async () => {
        const { BROKEN_QUERIES } = await import('../../support/broken-queries.js');
        const deep = [
            `['sample-http-logs'] | where ${Array.from({ length: 900 }, (_, i) => `isnotnull(uri) and status != "${i}"`).join(' and ')} and isnotempty(uri)`,
            `['sample-http-logs'] | where ${'('.repeat(24)}iff(status == "1", true, false)${')'.repeat(24)}`,
            `['sample-http-logs']${' | extend a = 1 | where status == "1"'.repeat(300)}`,
        ];
        // Every docs query cut short at a few places: what error recovery makes of a query being typed.
        const cut = loadCorpus().filter(e => e.shape === 'query' && e.flags.length === 0).flatMap(e => [0.3, 0.5, 0.7, 0.9].map(f => e.query.slice(0, Math.floor(e.query.length * f))));
        for (const text of [...BROKEN_QUERIES, ...deep, ...cut]) {
            const found = await checkText(text, { schema, analyzers: { requireTimeFilter: true } });
            const firstSyntax = found.find(d => d.code === 'APL1001' || d.code === 'APL1002');
            if (firstSyntax) expect(found.filter(d => d.code.startsWith('APL2') && d.range.start.line > firstSyntax.range.start.line), text).toEqual([]);
        }
    }, 120_000);
});
