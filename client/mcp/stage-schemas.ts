/**
 * The schema after each stage of a query, for `explain_apl`: the source's columns, then the columns
 * after each `| operator`, computed by the type computer (no data is read).
 *
 * A minimal stand-in for language/explain.ts (being written on the `explain` branch): when that lands,
 * `pipelineStageSchemas` should become a thin call to it.
 */
import { checkServices } from '../../language/check.js';
import type * as ast from '../../language/generated/ast.js';
import type { SchemaProvider } from '../../language/schema/schema-provider.js';
import type { AplTypeComputer } from '../../language/types/apl-type-computer.js';
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

/**
 * The stages of the last query statement of `text` (one query, whatever its blank lines) and the row
 * type after each; `undefined` when there is no query statement.
 */
export function pipelineStageSchemas(text: string, schema: SchemaProvider): StageSchema[] | undefined {
    const services = checkServices(schema, false);
    const parsed = services.parser.LangiumParser.parse<ast.Model>(text);
    const query = [...(parsed.value.statements ?? [])].reverse().find((s): s is ast.QueryStatement => s.$type === 'QueryStatement');
    if (!query?.body) return undefined;
    const types: AplTypeComputer = services.types.TypeComputer;
    const body = query.body;
    const pipeline = body.$type === 'Pipeline' ? (body as ast.Pipeline) : undefined;
    const source = pipeline ? pipeline.source : body;
    const stages: StageSchema[] = [];
    const add = (operator: string, node: ast.Expression | ast.TabularOperator | undefined, row: { columns: ColumnType[]; open: boolean }) => {
        const cst = node?.$cstNode;
        if (!cst) return;
        stages.push({
            index: stages.length,
            operator,
            text: cst.text,
            start: { line: cst.range.start.line, character: cst.range.start.character },
            endOffset: cst.end,
            columns: row.columns.map(c => ({ name: c.name, type: c.type })),
            open: row.open,
        });
    };
    add('source', source, types.rowTypeOfSource(source));
    for (const op of pipeline?.operators ?? []) add(op.keyword, op, types.rowTypeAfter(op));
    return stages;
}
