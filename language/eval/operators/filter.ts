/** where, search, sample, distinct: operators that keep some of the input rows. */
import type * as ast from '../../generated/ast.js';
import { BoolColumn } from '../columns.js';
import { errorAt, unsupportedAt } from '../errors.js';
import { type Compiled, ExprCompiler, type QueryEnv, type Vec, compileExpr, constant, compileKey, keyName, type ColumnKey, type KeyExpr, stringPredicateVec, triArray } from '../expr.js';
import { Frame, type FrameCol, selectRows } from '../frame.js';
import { groupRows, keyColumn } from '../aggregate.js';
import { searchTermPredicate, truthTri } from '../scalar-ops.js';
import type { RunState } from '../query.js';
import { emptyFrame, optionValue, type OperatorImpls } from './common.js';
import { countTrue, trueIndexes } from '../kernels/select.js';

export const FILTER_OPERATORS = {
    WhereOperator: (op, frame, env) => filterBy(frame, compileExpr(op.predicate, frame, env)),
    SearchOperator: (op, frame, env) => {
        if (op.tables.length > 0) throw unsupportedAt(op, "'search in (...)' after a pipe; use it as the first operator");
        return search(frame, op.predicate, op.options, env);
    },
    SampleOperator: (op, frame, env, state) => sample(frame, op, env, state),
    DistinctOperator: (op, frame, env) => distinct(frame, op.columns, env),
} satisfies OperatorImpls<'WhereOperator' | 'SearchOperator' | 'SampleOperator' | 'DistinctOperator'>;

export function filterBy(frame: Frame, pred: Compiled): Frame {
    const n = frame.length;
    const rows = pred.matchRows?.(frame);
    if (rows) return rows.length === n ? frame : selectRows(frame, rows);
    const v = pred.run(frame);
    if (v.c) return truthTri(v.v) === 1 ? frame : selectRows(frame, new Uint32Array(0));
    const t = triArray(v, n);
    const m = countTrue(t, n);
    if (m === n) return frame;
    return selectRows(frame, trueIndexes(t, n, m));
}

export function search(frame: Frame, predicate: ast.Expression, options: readonly ast.OperatorOption[], env: QueryEnv): Frame {
    const kind = optionValue(options, 'kind');
    const cs = kind === 'case_sensitive';
    const comp = new ExprCompiler(frame, env);
    const build = (e: ast.Expression): Compiled => {
        switch (e.$type) {
            case 'StarExpression': return constant('bool', true);
            case 'StringLiteral': {
                const pred = searchTermPredicate((e as ast.StringLiteral).value, cs);
                return {
                    type: 'bool',
                    isConst: false,
                    run: f => {
                        const n = f.length;
                        const out = new Uint8Array(n);
                        for (const c of f.visible()) {
                            const v: Vec = { c: false, col: c.data, sel: c.sel };
                            const r = stringPredicateVec(v, n, pred, false) as BoolColumn;
                            for (let i = 0; i < n; i++) if (r.vals[i] === 1) out[i] = 1;
                        }
                        return { c: false, col: new BoolColumn(out, n), sel: null };
                    },
                };
            }
            case 'ParenthesizedExpression': return build((e as ast.ParenthesizedExpression).expression);
            case 'NotExpression': return comp.not(build((e as ast.NotExpression).operand));
            case 'BinaryExpression': {
                const b = e as ast.BinaryExpression;
                if (b.operator === 'and' || b.operator === 'or') return comp.logical(b.operator, build(b.left), build(b.right as ast.Expression));
                if (b.operator.startsWith(':')) {
                    const left = comp.compile(b.left);
                    const pred = searchTermPredicate((b.right as ast.StringLiteral).value, cs);
                    return { type: 'bool', isConst: false, run: f => ({ c: false, col: stringPredicateVec(left.run(f), f.length, pred, false), sel: null }) };
                }
                return comp.compile(e);
            }
            default:
                return comp.compile(e);
        }
    };
    return filterBy(frame, build(predicate));
}

function sample(frame: Frame, op: ast.SampleOperator, env: QueryEnv, state: RunState): Frame {
    const c = compileExpr(op.value, emptyFrame(), env);
    if (!c.isConst || typeof c.value !== 'number') throw errorAt(op.value, 'sample expects a constant proportion between 0 and 1');
    const p = c.value;
    if (!(p >= 0 && p <= 1)) throw errorAt(op.value, `sample takes a proportion between 0 and 1 (Axiom), got ${p}`);
    let s = (state.opts.seed ?? 1) >>> 0;
    const rand = () => {
        // mulberry32
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const idx: number[] = [];
    for (let i = 0; i < frame.length; i++) if (rand() < p) idx.push(i);
    return selectRows(frame, Uint32Array.from(idx));
}

function distinct(frame: Frame, columns: readonly ast.Expression[], env: QueryEnv): Frame {
    let exprs: readonly KeyExpr[] = columns;
    if (columns.length === 1 && columns[0].$type === 'StarExpression') {
        exprs = frame.visible().map((c): ColumnKey => ({ column: c.name }));
    }
    const compiled = exprs.map(e => compileKey(e, frame, env));
    const vecs = compiled.map(c => c.run(frame));
    const g = groupRows(vecs, frame.length);
    const cols: FrameCol[] = compiled.map((c, k) => ({
        name: keyName(exprs[k]) ?? `Column${k + 1}`,
        type: c.type,
        data: keyColumn(vecs[k], c.type, g.first),
        sel: null,
    }));
    return new Frame(cols, g.count, { groups: cols.map(c => c.name) });
}

// ---------------------------------------------------------------------------------------------
// summarize
