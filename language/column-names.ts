/**
 * THE rule for the column name of an unnamed expression (`extend`, `project`, `summarize … by`,
 * aggregation arguments), as Kusto derives it (Kusto.Language's GetExpressionResultName):
 * - a column reference keeps its name: `status`, `['geo.city']`;
 * - parentheses are looked through;
 * - a call names its column by its catalogue entry's `resultName` rule: `tostring(is_tls)` ->
 *   `is_tls`, `bin(_time, 1h)` -> `_time`, `strlen(uri)` -> `strlen_uri`, recursively, so
 *   `tostring(toint(x))` -> `x`;
 * - anything else has no name of its own (the caller numbers it `Column1`, `Column2`, …).
 * Aggregations build theirs from these names too: `sum(toint(units))` -> `sum_units`.
 *
 * The evaluator, the type computer (row types, so the checker and completion) and the legacy
 * compiler all call this; only how a name chain is read differs (the type computer knows the
 * schema, e.g. that `attributes.k` is a key of a dynamic column), so that is passed in.
 */
import type * as ast from './generated/ast.js';
import { lookupScalarFunction } from './builtins/index.js';

/** The column name a name chain (`a`, `['a.b']`, `a.b`, `a['k']`) stands for, or undefined for other expressions. */
export type ChainName = (e: ast.Expression) => string | undefined;

export function derivedColumnName(e: ast.Expression | undefined, chainName: ChainName): string | undefined {
    if (!e) return undefined;
    if (e.$type === 'ParenthesizedExpression') return derivedColumnName((e as ast.ParenthesizedExpression).expression, chainName);
    if (e.$type === 'FunctionCall') return callColumnName(e as ast.FunctionCall, chainName);
    return chainName(e);
}

function callColumnName(call: ast.FunctionCall, chainName: ChainName): string | undefined {
    const rule = lookupScalarFunction(call.function)?.resultName;
    if (!rule) return undefined;
    const args = call.arguments;
    if (rule === 'onlyArgument' && args.length !== 1) return undefined;
    const first = derivedColumnName(args[0]?.expression, chainName);
    if (first === undefined) return undefined;
    return typeof rule === 'object' ? `${rule.prefix}_${first}` : first;
}

/**
 * The argument names an aggregation's default column name is made from (`avg(toint(x))` -> `x`,
 * so `avg_x`); '' for an argument without one. A literal argument counts by its text (`95` in
 * `percentile(x, 95)`).
 */
export function aggregationArgumentNames(call: ast.FunctionCall, chainName: ChainName): string[] {
    return call.arguments.map(a => derivedColumnName(a.expression, chainName) ?? literalText(a.expression) ?? '');
}

function literalText(e: ast.Expression | undefined): string | undefined {
    return e && e.$type.endsWith('Literal') ? e.$cstNode?.text : undefined;
}
