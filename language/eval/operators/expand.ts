/** parse, parse-where, parse-kv, mv-expand, redact, getschema: operators that reshape values into rows or columns. */
import type * as ast from '../../generated/ast.js';
import { typeFromName } from '../../types/apl-types.js';
import { Datetime, Timespan, parseDatetime, parseGoDuration, type AplValue } from '../../values.js';
import { compileRegex, type LinearRegex } from '../../builtins/index.js';
import { DynColumn, type ScalarType, StrColumn, StrBuilder, builderFor, columnFromValues } from '../columns.js';
import { errorAt } from '../errors.js';
import { type QueryEnv, compileExpr, defaultName, normType, textOf, vget } from '../expr.js';
import { Frame, type FrameCol, dense, selectRows } from '../frame.js';
import { truthTri } from '../scalar-ops.js';
import { createHash } from 'node:crypto';
import { coerceCell, constLong, emptyFrame, optionValue, type OperatorImpls } from './common.js';

export const EXPAND_OPERATORS = {
    ParseOperator: (op, frame, env) => parseOp(frame, op, env, false),
    ParseWhereOperator: (op, frame, env) => parseOp(frame, op, env, true),
    ParseKvOperator: (op, frame, env) => parseKv(frame, op, env),
    MvExpandOperator: (op, frame, env) => mvExpand(frame, op, env),
    RedactOperator: (op, frame, env) => redact(frame, op, env),
    GetschemaOperator: (_op, frame) => getschema(frame),
} satisfies OperatorImpls<'ParseOperator' | 'ParseWhereOperator' | 'ParseKvOperator' | 'MvExpandOperator' | 'RedactOperator' | 'GetschemaOperator'>;

const TYPE_REGEX: Record<string, string> = {
    long: '[-+]?\\d+',
    real: '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?',
    bool: '(?:true|false|TRUE|FALSE|True|False|1|0)',
};

function parseOp(frame: Frame, op: ast.ParseOperator | ast.ParseWhereOperator, env: QueryEnv, dropNonMatching: boolean): Frame {
    const kind = String(optionValue(op.options, 'kind') ?? 'simple');
    const flags = String(optionValue(op.options, 'flags') ?? '');
    const captures: { name: string; type: ScalarType }[] = [];
    let src = kind === 'regex' ? '' : '^';
    const pattern = op.pattern;
    pattern.forEach((el, k) => {
        const last = k === pattern.length - 1;
        if (el.$type === 'ParseWildcard') src += last ? '[\\s\\S]*' : '[\\s\\S]*?';
        else if (el.$type === 'ParseLiteral') {
            const text = (el as ast.ParseLiteral).value.value;
            src += kind === 'regex' ? text : text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        } else {
            const cap = el as ast.ParseCapture;
            const t = normType(cap.type ? typeFromName(cap.type) ?? 'string' : 'string');
            captures.push({ name: cap.name, type: t });
            const typed = kind === 'relaxed' ? undefined : TYPE_REGEX[t];
            src += `(${typed ?? (last ? '[\\s\\S]*' : '[\\s\\S]*?')})`;
        }
    });
    if (kind === 'simple' && pattern.length > 0 && pattern[pattern.length - 1].$type === 'ParseLiteral') src += '';
    let re: LinearRegex;
    try {
        // Every kind compiles to RE2 (linear time): simple and relaxed patterns are escaped literals and lazy wildcards.
        re = compileRegex(src, { caseInsensitive: flags.includes('i') || flags.includes('U'), dotAll: flags.includes('s'), multiline: flags.includes('m') });
    } catch (e) {
        throw errorAt(op, `parse: invalid pattern: ${(e as Error).message}`);
    }
    const source = compileExpr(op.source, frame, env).run(frame);
    const n = frame.length;
    const builders = captures.map(c => builderFor(c.type, n));
    const keep: number[] = [];
    for (let i = 0; i < n; i++) {
        const v = vget(source, i);
        const m = v === null ? null : re.exec(textOf(v, false));
        let vals: AplValue[] | null = null;
        if (m) {
            vals = captures.map((c, k) => convertParsed(m[k + 1] ?? null, c.type));
            if (kind === 'simple' && vals.some((x, k) => x === null && captures[k].type !== 'string' && m[k + 1] !== undefined)) vals = null;
        }
        if (vals === null && dropNonMatching) continue;
        keep.push(i);
        captures.forEach((_, k) => builders[k].push(vals ? vals[k] : null));
    }
    let base = dropNonMatching && keep.length !== n ? selectRows(frame, Uint32Array.from(keep)) : frame;
    const newCols = captures.map((c, k) => ({ name: c.name, type: c.type, data: builders[k].build(), sel: null }) as FrameCol);
    const cols = base.cols.filter(c => !captures.some(x => x.name === c.name));
    base = base.with([...cols, ...newCols]);
    return base;
}

function convertParsed(s: string | null, t: ScalarType): AplValue {
    if (s === null) return null;
    switch (t) {
        case 'string': return s;
        case 'long': return /^[-+]?\d+$/.test(s.trim()) ? Number(s.trim()) : null;
        case 'real': {
            const x = Number(s.trim());
            return s.trim() === '' || Number.isNaN(x) ? null : x;
        }
        case 'bool': {
            const t2 = truthTri(s);
            return t2 === 2 ? null : t2 === 1;
        }
        case 'datetime': {
            const ns = parseDatetime(s);
            return ns === undefined ? null : new Datetime(ns);
        }
        case 'timespan': {
            const ns = parseGoDuration(s);
            return ns === undefined ? null : new Timespan(ns);
        }
        default: {
            try {
                return JSON.parse(s) as AplValue;
            } catch {
                return s;
            }
        }
    }
}

function parseKv(frame: Frame, op: ast.ParseKvOperator, env: QueryEnv): Frame {
    const props = new Map<string, AplValue>();
    for (const p of op.properties) props.set(p.name, compileExpr(p.value, emptyFrame(), env).value ?? null);
    const pairDelim = props.get('pair_delimiter');
    const kvDelim = props.get('kv_delimiter');
    const quote = typeof props.get('quote') === 'string' ? (props.get('quote') as string) : '"';
    const keys = op.keys.map(k => ({ name: k.name, type: normType(k.type ? typeFromName(k.type) ?? 'string' : 'string') }));
    const source = compileExpr(op.source, frame, env).run(frame);
    const n = frame.length;
    const builders = keys.map(k => builderFor(k.type, n));
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pairRe = typeof pairDelim === 'string' && pairDelim !== '' ? new RegExp(esc(pairDelim)) : /[\s,;&]+/;
    const kvRe = typeof kvDelim === 'string' && kvDelim !== '' ? kvDelim : undefined;
    for (let i = 0; i < n; i++) {
        const v = vget(source, i);
        const found = new Map<string, string>();
        if (v !== null) {
            for (const pair of textOf(v, false).split(pairRe)) {
                let at: number;
                let dl = 1;
                if (kvRe) {
                    at = pair.indexOf(kvRe);
                    dl = kvRe.length;
                } else {
                    const m = /[=:]/.exec(pair);
                    at = m ? m.index : -1;
                }
                if (at <= 0) continue;
                const key = pair.slice(0, at).trim();
                let val = pair.slice(at + dl).trim();
                if (quote && val.length >= 2 && quote.includes(val[0]) && val[val.length - 1] === val[0]) val = val.slice(1, -1);
                if (!found.has(key)) found.set(key, val);
            }
        }
        keys.forEach((k, j) => builders[j].push(found.has(k.name) ? convertParsed(found.get(k.name)!, k.type) : null));
    }
    const newCols = keys.map((k, j) => ({ name: k.name, type: k.type, data: builders[j].build(), sel: null }) as FrameCol);
    const cols = frame.cols.filter(c => !keys.some(k => k.name === c.name));
    return frame.with([...cols, ...newCols]);
}

function mvExpand(frame: Frame, op: ast.MvExpandOperator, env: QueryEnv): Frame {
    const bagKind = String(optionValue(op.options, 'kind') ?? optionValue(op.options, 'bagexpansion') ?? 'bag');
    const indexName = optionValue(op.options, 'with_itemindex');
    const limit = op.limit ? constLong(op.limit, env, 'mv-expand limit') : Infinity;
    const items = op.items.map(it => {
        const c = compileExpr(it.expression, frame, env);
        const name = it.name ?? defaultName(it.expression) ?? 'Column1';
        const t = it.type ? normType(typeFromName(it.type) ?? 'dynamic') : 'dynamic';
        return { name, vec: c.run(frame), type: t };
    });
    const n = frame.length;
    const rowIdx: number[] = [];
    const itemIdx: number[] = [];
    const values: AplValue[][] = items.map(() => []);
    const expand = (v: AplValue): AplValue[] => {
        if (v === null) return [null];
        if (Array.isArray(v)) return v as AplValue[];
        if (typeof v === 'object' && !(v instanceof Datetime) && !(v instanceof Timespan)) {
            return Object.entries(v).map(([k, x]) => (bagKind === 'array' ? [k, x] : { [k]: x }) as AplValue);
        }
        return [v];
    };
    const columns = frame.cols.length + items.length;
    for (let i = 0; i < n; i++) {
        const lists = items.map(it => expand(vget(it.vec, i)));
        const len = Math.min(limit, Math.max(...lists.map(l => l.length)));
        env.budget.admit(rowIdx.length + len, columns, op, 'mv-expand');
        for (let k = 0; k < len; k++) {
            rowIdx.push(i);
            itemIdx.push(k);
            lists.forEach((l, j) => values[j].push(k < l.length ? (l[k] ?? null) : null));
        }
    }
    const base = selectRows(frame, Uint32Array.from(rowIdx));
    let cols = base.cols.slice();
    items.forEach((it, j) => {
        const data = it.type === 'dynamic' ? new DynColumn(values[j]) : columnFromValues(it.type, values[j].map(v => coerceCell(v, it.type)));
        const col: FrameCol = { name: it.name, type: it.type, data, sel: null };
        const at = cols.findIndex(c => c.name === it.name && !c.hidden);
        if (at >= 0) cols[at] = col;
        else cols.push(col);
    });
    if (typeof indexName === 'string') cols = [...cols, { name: indexName, type: 'long', data: columnFromValues('long', itemIdx), sel: null }];
    return new Frame(cols, rowIdx.length, base.meta);
}

const DATA_TYPES: Record<ScalarType, string> = {
    string: 'System.String', long: 'System.Int64', real: 'System.Double', bool: 'System.Boolean', datetime: 'System.DateTime', timespan: 'System.TimeSpan', dynamic: 'System.Object',
};

function getschema(frame: Frame): Frame {
    const vis = frame.visible();
    const names = new StrBuilder();
    const types = new StrBuilder();
    const dtypes = new StrBuilder();
    vis.forEach(c => {
        names.push(c.name);
        types.push(c.type === 'long' ? 'long' : c.type);
        dtypes.push(DATA_TYPES[c.type]);
    });
    return new Frame(
        [
            { name: 'ColumnName', type: 'string', data: names.build(), sel: null },
            { name: 'ColumnOrdinal', type: 'long', data: columnFromValues('long', vis.map((_, i) => i)), sel: null },
            { name: 'DataType', type: 'string', data: dtypes.build(), sel: null },
            { name: 'ColumnType', type: 'string', data: types.build(), sel: null },
        ],
        vis.length,
    );
}

function redact(frame: Frame, op: ast.RedactOperator, env: QueryEnv): Frame {
    const token = optionValue(op.options, 'replaceToken');
    const hash = optionValue(op.options, 'replaceHash') === true;
    const groups = optionValue(op.options, 'redactGroups') === true;
    if (hash && token !== undefined) throw errorAt(op, 'redact: replaceToken and replaceHash cannot be used together');
    const tok = typeof token === 'string' ? token : '*';
    const patterns: string[] = [];
    for (const p of op.patterns) {
        const c = compileExpr(p, emptyFrame(), env);
        if (!c.isConst) throw errorAt(p, 'redact expects constant regular expressions');
        const v = c.value ?? null;
        if (typeof v === 'string') patterns.push(v);
        else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') patterns.push(x);
        else if (v && typeof v === 'object' && !(v instanceof Datetime) && !(v instanceof Timespan)) for (const x of Object.values(v)) if (typeof x === 'string') patterns.push(x);
    }
    const res = patterns.map(p => {
        try {
            return compileRegex(p);
        } catch (e) {
            throw errorAt(op, `redact: ${(e as Error).message}`);
        }
    });
    const replaceText = (m: string): string => (hash ? createHash('sha256').update(m).digest('hex').slice(0, 16) : tok.length === 1 ? tok.repeat([...m].length) : tok);
    const fieldNames = op.fields.length ? new Set(op.fields.map(f => f.segments.join('.'))) : undefined;
    const apply = (s: string): string => {
        let out = s;
        for (const re of res) {
            let next = '';
            let last = 0;
            for (const m of re.matchAll(out)) {
                let r = m[0];
                if (groups) {
                    for (const c of m.slice(1)) if (c) r = r.replace(c, replaceText(c));
                } else r = replaceText(m[0]);
                next += out.slice(last, m.index) + r;
                last = m.index + m[0].length;
            }
            out = next + out.slice(last);
        }
        return out;
    };
    const cols = frame.cols.map(c => {
        if (c.hidden || c.type !== 'string' || (fieldNames && !fieldNames.has(c.name))) return c;
        const d = dense(c, frame.length);
        if (d instanceof StrColumn) {
            const dict = d.dict.map((s, k) => (k === 0 ? s : apply(s)));
            const b = new StrBuilder(frame.length);
            for (let i = 0; i < frame.length; i++) {
                const code = d.codes[i];
                b.push(code === 0 ? null : dict[code]);
            }
            return { ...c, data: b.build(), sel: null };
        }
        return c;
    });
    return frame.with(cols);
}

