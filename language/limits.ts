/**
 * The documented limits of the APL tools (docs/service.md "Limits"). The parser's limits protect
 * every process that parses APL (the service, `apl check`, `apl run`, the language server) from
 * inputs that would exhaust the JavaScript stack or take unbounded time; the evaluator's limits
 * are the defaults of `EngineOptions.limits`.
 */

/**
 * Deepest chain of grammar rules the parser may be inside. One level of parentheses costs about 15
 * rules (every precedence level of the expression grammar), a prefix operator (`-`, `not`) one.
 * Measured: the parser overflows V8's default stack (984 KB) at about 900 rules from a shallow
 * caller, and a service or language-server request starts well below that, so 450 keeps a margin
 * of two. That allows 29 levels of parentheses or calls at the top of a query (25 are promised),
 * hundreds of levels of dynamic arrays, or 450 prefix operators in a row.
 */
export const MAX_PARSER_RULE_DEPTH = 450;

/**
 * Deepest syntax tree a query may have: `a or b or c ...` is one level per operand even though the
 * parser reads it in a loop. Every recursive consumer (linking, the type computer, the validator,
 * the evaluator, the legacy compiler, the formatter, semantic tokens) was measured to take 2,000
 * levels from a shallow caller; 1,000 keeps a margin of two.
 */
export const MAX_SYNTAX_TREE_DEPTH = 1000;

/** Levels of parentheses or calls that are always accepted, as error messages and the docs say. */
export const MAX_BRACKET_NESTING = 25;

/**
 * Documents up to this length (UTF-16 code units) are fully checked by `apl check` and the language
 * server; longer ones only for syntax, with an APL1004 note saying so. Parsing takes about 3 µs per
 * character of typical queries on the reference machine (2 cores), checking about half as much again:
 * a fully checked document costs at most about 1 s.
 */
export const MAX_CHECKED_LENGTH = 256 * 1024;

/** Longer documents are not parsed at all (about 3 s at this length): one APL1003 diagnostic says why. */
export const MAX_PARSED_LENGTH = 1024 * 1024;

/** Longest APL query text the service accepts (413 above it). */
export const DEFAULT_MAX_QUERY_LENGTH = 256 * 1024;

/**
 * Longest string a function builds (`strrep`, `strcat_array`): 16 Mi characters. Arrays built by
 * functions (`range`, `array_concat`) hold at most MAX_BUILT_ARRAY_LENGTH elements, as `make_list`.
 */
export const MAX_BUILT_STRING_LENGTH = 16 * 1024 * 1024;
export const MAX_BUILT_ARRAY_LENGTH = 1_048_576;
