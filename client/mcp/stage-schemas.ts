/**
 * The schema after each stage of a query, for `explain_apl`: language/explain.ts over the whole text
 * read as one query (an agent's text is one query, whatever its blank lines, as the service reads
 * it), in the shape the tool's output schema names.
 */
import { checkServices } from '../../language/check.js';
import { explainQuery } from '../../language/explain.js';
import type { SchemaProvider } from '../../language/schema/schema-provider.js';
import type { ColumnType } from '../../language/types/apl-types.js';

export interface StageSchema {
    /** 0 for the source, then 1, 2, … for each operator. */
    index: number;
    /** `source`, or the operator's keyword (`where`, `summarize`). */
    operator: string;
    /** The stage's text. */
    text: string;
    /** 0-based line and character of the stage's start in the query. */
    start: { line: number; character: number };
    /** Offset just past the stage in the query text: the text up to it is the query ending at this stage. */
    endOffset: number;
    columns: ColumnType[];
    /** More columns may exist than are listed (a dataset the schema does not know). */
    open: boolean;
}

/** The stages of the query of `text` and the row type after each; `undefined` when there is no query statement. */
export function pipelineStageSchemas(text: string, schema: SchemaProvider): StageSchema[] | undefined {
    const explanation = explainQuery(text, Math.max(0, text.length - 1), checkServices(schema, false));
    if (!explanation || explanation.stages.length === 0) return undefined;
    return explanation.stages.map(s => ({
        index: s.index,
        operator: s.keyword ?? 'source',
        text: s.text,
        start: s.range.start,
        endOffset: s.endOffset,
        columns: s.columns,
        open: s.open,
    }));
}
