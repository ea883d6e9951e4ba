/** The query texts the sections share: the short corpus queries, the 20-line query, Q1–Q8 and their SQL. */
import { existsSync } from 'node:fs';
import { CORPUS_PATH, parseableCorpusTexts } from '../../test/support/corpus.js';
import { Skip, cycle } from './harness.js';

/** 1,000 short queries (or `n`): the parseable corpus texts, cycled. Read from ../shared at run time. */
export function shortQueries(n = 1000): string[] {
    if (!existsSync(CORPUS_PATH)) throw new Skip(`corpus not found at ${CORPUS_PATH}`);
    return cycle(parseableCorpusTexts().map(e => e.text), n);
}

/** One realistic 20-line query over sample-http-logs (valid APL and valid Kusto). */
export const LONG_QUERY = [
    "['sample-http-logs']",
    '| where _time > ago(30d)',
    '| where status != "200"',
    '| where method in ("GET", "POST", "PUT")',
    '| extend duration_s = req_duration_ms / 1000',
    '| extend is_slow = req_duration_ms > 500',
    "| extend country = ['geo.country'], city = ['geo.city']",
    '| where isnotempty(country)',
    '| extend kb = resp_body_size_bytes / 1024',
    '| where uri startswith "/api"',
    '| extend section = tostring(split(uri, "/")[2])',
    '| extend hour = bin(_time, 1h)',
    '| where user_agent contains "Mozilla"',
    '| extend tls = iff(is_tls, "tls", "plain")',
    '| summarize requests = count(), slow = countif(is_slow), p95 = percentile(req_duration_ms, 95), avg_kb = avg(kb) by hour, country, method, tls',
    '| extend slow_ratio = todouble(slow) / requests',
    '| where requests > 10',
    '| order by slow_ratio desc',
    '| project hour, country, method, tls, requests, slow_ratio, p95, avg_kb',
    '| take 100',
].join('\n');

export interface EvalQuery {
    id: string;
    apl: string;
    sql: string;
    /** A bar of its own (issue 31: a limit after row-wise steps stops early, ≤ 1.5× DuckDB) and what the row says. */
    bar?: number;
    label?: string;
}

/** DuckDB table name for sample-http-logs; columns keep the flattened APL names (quoted). */
export const LOGS_TABLE = 'http_logs';

/**
 * Q1–Q8 and DuckDB SQL with the same meaning:
 * - `contains` is case-insensitive in APL → `ILIKE`.
 * - `percentile` is nearest-rank in our engine → `quantile_disc`.
 * - `dcount` → exact `count(DISTINCT …)` (the stricter baseline; ours is exact too).
 * - long / long is integer division in APL → DuckDB `//`.
 * - `top N by x` is `ORDER BY x DESC LIMIT N`; `take` has no order → plain `LIMIT`.
 */
export const EVAL_QUERIES: EvalQuery[] = [
    {
        id: 'Q1',
        apl: `['sample-http-logs'] | where status == "500" | count`,
        sql: `SELECT count(*) AS "Count" FROM ${LOGS_TABLE} WHERE status = '500'`,
    },
    {
        id: 'Q2',
        apl: `['sample-http-logs'] | summarize count() by status`,
        sql: `SELECT status, count(*) AS count_ FROM ${LOGS_TABLE} GROUP BY status`,
    },
    {
        id: 'Q3',
        apl: `['sample-http-logs'] | where method == "GET" | summarize avg(req_duration_ms), max(req_duration_ms) by bin(_time, 1h)`,
        sql: `SELECT time_bucket(INTERVAL 1 HOUR, _time) AS _time, avg(req_duration_ms) AS avg_req_duration_ms, max(req_duration_ms) AS max_req_duration_ms FROM ${LOGS_TABLE} WHERE method = 'GET' GROUP BY 1`,
    },
    {
        id: 'Q4',
        apl: `['sample-http-logs'] | summarize dcount(id) by ['geo.country']`,
        sql: `SELECT "geo.country", count(DISTINCT id) AS dcount_id FROM ${LOGS_TABLE} GROUP BY 1`,
    },
    {
        id: 'Q5',
        apl: `['sample-http-logs'] | summarize percentile(req_duration_ms, 95) by method`,
        sql: `SELECT method, quantile_disc(req_duration_ms, 0.95) AS percentile_req_duration_ms_95 FROM ${LOGS_TABLE} GROUP BY method`,
    },
    {
        id: 'Q6',
        apl: `['sample-http-logs'] | top 10 by req_duration_ms`,
        sql: `SELECT * FROM ${LOGS_TABLE} ORDER BY req_duration_ms DESC LIMIT 10`,
    },
    {
        id: 'Q7',
        apl: `['sample-http-logs'] | where uri contains "api" | summarize count() by uri | top 5 by count_`,
        sql: `SELECT uri, count(*) AS count_ FROM ${LOGS_TABLE} WHERE uri ILIKE '%api%' GROUP BY uri ORDER BY count_ DESC LIMIT 5`,
    },
    {
        id: 'Q8',
        bar: 1.5,
        label: 'Q8 (take 1000: stops early)',
        apl: `['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024 | where kb > 10 | project _time, uri, kb | take 1000`,
        sql: `SELECT _time, uri, resp_body_size_bytes // 1024 AS kb FROM ${LOGS_TABLE} WHERE resp_body_size_bytes // 1024 > 10 LIMIT 1000`,
    },
];
