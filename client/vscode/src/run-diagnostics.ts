/**
 * A run's error shown in the editor (an .apl file's or a notebook cell's) is the same problem as a
 * language-server diagnostic on the same spot more often than not (a name the schema lacks, a bad
 * regex): one problem gets one diagnostic, the language server's, which has a code and a quick fix.
 */
import * as vscode from 'vscode';

/** The `source` of the language server's diagnostics (Langium's: the language id). */
export const LANGUAGE_SERVER_SOURCE = 'apl';

/** A position in a document (vscode.Position's fields). */
interface Spot {
    line: number;
    character: number;
}

/** A range in a document (vscode.Range's fields). */
export interface Span {
    start: Spot;
    end: Spot;
}

const before = (a: Spot, b: Spot) => a.line < b.line || (a.line === b.line && a.character < b.character);

/**
 * Whether two ranges starting on the same line mark the same spot: they overlap, or one is empty and
 * lies within the other. Ranges that only touch (one ends where the other starts) are two problems side by side.
 */
export function sameSpot(a: Span, b: Span): boolean {
    if (a.start.line !== b.start.line) return false;
    const empty = (r: Span) => !before(r.start, r.end);
    if (empty(a) || empty(b)) {
        const [point, range] = empty(a) ? [a.start, b] : [b.start, a];
        return !before(point, range.start) && !before(range.end, point);
    }
    return before(a.start, b.end) && before(b.start, a.end);
}

/** A diagnostic of the language server at the same spot as `range` in the document `uri`. */
export function reportedByLanguageServer(uri: vscode.Uri, range: Span): boolean {
    return vscode.languages.getDiagnostics(uri).some(d => d.source === LANGUAGE_SERVER_SOURCE && sameSpot(d.range, range));
}

/** The language server may report a problem after the run did: then its diagnostic stays and the run's, in `collection`, goes. */
export function yieldToLanguageServer(collection: vscode.DiagnosticCollection): vscode.Disposable {
    return vscode.languages.onDidChangeDiagnostics(e => {
        for (const uri of e.uris) {
            const mine = collection.get(uri);
            if (!mine || mine.length === 0) continue;
            const kept = mine.filter(d => !reportedByLanguageServer(uri, d.range));
            if (kept.length !== mine.length) collection.set(uri, kept);
        }
    });
}
