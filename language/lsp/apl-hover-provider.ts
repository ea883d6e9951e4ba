import { CstUtils, GrammarUtils, type AstNode, type LangiumDocument } from 'langium';
import type { HoverProvider } from 'langium/lsp';
import type { Hover, HoverParams } from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import { lookupAggregate, lookupScalarFunction, lookupScalarOperator, lookupTabularOperator } from '../builtins/index.js';
import * as ast from '../generated/ast.js';
import { isTabularOperatorNode, type AplTypeComputer } from '../types/apl-type-computer.js';
import type { AplType, RowType } from '../types/apl-types.js';
import { fence, functionMarkdown, markdownText, scalarOperatorMarkdown, tabularOperatorMarkdown } from './apl-docs.js';
import { AplNames, quoteName, safely, type NameTarget } from './apl-names.js';
import { analyzerRuleByCode, analyzerRuleMarkdown } from '../analyzers/analyzer-rules.js';

/** The row type as `(a: string, b: long, ...)`, shortened after `max` columns. */
export function formatRowType(row: RowType, max = 12): string {
    const cols = row.columns.slice(0, max).map(c => `${quoteName(c.name)}: ${c.type}`);
    if (row.columns.length > max) cols.push(`... ${row.columns.length - max} more`);
    return `(${cols.join(', ')})`;
}

/** Whether two row types list the same columns with the same types, in the same order. */
export function sameColumns(a: RowType, b: RowType): boolean {
    return a.open === b.open && a.columns.length === b.columns.length && a.columns.every((c, i) => c.name === b.columns[i].name && c.type === b.columns[i].type);
}

/** How many columns a row type lists, and whether the source may have others (an unknown schema). */
function columnCount(row: RowType): string {
    const n = `${row.columns.length} column${row.columns.length === 1 ? '' : 's'}`;
    return row.open ? `${n}, and any other fields of the source` : n;
}

/** The schema a pipeline stage receives and the one it produces (hover on a tabular operator). */
export function stageSchemaMarkdown(before: RowType, after: RowType): string {
    const parts = [`**Before** (${columnCount(before)})`, fence(formatRowType(before))];
    if (sameColumns(before, after)) parts.push('**After**: the same columns');
    else parts.push(`**After** (${columnCount(after)})`, fence(formatRowType(after)));
    return parts.join('\n\n');
}

/**
 * Hover: catalogue docs (signature, description, example) for functions, aggregations, tabular and
 * scalar operators (a tabular operator's with the schema before and after it); the type of fields, columns and `let` names; a dataset's field count.
 */
export class AplHoverProvider implements HoverProvider {
    private readonly types: AplTypeComputer;
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.types = services.types.TypeComputer;
        this.names = new AplNames(this.types);
    }

    getHoverContent(document: LangiumDocument, params: HoverParams): Hover | undefined {
        return safely('hover', undefined, () => this.hover(document, params));
    }

    private hover(document: LangiumDocument, params: HoverParams): Hover | undefined {
        const root = document.parseResult.value.$cstNode;
        if (!root) return undefined;
        const offset = document.textDocument.offsetAt(params.position);
        const leaf = CstUtils.findLeafNodeAtOffset(root, offset);
        const advice = this.analyzerAdvice(document, offset);
        if (!leaf || leaf.hidden) return advice ? { contents: { kind: 'markdown', value: advice } } : undefined;
        const content = this.contentFor(document, leaf.astNode, leaf.text, GrammarUtils.findAssignment(leaf)?.feature, offset);
        const markdown = advice && content ? `${advice}\n\n---\n\n${content}` : advice ?? content;
        if (!markdown) return undefined;
        return {
            contents: { kind: 'markdown', value: markdown },
            range: { start: document.textDocument.positionAt(leaf.offset), end: document.textDocument.positionAt(leaf.end) },
        };
    }

    /** The explanation (with a bad and a good example) of the analyzer findings under the cursor. */
    private analyzerAdvice(document: LangiumDocument, offset: number): string | undefined {
        const text = document.textDocument;
        const parts = new Set<string>();
        for (const d of document.diagnostics ?? []) {
            const rule = typeof d.code === 'string' ? analyzerRuleByCode(d.code) : undefined;
            if (rule && text.offsetAt(d.range.start) <= offset && offset <= text.offsetAt(d.range.end)) parts.add(analyzerRuleMarkdown(rule));
        }
        return parts.size > 0 ? [...parts].join('\n\n---\n\n') : undefined;
    }

    private contentFor(document: LangiumDocument, node: AstNode, text: string, feature: string | undefined, offset: number): string | undefined {
        if (ast.isFunctionCall(node) && feature === 'function') {
            const entry = this.types.callee(node) ?? lookupScalarFunction(node.function) ?? lookupAggregate(node.function);
            if (entry) return functionMarkdown(entry, node.function);
            return undefined;
        }
        if (feature === 'keyword' && isTabularOperatorNode(node)) {
            const entry = lookupTabularOperator(text);
            if (!entry) return undefined;
            return `${tabularOperatorMarkdown(entry)}\n\n${stageSchemaMarkdown(this.types.rowTypeBefore(node), this.types.rowTypeAfter(node))}`;
        }
        if ((ast.isPrintExpression(node) || ast.isUnionExpression(node) || ast.isSearchExpression(node) || ast.isExternalDataExpression(node) || ast.isDatatableExpression(node))
            && /^[a-z]+$/.test(text) && node.$cstNode?.offset !== undefined && CstUtils.findLeafNodeAtOffset(node.$cstNode, node.$cstNode.offset)?.text === text) {
            const entry = lookupTabularOperator(text);
            if (entry) return tabularOperatorMarkdown(entry);
        }
        if ((ast.isBinaryExpression(node) || ast.isInExpression(node) || ast.isBetweenExpression(node)) && feature === 'operator') {
            const entry = lookupScalarOperator(node.operator) ?? lookupScalarOperator(text);
            return entry ? scalarOperatorMarkdown(entry) : undefined;
        }
        if ((ast.isNameReference(node) || ast.isBracketReference(node)) && this.types.isTabularPosition(node)) {
            const dataset = this.types.schema.dataset(node.name);
            if (dataset) return `${fence(`dataset ${quoteName(node.name)}`)}\n\n${dataset.fields.length} fields`;
        }
        if (ast.isMemberAccess(node) || ast.isIndexAccess(node)) {
            const field = this.types.resolveField(node);
            if (field) return this.fieldMarkdown(field.keyPath.length ? [field.field, ...field.keyPath].join('.') : field.field, field.type, field.keyPath.length ? undefined : field.field);
            return undefined;
        }
        const occurrence = this.names.occurrenceAt(document, offset);
        if (!occurrence) return undefined;
        const target = this.names.targetOf(occurrence);
        if (!target) return undefined;
        return this.targetMarkdown(target, occurrence.node);
    }

    private targetMarkdown(target: NameTarget, at: AstNode): string | undefined {
        switch (target.kind) {
            case 'let': {
                const binding = target.binding;
                if (ast.isQueryParameter(binding)) return fence(`(query parameter) ${binding.name}: ${binding.type}`);
                if (this.types.isTabularPosition(binding.value)) {
                    return `${fence(`let ${binding.name}: table`)}\n\n${formatRowType(this.types.rowTypeOfSource(binding.value))}`;
                }
                return fence(`let ${binding.name}: ${this.types.typeOf(binding.value)}`);
            }
            case 'column': {
                const type = this.columnType(target);
                return `${fence(`(column) ${quoteName(target.name)}: ${type}`)}\n\nDefined by \`${target.operator.keyword}\`.`;
            }
            case 'field': {
                const field = ast.isColumnPath(at) ? undefined : this.types.resolveField(at);
                return this.fieldMarkdown(target.name, field?.type ?? this.typeInScope(at, target.name), target.name);
            }
        }
    }

    private columnType(target: Extract<NameTarget, { kind: 'column' }>): AplType {
        const row = this.types.rowTypeAfter(target.operator);
        return this.types.column(row, target.name)?.type ?? 'unknown';
    }

    private typeInScope(at: AstNode, name: string): AplType {
        const row = this.types.rowTypeInScope(at) ?? (isTabularOperatorNode(at.$container) ? this.types.rowTypeBefore(at.$container) : undefined);
        return (row && this.types.column(row, name)?.type) ?? 'unknown';
    }

    private fieldMarkdown(name: string, type: AplType, schemaName: string | undefined): string {
        const parts = [fence(`(field) ${quoteName(name)}: ${type}`)];
        if (schemaName !== undefined) {
            for (const ds of this.types.schema.datasets()) {
                const f = ds.fields.find(x => x.name === schemaName);
                if (f?.description || f?.unit) {
                    // The schema's words, shown as text: never an image, a link or HTML of theirs.
                    parts.push([f.description ? markdownText(f.description) : undefined, f.unit ? `Unit: ${markdownText(f.unit)}` : undefined].filter(Boolean).join('\n\n'));
                    break;
                }
            }
        }
        return parts.join('\n\n');
    }
}
