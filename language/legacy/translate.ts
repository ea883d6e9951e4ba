/**
 * The legacy compiler: APL -> the legacy structured query (API.md §5.2), or a `TranslationError` that
 * names the construct with no legacy form and carries its range. Nothing is ever dropped silently.
 *
 * A legacy query runs its parts in one fixed order (the one `decompileLegacy` writes back as APL):
 *
 *     virtualFields (extend) -> filter (where) -> aggregations by groupBy [, bin(_time, resolution)]
 *     -> order (sort) -> limit (take) -> project
 *
 * so an APL pipeline translates only when reordering its operators into that order keeps its meaning:
 * `where`/`extend` before any `take`, `summarize`, `project`; one `sort` (or `top`), before any `take`;
 * after `summarize` only `sort`/`top`/`take`; after `project` only `sort`/`top`/`take` on projected
 * columns. An `extend` (or a computed `project` column) that redefines a field an earlier `where` or
 * `sort` reads would change their meaning once moved first, so it is refused.
 *
 * Mapping of predicates (`where`, and the predicate of countif/dcountif/make_set_if):
 *
 * | APL                                    | legacy filter                                      |
 * |----------------------------------------|----------------------------------------------------|
 * | `a and b`, `a or b`, `not(a)`/`not a`  | `and`/`or`/`not` with children                     |
 * | `f == v`, `f != v` / `f <> v`          | `==` / `!=`, caseSensitive true                    |
 * | `f =~ "v"`, `f !~ "v"`                 | `==` / `!=`, caseSensitive false                   |
 * | `f > v` `>=` `<` `<=` (either side)    | `>` `>=` `<` `<=`                                  |
 * | `contains`, `contains_cs`              | `contains`, caseSensitive false / true             |
 * | `startswith[_cs]`, `endswith[_cs]`     | `starts-with`, `ends-with`, caseSensitive ...      |
 * | `!contains[_cs]`, `!startswith[_cs]`.. | `not-contains`, `not-starts-with`, `not-ends-with` |
 * | `matches regex`, `!matches regex`      | `regexp`, `not-regexp`                             |
 * | `f in (..)`, `f in~ (..)`              | `or` of `==` (caseSensitive true / false)          |
 * | `f !in (..)`, `f !in~ (..)`            | `and` of `!=`                                      |
 * | `f between (a .. b)`                   | `and` of `>=` a, `<=` b; `!between`: `not` of that |
 * | `isnotnull(f)`, `isnull(f)`            | `exists`, `not-exists` (exact: a missing field is null) |
 * | `isnotempty(f)`                        | `and` of `exists` f, `!=` f "" (exact; `exists` alone would also keep "") |
 * | `isempty(f)`                           | `or` of `not-exists` f, `==` f ""                  |
 * | a bool field `f`                       | `==` f true                                        |
 */
import { aggregationArgumentNames } from '../column-names.js';
import type { AstNode } from 'langium';
import { parse } from '../apl-parse.js';
import type * as ast from '../generated/ast.js';
import { LiteralError, literalValue } from '../literal-values.js';
import { lookupAggregate } from '../builtins/index.js';
import { Datetime, Timespan, formatDatetime, formatGoDuration, type JsonValue } from '../values.js';
import {
    MAX_LEGACY_LIMIT,
    parseLegacyTime,
    type Aggregation,
    type AggregationOp,
    type Filter,
    type FilterOp,
    type LegacyQuery,
    type Order,
    type Projection,
    type VirtualField,
} from './legacy-types.js';

export interface Position {
    line: number;
    character: number;
}

/** 0-based, as in LSP. */
export interface Range {
    start: Position;
    end: Position;
}

/** The APL has no legacy form. `construct` names what was refused (`join`, `has`, `let`, ...). */
export class TranslationError extends Error {
    constructor(message: string, readonly range: Range, readonly construct: string) {
        super(message);
        this.name = 'TranslationError';
    }
}

export interface TranslateOptions {
    /** RFC 3339 (or a Date): the request's time range. */
    startTime: string | Date;
    endTime: string | Date;
}

export interface Translation {
    dataset: string;
    query: LegacyQuery;
}

const ZERO_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export function rangeOf(node: AstNode): Range {
    const r = node.$cstNode?.range;
    if (!r) return ZERO_RANGE;
    return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

function refuse(node: AstNode, construct: string, message = `${construct} has no legacy form`): never {
    throw new TranslationError(message, rangeOf(node), construct);
}

function textOf(node: AstNode): string {
    return node.$cstNode?.text ?? '';
}

function timeText(t: string | Date, name: string): string {
    if (t instanceof Date) {
        if (Number.isNaN(t.getTime())) throw new Error(`${name} is not a valid date`);
        return formatDatetime(BigInt(t.getTime()) * 1_000_000n);
    }
    if (parseLegacyTime(t) === undefined) throw new Error(`${name} must be an RFC 3339 timestamp, got ${JSON.stringify(t)}`);
    return t;
}

/** Translates one APL query over one dataset into a legacy query. Throws `TranslationError`. */
export function translate(apl: string, options: TranslateOptions): Translation {
    const startTime = timeText(options.startTime, 'startTime');
    const endTime = timeText(options.endTime, 'endTime');
    const { model, problems } = parse(apl);
    if (problems.length > 0) {
        const p = problems[0];
        throw new TranslationError(`syntax error: ${p.message}`, p.range, 'syntax');
    }
    const statements = model.statements;
    if (statements.length === 0) throw new TranslationError('the query is empty', ZERO_RANGE, 'empty query');
    for (const s of statements) {
        if (s.$type === 'LetStatement') refuse(s, 'let', 'let statements have no legacy form');
        if (s.$type === 'SetStatement') refuse(s, 'set', 'set statements have no legacy form');
        if (s.$type === 'DeclareStatement') refuse(s, 'declare query_parameters', 'declare query_parameters has no legacy form');
    }
    if (statements.length > 1) refuse(statements[1], 'several queries', 'a legacy query holds a single query statement');
    const body = (statements[0] as ast.QueryStatement).body;
    const source = body.$type === 'Pipeline' ? body.source : body;
    const operators = body.$type === 'Pipeline' ? body.operators : [];
    const dataset = datasetOf(source);
    const t = new Translator();
    for (const op of operators) t.operator(op);
    return { dataset, query: t.result(startTime, endTime) };
}

function datasetOf(source: ast.Expression): string {
    switch (source.$type) {
        case 'BracketReference':
        case 'NameReference':
            return source.name;
        case 'ParenthesizedExpression':
            if (source.expression.$type === 'Pipeline') refuse(source, 'nested pipeline', 'a nested pipeline has no legacy form');
            return datasetOf(source.expression);
        case 'UnionExpression':
            return refuse(source, 'union');
        case 'SearchExpression':
            return refuse(source, 'search');
        case 'DatatableExpression':
            return refuse(source, 'datatable', 'datatable has no legacy form: the source must be a single dataset');
        case 'ExternalDataExpression':
            return refuse(source, 'externaldata', 'externaldata has no legacy form: the source must be a single dataset');
        case 'PrintExpression':
            return refuse(source, 'print', 'print has no legacy form: the source must be a single dataset');
        case 'FunctionCall':
            return refuse(source, `${source.function}()`, `${source.function}() has no legacy form: the source must be a single dataset`);
        default:
            return refuse(source, 'this source', 'the source must be a single dataset');
    }
}

// ------------------------------------------------------------------------------------------- fields

/** The field an expression names (`status`, `['geo.city']`, `geo.city`), or undefined. */
export function fieldName(e: ast.Expression): string | undefined {
    switch (e.$type) {
        case 'NameReference':
        case 'BracketReference':
            return e.name;
        case 'MemberAccess': {
            const receiver = fieldName(e.receiver);
            const member = e.member ?? e.bracketMember;
            return receiver !== undefined && member !== undefined ? `${receiver}.${member}` : undefined;
        }
        case 'ParenthesizedExpression':
            return e.expression.$type === 'Pipeline' ? undefined : fieldName(e.expression);
        default:
            return undefined;
    }
}

/** Every field an expression reads (roots and dotted paths), for the reordering checks. */
function referencedFields(node: AstNode, out = new Set<string>()): Set<string> {
    const e = node as ast.Expression;
    const name = fieldName(e);
    if (name !== undefined) {
        out.add(name);
        out.add(name.split('.')[0]);
        return out;
    }
    for (const key of Object.keys(node)) {
        if (key.startsWith('$')) continue;
        const v = (node as unknown as Record<string, unknown>)[key];
        const visit = (x: unknown) => {
            if (x && typeof x === 'object' && '$type' in (x as object)) referencedFields(x as AstNode, out);
        };
        if (Array.isArray(v)) v.forEach(visit);
        else visit(v);
    }
    return out;
}

function filterFields(f: Filter, out = new Set<string>()): Set<string> {
    if (f.field) {
        out.add(f.field);
        out.add(f.field.split('.')[0]);
    }
    for (const c of f.children ?? []) filterFields(c, out);
    return out;
}

function unparen(e: ast.Expression): ast.Expression {
    while (e.$type === 'ParenthesizedExpression' && e.expression.$type !== 'Pipeline') e = e.expression;
    return e;
}

// ------------------------------------------------------------------------------------------ literals

/** The JSON value of a constant operand (literals and negated numbers), or undefined. */
function constantOf(e: ast.Expression): { value: JsonValue | Datetime | Timespan; node: ast.Expression } | undefined {
    e = unparen(e);
    if (e.$type === 'UnaryExpression') {
        const inner = constantOf(e.operand);
        if (inner && typeof inner.value === 'number') return { value: e.operator === '-' ? -inner.value : inner.value, node: e };
        return undefined;
    }
    switch (e.$type) {
        case 'StringLiteral':
        case 'LongLiteral':
        case 'RealLiteral':
        case 'BooleanLiteral':
        case 'DatetimeLiteral':
        case 'TimespanLiteral':
        case 'NullLiteral':
            try {
                const v = literalValue(e);
                return { value: v as JsonValue | Datetime | Timespan, node: e };
            } catch (err) {
                if (err instanceof LiteralError) refuse(e, 'literal', err.message);
                throw err;
            }
        default:
            return undefined;
    }
}

const SYSTEM_TIME_FIELDS = new Set(['_time', '_sysTime']);

/** A constant operand as a legacy filter value. */
function filterValue(e: ast.Expression, field: string): JsonValue {
    const c = constantOf(e);
    if (!c) return refuse(e, textOf(e), `'${textOf(e)}' is not a constant; a legacy filter compares a field with a constant`);
    const v = c.value;
    if (v === null) return refuse(e, 'null', 'comparison with null has no legacy form; use isnull() or isnotnull()');
    if (v instanceof Timespan) return refuse(e, 'timespan', 'timespan values have no legacy form');
    if (v instanceof Datetime) {
        if (!SYSTEM_TIME_FIELDS.has(field)) {
            return refuse(e, 'datetime', `a datetime comparison on '${field}' has no legacy form (only _time and _sysTime compare with datetimes)`);
        }
        return formatDatetime(v.ns);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) return refuse(e, textOf(e), `'${textOf(e)}' has no JSON form`);
    return v;
}

function stringValue(e: ast.Expression, operator: string): string {
    const c = constantOf(e);
    if (!c || typeof c.value !== 'string') return refuse(e, operator, `'${operator}' has a legacy form only with a string constant on the right`);
    return c.value;
}

function positiveLong(e: ast.Expression, what: string): number {
    const c = constantOf(e);
    if (!c || typeof c.value !== 'number' || !Number.isInteger(c.value) || c.value <= 0) {
        return refuse(e, what, `${what} must be a positive integer constant in a legacy query`);
    }
    return c.value;
}

// ------------------------------------------------------------------------------------------- filters

const STRING_OPS: Readonly<Record<string, { op: FilterOp; caseSensitive: boolean }>> = {
    contains: { op: 'contains', caseSensitive: false },
    contains_cs: { op: 'contains', caseSensitive: true },
    '!contains': { op: 'not-contains', caseSensitive: false },
    '!contains_cs': { op: 'not-contains', caseSensitive: true },
    startswith: { op: 'starts-with', caseSensitive: false },
    startswith_cs: { op: 'starts-with', caseSensitive: true },
    '!startswith': { op: 'not-starts-with', caseSensitive: false },
    '!startswith_cs': { op: 'not-starts-with', caseSensitive: true },
    endswith: { op: 'ends-with', caseSensitive: false },
    endswith_cs: { op: 'ends-with', caseSensitive: true },
    '!endswith': { op: 'not-ends-with', caseSensitive: false },
    '!endswith_cs': { op: 'not-ends-with', caseSensitive: true },
};

const FLIPPED: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=', '<>': '<>' };

function requireField(e: ast.Expression, context: string): string {
    const name = fieldName(e);
    if (name === undefined) return refuse(e, textOf(e), `'${textOf(e)}' is not a field; ${context} applies to a field in a legacy filter`);
    return name;
}

/** Compiles a predicate into a legacy filter. */
export function compileFilter(expr: ast.Expression): Filter {
    const e = unparen(expr);
    switch (e.$type) {
        case 'BinaryExpression':
            return compileBinary(e);
        case 'NotExpression':
            return { op: 'not', field: '', children: [compileFilter(e.operand)] };
        case 'FunctionCall':
            return compileCall(e);
        case 'InExpression':
            return compileIn(e);
        case 'BetweenExpression': {
            const field = requireField(e.left, `'${e.operator}'`);
            const range: Filter = {
                op: 'and',
                field: '',
                children: [
                    { op: '>=', field, value: filterValue(e.low, field) },
                    { op: '<=', field, value: filterValue(e.high, field) },
                ],
            };
            return e.operator === 'between' ? range : { op: 'not', field: '', children: [range] };
        }
        case 'NameReference':
        case 'BracketReference':
        case 'MemberAccess': {
            const field = fieldName(e);
            if (field !== undefined) return { op: '==', field, value: true, caseSensitive: true };
            return refuse(e, textOf(e), `'${textOf(e)}' has no legacy filter form`);
        }
        case 'BooleanLiteral':
            return refuse(e, 'constant predicate', 'a constant predicate has no legacy form');
        case 'StarExpression':
            return refuse(e, '*', "'*' (search all fields) has no legacy form");
        default:
            return refuse(e, textOf(e), `'${textOf(e)}' has no legacy filter form`);
    }
}

function compileBinary(e: ast.BinaryExpression): Filter {
    const operator = e.operator;
    if (operator === 'and' || operator === 'or') {
        const children: Filter[] = [];
        for (const side of [e.left, e.right]) {
            const f = compileFilter(side);
            if (f.op === operator) children.push(...f.children!);
            else children.push(f);
        }
        return { op: operator, field: '', children };
    }
    if (operator in FLIPPED) {
        let leftField = fieldName(e.left);
        const rightField = fieldName(e.right);
        let valueNode = e.right;
        let op = operator;
        if (leftField !== undefined && rightField !== undefined && !constantOf(e.right)) {
            return refuse(e, 'field comparison', `comparing two fields ('${textOf(e)}') has no legacy filter form`);
        }
        if (leftField === undefined) {
            if (rightField === undefined) return refuse(e, textOf(e), `'${textOf(e)}' has no legacy filter form: one side must be a field`);
            leftField = rightField;
            valueNode = e.left;
            op = FLIPPED[operator];
        }
        const value = filterValue(valueNode, leftField);
        const legacyOp: FilterOp = op === '<>' ? '!=' : (op as FilterOp);
        if (legacyOp === '==' || legacyOp === '!=') return { op: legacyOp, field: leftField, value, caseSensitive: true };
        return { op: legacyOp, field: leftField, value };
    }
    if (operator === '=~' || operator === '!~') {
        const field = requireField(e.left, `'${operator}'`);
        return { op: operator === '=~' ? '==' : '!=', field, value: stringValue(e.right, operator), caseSensitive: false };
    }
    const stringOp = STRING_OPS[operator];
    if (stringOp) {
        const field = requireField(e.left, `'${operator}'`);
        return { op: stringOp.op, field, value: stringValue(e.right, operator), caseSensitive: stringOp.caseSensitive };
    }
    if (operator === 'matches regex' || operator === '!matches regex') {
        const field = requireField(e.left, `'${operator}'`);
        const pattern = stringValue(e.right, operator);
        return { op: operator === 'matches regex' ? 'regexp' : 'not-regexp', field, value: pattern };
    }
    if (operator === ':') return refuse(e, ':', "the search term operator ':' has no legacy form");
    if (['+', '-', '*', '/', '%'].includes(operator)) {
        return refuse(e, operator, `'${textOf(e)}' is not a predicate with a legacy filter form`);
    }
    return refuse(e, operator, `'${operator}' has no legacy form`);
}

function compileCall(e: ast.FunctionCall): Filter {
    const fn = e.function;
    const args = e.arguments;
    const one = (): ast.Expression => {
        if (args.length !== 1 || args[0].name !== undefined) return refuse(e, `${fn}()`, `${fn}() takes one argument`);
        return args[0].expression;
    };
    switch (fn) {
        case 'not':
            return { op: 'not', field: '', children: [compileFilter(one())] };
        case 'isnotnull':
            return { op: 'exists', field: requireField(one(), `${fn}()`) };
        case 'isnull':
            return { op: 'not-exists', field: requireField(one(), `${fn}()`) };
        case 'isnotempty': {
            const field = requireField(one(), `${fn}()`);
            return { op: 'and', field: '', children: [{ op: 'exists', field }, { op: '!=', field, value: '', caseSensitive: true }] };
        }
        case 'isempty': {
            const field = requireField(one(), `${fn}()`);
            return { op: 'or', field: '', children: [{ op: 'not-exists', field }, { op: '==', field, value: '', caseSensitive: true }] };
        }
        default:
            return refuse(e, `${fn}()`, `${fn}() has no legacy filter form`);
    }
}

function compileIn(e: ast.InExpression): Filter {
    const operator = e.operator;
    const spec = ({ in: ['==', true], '!in': ['!=', true], 'in~': ['==', false], '!in~': ['!=', false] } as const)[operator as 'in'];
    if (!spec) return refuse(e, operator, `'${operator}' has no legacy form`);
    const field = requireField(e.left, `'${operator}'`);
    if (e.items.length === 0) return refuse(e, operator, `'${operator} ()' with no values has no legacy form`);
    const children: Filter[] = e.items.map(item => {
        const c = constantOf(item);
        if (!c || (c.value !== null && typeof c.value === 'object' && !(c.value instanceof Datetime))) {
            return refuse(item, textOf(item), `'${textOf(item)}' is not a constant; '${operator}' has a legacy form only with a list of constants`);
        }
        if (!spec[1] && typeof c.value !== 'string') return refuse(item, operator, `'${operator}' has a legacy form only with string constants`);
        return { op: spec[0], field, value: filterValue(item, field), caseSensitive: spec[1] };
    });
    if (children.length === 1) return children[0];
    return { op: spec[0] === '==' ? 'or' : 'and', field: '', children };
}

// ---------------------------------------------------------------------------------------- operators

class Translator {
    private readonly filters: Filter[] = [];
    /** Fields read by filters and sorts so far: a later extend must not redefine them. */
    private readonly readFields = new Set<string>();
    private readonly virtualFields: VirtualField[] = [];
    private aggregations?: Aggregation[];
    private groupBy: string[] = [];
    private resolution = 'auto';
    private binned = false;
    private summarizeOutput?: Set<string>;
    private order?: Order[];
    private limit?: number;
    private project?: Projection[];
    /** After a project: projected column -> the field it comes from. */
    private projected?: Map<string, string>;
    /** The first operator of each kind, for "X after Y" messages. */
    private summarized?: string;
    private sorted?: string;
    private taken?: string;

    operator(op: ast.TabularOperator): void {
        switch (op.$type) {
            case 'WhereOperator':
                return this.where(op);
            case 'ExtendOperator':
                return this.extend(op);
            case 'ProjectOperator':
                return this.projectOp(op);
            case 'SortOperator':
                return this.sort(op, op.items, op.keyword);
            case 'TakeOperator':
                return this.take(op, op.count, op.keyword);
            case 'TopOperator':
                this.sort(op, op.items, 'top');
                return this.take(op, op.count, 'top');
            case 'SummarizeOperator':
                return this.summarize(op);
            case 'CountOperator':
                this.beforeSummarize(op, 'count');
                this.aggregations = [{ op: 'count', field: '*', alias: 'count' }];
                this.summarizeOutput = new Set(['count']);
                this.summarized = 'count';
                return;
            default:
                return refuse(op, op.keyword);
        }
    }

    private notAfter(node: AstNode, what: string, ...earlier: (string | undefined)[]): void {
        for (const e of earlier) if (e) refuse(node, what, `${what} after ${e} has no legacy form`);
    }

    private where(op: ast.WhereOperator): void {
        this.notAfter(op, 'where', this.summarized, this.projected ? 'project' : undefined, this.taken);
        const f = compileFilter(op.predicate);
        filterFields(f, this.readFields);
        this.filters.push(f);
    }

    private addVirtualField(node: AstNode, alias: string, expr: ast.Expression): void {
        if (this.readFields.has(alias)) {
            refuse(node, 'extend', `'${alias}' is redefined after an earlier where or sort reads it; this has no legacy form`);
        }
        const text = textOf(expr);
        this.virtualFields.push({ alias, expr: text });
    }

    private extend(op: ast.ExtendOperator): void {
        this.notAfter(op, 'extend', this.summarized, this.projected ? 'project' : undefined);
        for (const c of op.columns) {
            if (c.name === undefined) refuse(c, 'extend', 'an extend column without a name has no legacy form');
            this.addVirtualField(c, c.name, c.expression);
        }
    }

    private projectOp(op: ast.ProjectOperator): void {
        this.notAfter(op, 'project', this.summarized, this.projected ? 'project' : undefined);
        const projections: Projection[] = [];
        const projected = new Map<string, string>();
        const computedHere = new Set<string>();
        for (const c of op.columns) {
            const field = fieldName(c.expression);
            if (field !== undefined) {
                const source = this.projected?.get(field) ?? field;
                const name = c.name ?? field;
                projections.push(name === field ? { field } : { field, alias: name });
                projected.set(name, source);
                continue;
            }
            if (c.name === undefined) refuse(c, 'project', `a computed project column without a name ('${textOf(c.expression)}') has no legacy form`);
            for (const r of referencedFields(c.expression)) {
                if (computedHere.has(r)) refuse(c, 'project', `'${c.name}' reads '${r}', which the same project computes; this has no legacy form`);
            }
            this.addVirtualField(c, c.name, c.expression);
            computedHere.add(c.name);
            projections.push({ field: c.name });
            projected.set(c.name, c.name);
        }
        this.project = projections;
        this.projected = projected;
    }

    private sortField(item: ast.SortItem): string {
        const field = fieldName(item.expression);
        if (field === undefined) return refuse(item.expression, 'sort', `sorting by an expression ('${textOf(item.expression)}') has no legacy form; sort by a field`);
        if (this.summarizeOutput && !this.summarizeOutput.has(field)) {
            return refuse(item.expression, 'sort', `'${field}' is not a column of the summarize; sorting by it has no legacy form`);
        }
        if (this.projected) {
            const source = this.projected.get(field);
            if (source === undefined) return refuse(item.expression, 'sort', `'${field}' is not a projected column`);
            return source;
        }
        return field;
    }

    private sort(op: AstNode, items: ast.SortItem[], keyword: string): void {
        if (this.sorted) refuse(op, keyword, `a second sort (${keyword} after ${this.sorted}) has no legacy form`);
        this.notAfter(op, keyword, this.taken);
        const order: Order[] = [];
        for (const item of items) {
            if (item.nulls) refuse(item, `nulls ${item.nulls}`, `'nulls ${item.nulls}' has no legacy form`);
            const field = this.sortField(item);
            order.push({ field, desc: item.direction !== 'asc' });
            this.readFields.add(field);
        }
        this.order = order;
        this.sorted = keyword;
    }

    private take(op: AstNode, count: ast.Expression, keyword: string): void {
        const c = constantOf(count);
        if (!c || typeof c.value !== 'number' || !Number.isInteger(c.value) || c.value < 0) {
            refuse(count, keyword, `${keyword} needs a non-negative integer constant in a legacy query`);
        }
        const n = c.value as number;
        if (n === 0) refuse(count, keyword, `${keyword} 0 has no legacy form (a legacy limit of 0 means the default)`);
        if (n > MAX_LEGACY_LIMIT) refuse(count, keyword, `${keyword} ${n} exceeds the legacy maximum limit of ${MAX_LEGACY_LIMIT}`);
        this.limit = this.limit === undefined ? n : Math.min(this.limit, n);
        this.taken ??= keyword;
        void op;
    }

    private beforeSummarize(op: AstNode, keyword: string): void {
        if (this.summarized) refuse(op, keyword, `a second summarize (${keyword} after ${this.summarized}) has no legacy form`);
        this.notAfter(op, keyword, this.projected ? 'project' : undefined, this.sorted, this.taken);
    }

    private summarize(op: ast.SummarizeOperator): void {
        this.beforeSummarize(op, 'summarize');
        if (op.aggregates.length === 0) refuse(op, 'summarize', 'summarize without an aggregation has no legacy form');
        const aggregations: Aggregation[] = [];
        const output = new Set<string>();
        for (const g of op.groups) {
            const e = unparen(g.expression);
            if (e.$type === 'FunctionCall' && (e.function === 'bin' || e.function === 'bin_auto')) {
                if (this.binned) refuse(g, 'bin', 'a second time bin has no legacy form');
                if (g.name !== undefined && g.name !== '_time') refuse(g, 'bin', `naming the time bin '${g.name}' has no legacy form; it is always _time`);
                const args = e.arguments;
                const expected = e.function === 'bin' ? 2 : 1;
                if (args.length !== expected || args.some(a => a.name !== undefined)) refuse(e, `${e.function}()`, `${e.function}() takes ${expected} argument${expected > 1 ? 's' : ''}`);
                if (fieldName(args[0].expression) !== '_time') refuse(args[0], e.function, `${e.function}() of anything but _time has no legacy form`);
                if (e.function === 'bin') {
                    const c = constantOf(args[1].expression);
                    if (!c || !(c.value instanceof Timespan) || c.value.ns <= 0n) {
                        refuse(args[1], 'bin', 'the bin size must be a positive timespan constant in a legacy query');
                    }
                    this.resolution = formatGoDuration(c.value.ns);
                } else {
                    this.resolution = 'auto';
                }
                this.binned = true;
                output.add('_time');
                continue;
            }
            const field = fieldName(e);
            if (field === undefined) refuse(g, 'summarize by', `grouping by an expression ('${textOf(g.expression)}') has no legacy form; group by a field`);
            if (g.name !== undefined && g.name !== field) refuse(g, 'summarize by', `renaming a group key ('${g.name} = ${field}') has no legacy form`);
            this.groupBy.push(field);
            output.add(field);
        }
        for (const a of op.aggregates) {
            const agg = this.aggregation(a);
            if (output.has(agg.alias!)) refuse(a, 'summarize', `the column name '${agg.alias}' is used twice`);
            output.add(agg.alias!);
            aggregations.push(agg);
        }
        this.aggregations = aggregations;
        this.summarizeOutput = output;
        this.summarized = 'summarize';
    }

    private aggregation(named: ast.NamedExpression): Aggregation {
        const e = unparen(named.expression);
        if (e.$type !== 'FunctionCall') return refuse(named, 'summarize', `'${textOf(named.expression)}' is not a single aggregation call; it has no legacy form`);
        const fn = e.function;
        const entry = lookupAggregate(fn);
        if (!entry) return refuse(e, `${fn}()`, `${fn}() is not an aggregation`);
        if (!entry.legacyOp) return refuse(e, `${fn}()`, `${fn}() has no legacy form`);
        const op = entry.legacyOp as AggregationOp;
        const args = e.arguments;
        for (const a of args) if (a.name !== undefined) refuse(a, fn, `named arguments in ${fn}() have no legacy form`);
        const argExprs = args.map(a => a.expression);
        const arity = (min: number, max: number, extra?: string) => {
            if (argExprs.length < min) refuse(e, `${fn}()`, `${fn}() needs ${min} argument${min === 1 ? '' : 's'}`);
            if (argExprs.length > max) refuse(argExprs[max], `${fn}()`, extra ?? `${fn}() takes at most ${max} argument${max === 1 ? '' : 's'}`);
        };
        const field = (i: number): string => {
            const f = fieldName(argExprs[i]);
            if (f === undefined) return refuse(argExprs[i], `${fn}()`, `${fn}() of an expression ('${textOf(argExprs[i])}') has no legacy form; aggregate a field`);
            return f;
        };
        let out: Aggregation;
        switch (op) {
            case 'count':
                arity(0, 0);
                out = { op, field: '*' };
                break;
            case 'countif':
                arity(1, 1);
                out = { op, field: '*', argument: compileFilter(argExprs[0]) };
                break;
            case 'distinct':
                arity(1, 1, `${fn}()'s accuracy argument has no legacy form`);
                out = { op, field: field(0) };
                break;
            case 'distinctif':
                arity(2, 2, `${fn}()'s accuracy argument has no legacy form`);
                out = { op, field: field(0), argument: compileFilter(argExprs[1]) };
                break;
            case 'makesetif':
                arity(2, 2, `${fn}()'s size limit has no legacy form`);
                out = { op, field: field(0), argument: compileFilter(argExprs[1]) };
                break;
            case 'makeset':
            case 'makelist':
                arity(1, 1, `${fn}()'s size limit has no legacy form`);
                out = { op, field: field(0) };
                break;
            case 'topk':
                arity(2, 2);
                out = { op, field: field(0), argument: positiveLong(argExprs[1], `${fn}()'s k`) };
                break;
            case 'histogram':
                arity(2, 2);
                out = { op, field: field(0), argument: positiveLong(argExprs[1], `${fn}()'s number of bins`) };
                break;
            case 'percentiles': {
                arity(2, fn === 'percentile' ? 2 : Infinity);
                const ps = argExprs.slice(1).map(p => {
                    const c = constantOf(p);
                    if (!c || typeof c.value !== 'number') return refuse(p, `${fn}()`, `${fn}()'s percentiles must be number constants in a legacy query`);
                    return c.value;
                });
                out = { op, field: field(0), argument: fn === 'percentile' ? ps[0] : ps };
                break;
            }
            case 'argmin':
            case 'argmax': {
                arity(2, Infinity);
                const others = argExprs.slice(1).map((_, i) => field(i + 1));
                out = { op, field: field(0), argument: others };
                break;
            }
            default:
                arity(1, 1);
                out = { op, field: field(0) };
        }
        const alias = named.name ?? entry.defaultColumnName(aggregationArgumentNames(e, fieldName));
        return { alias, ...out };
    }

    result(startTime: string, endTime: string): LegacyQuery {
        const q: LegacyQuery = { startTime, endTime, resolution: this.resolution };
        if (this.filters.length === 1) q.filter = this.filters[0];
        else if (this.filters.length > 1) {
            q.filter = { op: 'and', field: '', children: this.filters.flatMap(f => (f.op === 'and' ? f.children! : [f])) };
        }
        if (this.aggregations) q.aggregations = this.aggregations;
        if (this.groupBy.length > 0) q.groupBy = this.groupBy;
        if (this.order) q.order = this.order;
        if (this.project) q.project = this.project;
        if (this.virtualFields.length > 0) q.virtualFields = this.virtualFields;
        if (this.limit !== undefined) q.limit = this.limit;
        return q;
    }
}
