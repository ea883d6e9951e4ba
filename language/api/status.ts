/**
 * The `status` object every query result carries (API.md §4.5), shared by the engine's tabular and
 * legacy results, the legacy compiler's executor and the HTTP client.
 */
export type MessagePriority = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** `status.messages[]` (§6.5): `code` is `""`, one of Go's known codes, or `apl_…`. */
export interface StatusMessage {
    priority: MessagePriority;
    count: number;
    code: string;
    msg: string;
}

export interface QueryStatus {
    /** Microseconds. */
    elapsedTime: number;
    blocksExamined: number;
    /** Blocks left unread because their zone maps ruled them out (the embedded service only; not in Axiom's API). */
    blocksSkipped?: number;
    rowsExamined: number;
    rowsMatched: number;
    numGroups: number;
    isPartial: boolean;
    /** Bit flags: 1 miss, 2 materialized, 4 results, 8 WAL cached. */
    cacheStatus: number;
    minBlockTime: string;
    maxBlockTime: string;
    minCursor?: string;
    maxCursor?: string;
    isEstimate?: boolean;
    continuationToken?: string;
    messages?: StatusMessage[] | null;
}
