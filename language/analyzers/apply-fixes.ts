/**
 * Applying the quick fixes that analyzer diagnostics carry (`data.fix`) to a text: what `apl check
 * --fix` does with the safe ones, and what the tests do to check a fix's result. Pure.
 */
import type { AnalyzerDiagnosticData } from './analyzer-diagnostics.js';

interface Position {
    line: number;
    character: number;
}

interface FixableDiagnostic {
    data?: unknown;
}

/** The offset of an LSP position in `text` (UTF-16 code units, as LSP). */
export function offsetAt(text: string, position: Position): number {
    let offset = 0;
    for (let line = 0; line < position.line; line++) {
        const next = text.indexOf('\n', offset);
        if (next < 0) return text.length;
        offset = next + 1;
    }
    const lineEnd = text.indexOf('\n', offset);
    return Math.min(offset + position.character, lineEnd < 0 ? text.length : lineEnd);
}

/**
 * `text` with the fixes of `diagnostics` applied (only the safe ones unless `all`), and how many
 * were applied. A fix whose edits overlap one already taken is left for the next round (`apl check
 * --fix` checks again and repeats).
 */
export function applyFixes(text: string, diagnostics: readonly FixableDiagnostic[], all = false): { text: string; applied: number } {
    const taken: { start: number; end: number; newText: string }[] = [];
    let applied = 0;
    for (const d of diagnostics) {
        const fix = (d.data as AnalyzerDiagnosticData | undefined)?.fix;
        if (!fix || (!fix.safe && !all)) continue;
        const edits = fix.edits.map(e => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText }));
        const clash = edits.some(e => taken.some(t => e.start < t.end && t.start < e.end || (e.start === e.end && e.start === t.start)));
        if (clash) continue;
        taken.push(...edits);
        applied++;
    }
    taken.sort((a, b) => b.start - a.start);
    let out = text;
    for (const e of taken) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
    return { text: out, applied };
}
