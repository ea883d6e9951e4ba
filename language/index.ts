/**
 * The library API of apl-tools: parse, check, translate and run APL.
 *
 *   import { parse, check, translate, createEngine } from 'apl-tools';
 */
export { parse, type ParseResult, type SyntaxProblem } from './apl-parse.js';
export { checkText as check, type AplDiagnostic, type CheckOptions } from './check.js';
export { createAplServices, type AplServices } from './apl-module.js';
export * from './schema/index.js';
export * from './types/apl-types.js';
export { Datetime, Timespan, formatDatetime, formatGoDuration, type AplValue } from './values.js';
export {
    SCALAR_FUNCTIONS,
    AGGREGATES,
    SCALAR_OPERATORS,
    TABULAR_OPERATORS,
    lookupScalarFunction,
    lookupAggregate,
    lookupScalarOperator,
    lookupTabularOperator,
} from './builtins/index.js';
export { SAMPLE_DATASETS, generateSample } from './samples/index.js';
