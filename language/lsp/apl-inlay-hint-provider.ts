/**
 * Inlay hints: the type of each column an `extend`/`extend-valid`/`project` makes (`| extend kb: long
 * = bytes / 1024`), and, when the `apl.inlayHints.summarizeColumns` setting is on, the columns a
 * `summarize` produces, after it. Types come from the type computer's row types through the pipeline,
 * so a hint says exactly what hover and completion say of the same column.
 */
import { AstUtils, GrammarUtils, type ConfigurationProvider, type LangiumDocument } from 'langium';
import type { InlayHintProvider } from 'langium/lsp';
import { InlayHintKind, type InlayHint, type InlayHintParams } from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import * as ast from '../generated/ast.js';
import type { AplTypeComputer } from '../types/apl-type-computer.js';
import { formatRowType } from './apl-hover-provider.js';
import { quoteName, reportProviderError } from './apl-names.js';

/** The `apl.inlayHints` settings. */
export interface AplInlayHintSettings {
    /** The result columns after each `summarize` (off by default: the hint can make a long line). */
    summarizeColumns: boolean;
}

export const DEFAULT_INLAY_HINT_SETTINGS: AplInlayHintSettings = { summarizeColumns: false };

/** Columns a summarize hint lists before it says how many more there are. */
const SUMMARIZE_COLUMNS_SHOWN = 6;

/** Reads `apl.inlayHints` from the client's settings; anything that is not an object means the defaults. */
export function inlayHintSettings(value: unknown): AplInlayHintSettings {
    const v = value && typeof value === 'object' ? (value as { summarizeColumns?: unknown }) : {};
    return { summarizeColumns: v.summarizeColumns === true };
}

export class AplInlayHintProvider implements InlayHintProvider {
    private readonly types: AplTypeComputer;
    private readonly configuration: ConfigurationProvider;

    constructor(services: AplServices) {
        this.types = services.types.TypeComputer;
        this.configuration = services.shared.workspace.ConfigurationProvider;
    }

    async getInlayHints(document: LangiumDocument, params: InlayHintParams): Promise<InlayHint[] | undefined> {
        try {
            const settings = inlayHintSettings(await this.configuration.getConfiguration('apl', 'inlayHints'));
            return this.hints(document, params, settings);
        } catch (e) {
            reportProviderError('inlay hints', e);
            return undefined;
        }
    }

    /** The hints of the operators that overlap `params.range` (an editor asks for what it shows). */
    hints(document: LangiumDocument, params: InlayHintParams, settings: AplInlayHintSettings): InlayHint[] {
        const text = document.textDocument;
        const from = text.offsetAt(params.range.start);
        const to = text.offsetAt(params.range.end);
        const hints: InlayHint[] = [];
        const model = document.parseResult.value as ast.Model;
        // Only the statements the editor shows are walked: a long document costs what is on screen.
        const visible = (model.statements ?? []).filter(st => st.$cstNode && st.$cstNode.end >= from && st.$cstNode.offset <= to);
        for (const node of visible.flatMap(st => AstUtils.streamAllContents(st).toArray())) {
            const cst = node.$cstNode;
            if (!cst || cst.end < from || cst.offset > to) continue;
            if (ast.isExtendOperator(node) || ast.isExtendValidOperator(node) || ast.isProjectOperator(node)) {
                this.columnHints(node, document, hints);
            } else if (settings.summarizeColumns && ast.isSummarizeOperator(node)) {
                const hint = this.summarizeHint(node, document);
                if (hint) hints.push(hint);
            }
        }
        return hints;
    }

    /** `: type` after each column's name (`kb: long = …`), or after the expression when it has none (`project status: string`). */
    private columnHints(op: ast.ExtendOperator | ast.ExtendValidOperator | ast.ProjectOperator, document: LangiumDocument, hints: InlayHint[]): void {
        const row = this.types.rowTypeAfter(op);
        let n = 0;
        for (const column of op.columns) {
            if (!column.expression) continue;
            const name = column.name ?? this.types.derivedName(column.expression, () => ++n).name;
            const type = this.types.column(row, name)?.type ?? this.types.typeOf(column.expression);
            if (type === 'unknown') continue;
            const anchor = column.name !== undefined ? nameEnd(column) : column.expression.$cstNode?.end;
            if (anchor === undefined) continue;
            hints.push({
                position: document.textDocument.positionAt(anchor),
                label: `: ${type}`,
                kind: InlayHintKind.Type,
                tooltip: `column ${quoteName(name)}: ${type}`,
            });
        }
    }

    /** ` → (count_: long, status: string)` after the summarize. */
    private summarizeHint(op: ast.SummarizeOperator, document: LangiumDocument): InlayHint | undefined {
        const end = op.$cstNode?.end;
        if (end === undefined) return undefined;
        const row = this.types.rowTypeAfter(op);
        if (row.columns.length === 0) return undefined;
        return {
            position: document.textDocument.positionAt(end),
            label: `→ ${formatRowType(row, SUMMARIZE_COLUMNS_SHOWN)}`,
            kind: InlayHintKind.Type,
            paddingLeft: true,
            tooltip: `the columns after summarize: ${formatRowType(row, Number.MAX_SAFE_INTEGER)}`,
        };
    }
}

/** The offset just past a named column's name (`kb` in `kb = …`). */
function nameEnd(column: ast.NamedExpression): number | undefined {
    return GrammarUtils.findNodeForProperty(column.$cstNode, 'name')?.end;
}
