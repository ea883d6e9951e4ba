/**
 * What an editor needs to run queries from a document (the `apl/queryInfo` request):
 * - the query blocks: runs of text separated by blank lines, as every Kusto editor splits a script,
 *   split where the language server's own parser splits them (language/query-blocks.ts);
 * - for each block, how its result can be paged: a result that keeps `_time` and comes from a
 *   row-by-row pipeline over datasets (no aggregation, no take/top, no join) can be paged by cursor
 *   or by time with `| sort by _time <order> | limit N` appended; anything else runs once;
 * - whether it is a time series (`summarize … by bin(_time, …)` or `bin_auto(_time)`), to chart.
 *
 * Each block is parsed on its own: blocks are independent queries (a `let` does not reach into the
 * next block), and the analysis uses the parser and the type computer, never a regex over the text.
 */
import { interruptAndCheck, type Cancellation } from 'langium';
import type { AplServices } from '../apl-module.js';
import { MAX_PARSED_LENGTH } from '../limits.js';
import { queryBlockSpans, type QueryBlockSpan } from '../query-blocks.js';
import type * as ast from '../generated/ast.js';
import { AplTypeComputer } from '../types/apl-type-computer.js';
import type { RowType } from '../types/apl-types.js';

export interface QueryInfoPosition {
    /** 0-based, as in LSP. */
    line: number;
    character: number;
}

export interface QueryBlockInfo {
    /** From the first character of the block's first token to the end of its last one. */
    range: { start: QueryInfoPosition; end: QueryInfoPosition };
    /** Offsets into the document text, same span as `range`. */
    startOffset: number;
    endOffset: number;
    /**
     * False in a document longer than MAX_PARSED_LENGTH (the cheap path, as for every other request on
     * it): the blocks are found by a scan for blank lines, none is parsed, `runnable` only says the block
     * has a line that is not a comment, and `syntaxOk`/`pageable` are false. Ask again with the block's
     * text (`{ text }`) for its analysis.
     */
    analysed: boolean;
    /** The block holds a query statement (not only comments, `let`s or `set`s). */
    runnable: boolean;
    /** The block parses without syntax errors. */
    syntaxOk: boolean;
    /** Its result can be paged by `_time` (see the module comment). */
    pageable: boolean;
    /** The time order the pages follow: the query's own `sort by _time asc` makes it `asc`. */
    order: 'asc' | 'desc';
    /** Why the result is not pageable (for the results view), when it is not. */
    notPageableReason?: string;
    /** The result is a time series: the name of its `bin(_time, …)`/`bin_auto(_time)` column. */
    timeColumn?: string;
    /** The datasets its source reads (`['a']`, `b`, `union a, b`), in order; wildcards and `let`s are not names. */
    datasets?: string[];
}

export interface QueryInfo {
    blocks: QueryBlockInfo[];
}

/** Operators whose output rows each come from one input row: re-running them on a narrower time range continues the result. */
const ROW_BY_ROW = new Set([
    'WhereOperator', 'ExtendOperator', 'ExtendValidOperator', 'ProjectOperator', 'ProjectAwayOperator',
    'ProjectKeepOperator', 'ProjectRenameOperator', 'ProjectReorderOperator', 'ParseOperator', 'ParseWhereOperator',
    'ParseKvOperator', 'MvExpandOperator', 'SearchOperator', 'RedactOperator', 'SortOperator',
]);

const AGGREGATING = new Set(['SummarizeOperator', 'CountOperator', 'MakeSeriesOperator', 'DistinctOperator', 'TopOperator', 'GetschemaOperator']);

/** The blocks of `text` and how each runs. */
export function queryInfo(text: string, services: AplServices): QueryInfo {
    return { blocks: [...blockInfos(text, services)] };
}

/**
 * `queryInfo` for the language server: it yields to the event loop between blocks (other requests are
 * answered meanwhile) and stops with Langium's OperationCancelled when `token` is cancelled.
 */
export async function queryInfoAsync(text: string, services: AplServices, token: Cancellation.CancellationToken): Promise<QueryInfo> {
    const blocks: QueryBlockInfo[] = [];
    for (const block of blockInfos(text, services)) {
        blocks.push(block);
        await interruptAndCheck(token);
    }
    return { blocks };
}

function* blockInfos(text: string, services: AplServices): Generator<QueryBlockInfo> {
    const large = text.length > MAX_PARSED_LENGTH;
    const spans = large ? blankLineSpans(text) : queryBlockSpans(text, services);
    const lines = lineStarts(text);
    for (const { start, end } of spans) {
        const blockText = text.slice(start, end);
        yield {
            range: { start: positionAt(lines, start), end: positionAt(lines, end) },
            startOffset: start,
            endOffset: end,
            ...(large ? notAnalysed(blockText) : { analysed: true, ...analyseBlock(blockText, services) }),
        };
    }
}

/** Characters of a blank line: the BLANK_LINE terminal's (language/apl.langium). */
const BLANK = /^[ \t\v\f\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]*\r?$/;
const NOT_BLANK = /[^\s\u200b]/;

/**
 * The blocks of a document too large to lex, by a scan of its lines: no APL token spans lines, so a
 * blank line ends a block here as the lexer's BLANK_LINE does (a block runs from its first character
 * that is not white space to just past its last one).
 */
export function blankLineSpans(text: string): QueryBlockSpan[] {
    const spans: QueryBlockSpan[] = [];
    let current: QueryBlockSpan | undefined;
    for (let at = 0; at <= text.length; ) {
        const newline = text.indexOf('\n', at);
        const lineEnd = newline < 0 ? text.length : newline;
        const line = text.slice(at, lineEnd);
        if (BLANK.test(line)) {
            if (current) spans.push(current);
            current = undefined;
        } else {
            const first = line.search(NOT_BLANK);
            if (first >= 0) {
                let last = line.length;
                while (last > 0 && !NOT_BLANK.test(line[last - 1])) last--;
                current ??= { start: at + first, end: at + last };
                current.end = at + last;
            }
        }
        if (newline < 0) break;
        at = newline + 1;
    }
    if (current) spans.push(current);
    return spans;
}

function notAnalysed(blockText: string): Omit<QueryBlockInfo, 'range' | 'startOffset' | 'endOffset'> {
    const runnable = blockText.split('\n').some(line => NOT_BLANK.test(line) && !/^\s*\/\//.test(line));
    return {
        analysed: false,
        runnable,
        syntaxOk: false,
        pageable: false,
        order: 'desc',
        notPageableReason: `the document is longer than ${MAX_PARSED_LENGTH.toLocaleString('en-US')} characters and is not analysed`,
    };
}

function analyseBlock(blockText: string, services: AplServices): Omit<QueryBlockInfo, 'range' | 'startOffset' | 'endOffset' | 'analysed'> {
    const parsed = services.parser.LangiumParser.parse<ast.Model>(blockText);
    const syntaxOk = parsed.lexerErrors.length === 0 && parsed.parserErrors.length === 0;
    const statements = parsed.value.statements ?? [];
    const query = [...statements].reverse().find((s): s is ast.QueryStatement => s.$type === 'QueryStatement');
    if (!query?.body) return { runnable: false, syntaxOk, pageable: false, order: 'desc', notPageableReason: 'the block has no query', datasets: [] };
    const types: AplTypeComputer = services.types.TypeComputer;
    const body = query.body;
    const pipeline = body.$type === 'Pipeline' ? (body as ast.Pipeline) : undefined;
    const operators = pipeline?.operators ?? [];
    const source = pipeline ? pipeline.source : body;
    const timeColumn = timeSeriesColumn(operators, types);
    const base = { runnable: true, syntaxOk, timeColumn, datasets: [...new Set(sourceDatasets(source, types))] };
    const notPageable = (reason: string) => ({ ...base, pageable: false, order: 'desc' as const, notPageableReason: reason });

    if (!syntaxOk) return notPageable('the query has syntax errors');
    if (!isDatasetSource(source, types)) return notPageable('its source is not a dataset');
    let order: 'asc' | 'desc' = 'desc';
    for (const op of operators) {
        if (AGGREGATING.has(op.$type)) return notPageable(`it aggregates (${op.keyword})`);
        if (op.$type === 'TakeOperator') return notPageable(`it keeps a fixed number of rows (${op.keyword})`);
        if (!ROW_BY_ROW.has(op.$type)) return notPageable(`'${op.keyword}' does not keep rows one by one`);
        if (op.$type === 'SortOperator') {
            const sort = op as ast.SortOperator;
            const first = sort.items[0];
            if (sort.items.length !== 1 || !first || types.fieldNameOf(first.expression) !== '_time') {
                return notPageable('it is sorted by something other than _time');
            }
            order = first.direction === 'asc' ? 'asc' : 'desc';
        }
    }
    const row = types.rowTypeOfSource(body);
    if (!keepsTime(row)) return notPageable('its result has no _time column');
    return { ...base, pageable: true, order };
}

function isDatasetSource(source: ast.Expression | undefined, types: AplTypeComputer): boolean {
    if (!source) return false;
    switch (source.$type) {
        case 'NameReference':
        case 'BracketReference':
            return types.letBinding((source as ast.NameReference).name, source) === undefined;
        case 'ParenthesizedExpression':
            return isDatasetSource((source as ast.ParenthesizedExpression).expression, types);
        case 'UnionExpression':
            return (source as ast.UnionExpression).tables.every(t => t.$type === 'TableWildcard' || isDatasetSource((t as ast.TableExpression).expression, types));
        default:
            return false;
    }
}

/** The dataset names a source reads: the same shapes `isDatasetSource` accepts. */
function sourceDatasets(source: ast.Expression | undefined, types: AplTypeComputer): string[] {
    if (!source) return [];
    switch (source.$type) {
        case 'NameReference':
        case 'BracketReference': {
            const name = (source as ast.NameReference).name;
            return types.letBinding(name, source) === undefined ? [name] : [];
        }
        case 'ParenthesizedExpression':
            return sourceDatasets((source as ast.ParenthesizedExpression).expression, types);
        case 'UnionExpression':
            return (source as ast.UnionExpression).tables.flatMap(t => (t.$type === 'TableWildcard' ? [] : sourceDatasets((t as ast.TableExpression).expression, types)));
        default:
            return [];
    }
}

function keepsTime(row: RowType): boolean {
    const time = row.columns.find(c => c.name === '_time');
    if (time) return time.type === 'datetime' || time.type === 'unknown';
    // An unknown schema: every dataset has _time unless the pipeline dropped it (a closed row).
    return row.open;
}

/** The `bin(_time, …)` / `bin_auto(_time)` group column of the last summarize, if the result ends there. */
function timeSeriesColumn(operators: readonly ast.TabularOperator[], types: AplTypeComputer): string | undefined {
    let i = operators.length - 1;
    // A trailing sort, take or project-reorder keeps the series.
    while (i >= 0 && ['SortOperator', 'TakeOperator', 'ProjectReorderOperator'].includes(operators[i].$type)) i--;
    const op = operators[i];
    if (op?.$type !== 'SummarizeOperator') return undefined;
    const summarize = op as ast.SummarizeOperator;
    for (let g = 0; g < summarize.groups.length; g++) {
        const group = summarize.groups[g];
        const call = group.expression;
        if (call?.$type !== 'FunctionCall') continue;
        const fn = call as ast.FunctionCall;
        if (fn.function !== 'bin' && fn.function !== 'bin_auto') continue;
        const first = fn.arguments[0]?.expression;
        if (!first || types.fieldNameOf(first) !== '_time') continue;
        return group.name ?? types.derivedName(call, () => g + 1).name;
    }
    return undefined;
}

/** The offsets where the lines of `text` start. */
export function lineStarts(text: string): number[] {
    const starts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
    return starts;
}

/** The 0-based line and character of `offset`, given the line starts. */
export function positionAt(starts: readonly number[], offset: number): QueryInfoPosition {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset) lo = mid;
        else hi = mid - 1;
    }
    return { line: lo, character: offset - starts[lo] };
}
