import { Rng } from './random.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Event times over `[end - days, end)`, with the traffic shape of a real service: a daily cycle
 * (busiest mid-afternoon UTC, quietest before dawn), quieter weekends and some hour-to-hour noise.
 *
 * `at(fraction)` maps a fraction in [0, 1) to a time through the cumulative traffic curve. Callers
 * pass increasing fractions (`(i + u) / rows`), so the times come out sorted and spread over the
 * whole window, and the pointer into the curve only moves forward (O(1) per event).
 */
export class TimeSampler {
    readonly startMs: number;
    readonly endMs: number;
    private readonly cdf: Float64Array;
    private readonly bucketStart: Float64Array;
    private readonly bucketWidth: Float64Array;
    private bucket = 0;

    constructor(end: Date, days: number, rng: Rng) {
        if (!(days > 0)) throw new Error(`days must be positive, got ${days}`);
        this.endMs = end.getTime();
        if (!Number.isFinite(this.endMs)) throw new Error('end is not a valid date');
        const windowMs = Math.round(days * DAY_MS);
        this.startMs = this.endMs - windowMs;
        const n = Math.ceil(windowMs / HOUR_MS);
        this.cdf = new Float64Array(n + 1);
        this.bucketStart = new Float64Array(n);
        this.bucketWidth = new Float64Array(n);
        let sum = 0;
        for (let b = 0; b < n; b++) {
            const start = this.startMs + b * HOUR_MS;
            const width = Math.min(HOUR_MS, this.endMs - start);
            this.bucketStart[b] = start;
            this.bucketWidth[b] = width;
            sum += trafficIntensity(start + width / 2, rng) * width;
            this.cdf[b + 1] = sum;
        }
        for (let b = 1; b <= n; b++) this.cdf[b] /= sum;
    }

    /** The time (ms since the epoch, fractional) at `fraction` of the traffic. Fractions must not decrease between calls. */
    at(fraction: number): number {
        const cdf = this.cdf;
        const last = this.bucketStart.length - 1;
        let b = this.bucket;
        while (b < last && cdf[b + 1] <= fraction) b++;
        this.bucket = b;
        const lo = cdf[b];
        const span = cdf[b + 1] - lo;
        const within = span > 0 ? (fraction - lo) / span : 0;
        const t = this.bucketStart[b] + within * this.bucketWidth[b];
        return t < this.endMs ? t : this.endMs - 0.001;
    }
}

/** Relative request rate at a moment: daily cycle x weekday factor x noise. */
function trafficIntensity(ms: number, rng: Rng): number {
    const hourOfDay = (ms % DAY_MS) / HOUR_MS;
    const daily = 1 + 0.6 * Math.cos(((hourOfDay - 15) / 24) * 2 * Math.PI);
    const weekday = new Date(ms).getUTCDay();
    const week = weekday === 0 || weekday === 6 ? 0.7 : 1;
    const noise = 0.85 + 0.3 * rng.next();
    return daily * week * noise;
}

const TWO_DIGITS: string[] = Array.from({ length: 60 }, (_, i) => (i < 10 ? '0' : '') + i);

/**
 * Formats times as RFC 3339 with nine fractional digits and `Z`, caching the part up to the minute,
 * so sorted input costs two small string concatenations per event.
 */
export class TimeFormatter {
    private minute = Number.NaN;
    private prefix = '';

    /** `ms` is whole or fractional milliseconds since the epoch; `subMsNs` adds 0..999_999 ns below the millisecond. */
    format(ms: number, subMsNs = 0): string {
        const wholeMs = Math.floor(ms);
        let ns = Math.round((ms - wholeMs) * 1e6) + subMsNs;
        let whole = wholeMs;
        if (ns >= 1e6) {
            whole += Math.floor(ns / 1e6);
            ns %= 1e6;
        }
        const minute = Math.floor(whole / 60_000);
        if (minute !== this.minute) {
            this.minute = minute;
            this.prefix = new Date(minute * 60_000).toISOString().slice(0, 17);
        }
        const inMinute = whole - minute * 60_000;
        const sec = Math.floor(inMinute / 1000);
        const frac = (inMinute - sec * 1000) * 1e6 + ns;
        return this.prefix + TWO_DIGITS[sec] + '.' + String(1e9 + frac).slice(1) + 'Z';
    }
}
