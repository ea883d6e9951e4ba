/** summarize, make-series and count: operators that aggregate rows into groups. */
import { type AstNode } from 'langium';
import type * as ast from '../../generated/ast.js';
import { Datetime, Timespan, type AplValue } from '../../values.js';
import { lookupAggregate, autoBinSizeFor } from '../../builtins/index.js';
import { type Column, DynColumn, NumColumn, TimeColumn, columnFromValues } from '../columns.js';
import { errorAt, unsupportedAt } from '../errors.js';
import { type Compiled, type QueryEnv, type Vec, compileExpr, defaultName, vecToFrameCol, vget } from '../expr.js';
import { Frame, type FrameCol, type FrameMeta, selectRows } from '../frame.js';
import { type AggSpec, type BinnedTimeKey, type KeyInput, compileAggregate, findAggregateCalls, groupRows, keyColumn, permute, runAggregate, sortGroupsByKeys } from '../aggregate.js';
import { toJson } from '../../runtime-values.js';
import type { RunState } from '../query.js';
import { emptyFrame, uniqueName, type OperatorImpls } from './common.js';

export const AGGREGATE_OPERATORS = {
    SummarizeOperator: (op, frame, env, state) => summarize(frame, op, env, state),
    MakeSeriesOperator: (op, frame, env, state) => makeSeries(frame, op, env, state),
    CountOperator: (_op, frame, _env, state) => {
        state.stats.rowsMatched ??= frame.length;
        return new Frame([{ name: 'count', type: 'long', data: new NumColumn('long', Float64Array.of(frame.length), null, 1), sel: null, agg: { name: 'count', fields: [], args: [] } }], 1);
    },
} satisfies OperatorImpls<'SummarizeOperator' | 'MakeSeriesOperator' | 'CountOperator'>;

export interface GroupKey {
    name: string;
    compiled: Compiled;
    /** The key's values, computed on first use (a binned time key groups without them). */
    readonly vec: Vec;
    /** What to group by: `vec`, or for bin(t, whole ms) the time column itself. */
    readonly input: KeyInput;
    /** bin(_time, size) / bin_auto(_time): the bucket size in ns. */
    timeBucket?: bigint;
}

export function groupKeys(frame: Frame, groups: readonly ast.NamedExpression[], env: QueryEnv): GroupKey[] {
    let k = 0;
    return groups.map(ne => {
        // The checker accepts it (Axiom does: `summarize count() by histogram(x, 10)`); this evaluator cannot run it.
        const aggregation = findAggregateCalls(ne.expression)[0];
        if (aggregation) throw unsupportedAt(aggregation, `an aggregation ('${aggregation.function}') as a summarize key`);
        const compiled = compileExpr(ne.expression, frame, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        let timeBucket: bigint | undefined;
        const e = ne.expression;
        if (e.$type === 'FunctionCall') {
            const call = e as ast.FunctionCall;
            const arg0 = call.arguments[0]?.expression;
            if (arg0 && compiled.type === 'datetime') {
                if ((call.function === 'bin' || call.function === 'floor') && call.arguments.length === 2) {
                    const s = compileExpr(call.arguments[1].expression, frame, env);
                    if (s.isConst && s.value instanceof Timespan) timeBucket = s.value.ns;
                } else if (call.function === 'bin_auto') {
                    timeBucket = autoBinSize(env);
                }
            }
        }
        let vec: Vec | undefined;
        let input: KeyInput | undefined;
        const bin = timeBucket !== undefined ? compiled.timeBin : undefined;
        return {
            name,
            compiled,
            timeBucket,
            get vec(): Vec {
                return (vec ??= compiled.run(frame));
            },
            get input(): KeyInput {
                return (input ??= (bin && binnedKey(bin, frame)) ?? this.vec);
            },
        };
    });
}

/** `bin(t, step)` as a key over t's time column itself, when t evaluates to one. */
function binnedKey(bin: NonNullable<Compiled['timeBin']>, frame: Frame): BinnedTimeKey | undefined {
    const x = bin.x.run(frame);
    const type = bin.x.type;
    if (x.c || !(x.col instanceof TimeColumn) || (type !== 'datetime' && type !== 'timespan')) return undefined;
    return { binned: x.col, sel: x.sel, stepMs: bin.stepMs, type };
}

/** Same rule as the catalogue's bin_auto. */
function autoBinSize(env: QueryEnv): bigint {
    return autoBinSizeFor({ now: env.now, startTime: env.startTime, endTime: env.endTime });
}

function summarize(frame: Frame, op: ast.SummarizeOperator, env: QueryEnv, state: RunState): Frame {
    state.stats.rowsMatched ??= frame.length;
    const keys = groupKeys(frame, op.groups, env);
    const n = frame.length;
    let grouping = groupRows(keys.map(k => k.input), n, keys.map(k => (k.timeBucket !== undefined && k.timeBucket % 1_000_000n === 0n ? Number(k.timeBucket / 1_000_000n) : undefined)));
    // A summarize without keys over no rows still gives one row (count() = 0).
    if (keys.length === 0 && n === 0) grouping = { gids: new Uint32Array(0), count: 1, first: new Uint32Array(0) };
    const G = grouping.count;
    // Key columns and group order (ascending by key).
    let keyCols = keys.map(k => (n === 0 && keys.length === 0 ? columnFromValues(k.compiled.type, []) : keyColumn(k.input, k.compiled.type, grouping.first)));
    const perm = sortGroupsByKeys(keyCols, G);
    keyCols = keyCols.map(c => permute(c, perm));
    // Aggregations: plain calls, and expressions over aggregate calls.
    const outCols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
    const timeKey = keys.find(k => k.timeBucket !== undefined);
    let timeKeyCol: Column | undefined;
    const windows = timeKey
        ? (g: number) => {
            const v = (timeKeyCol ??= keyColumn(timeKey.input, 'datetime', grouping.first)).get(g);
            return v instanceof Datetime ? { start: v.ns, end: v.ns + timeKey.timeBucket! } : undefined;
        }
        : undefined;
    const aggFrameCols: FrameCol[] = [];
    const post: { ne: ast.NamedExpression; name: string; calls: ast.FunctionCall[] }[] = [];
    let tmp = 0;
    let firstAgg: string | undefined;
    for (const ne of op.aggregates) {
        const e = unparen(ne.expression);
        if (e.$type === 'FunctionCall' && lookupAggregate((e as ast.FunctionCall).function)) {
            const spec = compileAggregate(e as ast.FunctionCall, ne.name, frame, env);
            if (spec.fn.estimate) state.stats.estimate = state.stats.estimate || false;
            const cols = runAggregate(spec, frame, grouping, { env, windows });
            const names = [spec.outName, ...(spec.extras ?? []).map(x => x.name)];
            cols.forEach((c, i) => {
                const name = uniqueName([...outCols, ...aggFrameCols], names[i]);
                aggFrameCols.push({ name, type: c.type, data: permute(c, perm), sel: null, agg: i === 0 ? spec.info : undefined });
            });
            firstAgg ??= aggFrameCols[aggFrameCols.length - 1 - (cols.length - 1)].name;
            continue;
        }
        const calls = findAggregateCalls(ne.expression);
        if (calls.length === 0) throw errorAt(ne, 'summarize expects an aggregation (count(), sum(x), ...) here');
        const name = ne.name ?? `Column${++tmp}`;
        post.push({ ne, name, calls });
    }
    // Expressions over aggregations: compute each call as a hidden column, then the expression.
    let result = new Frame([...outCols, ...aggFrameCols], G);
    for (const p of post) {
        const map = new Map<AstNode, string>();
        for (const call of p.calls) {
            const spec: AggSpec = compileAggregate(call, undefined, frame, env);
            const [col] = runAggregate(spec, frame, grouping, { env, windows });
            const tname = `$agg${map.size}_${p.name}`;
            map.set(call, tname);
            result = result.with([...result.cols, { name: tname, type: col.type, data: permute(col, perm), sel: null, hidden: true }]);
        }
        const c = compileExpr(p.ne.expression, result, { ...env, aggColumns: map });
        const col = vecToFrameCol(uniqueName(result.cols, p.name), c.type, c.run(result), G);
        col.agg = { name: 'computed', fields: [], args: [] };
        result = result.with([...result.cols.filter(x => !x.name.startsWith(`$agg`) || !x.name.endsWith(`_${p.name}`)), col]);
    }
    state.stats.numGroups = G;
    const meta: FrameMeta = {
        groups: keys.filter(k => k.timeBucket === undefined).map(k => k.name),
        order: keys.length ? [{ field: keys[0].name, desc: false }] : [],
    };
    if (timeKey) {
        meta.buckets = { field: timeKey.name, size: Number(timeKey.timeBucket) };
        meta.timeBinned = { timeField: timeKey.name, keys: keys.filter(k => k !== timeKey).map(k => k.name), firstAgg };
        meta.totals = summarizeTotals(frame, op, env, keys.filter(k => k !== timeKey));
    }
    return new Frame(result.cols, G, meta);
}

/** The same aggregations without the time key (legacy `buckets.totals`, tabular `_totals`). */
function summarizeTotals(frame: Frame, op: ast.SummarizeOperator, env: QueryEnv, keys: GroupKey[]): Frame | undefined {
    try {
        const n = frame.length;
        const grouping = keys.length === 0 && n === 0 ? { gids: new Uint32Array(0), count: 1, first: new Uint32Array(0) } : groupRows(keys.map(k => k.vec), n);
        let keyCols = keys.map(k => keyColumn(k.vec, k.compiled.type, grouping.first));
        const perm = sortGroupsByKeys(keyCols, grouping.count);
        keyCols = keyCols.map(c => permute(c, perm));
        const cols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
        for (const ne of op.aggregates) {
            const e = unparen(ne.expression);
            if (e.$type !== 'FunctionCall' || !lookupAggregate((e as ast.FunctionCall).function)) continue;
            const spec = compileAggregate(e as ast.FunctionCall, ne.name, frame, env);
            const [col] = runAggregate(spec, frame, grouping, { env });
            cols.push({ name: uniqueName(cols, spec.outName), type: col.type, data: permute(col, perm), sel: null, agg: spec.info });
        }
        return new Frame(cols, grouping.count, { groups: keys.map(k => k.name) });
    } catch {
        return undefined;
    }
}

function unparen(e: ast.Expression): ast.Expression {
    while (e.$type === 'ParenthesizedExpression') e = (e as ast.ParenthesizedExpression).expression;
    return e;
}

// ---------------------------------------------------------------------------------------------
// make-series

function makeSeries(frame: Frame, op: ast.MakeSeriesOperator, env: QueryEnv, state: RunState): Frame {
    state.stats.rowsMatched ??= frame.length;
    const n = frame.length;
    const axis = compileExpr(op.axis, frame, env);
    const axisName = defaultName(op.axis) ?? 'axis';
    const axisVec = axis.run(frame);
    const step = compileExpr(op.step, frame, env);
    if (!step.isConst) throw errorAt(op.step, 'make-series step must be a constant');
    const isTime = axis.type === 'datetime' || axis.type === 'timespan';
    // Times are binned exactly in ns (bigint); numbers as doubles.
    const toBig = (v: AplValue): bigint | null => (v instanceof Datetime || v instanceof Timespan ? v.ns : typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.round(v)) : null);
    const toNum = (v: AplValue): number | null => (v instanceof Datetime || v instanceof Timespan ? Number(v.ns) : typeof v === 'number' ? v : null);
    const stepNum = toNum(step.value ?? null);
    if (stepNum === null || !(stepNum > 0)) throw errorAt(op.step, 'make-series step must be positive');
    const stepBig = isTime ? toBig(step.value ?? null)! : 0n;
    const rangeArgs = op.rangeArgs;
    const fromE = op.from ?? rangeArgs[0];
    const toE = op.to ?? rangeArgs[1];
    const fromV = fromE ? compileExpr(fromE, emptyFrame(), env).value ?? null : null;
    const toV = toE ? compileExpr(toE, emptyFrame(), env).value ?? null : null;
    let fromB: bigint | null = isTime ? toBig(fromV) : null;
    let toB: bigint | null = isTime ? toBig(toV) : null;
    let from: number | null = isTime ? null : toNum(fromV);
    let to: number | null = isTime ? null : toNum(toV);
    if (isTime && (fromB === null || toB === null)) {
        let mn: bigint | null = null;
        let mx: bigint | null = null;
        for (let i = 0; i < n; i++) {
            const x = toBig(vget(axisVec, i));
            if (x === null) continue;
            if (mn === null || x < mn) mn = x;
            if (mx === null || x > mx) mx = x;
        }
        if (fromB === null) fromB = mn === null ? 0n : mn - (((mn % stepBig) + stepBig) % stepBig);
        if (toB === null) toB = mx === null ? fromB : mx + stepBig;
    }
    if (!isTime && (from === null || to === null)) {
        let mn = Infinity;
        let mx = -Infinity;
        for (let i = 0; i < n; i++) {
            const x = toNum(vget(axisVec, i));
            if (x === null) continue;
            if (x < mn) mn = x;
            if (x > mx) mx = x;
        }
        if (from === null) from = mn === Infinity ? 0 : Math.floor(mn / stepNum) * stepNum;
        if (to === null) to = mx === -Infinity ? from : mx + stepNum;
    }
    const bins = isTime ? Math.max(0, Number((toB! - fromB! + stepBig - 1n) / stepBig)) : Math.max(0, Math.ceil((to! - from!) / stepNum));
    if (bins > 100000) throw errorAt(op, `make-series would create ${bins} bins (more than 100000)`);
    const binOf = (v: AplValue): number => {
        if (isTime) {
            const x = toBig(v);
            if (x === null || x < fromB! || x >= toB!) return -1;
            return Number((x - fromB!) / stepBig);
        }
        const x = toNum(v);
        if (x === null || x < from! || x >= to!) return -1;
        return Math.floor((x - from!) / stepNum);
    };
    const keys = groupKeys(frame, op.groups, env);
    const grouping = groupRows(keys.map(k => k.vec), n);
    // Combined (group, bin) ids; rows outside the range are dropped.
    const keep: number[] = [];
    const combined: number[] = [];
    for (let i = 0; i < n; i++) {
        const b = binOf(vget(axisVec, i));
        if (b < 0) continue;
        keep.push(i);
        combined.push(grouping.gids[i] * bins + b);
    }
    const sub = selectRows(frame, Uint32Array.from(keep));
    const G = grouping.count;
    // One row per group, holding an array of `bins` values per aggregation, plus the axis.
    env.budget.admit(G, bins * (op.aggregates.length + 1), op, 'make-series');
    const cg = { gids: Uint32Array.from(combined), count: G * bins, first: new Uint32Array(0) };
    let keyCols = keys.map(k => keyColumn(k.vec, k.compiled.type, grouping.first));
    const perm = sortGroupsByKeys(keyCols, G);
    keyCols = keyCols.map(c => permute(c, perm));
    const cols: FrameCol[] = keys.map((k, i) => ({ name: k.name, type: k.compiled.type, data: keyCols[i], sel: null }));
    for (const agg of op.aggregates) {
        const e = unparen(agg.expression);
        if (e.$type !== 'FunctionCall' || !lookupAggregate((e as ast.FunctionCall).function)) throw errorAt(agg, 'make-series expects an aggregation');
        const spec = compileAggregate(e as ast.FunctionCall, agg.name, sub, env);
        const [col] = runAggregate(spec, sub, cg, { env });
        const dflt = agg.default ? compileExpr(agg.default, emptyFrame(), env).value ?? null : spec.fn.name.startsWith('make_') ? null : 0;
        const filled = new Uint8Array(G * bins);
        for (const c of combined) filled[c] = 1;
        const arrays: AplValue[] = [];
        for (let gi = 0; gi < G; gi++) {
            const g = perm[gi];
            const arr: AplValue[] = [];
            for (let b = 0; b < bins; b++) {
                const idx = g * bins + b;
                arr.push(filled[idx] ? toJson(col.get(idx)) : toJson(dflt));
            }
            arrays.push(arr as AplValue);
        }
        cols.push({ name: uniqueName(cols, spec.outName), type: 'dynamic', data: new DynColumn(arrays), sel: null, agg: spec.info });
    }
    const axisVals: AplValue[] = [];
    for (let b = 0; b < bins; b++) {
        if (isTime) {
            const x = fromB! + BigInt(b) * stepBig;
            axisVals.push((axis.type === 'datetime' ? new Datetime(x) : new Timespan(x)).toJSON());
        } else axisVals.push(from! + b * stepNum);
    }
    const axisCol = new DynColumn(Array.from({ length: G }, () => axisVals.slice() as AplValue));
    cols.push({ name: uniqueName(cols, axisName), type: 'dynamic', data: axisCol, sel: null });
    state.stats.numGroups = G;
    return new Frame(cols, G, { groups: keys.map(k => k.name) });
}
