/**
 * Semantic checks for APL, reported through THE issue table (apl-issue-codes.ts). The top
 * requirement is few false positives: a check reports only what is certain. Unknown datasets and
 * fields are reported only when the schema provider knows datasets, and never after an operator
 * whose output columns are not all known.
 */
import { blockNumberAt } from './query-blocks.js';
import { AstUtils, DefaultDocumentValidator, DocumentValidator, type AstNode, type LangiumDocument, type ValidationAcceptor, type ValidationChecks, type ValidationOptions } from 'langium';
import { isQueryableDatasetName } from './dataset-name.js';
import { literalIndexProblem } from './indexing.js';
import { parseLimitOf } from './parser/apl-parser.js';
import { MAX_CHECKED_LENGTH } from './limits.js';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import type * as ast from './generated/ast.js';
import { isTabularOperator, type AplAstType } from './generated/ast.js';
import type { AplServices } from './apl-module.js';
import { acceptsArgumentCount, allCallableNames, argumentTypeProblem, describeArity, lookupAggregate, lookupScalarFunction, type Signature } from './builtins/index.js';
import { didYouMean, Issues, type AplDiagnosticData, type IssueDefinition } from './apl-issue-codes.js';
import { nameChain, typedLiteralType, type AplTypeComputer } from './types/apl-type-computer.js';
import type { AplType, RowType } from './types/apl-types.js';
import { analyzerDiagnostics } from './analyzers/analyzer-diagnostics.js';
import type { AnalyzerConfig } from './analyzers/analyzer-config.js';

/** Validation options with the analyzers' configuration for this one run (checkText), over the injected settings. */
export interface AplValidationOptions extends ValidationOptions {
    analyzers?: AnalyzerConfig;
}

/** Names that are callable without being catalogue entries. */
const SPECIAL_CALLS = new Set(['table', 'toscalar', 'materialize']);

const COMPARISONS = new Set(['==', '!=', '<>', '<', '<=', '>', '>=']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);
const CERTAIN_NON_BOOL = new Set<AplType>(['string', 'long', 'real', 'datetime', 'timespan']);

/** Names that mean something without a row. */
const SPECIAL_NAMES = new Set(['$left', '$right']);

/** Operators that keep a time-binned summarize's rows as they are (the evaluator's `timeBinned` survives them). */
const PASS_THROUGH_BINNED = new Set(['WhereOperator', 'ExtendOperator', 'ProjectOperator', 'ProjectAwayOperator', 'ProjectKeepOperator', 'ProjectRenameOperator', 'ProjectReorderOperator']);

export function registerValidationChecks(services: AplServices): void {
    const registry = services.validation.ValidationRegistry;
    const validator = services.validation.AplValidator;
    const checks: ValidationChecks<AplAstType> = {
        FunctionCall: validator.checkFunctionCall,
        BinaryExpression: validator.checkBinaryExpression,
        WhereOperator: validator.checkWherePredicate,
        NullLiteral: validator.checkBareNull,
        TimespanLiteral: validator.checkTimespan,
        NameReference: validator.checkName,
        BracketReference: validator.checkName,
        ColumnPath: validator.checkColumnPath,
        ProjectOperator: validator.checkProjectDuplicates,
        DatatableExpression: validator.checkDatatableDuplicates,
        IndexAccess: validator.checkLiteralIndex,
        MemberAccess: validator.checkLiteralIndex,
        SummarizeOperator: [validator.checkSummarizeDuplicates, validator.checkSummarizeAggregates],
        TakeOperator: validator.checkTakeAfterTimeBins,
        RenderOperator: validator.checkRender,
    };
    registry.register(checks, validator);
}

/**
 * Langium's document validator, with APL's code (`APL1001`) on lexer and parser errors, and the
 * size limits (limits.ts): a text the parser refused (too deep, too large) gets its one error; a
 * text longer than MAX_CHECKED_LENGTH is checked for syntax only, with an APL1004 note.
 */
export class AplDocumentValidator extends DefaultDocumentValidator {
    private readonly aplServices: AplServices;

    constructor(services: AplServices) {
        super(services);
        this.aplServices = services;
    }

    override async validateDocument(document: LangiumDocument, options: AplValidationOptions = {}, cancelToken?: CancellationToken): Promise<Diagnostic[]> {
        const limit = parseLimitOf(document.parseResult.value);
        if (limit) {
            const position = document.textDocument.positionAt(limit.offset);
            const end = document.textDocument.positionAt(limit.offset + 1);
            return [{ severity: 1, range: { start: position, end }, message: limit.message, code: limit.code, data: { code: limit.code }, source: this.getSource() }];
        }
        const large = document.textDocument.getText().length > MAX_CHECKED_LENGTH;
        const diagnostics = await super.validateDocument(document, large ? { ...options, categories: ['built-in'] } : options, cancelToken);
        for (const d of diagnostics) {
            const code = (d.data as { code?: unknown } | undefined)?.code;
            if (code === DocumentValidator.LexingError || code === DocumentValidator.ParsingError) d.code = Issues.SyntaxError.code;
        }
        // Best-practice analyzers: advice on a query that checks; cut like the rest after a syntax error.
        const analyzers = large || options.categories?.every(c => c === 'built-in') ? undefined : options.analyzers ?? this.aplServices.analyzers.AnalyzerSettings.configFor(document.uri.toString());
        if (analyzers) diagnostics.push(...analyzerDiagnostics(document, this.aplServices.types.TypeComputer, analyzers, this.getSource() ?? 'apl'));
        const kept = withoutKnockOnErrors(document, diagnostics);
        if (large) {
            const code = Issues.SyntaxOnly.code;
            const at = { line: 0, character: 0 };
            kept.push({ severity: 3, range: { start: at, end: at }, message: Issues.SyntaxOnly.message({ length: document.textDocument.getText().length }), code, data: { code }, source: this.getSource() });
        }
        return kept;
    }
}

/**
 * Drops what error recovery makes up around a syntax error. The pipeline operator that holds the
 * first syntax error of a query block (its statement, when no operator does), and everything after it
 * in that block, keep their syntax errors only: `where x == | summarize cnt()` is one APL1001, not
 * also an APL0001, and `project a = uri, a = |` no duplicate column. What comes before stays, so in
 * `['t'] | where nosuchfield == 1` followed by a broken query the unknown field is still reported,
 * and so do the other blocks: each is a query of its own.
 */
function withoutKnockOnErrors(document: LangiumDocument, diagnostics: Diagnostic[]): Diagnostic[] {
    const text = document.textDocument;
    const model = document.parseResult.value as ast.Model;
    const isSyntax = (d: Diagnostic) => d.code === Issues.SyntaxError.code;
    const firstByBlock = new Map<number, number>();
    for (const d of diagnostics) {
        if (!isSyntax(d)) continue;
        const offset = text.offsetAt(d.range.start);
        const block = blockNumberAt(model, offset);
        firstByBlock.set(block, Math.min(firstByBlock.get(block) ?? Infinity, offset));
    }
    if (firstByBlock.size === 0) return diagnostics;
    const cutByBlock = new Map<number, number>();
    for (const [block, first] of firstByBlock) {
        let cut = first;
        // `<=`: an error at the end of the text (`where x ==`) belongs to the node it ends.
        const holds = (n: AstNode) => n.$cstNode !== undefined && n.$cstNode.offset <= first && first <= n.$cstNode.end;
        for (const statement of model.statements) {
            if (!holds(statement)) continue;
            cut = Math.min(cut, statement.$cstNode!.offset);
            for (const node of AstUtils.streamAst(statement)) {
                if (isTabularOperator(node) && holds(node)) cut = Math.max(cut, node.$cstNode!.offset);
            }
        }
        cutByBlock.set(block, cut);
    }
    return diagnostics.filter(d => {
        if (isSyntax(d)) return true;
        const offset = text.offsetAt(d.range.start);
        const cut = cutByBlock.get(blockNumberAt(model, offset));
        return cut === undefined || offset < cut;
    });
}

export class AplValidator {
    private readonly services: AplServices;

    constructor(services: AplServices) {
        this.services = services;
    }

    private get types(): AplTypeComputer {
        return this.services.types.TypeComputer;
    }

    private report<A>(accept: ValidationAcceptor, def: IssueDefinition<A>, args: A, node: AstNode, property?: string, suggestion?: string): void {
        const data: AplDiagnosticData = { code: def.code };
        if (suggestion !== undefined) data.suggestion = suggestion;
        // Langium's typing ties `property` to the node type; the names used here are the node's own.
        const info = { node, code: def.code, data, ...(property ? { property } : {}) } as Parameters<ValidationAcceptor>[2];
        accept(def.severity, def.message(args), info);
    }

    // ------------------------------------------------------------------ calls

    checkFunctionCall = (call: ast.FunctionCall, accept: ValidationAcceptor): void => {
        const name = call.function;
        if (!name) return;
        const scalar = lookupScalarFunction(name);
        const aggregate = lookupAggregate(name);
        if (!scalar && !aggregate) {
            if (SPECIAL_CALLS.has(name)) return;
            // Inside summarize an aggregation fits; elsewhere a scalar function does.
            const aggregationWanted = this.types.inAggregationContext(call);
            const suggestion = didYouMean(name, allCallableNames(), c => (lookupAggregate(c) !== undefined) === aggregationWanted);
            this.report(accept, Issues.UnknownFunction, { name, suggestion }, call, 'function', suggestion);
            return;
        }
        const entry = this.types.callee(call);
        if (!entry) return;
        if (aggregate && !scalar && !this.types.inAggregationContext(call)) {
            this.report(accept, Issues.AggregationOutsideSummarize, { name }, call, 'function');
            return;
        }
        const count = call.arguments.length;
        if (scalar?.packsAllColumns && count === 1 && call.arguments[0].expression?.$type === 'StarExpression') return;
        if (!acceptsArgumentCount(entry, count)) {
            this.report(accept, Issues.WrongArgumentCount, { name, count, expected: describeArity(entry.signatures) }, call, 'function');
            return;
        }
        this.checkArgumentTypes(call, entry.signatures, accept);
    };

    private checkArgumentTypes(call: ast.FunctionCall, signatures: Signature[], accept: ValidationAcceptor): void {
        const argTypes = call.arguments.map(a => (a.expression ? this.types.typeOf(a.expression) : 'unknown'));
        const problem = argumentTypeProblem(signatures, argTypes);
        if (!problem) return;
        const arg = call.arguments[problem.index];
        this.report(accept, Issues.ArgumentTypeMismatch, { name: call.function, position: problem.index + 1, expected: problem.expected, actual: argTypes[problem.index] }, arg ?? call);
    }

    // ------------------------------------------------------------------ indexing, summarize, take

    checkLiteralIndex = (node: ast.IndexAccess | ast.MemberAccess, accept: ValidationAcceptor): void => {
        const message = literalIndexProblem(node);
        if (message) this.report(accept, Issues.NotIndexable, { message }, node);
    };

    /** `summarize x = strlen(a)`: a summarize column without an aggregation (the evaluator refuses it too). */
    checkSummarizeAggregates = (op: ast.SummarizeOperator, accept: ValidationAcceptor): void => {
        for (const item of op.aggregates) {
            if (!item.expression) continue;
            const calls = AstUtils.streamAst(item.expression).filter(n => n.$type === 'FunctionCall').map(n => (n as ast.FunctionCall).function).toArray();
            // An unknown name (`cnt()`) already has its own error and may be a misspelt aggregation.
            if (calls.some(f => lookupAggregate(f) !== undefined || lookupScalarFunction(f) === undefined)) continue;
            this.report(accept, Issues.SummarizeWithoutAggregation, { text: item.$cstNode?.text ?? '' }, item);
        }
    };

    /** `summarize … by bin(_time, 1h), k | take 10`: say what Axiom does with it (the evaluator does the same). */
    /** `| render timechart`: KQL's chart stage; APL has none (the quick fix removes the stage). */
    checkRender = (op: ast.RenderOperator, accept: ValidationAcceptor): void => {
        this.report(accept, Issues.NoRender, {}, op);
    };

    checkTakeAfterTimeBins = (op: ast.TakeOperator, accept: ValidationAcceptor): void => {
        const operators = op.$container.operators;
        for (let i = operators.indexOf(op) - 1; i >= 0; i--) {
            const before = operators[i];
            if (PASS_THROUGH_BINNED.has(before.$type)) continue;
            if (before.$type !== 'SummarizeOperator') return;
            const groups = (before as ast.SummarizeOperator).groups;
            const timeKey = groups.find(g => this.isTimeBin(g.expression));
            if (!timeKey) return;
            this.report(accept, Issues.TakeAfterTimeBins, { keyword: op.keyword, count: op.count?.$cstNode?.text ?? 'N', otherKeys: groups.length > 1 }, op);
            return;
        }
    };

    private isTimeBin(e: ast.Expression | undefined): boolean {
        if (e?.$type !== 'FunctionCall') return false;
        const name = (e as ast.FunctionCall).function;
        return (name === 'bin' || name === 'floor' || name === 'bin_auto') && this.types.typeOf(e) === 'datetime';
    }

    // ------------------------------------------------------------------ operators

    checkBinaryExpression = (expr: ast.BinaryExpression, accept: ValidationAcceptor): void => {
        const op = expr.operator;
        if (!expr.left || !expr.right) return;
        if (ARITHMETIC.has(op)) {
            const l = this.types.typeOf(expr.left);
            const r = this.types.typeOf(expr.right);
            // A string (or bool) operand is never valid arithmetic; the other side does not matter unless dynamic.
            const bad = (t: AplType) => t === 'string' || t === 'bool';
            const loose = (t: AplType) => t === 'dynamic';
            if ((bad(l) && !loose(r)) || (bad(r) && !loose(l))) {
                this.report(accept, Issues.OperandTypeMismatch, { operator: op, left: l, right: r }, expr, 'operator');
            }
            return;
        }
        if (COMPARISONS.has(op)) {
            const l = this.types.typeOf(expr.left);
            const r = this.types.typeOf(expr.right);
            const num = (t: AplType) => t === 'long' || t === 'real';
            if ((l === 'string' && num(r)) || (num(l) && r === 'string')) {
                const side = l === 'string' ? expr.left : expr.right;
                this.report(accept, Issues.StringNumberComparison, { operator: op, stringSide: side.$cstNode?.text ?? 'value' }, expr, 'operator');
            }
        }
    };

    checkWherePredicate = (op: ast.WhereOperator, accept: ValidationAcceptor): void => {
        if (!op.predicate) return;
        const t = this.types.typeOf(op.predicate);
        if (CERTAIN_NON_BOOL.has(t)) this.report(accept, Issues.PredicateNotBool, { operator: 'where', actual: t }, op.predicate);
    };

    // ------------------------------------------------------------------ literals

    checkBareNull = (node: ast.NullLiteral, accept: ValidationAcceptor): void => {
        for (let cur: AstNode | undefined = node.$container; cur; cur = cur.$container) {
            if (cur.$type === 'DynamicLiteral' || cur.$type === 'JsonScalar') return;
            if (cur.$type === 'FunctionCall') {
                if (typedLiteralType(cur as ast.FunctionCall) !== undefined && node.$container?.$container === cur) return;
                break;
            }
            if (cur.$type !== 'NamedExpression' && cur.$type !== 'ParenthesizedExpression') break;
        }
        this.report(accept, Issues.BareNull, {}, node);
    };

    checkTimespan = (node: ast.TimespanLiteral, accept: ValidationAcceptor): void => {
        if (/[0-9.](w|week|weeks)$/.test(node.value)) this.report(accept, Issues.WeekTimespan, { text: node.value }, node);
    };

    // ------------------------------------------------------------------ names

    checkName = (node: ast.NameReference | ast.BracketReference, accept: ValidationAcceptor): void => {
        const name = node.name;
        if (name === undefined) return;
        const types = this.types;
        // `dynamic(['a'])`: a bracketed name directly in dynamic JSON is a one-element array, not a name.
        if (node.$type === 'BracketReference' && node.$container?.$type === 'JsonScalar') return;
        if (types.isTabularPosition(node)) {
            if (types.letBinding(name, node)) return;
            if (!isQueryableDatasetName(name)) {
                this.report(accept, Issues.InvalidDatasetName, { name }, node, 'name');
                return;
            }
            // An incomplete schema (the samples standing in for the user's datasets) cannot say a dataset does not exist.
            if (types.schemaKnown() && types.schema.complete && !types.schema.dataset(name)) {
                const suggestion = didYouMean(name, types.schema.datasets().map(d => d.name));
                this.report(accept, Issues.UnknownDataset, { name, suggestion }, node, 'name', suggestion);
            }
            return;
        }
        this.checkFieldReference(node, accept);
    };

    private checkFieldReference(root: ast.NameReference | ast.BracketReference, accept: ValidationAcceptor): void {
        const types = this.types;
        if (!types.schemaKnown()) return;
        // Check once per chain, at its outermost name-only node (`geo.city`, `m['k']`).
        let outer: AstNode = root;
        while (outer.$container && (outer.$container.$type === 'MemberAccess' || outer.$container.$type === 'IndexAccess')
            && outer.$containerProperty === 'receiver' && nameChain(outer.$container)) outer = outer.$container;
        const scope = types.scopeOf(root);
        const chain = nameChain(outer);
        if (!chain) return;
        if (!scope) {
            // No row here (`let x = f(array)` outside any query): only let names and parameters exist.
            if (root.$type === 'NameReference' && !types.letBinding(root.name, root) && !SPECIAL_NAMES.has(root.name)) {
                this.report(accept, Issues.UnknownField, { name: root.name }, root);
            }
            return;
        }
        let row: RowType = scope.row;
        let segments = chain.segments;
        if (root.$type === 'NameReference' && (segments[0] === '$left' || segments[0] === '$right')) {
            const side = segments[0] === '$left' ? scope.left : scope.right;
            if (!side || segments.length < 2) return;
            row = side;
            segments = segments.slice(1);
        }
        if (row.open) return;
        if (types.resolveField(outer) || types.resolveField(root)) return;
        if (root.$type === 'NameReference' && types.letBinding(root.name, root)) return;
        const name = segments.length === chain.nameable ? segments.join('.') : segments[0];
        const suggestion = didYouMean(name, row.columns.map(c => c.name));
        this.report(accept, Issues.UnknownField, { name, suggestion }, outer, undefined, suggestion);
    }

    /** Field paths in project-away/keep/rename/reorder and redact `on`. */
    checkColumnPath = (path: ast.ColumnPath, accept: ValidationAcceptor): void => {
        const types = this.types;
        if (!types.schemaKnown() || path.segments.length === 0) return;
        let op: AstNode | undefined = path.$container;
        while (op && !op.$type.endsWith('Operator')) op = op.$container;
        if (!op) return;
        if (op.$type === 'ProjectRenameOperator' && path.$containerProperty !== 'oldName') return;
        const row = types.rowTypeBefore(op as ast.TabularOperator);
        if (row.open) return;
        if (types.findInRow(row, path.segments)) return;
        const name = path.segments.join('.');
        const suggestion = didYouMean(name, row.columns.map(c => c.name));
        this.report(accept, Issues.UnknownField, { name, suggestion }, path, undefined, suggestion);
    };

    // ------------------------------------------------------------------ duplicate columns

    checkProjectDuplicates = (op: ast.ProjectOperator, accept: ValidationAcceptor): void => {
        this.reportDuplicates(op.columns.map(ne => ({ node: ne, name: ne.name ?? this.fieldName(ne.expression) })), 'project', accept);
    };

    checkSummarizeDuplicates = (op: ast.SummarizeOperator, accept: ValidationAcceptor): void => {
        const items = [
            ...op.groups.map(ne => ({ node: ne as AstNode, name: ne.name ?? this.fieldName(ne.expression) })),
            ...op.aggregates.map(ne => ({ node: ne as AstNode, name: ne.name })),
        ];
        this.reportDuplicates(items, 'summarize', accept);
    };

    checkDatatableDuplicates = (expr: ast.DatatableExpression, accept: ValidationAcceptor): void => {
        this.reportDuplicates(expr.columns.map(c => ({ node: c, name: c.name })), 'datatable', accept);
    };

    private fieldName(e: ast.Expression | undefined): string | undefined {
        return e && nameChain(e) ? this.types.fieldNameOf(e) : undefined;
    }

    private reportDuplicates(items: { node: AstNode; name: string | undefined }[], operator: string, accept: ValidationAcceptor): void {
        const seen = new Set<string>();
        for (const { node, name } of items) {
            if (name === undefined) continue;
            if (seen.has(name)) this.report(accept, Issues.DuplicateColumn, { name, operator }, node);
            seen.add(name);
        }
    }
}
