/**
 * Scalar operators (inventory §3.1/§3.2) and tabular operators (§4), for hover, completion and the
 * formatter. The evaluator implements the operators itself; these entries describe them.
 */
import type { ScalarOperatorEntry, TabularOperatorEntry } from './catalogue-types.js';

type Category = ScalarOperatorEntry['category'];

function op(name: string, category: Category, description: string, example: string, extra: Partial<ScalarOperatorEntry> = {}): ScalarOperatorEntry {
    return { kind: 'operator', name, category, description, example, ...extra };
}

/**
 * The string-matching operators come in four forms: `op` (case-insensitive), `!op`, `op_cs`
 * (case-sensitive) and `!op_cs`.
 */
function stringFamily(base: string, what: string, example: (name: string) => string, category: Category = 'string'): ScalarOperatorEntry[] {
    return [
        op(base, category, `True when ${what}, ignoring case.`, example(base), { caseSensitive: false, negation: `!${base}` }),
        op(`!${base}`, category, `True when it is not the case that ${what}, ignoring case.`, example(`!${base}`), { caseSensitive: false, negation: base }),
        op(`${base}_cs`, category, `True when ${what}, matching case exactly.`, example(`${base}_cs`), { caseSensitive: true, negation: `!${base}_cs` }),
        op(`!${base}_cs`, category, `True when it is not the case that ${what}, matching case exactly.`, example(`!${base}_cs`), { caseSensitive: true, negation: `${base}_cs` }),
    ];
}

const TERM_NOTE = 'A term is a run of Unicode letters and digits; every other character (including `_`, `-` and `.`) separates terms.';

export const SCALAR_OPERATORS: ScalarOperatorEntry[] = [
    // Arithmetic
    op('+', 'arithmetic', 'Adds two numbers, a timespan to a datetime or timespan, or a datetime to a timespan.', "['sample-http-logs'] | extend total = req_duration_ms + 10"),
    op('-', 'arithmetic', 'Subtracts numbers or timespans; the difference of two datetimes is a timespan. Also unary negation.', "['sample-http-logs'] | where _time > now() - 1h"),
    op('*', 'arithmetic', 'Multiplies two numbers, or a timespan by a number.', "['sample-http-logs'] | extend ms = req_duration_ms * 1000"),
    op('/', 'arithmetic', 'Divides two numbers (integer division between longs), or a timespan by a number or another timespan.', "['sample-http-logs'] | extend seconds = req_duration_ms / 1000.0"),
    op('%', 'arithmetic', 'Returns the remainder of dividing two integers.', "['sample-http-logs'] | where toint(status) % 100 == 4"),

    // Comparison
    op('<', 'comparison', 'True when the left value is less than the right (numbers, datetimes, timespans, strings).', "['sample-http-logs'] | where req_duration_ms < 100"),
    op('<=', 'comparison', 'True when the left value is less than or equal to the right.', "['sample-http-logs'] | where req_duration_ms <= 100"),
    op('>', 'comparison', 'True when the left value is greater than the right.', "['sample-http-logs'] | where req_duration_ms > 1000"),
    op('>=', 'comparison', 'True when the left value is greater than or equal to the right.', "['sample-http-logs'] | where _time >= ago(1h)"),
    op('==', 'comparison', 'Equality; case-sensitive for strings. `null == null` is null and `null == x` is false.', "['sample-http-logs'] | where method == 'GET'", { caseSensitive: true, negation: '!=' }),
    op('!=', 'comparison', 'Inequality; case-sensitive for strings. `null != null` is null and `null != x` is true.', "['sample-http-logs'] | where method != 'GET'", { caseSensitive: true, negation: '==' }),
    op('<>', 'comparison', 'Another spelling of `!=` (inequality).', "['sample-http-logs'] | where status <> '200'", { caseSensitive: true, negation: '==' }),
    op('=~', 'comparison', 'String equality ignoring case.', "['sample-http-logs'] | where method =~ 'get'", { caseSensitive: false, negation: '!~' }),
    op('!~', 'comparison', 'String inequality ignoring case.', "['sample-http-logs'] | where method !~ 'get'", { caseSensitive: false, negation: '=~' }),

    // Logical
    op('and', 'logical', 'True when both operands are true. Binds tighter than `or`.', "['sample-http-logs'] | where status == '500' and method == 'POST'"),
    op('or', 'logical', 'True when either operand is true.', "['sample-http-logs'] | where status == '500' or status == '503'"),

    // Substring operators
    ...stringFamily('contains', 'the left string contains the right one anywhere', n => `['sample-http-logs'] | where uri ${n} 'api'`),
    ...stringFamily('startswith', 'the left string begins with the right one', n => `['sample-http-logs'] | where uri ${n} '/api'`),
    ...stringFamily('endswith', 'the left string ends with the right one', n => `['sample-http-logs'] | where uri ${n} '.json'`),

    // Term operators
    ...stringFamily('has', `the right string is a whole term of the left one. ${TERM_NOTE}`, n => `['sample-http-logs'] | where uri ${n} 'users'`),
    ...stringFamily('hasprefix', `some term of the left string starts with the right string. ${TERM_NOTE}`, n => `['sample-http-logs'] | where uri ${n} 'use'`),
    ...stringFamily('hassuffix', `some term of the left string ends with the right string. ${TERM_NOTE}`, n => `['sample-http-logs'] | where uri ${n} 'ers'`),

    // Regular expressions
    op('matches regex', 'regex', 'True when the left string matches the regular expression (RE2 syntax, case-sensitive unless the pattern says otherwise).', "['sample-http-logs'] | where uri matches regex @'^/api/v\\d+/'", {
        caseSensitive: true,
        negation: '!matches regex',
    }),
    op('!matches regex', 'regex', 'True when the left string does not match the regular expression. Axiom-only.', "['sample-http-logs'] | where uri !matches regex @'\\.(png|jpg)$'", {
        caseSensitive: true,
        negation: 'matches regex',
        axiomOnly: true,
    }),

    // Set membership
    op('in', 'set', 'True when the value equals one of the listed values (case-sensitive). The list may hold scalars or dynamic arrays, which are flattened.', "['sample-http-logs'] | where method in ('GET', 'POST')", {
        caseSensitive: true,
        negation: '!in',
    }),
    op('!in', 'set', 'True when the value equals none of the listed values (case-sensitive).', "['sample-http-logs'] | where method !in ('GET', 'POST')", { caseSensitive: true, negation: 'in' }),
    op('in~', 'set', 'True when the value equals one of the listed values, ignoring case.', "['sample-http-logs'] | where method in~ ('get', 'post')", { caseSensitive: false, negation: '!in~' }),
    op('!in~', 'set', 'True when the value equals none of the listed values, ignoring case.', "['sample-http-logs'] | where method !in~ ('get', 'post')", { caseSensitive: false, negation: 'in~' }),
    op('has_any', 'set', `True when any of the listed strings is a whole term of the left string, ignoring case. ${TERM_NOTE}`, "['sample-http-logs'] | where uri has_any ('login', 'logout')", {
        caseSensitive: false,
    }),
    op('has_any_cs', 'set', 'True when any of the listed strings is a whole term of the left string, matching case exactly.', "['sample-http-logs'] | where uri has_any_cs ('Login', 'Logout')", {
        caseSensitive: true,
    }),

    // Ranges
    op('between', 'range', 'True when the value lies in the inclusive range `(low .. high)`; works for numbers, datetimes and timespans.', "['sample-http-logs'] | where req_duration_ms between (100 .. 500)", {
        negation: '!between',
    }),
    op('!between', 'range', 'True when the value lies outside the inclusive range `(low .. high)`.', "['sample-http-logs'] | where req_duration_ms !between (100 .. 500)", { negation: 'between' }),
];

export const TABULAR_OPERATORS: TabularOperatorEntry[] = [
    {
        kind: 'tabular',
        name: 'where',
        syntax: '| where Predicate',
        description: 'Keeps only the rows for which the predicate is true. `where * has "x"` searches every field.',
        example: "['sample-http-logs'] | where status == '500'",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'summarize',
        syntax: '| summarize [[Name =] Aggregation(...) [, ...]] [by [Name =] GroupExpression [, ...]]',
        description:
            'Groups rows by the `by` expressions and computes aggregations per group. Grouping by `bin(_time, X)` or `bin_auto(_time)` produces a `_time` column.',
        example: "['sample-http-logs'] | summarize count(), avg(req_duration_ms) by status, bin(_time, 1h)",
        keywords: ['by'],
    },
    {
        kind: 'tabular',
        name: 'extend',
        syntax: '| extend Name = Expression [, ...]',
        description: 'Adds computed columns. Reusing an existing name replaces that column, moving it to the end.',
        example: "['sample-http-logs'] | extend seconds = req_duration_ms / 1000.0",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'extend-valid',
        syntax: '| extend-valid Name = Expression [, ...]',
        description:
            'Like `extend`, but only writes a value that is valid (a non-empty string, array or bag, a number other than 0, infinity or NaN, or another value that converts to true); otherwise the column keeps its previous value.',
        example: "['sample-http-logs'] | extend-valid city = ['geo.city']",
        axiomOnly: true,
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'project',
        syntax: '| project Name [= Expression] [, ...]',
        description: 'Chooses, renames and computes the columns to keep, in the order given; every other column is dropped.',
        example: "['sample-http-logs'] | project _time, status, duration = req_duration_ms",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'project-away',
        syntax: '| project-away Field [, ...]',
        description: 'Drops the listed columns; names may use `*` wildcards (`status*`, `[\'geo.\']*`).',
        example: "['sample-http-logs'] | project-away ['geo.city'], ['geo.country']",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'project-keep',
        syntax: '| project-keep Field [, ...]',
        description: 'Keeps only the listed columns (wildcards allowed), in their original order.',
        example: "['sample-http-logs'] | project-keep _time, status*",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'project-rename',
        syntax: '| project-rename NewName = OldName [, ...]',
        description: 'Renames columns without changing their position or values.',
        example: "['sample-http-logs'] | project-rename duration = req_duration_ms",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'project-reorder',
        syntax: '| project-reorder Field [asc | desc | granny-asc | granny-desc] [, ...]',
        description:
            'Moves the listed columns (wildcards allowed) to the front in the given order; `asc`/`desc` sort matching names, `granny-*` sorts numbers inside names naturally. Unlisted columns keep their order after them.',
        example: "['sample-http-logs'] | project-reorder status, method, *",
        keywords: ['asc', 'desc', 'granny-asc', 'granny-desc'],
    },
    {
        kind: 'tabular',
        name: 'sort',
        aliases: ['order'],
        syntax: '| sort by Expression [asc | desc] [nulls first | nulls last] [, ...]',
        description: 'Orders the rows by one or more expressions (descending unless `asc` is given). `order` is the same operator.',
        example: "['sample-http-logs'] | sort by req_duration_ms desc",
        keywords: ['by', 'asc', 'desc', 'nulls first', 'nulls last'],
    },
    {
        kind: 'tabular',
        name: 'take',
        syntax: '| take N',
        description: 'Returns up to N rows, with no guarantee which ones. After a time-binned `summarize`, Axiom keeps the top N groups in every time bucket.',
        example: "['sample-http-logs'] | take 10",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'limit',
        syntax: '| limit N',
        description: 'Another name for `take`: returns up to N rows.',
        example: "['sample-http-logs'] | limit 10",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'top',
        syntax: '| top N by Expression [asc | desc] [nulls first | nulls last]',
        description: 'Returns the first N rows after sorting by the expression (descending by default).',
        example: "['sample-http-logs'] | top 5 by req_duration_ms",
        keywords: ['by', 'asc', 'desc', 'nulls first', 'nulls last'],
    },
    {
        kind: 'tabular',
        name: 'count',
        syntax: '| count',
        description: 'Replaces the input with a single row holding the number of rows in a `count` column.',
        example: "['sample-http-logs'] | where status == '500' | count",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'distinct',
        syntax: '| distinct Field [, ...]',
        description: 'Returns each distinct combination of the listed columns once.',
        example: "['sample-http-logs'] | distinct method, status",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'parse',
        syntax: '| parse [kind=simple|regex|relaxed [flags=Flags]] Expression with [*] "text" Name [: Type] [*] ...',
        description:
            'Extracts new columns from a string by matching it against a pattern of literal text, `*` wildcards and named captures (optionally typed). Rows that do not match get nulls.',
        example: "['sample-http-logs'] | parse uri with '/api/v' version:int '/' rest",
        keywords: ['kind=', 'simple', 'regex', 'relaxed', 'flags=', 'with'],
    },
    {
        kind: 'tabular',
        name: 'parse-where',
        syntax: '| parse-where [kind=simple|regex [flags=Flags]] Expression with [*] "text" Name [: Type] [*] ...',
        description: 'Like `parse`, but drops the rows whose string does not match the pattern.',
        example: "['sample-http-logs'] | parse-where uri with '/api/v' version:int '/' rest",
        keywords: ['kind=', 'simple', 'regex', 'flags=', 'with'],
    },
    {
        kind: 'tabular',
        name: 'parse-kv',
        syntax: '| parse-kv Expression as (Key [: Type] [, ...]) with (pair_delimiter = "...", kv_delimiter = "..." [, quote = "...", escape = "...", greedy = bool])',
        description: 'Extracts the listed keys from a string of key/value pairs into typed columns, using the given pair and key/value delimiters.',
        example: "print s = 'a=1;b=2' | parse-kv s as (a:long, b:long) with (pair_delimiter=';', kv_delimiter='=')",
        keywords: ['as', 'with', 'pair_delimiter', 'kv_delimiter', 'quote', 'escape', 'greedy'],
    },
    {
        kind: 'tabular',
        name: 'mv-expand',
        syntax: '| mv-expand [kind=bag|array] [with_itemindex=IndexName] Field [to typeof(Type)] [, ...] [limit N]',
        description: 'Turns each element of a dynamic array (or each entry of a bag) into its own row, copying the other columns.',
        example: "datatable(tags: dynamic)[dynamic(['a', 'b'])] | mv-expand tags to typeof(string)",
        keywords: ['kind=', 'bag', 'array', 'with_itemindex=', 'to typeof', 'limit'],
    },
    {
        kind: 'tabular',
        name: 'make-series',
        syntax: '| make-series [Name =] Aggregation [default = Value] [, ...] on TimeField [from Start] [to End] step Step [by Field [, ...]]',
        description: 'Builds one row per group holding arrays of aggregated values over regular time steps, with missing steps set to the default (0).',
        example: "['sample-http-logs'] | make-series count() default = 0 on _time from ago(1d) to now() step 1h by status",
        keywords: ['default', 'on', 'from', 'to', 'in', 'step', 'by', 'kind='],
    },
    {
        kind: 'tabular',
        name: 'join',
        syntax: '| join [kind=inner|innerunique|leftouter|rightouter|fullouter|leftanti|rightanti|leftsemi|rightsemi] (RightTable) on Condition [, ...]',
        description:
            'Combines rows of the left and right tables whose keys match (`on key`, `on $left.a == $right.b`). Axiom supports `inner`, `innerunique` and `leftouter` in preview.',
        example: "['sample-http-logs'] | join kind=inner (['otel-demo-traces']) on $left.id == $right.trace_id",
        keywords: ['kind=', 'inner', 'innerunique', 'leftouter', 'rightouter', 'fullouter', 'leftanti', 'rightanti', 'leftsemi', 'rightsemi', 'on', '$left', '$right'],
    },
    {
        kind: 'tabular',
        name: 'lookup',
        syntax: '| lookup [kind=leftouter|inner] LookupTable on Condition [, ...]',
        description: 'Enriches each row with the columns of a (usually small) lookup table whose keys match; unmatched rows are kept unless `kind=inner`.',
        example: "let codes = datatable(status: string, label: string)['200', 'OK']; ['sample-http-logs'] | lookup codes on status",
        keywords: ['kind=', 'leftouter', 'inner', 'on', '$left', '$right'],
    },
    {
        kind: 'tabular',
        name: 'union',
        syntax: '| union [withsource=FieldName] Table [, ...]',
        description: 'Appends the rows of other datasets (wildcards allowed), merging columns by name; `withsource` adds a column naming each row\'s source.',
        example: "['sample-http-logs'] | union withsource=source ['github-push-event']",
        keywords: ['withsource='],
    },
    {
        kind: 'tabular',
        name: 'search',
        syntax: 'search [kind=default|case_insensitive|case_sensitive] [in (Dataset [, ...])] Predicate',
        description:
            'Finds rows where any field matches search terms (`"x"` as a term, `"x*"`/`"*x"`/`"*x*"` as prefix, suffix or substring, `field:"x"`), combined with `and`/`or`/`not`. Case-insensitive by default.',
        example: "['sample-http-logs'] | search 'GET' and 'api'",
        keywords: ['kind=', 'default', 'case_insensitive', 'case_sensitive', 'in'],
    },
    {
        kind: 'tabular',
        name: 'sample',
        syntax: '| sample Proportion',
        description: 'Keeps a random fraction of the rows; in Axiom the argument is a proportion between 0 and 1, not a row count.',
        example: "['sample-http-logs'] | sample 0.1",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'getschema',
        syntax: '| getschema',
        description: 'Returns the schema of the input: one row per column with `ColumnName`, `ColumnOrdinal`, `ColumnType` and `DataType`.',
        example: "['sample-http-logs'] | getschema",
        keywords: [],
    },
    {
        kind: 'tabular',
        name: 'redact',
        syntax: '| redact [replaceToken="*"] [replaceHash=false] [redactGroups=false] Regex [, ...] [on Field [, ...]]',
        description:
            'Masks the text matched by regular expressions in string fields. A one-character token is repeated for each masked character, a longer one replaces the whole match; `replaceHash` substitutes a hash instead.',
        example: "['sample-http-logs'] | redact replaceToken='#' @'\\d{3}' on uri",
        axiomOnly: true,
        keywords: ['replaceToken=', 'replaceHash=', 'redactGroups=', 'on'],
    },
    {
        kind: 'tabular',
        name: 'externaldata',
        syntax: 'externaldata (Name: Type [, ...]) ["URL" [, ...]] [with (format="csv", ignoreFirstRecord=false)]',
        description:
            'Reads a table from files at the given URLs (csv, scsv, tsv, psv, json, multijson, raw, txt; up to 5 MB). Used as a source or in `let`.',
        example: "externaldata (code: string, label: string) ['https://example.com/codes.csv'] with (format='csv')",
        keywords: ['with', 'format=', 'ignoreFirstRecord=', 'skipFirstRow='],
    },
];
