/**
 * Notebook cells in the language server. Each cell of an APL notebook is a document of its own
 * (a `vscode-notebook-cell:` URI), but it runs as part of one script in cell order
 * (client/notebook/cell-script.ts). The editor sends each cell's prelude (the statements of the
 * cells above it) with `apl/cellPrelude`; a cell with one is checked as prelude + cell, and only the
 * cell's own diagnostics are kept, moved onto its lines. A name that only a cell BELOW defines
 * (`later`) is reported where the cell uses it (APL0050), instead of as an unknown field.
 */
import { AstUtils, URI, type LangiumDocument, type ValidationOptions } from 'langium';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import { Issues } from '../../language/apl-issue-codes.js';
import type { AplServices } from '../../language/apl-module.js';
import { AplDocumentValidator } from '../../language/apl-validator.js';

export interface CellPrelude {
    /** The statements of the cells above, each line ending in a newline (empty: the first cell). */
    prelude: string;
    /** Names only later cells define, with the 1-based number of the first cell that does. */
    later: { name: string; cell: number }[];
}

/** Reads the notification's parameters; a bad one is refused naming the field. */
export function readCellPrelude(params: unknown): { uri: string } & CellPrelude {
    const p = params as { uri?: unknown; prelude?: unknown; later?: unknown } | null;
    if (typeof p?.uri !== 'string') throw new Error('apl/cellPrelude: uri: expected the cell document\'s URI (a string)');
    if (typeof p.prelude !== 'string') throw new Error('apl/cellPrelude: prelude: expected a string');
    const later = p.later ?? [];
    if (!Array.isArray(later) || later.some(l => typeof (l as { name?: unknown })?.name !== 'string' || typeof (l as { cell?: unknown }).cell !== 'number')) {
        throw new Error('apl/cellPrelude: later: expected an array of { "name", "cell" }');
    }
    const prelude = p.prelude === '' || p.prelude.endsWith('\n') ? p.prelude : `${p.prelude}\n`;
    return { uri: p.uri, prelude, later: later as CellPrelude['later'] };
}

export class CellPreludes {
    private readonly byUri = new Map<string, CellPrelude>();

    set(uri: string, prelude: CellPrelude): void {
        this.byUri.set(uri, prelude);
    }

    get(uri: string): CellPrelude | undefined {
        return this.byUri.get(uri);
    }

    delete(uri: string): void {
        this.byUri.delete(uri);
    }
}

let scratch = 0;

export class NotebookCellValidator extends AplDocumentValidator {
    constructor(
        private readonly apl: AplServices,
        private readonly preludes: CellPreludes,
    ) {
        super(apl);
    }

    override async validateDocument(document: LangiumDocument, options: ValidationOptions = {}, cancelToken?: CancellationToken): Promise<Diagnostic[]> {
        const entry = this.preludes.get(document.uri.toString());
        if (!entry) return super.validateDocument(document, options, cancelToken);
        const preludeLines = entry.prelude === '' ? 0 : entry.prelude.split('\n').length - 1;
        let diagnostics: Diagnostic[];
        if (preludeLines === 0) {
            diagnostics = await super.validateDocument(document, options, cancelToken);
        } else {
            const whole = this.apl.shared.workspace.LangiumDocumentFactory.fromString(entry.prelude + document.textDocument.getText(), URI.parse(`memory:///notebook-cell-${++scratch}.apl`));
            diagnostics = (await super.validateDocument(whole, options, cancelToken))
                .filter(d => d.range.start.line >= preludeLines)
                .map(d => ({ ...d, range: { start: { ...d.range.start, line: d.range.start.line - preludeLines }, end: { ...d.range.end, line: d.range.end.line - preludeLines } } }));
        }
        if (entry.later.length === 0) return diagnostics;
        const later = new Map(entry.later.map(l => [l.name, l.cell]));
        const text = document.textDocument;
        const extra: Diagnostic[] = [];
        for (const node of AstUtils.streamAst(document.parseResult.value)) {
            if (node.$type !== 'NameReference' || !node.$cstNode) continue;
            const name = (node as unknown as { name: string }).name;
            const cell = later.get(name);
            if (cell === undefined) continue;
            const range = { start: text.positionAt(node.$cstNode.offset), end: text.positionAt(node.$cstNode.end) };
            const code = Issues.LaterCellName.code;
            extra.push({ severity: 1, range, message: Issues.LaterCellName.message({ name, cell }), code, data: { code }, source: this.getSource() });
        }
        // The later cell's name replaces what the check said of the same name (an unknown field).
        const at = (d: Diagnostic) => `${d.range.start.line}:${d.range.start.character}`;
        const taken = new Set(extra.map(at));
        return [...diagnostics.filter(d => !taken.has(at(d))), ...extra];
    }
}
