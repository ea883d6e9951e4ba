/**
 * Which fields of its dataset a query can read, so that blocks read from disk decode only those
 * (cold-blocks.ts). Conservative: undefined (every field) unless the query is one pipeline over a
 * dataset whose steps name every field they use, up to a step that narrows the rows' fields
 * (summarize, count, project, distinct, make-series). A listing of rows, `top`, a wildcard,
 * `pack_all()`, `search`, a join or anything else that can see fields it does not name reads all.
 */
import { AstUtils, type AstNode } from 'langium';
import type * as ast from '../generated/ast.js';

/** Steps that name every field they read, and keep the others as they are. */
const NAMING = new Set(['WhereOperator', 'ExtendOperator', 'SortOperator', 'TakeOperator', 'TopOperator', 'ParseOperator', 'ParseWhereOperator']);
/** Steps whose output has only the fields they name or compute. */
const NARROWING = new Set(['SummarizeOperator', 'CountOperator', 'ProjectOperator', 'DistinctOperator', 'MakeSeriesOperator']);
/** Functions that read fields they do not name. */
const ALL_FIELDS_FUNCTIONS = new Set(['pack_all', 'column_ifexists', 'hash_row', 'bag_pack_columns']);
/** Nodes that stand for fields they do not name. */
const ALL_FIELDS_NODES = new Set(['StarExpression', 'TableWildcard', 'SearchExpression', 'SearchOperator', 'ColumnPattern']);

/**
 * The names the query uses (a field `a.b` may be written `a.b`, so a name also stands for the
 * fields under it: see `readsField`), or undefined when it may read every field.
 */
export function neededFields(model: ast.Model): ReadonlySet<string> | undefined {
    if (model.statements.length !== 1 || model.statements[0].$type !== 'QueryStatement') return undefined;
    const body = (model.statements[0] as ast.QueryStatement).body;
    if (body.$type !== 'Pipeline') return undefined;
    const p = body as ast.Pipeline;
    if (p.source.$type !== 'NameReference' && p.source.$type !== 'BracketReference') return undefined;
    let k = 0;
    while (k < p.operators.length && NAMING.has(p.operators[k].$type)) k++;
    if (k >= p.operators.length || !NARROWING.has(p.operators[k].$type)) return undefined;
    return namesIn(p, [p]);
}

/**
 * The names the steps `ops[0..last]` of the query's one pipeline use, or undefined
 * when one of them may read fields it does not name. What a `top` over blocks on disk reads first:
 * its `where`s and keys, before it reads whole rows of the blocks holding the winners (engine.ts).
 */
export function fieldsUpTo(model: ast.Model, last: number): ReadonlySet<string> | undefined {
    if (model.statements.length !== 1 || model.statements[0].$type !== 'QueryStatement') return undefined;
    const body = (model.statements[0] as ast.QueryStatement).body;
    if (body.$type !== 'Pipeline') return undefined;
    const p = body as ast.Pipeline;
    const ops = p.operators.slice(0, last + 1);
    if (ops.length !== last + 1 || !ops.every(o => NAMING.has(o.$type))) return undefined;
    return namesIn(p, ops);
}

/**
 * The names under `roots` (the source of `p` aside), or undefined when they may read unnamed fields.
 * `_time` is among them only when they name it: a block gives its times on first use whatever
 * fields it is read for, and a block made from its header's counts has none (cold-blocks.ts).
 */
function namesIn(p: ast.Pipeline, roots: readonly AstNode[]): Set<string> | undefined {
    const names = new Set<string>();
    for (const node of roots.flatMap(r => [...AstUtils.streamAst(r)])) {
        if (node === p.source) continue;
        if (ALL_FIELDS_NODES.has(node.$type)) return undefined;
        if (node.$type === 'FunctionCall' && ALL_FIELDS_FUNCTIONS.has((node as ast.FunctionCall).function.toLowerCase())) return undefined;
        // A table inside the query (a subquery, `toscalar(…)`, `in (…)`) may read fields of any dataset.
        if (node.$type === 'Pipeline' && node !== p) return undefined;
        if (node.$type === 'NameReference' || node.$type === 'BracketReference') names.add((node as ast.NameReference).name);
        if (node.$type === 'MemberAccess') names.add(memberPath(node as ast.MemberAccess) ?? '');
    }
    return names;
}

/** `a.b.c` of a member access on a name, the way a flattened field is named. */
function memberPath(m: ast.MemberAccess): string | undefined {
    const parts: string[] = [];
    let e: ast.Expression = m;
    while (e.$type === 'MemberAccess') {
        const ma = e as ast.MemberAccess;
        parts.unshift(String(ma.member ?? ma.bracketMember));
        e = ma.receiver;
    }
    if (e.$type !== 'NameReference' && e.$type !== 'BracketReference') return undefined;
    parts.unshift((e as ast.NameReference).name);
    return parts.join('.');
}

/** Whether a field is among the names, or under one of them (`geo` covers `geo.country`). */
export function readsField(names: ReadonlySet<string>, field: string): boolean {
    if (names.has(field)) return true;
    for (let i = field.indexOf('.'); i > 0; i = field.indexOf('.', i + 1)) if (names.has(field.slice(0, i))) return true;
    return false;
}
