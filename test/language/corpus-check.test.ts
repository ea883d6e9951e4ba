import { describe, expect, it } from 'vitest';
import { checkText, type AplDiagnostic } from '../../language/check.js';
import { loadCorpus } from '../support/corpus.js';

/**
 * The false-positive bar: under the EMPTY schema, at least 99% of the unflagged `query` entries of
 * the docs corpus produce no error (warnings are fine).
 */
describe('docs corpus under the empty schema', () => {
    it('at least 99% of unflagged queries have no error', async () => {
        const entries = loadCorpus().filter(e => e.shape === 'query' && e.flags.length === 0);
        const failing: { where: string; query: string; errors: AplDiagnostic[] }[] = [];
        for (const entry of entries) {
            const errors = (await checkText(entry.query)).filter(d => d.severity === 'error');
            if (errors.length > 0) failing.push({ where: `${entry.source}:${entry.line}`, query: entry.query, errors });
        }
        const rate = (entries.length - failing.length) / entries.length;
        const report = failing
            .map(f => `${f.where}\n${f.query}\n${f.errors.map(e => `  ${e.code} ${e.range.start.line + 1}:${e.range.start.character + 1} ${e.message}`).join('\n')}`)
            .join('\n\n');
        expect(rate, `error-free ${(rate * 100).toFixed(2)}% of ${entries.length}; failing queries:\n\n${report}`).toBeGreaterThanOrEqual(0.99);
    });
});
