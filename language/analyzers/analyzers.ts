/**
 * The best-practice analyzers (rules in analyzer-rules.ts): one pass over a parsed document, using
 * the type computer for field types and row types. Like the validator, a rule reports only what is
 * certain (few false positives); a finding carries its quick fix as text edits, marked safe when the
 * rewrite keeps the rows. Pure: no I/O, the configuration is passed in.
 */
import { AstUtils, GrammarUtils, type AstNode } from 'langium';
import type * as ast from '../generated/ast.js';
import type { AplTypeComputer } from '../types/apl-type-computer.js';
import { nameChain } from '../types/apl-type-computer.js';
import { parseTimespanLiteral } from '../values.js';
import { datetimeLiteralValue } from '../literal-values.js';
import { AnalyzerRules, type AnalyzerRule } from './analyzer-rules.js';
import { ruleSeverity, type AnalyzerConfig } from './analyzer-config.js';

/** A replacement of `[start, end)` (offsets in the document's text). */
export interface OffsetEdit {
    start: number;
    end: number;
    newText: string;
}

export interface AnalyzerFix {
    title: string;
    /** The rewrite keeps the rows: `apl check --fix` applies it. */
    safe: boolean;
    edits: OffsetEdit[];
}

export interface AnalyzerFinding {
    code: string;
    severity: 'info' | 'warning' | 'error';
    message: string;
    start: number;
    end: number;
    fix?: AnalyzerFix;
}

const CONTAINS_TO_HAS: Record<string, string> = { contains: 'has', '!contains': '!has', contains_cs: 'has_cs', '!contains_cs': '!has_cs' };
const COMPARISONS = new Set(['==', '!=', '<>', '<', '<=', '>', '>=']);
/** Functions whose value depends on the other rows (or their order): a `where` cannot move across an `extend` that calls them. */
const ROW_DEPENDENT = /^(row_|prev$|next$|rand$|serialize$)/;
const MAX_TIME_BINS = 2000;

/** Runs every rule `config` leaves on over `model` and returns the findings in text order. */
export function runAnalyzers(model: ast.Model, text: string, types: AplTypeComputer, config: AnalyzerConfig): AnalyzerFinding[] {
    const findings: AnalyzerFinding[] = [];
    const context = new AnalyzerContext(text, types, config, findings);
    // Advice is never worth a failed validation: a rule that meets a tree it did not expect (error
    // recovery leaves properties out) gives nothing for that node, and the others go on.
    for (const node of AstUtils.streamAst(model)) guarded(() => context.visit(node));
    if (config.requireTimeFilter) for (const statement of model.statements) guarded(() => context.checkTimeFilter(statement));
    findings.sort((a, b) => a.start - b.start || a.code.localeCompare(b.code));
    return findings;
}

class AnalyzerContext {
    constructor(
        private readonly text: string,
        private readonly types: AplTypeComputer,
        private readonly config: AnalyzerConfig,
        private readonly findings: AnalyzerFinding[],
    ) {}

    visit(node: AstNode): void {
        switch (node.$type) {
            case 'BinaryExpression': return this.checkBinary(node as ast.BinaryExpression);
            case 'WhereOperator': return this.checkWhere(node as ast.WhereOperator);
            case 'SortOperator': return this.checkSortTake(node as ast.SortOperator);
            case 'TakeOperator': return this.checkCountAfterTake(node as ast.TakeOperator);
            case 'DistinctOperator': return this.checkDistinctCount(node as ast.DistinctOperator);
            case 'JoinOperator': return this.checkJoinKind(node as ast.JoinOperator);
            case 'SummarizeOperator': return this.checkSummarize(node as ast.SummarizeOperator);
            case 'FunctionCall': return this.checkCall(node as ast.FunctionCall);
        }
    }

    private report(rule: AnalyzerRule, node: AstNode | { start: number; end: number }, message: string, fix?: AnalyzerFix): void {
        const severity = ruleSeverity(rule, this.config);
        if (!severity) return;
        const span = 'start' in node ? node : spanOf(node);
        if (!span) return;
        const finding: AnalyzerFinding = { code: rule.code, severity, message, start: span.start, end: span.end };
        if (fix) finding.fix = fix;
        this.findings.push(finding);
    }

    private source(node: AstNode | undefined): string {
        const span = node && spanOf(node);
        return span ? this.text.slice(span.start, span.end) : '';
    }

    // ------------------------------------------------------------------ scalar expressions

    private checkBinary(expr: ast.BinaryExpression): void {
        const op = expr.operator;
        if (op === 'and') return this.checkNotNullAndNotEmpty(expr);
        if (COMPARISONS.has(op) && expr.left && expr.right) {
            const sides = [expr.left, expr.right as ast.Expression];
            const literalIndex = sides.findIndex(s => s.$type === 'StringLiteral');
            if (literalIndex < 0 || this.types.typeOf(sides[1 - literalIndex]) !== 'datetime') return;
            const literal = sides[literalIndex] as ast.StringLiteral;
            const fix = this.datetimeFix(literal);
            this.report(AnalyzerRules.DatetimeComparedWithString, expr,
                `A datetime is compared with the string "${literal.value}", parsed at run time (null when it does not parse): write a datetime literal.`, fix);
            return;
        }
        if (!CONTAINS_TO_HAS[op] && op !== '=~' && op !== '!~') return;
        const opNode = expr.$cstNode && GrammarUtils.findNodeForProperty(expr.$cstNode, 'operator');
        if (CONTAINS_TO_HAS[op] && expr.right?.$type === 'StringLiteral') {
            const term = (expr.right as ast.StringLiteral).value;
            if (/^[\p{L}\p{N}]{3,}$/u.test(term) && opNode) {
                const replacement = CONTAINS_TO_HAS[op];
                this.report(AnalyzerRules.ContainsToHas, opNode.astNode === expr ? { start: opNode.offset, end: opNode.end } : expr,
                    `'${op} "${term}"' scans for a substring; '${replacement}' looks "${term}" up as a whole term in the index, if whole terms are what you mean.`,
                    { title: `Use '${replacement}'`, safe: false, edits: [{ start: opNode.offset, end: opNode.end, newText: replacement }] });
            }
            return;
        }
        if ((op === '=~' || op === '!~') && opNode) {
            const literal = [expr.left, expr.right].find(s => s?.$type === 'StringLiteral') as ast.StringLiteral | undefined;
            const other = literal === expr.left ? expr.right : expr.left;
            if (!literal || !other || /\p{L}/u.test(literal.value)) return;
            const otherType = this.types.typeOf(other as ast.Expression);
            if (otherType !== 'string' && otherType !== 'unknown') return;
            const replacement = op === '=~' ? '==' : '!=';
            this.report(AnalyzerRules.CaseInsensitiveWithoutLetters, { start: opNode.offset, end: opNode.end },
                `"${literal.value}" has no letters, so '${op}' gives the same rows as '${replacement}', without folding case.`,
                { title: `Use '${replacement}'`, safe: true, edits: [{ start: opNode.offset, end: opNode.end, newText: replacement }] });
            return;
        }
    }

    private datetimeFix(literal: ast.StringLiteral): AnalyzerFix | undefined {
        const span = spanOf(literal);
        if (!span || /[()\n]/.test(literal.value)) return undefined;
        try {
            if (!datetimeLiteralValue(`datetime(${literal.value})`)) return undefined;
        } catch {
            return undefined;
        }
        return { title: `Write datetime(${literal.value})`, safe: true, edits: [{ ...span, newText: `datetime(${literal.value})` }] };
    }

    /** `a and isnotnull(x) and isnotempty(x)`: looked at once, from the top `and` of the chain. */
    private checkNotNullAndNotEmpty(expr: ast.BinaryExpression): void {
        if (expr.$container.$type === 'BinaryExpression' && (expr.$container as ast.BinaryExpression).operator === 'and') return;
        const operands: ast.Expression[] = [];
        let complete = true;
        const flatten = (e: ast.Expression | undefined) => {
            // Error recovery leaves operands out (`a and`): such a chain is not analysed.
            if (!e) complete = false;
            else if (e.$type === 'BinaryExpression' && (e as ast.BinaryExpression).operator === 'and') {
                flatten((e as ast.BinaryExpression).left);
                flatten((e as ast.BinaryExpression).right as ast.Expression);
            } else operands.push(e);
        };
        flatten(expr);
        if (!complete) return;
        const argOf = (e: ast.Expression, name: string) => {
            if (e?.$type !== 'FunctionCall') return undefined;
            const call = e as ast.FunctionCall;
            return call.function === name && call.arguments.length === 1 ? this.source(call.arguments[0]).replace(/\s+/g, '') : undefined;
        };
        for (let i = 0; i < operands.length; i++) {
            const arg = argOf(operands[i], 'isnotnull');
            if (arg === undefined || !operands.some(o => argOf(o, 'isnotempty') === arg)) continue;
            // Remove the operand and the `and` that joins it to its neighbour.
            const me = spanOf(operands[i]);
            const neighbour = spanOf(operands[i + 1 < operands.length ? i + 1 : i - 1]);
            if (!me || !neighbour) continue;
            const edit = i + 1 < operands.length ? { start: me.start, end: neighbour.start, newText: '' } : { start: neighbour.end, end: me.end, newText: '' };
            this.report(AnalyzerRules.NotNullAndNotEmpty, operands[i],
                `isnotempty(${arg}) already implies isnotnull(${arg}).`,
                { title: `Remove isnotnull(${arg})`, safe: true, edits: [edit] });
        }
    }

    private checkCall(call: ast.FunctionCall): void {
        const name = call.function;
        if (name === 'tostring' && call.arguments.length === 1 && call.arguments[0].expression && !call.arguments[0].name) {
            const arg = call.arguments[0].expression;
            if (this.types.typeOf(arg) !== 'string') return;
            const argText = this.source(arg);
            const wrapped = isPrimary(arg) ? argText : `(${argText})`;
            const column = this.unnamedColumnName(call);
            const sameName = column && nameChain(arg) && this.types.fieldNameOf(arg) === column;
            // An unnamed column keeps its name: the same field's, or written out (`tostring_x = x`) when it is a plain name.
            const safe = column === undefined || !!sameName || (column !== null && /^[A-Za-z_][A-Za-z0-9_]*$/.test(column));
            const newText = column && !sameName ? `${column} = ${wrapped}` : wrapped;
            const span = spanOf(call);
            this.report(AnalyzerRules.RedundantToString, call, `'${argText}' is a string already: tostring() returns it unchanged.`,
                span && { title: 'Remove tostring()', safe, edits: [{ ...span, newText }] });
            return;
        }
        if ((name === 'iff' || name === 'iif') && call.arguments.length === 3) {
            const [c, a, b] = call.arguments.map(x => x.expression);
            const bool = (e: ast.Expression | undefined) => (e?.$type === 'BooleanLiteral' ? (e as ast.BooleanLiteral).value : undefined);
            const then = bool(a);
            const otherwise = bool(b);
            if (!c || then === undefined || otherwise === undefined || then === otherwise) return;
            const cond = this.source(c);
            const newText = then === 'true' ? (isPrimary(c) ? cond : `(${cond})`) : `not(${cond})`;
            const column = this.unnamedColumnName(call);
            const safe = column === undefined && truthinessOnly(call);
            const span = spanOf(call);
            this.report(AnalyzerRules.IffTrueFalse, call, `${name}(c, ${then}, ${otherwise}) is ${then === 'true' ? 'c' : 'not(c)'}.`,
                span && { title: then === 'true' ? 'Use the condition' : 'Use not(condition)', safe, edits: [{ ...span, newText: column ? `${column} = ${newText}` : newText }] });
            return;
        }
        if ((name === 'bin' || name === 'floor') && call.arguments.length === 2) this.checkTinyBin(call);
    }

    /**
     * When `call` is a whole unnamed column of project/extend/summarize (so the expression names the
     * column): that name, `null` when it is unknown; undefined when the call is not such a column.
     */
    private unnamedColumnName(call: ast.FunctionCall): string | null | undefined {
        const item = call.$container;
        if (item?.$type !== 'NamedExpression' || (item as ast.NamedExpression).name) return undefined;
        const owner = item.$container?.$type;
        if (owner !== 'ProjectOperator' && owner !== 'ExtendOperator' && owner !== 'SummarizeOperator' && owner !== 'PrintExpression') return undefined;
        const derived = this.types.derivedName(call, () => 1);
        return derived.guessed ? null : derived.name;
    }

    private checkTinyBin(call: ast.FunctionCall): void {
        const [timeArg, sizeArg] = call.arguments.map(a => a.expression);
        if (!timeArg || sizeArg?.$type !== 'TimespanLiteral' || this.types.typeOf(timeArg) !== 'datetime') return;
        const size = parseTimespanLiteral((sizeArg as ast.TimespanLiteral).value);
        if (size === undefined || size <= 0n) return;
        const range = this.timeRangeBefore(call);
        if (range === undefined || range / size <= BigInt(MAX_TIME_BINS)) return;
        const span = spanOf(call);
        const field = this.source(timeArg);
        this.report(AnalyzerRules.TinyTimeBin, call,
            `bin(…, ${(sizeArg as ast.TimespanLiteral).value}) over the query's time range makes ${(range / size).toLocaleString('en-US')} time buckets per group; use a larger bin or bin_auto(${field}).`,
            span && { title: `Use bin_auto(${field})`, safe: false, edits: [{ ...span, newText: `bin_auto(${field})` }] });
    }

    /** The length of the time range the `where`s before `node` in its pipeline give `_time`, when one is certain. */
    private timeRangeBefore(node: AstNode): bigint | undefined {
        const op = AstUtils.getContainerOfType(node, (n): n is ast.TabularOperator => n.$container?.$type === 'Pipeline' && n.$containerProperty === 'operators');
        if (!op) return undefined;
        const pipeline = op.$container as ast.Pipeline;
        for (const before of pipeline.operators.slice(0, pipeline.operators.indexOf(op)).reverse()) {
            if (before.$type !== 'WhereOperator') continue;
            for (const n of AstUtils.streamAst(before)) {
                const range = this.rangeOfPredicate(n);
                if (range !== undefined) return range;
            }
        }
        return undefined;
    }

    /** `_time > ago(7d)`, `_time >= ago(7d)`, `_time between (ago(7d) .. now())`, `_time between (datetime(a) .. datetime(b))`. */
    private rangeOfPredicate(n: AstNode): bigint | undefined {
        const agoSpan = (e: ast.Expression | undefined) => {
            if (e?.$type !== 'FunctionCall' || (e as ast.FunctionCall).function !== 'ago') return undefined;
            const arg = (e as ast.FunctionCall).arguments[0]?.expression;
            return arg?.$type === 'TimespanLiteral' ? parseTimespanLiteral((arg as ast.TimespanLiteral).value) : undefined;
        };
        if (n.$type === 'BinaryExpression') {
            const b = n as ast.BinaryExpression;
            if ((b.operator === '>' || b.operator === '>=') && this.isTimeField(b.left)) return agoSpan(b.right as ast.Expression);
            return undefined;
        }
        if (n.$type === 'BetweenExpression') {
            const b = n as ast.BetweenExpression;
            if (b.operator !== 'between' || !this.isTimeField(b.left)) return undefined;
            const fromAgo = agoSpan(b.low);
            if (fromAgo !== undefined && b.high?.$type === 'FunctionCall' && (b.high as ast.FunctionCall).function === 'now') return fromAgo;
            if (b.low?.$type === 'DatetimeLiteral' && b.high?.$type === 'DatetimeLiteral') {
                try {
                    const low = datetimeLiteralValue((b.low as ast.DatetimeLiteral).value);
                    const high = datetimeLiteralValue((b.high as ast.DatetimeLiteral).value);
                    if (low && high && high.ns > low.ns) return high.ns - low.ns;
                } catch {
                    return undefined;
                }
            }
        }
        return undefined;
    }

    private isTimeField(e: ast.Expression | undefined): boolean {
        return e !== undefined && nameChain(e) !== undefined && this.types.fieldNameOf(e) === '_time';
    }

    // ------------------------------------------------------------------ tabular operators

    private neighbours(op: ast.TabularOperator): { before?: ast.TabularOperator; after?: ast.TabularOperator } {
        if (op.$container?.$type !== 'Pipeline') return {};
        const operators = (op.$container as ast.Pipeline).operators;
        const i = operators.indexOf(op);
        return { before: operators[i - 1], after: operators[i + 1] };
    }

    /** Swaps two adjacent stages, keeping the text between them (`\n| `, comments). */
    private swapFix(first: ast.TabularOperator, second: ast.TabularOperator, title: string): AnalyzerFix | undefined {
        const a = spanOf(first);
        const b = spanOf(second);
        if (!a || !b) return undefined;
        const between = this.text.slice(a.end, b.start);
        return { title, safe: true, edits: [{ start: a.start, end: b.end, newText: this.text.slice(b.start, b.end) + between + this.text.slice(a.start, a.end) }] };
    }

    private checkWhere(where: ast.WhereOperator): void {
        const { before } = this.neighbours(where);
        if (!before || !where.predicate) return;
        if (AstUtils.streamAst(where.predicate).some(n => n.$type === 'Pipeline' || (n.$type === 'FunctionCall' && ROW_DEPENDENT.test((n as ast.FunctionCall).function)))) return;
        const used = this.fieldsUsed(where.predicate);
        if (used === undefined || used.length === 0) return;
        if (before.$type === 'ExtendOperator') {
            const extend = before as ast.ExtendOperator;
            if (AstUtils.streamAst(extend).some(n => n.$type === 'FunctionCall' && ROW_DEPENDENT.test((n as ast.FunctionCall).function))) return;
            const defined = extend.columns.map(c => c.name ?? (c.expression && this.types.fieldNameOf(c.expression))).filter((n): n is string => n !== undefined);
            if (extend.columns.some(c => !c.name && !(c.expression && nameChain(c.expression)))) return; // an unnamed computed column: its name is a guess
            if (used.some(u => defined.some(d => overlaps(u, d)))) return;
            this.report(AnalyzerRules.FilterCouldRunEarlier, where,
                `This where uses only fields from before the extend: filter first, so the extend computes fewer rows.`,
                this.swapFix(extend, where, 'Move the where before the extend'));
            return;
        }
        if (before.$type === 'ProjectOperator') {
            const project = before as ast.ProjectOperator;
            const passed = new Set<string>();
            for (const c of project.columns) {
                const field = c.expression && nameChain(c.expression) ? this.types.fieldNameOf(c.expression) : undefined;
                if (field !== undefined && (c.name === undefined || c.name === field)) passed.add(field);
            }
            if (!used.every(u => passed.has(u))) return;
            this.report(AnalyzerRules.FilterCouldRunEarlier, where,
                `This where uses only fields the project passes through unchanged: filter first.`,
                this.swapFix(project, where, 'Move the where before the project'));
            return;
        }
        if (before.$type === 'SummarizeOperator') {
            const summarize = before as ast.SummarizeOperator;
            const keys = new Set<string>();
            for (const g of summarize.groups) {
                const field = g.expression && nameChain(g.expression) ? this.types.fieldNameOf(g.expression) : undefined;
                if (field !== undefined && (g.name === undefined || g.name === field)) keys.add(field);
            }
            if (keys.size === 0 || !used.every(u => keys.has(u))) return;
            this.report(AnalyzerRules.FilterGroupKeyBeforeSummarize, where,
                `This where tests only group keys of the summarize: filter the rows before summarizing them (the same groups remain).`,
                this.swapFix(summarize, where, 'Move the where before the summarize'));
        }
    }

    /** The fields a predicate reads (`geo.city`, `status`), or undefined when one is not a plain field (`$left`, a let). */
    private fieldsUsed(predicate: ast.Expression): string[] | undefined {
        const out: string[] = [];
        for (const n of AstUtils.streamAst(predicate)) {
            if (n.$type !== 'NameReference' && n.$type !== 'BracketReference') continue;
            let outer: AstNode = n;
            while (outer.$container && (outer.$container.$type === 'MemberAccess' || outer.$container.$type === 'IndexAccess') && outer.$containerProperty === 'receiver' && nameChain(outer.$container)) outer = outer.$container;
            const name = (n as ast.NameReference).name;
            if (name === undefined || name.startsWith('$') || (n.$type === 'NameReference' && this.types.letBinding(name, n))) return undefined;
            const field = this.types.resolveField(outer) ?? this.types.resolveField(n);
            out.push(field ? field.field : name);
        }
        return out;
    }

    private checkSortTake(sort: ast.SortOperator): void {
        const { after } = this.neighbours(sort);
        if (after?.$type !== 'TakeOperator') return;
        const take = after as ast.TakeOperator;
        const sortSpan = spanOf(sort);
        const takeSpan = spanOf(take);
        const first = spanOf(sort.items[0]);
        const last = spanOf(sort.items[sort.items.length - 1]);
        if (!sortSpan || !takeSpan || !first || !last || !take.count) return;
        const newText = `top ${this.source(take.count)} by ${this.text.slice(first.start, last.end)}`;
        this.report(AnalyzerRules.SortTakeToTop, { start: sortSpan.start, end: takeSpan.end },
            `'${sort.keyword} by … | ${take.keyword} ${this.source(take.count)}' sorts every row to keep ${this.source(take.count)}: 'top' keeps only those while it reads.`,
            { title: `Use 'top ${this.source(take.count)} by …'`, safe: true, edits: [{ start: sortSpan.start, end: takeSpan.end, newText }] });
    }

    private checkCountAfterTake(take: ast.TakeOperator): void {
        const { after } = this.neighbours(take);
        const count = this.source(take.count);
        if (after?.$type === 'CountOperator') {
            this.report(AnalyzerRules.CountAfterTake, after, `This counts the rows that '${take.keyword} ${count}' kept: the answer is at most ${count}.`);
            return;
        }
        if (after?.$type === 'SummarizeOperator') {
            const s = after as ast.SummarizeOperator;
            const onlyCount = s.groups.length === 0 && s.aggregates.length > 0 && s.aggregates.every(a => a.expression?.$type === 'FunctionCall' && (a.expression as ast.FunctionCall).function === 'count');
            if (onlyCount) this.report(AnalyzerRules.CountAfterTake, after, `This counts the rows that '${take.keyword} ${count}' kept: the answer is at most ${count}.`);
        }
    }

    private checkDistinctCount(distinct: ast.DistinctOperator): void {
        const { after } = this.neighbours(distinct);
        if (after?.$type !== 'CountOperator' || distinct.columns.length !== 1) return;
        const column = distinct.columns[0];
        if (!nameChain(column)) return;
        const start = spanOf(distinct)?.start;
        const end = spanOf(after)?.end;
        if (start === undefined || end === undefined) return;
        const field = this.source(column);
        this.report(AnalyzerRules.DistinctThenCount, { start, end },
            `'distinct ${field} | count' builds every distinct value to count them; 'summarize dcount(${field})' estimates the count (approximately) in far less memory.`,
            { title: `Use 'summarize Count = dcount(${field})' (approximate)`, safe: false, edits: [{ start, end, newText: `summarize Count = dcount(${field})` }] });
    }

    private checkJoinKind(join: ast.JoinOperator): void {
        if (join.options.some(o => o.name === 'kind')) return;
        const keyword = join.$cstNode && GrammarUtils.findNodeForProperty(join.$cstNode, 'keyword');
        if (!keyword) return;
        this.report(AnalyzerRules.JoinWithoutKind, { start: keyword.offset, end: keyword.end },
            `A join without kind is 'innerunique': left rows with a repeated key are dropped. Say which join you mean.`,
            { title: "Write the default: 'kind=innerunique'", safe: true, edits: [{ start: keyword.end, end: keyword.end, newText: ' kind=innerunique' }] });
    }

    private checkSummarize(summarize: ast.SummarizeOperator): void {
        for (const g of summarize.groups) {
            const e = g.expression;
            if (!e || !nameChain(e) || this.types.typeOf(e) !== 'datetime' || !this.isRawEventTime(e, summarize)) continue;
            const field = this.source(e);
            const span = spanOf(e);
            this.report(AnalyzerRules.SummarizeByRawTime, e, `Grouping by ${field} as it is makes a group of nearly every event; group by bin_auto(${field}) or bin(${field}, 1h).`,
                span && { title: `Group by bin_auto(${field})`, safe: false, edits: [{ ...span, newText: g.name ? `bin_auto(${field})` : `${field} = bin_auto(${field})` }] });
        }
        this.checkProjectDropsTime(summarize);
    }

    /**
     * `_time` (or `_sysTime`) as the dataset has it: a timestamp per event. A computed datetime
     * (`extend day = startofday(_time)`) or one after an earlier summarize is already coarse.
     */
    private isRawEventTime(e: ast.Expression, summarize: ast.SummarizeOperator): boolean {
        const field = this.types.fieldNameOf(e);
        if (field !== '_time' && field !== '_sysTime') return false;
        if (summarize.$container?.$type !== 'Pipeline') return false;
        const operators = (summarize.$container as ast.Pipeline).operators;
        for (const op of operators.slice(0, operators.indexOf(summarize))) {
            if (op.$type === 'SummarizeOperator' || op.$type === 'MakeSeriesOperator' || op.$type === 'ProjectRenameOperator') return false;
            if (op.$type === 'ExtendOperator' || op.$type === 'ProjectOperator') {
                const redefined = (op as ast.ExtendOperator | ast.ProjectOperator).columns.some(c => c.name === field && !(c.expression && nameChain(c.expression) && this.types.fieldNameOf(c.expression) === field));
                if (redefined) return false;
            }
        }
        return true;
    }

    private checkProjectDropsTime(summarize: ast.SummarizeOperator): void {
        const binsTime = summarize.groups.some(g => g.expression?.$type === 'FunctionCall'
            && ['bin', 'floor', 'bin_auto'].includes((g.expression as ast.FunctionCall).function)
            && (g.expression as ast.FunctionCall).arguments[0]?.expression?.$type === 'NameReference'
            && ((g.expression as ast.FunctionCall).arguments[0].expression as ast.NameReference).name === '_time');
        if (!binsTime || summarize.$container?.$type !== 'Pipeline') return;
        const operators = (summarize.$container as ast.Pipeline).operators;
        for (let i = operators.indexOf(summarize) - 1; i >= 0; i--) {
            const op = operators[i];
            if (op.$type === 'ProjectOperator') {
                const project = op as ast.ProjectOperator;
                const names = project.columns.map(c => c.name ?? (c.expression && nameChain(c.expression) ? this.types.fieldNameOf(c.expression) : undefined));
                if (names.includes('_time') || names.some(n => n === undefined)) return;
                const last = spanOf(project.columns[project.columns.length - 1]);
                this.report(AnalyzerRules.ProjectDropsTime, project, `This project drops _time, which the summarize below bins by: keep _time.`,
                    last && { title: 'Keep _time in the project', safe: true, edits: [{ start: last.end, end: last.end, newText: ', _time' }] });
                return;
            }
            // Anything else that could define or drop _time: stop looking (only a plain project is certain).
            if (!['WhereOperator', 'SortOperator', 'TakeOperator', 'TopOperator'].includes(op.$type)) return;
        }
    }

    // ------------------------------------------------------------------ time filter

    /** APL2005: the statement reads a dataset, and no `where` on its way tests `_time`. */
    checkTimeFilter(statement: ast.Statement): void {
        if (statement.$type !== 'QueryStatement') return;
        const seen = new Set<AstNode>();
        const datasets: AstNode[] = [];
        let filtered = false;
        const walk = (root: AstNode) => {
            if (seen.has(root)) return;
            seen.add(root);
            for (const n of AstUtils.streamAst(root)) {
                if (n.$type === 'WhereOperator' && AstUtils.streamAst(n).some(x => x.$type === 'NameReference' && (x as ast.NameReference).name === '_time')) filtered = true;
                if (n.$type !== 'NameReference' && n.$type !== 'BracketReference') continue;
                if (!this.types.isTabularPosition(n)) continue;
                const binding = this.types.letBinding((n as ast.NameReference).name, n);
                if (binding?.$type === 'LetStatement') walk(binding.value);
                else if (!binding) datasets.push(n);
            }
        };
        walk(statement);
        if (filtered || datasets.length === 0) return;
        this.report(AnalyzerRules.MissingTimeFilter, datasets[0], `This query reads ${this.source(datasets[0])} with no filter on _time: outside a time-ranged context it scans the whole retention.`);
    }
}

function guarded(run: () => void): void {
    try {
        run();
    } catch (e) {
        if (!(e instanceof TypeError)) throw e;
    }
}

function spanOf(node: AstNode | undefined): { start: number; end: number } | undefined {
    const cst = node?.$cstNode;
    return cst ? { start: cst.offset, end: cst.end } : undefined;
}

/** An expression that needs no parentheses wherever an operand goes. */
function isPrimary(e: AstNode): boolean {
    return ['NameReference', 'BracketReference', 'FunctionCall', 'StringLiteral', 'LongLiteral', 'RealLiteral', 'BooleanLiteral', 'DatetimeLiteral', 'TimespanLiteral', 'MemberAccess', 'IndexAccess', 'ParenthesizedExpression'].includes(e.$type);
}

/** `a` and `a.b` overlap (one is the other or a key path under it). */
function overlaps(a: string, b: string): boolean {
    return a === b || a.startsWith(b + '.') || b.startsWith(a + '.');
}

/** Whether only the truthiness of `node` counts: it is a `where` predicate, or under one through `and`/`or`/parentheses only. */
function truthinessOnly(node: AstNode): boolean {
    let cur: AstNode = node;
    for (;;) {
        const up = cur.$container;
        if (!up) return false;
        if (up.$type === 'WhereOperator') return cur.$containerProperty === 'predicate';
        if (up.$type === 'ParenthesizedExpression') {
            cur = up;
            continue;
        }
        if (up.$type === 'BinaryExpression' && ['and', 'or'].includes((up as ast.BinaryExpression).operator)) {
            cur = up;
            continue;
        }
        return false;
    }
}
