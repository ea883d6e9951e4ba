/**
 * The scalar expression compiler: AST expression -> a function from a frame to a vector.
 *
 * Hot paths are vectorised (comparisons with constants, string predicates over the dictionary,
 * arithmetic over Float64Arrays, `bin` over times, boolean logic); everything else runs the
 * catalogue's `evaluate` row by row over the argument vectors. Constant sub-expressions are folded
 * once at compile time.
 */
import { derivedColumnName } from '../column-names.js';
import type { AstNode } from 'langium';
import type { QueryBudget } from './budget.js';
import type * as ast from '../generated/ast.js';
import { acceptsArgumentCount, argumentTypeProblem, describeArity, lookupAggregate, lookupScalarFunction, type EvalContext } from '../builtins/index.js';
import { castToType } from '../builtins/index.js';
import { Issues } from '../apl-issue-codes.js';
import { literalIndexProblem } from '../indexing.js';
import { LiteralError, literalType, literalValue } from '../literal-values.js';
import { typeFromName } from '../types/apl-types.js';
import { Datetime, Timespan, type AplValue, type JsonValue } from '../values.js';
import { toJson } from '../runtime-values.js';
import { toText } from '../builtins/index.js';
import { autoBinSizeFor } from '../builtins/index.js';
import {
    BoolColumn,
    type Column,
    ConstColumn,
    NumColumn,
    type ScalarType,
    StrColumn,
    TimeColumn,
    builderFor,
    splitNs,
} from './columns.js';
import { errorAt, unsupportedAt, AplQueryError } from './errors.js';
import { cmpOpCode, codesEqual, codesLookup, gatherBytes, numCompare, numEqual, tableCountRows, tableMatchRows, triAnd, triNot, triOr } from './kernels/select.js';
import { arithColumns, arithOpCode, type ArithSide } from './kernels/arith.js';
import { binMs } from './kernels/time.js';
import { Frame, ROWID, type FrameCol } from './frame.js';
import {
    arith,
    arithType,
    compareTri,
    equalsTri,
    searchTermPredicate,
    stringPredicate,
    truthTri,
    type Tri,
} from './scalar-ops.js';

// ---------------------------------------------------------------------------------------------
// Vectors and compiled expressions

export type Vec = { c: true; v: AplValue } | { c: false; col: Column; sel: Uint32Array | null };

export interface Compiled {
    type: ScalarType;
    /** Set when the expression is a constant (already evaluated). */
    isConst: boolean;
    value?: AplValue;
    run(frame: Frame): Vec;
    /**
     * For predicates that can say so without a per-row mask (string columns against a constant):
     * the logical rows where the predicate is true; undefined when this input does not qualify.
     */
    matchRows?(frame: Frame): Uint32Array | undefined;
    /** How many rows matchRows would list, without listing them (`where p | count`); undefined as there. */
    countRows?(frame: Frame): number | undefined;
    /** `bin(x, step)` of a time `x` with whole milliseconds as step: x and the step (ms). */
    timeBin?: { x: Compiled; stepMs: number };
    /** For plain column references: the column name. */
    columnName?: string;
}

export function vget(v: Vec, i: number): AplValue {
    if (v.c) return v.v;
    return v.col.get(v.sel ? v.sel[i] : i);
}

export function constant(type: ScalarType, value: AplValue): Compiled {
    const vec: Vec = { c: true, v: value };
    return { type, isConst: true, value, run: () => vec };
}

/** A bound name: a let scalar, a declared parameter, a let table. */
export type Binding =
    | { kind: 'scalar'; type: ScalarType; value: AplValue }
    | { kind: 'table'; expression: ast.Expression; env: QueryEnv }
    | { kind: 'frame'; frame: Frame };

/** What a query needs while compiling: bindings, time, and how to read tables. */
export interface QueryEnv {
    bindings: Map<string, Binding>;
    now: bigint;
    startTime?: bigint;
    endTime?: bigint;
    /** Evaluates a tabular expression (subqueries in `in (...)`, `join`, `lookup`). */
    evalTable(expr: ast.Expression, env: QueryEnv): Frame;
    /** Set by summarize: aggregate calls that stand for already computed columns. */
    aggColumns?: Map<AstNode, string>;
    /** The bounds of the query's intermediate results. */
    budget: QueryBudget;
}

export function normType(t: string | undefined): ScalarType {
    switch (t) {
        case 'string': case 'long': case 'real': case 'bool': case 'datetime': case 'timespan': case 'dynamic': return t;
        default: return 'dynamic';
    }
}

/** Turns a vector into a column of the given logical length (dense only when needed). */
export function vecToFrameCol(name: string, type: ScalarType, v: Vec, n: number): FrameCol {
    if (v.c) return { name, type, data: new ConstColumn(type, v.v, n), sel: null };
    return { name, type, data: v.col, sel: v.sel };
}

function evalCtx(env: QueryEnv, argTypes: ScalarType[], resultType: ScalarType): EvalContext {
    return { argTypes, resultType, now: env.now, startTime: env.startTime, endTime: env.endTime };
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function compileExpr(node: ast.Expression, frame: Frame, env: QueryEnv): Compiled {
    return new ExprCompiler(frame, env).compile(node);
}

/**
 * A column that a plan names itself rather than the query spelling it out: each column of
 * `distinct *` or of `arg_max(x, *)`, a join key `$left.a`.
 */
export interface ColumnKey {
    readonly column: string;
}

/** A grouping or join key: an expression of the query, or a column the plan names. */
export type KeyExpr = ast.Expression | ColumnKey;

export function isColumnKey(k: KeyExpr): k is ColumnKey {
    return !('$type' in k);
}

/**
 * Column `name` of `frame`, resolved as the query's `['name']` would be (a column, else a scalar
 * `let`); an unknown name is an error without a position (1:1), as the plan wrote no text for it.
 */
export function compileColumnRef(name: string, frame: Frame, env: QueryEnv): Compiled {
    return new ExprCompiler(frame, env).named(name, undefined);
}

export function compileKey(k: KeyExpr, frame: Frame, env: QueryEnv): Compiled {
    return isColumnKey(k) ? compileColumnRef(k.column, frame, env) : compileExpr(k, frame, env);
}

/** `defaultName` of a key: a named column is its own name. */
export function keyName(k: KeyExpr): string | undefined {
    return isColumnKey(k) ? k.column : defaultName(k);
}

/**
 * The name a column gets when an expression is not named (language/column-names.ts): `x` for `x`,
 * `geo.city`, `_time` for `bin(_time, 1h)`, `is_tls` for `tostring(is_tls)`; undefined otherwise.
 */
export function defaultName(node: ast.Expression): string | undefined {
    return derivedColumnName(node, chainName);
}

/** A name chain's column name: `x`, `['geo.city']`, `a.b.c` (dotted). */
function chainName(node: ast.Expression): string | undefined {
    switch (node.$type) {
        case 'NameReference': return (node as ast.NameReference).name;
        case 'BracketReference': return (node as ast.BracketReference).name;
        case 'MemberAccess': {
            const path = memberPath(node);
            return path ? path.join('.') : undefined;
        }
    }
    return undefined;
}

/** `a.b.c` as ['a','b','c'] when the chain is plain names; undefined otherwise. */
export function memberPath(node: ast.Expression): string[] | undefined {
    if (node.$type === 'NameReference') return [(node as ast.NameReference).name];
    if (node.$type === 'BracketReference') return [(node as ast.BracketReference).name];
    if (node.$type === 'MemberAccess') {
        const m = node as ast.MemberAccess;
        const base = memberPath(m.receiver);
        const seg = m.member ?? m.bracketMember;
        if (!base || seg === undefined) return undefined;
        return [...base, seg];
    }
    return undefined;
}

// ---------------------------------------------------------------------------------------------

const STRING_OPS = new Set([
    'contains', '!contains', 'contains_cs', '!contains_cs', 'startswith', '!startswith', 'startswith_cs', '!startswith_cs',
    'endswith', '!endswith', 'endswith_cs', '!endswith_cs', 'has', '!has', 'has_cs', '!has_cs', 'hasprefix', '!hasprefix',
    'hasprefix_cs', '!hasprefix_cs', 'hassuffix', '!hassuffix', 'hassuffix_cs', '!hassuffix_cs', 'like', 'notlike', 'likecs',
    'notlikecs', 'matches regex', '!matches regex',
]);

export class ExprCompiler {
    constructor(
        private readonly frame: Frame,
        private readonly env: QueryEnv,
    ) {}

    compile(node: ast.Expression): Compiled {
        const agg = this.env.aggColumns?.get(node);
        if (agg !== undefined) return this.columnRef(agg, node)!;
        switch (node.$type) {
            case 'StringLiteral':
            case 'LongLiteral':
            case 'RealLiteral':
            case 'TimespanLiteral':
            case 'DatetimeLiteral':
            case 'BooleanLiteral':
            case 'NullLiteral': {
                try {
                    return constant(normType(literalType(node as ast.Literal)), literalValue(node as ast.Literal));
                } catch (e) {
                    if (e instanceof LiteralError) throw errorAt(node, e.message);
                    throw e;
                }
            }
            case 'DynamicLiteral': return this.dynamicLiteral(node as ast.DynamicLiteral);
            case 'TypeofLiteral': return constant('string', (node as ast.TypeofLiteral).type);
            case 'NameReference': return this.named((node as ast.NameReference).name, node);
            case 'BracketReference': return this.named((node as ast.BracketReference).name, node);
            case 'MemberAccess': case 'IndexAccess': {
                // The checker's rule (language/indexing.ts): `take 1` + a new line `['logs'] | …` is two queries without ';'.
                const problem = literalIndexProblem(node as ast.MemberAccess | ast.IndexAccess);
                if (problem) throw errorAt(node, problem);
                return node.$type === 'MemberAccess' ? this.member(node as ast.MemberAccess) : this.index(node as ast.IndexAccess);
            }
            case 'ParenthesizedExpression': {
                const inner = (node as ast.ParenthesizedExpression).expression;
                if (isTabular(inner)) throw errorAt(node, 'a tabular expression cannot be used where a scalar value is expected');
                return this.compile(inner);
            }
            case 'UnaryExpression': return this.unary(node as ast.UnaryExpression);
            case 'NotExpression': return this.not(this.compile((node as ast.NotExpression).operand));
            case 'BinaryExpression': return this.binary(node as ast.BinaryExpression);
            case 'InExpression': return this.inExpr(node as ast.InExpression);
            case 'BetweenExpression': return this.between(node as ast.BetweenExpression);
            case 'FunctionCall': return this.call(node as ast.FunctionCall);
            case 'StarExpression': throw errorAt(node, "'*' is only allowed as the left side of a search term (`* has \"x\"`) or in `search`");
            default:
                throw errorAt(node, 'a tabular expression cannot be used where a scalar value is expected');
        }
    }

    // ----------------------------------------------------------------- names

    columnRef(name: string, _node: AstNode | undefined): Compiled | undefined {
        const col = this.frame.find(name);
        if (!col) return undefined;
        const vec: Vec = { c: false, col: col.data, sel: col.sel };
        return { type: col.type, isConst: false, run: f => (f === this.frame ? vec : refIn(f, name)), columnName: name };
    }

    /** A name: a column of the frame, else a scalar binding; `node` places the error (none: 1:1). */
    named(name: string, node: AstNode | undefined): Compiled {
        const c = this.columnRef(name, node);
        if (c) return c;
        const b = this.env.bindings.get(name);
        if (b?.kind === 'scalar') return constant(b.type, b.value);
        if (b) throw errorAt(node, `'${name}' is a table; a scalar value is expected here`);
        throw errorAt(node, `unknown field or variable '${name}'`);
    }

    private member(node: ast.MemberAccess): Compiled {
        const path = memberPath(node);
        if (path) {
            // Longest flattened field name first: `geo.city` before `geo` + member `city`.
            for (let k = path.length; k >= 1; k--) {
                const name = path.slice(0, k).join('.');
                const col = this.columnRef(name, node);
                if (col) {
                    let cur: Compiled = col;
                    for (let j = k; j < path.length; j++) cur = this.access(cur, constant('string', path[j]));
                    return cur;
                }
            }
            const root = this.env.bindings.get(path[0]);
            if (root?.kind === 'scalar') {
                let cur: Compiled = constant(root.type, root.value);
                for (let j = 1; j < path.length; j++) cur = this.access(cur, constant('string', path[j]));
                return cur;
            }
            throw errorAt(node, `unknown field '${path.join('.')}'`);
        }
        const recv = this.compile(node.receiver);
        return this.access(recv, constant('string', (node.member ?? node.bracketMember)!));
    }

    private index(node: ast.IndexAccess): Compiled {
        const recv = this.compile(node.receiver);
        if (node.bracketIndex !== undefined) return this.access(recv, constant('string', node.bracketIndex));
        if (node.slice) {
            const start = node.index ? this.compile(node.index) : constant('long', 0);
            const end = node.sliceEnd ? this.compile(node.sliceEnd) : constant('long', null);
            return this.rowwise('dynamic', [recv, start, end], ([a, s, e]) => sliceValue(a, s, e));
        }
        if (!node.index) throw errorAt(node, 'an index is expected inside [ ]');
        return this.access(recv, this.compile(node.index));
    }

    private access(recv: Compiled, key: Compiled): Compiled {
        return this.rowwise('dynamic', [recv, key], ([a, k]) => accessValue(a, k));
    }

    private dynamicLiteral(node: ast.DynamicLiteral): Compiled {
        const parts: Compiled[] = [];
        const build = (j: ast.JsonValue): JsonValue => {
            switch (j.$type) {
                case 'JsonObject': {
                    const o: { [k: string]: JsonValue } = {};
                    for (const m of (j as ast.JsonObject).members) o[unquoteKey(m.key)] = build(m.value);
                    return o;
                }
                case 'JsonArray': return (j as ast.JsonArray).elements.map(e => build(e));
                default: {
                    const e = (j as ast.JsonScalar).expression;
                    if (e.$type === 'BracketReference') return [(e as ast.BracketReference).name];
                    const c = this.compile(e);
                    if (!c.isConst) {
                        parts.push(c);
                        return { $dynamicPart: parts.length - 1 } as unknown as JsonValue;
                    }
                    return toJson(c.value ?? null);
                }
            }
        };
        const template = build(node.value);
        if (parts.length === 0) return constant('dynamic', template as AplValue);
        return this.rowwise('dynamic', parts, vals => fillTemplate(template, vals) as AplValue);
    }

    // ----------------------------------------------------------------- operators

    private unary(node: ast.UnaryExpression): Compiled {
        const x = this.compile(node.operand);
        if (node.operator === '+') return x;
        if (x.type === 'string' || x.type === 'bool' || x.type === 'datetime') throw errorAt(node, `unary '-' cannot be applied to a ${x.type}`);
        if (x.isConst) {
            const v = x.value ?? null;
            if (v === null) return x;
            if (typeof v === 'number') return constant(x.type, v === 0 ? 0 : -v);
            if (v instanceof Timespan) return constant('timespan', new Timespan(-v.ns));
            return constant(x.type, null);
        }
        return this.arith('-', constant(x.type === 'timespan' ? 'timespan' : x.type, x.type === 'timespan' ? new Timespan(0n) : 0), x, node);
    }

    not(x: Compiled): Compiled {
        if (x.isConst) {
            const t = truthTri(x.value ?? null);
            return constant('bool', t === 2 ? null : t === 0);
        }
        return {
            type: 'bool',
            isConst: false,
            run: f => {
                const n = f.length;
                return { c: false, col: new BoolColumn(triNot(triArray(x.run(f), n), n), n), sel: null };
            },
        };
    }

    private binary(node: ast.BinaryExpression): Compiled {
        const op = node.operator;
        if (op === 'and' || op === 'or') return this.logical(op, this.compile(node.left), this.compile(node.right as ast.Expression));
        if (node.left.$type === 'StarExpression') return this.starSearch(op, node);
        if (op === ':' || /^:/.test(op)) return this.searchColon(node);
        const left = this.compile(node.left);
        const right = this.compile(node.right as ast.Expression);
        switch (op) {
            case '+': case '-': case '*': case '/': case '%': return this.arith(op, left, right, node);
            case '==': case '!=': case '<>': return this.equality(op === '==' ? '==' : '!=', left, right);
            case '<': case '<=': case '>': case '>=': return this.compare(op, left, right);
            case '=~': return this.strOp('=~', left, right, node);
            case '!~': return this.strOp('!~', left, right, node);
        }
        if (STRING_OPS.has(op)) return this.strOp(op, left, right, node);
        throw unsupportedAt(node, `the operator '${op}'`);
    }

    logical(op: 'and' | 'or', a: Compiled, b: Compiled): Compiled {
        const combine = (x: Tri, y: Tri): Tri => {
            if (op === 'and') return x === 0 || y === 0 ? 0 : x === 2 || y === 2 ? 2 : 1;
            return x === 1 || y === 1 ? 1 : x === 2 || y === 2 ? 2 : 0;
        };
        if (a.isConst && b.isConst) {
            const t = combine(truthTri(a.value ?? null), truthTri(b.value ?? null));
            return constant('bool', t === 2 ? null : t === 1);
        }
        return {
            type: 'bool',
            isConst: false,
            run: f => {
                const n = f.length;
                const x = triArray(a.run(f), n);
                const y = triArray(b.run(f), n);
                return { c: false, col: new BoolColumn(op === 'and' ? triAnd(x, y, n) : triOr(x, y, n), n), sel: null };
            },
        };
    }

    arith(op: string, a: Compiled, b: Compiled, node: AstNode): Compiled {
        const rt = arithType(op, a.type, b.type);
        if (rt === undefined) throw errorAt(node, `the operator '${op}' cannot be applied to ${a.type} and ${b.type}`);
        if (a.isConst && b.isConst) return constant(rt, arith(op, a.value ?? null, b.value ?? null, rt));
        // Vectorised numbers.
        if ((rt === 'long' || rt === 'real') && (a.type === 'long' || a.type === 'real') && (b.type === 'long' || b.type === 'real')) {
            return {
                type: rt,
                isConst: false,
                run: f => ({ c: false, col: numArith(op, rt, a.run(f), b.run(f), f.length), sel: null }),
            };
        }
        return this.rowwise(rt, [a, b], ([x, y]) => arith(op, x, y, rt));
    }

    equality(op: '==' | '!=', a: Compiled, b: Compiled): Compiled {
        const neg = op === '!=';
        const fix = (t: Tri): Tri => (neg ? (t === 2 ? 2 : t === 1 ? 0 : 1) : t);
        if (a.isConst && b.isConst) {
            const t = fix(equalsTri(a.value ?? null, b.value ?? null));
            return constant('bool', t === 2 ? null : t === 1);
        }
        if (a.isConst && !b.isConst) return this.equality(op, b, a);
        if (b.isConst) {
            const k = b.value ?? null;
            return {
                type: 'bool',
                isConst: false,
                run: f => ({ c: false, col: eqConst(a.run(f), k, f.length, neg), sel: null }),
                matchRows: f => tableRows(eqConstTable(a.run(f), k, neg), f.length),
                countRows: f => tableCount(eqConstTable(a.run(f), k, neg), f.length),
            };
        }
        return this.rowwise('bool', [a, b], ([x, y]) => triValue(fix(equalsTri(x, y))));
    }

    compare(op: string, a: Compiled, b: Compiled): Compiled {
        if (a.isConst && b.isConst) {
            const t = compareTri(op, a.value ?? null, b.value ?? null);
            return constant('bool', triValue(t));
        }
        if (a.isConst && !b.isConst) {
            const flip: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
            return this.compare(flip[op], b, a);
        }
        if (b.isConst) {
            const k = b.value ?? null;
            return { type: 'bool', isConst: false, run: f => ({ c: false, col: cmpConst(op, a.run(f), k, f.length), sel: null }) };
        }
        if (isNum(a.type) && isNum(b.type)) {
            return { type: 'bool', isConst: false, run: f => ({ c: false, col: cmpNumNum(op, a.run(f), b.run(f), f.length), sel: null }) };
        }
        return this.rowwise('bool', [a, b], ([x, y]) => triValue(compareTri(op, x, y)));
    }

    strOp(op: string, a: Compiled, b: Compiled, node: AstNode): Compiled {
        let opName = op;
        let negateOuter = false;
        if (op === '=~') opName = '~';
        if (op === '!~') {
            opName = '~';
            negateOuter = true;
        }
        if (b.isConst) {
            let pred: ReturnType<typeof stringPredicate>;
            try {
                pred = stringPredicate(opName, b.value ?? null);
            } catch (e) {
                throw errorAt(node, (e as Error).message, 'runtime');
            }
            const negate = pred.negate !== negateOuter;
            const test = (s: string) => pred.fn(s) !== negate;
            if (a.isConst) return constant('bool', test(textOf(a.value ?? null, pred.lower)));
            return {
                type: 'bool',
                isConst: false,
                run: f => ({ c: false, col: stringPredicateVec(a.run(f), f.length, test, pred.lower), sel: null }),
                matchRows: f => tableRows(stringPredicateTable(a.run(f), f.length, test, pred.lower), f.length),
                countRows: f => tableCount(stringPredicateTable(a.run(f), f.length, test, pred.lower), f.length),
            };
        }
        return this.rowwise('bool', [a, b], ([x, y]) => {
            const pred = stringPredicate(opName, y);
            return pred.fn(textOf(x, pred.lower)) !== (pred.negate !== negateOuter);
        });
    }

    private searchColon(node: ast.BinaryExpression): Compiled {
        const left = this.compile(node.left);
        const term = (node.right as ast.StringLiteral).value;
        const pred = searchTermPredicate(term, false);
        return { type: 'bool', isConst: false, run: f => ({ c: false, col: stringPredicateVec(left.run(f), f.length, pred, false), sel: null }) };
    }

    /** `bag_pack(*)`: every column of the row as a property bag, as `bag_pack('a', a, 'b', b, …)`. */
    private packAllColumns(node: ast.FunctionCall, name: string): Compiled {
        const fn = lookupScalarFunction(name)!;
        const args: Compiled[] = [];
        for (const c of this.frame.visible()) args.push(constant('string', c.name), this.columnRef(c.name, node)!);
        const ctx = evalCtx(this.env, args.map(a => a.type), 'dynamic');
        return this.rowwise('dynamic', args, vals => fn.evaluate!(vals, ctx));
    }

    /** `* has "x"`: the predicate over every column, or-ed. */
    private starSearch(op: string, node: ast.BinaryExpression): Compiled {
        const right = this.compile(node.right as ast.Expression);
        const cols = this.frame.visible();
        let acc: Compiled | undefined;
        for (const c of cols) {
            const ref = this.columnRef(c.name, node)!;
            const one = op === '==' || op === '!=' ? this.equality(op, ref, right) : this.strOp(op, ref, right, node);
            acc = acc ? this.logical('or', acc, one) : one;
        }
        return acc ?? constant('bool', false);
    }

    private inExpr(node: ast.InExpression): Compiled {
        const left = this.compile(node.left);
        const values: AplValue[] = [];
        const dynamicItems: Compiled[] = [];
        for (const item of node.items) {
            if (isTabular(item) || (item.$type === 'NameReference' && this.env.bindings.get((item as ast.NameReference).name)?.kind !== 'scalar' && this.env.bindings.has((item as ast.NameReference).name))) {
                const t = this.env.evalTable(item, this.env);
                const c = t.visible()[0];
                if (c) for (let i = 0; i < t.length; i++) values.push(c.data.get(c.sel ? c.sel[i] : i));
                continue;
            }
            const c = this.compile(item);
            if (!c.isConst) {
                dynamicItems.push(c);
                continue;
            }
            pushFlat(values, c.value ?? null);
        }
        const op = node.operator;
        const negate = op.startsWith('!');
        const base = negate ? op.slice(1) : op;
        if (base === 'has_any' || base === 'has_any_cs' || base === 'has_all' || base === 'has_all_cs') {
            const cs = base.endsWith('_cs');
            const preds = values.filter(v => v !== null).map(v => stringPredicate(cs ? 'has_cs' : 'has', v));
            const all = base.startsWith('has_all');
            const test = (s: string) => {
                const r = all ? preds.every(p => p.fn(s)) : preds.some(p => p.fn(s));
                return r !== negate;
            };
            if (dynamicItems.length) throw unsupportedAt(node, `non-constant values in '${op}'`);
            if (left.isConst) return constant('bool', test(textOf(left.value ?? null, !cs)));
            return { type: 'bool', isConst: false, run: f => ({ c: false, col: stringPredicateVec(left.run(f), f.length, test, !cs), sel: null }) };
        }
        const ci = base === 'in~';
        const keyOf = (v: AplValue): string => {
            if (v === null || v === undefined) return '\u0000null';
            if (ci) return `s:${toText(v).toLowerCase()}`;
            if (typeof v === 'string') return `s:${v}`;
            if (typeof v === 'number') return `n:${v}`;
            if (typeof v === 'boolean') return `b:${v}`;
            if (v instanceof Datetime) return `d:${v.ns}`;
            if (v instanceof Timespan) return `t:${v.ns}`;
            return `j:${JSON.stringify(v)}`;
        };
        const set = new Set<string>();
        for (const v of values) {
            if (v === null) continue;
            set.add(keyOf(v));
            // Numbers also match their text (string-typed numeric fields), and vice versa.
            if (typeof v === 'number') set.add(`s:${toText(v)}`);
            if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) set.add(`n:${Number(v)}`);
        }
        const test = (v: AplValue): boolean => {
            if (v === null || v === undefined) return negate;
            const hit = set.has(keyOf(v));
            if (!hit && dynamicItems.length === 0) return negate;
            return hit !== negate;
        };
        if (dynamicItems.length) {
            return this.rowwise('bool', [left, ...dynamicItems], ([x, ...rest]) => {
                if (x === null) return negate;
                const k = keyOf(x);
                let hit = set.has(k);
                for (const r of rest) {
                    const flat: AplValue[] = [];
                    pushFlat(flat, r);
                    if (flat.some(y => y !== null && keyOf(y) === k)) hit = true;
                }
                return hit !== negate;
            });
        }
        if (left.isConst) return constant('bool', test(left.value ?? null));
        return {
            type: 'bool',
            isConst: false,
            run: f => {
                const v = left.run(f);
                const n = f.length;
                if (!v.c && v.col instanceof StrColumn) {
                    const col = v.col;
                    const dict = ci ? col.lowerDict() : col.dict;
                    return { c: false, col: mapDict(col, v.sel, n, s => set.has(`s:${s}`) !== negate, dict, negate), sel: null };
                }
                const out = new Uint8Array(n);
                for (let i = 0; i < n; i++) out[i] = test(vget(v, i)) ? 1 : 0;
                return { c: false, col: new BoolColumn(out, n), sel: null };
            },
        };
    }

    private between(node: ast.BetweenExpression): Compiled {
        const x = this.compile(node.left);
        const lo = this.compile(node.low);
        let hi = this.compile(node.high);
        // `datetime .. timespan` means an upper bound relative to the lower one.
        if ((x.type === 'datetime' && hi.type === 'timespan')) hi = this.arith('+', lo, hi, node);
        const ge = this.compare('>=', x, lo);
        const le = this.compare('<=', x, hi);
        const both = this.logical('and', ge, le);
        return node.operator === '!between' ? this.not(both) : both;
    }

    // ----------------------------------------------------------------- calls

    private call(node: ast.FunctionCall): Compiled {
        const name = node.function;
        const args = node.arguments.map(a => a.expression);
        if (lookupAggregate(name) && !lookupScalarFunction(name)) {
            throw errorAt(node, `the aggregation '${name}' can only be used in summarize, make-series or top-nested`);
        }
        switch (name) {
            case 'column_ifexists': {
                const n = args[0] && this.compile(args[0]);
                if (!n?.isConst || typeof n.value !== 'string') throw errorAt(node, 'column_ifexists expects a constant field name');
                const col = this.columnRef(n.value, node);
                if (col) return col;
                if (args.length < 2) throw errorAt(node, 'column_ifexists expects a default value');
                return this.compile(args[1]);
            }
            case 'ensure_field': {
                const n = args[0] && this.compile(args[0]);
                if (!n?.isConst || typeof n.value !== 'string') throw errorAt(node, 'ensure_field expects a constant field name');
                const col = this.columnRef(n.value, node);
                if (col) return col;
                const tn = args[1]?.$type === 'TypeofLiteral' ? (args[1] as ast.TypeofLiteral).type : 'dynamic';
                return constant(normType(typeFromName(tn)), null);
            }
            case 'ingestion_time': {
                const col = this.columnRef('_sysTime', node);
                return col ?? constant('datetime', null);
            }
            case 'cursor_current': {
                const col = this.columnRef(ROWID, node);
                return col ? { ...col, type: 'string' } : constant('string', null);
            }
            case 'not':
                if (args.length !== 1) throw errorAt(node, 'not() expects one argument');
                return this.not(this.compile(args[0]));
            case 'bin':
            case 'floor':
                if (args.length === 2) {
                    const x = this.compile(args[0]);
                    const size = this.compile(args[1]);
                    if (size.isConst) {
                        const fast = binFast(x, size.value ?? null);
                        if (fast) return fast;
                    }
                }
                break;
            case 'bin_auto': {
                if (args.length === 1) {
                    const x = this.compile(args[0]);
                    const size = new Timespan(autoBinSizeFor({ now: this.env.now, startTime: this.env.startTime, endTime: this.env.endTime }));
                    const fast = binFast(x, size);
                    if (fast) return fast;
                }
                break;
            }
            case 'isnull':
            case 'isnotnull':
            case 'isempty':
            case 'isnotempty':
                if (args.length === 1) return this.nullCheck(name, this.compile(args[0]));
                break;
            case 'toscalar':
                throw unsupportedAt(node, 'toscalar()');
        }
        if (args.length === 1 && args[0].$type === 'StarExpression' && lookupScalarFunction(name)?.packsAllColumns) return this.packAllColumns(node, name);
        return this.catalogueCall(node, name);
    }

    private nullCheck(name: string, x: Compiled): Compiled {
        const empty = name === 'isempty' || name === 'isnotempty';
        const neg = name === 'isnotnull' || name === 'isnotempty';
        const test = (v: AplValue) => (v === null || v === undefined || (empty && v === '')) !== neg;
        if (x.isConst) return constant('bool', test(x.value ?? null));
        return {
            type: 'bool',
            isConst: false,
            run: f => {
                const v = x.run(f);
                const n = f.length;
                const out = new Uint8Array(n);
                if (!v.c && v.col instanceof StrColumn) {
                    const codes = v.col.codes;
                    const sel = v.sel;
                    const dict = v.col.dict;
                    for (let i = 0; i < n; i++) {
                        const c = codes[sel ? sel[i] : i];
                        out[i] = (c === 0 || (empty && dict[c] === '')) !== neg ? 1 : 0;
                    }
                } else for (let i = 0; i < n; i++) out[i] = test(vget(v, i)) ? 1 : 0;
                return { c: false, col: new BoolColumn(out, n), sel: null };
            },
        };
    }

    private catalogueCall(node: ast.FunctionCall, name: string): Compiled {
        const fn = lookupScalarFunction(name);
        if (!fn) {
            if (lookupAggregate(name)) throw errorAt(node, `the aggregation '${name}' can only be used in summarize`);
            throw errorAt(node, `unknown function '${name}'`);
        }
        // The checker's arity rule and message (APL0002), so `long(1, 2)` fails in `apl run` as in `apl check`.
        if (!acceptsArgumentCount(fn, node.arguments.length)) {
            throw errorAt(node, Issues.WrongArgumentCount.message({ name, count: node.arguments.length, expected: describeArity(fn.signatures) }).replace(/\.$/, ''));
        }
        if (!fn.evaluate) throw unsupportedAt(node, `the function '${name}'${fn.unsupported ? ` (${fn.unsupported})` : ''}`);
        const args = node.arguments.map(a => this.compile(a.expression));
        const argTypes = args.map(a => a.type);
        // The checker's rule (builtins/index.ts), so `apl check` and `apl run` agree on `tohex(uri)`.
        const problem = argumentTypeProblem(fn.signatures, argTypes);
        if (problem) {
            const message = Issues.ArgumentTypeMismatch.message({ name, position: problem.index + 1, expected: problem.expected, actual: argTypes[problem.index] });
            throw errorAt(node.arguments[problem.index], message.replace(/\.$/, ''));
        }
        const rt = normType(typeof fn.returns === 'function' ? fn.returns(argTypes) : fn.returns);
        const ctx = evalCtx(this.env, argTypes, rt);
        const evaluate = fn.evaluate;
        const call = (vals: AplValue[]): AplValue => {
            try {
                const r = evaluate(vals, ctx);
                return r === undefined ? null : r;
            } catch (e) {
                if (e instanceof AplQueryError) throw e;
                throw errorAt(node, `${name}: ${(e as Error).message}`, 'runtime');
            }
        };
        if (args.every(a => a.isConst) && (!fn.volatile || name === 'now' || name === 'ago')) {
            return constant(rt, call(args.map(a => a.value ?? null)));
        }
        return this.rowwise(rt, args, call);
    }

    /** Generic per-row evaluation over argument vectors. */
    rowwise(type: ScalarType, args: Compiled[], fn: (vals: AplValue[]) => AplValue): Compiled {
        if (args.every(a => a.isConst)) return constant(type, fn(args.map(a => a.value ?? null)));
        return {
            type,
            isConst: false,
            run: f => {
                const n = f.length;
                const vecs = args.map(a => a.run(f));
                const b = builderFor(type, n);
                const vals: AplValue[] = new Array(vecs.length);
                for (let i = 0; i < n; i++) {
                    for (let k = 0; k < vecs.length; k++) vals[k] = vget(vecs[k], i);
                    b.push(fn(vals.slice()));
                }
                return { c: false, col: b.build(), sel: null };
            },
        };
    }
}

function refIn(f: Frame, name: string): Vec {
    const col = f.find(name);
    if (!col) throw new Error(`internal: column '${name}' missing`);
    return { c: false, col: col.data, sel: col.sel };
}

function isNum(t: ScalarType): boolean {
    return t === 'long' || t === 'real';
}

export function isTabular(e: ast.Expression): boolean {
    switch (e.$type) {
        case 'Pipeline': case 'DatatableExpression': case 'PrintExpression': case 'UnionExpression': case 'SearchExpression': case 'ExternalDataExpression': return true;
        case 'ParenthesizedExpression': return isTabular((e as ast.ParenthesizedExpression).expression);
        default: return false;
    }
}

function unquoteKey(k: string): string {
    if (/^(["']).*\1$/s.test(k)) return k.slice(1, -1);
    return k;
}

function fillTemplate(t: JsonValue, vals: AplValue[]): JsonValue {
    if (Array.isArray(t)) return t.map(x => fillTemplate(x, vals));
    if (t !== null && typeof t === 'object') {
        const part = (t as { $dynamicPart?: number }).$dynamicPart;
        if (typeof part === 'number') return toJson(vals[part]);
        const o: { [k: string]: JsonValue } = {};
        for (const [k, v] of Object.entries(t)) o[k] = fillTemplate(v, vals);
        return o;
    }
    return t;
}

function pushFlat(out: AplValue[], v: AplValue): void {
    if (Array.isArray(v)) for (const x of v) pushFlat(out, x as AplValue);
    else out.push(v);
}

export function textOf(v: AplValue, lower: boolean): string {
    const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : toText(v);
    return lower ? s.toLowerCase() : s;
}

function triValue(t: Tri): AplValue {
    return t === 2 ? null : t === 1;
}

/** A vector as tri-states (0 false, 1 true, 2 null). */
export function triArray(v: Vec, n: number): Uint8Array {
    if (v.c) return new Uint8Array(n).fill(truthTri(v.v));
    if (v.col instanceof BoolColumn && v.sel === null) return v.col.vals;
    if (v.col instanceof BoolColumn) return gatherBytes(v.col.vals, v.sel!, n);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = truthTri(vget(v, i));
    return out;
}

function accessValue(a: AplValue, k: AplValue): AplValue {
    if (a === null || k === null) return null;
    let obj: unknown = a;
    if (typeof a === 'string') {
        try {
            obj = JSON.parse(a);
        } catch {
            return null;
        }
    }
    if (Array.isArray(obj)) {
        if (typeof k !== 'number') return null;
        const i = k < 0 ? obj.length + k : k;
        const v = obj[Math.trunc(i)];
        return v === undefined ? null : (v as AplValue);
    }
    if (obj !== null && typeof obj === 'object' && !(obj instanceof Datetime) && !(obj instanceof Timespan)) {
        const v = (obj as Record<string, unknown>)[String(k)];
        return v === undefined ? null : (v as AplValue);
    }
    return null;
}

function sliceValue(a: AplValue, s: AplValue, e: AplValue): AplValue {
    if (!Array.isArray(a)) return null;
    const n = a.length;
    let start = typeof s === 'number' ? s : 0;
    let end = typeof e === 'number' ? e : n;
    if (start < 0) start += n;
    if (end < 0) end += n;
    return a.slice(start, end) as AplValue;
}

/** The catalogue's typed-literal cast (`long(x)`), also used for query parameters and datatable cells. */
export const castValue: (v: AplValue, t: ScalarType) => AplValue = castToType;

// ---------------------------------------------------------------------------------------------
// Kernels

function bool(out: Uint8Array, n: number): BoolColumn {
    return new BoolColumn(out, n);
}

/** Applies a string test to a string vector, evaluating each distinct dictionary entry once. */
export function stringPredicateVec(v: Vec, n: number, test: (s: string) => boolean, lower: boolean): Column {
    if (v.c) return new BoolColumn(new Uint8Array(n).fill(test(textOf(v.v, lower)) ? 1 : 0), n);
    const col = v.col;
    if (col instanceof StrColumn) return mapDict(col, v.sel, n, test, lower ? col.lowerDict() : col.dict, test(''));
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = test(textOf(vget(v, i), lower)) ? 1 : 0;
    return bool(out, n);
}

/** out[i] = test(dict[code[i]]), computed per dictionary entry (or per row when the dictionary is much larger). */
function mapDict(col: StrColumn, sel: Uint32Array | null, n: number, test: (s: string) => boolean, dict: string[], nullResult: boolean): BoolColumn {
    const codes = col.codes;
    const nullBit = nullResult ? 1 : 0;
    if (dict.length > 4 * n + 64) {
        const out = new Uint8Array(n);
        const memo = new Map<number, number>();
        for (let i = 0; i < n; i++) {
            const c = codes[sel ? sel[i] : i];
            if (c === 0) {
                out[i] = nullBit;
                continue;
            }
            let r = memo.get(c);
            if (r === undefined) {
                r = test(dict[c]) ? 1 : 0;
                memo.set(c, r);
            }
            out[i] = r;
        }
        return bool(out, n);
    }
    return bool(codesLookup(codes, sel, n, dictTable(dict, test)), n);
}

/** The per-entry table of a string test over a dictionary (entry 0, null, tests as ''). */
function dictTable(dict: string[], test: (s: string) => boolean): Uint8Array {
    const table = new Uint8Array(dict.length);
    table[0] = test('') ? 1 : 0;
    for (let k = 1; k < dict.length; k++) table[k] = test(dict[k]) ? 1 : 0;
    return table;
}

/** stringPredicateVec's true rows, for a string column whose dictionary is not much larger than the rows. */
/** A predicate over a string column's rows as a table over its dictionary (1: the code's rows match). */
interface CodeTable {
    codes: Uint32Array;
    sel: Uint32Array | null;
    table: Uint8Array;
}

const tableRows = (t: CodeTable | undefined, n: number): Uint32Array | undefined => t && tableMatchRows(t.codes, t.sel, n, t.table);
const tableCount = (t: CodeTable | undefined, n: number): number | undefined => t && tableCountRows(t.codes, t.sel, n, t.table);

/** A string predicate's code table: the predicate runs once per dictionary value (not when the dictionary is far larger than the rows). */
function stringPredicateTable(v: Vec, n: number, test: (s: string) => boolean, lower: boolean): CodeTable | undefined {
    if (v.c || !(v.col instanceof StrColumn)) return undefined;
    const dict = lower ? v.col.lowerDict() : v.col.dict;
    if (dict.length > 4 * n + 64) return undefined;
    return { codes: v.col.codes, sel: v.sel, table: dictTable(dict, test) };
}

/** eqConst's code table for a string column: the constant is looked up in the dictionary once. */
function eqConstTable(v: Vec, k: AplValue, neg: boolean): CodeTable | undefined {
    if (v.c || !(v.col instanceof StrColumn) || !(typeof k === 'string' || typeof k === 'number')) return undefined;
    const col = v.col;
    const code = col.codeOf(typeof k === 'string' ? k : toText(k));
    // Null rows (code 0) are false for ==, true for !=, like every other non-matching code.
    const table = new Uint8Array(col.dict.length).fill(neg ? 1 : 0);
    if (code >= 0) table[code] = neg ? 0 : 1;
    return { codes: col.codes, sel: v.sel, table };
}

function eqConst(v: Vec, k: AplValue, n: number, neg: boolean): Column {
    const out = new Uint8Array(n);
    const T = neg ? 0 : 1;
    const F = neg ? 1 : 0;
    if (v.c) return bool(out.fill(neg ? [1, 0, 2][equalsTri(v.v, k)] : equalsTri(v.v, k)), n);
    const col = v.col;
    const sel = v.sel;
    if (k === null) {
        // x == null: null when x is null, else false.
        for (let i = 0; i < n; i++) out[i] = col.isNull(sel ? sel[i] : i) ? 2 : F;
        return bool(out, n);
    }
    if (col instanceof StrColumn && (typeof k === 'string' || typeof k === 'number')) {
        const s = typeof k === 'string' ? k : toText(k);
        const code = col.codeOf(s);
        // Null rows: null == x is false, null != x is true.
        const codes = col.codes;
        if (code < 0) {
            out.fill(F);
            return bool(out, n);
        }
        return bool(codesEqual(codes, sel, n, code, T, F), n);
    }
    if (col instanceof NumColumn && typeof k === 'number') return bool(numEqual(col.vals, col.nulls, sel, n, k, T, F, F), n);
    if (col instanceof TimeColumn && (k instanceof Datetime || k instanceof Timespan)) {
        const [km, ks] = splitNs(k.ns);
        const ms = col.ms;
        const sub = col.sub;
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            const m = ms[j];
            out[i] = m !== m ? F : m === km && sub[j] === ks ? T : F;
        }
        return bool(out, n);
    }
    if (col instanceof BoolColumn && typeof k === 'boolean') {
        const kv = k ? 1 : 0;
        for (let i = 0; i < n; i++) {
            const x = col.vals[sel ? sel[i] : i];
            out[i] = x === 2 ? F : x === kv ? T : F;
        }
        return bool(out, n);
    }
    for (let i = 0; i < n; i++) {
        const t = equalsTri(vget(v, i), k);
        out[i] = neg ? (t === 2 ? 2 : t === 1 ? 0 : 1) : t;
    }
    return bool(out, n);
}

function cmpCode(op: string, c: number): number {
    switch (op) {
        case '<': return c < 0 ? 1 : 0;
        case '<=': return c <= 0 ? 1 : 0;
        case '>': return c > 0 ? 1 : 0;
        default: return c >= 0 ? 1 : 0;
    }
}

function cmpConst(op: string, v: Vec, k: AplValue, n: number): Column {
    const out = new Uint8Array(n);
    if (v.c) return bool(out.fill(compareTri(op, v.v, k)), n);
    if (k === null) return bool(out.fill(2), n);
    const col = v.col;
    const sel = v.sel;
    if (col instanceof NumColumn && typeof k === 'number') return bool(numCompare(col.vals, col.nulls, sel, n, cmpOpCode(op), k), n);
    if (col instanceof TimeColumn && (k instanceof Datetime || k instanceof Timespan)) {
        const [km, ks] = splitNs(k.ns);
        const ms = col.ms;
        const sub = col.sub;
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            const m = ms[j];
            if (m !== m) {
                out[i] = 2;
                continue;
            }
            const c = m < km ? -1 : m > km ? 1 : sub[j] - ks;
            out[i] = cmpCode(op, c);
        }
        return bool(out, n);
    }
    if (col instanceof StrColumn && typeof k === 'string') {
        const table = new Uint8Array(col.dict.length);
        table[0] = 2;
        for (let c = 1; c < col.dict.length; c++) {
            const s = col.dict[c];
            table[c] = cmpCode(op, s < k ? -1 : s > k ? 1 : 0);
        }
        const codes = col.codes;
        for (let i = 0; i < n; i++) out[i] = table[codes[sel ? sel[i] : i]];
        return bool(out, n);
    }
    for (let i = 0; i < n; i++) out[i] = compareTri(op, vget(v, i), k);
    return bool(out, n);
}

const NO_VALS = new Float64Array(0);

/** A number vector as a kernel operand; null for a constant that is not a number (a null). */
function numView(v: Vec): ArithSide | null {
    if (v.c) {
        const x = v.v;
        const k = typeof x === 'number' ? x : typeof x === 'boolean' ? Number(x) : null;
        return k === null ? null : { vals: NO_VALS, nulls: null, sel: null, k, isConst: true };
    }
    const col = v.col as NumColumn;
    return { vals: col.vals, nulls: col.nulls, sel: v.sel, k: 0, isConst: false };
}

function cmpNumNum(op: string, a: Vec, b: Vec, n: number): Column {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = compareTri(op, vget(a, i), vget(b, i));
    return bool(out, n);
}

/** Vectorised numeric arithmetic (long semantics when `rt` is long). */
function numArith(op: string, rt: 'long' | 'real' | ScalarType, a: Vec, b: Vec, n: number): Column {
    if (!(a.c || a.col instanceof NumColumn) || !(b.c || b.col instanceof NumColumn) || arithOpCode(op) < 0) {
        const bld = builderFor(rt, n);
        for (let i = 0; i < n; i++) bld.push(arith(op, vget(a, i), vget(b, i), rt));
        return bld.build();
    }
    const A = numView(a);
    const B = numView(b);
    const vals = new Float64Array(n);
    if (A === null || B === null) {
        return new NumColumn(rt as 'long' | 'real', vals, new Uint8Array(n).fill(1), n);
    }
    const nulls = new Uint8Array(n);
    const nullCount = arithColumns(arithOpCode(op), rt === 'long', A, B, n, vals, nulls);
    return new NumColumn(rt as 'long' | 'real', vals, nullCount > 0 ? nulls : null, n);
}

/** `bin(x, size)` with a constant size over numbers or times. */
function binFast(x: Compiled, size: AplValue): Compiled | undefined {
    if (x.type === 'datetime' || x.type === 'timespan') {
        if (!(size instanceof Timespan) || size.ns <= 0n) return undefined;
        const sizeNs = size.ns;
        const type = x.type;
        if (x.isConst) return undefined;
        return {
            type,
            isConst: false,
            timeBin: sizeNs % 1_000_000n === 0n ? { x, stepMs: Number(sizeNs / 1_000_000n) } : undefined,
            run: f => {
                const v = x.run(f);
                const n = f.length;
                if (v.c || !(v.col instanceof TimeColumn)) {
                    const b = builderFor(type, n);
                    for (let i = 0; i < n; i++) {
                        const val = vget(v, i);
                        if (val instanceof Datetime || val instanceof Timespan) {
                            const q = floorDivBig(val.ns, sizeNs) * sizeNs;
                            b.push(type === 'datetime' ? new Datetime(q) : new Timespan(q));
                        } else b.push(null);
                    }
                    return { c: false, col: b.build(), sel: null };
                }
                const col = v.col;
                const sel = v.sel;
                const sub = new Int32Array(n);
                // Whole milliseconds: the sub-millisecond part never crosses a bin edge.
                if (sizeNs % 1_000_000n === 0n) return { c: false, col: new TimeColumn(type, binMs(col.ms, sel, n, Number(sizeNs / 1_000_000n)), sub, n), sel: null };
                const ms = new Float64Array(n);
                for (let i = 0; i < n; i++) {
                    const j = sel ? sel[i] : i;
                    const m = col.ms[j];
                    if (m !== m) {
                        ms[i] = NaN;
                        continue;
                    }
                    const q = floorDivBig(BigInt(m) * 1_000_000n + BigInt(col.sub[j]), sizeNs) * sizeNs;
                    const [a, b] = splitNs(q);
                    ms[i] = a;
                    sub[i] = b;
                }
                return { c: false, col: new TimeColumn(type, ms, sub, n), sel: null };
            },
        };
    }
    if ((x.type === 'long' || x.type === 'real') && typeof size === 'number' && size > 0 && !x.isConst) {
        const rt: 'long' | 'real' = x.type === 'real' || !Number.isInteger(size) ? 'real' : 'long';
        return {
            type: rt,
            isConst: false,
            run: f => {
                const v = x.run(f);
                const n = f.length;
                if (v.c || !(v.col instanceof NumColumn)) {
                    const b = builderFor(rt, n);
                    for (let i = 0; i < n; i++) {
                        const val = vget(v, i);
                        b.push(typeof val === 'number' ? Math.floor(val / size) * size : null);
                    }
                    return { c: false, col: b.build(), sel: null };
                }
                const col = v.col;
                const sel = v.sel;
                const out = new Float64Array(n);
                let nulls: Uint8Array | null = null;
                for (let i = 0; i < n; i++) {
                    const j = sel ? sel[i] : i;
                    if (col.nulls !== null && col.nulls[j] === 1) {
                        nulls ??= new Uint8Array(n);
                        nulls[i] = 1;
                        continue;
                    }
                    out[i] = Math.floor(col.vals[j] / size) * size;
                }
                return { c: false, col: new NumColumn(rt, out, nulls, n), sel: null };
            },
        };
    }
    return undefined;
}

function floorDivBig(a: bigint, b: bigint): bigint {
    const q = a / b;
    return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}
