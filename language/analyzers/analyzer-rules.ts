/**
 * THE table of APL best-practice analyzers (`APL2001…`), the sibling of the diagnostic table
 * (apl-issue-codes.ts). Each rule has a stable code, a default severity (information or warning:
 * advice, never an error), a one-paragraph explanation with a bad and a good example (hover,
 * `apl check --explain`, SARIF help, the README table) and says whether its quick fix is safe (the
 * rewrite keeps the query's meaning, so `apl check --fix` applies it) or only suggested (the editor
 * offers it, the user judges). `APL2000` is the unused suppression comment.
 */
export type AnalyzerSeverity = 'info' | 'warning';

/** `safe`: the rewrite keeps the rows (`apl check --fix` applies it); `suggested`: editor only; `none`: no rewrite. */
export type AnalyzerFixKind = 'safe' | 'suggested' | 'none';

export interface AnalyzerRule {
    readonly code: string;
    readonly id: string;
    readonly severity: AnalyzerSeverity;
    /** One line: what the rule looks for (README table, SARIF short description). */
    readonly title: string;
    /** The one-paragraph explanation. */
    readonly help: string;
    readonly bad: string;
    readonly good: string;
    readonly fix: AnalyzerFixKind;
}

function rule(code: string, id: string, severity: AnalyzerSeverity, fix: AnalyzerFixKind, title: string, help: string, bad: string, good: string): AnalyzerRule {
    return { code, id, severity, fix, title, help, bad, good };
}

export const AnalyzerRules = {
    UnusedSuppression: rule('APL2000', 'unused-suppression', 'info', 'safe',
        'An apl-ignore comment that suppresses nothing',
        "An `// apl-ignore CODE` comment (on the line before a finding) or `// apl-ignore-file CODE` suppresses analyzer findings with that code. When nothing with that code is reported where it applies, the comment is stale: remove it (the quick fix does), so that it does not hide a future finding.",
        "// apl-ignore APL2003\n['sample-http-logs'] | where status == '500'",
        "['sample-http-logs'] | where status == '500'"),
    ContainsToHas: rule('APL2001', 'contains-to-has', 'info', 'suggested',
        '`contains` on a whole term that `has` would match',
        "`contains` scans every string for a substring; `has` looks up whole terms (runs of letters and digits) in Axiom's term index and is much cheaper. When the searched value is itself a whole term of 3 or more letters or digits, `has` usually finds the same rows; it does not match the term inside a longer word (`has \"err\"` misses `error`), so the quick fix is offered, not applied by `--fix`.",
        "['sample-http-logs'] | where user_agent contains \"Firefox\"",
        "['sample-http-logs'] | where user_agent has \"Firefox\""),
    CaseInsensitiveWithoutLetters: rule('APL2002', 'case-insensitive-without-letters', 'info', 'safe',
        '`=~` or `!~` with a literal that has no letters',
        "`=~` compares case-insensitively, which costs a case fold of every value. A literal without letters (`\"200\"`, `\"10.0.0.1\"`) is the same in every case, so `==` (or `!=` for `!~`) gives the same rows for less.",
        "['sample-http-logs'] | where status =~ \"500\"",
        "['sample-http-logs'] | where status == \"500\""),
    FilterCouldRunEarlier: rule('APL2003', 'filter-could-run-earlier', 'info', 'safe',
        'A `where` after `extend`/`project` that only uses fields from before them',
        "A `where` whose predicate uses only fields that existed before the `extend` (or that the `project` passes through unchanged) can run first: the `extend` then computes its columns for the kept rows only, and Axiom can use its indexes on the original fields. The quick fix swaps the two stages; the rows are the same.",
        "['sample-http-logs'] | extend slow = req_duration_ms > 1000 | where method == \"GET\"",
        "['sample-http-logs'] | where method == \"GET\" | extend slow = req_duration_ms > 1000"),
    FilterGroupKeyBeforeSummarize: rule('APL2004', 'filter-group-key-before-summarize', 'info', 'safe',
        'A `where` after `summarize` that only tests group keys',
        "A `where` right after a `summarize` that tests only the group keys (fields grouped by as they are) drops whole groups; filtering the same field before the `summarize` drops the same groups' rows before they are aggregated, which is cheaper and gives the same result. The quick fix moves the `where` before the `summarize`.",
        "['sample-http-logs'] | summarize count() by method | where method == \"GET\"",
        "['sample-http-logs'] | where method == \"GET\" | summarize count() by method"),
    MissingTimeFilter: rule('APL2005', 'missing-time-filter', 'warning', 'none',
        'A query over a dataset with no filter on `_time`',
        "Reported only when a time filter is required (`apl check --require-time-filter`, or `\"requireTimeFilter\": true` in `.aplrc.json`): outside the Axiom UI and the editor's time picker, a query runs over the dataset's whole retention, which is slow and costly. Filter `_time` (`where _time > ago(1d)`, `between (… .. …)`).",
        "['sample-http-logs'] | summarize count() by status",
        "['sample-http-logs'] | where _time > ago(1d) | summarize count() by status"),
    SortTakeToTop: rule('APL2006', 'sort-take-to-top', 'info', 'safe',
        '`sort` followed by `take` that should be `top`',
        "`sort by x | take n` sorts every row and then keeps n; `top n by x` keeps only the n best while it reads, in less memory. The result is the same rows in the same order; the quick fix rewrites the two stages as one `top`.",
        "['sample-http-logs'] | sort by req_duration_ms desc | take 10",
        "['sample-http-logs'] | top 10 by req_duration_ms desc"),
    CountAfterTake: rule('APL2007', 'count-after-take', 'warning', 'none',
        '`count` after `take`: the count is at most the take',
        "`take n | count` (or `take n | summarize count()`) counts the n rows kept, so the answer is n or less, whatever the dataset holds; it is almost always a leftover from exploring. Count first, or remove the `take`.",
        "['sample-http-logs'] | take 100 | count",
        "['sample-http-logs'] | count"),
    DistinctThenCount: rule('APL2008', 'distinct-then-count', 'info', 'suggested',
        '`distinct x | count` instead of `dcount(x)`',
        "`distinct x | count` builds every distinct value and then counts them; `summarize dcount(x)` estimates the number of distinct values (HyperLogLog) in far less memory. The estimate is approximate (about 1% error on large counts, exact on small ones), and unlike `distinct` it ignores empty values, so the quick fix is offered, not applied by `--fix`. Use `dcount(x, 4)` for more accuracy.",
        "['sample-http-logs'] | distinct id | count",
        "['sample-http-logs'] | summarize Count = dcount(id)"),
    JoinWithoutKind: rule('APL2009', 'join-without-kind', 'info', 'safe',
        '`join` without `kind=`',
        "A `join` without `kind` is an `innerunique` join: the left side is first deduplicated on the join key, so left rows with a repeated key are silently dropped. That surprises anyone used to SQL's inner join. Say which join is meant; the quick fix writes the default, `kind=innerunique`, explicitly (same rows), and `kind=inner` keeps every left row.",
        "['sample-http-logs'] | join (['sample-http-logs'] | where status == '500') on id",
        "['sample-http-logs'] | join kind=innerunique (['sample-http-logs'] | where status == '500') on id"),
    SummarizeByRawTime: rule('APL2010', 'summarize-by-raw-time', 'warning', 'suggested',
        '`summarize … by _time` as it is, not binned',
        "Grouping by the event time as the dataset has it (`by _time`, not a bin of it) makes a group of almost every event, because timestamps rarely repeat: the result is as large as the input and nothing is summarized. Group by a time bin instead: `bin(_time, 1h)` or `bin_auto(_time)` (the quick fix, offered not applied: the groups change).",
        "['sample-http-logs'] | summarize count() by _time, status",
        "['sample-http-logs'] | summarize count() by bin_auto(_time), status"),
    TinyTimeBin: rule('APL2011', 'tiny-time-bin', 'warning', 'suggested',
        '`bin(_time, …)` much smaller than the query\'s time range',
        "A time bin far smaller than the range the query covers makes more than 2,000 time buckets per group: too many points to chart or read, and a large result. The range is read from the query's own time filter (`_time > ago(7d)`, `between (… .. …)`). Use a larger bin, or `bin_auto(_time)`, which picks one from the range (the quick fix, offered not applied: the buckets change).",
        "['sample-http-logs'] | where _time > ago(7d) | summarize count() by bin(_time, 1s)",
        "['sample-http-logs'] | where _time > ago(7d) | summarize count() by bin(_time, 1h)"),
    ProjectDropsTime: rule('APL2012', 'project-drops-time', 'warning', 'safe',
        'A `project` drops `_time` before a time-binned `summarize`',
        "A `summarize … by bin(_time, …)` (or `bin_auto(_time)`) after a `project` that does not keep `_time` has no `_time` to bin: the query fails. Keep `_time` in the `project` (the quick fix adds it).",
        "['sample-http-logs'] | project status, method | summarize count() by bin(_time, 1h), status",
        "['sample-http-logs'] | project status, method, _time | summarize count() by bin(_time, 1h), status"),
    DatetimeComparedWithString: rule('APL2013', 'datetime-compared-with-string', 'warning', 'safe',
        'A datetime compared with a string',
        "Comparing a datetime with a string (`_time > \"2024-01-01\"`) makes the string be parsed as a time at run time: a string that does not parse (a typo, a local date format) compares as null and the filter silently drops every row, and other KQL engines refuse the comparison. Write a datetime literal, which is checked as you type: `datetime(2024-01-01)`. The quick fix rewrites a string that parses; the rows stay the same.",
        "['sample-http-logs'] | where _time > \"2024-01-01\"",
        "['sample-http-logs'] | where _time > datetime(2024-01-01)"),
    RedundantToString: rule('APL2014', 'redundant-tostring', 'info', 'safe',
        '`tostring()` of a value that is already a string',
        "`tostring(x)` of a string returns it unchanged, and only costs a call per row (and hides from the reader that `x` was a string already). Use the value itself; the quick fix removes the call (and names the column as before when it was an unnamed column).",
        "['sample-http-logs'] | extend u = tostring(uri)",
        "['sample-http-logs'] | extend u = uri"),
    NotNullAndNotEmpty: rule('APL2015', 'isnotnull-and-isnotempty', 'info', 'safe',
        '`isnotnull(x) and isnotempty(x)`',
        "`isnotempty(x)` is true only for a value that is neither null nor empty, so `isnotnull(x)` next to it in an `and` adds nothing. Keep `isnotempty(x)` alone; the quick fix removes the `isnotnull` test.",
        "['sample-http-logs'] | where isnotnull(uri) and isnotempty(uri)",
        "['sample-http-logs'] | where isnotempty(uri)"),
    IffTrueFalse: rule('APL2016', 'iff-true-false', 'info', 'safe',
        '`iff(c, true, false)`',
        "`iff(c, true, false)` is `c`, and `iff(c, false, true)` is `not(c)`: the call adds nothing but noise. The quick fix writes the condition itself; it is applied by `--fix` only inside a `where` predicate, where a null condition and false both drop the row (elsewhere `iff` turns a null condition into false, so the editor offers it and you judge).",
        "['sample-http-logs'] | where iff(status == \"500\", true, false)",
        "['sample-http-logs'] | where status == \"500\""),
} as const;

export type AnalyzerRuleName = keyof typeof AnalyzerRules;

const rulesByCode = new Map<string, AnalyzerRule>(Object.values(AnalyzerRules).map(r => [r.code, r]));

/** The rule behind a code, or undefined. */
export function analyzerRuleByCode(code: string): AnalyzerRule | undefined {
    return rulesByCode.get(code);
}

/** Every rule, in code order. */
export function allAnalyzerRules(): AnalyzerRule[] {
    return [...rulesByCode.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** The explanation as Markdown: the paragraph, then the bad and the good example (hover, SARIF help). */
export function analyzerRuleMarkdown(r: AnalyzerRule): string {
    return `**${r.code} ${r.id}**: ${r.title}\n\n${r.help}\n\nInstead of:\n\n\`\`\`kusto\n${r.bad}\n\`\`\`\n\nwrite:\n\n\`\`\`kusto\n${r.good}\n\`\`\``;
}

/** The explanation as plain text (`apl check --explain`, SARIF `help.text`). */
export function analyzerRuleText(r: AnalyzerRule): string {
    const fix = r.fix === 'safe' ? 'a safe quick fix (apl check --fix applies it)' : r.fix === 'suggested' ? 'a suggested quick fix (editor only)' : 'no quick fix';
    return `${r.code} ${r.id} (${r.severity === 'info' ? 'information' : 'warning'}; ${fix})\n${r.title.replace(/`/g, '')}\n\n${r.help}\n\nInstead of:\n  ${r.bad.replace(/\n/g, '\n  ')}\nwrite:\n  ${r.good.replace(/\n/g, '\n  ')}`;
}
