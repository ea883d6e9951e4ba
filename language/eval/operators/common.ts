/**
 * What every tabular operator module shares: the shape of an operator's implementation (the
 * dispatch table in operators/index.ts is keyed by the AST node's `$type`) and small helpers
 * (constant arguments, `with...` options, column naming, glob patterns, cell coercion).
 */
import type * as ast from '../../generated/ast.js';
import { Datetime, Timespan, parseDatetime, parseGoDuration, type AplValue } from '../../values.js';
import { type ScalarType } from '../columns.js';
import { errorAt } from '../errors.js';
import { QueryBudget } from '../budget.js';
import { type QueryEnv, castValue, compileExpr } from '../expr.js';
import { Frame, type FrameCol } from '../frame.js';
import { toJson } from '../../runtime-values.js';
import type { RunState } from '../query.js';
import { compileGlob, type LinearRegex } from '../../builtins/functions-text-helpers.js';

/** The `$type` of every tabular operator the grammar produces. */
export type OperatorType = ast.TabularOperator['$type'];

/** Runs one operator over its input frame. */
export type OperatorImpl<T extends OperatorType = OperatorType> = (op: Extract<ast.TabularOperator, { $type: T }>, frame: Frame, env: QueryEnv, state: RunState) => Frame;

/** Implementations for the operators `T` (a family module's part of the dispatch table). */
export type OperatorImpls<T extends OperatorType> = { readonly [K in T]: OperatorImpl<K> };

export function emptyFrame(n = 1): Frame {
    return new Frame([], n);
}

export function constLong(e: ast.Expression, env: QueryEnv, what: string): number {
    const c = compileExpr(e, emptyFrame(), env);
    if (!c.isConst || typeof c.value !== 'number') throw errorAt(e, `${what} expects a constant number`);
    return Math.max(0, Math.trunc(c.value));
}

export function optionValue(options: readonly ast.OperatorOption[], name: string): AplValue | undefined {
    const o = options.find(x => x.name === name);
    if (!o) return undefined;
    const v = o.value;
    if (v.$type === 'OptionNameValue') return (v as ast.OptionNameValue).name;
    if (v.literal) {
        const c = compileExpr(v.literal as ast.Expression, emptyFrame(), { bindings: new Map(), now: 0n, evalTable: () => emptyFrame(), budget: new QueryBudget() });
        return c.value ?? null;
    }
    return undefined;
}

export function uniqueName(cols: FrameCol[], name: string): string {
    if (!cols.some(c => c.name === name)) return name;
    for (let k = 1; ; k++) if (!cols.some(c => c.name === `${name}${k}`)) return `${name}${k}`;
}

/** A column or dataset wildcard (`req*`, `['a.b']*`) as a linear-time matcher (names come from data). */
export function globToRegex(pattern: string): LinearRegex {
    let p = pattern;
    const m = /^\[\s*(['"])(.*)\1\s*\]\*?$/.exec(p.endsWith('*') ? p.slice(0, -1) : p);
    if (m) p = m[2] + (pattern.endsWith('*') ? '*' : '');
    return compileGlob(p);
}

export function coerceCell(v: AplValue, t: ScalarType): AplValue {
    if (v === null) return null;
    switch (t) {
        case 'datetime':
            if (v instanceof Datetime) return v;
            if (typeof v === 'string') {
                const ns = parseDatetime(v);
                return ns === undefined ? null : new Datetime(ns);
            }
            if (typeof v === 'number') return new Datetime(BigInt(Math.trunc(v)));
            return null;
        case 'timespan':
            if (v instanceof Timespan) return v;
            if (typeof v === 'string') {
                const ns = parseGoDuration(v);
                return ns === undefined ? null : new Timespan(ns);
            }
            return castValue(v, 'timespan');
        case 'dynamic':
            return v instanceof Datetime || v instanceof Timespan ? v : (toJson(v) as AplValue);
        default:
            return castValue(v, t);
    }
}
