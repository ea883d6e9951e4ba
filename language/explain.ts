/**
 * Explain a query (the `apl/explain` request, `apl explain`, the editor's Explain view): for each
 * stage of the query block at a position (its source, then each `| operator`), where it is in the
 * text, the query that runs the pipeline up to it, and the schema after it (columns and types) as the
 * type computer sees it. Pure: row counts and sample rows come from whoever has data (the CLI's
 * evaluator or a service), by running each stage's prefix bounded with `countQuery` / `sampleQuery`.
 *
 * The block is parsed on its own, as `apl/queryInfo` parses it: blocks are independent queries.
 */
import type { AplServices } from './apl-module.js';
import type * as ast from './generated/ast.js';
import { MAX_CHECKED_LENGTH, MAX_PARSED_LENGTH } from './limits.js';
import { blankLineSpans, lineStarts, positionAt, type QueryInfoPosition } from './lsp/apl-query-info.js';
import { blockIndexAt, queryBlockSpans } from './query-blocks.js';
import type { ColumnType } from './types/apl-types.js';

export interface ExplainRange {
    start: QueryInfoPosition;
    end: QueryInfoPosition;
}

export interface ExplainStage {
    /** 0 for the source, then 1, 2, … for each operator. */
    index: number;
    /** The operator's keyword (`where`, `summarize`); undefined for the source. */
    keyword?: string;
    /** The stage's own text (`where status == '500'`, or the source: `['logs']`). */
    text: string;
    /** Where the stage is in the document (0-based LSP positions) and its offsets. */
    range: ExplainRange;
    startOffset: number;
    endOffset: number;
    /**
     * The query up to and including this stage: the block's text from its start (its `let`s and `set`s
     * included) to the end of the stage. Run it bounded (`countQuery`, `sampleQuery`).
     */
    prefix: string;
    /** The columns after the stage, with their types ('unknown' when nothing certain is known). */
    columns: ColumnType[];
    /** More columns than listed may exist: the schema of the source is not (fully) known. */
    open: boolean;
}

export interface Explanation {
    /** The query block that holds the position. */
    range: ExplainRange;
    startOffset: number;
    endOffset: number;
    /** The block parses without syntax errors (a client runs nothing otherwise). */
    syntaxOk: boolean;
    /** The stages, source first; empty when the block has no query. */
    stages: ExplainStage[];
    /** Why there is nothing to explain, when `stages` is empty. */
    problem?: string;
}

/**
 * The explanation of the query block at `offset` of `text` (a document of blocks separated by blank
 * lines), or undefined when no block is at or before it. `services` give the schema.
 */
export function explainQuery(text: string, offset: number, services: AplServices): Explanation | undefined {
    const spans = text.length > MAX_PARSED_LENGTH ? blankLineSpans(text) : queryBlockSpans(text, services);
    const at = blockIndexAt(spans, offset);
    if (at < 0) return undefined;
    const { start, end } = spans[at];
    const lines = lineStarts(text);
    const range = (from: number, to: number): ExplainRange => ({ start: positionAt(lines, from), end: positionAt(lines, to) });
    const block = { range: range(start, end), startOffset: start, endOffset: end };
    if (end - start > MAX_CHECKED_LENGTH) {
        return { ...block, syntaxOk: false, stages: [], problem: `the query is longer than ${MAX_CHECKED_LENGTH.toLocaleString('en-US')} characters and is not analysed` };
    }
    const blockText = text.slice(start, end);
    const parsed = services.parser.LangiumParser.parse<ast.Model>(blockText);
    const syntaxOk = parsed.lexerErrors.length === 0 && parsed.parserErrors.length === 0;
    const query = [...(parsed.value.statements ?? [])].reverse().find((s): s is ast.QueryStatement => s.$type === 'QueryStatement');
    if (!query?.body) return { ...block, syntaxOk, stages: [], problem: 'the block has no query' };

    const types = services.types.TypeComputer;
    const body = query.body;
    const pipeline = body.$type === 'Pipeline' ? (body as ast.Pipeline) : undefined;
    const parts: { node: ast.Expression | ast.TabularOperator; keyword?: string }[] = pipeline
        ? [{ node: pipeline.source }, ...pipeline.operators.map(op => ({ node: op, keyword: op.keyword }))]
        : [{ node: body }];
    const stages: ExplainStage[] = [];
    for (const { node, keyword } of parts) {
        const cst = node?.$cstNode;
        if (!cst) continue;
        const row = types.rowTypeAfter(node);
        stages.push({
            index: stages.length,
            keyword,
            text: cst.text,
            range: range(start + cst.offset, start + cst.end),
            startOffset: start + cst.offset,
            endOffset: start + cst.end,
            prefix: blockText.slice(0, cst.end),
            columns: row.columns.map(c => ({ name: c.name, type: c.type })),
            open: row.open,
        });
    }
    return { ...block, syntaxOk, stages };
}

/** The query that counts the rows after a stage: its prefix, then `| count` on a line of its own (after any comment). */
export function countQuery(stage: Pick<ExplainStage, 'prefix'>): string {
    return `${stage.prefix}\n| count`;
}

/** The query that reads the first `rows` rows after a stage. */
export function sampleQuery(stage: Pick<ExplainStage, 'prefix'>, rows: number): string {
    return `${stage.prefix}\n| take ${rows}`;
}

/** A table as a query result holds it (the service's tabular shape, column-major). */
export interface StageTable {
    fields: readonly { name: string; type?: string }[];
    columns: readonly (readonly unknown[])[] | null;
}

/** Runs one APL query where the data is (the evaluator, a service); throws with the problem when it fails. */
export type StageQueryRunner = (apl: string) => Promise<{ tables: readonly StageTable[] }>;

/** What running a stage's bounded queries found. */
export interface StageMeasure {
    index: number;
    /** The rows after the stage (from `| count`); undefined when it did not run. */
    rows?: number;
    /** Its first rows (from `| take N`); undefined when none were asked for or it did not run. */
    sample?: StageTable;
    /** The runner's message when the stage's query failed. */
    error?: string;
    /** Not run because an earlier stage failed (a later prefix holds the same failing text). */
    skipped?: boolean;
}

/** What an explain output says about how it got its row counts. */
export function measureNote(sampleRows: number): string {
    const sample = sampleRows > 0 ? ` and \`| take ${sampleRows}\` for its first rows` : '';
    return `Each stage runs as its own bounded query: the query up to it with \`| count\` for its rows${sample}. The whole query never runs unbounded.`;
}

/**
 * Runs each stage's bounded queries (`countQuery`, then `sampleQuery` when `sampleRows` > 0), first to
 * last, one query at a time. After a stage fails, the later ones are skipped: their prefixes hold it.
 */
export async function measureStages(stages: readonly Pick<ExplainStage, 'index' | 'prefix'>[], run: StageQueryRunner, sampleRows: number): Promise<StageMeasure[]> {
    const measures: StageMeasure[] = [];
    let failed = false;
    for (const stage of stages) {
        if (failed) {
            measures.push({ index: stage.index, skipped: true });
            continue;
        }
        try {
            const counted = await run(countQuery(stage));
            const measure: StageMeasure = { index: stage.index, rows: countOf(counted.tables[0]) };
            if (sampleRows > 0) measure.sample = (await run(sampleQuery(stage, sampleRows))).tables[0] ?? { fields: [], columns: [] };
            measures.push(measure);
        } catch (e) {
            failed = true;
            measures.push({ index: stage.index, error: e instanceof Error ? e.message : String(e) });
        }
    }
    return measures;
}

/** The number in a `| count` result (its first cell); 0 when the table is empty. */
function countOf(table: StageTable | undefined): number {
    const value = table?.columns?.[0]?.[0];
    const n = typeof value === 'number' ? value : typeof value === 'string' || typeof value === 'bigint' ? Number(value) : 0;
    return Number.isFinite(n) ? n : 0;
}
