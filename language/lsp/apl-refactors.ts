/**
 * Refactors (code actions of kind refactor.*) for APL. Each one rewrites text only where the
 * meaning is certain to stay the same:
 * - extract a column-free expression, an `in (…)` list of literals or a pipeline prefix to a `let`,
 *   replacing every identical use in the query block;
 * - inline a `let` used once;
 * - `a == 'x' or a == 'y'` ⇄ `a in ('x', 'y')`;
 * - `where p and q` ⇄ `where p | where q`;
 * - a dataset reference in its right quoting (language/quote-name.ts), `sample-http-logs` included;
 * - `['geo.city']` ⇄ `geo.city` when the schema says both name the same field.
 *
 * APL's `let` binds a value or a table, never a function, so a predicate that reads columns cannot
 * become a `let` of its own: it is extracted with the pipeline prefix it filters.
 */
import { AstUtils, CstUtils, isLeafCstNode, type AstNode, type LangiumDocument } from 'langium';
import type { CodeActionProvider } from 'langium/lsp';
import { CodeActionTriggerKind, type CancellationToken, type CodeAction, type CodeActionParams, type Command, type Range } from 'vscode-languageserver';
import * as ast from '../generated/ast.js';
import type { AplServices } from '../apl-module.js';
import { bracketName, isPlainIdentifier, quoteName } from '../quote-name.js';
import { blockNumberAt } from '../query-blocks.js';
import type { AplTypeComputer } from '../types/apl-type-computer.js';
import { nameChain } from '../types/apl-type-computer.js';
import { AplNames, safely } from './apl-names.js';

export const RefactorKinds = {
    extract: 'refactor.extract',
    inline: 'refactor.inline',
    rewrite: 'refactor.rewrite',
} as const;

/** Adds the refactors to another provider's actions (the quick fixes of apl-code-actions.ts). */
export function withRefactors(base: CodeActionProvider, services: AplServices): CodeActionProvider {
    const refactors = new AplRefactors(services);
    return {
        async getCodeActions(document: LangiumDocument, params: CodeActionParams, token?: CancellationToken) {
            const fixes = (await base.getCodeActions(document, params, token)) ?? [];
            const only = params.context.only;
            const wanted = (kind: string) => (only ? only.some(o => kind === o || kind.startsWith(`${o}.`)) : true);
            // A request about diagnostics (the quick-fix list) gets refactors only when it asks for their kind:
            // the fixes stay a short list, and the refactor menu (`only: ['refactor']`) still has them all.
            // The light bulb (an automatic request) comes on for a selection, not at every cursor move.
            const automatic = params.context.triggerKind === CodeActionTriggerKind.Automatic && isEmpty(params.range);
            const asked = only?.some(o => o === 'refactor' || o.startsWith('refactor.')) ?? (params.context.diagnostics.length === 0 && !automatic);
            const more = !asked ? [] : safely('refactors', [] as CodeAction[], () => refactors.actions(document, params.range))
                .filter(a => a.kind !== undefined && wanted(a.kind));
            const all: Array<Command | CodeAction> = [...fixes, ...more];
            return all.length > 0 ? all : undefined;
        },
    };
}

interface Span {
    start: number;
    end: number;
}

interface Edit extends Span {
    newText: string;
}

/** Functions whose every call gives another value: two uses are not one value. */
const NON_DETERMINISTIC = new Set(['rand', 'new_guid']);

/** Expressions that need no parentheses wherever another expression stood. */
const PRIMARY = new Set([
    'NameReference', 'BracketReference', 'FunctionCall', 'ParenthesizedExpression', 'StringLiteral', 'LongLiteral', 'RealLiteral',
    'TimespanLiteral', 'DatetimeLiteral', 'BooleanLiteral', 'NullLiteral', 'DynamicLiteral', 'TypeofLiteral', 'MemberAccess', 'IndexAccess',
]);

const LITERAL = new Set(['StringLiteral', 'LongLiteral', 'RealLiteral', 'TimespanLiteral', 'DatetimeLiteral', 'BooleanLiteral']);

export class AplRefactors {
    private readonly types: AplTypeComputer;
    private readonly names: AplNames;

    constructor(services: AplServices) {
        this.types = services.types.TypeComputer;
        this.names = new AplNames(this.types);
    }

    /** The refactors that apply to a selection (or a cursor: an empty range). */
    actions(document: LangiumDocument, range: Range): CodeAction[] {
        const model = document.parseResult.value;
        if (!ast.isModel(model) || !model.$cstNode) return [];
        const textDoc = document.textDocument;
        const text = textDoc.getText();
        const selection = trim(text, { start: textDoc.offsetAt(range.start), end: textDoc.offsetAt(range.end) });
        const ctx: Ctx = { document, text, model, selection };
        const out: CodeAction[] = [];
        const add = (title: string, kind: string, edits: Edit[] | undefined) => {
            if (edits && edits.length > 0) out.push(action(document, title, kind, edits));
        };
        add('Extract expression to a let', RefactorKinds.extract, this.extractExpression(ctx));
        add('Extract values to a let', RefactorKinds.extract, this.extractInList(ctx));
        add('Extract pipeline prefix to a let', RefactorKinds.extract, this.extractPrefix(ctx));
        add('Inline let', RefactorKinds.inline, this.inlineLet(ctx));
        add("Convert to 'in (…)'", RefactorKinds.rewrite, this.orChainToIn(ctx));
        add("Convert to '==' … 'or'", RefactorKinds.rewrite, this.inToOrChain(ctx));
        add("Split 'where … and …' into consecutive wheres", RefactorKinds.rewrite, this.splitWhere(ctx));
        add('Join consecutive wheres', RefactorKinds.rewrite, this.joinWheres(ctx));
        for (const [title, edits] of this.requoteDataset(ctx)) add(title, RefactorKinds.rewrite, edits);
        for (const [title, edits] of this.dottedAccess(ctx)) add(title, RefactorKinds.rewrite, edits);
        return out;
    }

    // ------------------------------------------------------------------ extract

    private extractExpression(ctx: Ctx): Edit[] | undefined {
        const node = exactNode(ctx, n => ast.isExpression(n));
        if (!node || !ast.isExpression(node) || ast.isPipeline(node) || this.types.isTabularPosition(node)) return undefined;
        if (ast.isLetStatement(node.$container) || ast.isStarExpression(node) || !this.columnFree(node)) return undefined;
        const statement = statementOf(node);
        if (!statement) return undefined;
        const key = tokens(node);
        // Identical text is the same value only where its names are the same lets.
        const uses = this.blockStatements(ctx, statement)
            .flatMap(s => outermost(streamWithSelf(s).filter(n => ast.isExpression(n) && n.$type === node.$type && tokens(n) === key
                && !this.types.isTabularPosition(n) && !ast.isLetStatement(n.$container) && this.columnFree(n) && this.sameBindings([node], n))));
        const name = this.freshName(ctx, 'value');
        return this.letBefore(ctx, [node], name, sliceOf(ctx.text, node), uses.map(u => ({ ...spanOf(u), newText: name })));
    }

    /** `x in ('a', 'b')` → `let values = dynamic(['a', 'b']);` … `x in (values)`. */
    private extractInList(ctx: Ctx): Edit[] | undefined {
        const leaf = leafAt(ctx, ctx.selection.start);
        const inExpr = leaf && AstUtils.getContainerOfType(leaf.astNode, ast.isInExpression);
        if (!inExpr || (inExpr.operator !== 'in' && inExpr.operator !== '!in') || inExpr.items.length < 2) return undefined;
        if (!inExpr.items.every(i => LITERAL.has(i.$type) && !/^@/.test(sliceOf(ctx.text, i)))) return undefined;
        const first = spanOf(inExpr.items[0]);
        const last = spanOf(inExpr.items[inExpr.items.length - 1]);
        // The selection is the list (with or without its parentheses).
        if (ctx.selection.start > first.start || ctx.selection.end < last.end) return undefined;
        if (ctx.selection.start < first.start - 1 || ctx.selection.end > last.end + 1) return undefined;
        const list = ctx.text.slice(first.start, last.end);
        const name = this.freshName(ctx, 'values');
        return this.letBefore(ctx, inExpr.items, name, `dynamic([${list}])`, [{ start: first.start, end: last.end, newText: name }]);
    }

    /** A source and its first operators, selected (or the cursor on the last operator to take) → a `let` of that table. */
    private extractPrefix(ctx: Ctx): Edit[] | undefined {
        const leaf = leafAt(ctx, ctx.selection.end > ctx.selection.start ? ctx.selection.end - 1 : ctx.selection.start);
        const op = leaf && AstUtils.getContainerOfType(leaf.astNode, (n): n is ast.TabularOperator => ast.isPipeline(n.$container) && n.$containerProperty === 'operators');
        const pipeline = op?.$container;
        if (!op || !ast.isPipeline(pipeline) || !(ast.isQueryStatement(pipeline.$container) || ast.isLetStatement(pipeline.$container))) return undefined;
        const count = pipeline.operators.indexOf(op) + 1;
        if (count >= pipeline.operators.length) return undefined; // the whole pipeline: nothing would be left to follow the let
        const sourceSpan = spanOf(pipeline.source);
        if (ctx.selection.end > ctx.selection.start && ctx.selection.start !== sourceSpan.start) return undefined;
        if (ctx.selection.end > ctx.selection.start && ctx.selection.end !== spanOf(op).end) return undefined;
        const key = prefixTokens(pipeline, count);
        const prefix: AstNode[] = [pipeline.source, ...pipeline.operators.slice(0, count)];
        const uses: Edit[] = [];
        const name = this.freshName(ctx, 'base');
        for (const s of this.blockStatements(ctx, pipeline.$container)) {
            const body = ast.isQueryStatement(s) ? s.body : ast.isLetStatement(s) ? s.value : undefined;
            if (!ast.isPipeline(body) || body.operators.length <= count || prefixTokens(body, count) !== key || !this.sameBindings(prefix, body)) continue;
            uses.push({ start: spanOf(body.source).start, end: spanOf(body.operators[count - 1]).end, newText: name });
        }
        return this.letBefore(ctx, prefix, name, ctx.text.slice(sourceSpan.start, spanOf(op).end), uses);
    }

    /**
     * Inserts `let name = value;` before the first statement with a use, and replaces the uses; nothing
     * when a let the value names is defined only after that statement.
     */
    private letBefore(ctx: Ctx, valueNodes: readonly AstNode[], name: string, value: string, uses: Edit[]): Edit[] | undefined {
        if (uses.length === 0) return undefined;
        const first = ctx.model.statements.find(s => uses.some(u => contains(spanOf(s), u)));
        if (!first || !this.sameBindings(valueNodes, first)) return undefined;
        const at = spanOf(first).start;
        const lineStart = ctx.text.lastIndexOf('\n', at - 1) + 1;
        const indent = /^[ \t]*/.exec(ctx.text.slice(lineStart, at))?.[0] ?? '';
        const onOwnLine = ctx.text.slice(lineStart, at).trim() === '';
        const insert = onOwnLine ? `let ${name} = ${value};${eol(ctx.text)}${indent}` : `let ${name} = ${value}; `;
        return [{ start: at, end: at, newText: insert }, ...uses];
    }

    // ------------------------------------------------------------------ inline

    private inlineLet(ctx: Ctx): Edit[] | undefined {
        const occurrence = this.names.occurrenceAt(ctx.document, ctx.selection.start);
        const target = occurrence && this.names.targetOf(occurrence);
        if (!target || target.kind !== 'let' || !ast.isLetStatement(target.binding)) return undefined;
        const binding = target.binding;
        const references = this.names.occurrencesOf(ctx.document, target).filter(o => !o.declaration);
        if (references.length !== 1 || !binding.value) return undefined;
        const ref = references[0].node;
        if (!this.sameBindings([binding.value], ref)) return undefined;
        const value = binding.value;
        const valueText = sliceOf(ctx.text, value);
        const container = ref.$container;
        const continuesPipeline = ast.isPipeline(value) && ((ast.isPipeline(container) && ref.$containerProperty === 'source')
            || ast.isQueryStatement(container) || ast.isLetStatement(container));
        const bare = PRIMARY.has(value.$type) || continuesPipeline || ast.isParenthesizedExpression(container)
            || ast.isQueryStatement(container) || ast.isLetStatement(container);
        const letSpan = spanOf(binding);
        let end = letSpan.end;
        while (end < ctx.text.length && /[ \t]/.test(ctx.text[end])) end++;
        if (ctx.text[end] === ';') end++;
        while (end < ctx.text.length && /\s/.test(ctx.text[end])) end++;
        return [
            { start: letSpan.start, end, newText: '' },
            { ...spanOf(ref), newText: bare ? valueText : `(${valueText})` },
        ];
    }

    /** Every let the nodes name is the same let at `at` (none is shadowed, or not yet defined, there). */
    private sameBindings(nodes: readonly AstNode[], at: AstNode): boolean {
        for (const n of nodes.flatMap(streamWithSelf)) {
            if (!ast.isNameReference(n)) continue;
            const here = this.types.letBinding(n.name, n);
            if (here && this.types.letBinding(n.name, at) !== here) return false;
        }
        return true;
    }

    // ------------------------------------------------------------------ where rewrites

    /** `a == 'x' or a == 'y'` → `a in ('x', 'y')`: the whole `or` chain around the cursor. */
    private orChainToIn(ctx: Ctx): Edit[] | undefined {
        const leaf = leafAt(ctx, ctx.selection.start);
        let top = leaf && AstUtils.getContainerOfType(leaf.astNode, (n): n is ast.BinaryExpression => ast.isBinaryExpression(n) && n.operator === 'or');
        if (!top) return undefined;
        while (ast.isBinaryExpression(top.$container) && top.$container.operator === 'or') top = top.$container;
        const leaves = flatten(top, 'or');
        const parts = leaves.map(l => (ast.isBinaryExpression(l) && l.operator === '==' && l.left && l.right && LITERAL.has(l.right.$type) ? l : undefined));
        if (parts.some(p => !p)) return undefined;
        const eqs = parts as ast.BinaryExpression[];
        const left = tokens(eqs[0].left!);
        if (!eqs.every(e => tokens(e.left!) === left) || !this.deterministic(eqs[0].left!)) return undefined;
        const values = eqs.map(e => sliceOf(ctx.text, e.right!)).join(', ');
        return [{ ...spanOf(top), newText: `${sliceOf(ctx.text, eqs[0].left!)} in (${values})` }];
    }

    /** `a in ('x', 'y')` → `a == 'x' or a == 'y'`, in parentheses where an `or` would bind differently. */
    private inToOrChain(ctx: Ctx): Edit[] | undefined {
        const leaf = leafAt(ctx, ctx.selection.start);
        const inExpr = leaf && AstUtils.getContainerOfType(leaf.astNode, ast.isInExpression);
        if (!inExpr || inExpr.operator !== 'in' || !inExpr.left || inExpr.items.length === 0) return undefined;
        if (!inExpr.items.every(i => LITERAL.has(i.$type)) || !this.deterministic(inExpr.left)) return undefined;
        const left = sliceOf(ctx.text, inExpr.left);
        const chain = inExpr.items.map(i => `${left} == ${sliceOf(ctx.text, i)}`).join(' or ');
        const c = inExpr.$container;
        const safe = ast.isWhereOperator(c) || ast.isParenthesizedExpression(c) || ast.isNamedExpression(c) || (ast.isBinaryExpression(c) && c.operator === 'or');
        return [{ ...spanOf(inExpr), newText: safe || inExpr.items.length === 1 ? chain : `(${chain})` }];
    }

    /** `where p and q` → `where p | where q`, laid out as the pipe before the `where` is. */
    private splitWhere(ctx: Ctx): Edit[] | undefined {
        const where = this.whereAt(ctx);
        if (!where || !ast.isBinaryExpression(where.predicate) || where.predicate.operator !== 'and') return undefined;
        const conjuncts = flatten(where.predicate, 'and');
        const separator = `${this.pipeSeparator(ctx, where)}${where.keyword} `;
        const predicate = spanOf(where.predicate);
        return [{ ...predicate, newText: conjuncts.map(c => sliceOf(ctx.text, c)).join(separator) }];
    }

    /** The run of consecutive `where`s around the cursor → one `where … and …`. */
    private joinWheres(ctx: Ctx): Edit[] | undefined {
        const where = this.whereAt(ctx);
        const pipeline = where?.$container;
        if (!where || !ast.isPipeline(pipeline)) return undefined;
        const ops = pipeline.operators;
        let from = ops.indexOf(where);
        let to = from;
        while (from > 0 && ast.isWhereOperator(ops[from - 1])) from--;
        while (to + 1 < ops.length && ast.isWhereOperator(ops[to + 1])) to++;
        if (from === to) return undefined;
        const run = ops.slice(from, to + 1) as ast.WhereOperator[];
        const start = spanOf(run[0].predicate).start;
        const end = spanOf(run[run.length - 1]).end;
        if (/\/\//.test(stripStrings(ctx.text.slice(start, end)))) return undefined; // a comment between them would be lost
        const parts = run.map(w => (ast.isBinaryExpression(w.predicate) && w.predicate.operator === 'or' ? `(${sliceOf(ctx.text, w.predicate)})` : sliceOf(ctx.text, w.predicate)));
        return [{ start, end, newText: parts.join(' and ') }];
    }

    private whereAt(ctx: Ctx): ast.WhereOperator | undefined {
        const leaf = leafAt(ctx, ctx.selection.start);
        const where = leaf && AstUtils.getContainerOfType(leaf.astNode, ast.isWhereOperator);
        return where && ast.isPipeline(where.$container) && where.predicate ? where : undefined;
    }

    /** `\n| ` (with the pipe line's indentation) when the `|` before `op` starts a line, else ` | `. */
    private pipeSeparator(ctx: Ctx, op: ast.TabularOperator): string {
        const at = spanOf(op).start;
        const pipe = ctx.text.lastIndexOf('|', at - 1);
        const lineStart = ctx.text.lastIndexOf('\n', pipe - 1) + 1;
        const before = ctx.text.slice(lineStart, pipe);
        return before.trim() === '' ? `${eol(ctx.text)}${before}| ` : ' | ';
    }

    // ------------------------------------------------------------------ names

    /** A dataset written as `["x"]`, `['x']`, `x` or `sample-http-logs` (a subtraction!) → its right quoting. */
    private requoteDataset(ctx: Ctx): Array<[string, Edit[]]> {
        const leaf = leafAt(ctx, ctx.selection.start);
        if (!leaf) return [];
        let node: AstNode | undefined = leaf.astNode;
        // `sample-http-logs` parses as `sample - http - logs`: take the whole chain of subtractions.
        while (node && ast.isBinaryExpression(node.$container) && node.$container.operator === '-') node = node.$container;
        if (!node || !ast.isExpression(node) || !this.types.isTabularPosition(node)) return [];
        const written = sliceOf(ctx.text, node);
        const name = datasetNameOf(node, written);
        if (name === undefined || this.types.letBinding(name, node)) return [];
        if (this.types.schemaKnown() && !this.types.schema.dataset(name)) return [];
        const out: Array<[string, Edit[]]> = [];
        for (const form of new Set([quoteName(name), bracketName(name)])) {
            if (form !== written) out.push([`Write the dataset as ${form}`, [{ ...spanOf(node), newText: form }]]);
        }
        return out;
    }

    /** `['geo.city']` ⇄ `geo.city` when both resolve to the field `geo.city`. */
    private dottedAccess(ctx: Ctx): Array<[string, Edit[]]> {
        const leaf = leafAt(ctx, ctx.selection.start);
        if (!leaf) return [];
        let node: AstNode = leaf.astNode;
        while (node.$container && ast.isMemberAccess(node.$container) && node.$containerProperty === 'receiver') node = node.$container;
        if (!(ast.isBracketReference(node) || ast.isMemberAccess(node)) || this.types.isTabularPosition(node)) return [];
        if (ast.isBracketReference(node) && ast.isJsonScalar(node.$container)) return [];
        const chain = nameChain(node);
        if (!chain || chain.nameable !== chain.segments.length) return [];
        const field = this.types.resolveField(node);
        if (!field || field.keyPath.length > 0) return [];
        if (ast.isBracketReference(node)) {
            const segments = field.field.split('.');
            if (segments.length < 2 || field.field !== node.name || !segments.every(s => isPlainIdentifier(s) && quoteName(s) === s) || segments[0].startsWith('$')) return [];
            return [[`Write as ${field.field}`, [{ ...spanOf(node), newText: field.field }]]];
        }
        if (!ast.isNameReference(chain.root) || chain.segments[0].startsWith('$') || field.field !== chain.segments.join('.')) return [];
        if (!isDottedMembers(node)) return [];
        const form = bracketName(field.field);
        return [[`Write as ${form}`, [{ ...spanOf(node), newText: form }]]];
    }

    // ------------------------------------------------------------------ helpers

    /** No column is read: every name is a let (so the expression means the same outside its operator). */
    private columnFree(node: AstNode): boolean {
        for (const n of streamWithSelf(node)) {
            if (ast.isNameReference(n) || ast.isBracketReference(n)) {
                if (this.types.resolveField(n) || !this.types.letBinding(n.name, n)) return false;
            }
            if (ast.isFunctionCall(n) && NON_DETERMINISTIC.has(n.function)) return false;
            if (ast.isPipeline(n) || ast.isStarExpression(n)) return false;
        }
        return true;
    }

    private deterministic(node: AstNode): boolean {
        return !streamWithSelf(node).some(n => (ast.isFunctionCall(n) && NON_DETERMINISTIC.has(n.function)) || ast.isPipeline(n));
    }

    /** The statements of the query block `statement` is in. */
    private blockStatements(ctx: Ctx, statement: ast.Statement): ast.Statement[] {
        const block = blockNumberAt(ctx.model, spanOf(statement).start);
        return ctx.model.statements.filter(s => blockNumberAt(ctx.model, spanOf(s).start) === block);
    }

    /** `base`, `base2`, …: a name that no word of the document and no field of a known dataset already is. */
    private freshName(ctx: Ctx, base: string): string {
        const taken = new Set(ctx.text.match(/[A-Za-z_$][A-Za-z0-9_]*/g) ?? []);
        for (const d of this.types.schema.datasets()) for (const f of d.fields) taken.add(f.name);
        for (let i = 1; ; i++) {
            const name = i === 1 ? base : `${base}${i}`;
            if (!taken.has(name)) return name;
        }
    }
}

interface Ctx {
    document: LangiumDocument;
    text: string;
    model: ast.Model;
    selection: Span;
}

function action(document: LangiumDocument, title: string, kind: string, edits: Edit[]): CodeAction {
    const textDoc = document.textDocument;
    const sorted = [...edits].sort((a, b) => a.start - b.start);
    return {
        title,
        kind,
        edit: {
            changes: {
                [document.uri.toString()]: sorted.map(e => ({ range: { start: textDoc.positionAt(e.start), end: textDoc.positionAt(e.end) }, newText: e.newText })),
            },
        },
    };
}

function isEmpty(range: Range): boolean {
    return range.start.line === range.end.line && range.start.character === range.end.character;
}

function trim(text: string, span: Span): Span {
    let { start, end } = span;
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    return { start, end };
}

function leafAt(ctx: Ctx, offset: number) {
    const root = ctx.model.$cstNode!;
    const leaf = CstUtils.findLeafNodeAtOffset(root, offset) ?? (offset > 0 ? CstUtils.findLeafNodeAtOffset(root, offset - 1) : undefined);
    return leaf && !leaf.hidden ? leaf : undefined;
}

/** The innermost node matching `is` whose text is exactly the (non-empty) selection. */
function exactNode(ctx: Ctx, is: (n: AstNode) => boolean): AstNode | undefined {
    const { start, end } = ctx.selection;
    if (end <= start) return undefined;
    const leaf = leafAt(ctx, start);
    for (let n: AstNode | undefined = leaf?.astNode; n?.$cstNode; n = n.$container) {
        const s = spanOf(n);
        if (s.start < start || s.end > end) return undefined;
        if (s.start === start && s.end === end && is(n)) return n;
    }
    return undefined;
}

function spanOf(node: AstNode): Span {
    const cst = node.$cstNode!;
    return { start: cst.offset, end: cst.end };
}

function sliceOf(text: string, node: AstNode): string {
    const s = spanOf(node);
    return text.slice(s.start, s.end);
}

function contains(outer: Span, inner: Span): boolean {
    return outer.start <= inner.start && inner.end <= outer.end;
}

/** The node's tokens, whitespace and comments aside: two uses are identical when these are. */
function tokens(node: AstNode): string {
    const cst = node.$cstNode;
    if (!cst) return '';
    return CstUtils.streamCst(cst).filter(n => isLeafCstNode(n) && !n.hidden).map(n => n.text).join('\u0000');
}

function prefixTokens(pipeline: ast.Pipeline, count: number): string {
    return [pipeline.source, ...pipeline.operators.slice(0, count)].map(n => (n ? tokens(n) : '')).join('\u0000|\u0000');
}

function streamWithSelf(node: AstNode): AstNode[] {
    return [node, ...AstUtils.streamAllContents(node)];
}

/** The matches that are not inside another match. */
function outermost(nodes: AstNode[]): AstNode[] {
    const set = new Set(nodes);
    return nodes.filter(n => {
        for (let c = n.$container; c; c = c.$container) if (set.has(c)) return false;
        return true;
    });
}

function statementOf(node: AstNode): ast.Statement | undefined {
    let n: AstNode | undefined = node;
    while (n && n.$container && !ast.isModel(n.$container)) n = n.$container;
    return n && ast.isStatement(n) ? n : undefined;
}

/** The operands of a left-associated chain of one operator, in order. */
function flatten(node: ast.Expression, operator: string): ast.Expression[] {
    if (ast.isBinaryExpression(node) && node.operator === operator && node.left && node.right) return [...flatten(node.left, operator), ...flatten(node.right, operator)];
    return [node];
}

/** The dataset name a table reference means: `x`, `['x']`, or `a-b-c` written without spaces. */
function datasetNameOf(node: AstNode, written: string): string | undefined {
    if (ast.isNameReference(node) || ast.isBracketReference(node)) return node.name;
    if (ast.isBinaryExpression(node) && /^[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)+$/.test(written)) return written;
    return undefined;
}

/** `a.b.c` written with `.member` steps only (no `['k']` or `a.['k']`). */
function isDottedMembers(node: AstNode): boolean {
    for (let n: AstNode = node; ast.isMemberAccess(n); n = n.receiver) {
        if (n.member === undefined || !n.receiver) return false;
    }
    return true;
}

/** The text with string literals blanked, so that `//` inside a string is not taken for a comment. */
function stripStrings(text: string): string {
    return text.replace(/"([^"\\\n]|\\.)*"|'([^'\\\n]|\\.)*'/g, '""');
}

function eol(text: string): string {
    return text.includes('\r\n') ? '\r\n' : '\n';
}
