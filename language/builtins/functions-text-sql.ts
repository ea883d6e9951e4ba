/**
 * SQL functions: `parse_sql` turns a SQL SELECT statement into a property bag and `format_sql`
 * prints such a bag back as SQL text.
 *
 * The bag follows the shape Axiom's documentation shows: `statement`, `columns` (`{colname}`),
 * `from` (`{table}`), `where` (`{operator, params}` trees with literals as `{value, valtype}`)
 * and `order` (`{direction, expr}`). Parts the documentation does not show are our own and kept in
 * the same style: `distinct`, `alias` on columns and tables, `qualifier` on qualified columns,
 * `funcname`/`params` for calls, `groupby`, `having` and `limit` (`{rowcount, offset}`).
 * Only SELECT is understood (no joins, sub-queries or set operations); anything else gives null.
 */
import type { JsonValue } from '../values.js';
import type { ScalarFunction } from './catalogue-types.js';
import { isBag, p, toText } from './functions-text-helpers.js';

type Bag = { [key: string]: JsonValue };

interface Token {
    kind: 'ident' | 'qident' | 'number' | 'string' | 'op' | 'eof';
    text: string;
}

class SqlSyntaxError extends Error {}

const KEYWORDS = new Set([
    'select', 'distinct', 'all', 'from', 'where', 'group', 'by', 'having', 'order', 'asc', 'desc', 'limit', 'offset',
    'and', 'or', 'not', 'like', 'in', 'is', 'null', 'between', 'as', 'true', 'false', 'join', 'on', 'union',
]);

function tokenize(sql: string): Token[] {
    const tokens: Token[] = [];
    let i = 0;
    while (i < sql.length) {
        const ch = sql[i];
        if (/\s/.test(ch)) {
            i++;
            continue;
        }
        if (sql.startsWith('--', i)) {
            while (i < sql.length && sql[i] !== '\n') i++;
            continue;
        }
        if (/[A-Za-z_]/.test(ch)) {
            const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
            tokens.push({ kind: 'ident', text: m[0] });
            i += m[0].length;
            continue;
        }
        if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
            const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i))!;
            tokens.push({ kind: 'number', text: m[0] });
            i += m[0].length;
            continue;
        }
        if (ch === "'") {
            let text = '';
            i++;
            for (;;) {
                if (i >= sql.length) throw new SqlSyntaxError('unterminated string');
                if (sql[i] === "'") {
                    if (sql[i + 1] === "'") {
                        text += "'";
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                text += sql[i++];
            }
            tokens.push({ kind: 'string', text });
            continue;
        }
        if (ch === '`' || ch === '"') {
            const end = sql.indexOf(ch, i + 1);
            if (end < 0) throw new SqlSyntaxError('unterminated quoted identifier');
            tokens.push({ kind: 'qident', text: sql.slice(i + 1, end) });
            i = end + 1;
            continue;
        }
        const op = ['<>', '!=', '<=', '>=', '||', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', ',', '.', ';'].find(o => sql.startsWith(o, i));
        if (!op) throw new SqlSyntaxError(`unexpected character '${ch}'`);
        tokens.push({ kind: 'op', text: op });
        i += op.length;
    }
    tokens.push({ kind: 'eof', text: '' });
    return tokens;
}

class SqlParser {
    private pos = 0;
    constructor(private readonly tokens: Token[]) {}

    private peek(offset = 0): Token {
        return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
    }

    private isKeyword(word: string, offset = 0): boolean {
        const t = this.peek(offset);
        return t.kind === 'ident' && t.text.toLowerCase() === word;
    }

    private acceptKeyword(word: string): boolean {
        if (!this.isKeyword(word)) return false;
        this.pos++;
        return true;
    }

    private expectKeyword(word: string): void {
        if (!this.acceptKeyword(word)) throw new SqlSyntaxError(`expected ${word.toUpperCase()}`);
    }

    private acceptOp(op: string): boolean {
        const t = this.peek();
        if (t.kind !== 'op' || t.text !== op) return false;
        this.pos++;
        return true;
    }

    private expectOp(op: string): void {
        if (!this.acceptOp(op)) throw new SqlSyntaxError(`expected '${op}'`);
    }

    private identifier(): string {
        const t = this.peek();
        if (t.kind === 'qident' || (t.kind === 'ident' && !KEYWORDS.has(t.text.toLowerCase()))) {
            this.pos++;
            return t.text;
        }
        throw new SqlSyntaxError(`expected an identifier, found '${t.text}'`);
    }

    parseStatement(): Bag {
        this.expectKeyword('select');
        const out: Bag = {};
        if (this.acceptKeyword('distinct')) out.distinct = true;
        else this.acceptKeyword('all');
        const columns: JsonValue[] = [];
        do columns.push(this.selectItem());
        while (this.acceptOp(','));
        out.columns = columns;
        if (this.acceptKeyword('from')) {
            const from: JsonValue[] = [];
            do from.push(this.tableRef());
            while (this.acceptOp(','));
            out.from = from;
        }
        if (this.acceptKeyword('where')) out.where = this.expr();
        if (this.acceptKeyword('group')) {
            this.expectKeyword('by');
            const groupby: JsonValue[] = [];
            do groupby.push(this.expr());
            while (this.acceptOp(','));
            out.groupby = groupby;
        }
        if (this.acceptKeyword('having')) out.having = this.expr();
        if (this.acceptKeyword('order')) {
            this.expectKeyword('by');
            const order: JsonValue[] = [];
            do {
                const expr = this.expr();
                const direction = this.acceptKeyword('desc') ? 'desc' : (this.acceptKeyword('asc'), 'asc');
                order.push({ direction, expr });
            } while (this.acceptOp(','));
            out.order = order;
        }
        if (this.acceptKeyword('limit')) {
            const limit: Bag = { rowcount: this.expr() };
            if (this.acceptKeyword('offset')) limit.offset = this.expr();
            out.limit = limit;
        }
        out.statement = 'select';
        this.acceptOp(';');
        if (this.peek().kind !== 'eof') throw new SqlSyntaxError(`unexpected '${this.peek().text}'`);
        return out;
    }

    private selectItem(): JsonValue {
        if (this.acceptOp('*')) return { colname: '*' };
        const expr = this.expr() as Bag;
        const alias = this.alias();
        return alias === undefined ? expr : { ...expr, alias };
    }

    private alias(): string | undefined {
        if (this.acceptKeyword('as')) return this.identifier();
        const t = this.peek();
        if (t.kind === 'qident' || (t.kind === 'ident' && !KEYWORDS.has(t.text.toLowerCase()))) return this.identifier();
        return undefined;
    }

    private tableRef(): JsonValue {
        if (this.peek().kind === 'op' && this.peek().text === '(') throw new SqlSyntaxError('sub-queries are not supported');
        let table = this.identifier();
        while (this.acceptOp('.')) table += `.${this.identifier()}`;
        if (this.isKeyword('join') || this.isKeyword('inner') || this.isKeyword('left')) throw new SqlSyntaxError('joins are not supported');
        const alias = this.alias();
        return alias === undefined ? { table } : { table, alias };
    }

    expr(): JsonValue {
        return this.orExpr();
    }

    private orExpr(): JsonValue {
        let left = this.andExpr();
        while (this.acceptKeyword('or')) left = { operator: 'or', params: [left, this.andExpr()] };
        return left;
    }

    private andExpr(): JsonValue {
        let left = this.notExpr();
        while (this.acceptKeyword('and')) left = { operator: 'and', params: [left, this.notExpr()] };
        return left;
    }

    private notExpr(): JsonValue {
        if (this.acceptKeyword('not')) return { operator: 'not', params: [this.notExpr()] };
        return this.comparison();
    }

    private comparison(): JsonValue {
        const left = this.additive();
        const t = this.peek();
        if (t.kind === 'op' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(t.text)) {
            this.pos++;
            return { operator: t.text, params: [left, this.additive()] };
        }
        if (this.acceptKeyword('is')) {
            const negated = this.acceptKeyword('not');
            this.expectKeyword('null');
            return { operator: negated ? 'is not null' : 'is null', params: [left] };
        }
        const negated = this.isKeyword('not') && (this.isKeyword('like', 1) || this.isKeyword('in', 1) || this.isKeyword('between', 1));
        if (negated) this.pos++;
        const prefix = negated ? 'not ' : '';
        if (this.acceptKeyword('like')) return { operator: `${prefix}like`, params: [left, this.additive()] };
        if (this.acceptKeyword('in')) {
            this.expectOp('(');
            const items: JsonValue[] = [left];
            do items.push(this.expr());
            while (this.acceptOp(','));
            this.expectOp(')');
            return { operator: `${prefix}in`, params: items };
        }
        if (this.acceptKeyword('between')) {
            const low = this.additive();
            this.expectKeyword('and');
            return { operator: `${prefix}between`, params: [left, low, this.additive()] };
        }
        return left;
    }

    private additive(): JsonValue {
        let left = this.multiplicative();
        for (;;) {
            const t = this.peek();
            if (t.kind === 'op' && (t.text === '+' || t.text === '-' || t.text === '||')) {
                this.pos++;
                left = { operator: t.text, params: [left, this.multiplicative()] };
            } else return left;
        }
    }

    private multiplicative(): JsonValue {
        let left = this.unary();
        for (;;) {
            const t = this.peek();
            if (t.kind === 'op' && (t.text === '*' || t.text === '/' || t.text === '%')) {
                this.pos++;
                left = { operator: t.text, params: [left, this.unary()] };
            } else return left;
        }
    }

    private unary(): JsonValue {
        if (this.acceptOp('-')) {
            const operand = this.unary();
            if (isBag(operand) && (operand.valtype === 'integer' || operand.valtype === 'float')) {
                return { value: `-${operand.value as string}`, valtype: operand.valtype };
            }
            return { operator: '-', params: [operand] };
        }
        this.acceptOp('+');
        return this.primary();
    }

    private primary(): JsonValue {
        const t = this.peek();
        if (t.kind === 'number') {
            this.pos++;
            return { value: t.text, valtype: /[.eE]/.test(t.text) ? 'float' : 'integer' };
        }
        if (t.kind === 'string') {
            this.pos++;
            return { value: t.text, valtype: 'string' };
        }
        if (this.acceptOp('(')) {
            if (this.isKeyword('select')) throw new SqlSyntaxError('sub-queries are not supported');
            const e = this.expr();
            this.expectOp(')');
            return e;
        }
        if (this.acceptOp('*')) return { colname: '*' };
        if (t.kind === 'ident') {
            const lower = t.text.toLowerCase();
            if (lower === 'null') {
                this.pos++;
                return { value: 'null', valtype: 'null' };
            }
            if (lower === 'true' || lower === 'false') {
                this.pos++;
                return { value: lower, valtype: 'boolean' };
            }
        }
        const name = this.identifier();
        if (this.acceptOp('(')) {
            const call: Bag = { funcname: name.toLowerCase() };
            const params: JsonValue[] = [];
            if (this.acceptKeyword('distinct')) call.distinct = true;
            if (!this.acceptOp(')')) {
                do params.push(this.peek().kind === 'op' && this.peek().text === '*' ? (this.pos++, { colname: '*' }) : this.expr());
                while (this.acceptOp(','));
                this.expectOp(')');
            }
            call.params = params;
            return call;
        }
        if (this.acceptOp('.')) {
            if (this.acceptOp('*')) return { colname: '*', qualifier: name };
            return { colname: this.identifier(), qualifier: name };
        }
        return { colname: name };
    }
}

/** Parses one SELECT statement into the documented bag shape; null when the text is not one. */
export function parseSql(sql: string): Bag | null {
    try {
        return new SqlParser(tokenize(sql)).parseStatement();
    } catch (e) {
        if (e instanceof SqlSyntaxError) return null;
        throw e;
    }
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

const PRECEDENCE: Record<string, number> = {
    or: 1, and: 2, not: 3,
    '=': 4, '!=': 4, '<>': 4, '<': 4, '<=': 4, '>': 4, '>=': 4, like: 4, 'not like': 4, in: 4, 'not in': 4,
    between: 4, 'not between': 4, 'is null': 4, 'is not null': 4,
    '+': 5, '-': 5, '||': 5, '*': 6, '/': 6, '%': 6,
};

function formatIdent(name: string): string {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name.toLowerCase()) ? name : `\`${name.replace(/`/g, '``')}\``;
}

class SqlFormatError extends Error {}

function str(v: JsonValue | undefined): string {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw new SqlFormatError('expected a string');
}

function formatExpr(node: JsonValue | undefined, parentPrecedence = 0): string {
    if (!isBag(node)) throw new SqlFormatError('expected an expression bag');
    let text: string;
    if ('valtype' in node) {
        const value = node.value === null ? 'null' : str(node.value);
        text = node.valtype === 'string' ? `'${value.replace(/'/g, "''")}'` : value;
    } else if ('colname' in node) {
        const col = str(node.colname) === '*' ? '*' : formatIdent(str(node.colname));
        text = node.qualifier === undefined ? col : `${formatIdent(str(node.qualifier))}.${col}`;
    } else if ('funcname' in node) {
        const params = Array.isArray(node.params) ? node.params.map(x => formatExpr(x)) : [];
        text = `${str(node.funcname)}(${node.distinct === true ? 'distinct ' : ''}${params.join(', ')})`;
    } else if ('operator' in node) {
        const op = str(node.operator).toLowerCase();
        const params = Array.isArray(node.params) ? node.params : [];
        const prec = PRECEDENCE[op] ?? 4;
        if (op === 'not') text = `not ${formatExpr(params[0], prec)}`;
        else if (op === 'is null' || op === 'is not null') text = `${formatExpr(params[0], prec + 1)} ${op}`;
        else if (op === 'in' || op === 'not in') text = `${formatExpr(params[0], prec + 1)} ${op} (${params.slice(1).map(x => formatExpr(x)).join(', ')})`;
        else if (op === 'between' || op === 'not between') text = `${formatExpr(params[0], prec + 1)} ${op} ${formatExpr(params[1], prec + 1)} and ${formatExpr(params[2], prec + 1)}`;
        else if (op === '-' && params.length === 1) text = `-${formatExpr(params[0], 7)}`;
        // Left-associative: the right operand needs parentheses at equal precedence.
        else text = `${formatExpr(params[0], prec)} ${op} ${formatExpr(params[1], prec + 1)}`;
        if (prec < parentPrecedence) text = `(${text})`;
    } else {
        throw new SqlFormatError('unknown expression');
    }
    return text;
}

function withAlias(text: string, node: JsonValue): string {
    return isBag(node) && typeof node.alias === 'string' ? `${text} as ${formatIdent(node.alias)}` : text;
}

/** Prints a `parse_sql` bag as SQL text (lower-case keywords); null when the bag is not one. */
export function formatSql(model: JsonValue): string | null {
    if (!isBag(model)) return null;
    try {
        if (model.statement !== undefined && str(model.statement).toLowerCase() !== 'select') return null;
        const columns = Array.isArray(model.columns) ? model.columns : [];
        if (columns.length === 0) return null;
        let sql = `select ${model.distinct === true ? 'distinct ' : ''}${columns.map(c => withAlias(formatExpr(c), c)).join(', ')}`;
        if (Array.isArray(model.from) && model.from.length > 0) {
            sql += ` from ${model.from
                .map(t => {
                    if (!isBag(t)) throw new SqlFormatError('bad table');
                    return withAlias(str(t.table).split('.').map(formatIdent).join('.'), t);
                })
                .join(', ')}`;
        }
        if (model.where !== undefined && model.where !== null) sql += ` where ${formatExpr(model.where)}`;
        if (Array.isArray(model.groupby) && model.groupby.length > 0) sql += ` group by ${model.groupby.map(x => formatExpr(x)).join(', ')}`;
        if (model.having !== undefined && model.having !== null) sql += ` having ${formatExpr(model.having)}`;
        if (Array.isArray(model.order) && model.order.length > 0) {
            sql += ` order by ${model.order
                .map(o => {
                    if (!isBag(o)) throw new SqlFormatError('bad order item');
                    const dir = o.direction === undefined ? 'asc' : str(o.direction).toLowerCase();
                    return `${formatExpr(o.expr)} ${dir}`;
                })
                .join(', ')}`;
        }
        if (isBag(model.limit)) {
            sql += ` limit ${formatExpr(model.limit.rowcount)}`;
            if (model.limit.offset !== undefined) sql += ` offset ${formatExpr(model.limit.offset)}`;
        }
        return sql;
    } catch (e) {
        if (e instanceof SqlFormatError) return null;
        throw e;
    }
}

export const SQL_FUNCTIONS: ScalarFunction[] = [
    {
        kind: 'scalar',
        name: 'format_sql',
        category: 'sql',
        signatures: [{ params: [p('parsed_sql_model', 'bag')] }],
        returns: 'string',
        description: 'Prints a SQL model produced by `parse_sql` back as SQL text, with lower-case keywords. A value that is not such a model gives null.',
        example: "print sql = format_sql(parse_sql('SELECT id FROM logs WHERE status = 500'))",
        axiomOnly: true,
        evaluate: ([model]) => (model === null || typeof model !== 'object' || !isBag(model) ? null : formatSql(model)),
    },
    {
        kind: 'scalar',
        name: 'parse_sql',
        category: 'sql',
        signatures: [{ params: [p('sql_statement', 'string')] }],
        returns: 'dynamic',
        description: 'Parses a SQL SELECT statement into a property bag: `statement`, `columns`, `from`, `where`, `groupby`, `having`, `order` and `limit`. Joins and sub-queries are not understood; text that does not parse gives null.',
        example: "print model = parse_sql('SELECT id, status FROM logs WHERE status = 500 ORDER BY id DESC')",
        axiomOnly: true,
        evaluate: ([sql]) => (sql === null ? null : parseSql(toText(sql))),
    },
];
