/**
 * Queries with syntax errors, chosen so that the parser's error recovery has work to do: missing
 * operands, misspelt or missing keywords, unclosed brackets, stray separators, errors mid-pipeline
 * with valid operators after them.
 */
export const BROKEN_QUERIES = [
    "['sample-http-logs'] | where status ==",
    "['sample-http-logs'] | wher status == 500 | take 10",
    "['sample-http-logs'] | summarize count( by method",
    "['sample-http-logs'] | project a, , b | take 10",
    "['sample-http-logs'] | extend x = (1 + | where y > 2",
    "let x = ; ['sample-http-logs'] | take 1",
    "['otel-demo-traces'] | join kind= (['otel-demo-logs']) on",
    "['sample-http-logs'] | where method in ('GET', 'POST' | count",
    "['sample-http-logs'] | sort by | take",
    "['sample-http-logs'] | parse uri with * '/api/' rest:",
    "['sample-http-logs'] | mv-expand kind= a to typeof(",
    'datatable(a:long)[1, 2',
    "['sample-http-logs'] | where f(x, , y) > 1 and",
    "['sample-http-logs']\n| where a > 1\n| summarize by\n| take 5",
    "['otel-demo-traces'] | lookup kind=leftouter services on $left.a ==",
    "['sample-http-logs'] | extend a = iff(b, 'x' 'y') | project a",
    "['sample-http-logs'] | summarize avg(x) by bin(_time 1h), method | order by",
    "['sample-http-logs'] | where ) status == 500",
    "['sample-http-logs'] | top by x desc nulls",
    "['sample-http-logs'] | make-series count() on _time from to now() step",
    "['sample-http-logs'] | project-rename = a | take 1",
    "['sample-http-logs'] | where a == dynamic({'x': [1, 2}) | count",
    "let f = (x:long) { x + ; f(1)",
    "| where a > 1",
];
