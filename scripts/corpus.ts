/**
 * `npm run corpus`: how much of the APL docs corpus (../shared/corpus, read in place) we parse, and
 * how much checks with no error under the empty schema; and what the best-practice analyzers find
 * on it, by rule, with the sample datasets' schema as the editor has it (`--verbose` lists each).
 */
import { parse } from '../language/apl-parse.js';
import { checkText } from '../language/check.js';
import { parseableCorpusTexts, loadCorpus } from '../test/support/corpus.js';
import { BuiltinSchemaProvider } from '../language/schema/builtin-schema-provider.js';
import { analyzerRuleByCode } from '../language/analyzers/analyzer-rules.js';

const verbose = process.argv.includes('--verbose');
const entries = loadCorpus();
const items = parseableCorpusTexts(entries);

let parsed = 0;
let checked = 0;
const checkable = items.filter(i => i.entry.shape === 'query');
for (const { entry, text } of items) {
    const problems = parse(text).problems;
    if (problems.length === 0) parsed++;
    else if (verbose) console.log(`parse  ${entry.query_id} ${entry.source}:${entry.line}: ${problems[0].message}`);
}
for (const { entry, text } of checkable) {
    const errors = (await checkText(text, {})).filter(d => d.severity === 'error');
    if (errors.length === 0) checked++;
    else if (verbose) console.log(`check  ${entry.query_id} ${entry.source}:${entry.line}: ${errors.map(e => `${e.code} ${e.message}`).join('; ')}`);
}

const pct = (n: number, d: number) => `${((n / d) * 100).toFixed(2)}%`;
console.log(`corpus: ${entries.length} entries`);
console.log(`parse:  ${parsed}/${items.length} unflagged queries and fragments parse with no syntax error (${pct(parsed, items.length)}; bar 99%)`);
console.log(`check:  ${checked}/${checkable.length} unflagged queries check with no error under the empty schema (${pct(checked, checkable.length)}; bar 99%)`);

const sampleSchema = new BuiltinSchemaProvider();
const byRule = new Map<string, number>();
for (const { entry, text } of checkable) {
    for (const d of await checkText(text, { schema: sampleSchema, analyzers: {} })) {
        if (!analyzerRuleByCode(d.code)) continue;
        byRule.set(d.code, (byRule.get(d.code) ?? 0) + 1);
        if (verbose) console.log(`advice ${entry.query_id} ${entry.source}:${entry.line}: ${d.code} ${d.message}`);
    }
}
const findings = [...byRule].sort(([a], [b]) => a.localeCompare(b));
console.log(`analyzers: ${findings.reduce((n, [, c]) => n + c, 0)} findings on the ${checkable.length} queries: ${findings.map(([code, n]) => `${code} ${analyzerRuleByCode(code)!.id} ${n}`).join(', ')}`);
