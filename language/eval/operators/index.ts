/**
 * The dispatch table of tabular operators, keyed by the AST node's `$type` and assembled from the
 * family modules. Its type lists every `$type` of `ast.TabularOperator`, so the compiler reports an
 * operator the grammar gains and no family implements.
 */
import { AGGREGATE_OPERATORS } from './aggregate-ops.js';
import type { OperatorImpls, OperatorType } from './common.js';
import { EXPAND_OPERATORS } from './expand.js';
import { FILTER_OPERATORS } from './filter.js';
import { JOIN_OPERATORS } from './join.js';
import { PROJECT_OPERATORS } from './project.js';
import { RENDER_OPERATORS } from './render.js';
import { SORT_OPERATORS } from './sort.js';

export const OPERATORS: OperatorImpls<OperatorType> = {
    ...FILTER_OPERATORS,
    ...PROJECT_OPERATORS,
    ...SORT_OPERATORS,
    ...AGGREGATE_OPERATORS,
    ...JOIN_OPERATORS,
    ...EXPAND_OPERATORS,
    ...RENDER_OPERATORS,
};
