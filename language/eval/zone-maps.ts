/**
 * Block pruning: a dataset's rows are cut into blocks of physical rows (ZONE_ROWS each), and each
 * block keeps per column its smallest and largest value (numbers, datetimes as ms, strings as
 * dictionary codes). A query's leading `where` terms of the form `column <op> constant` skip every
 * block whose range cannot match, before any operator runs; `status.blocksExamined` counts the
 * blocks read.
 *
 * The stats of complete blocks are computed once and kept with the column's buffer (rows are
 * appended, never changed); the last, growing block is measured per query. String codes are given
 * in order of first appearance, so their ranges are narrow exactly where equality pruning pays:
 * ids and other values that arrive over time.
 */
import type * as ast from '../generated/ast.js';
import { Datetime } from '../values.js';
import { type Column, NumColumn, StrColumn, TimeColumn } from './columns.js';
import { type QueryEnv, compileExpr } from './expr.js';
import { emptyFrame } from './operators/common.js';
import type { Snapshot } from './tables.js';

export const ZONE_ROWS = 65_536;

type Op = '==' | '<' | '<=' | '>' | '>=';

/** One prunable term: `field op value`, the value in the column's stats unit (number, ms, code). */
export interface PruneTerm {
    field: string;
    op: Op;
    value: number | string | Datetime;
}

const FLIP: Record<Op, Op> = { '==': '==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * The terms of the leading `where` steps that blocks can be pruned by: conjunctions of a plain
 * field compared with a constant. Anything else is left to the filter (pruning only ever keeps more rows).
 */
export function pruneTerms(ops: readonly ast.TabularOperator[], env: QueryEnv): PruneTerm[] {
    const out: PruneTerm[] = [];
    for (const op of ops) {
        if (op.$type !== 'WhereOperator') break;
        collect((op as ast.WhereOperator).predicate, env, out);
    }
    return out;
}

function collect(e: ast.Expression, env: QueryEnv, out: PruneTerm[]): void {
    while (e.$type === 'ParenthesizedExpression') e = (e as ast.ParenthesizedExpression).expression;
    if (e.$type !== 'BinaryExpression') return;
    const b = e as ast.BinaryExpression;
    if (b.operator === 'and') {
        collect(b.left, env, out);
        collect(b.right as ast.Expression, env, out);
        return;
    }
    if (!(b.operator in FLIP)) return;
    const op = b.operator as Op;
    const left = fieldName(b.left, env);
    const right = fieldName(b.right as ast.Expression, env);
    if (left !== undefined && right === undefined) push(left, op, b.right as ast.Expression, env, out);
    else if (right !== undefined && left === undefined) push(right, FLIP[op], b.left, env, out);
}

/** A plain reference to a dataset field (not a let-bound name). */
function fieldName(e: ast.Expression, env: QueryEnv): string | undefined {
    if (e.$type !== 'NameReference' && e.$type !== 'BracketReference') return undefined;
    const name = (e as ast.NameReference).name;
    return env.bindings.has(name) ? undefined : name;
}

function push(field: string, op: Op, constant: ast.Expression, env: QueryEnv, out: PruneTerm[]): void {
    try {
        const c = compileExpr(constant, emptyFrame(), env);
        if (!c.isConst) return;
        const v = c.value;
        if ((typeof v === 'number' && !Number.isNaN(v)) || v instanceof Datetime) out.push({ field, op, value: v });
        // `==` on strings is exact; "" also matches absent values, so it prunes nothing.
        else if (typeof v === 'string' && v !== '' && op === '==') out.push({ field, op, value: v });
    } catch {
        // Not a constant (a column of another table, say): the filter decides.
    }
}

// ---------------------------------------------------------------------------------------------
// Per-block stats

interface BlockStats {
    /** Complete blocks measured so far. */
    complete: number;
    min: number[];
    max: number[];
    /**
     * The growing block after them (index `complete`): its first `rows` rows measured. Rows are
     * appended, never changed, so a later query measures only the rows added since (measuring
     * the whole last block per query cost a quarter of a `take` query at 1M rows).
     */
    partial?: { rows: number; min: number; max: number };
}

/**
 * Stats of complete blocks, per column buffer and offset in it (growth in place keeps the buffer; a
 * new buffer starts over) and block size.
 */
const statsCache = new WeakMap<object, Map<string, BlockStats>>();

type Measured = { kind: 'num'; vals: Float64Array; nulls: Uint8Array | null } | { kind: 'time'; vals: Float64Array } | { kind: 'str'; codes: Uint32Array; col: StrColumn };

function measured(col: Column | undefined): Measured | undefined {
    if (col instanceof NumColumn) return { kind: 'num', vals: col.vals, nulls: col.nulls };
    if (col instanceof TimeColumn && col.type === 'datetime') return { kind: 'time', vals: col.ms };
    if (col instanceof StrColumn) return { kind: 'str', codes: col.codes, col };
    return undefined;
}

/** [min, max] of the non-null values of rows [from, to); [Infinity, -Infinity] when there are none. */
function measure(m: Measured, from: number, to: number): [number, number] {
    let min = Infinity;
    let max = -Infinity;
    if (m.kind === 'str') {
        const codes = m.codes;
        for (let i = from; i < to; i++) {
            const c = codes[i];
            if (c === 0) continue;
            if (c < min) min = c;
            if (c > max) max = c;
        }
        return [min, max];
    }
    const vals = m.vals;
    const nulls = m.kind === 'num' ? m.nulls : null;
    for (let i = from; i < to; i++) {
        if (nulls !== null && nulls[i] === 1) continue;
        const x = vals[i];
        if (x < min) min = x;
        if (x > max) max = x; // NaN fails both: skipped, as no comparison matches it
    }
    return [min, max];
}

function blockRange(m: Measured, rows: number, block: number, zoneRows: number): [number, number] {
    const from = block * zoneRows;
    const to = Math.min(rows, from + zoneRows);
    const arr = m.kind === 'str' ? m.codes : m.vals;
    let perBuffer = statsCache.get(arr.buffer);
    if (!perBuffer) statsCache.set(arr.buffer, (perBuffer = new Map()));
    const key = `${arr.byteOffset}:${zoneRows}`;
    let s = perBuffer.get(key);
    if (!s) perBuffer.set(key, (s = { complete: 0, min: [], max: [] }));
    if (to - from < zoneRows) return partialRange(m, s, block, from, to);
    while (s.complete <= block) {
        const [lo, hi] = measure(m, s.complete * zoneRows, (s.complete + 1) * zoneRows);
        s.min.push(lo);
        s.max.push(hi);
        s.complete++;
        s.partial = undefined;
    }
    return [s.min[block], s.max[block]];
}

/** [min, max] of the growing block's rows [from, to): the rows measured before are not measured again. */
function partialRange(m: Measured, s: BlockStats, block: number, from: number, to: number): [number, number] {
    // Another block (the stats of complete blocks lag behind) or an older snapshot: measure it all.
    if (block !== s.complete) return measure(m, from, to);
    const p = s.partial;
    if (p === undefined || p.rows > to - from) {
        const [min, max] = measure(m, from, to);
        s.partial = { rows: to - from, min, max };
        return [min, max];
    }
    if (p.rows < to - from) {
        const [min, max] = measure(m, from + p.rows, to);
        s.partial = { rows: to - from, min: Math.min(p.min, min), max: Math.max(p.max, max) };
    }
    return [s.partial!.min, s.partial!.max];
}

/** Whether a block whose values lie in [min, max] may hold a row with `x op c`. */
function mayMatch(op: Op, min: number, max: number, c: number, timeMs: boolean): boolean {
    // Datetimes are measured in whole ms (the sub-ms part is not): a block's values lie in [min, max + 1) ms.
    const top = timeMs ? max + 1 : max;
    switch (op) {
        case '==': return timeMs ? c >= min && c < top : c >= min && c <= max;
        case '>': return timeMs ? c < top : max > c;
        case '>=': return timeMs ? c < top : max >= c;
        case '<': return timeMs ? min <= c : min < c;
        case '<=': return min <= c;
    }
}

/**
 * Which blocks of a snapshot's rows may hold matches (1 = read), or undefined when the terms
 * prune nothing that can be measured.
 */
export function survivingBlocks(snap: Snapshot, terms: readonly PruneTerm[], zoneRows = ZONE_ROWS): Uint8Array | undefined {
    const rows = snap.rows;
    const blocks = Math.ceil(rows / zoneRows);
    let keep: Uint8Array | undefined;
    for (const t of terms) {
        const col = t.field === '_time' ? snap.time : snap.column(t.field);
        const m = measured(col);
        if (!m) continue;
        let c: number;
        if (m.kind === 'str') {
            if (typeof t.value !== 'string') continue;
            c = m.col.codeOf(t.value);
            // A string in no row: no block can match.
            if (c < 0) return new Uint8Array(blocks);
        } else if (m.kind === 'time') {
            if (!(t.value instanceof Datetime)) continue;
            // Whole ms of the constant, rounded down: conservative for every operator above.
            c = Number(t.value.ns / 1_000_000n) - (t.value.ns % 1_000_000n < 0n ? 1 : 0);
        } else {
            if (typeof t.value !== 'number') continue;
            c = t.value;
        }
        keep ??= new Uint8Array(blocks).fill(1);
        for (let b = 0; b < blocks; b++) {
            if (keep[b] === 0) continue;
            const [min, max] = blockRange(m, rows, b, zoneRows);
            if (!mayMatch(t.op, min, max, c, m.kind === 'time')) keep[b] = 0;
        }
    }
    return keep;
}

/**
 * The blocks a scan reads: those pruning kept (`keep`, all when undefined) whose `_time` span
 * meets [fromMs, toMs], the span of the scanned rows. O(blocks) once the blocks are measured.
 */
export function blocksInTimeSpan(snap: Snapshot, fromMs: number, toMs: number, keep: Uint8Array | undefined, zoneRows = ZONE_ROWS): number[] {
    const m = measured(snap.time)!;
    const out: number[] = [];
    const blocks = Math.ceil(snap.rows / zoneRows);
    for (let b = 0; b < blocks; b++) {
        if (keep && keep[b] === 0) continue;
        const [min, max] = blockRange(m, snap.rows, b, zoneRows);
        if (max >= fromMs && min <= toMs) out.push(b);
    }
    return out;
}
