import { describe, expect, it } from 'vitest';
import { parse } from '../../language/apl-parse.js';
import { parseableCorpusTexts } from '../support/corpus.js';

describe('docs corpus: parsing', () => {
    it('≥ 99% of the unflagged queries and fragments parse with no syntax error', () => {
        const items = parseableCorpusTexts();
        const failures = items
            .map(({ entry, text }) => ({ entry, problems: parse(text).problems }))
            .filter(r => r.problems.length > 0)
            .map(r => `${r.entry.query_id} ${r.entry.source}:${r.entry.line}\n  ${r.problems.map(p => `${p.range.start.line + 1}:${p.range.start.character + 1} ${p.message}`).join('\n  ')}`);
        const rate = (items.length - failures.length) / items.length;
        expect(items.length).toBeGreaterThan(800);
        expect(rate, `parse failures (${failures.length}):\n${failures.join('\n')}`).toBeGreaterThanOrEqual(0.99);
    });
});
