import { describe, expect, it } from 'vitest';
import { CORPUS_PATH, loadCorpus } from './corpus.js';

describe('the docs corpus helper', () => {
    it('a missing corpus file is an error naming the path, not an empty corpus', () => {
        const missing = CORPUS_PATH.replace(/apl-docs-examples\.jsonl$/, 'no-such-corpus.jsonl');
        expect(() => loadCorpus(missing)).toThrow(/APL docs corpus is missing: .*no-such-corpus\.jsonl does not exist/);
    });

    it('the shared corpus is present and read entry by entry', () => {
        const entries = loadCorpus();
        expect(entries.length).toBeGreaterThan(900);
        expect(entries.every(e => typeof e.query === 'string' && typeof e.query_id === 'string')).toBe(true);
    });
});
