/**
 * The library API of apl-tools: parse, check, translate and run APL.
 *
 *   import { parse, check, translate, createEngine } from 'apl-tools';
 */
export { parse, provideParsingServices, type ParseResult, type SyntaxProblem } from './apl-parse.js';
export { checkText as check, checkServices, type AplDiagnostic, type CheckOptions } from './check.js';
export { createAplServices, type AplServices } from './apl-module.js';
export * from './schema/index.js';
export * from './types/apl-types.js';
export { Datetime, Timespan, formatDatetime, formatGoDuration, parseDatetime, parseGoDuration, parseTimeExpression, type AplValue } from './values.js';
export { DEFAULT_MAX_QUERY_LENGTH } from './limits.js';
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
export { SAMPLE_DATASETS, generateSample, sampleMapFields } from './samples/index.js';
export { translate, TranslationError } from './legacy/translate.js';
export { parseLegacyQuery, LegacyQueryError } from './legacy/legacy-types.js';
export type { LegacyQuery, LegacyResult } from './legacy/legacy-types.js';
export {
    AplQueryError, ExternalDataError, isResourceError, newSyncState, deserializePartial, partialIsUnsupported, serializePartial,
    type PartialResult, type PartitionPlan, type PartitionSpec, type EngineDelta, type EngineSyncState, type QueryInterruption,
    DEFAULT_COLD_CACHE_BYTES, type ColdBlock, type ColdBlockReader, type ColdDataset, type ColdField, type ColdKeep,
    type ColumnarChunk, type ColumnChunk, type DatasetLoader, type Engine, type EngineOptions, type ExternalDataReader, type FlatBatch, type ParallelRunner, type QueryLimits, type QueryOptions, type TabularResult,
} from './eval/engine.js';
export { IngestError } from './ingest/errors.js';
export { DEFAULT_MAX_FIELDS_PER_DATASET } from './ingest/limits.js';
export type { NormalizedEvents } from './ingest/normalize-event.js';
export { AplTypeComputer } from './types/apl-type-computer.js';
export { IssueCodes, Issues, type AplDiagnosticData } from './apl-issue-codes.js';
export { AnalyzerRules, allAnalyzerRules, analyzerRuleByCode, type AnalyzerRule } from './analyzers/analyzer-rules.js';
export { parseAnalyzerConfig, mergeAnalyzerConfigs, type AnalyzerConfig, type RuleSetting } from './analyzers/analyzer-config.js';
export { applyFixes } from './analyzers/apply-fixes.js';

import { createEngine as createBareEngine, type Engine, type EngineOptions } from './eval/engine.js';
import { legacyExecutor } from './legacy/execute.js';
export { legacyExecutor, type QueryEngine } from './legacy/execute.js';

/** An in-memory APL engine: `ingest` events, then `query` APL or `queryLegacy` legacy queries. */
export function createEngine(options?: EngineOptions): Engine {
    const engine = createBareEngine(options);
    engine.setLegacyExecutor(legacyExecutor);
    return engine;
}
