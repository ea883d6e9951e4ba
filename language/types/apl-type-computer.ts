/**
 * The type computer: the type of every scalar expression and the row type (the columns in scope)
 * before and after every tabular operator. It follows KQL's rules, reads built-ins from THE
 * catalogue and datasets from the injected SchemaProvider.
 *
 * Public API (used by the validator, completion, hover and the evaluator):
 * - `typeOf(expression)`: the scalar type of an expression (`'unknown'` when nothing is certain);
 * - `rowTypeBefore(operator)` / `rowTypeAfter(operatorOrSource)`: the columns a pipeline stage sees / produces;
 * - `rowTypeOfSource(expression)`: the row type of a tabular source (dataset, let-bound table, datatable, ...);
 * - `rowTypeInScope(node)`: the row a name at `node` resolves against (undefined outside any tabular operator);
 * - `resolveField(node)`: the column a name chain (`geo.city`, `['geo.city']`, `a['k'].b`) refers to;
 * - `letBinding(name, at)`: the `let` (or `declare query_parameters` parameter) a name refers to at a place;
 * - `isTabularPosition(node)`: whether an expression stands where a table is expected;
 * - `schemaKnown()`: whether the provider knows any dataset (unknown names are only reported then).
 *
 * Results are cached per AST node (WeakMaps, so a re-parsed document drops its entries) and
 * invalidated when the schema provider's `version` changes.
 */
import { blockNumberAt } from '../query-blocks.js';
import { aggregationArgumentNames, derivedColumnName } from '../column-names.js';
import type { AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import { lookupAggregate, lookupScalarFunction, type AggregateFunction, type ScalarFunction } from '../builtins/index.js';
import { EmptySchemaProvider } from '../schema/empty-schema-provider.js';
import { SYS_TIME_FIELD, TIME_FIELD, type DatasetSchema, type SchemaProvider } from '../schema/schema-provider.js';
import { literalType } from '../literal-values.js';
import { typeFromName, type AplType, type ColumnType, type RowType } from './apl-types.js';

/** The column a name chain refers to, and the keys applied to its (dynamic) value. */
export interface ResolvedField {
    /** The column's name in the row type (may contain dots: `geo.city`). */
    field: string;
    /** The type of the whole chain: the column's type, or `dynamic` when keys are applied. */
    type: AplType;
    /** Keys applied after the column: `['http.protocol']` for `['attributes.custom']['http.protocol']`. */
    keyPath: string[];
}

/** What a name can be bound to by a statement. */
export type LetBinding = ast.LetStatement | ast.QueryParameter;

/** A column name derived from an expression (`project f(x)`), and whether APL's naming is only guessed. */
export interface DerivedName {
    name: string;
    guessed: boolean;
}

/** Where names inside a tabular operator resolve. `left`/`right` are set inside join/lookup conditions. */
export interface NameScope {
    row: RowType;
    left?: RowType;
    right?: RowType;
}

const OPEN_EMPTY: RowType = Object.freeze({ columns: [], open: true }) as RowType;

const TABULAR_OPERATOR_TYPES = new Set([
    'WhereOperator', 'SummarizeOperator', 'ExtendOperator', 'ExtendValidOperator', 'ProjectOperator',
    'ProjectAwayOperator', 'ProjectKeepOperator', 'ProjectRenameOperator', 'ProjectReorderOperator',
    'SortOperator', 'TakeOperator', 'TopOperator', 'CountOperator', 'DistinctOperator', 'ParseOperator',
    'ParseWhereOperator', 'ParseKvOperator', 'MvExpandOperator', 'MakeSeriesOperator', 'JoinOperator',
    'LookupOperator', 'UnionOperator', 'SearchOperator', 'SampleOperator', 'GetschemaOperator', 'RedactOperator',
    'RenderOperator',
]);

const TABULAR_SOURCE_TYPES = new Set([
    'Pipeline', 'DatatableExpression', 'ExternalDataExpression', 'PrintExpression', 'UnionExpression', 'SearchExpression',
]);

const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);

/** The type of a typed-literal cast (`long(null)`, `real(1.5)`, `timespan(2d)`: the catalogue's 'literal' entries), else undefined. */
export function typedLiteralType(call: ast.FunctionCall): AplType | undefined {
    const entry = lookupScalarFunction(call.function);
    return entry?.category === 'literal' && typeof entry.returns === 'string' ? entry.returns : undefined;
}

export function isTabularOperatorNode(node: AstNode | undefined): node is ast.TabularOperator {
    return node !== undefined && TABULAR_OPERATOR_TYPES.has(node.$type);
}

function col(name: string, type: AplType): ColumnType {
    return { name, type };
}

function indexOfColumn(columns: readonly ColumnType[], name: string): number {
    for (let i = 0; i < columns.length; i++) if (columns[i].name === name) return i;
    return -1;
}

/** Sets (replacing in place) or appends a column. */
function putColumn(columns: ColumnType[], c: ColumnType, replaceInPlace: boolean): void {
    const i = indexOfColumn(columns, c.name);
    if (i >= 0) {
        if (replaceInPlace) {
            columns[i] = c;
            return;
        }
        columns.splice(i, 1);
    }
    columns.push(c);
}

/** A wildcard pattern (`status*`, `['geo.']*`) as a predicate over column names. */
export function wildcardMatcher(pattern: string): (name: string) => boolean {
    let p = pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
    const m = /^\[\s*(['"])(.*)\1\s*\]$/.exec(p);
    if (m) p = m[2];
    return name => name.startsWith(p);
}

export class AplTypeComputer {
    private readonly schemaSource: () => SchemaProvider;
    private provider: SchemaProvider | undefined;
    private version = -1;
    private rowAfterCache = new WeakMap<AstNode, RowType>();
    private typeCache = new WeakMap<AstNode, AplType>();
    private fieldCache = new WeakMap<AstNode, ResolvedField | null>();
    private scopeCache = new WeakMap<AstNode, NameScope | null>();
    private columnIndexes = new WeakMap<RowType, Map<string, ColumnType>>();
    private readonly inProgress = new Set<AstNode>();
    private known: boolean | undefined;

    /** `schema` is a provider, or a function returning the current one (the DI services pass a getter). */
    constructor(schema: SchemaProvider | (() => SchemaProvider) = new EmptySchemaProvider()) {
        this.schemaSource = typeof schema === 'function' ? schema : () => schema;
    }

    /** The schema provider in use (no side effect: the caches are brought up to date by `syncSchema`). */
    get schema(): SchemaProvider {
        return this.schemaSource();
    }

    /**
     * Drops every cached type, row and scope when the provider changed since the last call (another
     * provider, or its `version` moved on: a `MutableSchemaProvider` bumps it on each change), and
     * returns the provider. Every public entry point that reads the caches calls it first.
     */
    syncSchema(): SchemaProvider {
        const p = this.schemaSource();
        if (p !== this.provider || p.version !== this.version) {
            this.provider = p;
            this.version = p.version;
            this.rowAfterCache = new WeakMap();
            this.typeCache = new WeakMap();
            this.fieldCache = new WeakMap();
            this.scopeCache = new WeakMap();
            this.known = undefined;
        }
        return p;
    }

    /** Whether the provider knows any dataset. Unknown datasets and fields are only reported then. */
    schemaKnown(): boolean {
        const p = this.syncSchema();
        this.known ??= p.datasets().length > 0;
        return this.known;
    }

    // ------------------------------------------------------------------ scalar types

    /**
     * The type of a scalar expression; `'unknown'` when nothing certain is known (and for tables).
     * Accepts `undefined` because error recovery leaves holes in the tree (`where x ==`).
     */
    typeOf(expression: ast.Expression | ast.NamedExpression | undefined): AplType {
        this.syncSchema();
        if (!expression) return 'unknown';
        const expr = expression.$type === 'NamedExpression' ? (expression as ast.NamedExpression).expression : (expression as ast.Expression);
        if (!expr) return 'unknown';
        return this.memoized(this.typeCache, expr, 'unknown', () => this.computeType(expr));
    }

    /**
     * Caches one computation per node. A node met again while its own computation is running (a
     * `let` that refers to itself, a cyclic table reference) gets `whileComputing` instead of looping.
     */
    private memoized<T>(cache: Map<AstNode, T> | WeakMap<AstNode, T>, node: AstNode, whileComputing: T, compute: () => T): T {
        const cached = cache.get(node);
        if (cached !== undefined) return cached;
        if (this.inProgress.has(node)) return whileComputing;
        this.inProgress.add(node);
        let value: T;
        try {
            value = compute();
        } finally {
            this.inProgress.delete(node);
        }
        cache.set(node, value);
        return value;
    }

    private computeType(expr: ast.Expression): AplType {
        switch (expr.$type) {
            case 'StringLiteral': case 'LongLiteral': case 'RealLiteral': case 'TimespanLiteral':
            case 'DatetimeLiteral': case 'BooleanLiteral': case 'NullLiteral':
                return literalType(expr as ast.Literal);
            case 'DynamicLiteral': return 'dynamic';
            case 'TypeofLiteral': return 'unknown';
            case 'ParenthesizedExpression': return this.typeOf((expr as ast.ParenthesizedExpression).expression);
            case 'FunctionCall': return this.callType(expr as ast.FunctionCall);
            case 'NameReference': case 'BracketReference': case 'MemberAccess': case 'IndexAccess':
                return this.chainType(expr);
            case 'BinaryExpression': {
                const b = expr as ast.BinaryExpression;
                if (!ARITHMETIC.has(b.operator)) return 'bool';
                return arithmeticType(b.operator, this.typeOf(b.left), this.typeOf(b.right as ast.Expression));
            }
            case 'UnaryExpression': {
                const t = this.typeOf((expr as ast.UnaryExpression).operand);
                return t === 'long' || t === 'real' || t === 'timespan' ? t : 'unknown';
            }
            case 'NotExpression': case 'InExpression': case 'BetweenExpression': return 'bool';
            default: return 'unknown';
        }
    }

    /** The catalogue entry a call refers to, preferring aggregations where one is allowed. */
    callee(call: ast.FunctionCall): ScalarFunction | AggregateFunction | undefined {
        const scalar = lookupScalarFunction(call.function);
        const aggregate = lookupAggregate(call.function);
        if (scalar && aggregate) return this.inAggregationContext(call) ? aggregate : scalar;
        return scalar ?? aggregate;
    }

    /** Whether a call sits where an aggregation is allowed: inside summarize's aggregates or make-series' aggregates. */
    inAggregationContext(node: AstNode): boolean {
        let child: AstNode = node;
        for (let cur = node.$container; cur; child = cur, cur = cur.$container) {
            if (cur.$type === 'FunctionCall' && lookupAggregate((cur as ast.FunctionCall).function) && !lookupScalarFunction((cur as ast.FunctionCall).function)) return false;
            // Axiom also accepts aggregations as summarize keys (`summarize count() by histogram(x, 10)`).
            if (cur.$type === 'SummarizeOperator') return child.$containerProperty === 'aggregates' || child.$containerProperty === 'groups';
            if (cur.$type === 'MakeSeriesOperator') return child.$containerProperty === 'aggregates';
            if (TABULAR_OPERATOR_TYPES.has(cur.$type) || TABULAR_SOURCE_TYPES.has(cur.$type)) return false;
        }
        return false;
    }

    private callType(call: ast.FunctionCall): AplType {
        const entry = this.callee(call);
        if (!entry) {
            return 'unknown';
        }
        if (typeof entry.returns === 'string') return entry.returns;
        const argTypes = call.arguments.map(a => (a.expression ? this.typeOf(a.expression) : 'unknown'));
        try {
            return entry.returns(argTypes);
        } catch {
            return 'unknown';
        }
    }

    private chainType(expr: ast.Expression): AplType {
        const field = this.resolveField(expr);
        if (field) return field.type;
        if (expr.$type === 'NameReference' || expr.$type === 'BracketReference') {
            const name = (expr as ast.NameReference).name;
            const binding = this.letBinding(name, expr);
            if (binding?.$type === 'LetStatement') {
                this.warmLetsBefore(binding, this.typeCache, value => this.typeOf(value));
                return this.typeOf(binding.value);
            }
            if (binding?.$type === 'QueryParameter') return typeFromName(binding.type) ?? 'unknown';
            return 'unknown';
        }
        const receiver = (expr as ast.MemberAccess | ast.IndexAccess).receiver;
        const rt = receiver ? this.typeOf(receiver) : 'unknown';
        return rt === 'dynamic' ? 'dynamic' : 'unknown';
    }

    // ------------------------------------------------------------------ names

    /**
     * The column a name chain refers to (`status`, `['geo.city']`, `geo.city`, `m['k'].x`, `$left.id`).
     * Dotted chains try the longest flattened field first (`geo.city`, then `geo` with key `city`).
     * Undefined when the chain is not (only) names, or no column in scope matches.
     */
    resolveField(node: AstNode): ResolvedField | undefined {
        this.syncSchema();
        const cached = this.fieldCache.get(node);
        if (cached !== undefined) return cached ?? undefined;
        const r = this.computeResolveField(node);
        this.fieldCache.set(node, r ?? null);
        return r;
    }

    private computeResolveField(node: AstNode): ResolvedField | undefined {
        const chain = nameChain(node);
        if (!chain) return undefined;
        const scope = this.scopeOf(node);
        if (!scope) return undefined;
        let row = scope.row;
        let segments = chain.segments;
        let nameable = chain.nameable;
        if (chain.root.$type === 'NameReference' && (segments[0] === '$left' || segments[0] === '$right')) {
            const side = segments[0] === '$left' ? scope.left : scope.right;
            if (!side || segments.length < 2) return undefined;
            row = side;
            segments = segments.slice(1);
            nameable = nameable - 1;
        }
        return this.findInRow(row, segments, nameable);
    }

    /** Longest-match lookup of `segments` (the first `nameable` may form a flattened name) in a row type. */
    findInRow(row: RowType, segments: readonly string[], nameable: number = segments.length): ResolvedField | undefined {
        const index = this.columnIndex(row);
        for (let n = Math.min(nameable, segments.length); n >= 1; n--) {
            const c = index.get(n === 1 ? segments[0] : segments.slice(0, n).join('.'));
            if (c) {
                const keyPath = segments.slice(n);
                const type: AplType = keyPath.length === 0 ? c.type : c.type === 'unknown' ? 'unknown' : 'dynamic';
                return { field: c.name, type, keyPath };
            }
        }
        return undefined;
    }

    /** The column named exactly `name` in a row type. */
    column(row: RowType, name: string): ColumnType | undefined {
        return this.columnIndex(row).get(name);
    }

    private columnIndex(row: RowType): Map<string, ColumnType> {
        let index = this.columnIndexes.get(row);
        if (!index || index.size > row.columns.length) {
            index = new Map();
            for (const c of row.columns) if (!index.has(c.name)) index.set(c.name, c);
            this.columnIndexes.set(row, index);
        }
        return index;
    }

    /**
     * The `let` statement (or query parameter) that `name` refers to at `at`: the last one with that
     * name in a statement before the one containing `at` (later lets shadow earlier ones), in the same
     * query block (a blank line ends a block: language/query-blocks.ts).
     */
    letBinding(name: string, at: AstNode): LetBinding | undefined {
        let statement: AstNode | undefined = at;
        while (statement && statement.$container && statement.$container.$type !== 'Model') statement = statement.$container;
        const model = statement?.$container as ast.Model | undefined;
        if (!model || !statement) return undefined;
        const index = model.statements.indexOf(statement as ast.Statement);
        const block = blockNumberAt(model, statement.$cstNode?.offset ?? at.$cstNode?.offset ?? 0);
        for (let i = (index < 0 ? model.statements.length : index) - 1; i >= 0; i--) {
            const s = model.statements[i];
            if (blockNumberAt(model, s.$cstNode?.offset ?? 0) !== block) break;
            if (s.$type === 'LetStatement' && (s as ast.LetStatement).name === name) return s as ast.LetStatement;
            if (s.$type === 'DeclareStatement') {
                const p = (s as ast.DeclareStatement).parameters.find(q => q.name === name);
                if (p) return p;
            }
        }
        return undefined;
    }

    /** Whether an expression stands where a table is expected (a pipeline source, a join's right side, ...). */
    isTabularPosition(node: AstNode): boolean {
        const container = node.$container;
        if (!container) return false;
        switch (container.$type) {
            case 'Pipeline': return node.$containerProperty === 'source';
            case 'JoinOperator': case 'LookupOperator': return node.$containerProperty === 'right';
            case 'TableExpression': return true;
            case 'QueryStatement': return true;
            case 'ParenthesizedExpression': return this.isTabularPosition(container);
            case 'LetStatement': return this.isTabularLetValue(node as ast.Expression);
            default: return false;
        }
    }

    /** A let value is tabular when it is a table-shaped expression or a name of a known table/let-bound table. */
    private isTabularLetValue(value: ast.Expression): boolean {
        // A loop, not recursion: `let a1 = a0; let a2 = a1; …` is as long as the document.
        for (let v: ast.Expression | undefined = value; v; ) {
            if (TABULAR_SOURCE_TYPES.has(v.$type)) return true;
            if (v.$type === 'ParenthesizedExpression') {
                v = (v as ast.ParenthesizedExpression).expression;
                continue;
            }
            if (v.$type === 'FunctionCall') return (v as ast.FunctionCall).function === 'table';
            if (v.$type === 'BracketReference') return true;
            if (v.$type !== 'NameReference') return false;
            const name = (v as ast.NameReference).name;
            const binding = this.letBinding(name, v);
            // A let only sees earlier statements, so the chain ends.
            if (binding?.$type !== 'LetStatement') return this.schema.dataset(name) !== undefined;
            v = binding.value;
        }
        return false;
    }

    /** The row a name at `node` resolves against: undefined outside any tabular operator (print, let values). */
    rowTypeInScope(node: AstNode): RowType | undefined {
        return this.scopeOf(node)?.row;
    }

    /** The full scope at `node`, including `$left`/`$right` rows inside join and lookup conditions. */
    scopeOf(node: AstNode): NameScope | undefined {
        this.syncSchema();
        const cached = this.scopeCache.get(node);
        if (cached !== undefined) return cached ?? undefined;
        const s = this.computeScope(node);
        this.scopeCache.set(node, s ?? null);
        return s;
    }

    private computeScope(node: AstNode): NameScope | undefined {
        let child: AstNode = node;
        for (let cur = node.$container; cur; child = cur, cur = cur.$container) {
            const t = cur.$type;
            if (TABULAR_OPERATOR_TYPES.has(t)) {
                const op = cur as ast.TabularOperator;
                const prop = child.$containerProperty;
                if ((t === 'JoinOperator' || t === 'LookupOperator') && prop === 'right') return undefined;
                if ((t === 'UnionOperator' || t === 'SearchOperator') && prop === 'tables') return undefined;
                const before = this.rowTypeBefore(op);
                if (t === 'JoinOperator' || t === 'LookupOperator') {
                    const right = this.rowTypeOfSource((op as ast.JoinOperator).right);
                    return { row: mergeByName([before, right]), left: before, right };
                }
                if (t === 'ExtendOperator' || t === 'ExtendValidOperator' || t === 'ProjectOperator') {
                    // Later assignments of the same operator see the earlier ones.
                    const columns = (op as ast.ExtendOperator).columns;
                    const at = columns.indexOf(child as ast.NamedExpression);
                    if (at > 0) {
                        const cols = [...before.columns];
                        for (let i = 0; i < at; i++) {
                            const ne = columns[i];
                            if (ne.name !== undefined) putColumn(cols, col(ne.name, this.typeOf(ne.expression)), true);
                        }
                        return { row: { columns: cols, open: before.open } };
                    }
                }
                return { row: before };
            }
            if (t === 'SearchExpression') return { row: this.rowTypeOfSource(cur as ast.SearchExpression) };
            if (t === 'PrintExpression' || t === 'LetStatement' || t === 'QueryStatement' || t === 'DatatableExpression'
                || t === 'ExternalDataExpression' || t === 'DeclareStatement' || t === 'SetStatement') return undefined;
        }
        return undefined;
    }

    // ------------------------------------------------------------------ row types

    /** The row type an operator receives: the row type after the previous stage (or the source). */
    rowTypeBefore(operator: ast.TabularOperator): RowType {
        const pipeline = operator.$container as ast.Pipeline | undefined;
        if (!pipeline || pipeline.$type !== 'Pipeline') return OPEN_EMPTY;
        let i = operator.$containerIndex ?? -1;
        if (pipeline.operators[i] !== operator) i = pipeline.operators.indexOf(operator);
        if (i > 0) return this.rowTypeAfter(pipeline.operators[i - 1]);
        return this.rowTypeOfSource(pipeline.source);
    }

    /** The row type an operator produces, or the row type of a tabular expression. */
    rowTypeAfter(node: ast.TabularOperator | ast.Expression): RowType {
        if (!TABULAR_OPERATOR_TYPES.has(node.$type)) return this.rowTypeOfSource(node as ast.Expression);
        this.syncSchema();
        this.warmStagesBefore(node as ast.TabularOperator);
        return this.memoized(this.rowAfterCache, node, OPEN_EMPTY, () =>
            this.computeOperator(node as ast.TabularOperator, this.rowTypeBefore(node as ast.TabularOperator)));
    }

    /**
     * Computes, first to last, the row types after the stages before `operator` that are not cached
     * yet, so that each one finds its predecessor cached: the recursion of `rowTypeAfter` through
     * `rowTypeBefore` is then one level deep however many stages the pipeline has.
     */
    private warmStagesBefore(operator: ast.TabularOperator): void {
        const pipeline = operator.$container as ast.Pipeline | undefined;
        if (!pipeline || pipeline.$type !== 'Pipeline') return;
        const operators = pipeline.operators;
        let i = operator.$containerIndex ?? operators.indexOf(operator);
        if (operators[i] !== operator) i = operators.indexOf(operator);
        let first = i;
        while (first > 0 && !this.rowAfterCache.has(operators[first - 1]) && !this.inProgress.has(operators[first - 1])) first--;
        for (let k = first; k < i; k++) this.rowTypeAfter(operators[k]);
    }

    /** The row type of a tabular source: dataset, let-bound table, datatable, print, union, search, `table()`, a pipeline. */
    rowTypeOfSource(expression: ast.Expression | undefined): RowType {
        if (!expression) return OPEN_EMPTY;
        this.syncSchema();
        return this.memoized(this.rowAfterCache, expression, OPEN_EMPTY, () => this.computeSource(expression));
    }

    private computeSource(expr: ast.Expression): RowType {
        switch (expr.$type) {
            case 'Pipeline': {
                const p = expr as ast.Pipeline;
                return p.operators.length > 0 ? this.rowTypeAfter(p.operators[p.operators.length - 1]) : this.rowTypeOfSource(p.source);
            }
            case 'NameReference': case 'BracketReference':
                return this.tableByName((expr as ast.NameReference).name, expr);
            case 'ParenthesizedExpression': return this.rowTypeOfSource((expr as ast.ParenthesizedExpression).expression);
            case 'DatatableExpression': case 'ExternalDataExpression':
                return { columns: (expr as ast.DatatableExpression).columns.map(c => col(c.name, typeFromName(c.type ?? 'string') ?? 'unknown')), open: false };
            case 'PrintExpression': {
                const columns: ColumnType[] = [];
                (expr as ast.PrintExpression).columns.forEach((ne, i) => {
                    const name = ne.name ?? this.fieldNameOf(ne.expression) ?? `print_${i}`;
                    putColumn(columns, col(name, this.typeOf(ne.expression)), true);
                });
                return { columns, open: false };
            }
            case 'UnionExpression': {
                const u = expr as ast.UnionExpression;
                return this.unionRow(u.options, u.tables, []);
            }
            case 'SearchExpression': {
                const s = expr as ast.SearchExpression;
                const rows = s.tables.length > 0 ? s.tables.map(t => this.unionTableRow(t)) : this.schema.datasets().map(d => datasetRow(d));
                const merged = mergeByName(rows);
                return { columns: [col('$table', 'string'), ...merged.columns.filter(c => c.name !== '$table')], open: true };
            }
            case 'FunctionCall': {
                const call = expr as ast.FunctionCall;
                if (call.function === 'table') {
                    const arg = call.arguments[0]?.expression;
                    if (arg?.$type === 'StringLiteral') return this.tableByName((arg as ast.StringLiteral).value, expr);
                    return unknownDatasetRow();
                }
                return OPEN_EMPTY;
            }
            default: return OPEN_EMPTY;
        }
    }

    /**
     * Computes `compute` for the values of the `let`s before `binding` that are not cached yet, first
     * to last, so that a chain of lets (`let t1 = t0 | …; let t2 = t1 | …`) recurses one let deep
     * however long it is: a let only refers to earlier ones.
     */
    private warmLetsBefore<T>(binding: ast.LetStatement, cache: WeakMap<AstNode, T>, compute: (value: ast.Expression) => unknown): void {
        const model = binding.$container as ast.Model | undefined;
        if (model?.$type !== 'Model') return;
        let index = binding.$containerIndex ?? -1;
        if (model.statements[index] !== binding) index = model.statements.indexOf(binding);
        const uncached = (i: number) => {
            const st = model.statements[i];
            const value = st.$type === 'LetStatement' ? (st as ast.LetStatement).value : undefined;
            return !value || (!cache.has(value) && !this.inProgress.has(value));
        };
        let first = index;
        while (first > 0 && uncached(first - 1)) first--;
        for (let i = first; i < index; i++) {
            const st = model.statements[i];
            if (st.$type === 'LetStatement' && (st as ast.LetStatement).value) compute((st as ast.LetStatement).value!);
        }
    }

    /** The row of a table name: a let-bound table, else a dataset (open with `_time`/`_sysTime` when unknown). */
    private tableByName(name: string, at: AstNode): RowType {
        const binding = this.letBinding(name, at);
        if (binding?.$type === 'LetStatement') {
            this.warmLetsBefore(binding, this.rowAfterCache, value => this.rowTypeOfSource(value));
            return this.rowTypeOfSource(binding.value);
        }
        if (binding?.$type === 'QueryParameter') return unknownDatasetRow();
        const dataset = this.schema.dataset(name);
        return dataset ? datasetRow(dataset) : unknownDatasetRow();
    }

    private unionTableRow(t: ast.UnionTable): RowType {
        if (t.$type === 'TableWildcard') {
            const match = wildcardMatcher((t as ast.TableWildcard).pattern);
            const rows = this.schema.datasets().filter(d => match(d.name)).map(d => datasetRow(d));
            return { ...mergeByName(rows.length ? rows : [unknownDatasetRow()]), open: true };
        }
        const e = (t as ast.TableExpression).expression;
        if (e?.$type === 'StarExpression') return { ...mergeByName([unknownDatasetRow(), ...this.schema.datasets().map(d => datasetRow(d))]), open: true };
        return this.rowTypeOfSource(e);
    }

    private unionRow(options: ast.OperatorOption[], tables: ast.UnionTable[], first: RowType[]): RowType {
        const merged = mergeByName([...first, ...tables.map(t => this.unionTableRow(t))]);
        const withsource = optionName(options, 'withsource');
        if (withsource) return { columns: [col(withsource, 'string'), ...merged.columns.filter(c => c.name !== withsource)], open: merged.open };
        return merged;
    }

    private computeOperator(op: ast.TabularOperator, before: RowType): RowType {
        switch (op.$type) {
            case 'WhereOperator': case 'SortOperator': case 'TakeOperator': case 'TopOperator':
            case 'SampleOperator': case 'SearchOperator': case 'RedactOperator': case 'RenderOperator':
                return before;
            case 'ExtendOperator': case 'ExtendValidOperator': {
                const columns = [...before.columns];
                let open = before.open;
                let n = 0;
                for (const ne of op.columns) {
                    const derived = this.columnNameOf(ne, () => ++n);
                    open ||= derived.guessed;
                    putColumn(columns, col(derived.name, this.typeOf(ne.expression)), false);
                }
                return { columns, open };
            }
            case 'ProjectOperator': {
                const columns: ColumnType[] = [];
                let open = false;
                let n = 0;
                for (const ne of op.columns) {
                    if (ne.expression?.$type === 'StarExpression') {
                        for (const c of before.columns) putColumn(columns, c, true);
                        open ||= before.open;
                        continue;
                    }
                    const derived = this.columnNameOf(ne, () => ++n);
                    open ||= derived.guessed;
                    putColumn(columns, col(derived.name, this.typeOf(ne.expression)), true);
                }
                return { columns, open };
            }
            case 'ProjectAwayOperator': {
                const matchers = op.columns.map(p => patternMatcher(p));
                return { columns: before.columns.filter(c => !matchers.some(m => m(c.name))), open: before.open };
            }
            case 'ProjectKeepOperator': {
                const matchers = op.columns.map(p => patternMatcher(p));
                const columns = before.columns.filter(c => matchers.some(m => m(c.name)));
                let open = false;
                for (const p of op.columns) {
                    if (p.path) {
                        const name = p.path.segments.join('.');
                        if (!this.findInRow(before, p.path.segments) && before.open) columns.push(col(name, 'unknown'));
                    } else if (before.open) open = true;
                }
                return { columns, open };
            }
            case 'ProjectRenameOperator': {
                const columns = [...before.columns];
                for (const r of op.renames) {
                    const found = r.oldName ? this.findInRow({ columns, open: before.open }, r.oldName.segments) : undefined;
                    const i = found && found.keyPath.length === 0 ? indexOfColumn(columns, found.field) : -1;
                    if (i >= 0) columns[i] = col(r.newName, columns[i].type);
                    else if (before.open) columns.push(col(r.newName, 'unknown'));
                }
                return { columns, open: before.open };
            }
            case 'ProjectReorderOperator': {
                const rest = [...before.columns];
                const ordered: ColumnType[] = [];
                for (const item of op.columns) {
                    if (item.pattern?.all) break;
                    const m = patternMatcher(item.pattern);
                    for (let i = 0; i < rest.length;) {
                        if (m(rest[i].name)) ordered.push(...rest.splice(i, 1));
                        else i++;
                    }
                }
                // Items after `*` go last, in their order.
                const starAt = op.columns.findIndex(i => i.pattern?.all);
                const tail: ColumnType[] = [];
                if (starAt >= 0) {
                    for (const item of op.columns.slice(starAt + 1)) {
                        const m = patternMatcher(item.pattern);
                        for (let i = 0; i < rest.length;) {
                            if (m(rest[i].name)) tail.push(...rest.splice(i, 1));
                            else i++;
                        }
                    }
                }
                return { columns: [...ordered, ...rest, ...tail], open: before.open };
            }
            case 'CountOperator':
                return { columns: [col('count', 'long')], open: false };
            case 'DistinctOperator': {
                if (op.columns.some(c => c.$type === 'StarExpression')) return before;
                const columns: ColumnType[] = [];
                let open = false;
                let n = 0;
                op.columns.forEach(e => {
                    const d = this.derivedName(e, () => ++n);
                    open ||= d.guessed;
                    putColumn(columns, col(d.name, this.typeOf(e)), true);
                });
                return { columns, open };
            }
            case 'SummarizeOperator': {
                let n = 0;
                const { columns, open: keysOpen } = this.groupColumns(op.groups, () => ++n);
                let open = keysOpen;
                for (const a of op.aggregates) {
                    for (const c of this.aggregateColumns(a, before, () => ++n)) {
                        open ||= c.guessed;
                        putColumn(columns, col(c.name, c.type), true);
                    }
                }
                return { columns, open };
            }
            case 'GetschemaOperator':
                return { columns: [col('ColumnName', 'string'), col('ColumnOrdinal', 'long'), col('ColumnType', 'string'), col('DataType', 'string')], open: false };
            case 'ParseOperator': case 'ParseWhereOperator': {
                const columns = [...before.columns];
                for (const p of op.pattern) {
                    if (p.$type === 'ParseCapture') {
                        const c = p as ast.ParseCapture;
                        putColumn(columns, col(c.name, c.type ? typeFromName(c.type) ?? 'unknown' : 'string'), true);
                    }
                }
                return { columns, open: before.open };
            }
            case 'ParseKvOperator': {
                const columns = [...before.columns];
                for (const k of op.keys) putColumn(columns, col(k.name, k.type ? typeFromName(k.type) ?? 'unknown' : 'string'), true);
                return { columns, open: before.open };
            }
            case 'MvExpandOperator': {
                const columns = [...before.columns];
                let open = before.open;
                let n = 0;
                op.items.forEach(item => {
                    const d = item.name !== undefined ? { name: item.name, guessed: false } : this.derivedName(item.expression, () => ++n);
                    open ||= d.guessed;
                    const type: AplType = item.type ? typeFromName(item.type) ?? 'unknown' : 'dynamic';
                    const field = item.name === undefined ? this.resolveField(item.expression) : undefined;
                    putColumn(columns, col(field && field.keyPath.length === 0 ? field.field : d.name, type), true);
                });
                const index = optionName(op.options, 'with_itemindex');
                if (index) putColumn(columns, col(index, 'long'), true);
                return { columns, open };
            }
            case 'MakeSeriesOperator': {
                let n = 0;
                const { columns, open: keysOpen } = this.groupColumns(op.groups, () => ++n);
                let open = keysOpen;
                for (const a of op.aggregates) {
                    const d = a.name !== undefined ? { name: a.name, guessed: false } : this.aggregateName(a.expression, () => ++n);
                    open ||= d.guessed;
                    putColumn(columns, col(d.name, 'dynamic'), true);
                }
                // The axis column takes the axis field's name in KQL; Axiom's docs also show it as `time`,
                // so the row stays open (no unknown-field reports after make-series).
                const axis = this.derivedName(op.axis, () => ++n);
                putColumn(columns, col(axis.name, 'dynamic'), true);
                return { columns, open: true };
            }
            case 'JoinOperator': case 'LookupOperator': {
                const right = this.rowTypeOfSource(op.right);
                const kind = optionName(op.options, 'kind') ?? (op.$type === 'LookupOperator' ? 'leftouter' : 'innerunique');
                if (kind === 'leftanti' || kind === 'leftsemi' || kind === 'leftantisemi') return before;
                if (kind === 'rightanti' || kind === 'rightsemi' || kind === 'rightantisemi') return right;
                let rightColumns = right.columns;
                if (op.$type === 'LookupOperator') {
                    const keys = new Set(joinKeys(op.conditions).map(k => k.right));
                    rightColumns = rightColumns.filter(c => !keys.has(c.name));
                }
                const columns = [...before.columns];
                const names = new Set(columns.map(c => c.name));
                for (const c of rightColumns) {
                    let name = c.name;
                    for (let i = 1; names.has(name); i++) name = `${c.name}${i}`;
                    names.add(name);
                    columns.push(col(name, c.type));
                }
                return { columns, open: before.open || right.open };
            }
            case 'UnionOperator':
                return this.unionRow(op.options, op.tables, [before]);
        }
        return OPEN_EMPTY;
    }

    /** The result column(s) of one summarize aggregate (`arg_max(x, a, b)` gives several). */
    private aggregateColumns(a: ast.NamedExpression, before: RowType, next: () => number): { name: string; type: AplType; guessed: boolean }[] {
        const e = a.expression;
        if (a.name === undefined && e?.$type === 'FunctionCall') {
            const call = e as ast.FunctionCall;
            if (call.function === 'arg_max' || call.function === 'arg_min') {
                const out: { name: string; type: AplType; guessed: boolean }[] = [];
                call.arguments.forEach(arg => {
                    if (arg.expression?.$type === 'StarExpression') {
                        for (const c of before.columns) out.push({ name: c.name, type: c.type, guessed: before.open });
                        return;
                    }
                    const d = arg.name !== undefined ? { name: arg.name, guessed: false } : this.derivedName(arg.expression, next);
                    out.push({ name: d.name, type: this.typeOf(arg.expression), guessed: d.guessed });
                });
                return out;
            }
        }
        const d = a.name !== undefined ? { name: a.name, guessed: false } : this.aggregateName(e, next);
        return [{ name: d.name, type: e ? this.typeOf(e) : 'unknown', guessed: d.guessed }];
    }

    /** The name a `name = expression` item gives its column: the name, else derived like KQL. */
    /** The `by` columns of summarize and make-series, named as KQL names them (`next` numbers unnamed ones). */
    private groupColumns(groups: readonly ast.NamedExpression[], next: () => number): { columns: ColumnType[]; open: boolean } {
        const columns: ColumnType[] = [];
        let open = false;
        for (const g of groups) {
            const d = this.columnNameOf(g, next);
            open ||= d.guessed;
            putColumn(columns, col(d.name, this.typeOf(g.expression)), true);
        }
        return { columns, open };
    }

    private columnNameOf(item: ast.NamedExpression, next: () => number): DerivedName {
        return item.name !== undefined ? { name: item.name, guessed: false } : this.derivedName(item.expression, next);
    }

    /** `count()` -> `count_`, `avg(toint(x))` -> `avg_x` (the catalogue's `defaultColumnName`, language/column-names.ts). */
    private aggregateName(e: ast.Expression | undefined, next: () => number): DerivedName {
        if (e?.$type === 'FunctionCall') {
            const call = e as ast.FunctionCall;
            const agg = lookupAggregate(call.function);
            if (agg) {
                const argNames = aggregationArgumentNames(call, x => this.fieldNameOf(x));
                const guessed = argNames.some(n => n === '');
                try {
                    return { name: agg.defaultColumnName(argNames), guessed };
                } catch {
                    return { name: `Column${next()}`, guessed: true };
                }
            }
        }
        return { name: `Column${next()}`, guessed: true };
    }

    /**
     * The column name APL gives an unnamed expression (language/column-names.ts), else the next
     * `Column<n>` (a guess): only the unnamed ones are numbered, `project a, b * 2` -> `Column1`.
     */
    derivedName(e: ast.Expression | undefined, next: () => number): DerivedName {
        const name = derivedColumnName(e, x => this.fieldNameOf(x));
        return name !== undefined ? { name, guessed: false } : { name: `Column${next()}`, guessed: true };
    }

    /** The column name a name chain stands for (`geo.city`, `['geo.city']`), or undefined for other expressions. */
    fieldNameOf(e: ast.Expression): string | undefined {
        const chain = nameChain(e);
        if (!chain || chain.segments[0] === '$left' || chain.segments[0] === '$right') {
            if (chain && chain.segments.length > 1) return chain.segments.slice(1).join('.');
            return undefined;
        }
        const field = this.resolveField(e);
        if (field) return field.keyPath.length === 0 ? field.field : [field.field, ...field.keyPath].join('_');
        return chain.segments.join('.');
    }
}

// ---------------------------------------------------------------------- helpers

/** A chain of names: `a`, `['a.b']`, `a.b.c`, `a['k']`, `a[0]`. `nameable` = how many leading segments may form a flattened name. */
export function nameChain(node: AstNode): { root: ast.NameReference | ast.BracketReference; segments: string[]; nameable: number } | undefined {
    switch (node.$type) {
        case 'NameReference': case 'BracketReference':
            return { root: node as ast.NameReference, segments: [(node as ast.NameReference).name], nameable: 1 };
        case 'MemberAccess': {
            const m = node as ast.MemberAccess;
            const inner = m.receiver ? nameChain(m.receiver) : undefined;
            const key = m.member ?? m.bracketMember;
            if (!inner || key === undefined) return undefined;
            const allNames = inner.nameable === inner.segments.length;
            return { root: inner.root, segments: [...inner.segments, key], nameable: allNames ? inner.nameable + 1 : inner.nameable };
        }
        case 'IndexAccess': {
            const ix = node as ast.IndexAccess;
            const inner = ix.receiver ? nameChain(ix.receiver) : undefined;
            if (!inner || ix.slice) return undefined;
            const allNames = inner.nameable === inner.segments.length;
            if (ix.bracketIndex !== undefined) {
                return { root: inner.root, segments: [...inner.segments, ix.bracketIndex], nameable: allNames ? inner.nameable + 1 : inner.nameable };
            }
            const index = ix.index;
            if (index?.$type === 'StringLiteral' || index?.$type === 'LongLiteral') {
                const key = (index as ast.StringLiteral).value;
                const isName = index.$type === 'StringLiteral';
                return { root: inner.root, segments: [...inner.segments, key], nameable: allNames && isName ? inner.nameable + 1 : inner.nameable };
            }
            return undefined;
        }
        default:
            return undefined;
    }
}

/** KQL arithmetic result types; `'unknown'` for combinations that are not defined or not certain. */
export function arithmeticType(op: string, a: AplType, b: AplType): AplType {
    const num = (t: AplType) => t === 'long' || t === 'real';
    if (num(a) && num(b)) return a === 'real' || b === 'real' ? 'real' : 'long';
    switch (op) {
        case '+':
            if (a === 'datetime' && b === 'timespan') return 'datetime';
            if (a === 'timespan' && b === 'datetime') return 'datetime';
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            break;
        case '-':
            if (a === 'datetime' && b === 'datetime') return 'timespan';
            if (a === 'datetime' && b === 'timespan') return 'datetime';
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            break;
        case '*':
            if (a === 'timespan' && num(b)) return 'timespan';
            if (num(a) && b === 'timespan') return 'timespan';
            break;
        case '/':
            if (a === 'timespan' && b === 'timespan') return 'real';
            if (a === 'timespan' && num(b)) return 'timespan';
            break;
        case '%':
            if (a === 'timespan' && b === 'timespan') return 'timespan';
            if (a === 'timespan' && num(b)) return 'timespan';
            break;
    }
    return 'unknown';
}

/** Merges row types by column name (union): first occurrence wins its place; differing types become unknown. */
export function mergeByName(rows: readonly RowType[]): RowType {
    const columns: ColumnType[] = [];
    const at = new Map<string, number>();
    let open = false;
    for (const r of rows) {
        open ||= r.open;
        for (const c of r.columns) {
            const i = at.get(c.name);
            if (i === undefined) {
                at.set(c.name, columns.length);
                columns.push(c);
            } else if (columns[i].type !== c.type) {
                columns[i] = col(c.name, 'unknown');
            }
        }
    }
    return { columns, open };
}

function datasetRow(d: DatasetSchema): RowType {
    const columns = d.fields.map(f => col(f.name, f.type));
    if (indexOfColumn(columns, TIME_FIELD) < 0) columns.unshift(col(SYS_TIME_FIELD, 'datetime'));
    if (indexOfColumn(columns, TIME_FIELD) < 0) columns.unshift(col(TIME_FIELD, 'datetime'));
    return { columns, open: false };
}

function unknownDatasetRow(): RowType {
    return { columns: [col(TIME_FIELD, 'datetime'), col(SYS_TIME_FIELD, 'datetime')], open: true };
}

function patternMatcher(p: ast.ColumnPattern | undefined): (name: string) => boolean {
    if (!p) return () => false;
    if (p.all) return () => true;
    if (p.wildcard !== undefined) return wildcardMatcher(p.wildcard);
    const segments = p.path?.segments ?? [];
    const full = segments.join('.');
    return name => name === full;
}

function optionName(options: readonly ast.OperatorOption[], name: string): string | undefined {
    const o = options.find(x => x.name === name);
    if (!o) return undefined;
    const v = o.value as ast.OptionNameValue | undefined;
    if (v?.name !== undefined) return v.name;
    const lit = v?.literal;
    return lit && 'value' in lit ? String(lit.value) : undefined;
}

/** Join/lookup keys: `on a` gives {a, a}; `on $left.a == $right.b` gives {a, b}. */
export function joinKeys(conditions: readonly ast.Expression[]): { left: string; right: string }[] {
    const keys: { left: string; right: string }[] = [];
    for (const c of conditions) {
        const chain = nameChain(c);
        if (chain) {
            const n = chain.segments.join('.');
            keys.push({ left: n, right: n });
            continue;
        }
        if (c.$type === 'BinaryExpression' && (c as ast.BinaryExpression).operator === '==') {
            const b = c as ast.BinaryExpression;
            const l = nameChain(b.left);
            const r = nameChain(b.right as ast.Expression);
            if (l && r) {
                const side = (ch: typeof l) => ({ side: ch.segments[0], name: ch.segments[0] === '$left' || ch.segments[0] === '$right' ? ch.segments.slice(1).join('.') : ch.segments.join('.') });
                const a = side(l);
                const z = side(r);
                if (a.side === '$right' || z.side === '$left') keys.push({ left: z.name, right: a.name });
                else keys.push({ left: a.name, right: z.name });
            }
        }
    }
    return keys;
}
