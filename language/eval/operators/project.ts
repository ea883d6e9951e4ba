/** extend, extend-valid and the project family: operators that add, drop, rename or reorder columns. */
import type * as ast from '../../generated/ast.js';
import { Datetime, Timespan, type AplValue } from '../../values.js';
import { builderFor } from '../columns.js';
import { errorAt } from '../errors.js';
import { type QueryEnv, compileExpr, defaultName, vecToFrameCol } from '../expr.js';
import { Frame, type FrameCol, cellOf } from '../frame.js';
import { globToRegex, type OperatorImpls } from './common.js';

export const PROJECT_OPERATORS = {
    ExtendOperator: (op, frame, env) => extend(frame, op.columns, env, false),
    ExtendValidOperator: (op, frame, env) => extend(frame, op.columns, env, true),
    ProjectOperator: (op, frame, env) => project(frame, op.columns, env),
    ProjectAwayOperator: (op, frame) => {
        const matchers = op.columns.map(p => patternMatcher(p, frame));
        return frame.with(frame.cols.filter(c => c.hidden || !matchers.some(m => m(c.name))));
    },
    ProjectKeepOperator: (op, frame) => {
        const matchers = op.columns.map(p => patternMatcher(p, frame));
        return frame.with(frame.cols.filter(c => c.hidden || matchers.some(m => m(c.name))));
    },
    ProjectRenameOperator: (op, frame) => {
        let cols = frame.cols.slice();
        for (const r of op.renames) {
            const old = r.oldName.segments.join('.');
            const i = cols.findIndex(c => c.name === old && !c.hidden);
            if (i < 0) throw errorAt(r.oldName, `unknown field '${old}'`);
            cols = cols.filter(c => c.name !== r.newName || c === cols[i]);
            const j = cols.findIndex(c => c.name === old && !c.hidden);
            cols[j] = { ...cols[j], name: r.newName };
        }
        return frame.with(cols);
    },
    ProjectReorderOperator: (op, frame) => projectReorder(frame, op),
} satisfies OperatorImpls<
    'ExtendOperator' | 'ExtendValidOperator' | 'ProjectOperator' | 'ProjectAwayOperator' | 'ProjectKeepOperator' | 'ProjectRenameOperator' | 'ProjectReorderOperator'
>;

function extend(frame: Frame, columns: readonly ast.NamedExpression[], env: QueryEnv, valid: boolean): Frame {
    let cur = frame;
    let k = 0;
    for (const ne of columns) {
        const c = compileExpr(ne.expression, cur, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        let col = vecToFrameCol(name, c.type, c.run(cur), cur.length);
        if (valid) {
            const old = cur.find(name);
            const n = cur.length;
            const type = old && old.type !== c.type ? 'dynamic' : c.type;
            const b = builderFor(type, n);
            for (let i = 0; i < n; i++) {
                const v = cellOf(col, i);
                b.push(isValid(v) ? v : old ? cellOf(old, i) : null);
            }
            col = { name, type, data: b.build(), sel: null };
        }
        const existing = cur.cols.findIndex(x => x.name === name && !x.hidden);
        let cols: FrameCol[];
        if (existing >= 0 && !valid) cols = [...cur.cols.filter((_, i) => i !== existing), col];
        else if (existing >= 0) cols = cur.cols.map((x, i) => (i === existing ? col : x));
        else cols = [...cur.cols, col];
        cur = cur.with(cols);
    }
    return cur;
}

/** extend-valid: dict/array non-empty, string non-empty, number not 0/Inf/NaN, others tobool true. */
function isValid(v: AplValue): boolean {
    if (v === null || v === undefined) return false;
    if (typeof v === 'string') return v !== '';
    if (typeof v === 'number') return v !== 0 && Number.isFinite(v);
    if (Array.isArray(v)) return v.length > 0;
    if (v instanceof Datetime || v instanceof Timespan) return v.ns !== 0n;
    if (typeof v === 'object') return Object.keys(v).length > 0;
    return v === true;
}

function project(frame: Frame, columns: readonly ast.NamedExpression[], env: QueryEnv): Frame {
    const out: FrameCol[] = [];
    let k = 0;
    for (const ne of columns) {
        if (ne.expression.$type === 'StarExpression') {
            for (const c of frame.visible()) if (!out.some(o => o.name === c.name)) out.push(c);
            continue;
        }
        const c = compileExpr(ne.expression, frame, env);
        const name = ne.name ?? defaultName(ne.expression) ?? `Column${++k}`;
        const src = c.columnName !== undefined ? frame.find(c.columnName) : undefined;
        const col: FrameCol = src ? { ...src, name } : vecToFrameCol(name, c.type, c.run(frame), frame.length);
        const dup = out.findIndex(o => o.name === name);
        if (dup >= 0) out[dup] = col;
        else out.push(col);
    }
    for (const h of frame.cols) if (h.hidden) out.push(h);
    return frame.with(out);
}

function patternMatcher(p: ast.ColumnPattern, frame: Frame): (name: string) => boolean {
    if (p.all) return () => true;
    if (p.wildcard !== undefined) {
        const re = globToRegex(p.wildcard);
        return n => re.test(n);
    }
    const name = p.path!.segments.join('.');
    if (!frame.find(name)) throw errorAt(p, `unknown field '${name}'`);
    return n => n === name;
}

function projectReorder(frame: Frame, op: ast.ProjectReorderOperator): Frame {
    const vis = frame.visible();
    const placed = new Set<string>();
    const explicit = new Set(op.columns.filter(c => c.pattern.path).map(c => c.pattern.path!.segments.join('.')));
    const out: FrameCol[] = [];
    for (const item of op.columns) {
        const m = patternMatcher(item.pattern, frame);
        let matched = vis.filter(c => m(c.name) && !placed.has(c.name) && (item.pattern.path || !explicit.has(c.name)));
        const dir = item.direction;
        if (dir) {
            const cmp = dir.startsWith('granny')
                ? (a: FrameCol, b: FrameCol) => a.name.localeCompare(b.name, 'en', { numeric: true })
                : (a: FrameCol, b: FrameCol) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
            matched = matched.slice().sort(cmp);
            if (dir.endsWith('desc')) matched.reverse();
        }
        for (const c of matched) {
            placed.add(c.name);
            out.push(c);
        }
    }
    for (const c of vis) if (!placed.has(c.name)) out.push(c);
    for (const h of frame.cols) if (h.hidden) out.push(h);
    return frame.with(out);
}
