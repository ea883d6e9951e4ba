/**
 * The time range of a run: a preset relative to "now" (15m … 30d), every event up to now (`all`,
 * what `apl run` does without --start/--end) or a custom absolute range. "Now" is resolved once per
 * run, and every page of that run gets the same absolute range.
 */
export const TIME_PRESETS = ['15m', '1h', '6h', '24h', '7d', '30d', 'all'] as const;
export type TimePreset = (typeof TIME_PRESETS)[number];

export type TimeRangeSpec = { preset: TimePreset } | { start: string; end: string };

export interface ResolvedTimeRange {
    /** RFC 3339. */
    startTime: string;
    endTime: string;
    /** What the user picked: `last 1h`, or the custom range. */
    label: string;
}

/** Where "all time" starts: the service needs a start, and no event is older than the epoch in practice. */
export const ALL_TIME_START = '1970-01-01T00:00:00.000Z';

/** The picker's words for a preset. */
export function presetLabel(preset: TimePreset): string {
    return preset === 'all' ? 'All time' : `Last ${preset}`;
}

const PRESET_MS: Record<Exclude<TimePreset, 'all'>, number> = {
    '15m': 15 * 60_000,
    '1h': 3_600_000,
    '6h': 6 * 3_600_000,
    '24h': 24 * 3_600_000,
    '7d': 7 * 86_400_000,
    '30d': 30 * 86_400_000,
};

export function isTimePreset(value: unknown): value is TimePreset {
    return typeof value === 'string' && (TIME_PRESETS as readonly string[]).includes(value);
}

/** Reads a spec from settings or a message: a preset name, or `{ start, end }` with parseable times. */
export function parseTimeRangeSpec(value: unknown): TimeRangeSpec | undefined {
    if (isTimePreset(value)) return { preset: value };
    if (value && typeof value === 'object') {
        const v = value as { preset?: unknown; start?: unknown; end?: unknown };
        if (isTimePreset(v.preset)) return { preset: v.preset };
        if (typeof v.start === 'string' && typeof v.end === 'string') {
            const start = Date.parse(v.start);
            const end = Date.parse(v.end);
            if (Number.isFinite(start) && Number.isFinite(end) && start < end) return { start: v.start, end: v.end };
        }
    }
    return undefined;
}

/** `2026-11-28 03:12` (seconds and milliseconds only when they are not zero): a time a person reads. */
export function readableTime(iso: string): string {
    return iso.replace('T', ' ').replace(/\.000Z$/, 'Z').replace(/:00Z$/, 'Z').replace(/Z$/, '');
}

export function resolveTimeRange(spec: TimeRangeSpec, now: Date): ResolvedTimeRange {
    if ('preset' in spec) {
        if (spec.preset === 'all') return { startTime: ALL_TIME_START, endTime: now.toISOString(), label: 'all time' };
        return { startTime: new Date(now.getTime() - PRESET_MS[spec.preset]).toISOString(), endTime: now.toISOString(), label: `last ${spec.preset}` };
    }
    const startTime = new Date(Date.parse(spec.start)).toISOString();
    const endTime = new Date(Date.parse(spec.end)).toISOString();
    return { startTime, endTime, label: `${readableTime(startTime)} – ${readableTime(endTime)} UTC` };
}
