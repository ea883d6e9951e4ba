/**
 * Runs queries: one run at a time (a new run cancels the one before), each ending in a visible
 * state: `done`, `error` or `cancelled`. A run resolves its time range once ("now" is read at the
 * start) and gives every page the same range; it opens a `ResultSet` (paged when the language
 * server said the result can be paged, else one request) and records itself in the history.
 */
import { AplApiError, queryErrorLocation, type QueryErrorLocation } from '../../../api/errors.js';
import type { PagingKind } from '../../../api/paging.js';
import type { TabularResult } from '../../../api/types.js';
import type { Connection, ConnectionManager } from '../connections/connection-manager.js';
import type { HistoryManager, RunOutcome } from '../history/history-manager.js';
import { ResultSet, type ResultMode } from '../results/result-set.js';
import { resolveTimeRange, type ResolvedTimeRange, type TimeRangeSpec } from '../time-range.js';

export type RunState = 'running' | RunOutcome;

export interface RunRequest {
    /** The query text as sent (a block or the selection). */
    text: string;
    /** From `apl/queryInfo`: the result keeps `_time` over a row-by-row pipeline. */
    pageable: boolean;
    order: 'asc' | 'desc';
    /** Why it is not pageable (shown in the results). */
    notPageableReason?: string;
    /** A `bin(_time, …)` column to chart. */
    timeColumn?: string;
    /** The datasets the query reads (from `apl/queryInfo`): an empty result is explained with their first and last events. */
    datasets?: string[];
    timeRange: TimeRangeSpec;
    /** The query before a column sort from the results view was added (a new sort replaces it). */
    sortBase?: string;
    /** When the command that made this run was invoked (ms, host clock); default the run's start. */
    invokedAt?: number;
    /** Where the text starts in its document (0-based), to place a service error there. */
    origin?: { uri: string; line: number; character: number };
}

export interface RunSummary {
    state: RunState;
    /** The query text that ran. */
    query: string;
    rowsMatched: number;
    rowsLoaded: number;
    /** The rows the results view scrolls over. */
    rowCount: number;
    pageSize: number;
    mode?: ResultMode;
    requests: number;
    elapsedMs: number;
    message?: string;
    /** Why nothing came back, when the time range is why (the datasets have events elsewhere). */
    emptyHint?: string;
}

export interface RunnerSettings {
    pageSize: number;
    cachedPages: number;
}

let nextRunId = 1;

/** How long after its request starts a run is shown running (see QueryRunner.run). */
const RUNNING_SHOWN_AFTER_MS = 3;

export class Run {
    readonly id = nextRunId++;
    state: RunState = 'running';
    result?: ResultSet;
    error?: { message: string; location?: QueryErrorLocation };
    /** Set after a run that found nothing, when its datasets have events outside the range. */
    emptyHint?: string;
    /** A result reopened from history or a `.aplr` file (no request was sent for it). */
    saved?: { savedAt: string; rowsSaved: number; rowCount: number };
    readonly controller = new AbortController();
    readonly startedAt: number;
    elapsedMs = 0;
    readonly done: Promise<RunSummary>;
    private resolveDone!: (s: RunSummary) => void;
    /** Settles once the run is in the history (and its result kept), after `done`. */
    readonly recorded: Promise<void>;
    /** @internal the runner's */
    markRecorded!: () => void;

    constructor(
        readonly request: RunRequest,
        readonly connection: Connection,
        readonly range: ResolvedTimeRange,
        readonly mode: ResultMode,
        readonly pageSize: number,
        now: number,
    ) {
        this.startedAt = now;
        this.done = new Promise(resolve => (this.resolveDone = resolve));
        this.recorded = new Promise(resolve => (this.markRecorded = resolve));
    }

    summary(): RunSummary {
        return {
            state: this.state,
            query: this.request.text,
            rowsMatched: this.result?.rowsMatched ?? 0,
            rowsLoaded: this.result?.rowsLoaded ?? 0,
            rowCount: this.result?.rowCount ?? 0,
            pageSize: this.result?.pageSize ?? this.pageSize,
            mode: this.mode,
            requests: this.result?.requests ?? 0,
            elapsedMs: this.elapsedMs,
            message: this.error?.message,
            emptyHint: this.emptyHint,
        };
    }

    finish(state: RunOutcome, now: number): void {
        if (this.state !== 'running') return;
        this.state = state;
        this.elapsedMs = now - this.startedAt;
        this.resolveDone(this.summary());
    }
}

export class QueryRunner {
    current: Run | undefined;
    private readonly listeners = new Set<(run: Run) => void>();

    constructor(
        private readonly connections: ConnectionManager,
        private readonly history: HistoryManager,
        private readonly settings: () => RunnerSettings,
        private readonly clock: () => number = Date.now,
        /** Keeps a finished run's first page for the history (ResultHistory.keep); its id. */
        private readonly keepResult?: (run: Run) => Promise<string | undefined>,
    ) {}

    /** Called when a run is shown running (just after its request left, unless it is over by then) and when it ends. */
    onDidChange(listener: (run: Run) => void): { dispose(): void } {
        this.listeners.add(listener);
        return { dispose: () => this.listeners.delete(listener) };
    }

    private emit(run: Run): void {
        for (const l of this.listeners) l(run);
    }

    /** A query beside `run` (its connection and time range), leaving the current run as it is: the results view's column statistics. */
    async aside(run: Run, apl: string): Promise<TabularResult> {
        const client = await this.connections.client(run.connection);
        return client.query(apl, { format: 'tabular', startTime: run.range.startTime, endTime: run.range.endTime });
    }

    /** Starts a run (cancelling the current one) and resolves with its summary when it ends. */
    async run(request: RunRequest, connection: Connection | undefined = this.connections.active()): Promise<Run> {
        this.cancel();
        if (!connection) throw new Error("no connection: run 'APL: Start Local Service' or 'APL: Add Connection'");
        const { pageSize, cachedPages } = this.settings();
        const paging: PagingKind = this.connections.pagingOf(connection);
        const mode: ResultMode = request.pageable ? paging : 'once';
        const now = this.clock();
        const range = resolveTimeRange(request.timeRange, new Date(now));
        const run = new Run(request, connection, range, mode, pageSize, now);
        this.current = run;
        void this.execute(run, cachedPages);
        // The request leaves first (fetch writes it a timer tick or two later), then the run is shown
        // running: the view's work for that (the grid drawn early, the Cancel button) otherwise held
        // up the request on a 2-core machine (4 sets of paired runs: the request 0–14 ms shorter in
        // the median, docs/benchmarks.md). A run over by then is shown done only.
        setTimeout(() => {
            if (run.state === 'running' && this.current === run) this.emit(run);
        }, RUNNING_SHOWN_AFTER_MS);
        return run;
    }

    private async execute(run: Run, cachedPages: number): Promise<void> {
        try {
            const client = await this.connections.client(run.connection);
            run.result = await ResultSet.open({
                client,
                apl: run.request.text,
                mode: run.mode,
                pageSize: run.pageSize,
                order: run.request.order,
                startTime: run.range.startTime,
                endTime: run.range.endTime,
                cachedPages,
                signal: run.controller.signal,
            });
            run.finish(run.controller.signal.aborted ? 'cancelled' : 'done', this.clock());
        } catch (e) {
            if (run.controller.signal.aborted) {
                run.finish('cancelled', this.clock());
            } else {
                const location = queryErrorLocation(e);
                run.error = { message: location?.message ?? describe(e), location };
                run.finish('error', this.clock());
            }
        }
        this.emit(run);
        const resultId = run.state === 'done' && this.keepResult ? await this.keepResult(run).catch(() => undefined) : undefined;
        await this.history
            .add({
                at: new Date(run.startedAt).toISOString(),
                text: run.request.text,
                connection: run.connection.name,
                startTime: run.range.startTime,
                endTime: run.range.endTime,
                range: run.range.label,
                rowsMatched: run.result?.rowsMatched,
                elapsedMs: run.elapsedMs,
                outcome: run.state as RunOutcome,
                error: run.error?.message,
                ...(resultId ? { resultId } : {}),
            })
            .catch(() => undefined);
        run.markRecorded();
    }

    /** Makes a finished run (a saved result, reopened) the current one, cancelling the one running. */
    show(run: Run): void {
        this.cancel();
        this.current = run;
        this.emit(run);
    }

    /** Aborts the current run's request (and any page it is fetching). */
    cancel(): boolean {
        const run = this.current;
        if (!run || run.state !== 'running') return false;
        run.controller.abort();
        run.finish('cancelled', this.clock());
        this.emit(run);
        return true;
    }
}

function describe(e: unknown): string {
    if (e instanceof AplApiError) return e.status === 0 ? e.message : `${e.status}: ${e.message}`;
    return e instanceof Error ? e.message : String(e);
}
