/** Options of `generateSample`, as the caller passes them. */
export interface GenerateSampleOptions {
    /** Number of events to generate. */
    rows: number;
    /** PRNG seed; the same seed, `end` and `days` always give the same events. Default 1. */
    seed?: number;
    /**
     * End of the time window (exclusive). Default: the start of the current UTC minute, so that two
     * generations in the same minute (`apl serve`'s first start, `apl run`) give the same events
     * for the same seed, not events shifted by the milliseconds between them.
     */
    end?: Date;
    /** Length of the time window in days, ending at `end`. Default 30. */
    days?: number;
    /** Also emit `_sysTime` (normally set by ingestion), a little after `_time`. Default false. */
    sysTime?: boolean;
}

/** The options with defaults applied, as the generators see them. */
export interface SampleOptions {
    rows: number;
    seed: number;
    end: Date;
    days: number;
    sysTime: boolean;
}

export function normalizeSampleOptions(o: GenerateSampleOptions): SampleOptions {
    if (!Number.isInteger(o.rows) || o.rows < 0) throw new Error(`rows must be a non-negative integer, got ${o.rows}`);
    const days = o.days ?? 30;
    if (!(days > 0) || !Number.isFinite(days)) throw new Error(`days must be a positive number, got ${o.days}`);
    const end = o.end ?? sampleWindowEnd();
    if (Number.isNaN(end.getTime())) throw new Error('end is not a valid date');
    const seed = o.seed ?? 1;
    if (!Number.isFinite(seed)) throw new Error(`seed must be a finite number, got ${o.seed}`);
    return { rows: o.rows, seed, end, days, sysTime: o.sysTime ?? false };
}

const MINUTE_MS = 60_000;

/** The default end of a sample's time window at `now`: the start of its UTC minute. */
export function sampleWindowEnd(now: Date = new Date()): Date {
    return new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
}
