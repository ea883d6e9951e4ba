/**
 * Why a run found nothing, when the reason is the time range: the service knows each dataset's
 * first and last event (`GET /v1/datasets/{id}/info`: minTime, maxTime). When a dataset the query
 * reads has events, but none in the range, the results view says where they are and offers All time.
 */
import { readableTime, type ResolvedTimeRange } from '../time-range.js';

export interface DatasetSpan {
    name: string;
    events: number;
    /** RFC 3339; the service answers 0001-01-01 for a dataset without events. */
    minTime: string;
    maxTime: string;
}

/** `2026-11-28 03:12 UTC`-style minutes: what a person compares with a range. */
export function minuteText(iso: string): string {
    const d = new Date(iso);
    if (!Number.isFinite(d.getTime())) return iso;
    return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** The range as the sentence names it: "in the last 1h", "between … and … UTC". */
function rangeText(range: ResolvedTimeRange): string {
    if (range.label.startsWith('last ')) return `in the ${range.label}`;
    return `between ${readableTime(range.startTime)} and ${readableTime(range.endTime)} UTC`;
}

/**
 * The explanation, or undefined when a dataset does have events in the range (then the query's
 * own filters found nothing, and the range is not to blame) or when no dataset has any event.
 */
export function emptyRangeHint(range: ResolvedTimeRange, spans: readonly DatasetSpan[]): string | undefined {
    const start = Date.parse(range.startTime);
    const end = Date.parse(range.endTime);
    const withEvents = spans.filter(s => s.events > 0 && Number.isFinite(Date.parse(s.minTime)) && Date.parse(s.minTime) > Date.parse('0001-01-02T00:00:00Z'));
    if (withEvents.length === 0) return undefined;
    // A dataset with events inside the range: the time range is not why nothing came back.
    if (withEvents.some(s => Date.parse(s.maxTime) >= start && Date.parse(s.minTime) <= end)) return undefined;
    const where = withEvents.map(s => `'${s.name}' has events from ${minuteText(s.minTime)} to ${minuteText(s.maxTime)} UTC`).join('; ');
    return `No events ${rangeText(range)}; ${where}.`;
}
