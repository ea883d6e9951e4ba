/** What one MCP session of `apl mcp` knows: its data source, its limits and the queries it has run. */
import { CliError } from '../cli/cli-error.js';
import { formatDatetime } from '../../language/values.js';
import { parseTimeArg } from '../cli/time-arg.js';
import type { SchemaProvider } from '../../language/schema/schema-provider.js';
import { ToolProblem, type DataSource } from './data-source.js';
import type { Redact } from './redact.js';

export interface McpLimits {
    /** Each query (run_apl, explain_apl's row counts) stops after this many ms. */
    timeLimitMs: number;
    /** The most rows run_apl returns in one call. */
    maxRows: number;
    /** The queries one session may run. */
    queryBudget: number;
}

export const DEFAULT_LIMITS: McpLimits = { timeLimitMs: 30_000, maxRows: 1000, queryBudget: 100 };
/** Rows run_apl returns when the agent does not say. */
export const DEFAULT_RUN_ROWS = 100;

export interface McpSettings {
    source: DataSource;
    /** `--schema FILE`: datasets and fields known without asking the source. */
    schemaFile?: { path: string; provider: SchemaProvider };
    limits: McpLimits;
    /** `--allow-writes DATASET`: the datasets ingest_events may write into (none: no write tool at all). */
    writableDatasets: readonly string[];
    redact: Redact;
}

/** One session's count of queries against its budget. */
export class QueryBudget {
    private used = 0;
    constructor(private readonly limit: number) {}

    /** Takes `n` queries from the budget, or a ToolProblem when they are not left. */
    take(n = 1): void {
        if (this.used + n > this.limit) {
            throw new ToolProblem(`this session's query budget is spent (${this.used} of ${this.limit} queries used${n > 1 ? `, ${n} more needed` : ''}); start a new session, or restart apl mcp with a larger --query-budget`);
        }
        this.used += n;
    }

    get left(): number {
        return this.limit - this.used;
    }
}

/** A tool's `start`/`end` argument as RFC 3339 (`now-1h`, a date or RFC 3339 accepted). */
export function timeArgument(value: string | undefined, name: 'start' | 'end'): string | undefined {
    if (value === undefined || value === '') return undefined;
    try {
        return formatDatetime(parseTimeArg(value, name));
    } catch (e) {
        if (e instanceof CliError) throw new ToolProblem(e.message);
        throw e;
    }
}
