/** join, lookup and union: operators that combine the input with other tables. */
import type * as ast from '../../generated/ast.js';
import { Datetime, Timespan } from '../../values.js';
import { builderFor } from '../columns.js';
import { errorAt } from '../errors.js';
import { type QueryEnv, compileKey, keyName, type ColumnKey, type KeyExpr, vget } from '../expr.js';
import { Frame, type FrameCol, cellOf, selectRows } from '../frame.js';
import { toJson } from '../../runtime-values.js';
import type { RunState } from '../query.js';
import { optionValue, uniqueName, type OperatorImpls } from './common.js';
import { union } from '../sources.js';

export const JOIN_OPERATORS = {
    JoinOperator: (op, frame, env, state) => join(frame, op, env, state),
    LookupOperator: (op, frame, env, state) => lookup(frame, op, env, state),
    UnionOperator: (op, frame, env, state) => union(frame, op.tables, op.options, env, state, op),
} satisfies OperatorImpls<'JoinOperator' | 'LookupOperator' | 'UnionOperator'>;

interface JoinCond {
    left: KeyExpr;
    right: KeyExpr;
}

function joinConditions(conds: readonly ast.Expression[]): JoinCond[] {
    const side = (e: ast.Expression): { side: 'left' | 'right'; expr: ColumnKey } | undefined => {
        if (e.$type === 'MemberAccess') {
            const m = e as ast.MemberAccess;
            if (m.receiver.$type === 'NameReference') {
                const r = (m.receiver as ast.NameReference).name;
                if (r === '$left' || r === '$right') {
                    const name = m.member ?? m.bracketMember!;
                    return { side: r === '$left' ? 'left' : 'right', expr: { column: name } };
                }
            }
            // `$left.a.b` -> field `a.b`
            const path: string[] = [];
            let cur: ast.Expression = e;
            while (cur.$type === 'MemberAccess') {
                const mm = cur as ast.MemberAccess;
                path.unshift(mm.member ?? mm.bracketMember!);
                cur = mm.receiver;
            }
            if (cur.$type === 'NameReference' && ((cur as ast.NameReference).name === '$left' || (cur as ast.NameReference).name === '$right')) {
                return { side: (cur as ast.NameReference).name === '$left' ? 'left' : 'right', expr: { column: path.join('.') } };
            }
        }
        if (e.$type === 'IndexAccess') {
            const ia = e as ast.IndexAccess;
            if (ia.receiver.$type === 'NameReference' && ia.bracketIndex !== undefined) {
                const r = (ia.receiver as ast.NameReference).name;
                if (r === '$left' || r === '$right') return { side: r === '$left' ? 'left' : 'right', expr: { column: ia.bracketIndex } };
            }
        }
        return undefined;
    };
    return conds.map(c => {
        if (c.$type === 'BinaryExpression' && (c as ast.BinaryExpression).operator === '==') {
            const b = c as ast.BinaryExpression;
            const l = side(b.left);
            const r = side(b.right as ast.Expression);
            if (l && r) return l.side === 'left' ? { left: l.expr, right: r.expr } : { left: r.expr, right: l.expr };
            return { left: l?.expr ?? b.left, right: r?.expr ?? (b.right as ast.Expression) };
        }
        return { left: c, right: c };
    });
}

function rowKeys(frame: Frame, exprs: KeyExpr[], env: QueryEnv): string[] {
    const vecs = exprs.map(e => compileKey(e, frame, env).run(frame));
    const out: string[] = new Array(frame.length);
    for (let i = 0; i < frame.length; i++) {
        let k = '';
        for (const v of vecs) {
            const x = vget(v, i);
            k += (x === null ? '\u0001' : typeof x === 'string' ? `s${x}` : typeof x === 'number' ? `n${x}` : x instanceof Datetime || x instanceof Timespan ? `t${x.ns}` : `j${JSON.stringify(toJson(x))}`) + '\u0000';
        }
        out[i] = vecs.some(v => vget(v, i) === null) ? '' : k;
    }
    return out;
}

function join(left: Frame, op: ast.JoinOperator, env: QueryEnv, state: RunState): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'innerunique');
    const right = state.evalTable(op.right, env);
    const conds = joinConditions(op.conditions);
    const lk = rowKeys(left, conds.map(c => c.left), env);
    const rk = rowKeys(right, conds.map(c => c.right), env);
    const index = new Map<string, number[]>();
    rk.forEach((k, j) => {
        if (k === '') return;
        const a = index.get(k);
        if (a) a.push(j);
        else index.set(k, [j]);
    });
    const li: number[] = [];
    const ri: number[] = [];
    const matchedRight = new Uint8Array(right.length);
    let leftRows = Array.from({ length: left.length }, (_, i) => i);
    if (kind === 'innerunique') {
        const seen = new Set<string>();
        leftRows = leftRows.filter(i => {
            if (lk[i] === '' || seen.has(lk[i])) return false;
            seen.add(lk[i]);
            return true;
        });
    }
    const leftOnly = kind === 'leftsemi' || kind === 'leftanti';
    const rightOnly = kind === 'rightsemi' || kind === 'rightanti';
    const columns = left.cols.length + right.cols.length;
    for (const i of leftRows) {
        const m = lk[i] === '' ? undefined : index.get(lk[i]);
        if (m) env.budget.admit(li.length + m.length, columns, op, 'join');
        if (m) for (const j of m) matchedRight[j] = 1;
        switch (kind) {
            case 'inner': case 'innerunique':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                break;
            case 'leftouter': case 'fullouter':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                else { li.push(i); ri.push(-1); }
                break;
            case 'rightouter':
                if (m) for (const j of m) { li.push(i); ri.push(j); }
                break;
            case 'leftsemi':
                if (m) li.push(i);
                break;
            case 'leftanti':
                if (!m) li.push(i);
                break;
            case 'rightsemi': case 'rightanti':
                break;
            default:
                throw errorAt(op, `unknown join kind '${kind}'`);
        }
    }
    if (kind === 'rightouter' || kind === 'fullouter') {
        for (let j = 0; j < right.length; j++) if (!matchedRight[j]) { li.push(-1); ri.push(j); }
        env.budget.admit(li.length, columns, op, 'join');
    }
    if (leftOnly) return selectRows(left, Uint32Array.from(li));
    if (rightOnly) {
        const rows: number[] = [];
        for (let j = 0; j < right.length; j++) if ((matchedRight[j] === 1) === (kind === 'rightsemi')) rows.push(j);
        return selectRows(right, Uint32Array.from(rows));
    }
    return combine(left, right, li, ri, undefined);
}

function pickRows(frame: Frame, idx: number[], includeHidden: boolean): FrameCol[] {
    const n = idx.length;
    const hasNull = idx.some(i => i < 0);
    return frame.cols.filter(c => includeHidden || !c.hidden).map(c => {
        if (!hasNull) {
            const sel = new Uint32Array(n);
            for (let k = 0; k < n; k++) sel[k] = c.sel ? c.sel[idx[k]] : idx[k];
            return { ...c, sel };
        }
        const b = builderFor(c.type, n);
        for (const i of idx) b.push(i < 0 ? null : cellOf(c, i));
        return { ...c, data: b.build(), sel: null };
    });
}

function combine(left: Frame, right: Frame, li: number[], ri: number[], skipRight: Set<string> | undefined): Frame {
    const lcols = pickRows(left, li, true);
    const rcols = pickRows(right, ri, false).filter(c => !skipRight?.has(c.name));
    const out = [...lcols];
    for (const c of rcols) out.push({ ...c, name: uniqueName(out.filter(x => !x.hidden), c.name) });
    return new Frame(out, li.length);
}

function lookup(left: Frame, op: ast.LookupOperator, env: QueryEnv, state: RunState): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'leftouter');
    const right = state.evalTable(op.right, env);
    const conds = joinConditions(op.conditions);
    const lk = rowKeys(left, conds.map(c => c.left), env);
    const rk = rowKeys(right, conds.map(c => c.right), env);
    const index = new Map<string, number>();
    rk.forEach((k, j) => {
        if (k !== '' && !index.has(k)) index.set(k, j);
    });
    const li: number[] = [];
    const ri: number[] = [];
    for (let i = 0; i < left.length; i++) {
        const j = lk[i] === '' ? undefined : index.get(lk[i]);
        if (j === undefined) {
            if (kind === 'inner') continue;
            li.push(i);
            ri.push(-1);
        } else {
            li.push(i);
            ri.push(j);
        }
    }
    // Key columns of the right side that share the left key's name are not repeated.
    const skip = new Set<string>();
    for (const c of conds) {
        const rn = keyName(c.right);
        if (rn) skip.add(rn);
    }
    const lcols = pickRows(left, li, true);
    const rcols = pickRows(right, ri, false).filter(c => !skip.has(c.name));
    const out = [...lcols];
    for (const c of rcols) {
        const existing = out.findIndex(x => x.name === c.name && !x.hidden);
        if (existing >= 0) out[existing] = c;
        else out.push(c);
    }
    return new Frame(out, li.length);
}
