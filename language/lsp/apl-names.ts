/**
 * What a name at a place means, for hover, definition, references, rename and document highlight.
 *
 * APL names are not cross-references in the grammar, so Langium's linker knows nothing about them.
 * Two kinds of user-defined names are tracked here, over the type computer's knowledge:
 * - `let` names (and `declare query_parameters` parameters), referenced by later statements;
 * - columns defined by a tabular operator (`extend x = ...`, `project x = ...`, `summarize c = count()
 *   by k = ...`, `project-rename new = old`, parse captures, ...), referenced by the operators after it
 *   in the same pipeline (and by later assignments of the same extend/project).
 * Dataset fields have no definition in the document: they resolve to a `field` with no declaration.
 */
import { AstUtils, CstUtils, GrammarUtils, type AstNode, type CstNode, type LangiumDocument } from 'langium';
import * as ast from '../generated/ast.js';
import type { AplTypeComputer, LetBinding } from '../types/apl-type-computer.js';
import { isTabularOperatorNode } from '../types/apl-type-computer.js';

/** Where a name is written: the CST node of the name token, and the name it stands for. */
export interface NameOccurrence {
    node: AstNode;
    cst: CstNode;
    name: string;
    declaration: boolean;
}

export type NameTarget =
    | { kind: 'let'; name: string; binding: LetBinding }
    | { kind: 'column'; name: string; operator: ast.TabularOperator; site: AstNode }
    | { kind: 'field'; name: string };

export { bracketName, isPlainIdentifier, quoteName } from '../quote-name.js';

/** The columns an operator declares, with the node holding the name and that node's name property. */
export function declarationSites(op: ast.TabularOperator): { site: AstNode; property: string; name: string }[] {
    const out: { site: AstNode; property: string; name: string }[] = [];
    const named = (list: readonly (ast.NamedExpression | ast.MvExpandItem | ast.MakeSeriesAggregate)[]) => {
        for (const n of list) if (n.name !== undefined) out.push({ site: n, property: 'name', name: n.name });
    };
    switch (op.$type) {
        case 'ExtendOperator': case 'ExtendValidOperator': case 'ProjectOperator':
            named(op.columns);
            break;
        case 'SummarizeOperator':
            named(op.aggregates);
            named(op.groups);
            break;
        case 'MakeSeriesOperator':
            named(op.aggregates);
            named(op.groups);
            break;
        case 'ProjectRenameOperator':
            for (const r of op.renames) if (r.newName !== undefined) out.push({ site: r, property: 'newName', name: r.newName });
            break;
        case 'ParseOperator': case 'ParseWhereOperator':
            for (const p of op.pattern) if (ast.isParseCapture(p)) out.push({ site: p, property: 'name', name: p.name });
            break;
        case 'ParseKvOperator':
            for (const k of op.keys) out.push({ site: k, property: 'name', name: k.name });
            break;
        case 'MvExpandOperator':
            named(op.items);
            break;
    }
    return out;
}

export class AplNames {
    constructor(private readonly types: AplTypeComputer) {}

    /** The name occurrence under `offset` (a declaration or a reference), if any. */
    occurrenceAt(document: LangiumDocument, offset: number): NameOccurrence | undefined {
        const root = document.parseResult.value.$cstNode;
        if (!root) return undefined;
        const leaf = CstUtils.findLeafNodeAtOffset(root, offset) ?? (offset > 0 ? CstUtils.findLeafNodeAtOffset(root, offset - 1) : undefined);
        if (!leaf || leaf.hidden) return undefined;
        const node = leaf.astNode;
        const feature = GrammarUtils.findAssignment(leaf)?.feature;
        switch (node.$type) {
            case 'LetStatement': case 'QueryParameter':
                return feature === 'name' ? { node, cst: leaf, name: (node as ast.LetStatement).name, declaration: true } : undefined;
            case 'NamedExpression': case 'MvExpandItem': case 'MakeSeriesAggregate': case 'ParseCapture': case 'TypedColumn':
                if (feature === 'name' && isTabularOperatorNode(node.$container)) {
                    return { node, cst: leaf, name: (node as ast.NamedExpression).name!, declaration: true };
                }
                return undefined;
            case 'ColumnRename':
                return feature === 'newName' ? { node, cst: leaf, name: (node as ast.ColumnRename).newName, declaration: true } : undefined;
            case 'NameReference': case 'BracketReference':
                return { node, cst: leaf, name: (node as ast.NameReference).name, declaration: false };
            case 'ColumnPath': {
                const path = node as ast.ColumnPath;
                return path.segments.length === 1 ? { node, cst: leaf, name: path.segments[0], declaration: false } : undefined;
            }
        }
        return undefined;
    }

    /** What an occurrence refers to. */
    targetOf(occurrence: NameOccurrence): NameTarget | undefined {
        const { node, name } = occurrence;
        if (occurrence.declaration) {
            if (ast.isLetStatement(node) || ast.isQueryParameter(node)) return { kind: 'let', name, binding: node };
            const op = AstUtils.getContainerOfType(node, isTabularOperatorNode);
            return op ? { kind: 'column', name, operator: op, site: node } : undefined;
        }
        return this.resolveReference(node, name);
    }

    /** A reference: a column in scope first (columns shadow lets), then a let. */
    resolveReference(node: AstNode, name: string): NameTarget | undefined {
        const op = AstUtils.getContainerOfType(node, isTabularOperatorNode);
        const isColumnPath = ast.isColumnPath(node);
        const field = isColumnPath ? undefined : this.types.resolveField(node);
        const inScope = isColumnPath || (field !== undefined && field.field === name && field.keyPath.length === 0);
        if (inScope && op) {
            const decl = this.findColumnDeclaration(op, name, node);
            return decl ?? { kind: 'field', name };
        }
        if (field) return { kind: 'field', name: field.field };
        if (ast.isNameReference(node)) {
            const binding = this.types.letBinding(name, node);
            if (binding) return { kind: 'let', name, binding };
        }
        return undefined;
    }

    /** The operator (and site) that defines the column `name` as seen at `node` inside `op`. */
    findColumnDeclaration(op: ast.TabularOperator, name: string, node: AstNode): NameTarget | undefined {
        // Later assignments of the same extend/project see the earlier ones.
        if (ast.isExtendOperator(op) || ast.isExtendValidOperator(op) || ast.isProjectOperator(op)) {
            const own = AstUtils.getContainerOfType(node, (n): n is ast.NamedExpression => ast.isNamedExpression(n) && n.$container === op);
            const at = own ? op.columns.indexOf(own) : -1;
            for (let i = at - 1; i >= 0; i--) {
                const c = op.columns[i];
                if (c.name === name) return { kind: 'column', name, operator: op, site: c };
            }
        }
        const pipeline = op.$container;
        if (!ast.isPipeline(pipeline)) return undefined;
        for (let i = pipeline.operators.indexOf(op) - 1; i >= 0; i--) {
            const previous = pipeline.operators[i];
            const site = declarationSites(previous).find(d => d.name === name);
            if (site) return { kind: 'column', name, operator: previous, site: site.site };
        }
        return undefined;
    }

    /** Every occurrence of the target in the document, the declaration first. */
    occurrencesOf(document: LangiumDocument, target: NameTarget): NameOccurrence[] {
        if (target.kind === 'field') return [];
        const out: NameOccurrence[] = [];
        const decl = this.declarationOccurrence(target);
        if (decl) out.push(decl);
        const model = document.parseResult.value;
        for (const node of AstUtils.streamAllContents(model)) {
            if (!(ast.isNameReference(node) || ast.isBracketReference(node) || (ast.isColumnPath(node) && node.segments.length === 1))) continue;
            const name = ast.isColumnPath(node) ? node.segments[0] : node.name;
            if (name !== target.name || !node.$cstNode) continue;
            const resolved = this.resolveReference(node, name);
            if (!resolved || !sameTarget(resolved, target)) continue;
            out.push({ node, cst: node.$cstNode, name, declaration: false });
        }
        return out;
    }

    declarationOccurrence(target: NameTarget): NameOccurrence | undefined {
        if (target.kind === 'field') return undefined;
        const node = target.kind === 'let' ? target.binding : target.site;
        const property = ast.isColumnRename(node) ? 'newName' : 'name';
        const cst = GrammarUtils.findNodeForProperty(node.$cstNode, property);
        return cst ? { node, cst, name: target.name, declaration: true } : undefined;
    }
}

function sameTarget(a: NameTarget, b: NameTarget): boolean {
    if (a.kind !== b.kind || a.name !== b.name) return false;
    if (a.kind === 'let' && b.kind === 'let') return a.binding === b.binding;
    if (a.kind === 'column' && b.kind === 'column') return a.site === b.site;
    return true;
}

/** Receives an error that {@link safely} caught; the default writes it to the server log. */
export type ProviderErrorHandler = (what: string, error: unknown) => void;

const logProviderError: ProviderErrorHandler = (what, e) => {
    console.error(`APL ${what} failed:`, e instanceof Error ? e.stack ?? e.message : e);
};

let providerErrorHandler: ProviderErrorHandler = logProviderError;

/**
 * Replaces where {@link safely} reports a caught error (`undefined` restores the default, logging).
 * A handler that throws makes the failure propagate: the tests install one so that a provider
 * error fails the test instead of being logged and hidden.
 */
export function setProviderErrorHandler(handler: ProviderErrorHandler | undefined): void {
    providerErrorHandler = handler ?? logProviderError;
}

/** Reports a provider's error as `safely` does, for providers that catch their own (async ones). */
export function reportProviderError(what: string, e: unknown): void {
    providerErrorHandler(what, e);
}

/**
 * Runs an editor request so that a failure in the analysis (for instance on a half-typed query)
 * degrades to "no result" instead of an LSP error. The error is still reported to the provider
 * error handler (by default the server log).
 */
export function safely<T>(what: string, fallback: T, fn: () => T): T {
    try {
        return fn();
    } catch (e) {
        providerErrorHandler(what, e);
        return fallback;
    }
}
