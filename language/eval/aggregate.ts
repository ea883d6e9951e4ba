/**
 * Grouping and aggregation: group ids from key vectors (dictionary codes for strings, hash maps
 * for the rest), then one pass per aggregation: the aggregation's columnar fast path when it has
 * one (AGGREGATE_FAST_PATHS in aggregate-fast-paths.ts, keyed by catalogue entry name) and the
 * input qualifies, else the catalogue's accumulator per group.
 */
import type { AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import { argumentTypeProblem, lookupAggregate, type AggregateFunction, type EvalContext } from '../builtins/index.js';
import { Issues } from '../apl-issue-codes.js';
import { compareValues, canonicalKey } from '../runtime-values.js';
import { Datetime, Timespan, type AplValue, type JsonValue } from '../values.js';
import { BoolColumn, type Column, NumColumn, type ScalarType, StrColumn, TimeColumn, builderFor, columnFromValues } from './columns.js';
import { errorAt, unsupportedAt } from './errors.js';
import { AGGREGATE_FAST_PATHS } from './aggregate-fast-paths.js';
import { binnedNsGroupIds, binnedTimeGroupIds, byteGroupIds, codeGroupIds, combineIdsDense, denseGroupIds, denseKeyRange, firstRows } from './kernels/group.js';
import { composeSel } from './kernels/select.js';
import { allZero, ascendingPerm } from './kernels/sort.js';
import { binMs, splitTimeWords } from './kernels/time.js';
import { type Compiled, type QueryEnv, type Vec, compileColumnRef, compileExpr, defaultName, normType, vget } from './expr.js';
import { aggregationArgumentNames } from '../column-names.js';
import { Frame, type AggInfo } from './frame.js';

// ---------------------------------------------------------------------------------------------
// Group ids

/**
 * A time column binned by whole milliseconds, `bin(t, step)`, as a group key: rows are grouped by
 * floor(ms / step) straight from the column, and only each group's key is binned.
 */
export interface BinnedTimeKey {
    binned: TimeColumn;
    sel: Uint32Array | null;
    stepMs: number;
    /** The type of `bin(t, step)`: t's. */
    type: 'datetime' | 'timespan';
}

/** What rows are grouped by: a key's values, or a binned time column. */
export type KeyInput = Vec | BinnedTimeKey;

function isBinned(k: KeyInput): k is BinnedTimeKey {
    return 'binned' in k;
}

/** The values of a binned time key, computed (the fallback when the bins do not fit a table). */
export function binnedValues(k: BinnedTimeKey, n: number): Vec {
    return { c: false, col: new TimeColumn(k.type, binMs(k.binned.ms, k.sel, n, k.stepMs), new Int32Array(n), n), sel: null };
}

export interface Grouping {
    gids: Uint32Array;
    count: number;
    /** Logical row of each group's first row. */
    first: Uint32Array;
}

/** Group ids of one key; `first` (each group's first row) when the kernel noted it on the way. */
function keyIds(key: KeyInput, n: number, stepMs?: number): { ids: Uint32Array; card: number; first?: Uint32Array } {
    const ids = new Uint32Array(n);
    if (isBinned(key)) {
        const maxBins = (1 << 20) + 1;
        const words = key.binned.nsWords;
        const bins = words ? binnedNsGroupIds(words, key.sel, n, key.stepMs, maxBins, ids) : binnedTimeGroupIds(key.binned.ms, key.sel, n, key.stepMs, maxBins, ids);
        return bins ? { ids, card: bins.card, first: bins.first } : keyIds(binnedValues(key, n), n, key.stepMs);
    }
    const v = key;
    if (v.c) return { ids, card: 1 };
    const col = v.col;
    const sel = v.sel;
    if (col instanceof StrColumn) {
        const first = new Uint32Array(col.dict.length);
        const card = codeGroupIds(col.codes, sel, n, col.dict.length, ids, first);
        return { ids, card, first: first.slice(0, card) };
    }
    if (col instanceof BoolColumn) return { ids, card: byteGroupIds(col.vals, sel, n, ids) };
    if ((col instanceof NumColumn || col instanceof TimeColumn) && n > 0) {
        const dense = denseKeyIds(col, sel, n, stepMs, ids);
        if (dense >= 0) return { ids, card: dense };
    }
    if (col instanceof NumColumn || col instanceof TimeColumn) {
        const map = new Map<number, number>();
        let nullId = -1;
        let card = 0;
        const vals = col instanceof NumColumn ? col.vals : col.ms;
        const nulls = col instanceof NumColumn ? col.nulls : null;
        const sub = col instanceof TimeColumn ? col.sub : null;
        let subMap: Map<string, number> | undefined;
        for (let i = 0; i < n; i++) {
            const j = sel ? sel[i] : i;
            const x = vals[j];
            if ((nulls !== null && nulls[j] === 1) || x !== x) {
                if (nullId < 0 && (nulls !== null || sub !== null)) nullId = card++;
                if (nulls !== null || sub !== null) {
                    ids[i] = nullId;
                    continue;
                }
            }
            if (sub !== null && sub[j] !== 0) {
                subMap ??= new Map();
                const k = `${x}:${sub[j]}`;
                let g = subMap.get(k);
                if (g === undefined) subMap.set(k, (g = card++));
                ids[i] = g;
                continue;
            }
            let g = map.get(x);
            if (g === undefined) map.set(x, (g = card++));
            ids[i] = g;
        }
        return { ids, card };
    }
    const map = new Map<string, number>();
    let card = 0;
    for (let i = 0; i < n; i++) {
        const x = col.get(sel ? sel[i] : i);
        const k = x === null ? '\u0000' : canonicalKey(x as AplValue);
        let g = map.get(k);
        if (g === undefined) map.set(k, (g = card++));
        ids[i] = g;
    }
    return { ids, card };
}

/**
 * Integer-valued numeric keys (or times binned by `stepMs`) in a small range: ids through a dense
 * table instead of a hash map. Returns the cardinality, or -1 when the keys do not qualify.
 */
function denseKeyIds(col: NumColumn | TimeColumn, sel: Uint32Array | null, n: number, stepMs: number | undefined, ids: Uint32Array): number {
    const vals = col instanceof NumColumn ? col.vals : col.ms;
    const nulls = col instanceof NumColumn ? col.nulls : null;
    const sub = col instanceof TimeColumn ? col.sub : null;
    const step = stepMs && stepMs > 0 ? stepMs : 1;
    const range2 = new Float64Array(2);
    if (!denseKeyRange(vals, nulls, sub, sel, n, range2)) return -1;
    const min = range2[0];
    const range = (range2[1] - min) / step;
    if (!(range <= 1 << 20) || !Number.isInteger(range)) return -1;
    return denseGroupIds(vals, sel, n, min, step, range + 1, ids);
}

/** Group ids over several key vectors; groups are numbered in order of first appearance. */
export function groupRows(keys: readonly KeyInput[], n: number, stepsMs: (number | undefined)[] = []): Grouping {
    if (keys.length === 0) {
        return { gids: new Uint32Array(n), count: n > 0 ? 1 : 0, first: new Uint32Array(n > 0 ? 1 : 0) };
    }
    const one = keyIds(keys[0], n, stepsMs[0]);
    if (keys.length === 1 && one.first) return { gids: one.ids, count: one.card, first: one.first };
    let { ids, card } = one;
    for (let k = 1; k < keys.length; k++) {
        const next = keyIds(keys[k], n, stepsMs[k]);
        const out = new Uint32Array(n);
        let count = 0;
        if (card * next.card <= 1 << 22) count = combineIdsDense(ids, next.ids, next.card, n, card * next.card, out);
        else {
            const map = new Map<number, number>();
            for (let i = 0; i < n; i++) {
                const key = ids[i] * next.card + next.ids[i];
                let g = map.get(key);
                if (g === undefined) map.set(key, (g = count++));
                out[i] = g;
            }
        }
        ids = out;
        card = count;
    }
    return { gids: ids, count: card, first: firstRows(ids, n, card) };
}

// ---------------------------------------------------------------------------------------------
// Aggregation specs

export interface AggSpec {
    node: ast.FunctionCall;
    fn: AggregateFunction;
    args: Compiled[];
    /** For arg_max/arg_min: extra output columns (name + compiled). */
    extras?: { name: string; expr: Compiled }[];
    outName: string;
    outType: ScalarType;
    info: AggInfo;
}

const ORDER_INSENSITIVE = new Set([
    'count', 'countif', 'sum', 'sumif', 'avg', 'avgif', 'min', 'max', 'minif', 'maxif', 'dcount', 'dcountif', 'percentile',
    'percentileif', 'percentiles_array', 'percentiles_arrayif', 'stdev', 'stdevif', 'variance', 'varianceif', 'histogram',
    'histogramif', 'rate', 'topk', 'topkif',
]);

export function aggregateIsOrderInsensitive(name: string): boolean {
    return ORDER_INSENSITIVE.has(name);
}

/** The aggregate calls in an expression (not descending into an aggregate's own arguments). */
export function findAggregateCalls(e: ast.Expression | AstNode, out: ast.FunctionCall[] = []): ast.FunctionCall[] {
    const node = e as ast.Expression;
    if (node.$type === 'FunctionCall' && lookupAggregate((node as ast.FunctionCall).function)) {
        out.push(node as ast.FunctionCall);
        return out;
    }
    for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('$')) continue;
        if (Array.isArray(value)) for (const v of value) if (v && typeof v === 'object' && '$type' in v) findAggregateCalls(v as ast.Expression, out);
        if (value && typeof value === 'object' && '$type' in value) findAggregateCalls(value as ast.Expression, out);
    }
    return out;
}

export function compileAggregate(call: ast.FunctionCall, outName: string | undefined, frame: Frame, env: QueryEnv): AggSpec {
    const fn = lookupAggregate(call.function)!;
    if (!fn.accumulator) throw unsupportedAt(call, `the aggregation '${fn.name}'${fn.unsupported ? ` (${fn.unsupported})` : ''}`);
    const isArg = fn.name === 'arg_max' || fn.name === 'arg_min';
    const argNodes = call.arguments;
    const args: Compiled[] = [];
    const extras: { name: string; expr: Compiled }[] = [];
    if (isArg) {
        if (argNodes.length < 1) throw errorAt(call, `${fn.name} expects an expression`);
        args.push(compileExpr(argNodes[0].expression, frame, env));
        const firstName = argNodes[0].name ?? defaultName(argNodes[0].expression);
        for (const a of argNodes.slice(1)) {
            if (a.expression.$type === 'StarExpression') {
                for (const c of frame.visible()) {
                    if (c.name === firstName) continue;
                    extras.push({ name: c.name, expr: compileColumnRef(c.name, frame, env) });
                }
                continue;
            }
            const name = a.name ?? defaultName(a.expression);
            if (!name) throw errorAt(a, `name the extra expression of ${fn.name} (Name = Expr)`);
            extras.push({ name, expr: compileExpr(a.expression, frame, env) });
        }
    } else {
        for (const a of argNodes) args.push(compileExpr(a.expression, frame, env));
    }
    const argTypes = args.map(a => a.type);
    // The checker's rule (builtins/index.ts): `sum(units)` over a string field fails as in `apl check`
    // (APL0003) instead of summing to a silent 0.
    const problem = argumentTypeProblem(fn.signatures, argTypes);
    if (problem) {
        const message = Issues.ArgumentTypeMismatch.message({ name: fn.name, position: problem.index + 1, expected: problem.expected, actual: argTypes[problem.index] });
        throw errorAt(argNodes[problem.index] ?? call, message.replace(/\.$/, ''));
    }
    const outType = normType(typeof fn.returns === 'function' ? fn.returns(argTypes) : fn.returns);
    const shared = aggregationArgumentNames(call, defaultName);
    const argNames = argNodes.map((a, i) => a.name ?? shared[i] ?? '');
    const name = outName ?? (isArg ? argNodes[0].name ?? defaultName(argNodes[0].expression) ?? fn.defaultColumnName(argNames) : fn.defaultColumnName(argNames));
    const fields: string[] = [];
    const constArgs: JsonValue[] = [];
    argNodes.forEach((a, i) => {
        const d = defaultName(a.expression);
        if (d && !args[i]?.isConst) fields.push(d);
        else if (args[i]?.isConst) constArgs.push(jsonOfConst(args[i].value ?? null));
    });
    return {
        node: call,
        fn,
        args,
        extras: isArg ? extras : undefined,
        outName: name,
        outType,
        info: { name: fn.axiomAggName ?? 'computed', fields, args: constArgs },
    };
}

function jsonOfConst(v: AplValue): JsonValue {
    if (v instanceof Datetime || v instanceof Timespan) return v.toJSON();
    return v as JsonValue;
}

// ---------------------------------------------------------------------------------------------
// Running aggregations

export interface AggContext {
    env: QueryEnv;
    /** Per-group time windows for rate(): [start, end) in ns. */
    windows?: (g: number) => { start: bigint; end: bigint } | undefined;
}

/** Computes one aggregation over grouped rows: one output column per spec (+ extras for arg_*). */
export function runAggregate(spec: AggSpec, frame: Frame, grouping: Grouping, actx: AggContext): Column[] {
    const n = frame.length;
    const { gids, count: G } = grouping;
    const vecs = spec.args.map(a => a.run(frame));
    const fast = AGGREGATE_FAST_PATHS.get(spec.fn.name)?.(vecs, gids, G, n, spec.outType);
    if (fast) return [fast];
    // Generic: the catalogue accumulator per group.
    const acc = spec.fn.accumulator!;
    const states: unknown[] = new Array(G);
    for (let g = 0; g < G; g++) states[g] = acc.init();
    const extraVecs = (spec.extras ?? []).map(e => e.expr.run(frame));
    const nv = vecs.length;
    const width = nv + extraVecs.length;
    const vals: AplValue[] = new Array(width);
    for (let i = 0; i < n; i++) {
        for (let k = 0; k < nv; k++) vals[k] = vget(vecs[k], i);
        for (let k = 0; k < extraVecs.length; k++) vals[nv + k] = vget(extraVecs[k], i);
        const g = gids[i];
        const next = acc.add(states[g], vals.slice());
        if (next !== undefined) states[g] = next;
    }
    const argTypes = spec.args.map(a => a.type);
    const baseCtx: EvalContext = { argTypes, resultType: spec.outType, now: actx.env.now, startTime: actx.env.startTime, endTime: actx.env.endTime };
    const results: AplValue[] = new Array(G);
    for (let g = 0; g < G; g++) {
        const w = actx.windows?.(g);
        const ctx = w ? { ...baseCtx, startTime: w.start, endTime: w.end } : baseCtx;
        const r = acc.result(states[g], ctx);
        results[g] = r === undefined ? null : r;
    }
    if (spec.extras) {
        // arg_max / arg_min: the result is the whole argument row.
        const cols: Column[] = [];
        const width2 = 1 + spec.extras.length;
        for (let k = 0; k < width2; k++) {
            const type = k === 0 ? spec.outType : spec.extras[k - 1].expr.type;
            const src = k === 0 ? 0 : nv + k - 1;
            cols.push(columnFromValues(type, results.map(r => (Array.isArray(r) ? ((r as AplValue[])[src] ?? null) : null))));
        }
        return cols;
    }
    return [columnFromValues(spec.outType, results)];
}

// ---------------------------------------------------------------------------------------------
// Key columns and group ordering

/** Gathers the key value of each group (from its first row). */
export function keyColumn(v: KeyInput, type: ScalarType, first: Uint32Array): Column {
    const G = first.length;
    if (isBinned(v)) {
        const rows = v.sel ? composeSel(v.sel, first) : first;
        const words = v.binned.nsWords;
        if (words) {
            // Only the groups' first rows are split (the column's own arrays stay unmade).
            const ms = new Float64Array(G);
            splitTimeWords(words, rows, G, ms, new Int32Array(G), 0, 0);
            return new TimeColumn(v.type, binMs(ms, null, G, v.stepMs), new Int32Array(G), G);
        }
        return new TimeColumn(v.type, binMs(v.binned.ms, rows, G, v.stepMs), new Int32Array(G), G);
    }
    if (!v.c && v.col instanceof StrColumn) {
        const codes = new Uint32Array(G);
        for (let g = 0; g < G; g++) codes[g] = v.col.codes[v.sel ? v.sel[first[g]] : first[g]];
        return new StrColumn(codes, v.col.dict, G, v.col.index);
    }
    if (!v.c && v.col instanceof TimeColumn) {
        const ms = new Float64Array(G);
        const sub = new Int32Array(G);
        for (let g = 0; g < G; g++) {
            const j = v.sel ? v.sel[first[g]] : first[g];
            ms[g] = v.col.ms[j];
            sub[g] = v.col.sub[j];
        }
        return new TimeColumn(v.col.type, ms, sub, G);
    }
    const b = builderFor(type, G);
    for (let g = 0; g < G; g++) b.push(vget(v, first[g]));
    return b.build();
}

/** A permutation of groups sorted by their key columns ascending (nulls first). */
export function sortGroupsByKeys(keys: Column[], G: number): Uint32Array {
    const perm = new Uint32Array(G);
    for (let g = 0; g < G; g++) perm[g] = g;
    if (keys.length === 0 || G < 2) return perm;
    // One number or whole-millisecond time key: group keys are distinct, so a value order suffices.
    const k0 = keys[0];
    if (keys.length === 1 && k0 instanceof NumColumn && k0.nulls === null) return ascendingPerm(k0.vals, G) ?? sortGroupsByComparators(keys, perm);
    if (keys.length === 1 && k0 instanceof TimeColumn && allZero(k0.sub, G)) return ascendingPerm(k0.ms, G) ?? sortGroupsByComparators(keys, perm);
    return sortGroupsByComparators(keys, perm);
}

function sortGroupsByComparators(keys: Column[], perm: Uint32Array): Uint32Array {
    const cmps = keys.map(k => comparatorFor(k, false, 'first'));
    perm.sort((a, b) => {
        for (const c of cmps) {
            const r = c(a, b);
            if (r !== 0) return r;
        }
        return a - b;
    });
    return perm;
}

/** A comparator over two physical rows of a column (nulls first or last, then value order). */
export function comparatorFor(col: Column, desc: boolean, nulls: 'first' | 'last'): (a: number, b: number) => number {
    const sgn = desc ? -1 : 1;
    const nullCmp = nulls === 'first' ? -1 : 1;
    if (col instanceof NumColumn) {
        const v = col.vals;
        const nl = col.nulls;
        return (a, b) => {
            if (nl !== null) {
                const na = nl[a] === 1;
                const nb = nl[b] === 1;
                if (na || nb) return na && nb ? 0 : na ? nullCmp : -nullCmp;
            }
            const x = v[a];
            const y = v[b];
            if (x === y) return 0;
            if (x !== x) return y !== y ? 0 : sgn;
            if (y !== y) return -sgn;
            return x < y ? -sgn : sgn;
        };
    }
    if (col instanceof TimeColumn) {
        const m = col.ms;
        const s = col.sub;
        return (a, b) => {
            const x = m[a];
            const y = m[b];
            const na = x !== x;
            const nb = y !== y;
            if (na || nb) return na && nb ? 0 : na ? nullCmp : -nullCmp;
            if (x !== y) return x < y ? -sgn : sgn;
            const d = s[a] - s[b];
            return d === 0 ? 0 : d < 0 ? -sgn : sgn;
        };
    }
    if (col instanceof StrColumn) {
        const dict = col.dict;
        // Rank the dictionary once: integer compares in the sort.
        const order = Array.from({ length: dict.length - 1 }, (_, k) => k + 1).sort((a, b) => (dict[a] < dict[b] ? -1 : dict[a] > dict[b] ? 1 : 0));
        const rank = new Uint32Array(dict.length);
        let r = 0;
        for (let k = 0; k < order.length; k++) {
            if (k > 0 && dict[order[k]] !== dict[order[k - 1]]) r++;
            rank[order[k]] = r;
        }
        const codes = col.codes;
        return (a, b) => {
            const ca = codes[a];
            const cb = codes[b];
            if (ca === 0 || cb === 0) return ca === cb ? 0 : ca === 0 ? nullCmp : -nullCmp;
            const d = rank[ca] - rank[cb];
            return d === 0 ? 0 : d < 0 ? -sgn : sgn;
        };
    }
    if (col instanceof BoolColumn) {
        const v = col.vals;
        return (a, b) => {
            const x = v[a];
            const y = v[b];
            if (x === 2 || y === 2) return x === y ? 0 : x === 2 ? nullCmp : -nullCmp;
            return x === y ? 0 : x < y ? -sgn : sgn;
        };
    }
    return (a, b) => {
        const x = col.get(a);
        const y = col.get(b);
        if (x === null || y === null) return x === y ? 0 : x === null ? nullCmp : -nullCmp;
        return sgn * compareValues(x as never, y as never);
    };
}

/** Applies a group permutation to a column. */
export function permute(col: Column, perm: Uint32Array): Column {
    let identity = true;
    for (let i = 0; i < perm.length; i++) if (perm[i] !== i) {
        identity = false;
        break;
    }
    if (identity) return col;
    if (col instanceof NumColumn) {
        const v = new Float64Array(perm.length);
        const nl = col.nulls ? new Uint8Array(perm.length) : null;
        for (let i = 0; i < perm.length; i++) {
            v[i] = col.vals[perm[i]];
            if (nl) nl[i] = col.nulls![perm[i]];
        }
        return new NumColumn(col.type, v, nl, perm.length);
    }
    if (col instanceof StrColumn) {
        const c = new Uint32Array(perm.length);
        for (let i = 0; i < perm.length; i++) c[i] = col.codes[perm[i]];
        return new StrColumn(c, col.dict, perm.length, col.index);
    }
    if (col instanceof TimeColumn) {
        const m = new Float64Array(perm.length);
        const s = new Int32Array(perm.length);
        for (let i = 0; i < perm.length; i++) {
            m[i] = col.ms[perm[i]];
            s[i] = col.sub[perm[i]];
        }
        return new TimeColumn(col.type, m, s, perm.length);
    }
    const vals: AplValue[] = [];
    for (let i = 0; i < perm.length; i++) vals.push(col.get(perm[i]));
    return columnFromValues(col.type, vals);
}

