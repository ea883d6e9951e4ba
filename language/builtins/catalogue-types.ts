/**
 * The shape of THE catalogue of built-ins. Validation, completion, hover, signature help and the
 * evaluator all read these entries; nothing else in the project lists function names.
 */
import type { AplScalarType, AplType } from '../types/apl-types.js';
import type { AplValue } from '../values.js';

/**
 * What a parameter accepts.
 * - a scalar type: that type (long is accepted where real is expected, and vice versa)
 * - 'number': long or real; 'numeric_or_time': long, real, datetime or timespan
 * - 'scalar': any scalar type; 'any': anything including `*`
 * - 'array' / 'bag': a dynamic array / property bag (still typed 'dynamic')
 * - 'type': a type literal such as `typeof(long)`; 'regex': a string holding a regular expression
 * - 'field': a column reference (e.g. `ensure_field`, `arg_max` extra fields, `*` allowed)
 */
export type ParamType =
    | AplScalarType
    | 'number'
    | 'numeric_or_time'
    | 'scalar'
    | 'any'
    | 'array'
    | 'bag'
    | 'type'
    | 'regex'
    | 'field';

export interface ParamSpec {
    name: string;
    type: ParamType;
    optional?: boolean;
    /** The parameter may repeat (it must be the last one, or the last group with `repeatGroup`). */
    variadic?: boolean;
    /** The argument must be a constant (e.g. `percentile`'s p, `bin`'s size for the legacy compiler). */
    constant?: boolean;
    description?: string;
}

export interface Signature {
    params: ParamSpec[];
    /**
     * Extra arity rule for variadic signatures: `odd` (case), `even` (bag_pack), and bounds.
     * Arity bounds are otherwise derived from `params`.
     */
    arity?: {
        min?: number;
        max?: number;
        parity?: 'odd' | 'even';
        /** What the arguments are, for messages: `condition/value pairs and a final else value`. */
        shape?: string;
    };
}

/**
 * The return type: a fixed type, or a rule over the argument types (e.g. `iff` returns the type of
 * its second argument, `max` the type of its first, `bin` the type of its first).
 */
export type ReturnRule = AplType | ((argTypes: readonly AplType[]) => AplType);

/** What the evaluator passes to `evaluate` besides the argument values. */
export interface EvalContext {
    /** Static types of the arguments, in order. */
    argTypes: readonly AplType[];
    /** The static result type. */
    resultType: AplType;
    /** The query's `now()`, fixed for the whole query (ns since epoch). */
    now: bigint;
    /** The request's time range, for `bin_auto` and `rate` (ns since epoch). */
    startTime?: bigint;
    endTime?: bigint;
}

export type ScalarCategory =
    | 'array'
    | 'conditional'
    | 'conversion'
    | 'datetime'
    | 'genai'
    | 'hash'
    | 'ip'
    | 'math'
    | 'metadata'
    | 'pair'
    | 'rounding'
    | 'sql'
    | 'string'
    | 'series'
    | 'type'
    | 'literal';

/**
 * How an unnamed call names its output column (Kusto's ResultNameKind, language/column-names.ts):
 * `firstArgument`: as its first argument would be (`tostring(is_tls)` -> `is_tls`); `onlyArgument`:
 * the same, only with one argument; `{ prefix }`: `prefix_` + the first argument's name
 * (`strlen(uri)` -> `strlen_uri`). Without a rule the column is numbered (`Column1`).
 */
export type ResultNameRule = 'firstArgument' | 'onlyArgument' | { prefix: string };

export interface ScalarFunction {
    kind: 'scalar';
    name: string;
    /** Other names of the same function (`toreal` for `todouble`). Each alias is looked up like the name. */
    aliases?: string[];
    category: ScalarCategory;
    signatures: Signature[];
    returns: ReturnRule;
    /** One or two sentences, in our own words (markdown allowed). */
    description: string;
    /** A short runnable APL example. */
    example: string;
    /** `f(*)` is allowed and means every column of the row, by name (Axiom's `bag_pack(*)`). */
    packsAllColumns?: boolean;
    /** How an unnamed call names its column; see ResultNameRule. */
    resultName?: ResultNameRule;
    /** Axiom-only (not in KQL). */
    axiomOnly?: boolean;
    /** Not deterministic (rand, now): the evaluator must not constant-fold it. */
    volatile?: boolean;
    /**
     * Row-level evaluation. Arguments arrive already evaluated (nulls included). Functions that the
     * reference evaluator cannot run (e.g. it needs a network) leave this out and set `unsupported`.
     */
    evaluate?: (args: AplValue[], ctx: EvalContext) => AplValue;
    /** Why the reference evaluator refuses this function, if it does. */
    unsupported?: string;
    /**
     * Set when the evaluator computes the function itself because it needs more than argument
     * values (the row's schema for `column_ifexists`/`ensure_field`, the row id for `cursor_current`).
     */
    evaluatedBy?: 'evaluator';
}

/** An aggregation's running state: created per group, fed row by row, finished once. */
export interface Accumulator<S = unknown> {
    init(): S;
    /** Adds one row; `args` are the evaluated arguments for that row. May return a new state. */
    add(state: S, args: AplValue[]): S;
    /** Combines two partial states (used when groups are computed in parallel batches). */
    merge?(a: S, b: S): S;
    result(state: S, ctx: EvalContext): AplValue;
}

export interface AggregateFunction {
    kind: 'aggregate';
    name: string;
    aliases?: string[];
    signatures: Signature[];
    returns: ReturnRule;
    description: string;
    example: string;
    axiomOnly?: boolean;
    /** Also valid in make-series. */
    inMakeSeries?: boolean;
    /** The approximate ones Axiom marks as estimates (dcount, percentiles, topk, histogram). */
    estimate?: boolean;
    /**
     * The default output column name(s) for `summarize f(x)` without an alias, e.g. count() -> `count_`,
     * avg(x) -> `avg_x`. `argNames` are the printed names of the argument fields.
     */
    defaultColumnName(argNames: readonly string[]): string;
    /** The `agg.name` Axiom reports in tabular results (API.md §6.3) and the legacy `op` when one exists. */
    axiomAggName?: string;
    legacyOp?: string;
    // any: each aggregation keeps its own state type; the evaluator treats it as opaque.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    accumulator?: Accumulator<any>;
    unsupported?: string;
}

/** Scalar operators (`==`, `contains`, `in`, ...) for hover and completion. */
export interface ScalarOperatorEntry {
    kind: 'operator';
    name: string;
    category: 'arithmetic' | 'comparison' | 'logical' | 'string' | 'regex' | 'set' | 'range';
    description: string;
    example: string;
    caseSensitive?: boolean;
    /** The negated counterpart (`!contains` for `contains`). */
    negation?: string;
    axiomOnly?: boolean;
}

/** Tabular operators (`where`, `summarize`, ...) for hover, completion and the formatter. */
export interface TabularOperatorEntry {
    kind: 'tabular';
    name: string;
    aliases?: string[];
    syntax: string;
    description: string;
    example: string;
    axiomOnly?: boolean;
    /** The clause keywords valid inside this operator (`by`, `asc`, `kind=`, ...). */
    keywords?: string[];
}

export type CatalogueEntry = ScalarFunction | AggregateFunction | ScalarOperatorEntry | TabularOperatorEntry;
