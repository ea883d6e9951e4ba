import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One entry of ../shared/corpus/apl-docs-examples.jsonl (read at test time, never copied). */
export interface CorpusEntry {
    query: string;
    source: string;
    line: number;
    role: string;
    shape: 'query' | 'expression' | 'fragment';
    flags: string[];
    datasets: string[];
    operators_used: string[];
    functions_used: string[];
    expected_output_excerpt: string | null;
    output_format: string | null;
    playground_apl: string | null;
    query_id: string;
}

export const CORPUS_PATH = fileURLToPath(new URL('../../../shared/corpus/apl-docs-examples.jsonl', import.meta.url));

/**
 * The entries of the docs corpus. The corpus is a required test input: when the file is missing the
 * tests that read it fail with this error rather than skip (a skipped corpus test passes silently).
 */
export function loadCorpus(path: string = CORPUS_PATH): CorpusEntry[] {
    if (!existsSync(path)) {
        throw new Error(`The APL docs corpus is missing: ${path} does not exist. The corpus tests need ../shared/corpus/apl-docs-examples.jsonl next to this checkout; they fail rather than skip without it.`);
    }
    return readFileSync(path, 'utf8')
        .split('\n')
        .filter(line => line.trim() !== '')
        .map(line => JSON.parse(line) as CorpusEntry);
}

/**
 * The texts the parse bar applies to: unflagged `query` entries as they are, and each `fragment`
 * entry placed after a dataset name.
 */
export function parseableCorpusTexts(entries: CorpusEntry[] = loadCorpus()): { entry: CorpusEntry; text: string }[] {
    const out: { entry: CorpusEntry; text: string }[] = [];
    for (const entry of entries) {
        if (entry.shape === 'fragment') out.push({ entry, text: `['sample-http-logs']\n${entry.query}` });
        else if (entry.shape === 'query' && entry.flags.length === 0) out.push({ entry, text: entry.query });
    }
    return out;
}
