/**
 * Every self-contained example of the APL docs corpus (a `print` or `datatable` source, no dataset)
 * that shows its output must produce that output. The comparison is tolerant: column names must
 * match; numbers compare at the precision the doc prints; datetimes by instant; timespans in Go
 * (`1h30m0s`) or KQL (`01:30:00`) style by duration; JSON outputs by value.
 */
import { describe, expect, it } from 'vitest';
import { loadCorpus, type CorpusEntry } from '../../support/corpus.js';
import { createEngine } from '../../../language/eval/engine.js';
import { parseGoDuration } from '../../../language/values.js';

/** Entries whose doc output cannot be matched because the doc itself is inconsistent (query_id -> why). */
const KNOWN_DOC_INCONSISTENCIES: Record<string, string> = {};

const SELF_CONTAINED = /^\s*(?:(?:let|set|declare)\b[^;]*;\s*)*(?:print|datatable)\b/;

function selfContained(e: CorpusEntry): boolean {
    return e.expected_output_excerpt !== null && e.datasets.length === 0 && SELF_CONTAINED.test(e.query);
}

function parseMarkdownTable(text: string): { header: string[]; rows: string[][] } | undefined {
    const lines = text.split('\n').map(l => l.trim()).filter(l => l.startsWith('|'));
    if (lines.length < 2) return undefined;
    const cells = (l: string) => l.replace(/^\|/, '').replace(/\|$/, '').split('|').map(c => c.trim());
    const header = cells(lines[0]);
    const body = lines.slice(1).filter(l => !/^\|[\s:|-]+\|?$/.test(l));
    return { header, rows: body.map(cells) };
}

function decodeEntities(s: string): string {
    return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/^`|`$/g, '');
}

/** KQL `[d.]hh:mm:ss[.fffffff]` to ns. */
function kqlTimespan(s: string): bigint | undefined {
    const m = /^(-)?(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/.exec(s);
    if (!m) return undefined;
    const ns = ((BigInt(m[2] ?? 0) * 24n + BigInt(m[3])) * 60n + BigInt(m[4])) * 60_000_000_000n + BigInt(m[5]) * 1_000_000_000n + BigInt((m[6] ?? '').padEnd(7, '0') || '0') * 100n;
    return m[1] ? -ns : ns;
}

/** Whether our cell (JSON) matches the doc's cell text. */
export function cellMatches(actual: unknown, expectedText: string): boolean {
    const exp = decodeEntities(expectedText.trim());
    if (actual === null || actual === undefined) return exp === '' || exp === 'null';
    if (typeof actual === 'number') {
        const x = Number(exp.replace(/,/g, ''));
        if (Number.isNaN(x)) return false;
        const decimals = /\.(\d+)/.exec(exp)?.[1].length ?? 0;
        const tol = decimals > 0 ? 0.5 * 10 ** -decimals + 1e-12 : Number.isInteger(actual) ? 0 : 0.5;
        return Math.abs(actual - x) <= tol + Math.abs(x) * 1e-12;
    }
    if (typeof actual === 'boolean') return exp.toLowerCase() === String(actual);
    if (typeof actual === 'string') {
        if (actual === exp) return true;
        const a = Date.parse(actual);
        const b = Date.parse(exp.replace(' ', 'T'));
        if (/^\d{4}-\d{2}-\d{2}/.test(actual) && !Number.isNaN(a) && !Number.isNaN(b)) return a === b;
        const ta = parseGoDuration(actual);
        const tb = kqlTimespan(exp) ?? parseGoDuration(exp);
        if (ta !== undefined && tb !== undefined) return ta === tb;
        return false;
    }
    try {
        return JSON.stringify(sortKeys(actual)) === JSON.stringify(sortKeys(JSON.parse(exp)));
    } catch {
        return false;
    }
}

function sortKeys(v: unknown): unknown {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys((v as Record<string, unknown>)[k])]));
    return v;
}

/** JSON values compare numbers at the doc's precision too. */
function jsonMatches(actual: unknown, expected: unknown): boolean {
    if (typeof expected === 'number' && typeof actual === 'number') return cellMatches(actual, String(expected));
    if (typeof expected === 'string' && typeof actual === 'string') return cellMatches(actual, expected);
    if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => jsonMatches(actual[i], e));
    if (expected !== null && typeof expected === 'object') {
        if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
        const ek = Object.keys(expected).sort();
        const ak = Object.keys(actual).sort();
        return JSON.stringify(ek) === JSON.stringify(ak) && ek.every(k => jsonMatches((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]));
    }
    return actual === expected;
}

const entries = loadCorpus().filter(selfContained);

describe('docs examples (self-contained, with output)', () => {
    it('there are self-contained examples to check', () => {
        expect(entries.length).toBeGreaterThan(5);
    });
    const engine = createEngine();
    for (const e of entries) {
        const skip = KNOWN_DOC_INCONSISTENCIES[e.query_id];
        it.skipIf(skip !== undefined)(e.query, async () => {
            const r = await engine.query(e.query);
            const t = r.tables[0];
            const n = t.columns[0]?.length ?? 0;
            const rowsOut = Array.from({ length: n }, (_, i) => Object.fromEntries(t.fields.map((f, k) => [f.name, t.columns[k][i]])));
            const expected = e.expected_output_excerpt!;
            if (e.output_format === 'table') {
                const md = parseMarkdownTable(expected);
                expect(md, 'doc output is a markdown table').toBeDefined();
                expect(t.fields.map(f => f.name)).toEqual(md!.header);
                expect(n).toBe(md!.rows.length);
                md!.rows.forEach((cells, i) => {
                    cells.forEach((cell, k) => {
                        const actual = rowsOut[i][md!.header[k]];
                        expect(cellMatches(actual, cell), `row ${i} ${md!.header[k]}: ${JSON.stringify(actual)} vs ${cell}`).toBe(true);
                    });
                });
            } else {
                const exp = JSON.parse(expected);
                // The doc shows either the row object or, for one-column results, the cell.
                const candidates: unknown[] = n === 1 ? [rowsOut[0], Object.values(rowsOut[0])[0]] : [rowsOut];
                expect(candidates.some(c => jsonMatches(c, exp)), `got ${JSON.stringify(candidates[0])}`).toBe(true);
            }
        });
    }
});
