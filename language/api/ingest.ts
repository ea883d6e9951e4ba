/** The ingest response (API.md §3.4): what the service answers and the client reads back. */

/** One event that was not ingested: its time as sent (or the receive time) and why. */
export interface IngestFailure {
    timestamp: string;
    error: string;
}

export interface IngestStatus {
    ingested: number;
    failed: number;
    failures: IngestFailure[];
    processedBytes: number;
    blocksCreated: number;
    walLength: number;
}
