import { BLANK_LINE } from '../parser/apl-token-builder.js';
import { blockNumberAt } from '../query-blocks.js';
import { MAX_PARSED_LENGTH } from '../limits.js';
import type { IToken } from 'chevrotain';
import { CstUtils, GrammarAST, type AstNode, type LangiumDocument } from 'langium';
import { DefaultCompletionProvider, type CompletionProviderOptions, type NextFeature } from 'langium/lsp';
import {
    CompletionItemKind,
    CompletionList,
    InsertTextFormat,
    type CompletionItem,
    type CompletionParams,
    type Range,
} from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import {
    AGGREGATES,
    SCALAR_FUNCTIONS,
    SCALAR_OPERATORS,
    TABULAR_OPERATORS,
    formatSignature,
    lookupTabularOperator,
    type AggregateFunction,
    type ScalarFunction,
} from '../builtins/index.js';
import * as ast from '../generated/ast.js';
import { SYS_TIME_FIELD } from '../schema/schema-provider.js';
import { isTabularOperatorNode, mergeByName, type AplTypeComputer } from '../types/apl-type-computer.js';
import type { ColumnType, RowType } from '../types/apl-types.js';
import { functionMarkdown, tabularOperatorMarkdown } from './apl-docs.js';
import { bracketName as bracketed, isPlainIdentifier, quoteName, safely } from './apl-names.js';

/** Rules whose keywords are names, not keywords, when completing. */
const NAME_RULES = new Set(['Name', 'MemberName', 'ColumnName', 'TypeName', 'OptionName']);

/** Clause keywords offered when the grammar allows them (never operators or statement words). */
const CLAUSE_KEYWORDS = new Set([
    'by', 'asc', 'desc', 'granny-asc', 'granny-desc', 'nulls', 'first', 'last', 'on', 'with', 'as', 'to', 'typeof',
    'step', 'from', 'default', 'limit', 'range',
]);

/** Options written `name=value`. */
const OPTION_KEYWORDS = new Set(['kind', 'flags', 'withsource', 'isfuzzy', 'with_itemindex', 'bagexpansion', 'replaceToken', 'replaceHash', 'redactGroups']);

/** Word operators offered after an operand in predicates. */
const WORD_OPERATORS = new Set(SCALAR_OPERATORS.map(o => o.name).filter(n => /^!?[a-z]/.test(n)));
const PREDICATE_STAGES = new Set(['where', 'search', 'extend', 'extend-valid', 'project', 'print', 'let']);

/** Words that start a statement or a source. */
const SOURCE_KEYWORDS = ['let', 'set', 'declare', 'print', 'datatable', 'externaldata', 'union', 'search'];

const TABULAR_NAMES = new Set(TABULAR_OPERATORS.flatMap(o => [o.name, ...(o.aliases ?? [])]));

/** Known values of `kind=` per operator. */
const KIND_VALUES: Record<string, string[]> = {
    join: ['inner', 'innerunique', 'leftouter', 'rightouter', 'fullouter', 'leftanti', 'rightanti', 'leftsemi', 'rightsemi'],
    lookup: ['leftouter', 'inner'],
    parse: ['simple', 'regex', 'relaxed'],
    'parse-where': ['simple', 'regex'],
    'mv-expand': ['bag', 'array'],
    search: ['default', 'case_insensitive', 'case_sensitive'],
};

/** Tokens after which a `[` starts a bracketed name (`| where [`, `by [`, `, [`), not an index or a list. */
const NAME_STARTS_AFTER = new Set([
    'where', 'by', 'project', 'project-away', 'project-keep', 'project-reorder', 'extend', 'summarize', 'distinct',
    'on', ',', '=', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'and', 'or', 'not',
]);

const enum Sort {
    Column = '1',
    Let = '2',
    Function = '3',
    Keyword = '4',
    Operator = '5',
    Last = '9',
}

/** Where the cursor is, from the tokens before it. */
interface TokenContext {
    tokens: IToken[];
    previous?: IToken;
    /** The keyword of the tabular stage (or statement) the cursor is in: `where`, `summarize`, `let`, ... */
    stage?: string;
    /** How many `(` are open inside the stage before the cursor. */
    openParens: number;
    /** Inside the argument list of a call. */
    inCall: boolean;
    /** The stage's clause keyword seen last at depth 0 (`by`, `on`, ...). */
    lastClause?: string;
    sourcePosition: boolean;
}

/**
 * Completion for APL: datasets at a query's start, fields of the row in scope (dotted names inserted
 * as `['geo.city']`, also inside `['geo.` and after `geo.`), tabular operators after `|`,
 * aggregations in summarize/make-series and scalar functions elsewhere (as snippets), `let` names,
 * and only the clause keywords the grammar allows at the cursor.
 */
export class AplCompletionProvider extends DefaultCompletionProvider {
    private readonly types: AplTypeComputer;

    override readonly completionOptions: CompletionProviderOptions = {
        triggerCharacters: ['|', '.', '[', "'", '(', ','],
    };

    constructor(services: AplServices) {
        super(services);
        this.types = services.types.TypeComputer;
    }

    override async getCompletion(document: LangiumDocument, params: CompletionParams): Promise<CompletionList | undefined> {
        const text = document.textDocument.getText();
        // A document too large to analyse (APL1003) gets no completion rather than a lex of megabytes per keystroke.
        if (text.length > MAX_PARSED_LENGTH) return CompletionList.create([], false);
        const offset = document.textDocument.offsetAt(params.position);
        const items = safely('completion', [] as CompletionItem[], () => this.complete(document, text, offset));
        // Sent in sortText order: a client that shows the list as it comes (or breaks ties by
        // position) then shows `status` before `server_datacenter` for `sta`, too.
        items.sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
        return CompletionList.create(items, false);
    }

    private complete(document: LangiumDocument, text: string, offset: number): CompletionItem[] {
        const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        const lineBefore = text.slice(lineStart, offset);
        if (this.inCommentOrString(text, offset, lineBefore)) return [];

        // `['geo.` : a bracketed name being typed.
        const bracket = /\[\s*(['"])((?:[^'"\\\n]|\\.)*)$/.exec(lineBefore);
        if (bracket) return this.completeBracket(document, text, offset, offset - bracket[0].length, bracket[1] as `'` | '"', bracket[2]);
        // `[` (VS Code makes it `[]`) where a name starts: a dataset or a field, inserted as `['name']`.
        if (lineBefore.endsWith('[')) {
            const named = this.completeBareBracket(document, text, offset);
            if (named) return named;
        }

        // `geo.ci` : a dotted name.
        const dotted = /(?:^|[^A-Za-z0-9_$.\]'")])((?:[A-Za-z_$][A-Za-z0-9_$]*\.)+)([A-Za-z0-9_$]*)$/.exec(lineBefore);
        if (dotted) return this.completeDotted(document, text, offset, dotted[1].slice(0, -1), dotted[2]);

        const word = /[A-Za-z_$][A-Za-z0-9_$-]*$/.exec(lineBefore)?.[0] ?? '';
        // A new name is being written (`let x`, `extend x`): nothing to offer.
        if (/\blet\s+[A-Za-z_$]*$/.test(lineBefore)) return [];
        const wordStart = offset - word.length;
        const range = this.rangeOf(document, wordStart, offset + (/^[A-Za-z0-9_$]*/.exec(text.slice(offset))?.[0].length ?? 0));
        const tokens = this.lexer.tokenize(text.slice(0, wordStart)).tokens;
        const context = this.tokenContext(text, tokens, wordStart);

        // `kind=` : an option's value.
        const option = /\b([A-Za-z_]+)\s*=\s*$/.exec(text.slice(Math.max(0, wordStart - 40), wordStart));
        if (option && OPTION_KEYWORDS.has(option[1]) && context.previous?.image === '=') {
            const values = option[1] === 'kind' ? KIND_VALUES[context.stage ?? ''] ?? [] : option[1] === 'isfuzzy' || option[1] === 'replaceHash' || option[1] === 'redactGroups' ? ['true', 'false'] : [];
            return this.filter(word, values.map(v => ({ label: v, kind: CompletionItemKind.EnumMember, sortText: Sort.Keyword + v, textEdit: { range, newText: v } })));
        }

        const features = this.findFeaturesAt(document.textDocument, wordStart);
        const keywords = new Set<string>();
        let expectsExpression = false;
        let expectsColumn = false;
        for (const f of features) {
            const rule = ruleOf(f.feature);
            if (GrammarAST.isKeyword(f.feature) && !NAME_RULES.has(rule ?? '')) keywords.add(f.feature.value);
            if (f.property === 'function' || f.type === 'BracketReference' || (f.property === 'name' && rule === 'Name' && !f.type)) expectsExpression = true;
            if (f.property === 'segments' || (f.type === 'ColumnPattern' && f.property === 'columns')) expectsColumn = true;
        }
        const items: CompletionItem[] = [];

        // After `|`: the tabular operators.
        if (context.previous?.image === '|') {
            for (const entry of TABULAR_OPERATORS) {
                for (const name of [entry.name, ...(entry.aliases ?? [])]) {
                    if (!keywords.has(name)) continue;
                    items.push({
                        label: name,
                        kind: CompletionItemKind.Keyword,
                        detail: entry.syntax,
                        documentation: { kind: 'markdown', value: tabularOperatorMarkdown(entry) },
                        sortText: Sort.Keyword + name,
                        textEdit: { range, newText: name },
                    });
                }
            }
            return this.filter(word, items);
        }

        // An operand ends right before the cursor: continue it (operators, clause keywords), do not start an expression.
        const afterOperand = endsOperand(context.previous) || NO_ARGUMENT_OPERATORS.has(context.previous?.image ?? '') || keywords.has('asc');
        if (context.sourcePosition && expectsExpression) {
            this.addDatasets(items, range);
            this.addLets(items, document, wordStart, range, true);
            if (context.stage === undefined || context.previous?.image === ';' || this.blankLineBefore(text, context.previous, wordStart)) {
                for (const k of SOURCE_KEYWORDS) if (keywords.has(k)) items.push(this.keywordItem(k, range));
            }
            if (context.stage === 'let') this.addFunctions(items, SCALAR_FUNCTIONS, range);
            const sourceOperator = context.previous ? lookupTabularOperator(context.previous.image) : undefined;
            for (const k of keywords) {
                if (OPTION_KEYWORDS.has(k) && sourceOperator?.keywords?.includes(`${k}=`)) items.push({ ...this.keywordItem(`${k}=`, range), filterText: k });
            }
            return this.filter(word, items);
        }

        const operatorEntry = context.stage ? lookupTabularOperator(context.stage) : undefined;
        const allowedClause = (k: string) => {
            if (!CLAUSE_KEYWORDS.has(k)) return false;
            const listed = operatorEntry?.keywords;
            if (k === 'typeof') return context.previous?.image === 'to';
            if (!listed || k === 'by' || k === 'first' || k === 'last' || k === 'range') return true;
            return listed.some(l => l === k || l.startsWith(k + ' ') || l.endsWith(' ' + k));
        };
        for (const k of keywords) {
            if (allowedClause(k)) items.push(this.keywordItem(k, range));
            else if (OPTION_KEYWORDS.has(k) && (operatorEntry?.keywords ?? ['kind=']).includes(`${k}=`)) {
                items.push({ ...this.keywordItem(`${k}=`, range), filterText: k });
            }
        }

        if (afterOperand) {
            if (PREDICATE_STAGES.has(context.stage ?? '') || context.inCall) {
                for (const op of keywords) {
                    if (WORD_OPERATORS.has(op) || op === 'and' || op === 'or' || op === 'between' || op === 'in') {
                        items.push({ label: op, kind: CompletionItemKind.Operator, sortText: Sort.Operator + (op.startsWith('!') ? 'z' : '') + op, textEdit: { range, newText: op } });
                    }
                }
            }
            return this.filter(word, items);
        }

        if (expectsExpression || expectsColumn) {
            const scope = this.scopeAt(document, wordStart);
            const row = scope?.row;
            const aggregation = !context.inCall && (context.stage === 'summarize' || context.stage === 'make-series')
                && context.lastClause !== 'by' && context.lastClause !== 'on' && context.lastClause !== 'step';
            if (row && !aggregation) this.addColumns(items, row.columns, range, expectsColumn && !expectsExpression);
            if (expectsExpression) {
                if (scope?.join && context.stage !== undefined) {
                    for (const side of ['$left', '$right']) items.push(this.keywordItem(side, range));
                }
                this.addLets(items, document, wordStart, range, false);
                if (aggregation) {
                    this.addFunctions(items, AGGREGATES.filter(a => context.stage !== 'make-series' || a.inMakeSeries !== false), range, Sort.Column);
                }
                this.addFunctions(items, SCALAR_FUNCTIONS, range);
                if (context.stage !== 'summarize' || context.inCall || context.lastClause === 'by') {
                    for (const k of ['true', 'false']) if (keywords.has(k)) items.push(this.keywordItem(k, range));
                    if (keywords.has('dynamic')) items.push({ ...this.keywordItem('dynamic', range), insertTextFormat: InsertTextFormat.Snippet, textEdit: { range, newText: 'dynamic($1)' } });
                }
            }
        }
        return this.filter(word, items);
    }

    // ------------------------------------------------------------------ contexts

    private inCommentOrString(text: string, offset: number, lineBefore: string): boolean {
        const result = this.lexer.tokenize(text.slice(0, offset));
        const hidden = result.hidden ?? [];
        const lastComment = hidden[hidden.length - 1];
        if (lastComment && lastComment.endOffset !== undefined && lastComment.endOffset + 1 >= offset && !/\n/.test(text.slice(lastComment.startOffset, offset))) return true;
        // An unterminated string on this line (but not a bracketed name being typed).
        const lineStart = offset - lineBefore.length;
        return result.errors.some(e => e.offset >= lineStart && /['"]/.test(text[e.offset] ?? '') && !/\[\s*$/.test(text.slice(lineStart, e.offset)));
    }

    private blankLineBefore(text: string, previous: IToken | undefined, at: number): boolean {
        if (!previous) return true;
        return /\n[ \t]*\r?\n/.test(text.slice(previous.endOffset! + 1, at));
    }

    private tokenContext(text: string, documentTokens: IToken[], at: number): TokenContext {
        // Only the cursor's query block counts: a blank line (the BLANK_LINE token) starts a new query.
        let blockStart = documentTokens.length;
        while (blockStart > 0 && documentTokens[blockStart - 1].tokenType.name !== BLANK_LINE) blockStart--;
        const tokens = blockStart === 0 ? documentTokens : documentTokens.slice(blockStart);
        const previous = tokens[tokens.length - 1];
        let depth = 0;
        let openParens = 0;
        let inCall = false;
        let stage: string | undefined;
        let lastClause: string | undefined;
        let stageStart = 0;
        for (let i = tokens.length - 1; i >= 0; i--) {
            const t = tokens[i].image;
            if (t === ')' || t === ']' || t === '}') depth++;
            else if (t === '(' || t === '[' || t === '{') {
                if (depth > 0) depth--;
                else {
                    openParens++;
                    if (t === '(' && i > 0 && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(tokens[i - 1].image) && !TABULAR_NAMES.has(tokens[i - 1].image)) inCall = inCall || openParens === 1 ? true : inCall;
                    if (t === '(' && i > 0 && ['join', 'lookup', 'in', 'union'].includes(tokens[i - 1].image) && openParens === 1) {
                        // a sub-query or list: the stage starts here
                        stage = undefined;
                        stageStart = i + 1;
                        break;
                    }
                }
            } else if (depth === 0 && t === '|') {
                stage = tokens[i + 1]?.image;
                stageStart = i + 1;
                break;
            } else if (depth === 0 && t === ';') {
                stageStart = i + 1;
                stage = tokens[i + 1]?.image === 'let' ? 'let' : undefined;
                break;
            }
            if (i === 0) stage = tokens[0].image === 'let' ? 'let' : tokens[0].image === 'print' ? 'print' : undefined;
        }
        if (stage && !TABULAR_NAMES.has(stage) && stage !== 'let' && stage !== 'print') stage = undefined;
        // The last clause keyword at the stage's top level.
        let d = 0;
        for (let i = stageStart; i < tokens.length; i++) {
            const t = tokens[i].image;
            if (t === '(' || t === '[' || t === '{') d++;
            else if (t === ')' || t === ']' || t === '}') d = Math.max(0, d - 1);
            else if (d === 0 && (t === 'by' || t === 'on' || t === 'step' || t === 'with')) lastClause = t;
        }
        // A blank line ends a query block.
        const blank = previous !== undefined && /\n[ \t]*\r?\n/.test(text.slice(previous.endOffset! + 1, at));
        return {
            tokens,
            previous,
            stage: blank ? undefined : stage,
            openParens,
            inCall: blank ? false : inCall,
            lastClause,
            sourcePosition: blank || this.isSourcePosition(tokens),
        };
    }

    /** Whether a table (dataset, let-bound table) is expected after these tokens. */
    private isSourcePosition(tokens: IToken[]): boolean {
        let i = tokens.length - 1;
        if (i < 0) return true;
        const img = (k: number) => tokens[k]?.image;
        if (img(i) === ';') return true;
        if (img(i) === '=' && img(i - 2) === 'let') return true;
        if (img(i) === '(' && (img(i - 1) === 'join' || img(i - 1) === 'lookup')) return true;
        if (img(i) === '(' && img(i - 1) === '(' ) return false;
        // Skip `name=value` options: `join kind=inner <|>`.
        while (i >= 2 && img(i - 1) === '=' && OPTION_KEYWORDS.has(img(i - 2) ?? '')) i -= 3;
        if (img(i) === '(' && (img(i - 1) === 'join' || img(i - 1) === 'lookup')) return true;
        const word = img(i);
        if (word === 'join' || word === 'lookup' || word === 'union') return true;
        if (word === ',') {
            // `union a, <|>`
            let depth = 0;
            for (let k = i - 1; k >= 0; k--) {
                const t = img(k);
                if (t === ')') depth++;
                else if (t === '(') { if (depth === 0) return false; depth--; }
                else if (depth === 0 && (t === '|' || t === ';')) return img(k + 1) === 'union';
                if (k === 0) return t === 'union';
            }
        }
        return false;
    }

    /** The row type in scope at `offset`, from the parsed document. */
    private scopeAt(document: LangiumDocument, offset: number): { row: RowType; join: boolean } | undefined {
        const root = document.parseResult.value.$cstNode;
        if (!root) return undefined;
        let leaf = CstUtils.findLeafNodeBeforeOffset(root, offset);
        while (leaf?.hidden) leaf = CstUtils.getPreviousNode(leaf, false) as typeof leaf;
        const node: AstNode | undefined = leaf?.astNode;
        if (!node) return undefined;
        const op = isTabularOperatorNode(node) ? node : undefined;
        if (op) {
            if (ast.isJoinOperator(op) || ast.isLookupOperator(op)) {
                const before = this.types.rowTypeBefore(op);
                const right = this.types.rowTypeOfSource(op.right);
                return { row: mergeByName([before, right]), join: true };
            }
            return { row: this.types.rowTypeBefore(op), join: false };
        }
        const scope = this.types.scopeOf(node);
        if (scope) return { row: scope.row, join: scope.left !== undefined };
        // After a complete stage whose next operator did not parse: the row after the last stage.
        let pipeline: AstNode | undefined = node;
        while (pipeline && !ast.isPipeline(pipeline)) pipeline = pipeline.$container;
        if (ast.isPipeline(pipeline)) {
            const before = pipeline.operators.filter(o => (o.$cstNode?.end ?? Infinity) <= offset);
            const last = before[before.length - 1];
            return { row: last ? this.types.rowTypeAfter(last) : this.types.rowTypeOfSource(pipeline.source), join: false };
        }
        return undefined;
    }

    // ------------------------------------------------------------------ special forms

    /**
     * `['sam` or `['sam']` (VS Code closes the quote and the bracket): the edit replaces the text inside
     * the quotes only, so nothing is doubled and the editor filters on what is typed there; without a
     * closing quote it closes the name too.
     */
    private completeBracket(document: LangiumDocument, text: string, offset: number, start: number, quote: `'` | '"', typed: string): CompletionItem[] {
        // What is already typed after the cursor, never past the line's end: an unterminated `['` at
        // the end of a line must not swallow the next line.
        const rest = /^(?:[^'"\]\r\n\\]|\\.)*/.exec(text.slice(offset))?.[0] ?? '';
        const closed = text.slice(offset + rest.length).startsWith(quote);
        const inside = offset - typed.length;
        const range = this.rangeOf(document, inside, offset + rest.length);
        const escape = (name: string) => name.replace(/\\/g, '\\\\').replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
        const newText = (name: string) => (closed ? escape(name) : `${escape(name)}${quote}]`);
        const tokens = this.lexer.tokenize(text.slice(0, start)).tokens;
        const items: CompletionItem[] = [];
        if (this.tokenContext(text, tokens, start).sourcePosition) {
            this.addDatasets(items, range);
        } else {
            const scope = this.scopeAt(document, start);
            if (scope) for (const c of scope.row.columns) items.push(this.columnItem(c, range));
        }
        for (const item of items) item.textEdit = { range, newText: newText(item.label as string) };
        return items.filter(i => typed === '' || (i.label as string).toLowerCase().includes(typed.toLowerCase()) || this.fuzzyMatcher.match(typed, i.label as string));
    }

    /**
     * A bare `[` (or `[]`) where a name starts: datasets at a source position, else the fields in
     * scope, each as `['name']`. Undefined where `[` indexes a value (`tags[`, `f(x)[`) or opens a list.
     */
    private completeBareBracket(document: LangiumDocument, text: string, offset: number): CompletionItem[] | undefined {
        const start = offset - 1;
        const closing = /^[ \t]*\]/.exec(text.slice(offset))?.[0] ?? '';
        const range = this.rangeOf(document, start, offset + closing.length);
        const tokens = this.lexer.tokenize(text.slice(0, start)).tokens;
        const context = this.tokenContext(text, tokens, start);
        const items: CompletionItem[] = [];
        if (context.sourcePosition) {
            this.addDatasets(items, range);
        } else {
            const previous = context.previous;
            if (!previous || !NAME_STARTS_AFTER.has(previous.image)) return undefined;
            const scope = this.scopeAt(document, start);
            if (scope) for (const c of scope.row.columns) items.push(this.columnItem(c, range));
        }
        for (const item of items) {
            item.textEdit = { range, newText: bracketed(item.label as string) };
            item.filterText = `[${item.label as string}`;
        }
        return items;
    }

    private completeDotted(document: LangiumDocument, text: string, offset: number, chain: string, typed: string): CompletionItem[] {
        const chainStart = offset - typed.length - chain.length - 1;
        const wordStart = offset - typed.length;
        const end = offset + (/^[A-Za-z0-9_$]*/.exec(text.slice(offset))?.[0].length ?? 0);
        const scope = this.scopeAt(document, chainStart);
        if (!scope) return [];
        let columns = scope.row.columns;
        let prefix = chain + '.';
        if (chain === '$left' || chain === '$right') {
            prefix = '';
            const op = this.joinAt(document, chainStart);
            if (op) columns = chain === '$left' ? this.types.rowTypeBefore(op).columns : this.types.rowTypeOfSource(op.right).columns;
        }
        const items: CompletionItem[] = [];
        for (const c of columns) {
            if (!c.name.startsWith(prefix) || c.name.length === prefix.length) continue;
            const rest = c.name.slice(prefix.length);
            const plain = rest.split('.').every(s => isPlainIdentifier(s));
            const item = this.columnItem(c, this.rangeOf(document, wordStart, end));
            item.label = rest;
            item.filterText = rest;
            item.textEdit = plain
                ? { range: this.rangeOf(document, wordStart, end), newText: rest }
                : { range: this.rangeOf(document, chainStart, end), newText: prefix ? bracketed(c.name) : `${chain}.${bracketed(rest)}` };
            if (!plain) item.filterText = `${chain}.${rest}`;
            items.push(item);
        }
        return this.filter(typed, items);
    }

    private joinAt(document: LangiumDocument, offset: number): ast.JoinOperator | ast.LookupOperator | undefined {
        const root = document.parseResult.value.$cstNode;
        let node: AstNode | undefined = root ? CstUtils.findLeafNodeBeforeOffset(root, offset)?.astNode : undefined;
        while (node && !ast.isJoinOperator(node) && !ast.isLookupOperator(node)) node = node.$container;
        return node as ast.JoinOperator | ast.LookupOperator | undefined;
    }

    // ------------------------------------------------------------------ items

    private rangeOf(document: LangiumDocument, start: number, end: number): Range {
        return { start: document.textDocument.positionAt(start), end: document.textDocument.positionAt(end) };
    }

    /** Drops duplicates and items that do not match the typed word; exact prefix matches sort first. */
    private filter(word: string, items: CompletionItem[]): CompletionItem[] {
        const seen = new Set<string>();
        const out: CompletionItem[] = [];
        for (const i of items) {
            const key = `${i.kind}:${i.label}`;
            if (seen.has(key)) continue;
            seen.add(key);
            const text = i.filterText ?? (i.label as string);
            if (word !== '' && !this.fuzzyMatcher.match(word, text)) continue;
            if (word !== '') i.sortText = (text.toLowerCase().startsWith(word.toLowerCase()) ? 'a' : 'b') + (i.sortText ?? '');
            out.push(i);
        }
        return out;
    }

    private keywordItem(k: string, range: Range): CompletionItem {
        return { label: k, kind: CompletionItemKind.Keyword, sortText: Sort.Keyword + k, textEdit: { range, newText: k } };
    }

    private columnItem(c: ColumnType, range: Range): CompletionItem {
        return {
            label: c.name,
            kind: CompletionItemKind.Field,
            detail: c.type,
            sortText: (c.name === SYS_TIME_FIELD ? Sort.Last : Sort.Column) + c.name,
            textEdit: { range, newText: quoteName(c.name) },
        };
    }

    private addColumns(items: CompletionItem[], columns: readonly ColumnType[], range: Range, _columnOnly: boolean): void {
        for (const c of columns) items.push(this.columnItem(c, range));
    }

    private addDatasets(items: CompletionItem[], range: Range): void {
        for (const ds of this.types.syncSchema().datasets()) {
            items.push({
                label: ds.name,
                kind: CompletionItemKind.Module,
                detail: `dataset · ${ds.fields.length} fields`,
                sortText: Sort.Column + ds.name,
                filterText: ds.name,
                textEdit: { range, newText: bracketed(ds.name) },
            });
        }
    }

    private addLets(items: CompletionItem[], document: LangiumDocument, offset: number, range: Range, tablesOnly: boolean): void {
        const model = document.parseResult.value as ast.Model;
        const block = blockNumberAt(model, offset);
        for (const s of model.statements) {
            if ((s.$cstNode?.end ?? Infinity) > offset) break;
            // A `let` of another query block is not visible here.
            if (blockNumberAt(model, s.$cstNode?.offset ?? 0) !== block) continue;
            if (ast.isLetStatement(s) && s.name) {
                const tabular = s.value ? this.types.isTabularPosition(s.value) : false;
                if (tablesOnly && !tabular) continue;
                const type = tabular ? 'table' : s.value ? this.types.typeOf(s.value) : 'unknown';
                items.push({ label: s.name, kind: CompletionItemKind.Variable, detail: `let ${s.name}: ${type}`, sortText: Sort.Let + s.name, textEdit: { range, newText: s.name } });
            } else if (ast.isDeclareStatement(s) && !tablesOnly) {
                for (const p of s.parameters) {
                    items.push({ label: p.name, kind: CompletionItemKind.Variable, detail: `${p.name}: ${p.type}`, sortText: Sort.Let + p.name, textEdit: { range, newText: p.name } });
                }
            }
        }
    }

    private addFunctions(items: CompletionItem[], entries: readonly (ScalarFunction | AggregateFunction)[], range: Range, sort: Sort = Sort.Function): void {
        const snippets = this.clientCapabilities?.completionItem?.snippetSupport ?? true;
        for (const entry of entries) {
            for (const name of [entry.name, ...(entry.aliases ?? [])]) {
                const sig = entry.signatures[0];
                const required = sig ? sig.params.filter(p => !p.optional) : [];
                const newText = snippets
                    ? `${name}(${required.map((p, i) => `\${${i + 1}:${p.name.replace(/[$}\\]/g, '')}}`).join(', ')})`
                    : `${name}()`;
                items.push({
                    label: name,
                    kind: CompletionItemKind.Function,
                    detail: sig ? formatSignature(name, sig) : name,
                    documentation: { kind: 'markdown', value: functionMarkdown(entry, name) },
                    sortText: sort + name,
                    insertTextFormat: snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
                    textEdit: { range, newText },
                });
            }
        }
    }
}

const OPERAND_TOKENS = new Set(['ID', 'LONG', 'REAL', 'TIMESPAN', 'DATETIME', 'STRING', 'VERBATIM_STRING', 'BRACKET_NAME', 'WILDCARD']);

/** Operators that take nothing after their name. */
const NO_ARGUMENT_OPERATORS = new Set(['count', 'getschema']);

function endsOperand(token: IToken | undefined): boolean {
    if (!token) return false;
    return OPERAND_TOKENS.has(token.tokenType.name) || [')', ']', '}', 'true', 'false', 'null'].includes(token.image);
}

function ruleOf(element: GrammarAST.AbstractElement): string | undefined {
    let cur: AstNode | undefined = element;
    while (cur && !GrammarAST.isParserRule(cur)) cur = cur.$container;
    return cur && GrammarAST.isParserRule(cur) ? cur.name : undefined;
}

export type { NextFeature };
