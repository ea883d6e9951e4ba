/**
 * Suppression comments for analyzer findings: `// apl-ignore APL2003` on a line of its own silences
 * that code on the next line that is not a comment; `// apl-ignore-file APL2003` silences it in the
 * whole file. Several codes may follow, separated by spaces or commas. A comment (or one code of it)
 * that silences nothing is reported (APL2000), so that stale comments do not pile up.
 */
import { analyzerRuleByCode } from './analyzer-rules.js';

export interface SuppressionComment {
    code: string;
    /** `line`: the next code line; `file`: the whole text. */
    scope: 'line' | 'file';
    /** The 0-based line the comment applies to (for `line`). */
    targetLine: number;
    /** Offsets of the code in the comment (where an unused one is reported). */
    start: number;
    end: number;
    /** Offsets of the whole comment line, with its line break (what removing the comment removes). */
    lineStart: number;
    lineEnd: number;
    /** How many codes the comment lists. */
    siblings: number;
}

const COMMENT = /^[ \t]*\/\/[ \t]*apl-ignore(-file)?\b(.*)$/;
const CODE = /APL\d{4}/g;

/** The suppression comments of `text`. */
export function suppressionComments(text: string): SuppressionComment[] {
    const lines = text.split('\n');
    const out: SuppressionComment[] = [];
    let offset = 0;
    const lineStarts = lines.map(l => {
        const s = offset;
        offset += l.length + 1;
        return s;
    });
    lines.forEach((line, i) => {
        const m = COMMENT.exec(line);
        if (!m) return;
        let target = i + 1;
        while (target < lines.length && /^[ \t]*\/\//.test(lines[target])) target++;
        const listStart = line.length - m[2].length;
        const codes = [...m[2].matchAll(CODE)];
        for (const c of codes) {
            const start = lineStarts[i] + listStart + (c.index ?? 0);
            out.push({
                code: c[0], scope: m[1] ? 'file' : 'line', targetLine: target, start, end: start + c[0].length,
                lineStart: lineStarts[i], lineEnd: Math.min(text.length, lineStarts[i] + line.length + 1), siblings: codes.length,
            });
        }
    });
    return out;
}

/**
 * Splits `findings` into those kept and those silenced, and returns the comments that silenced
 * nothing (only for analyzer codes that are on: `enabled(code)`).
 */
export function applySuppressions<F extends { code: string; line: number }>(
    findings: F[],
    comments: SuppressionComment[],
    enabled: (code: string) => boolean,
): { kept: F[]; unused: SuppressionComment[] } {
    if (comments.length === 0) return { kept: findings, unused: [] };
    const used = new Set<SuppressionComment>();
    const kept = findings.filter(f => {
        const by = comments.filter(c => c.code === f.code && (c.scope === 'file' || c.targetLine === f.line));
        by.forEach(c => used.add(c));
        return by.length === 0;
    });
    const unused = comments.filter(c => !used.has(c) && (!analyzerRuleByCode(c.code) || enabled(c.code)));
    return { kept, unused };
}
