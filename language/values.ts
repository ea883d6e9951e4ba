/**
 * Scalar values as the catalogue's `evaluate` functions and the evaluator's row-level paths see them.
 *
 * - string  -> JS string
 * - long    -> JS number holding an integer (exact to 2^53; 64-bit wrap-around is applied on overflow)
 * - real    -> JS number (NaN and ±Infinity allowed)
 * - bool    -> JS boolean
 * - datetime-> Datetime (nanoseconds since the Unix epoch, as bigint: ticks need more than 53 bits)
 * - timespan-> Timespan (nanoseconds, as bigint)
 * - dynamic -> a JSON value (object, array, string, number, boolean); datetimes inside dynamic are RFC 3339 strings
 * - null    -> null, for every type
 *
 * Which of long/real a number is, and whether a string is a `string` or a `dynamic` string, is
 * decided by the static type of the expression, which the evaluator always knows.
 */
export class Datetime {
    constructor(readonly ns: bigint) {}
    /** Milliseconds since the epoch (lossy below 1 ms). */
    get ms(): number {
        return Number(this.ns / 1_000_000n) + Number(this.ns % 1_000_000n) / 1e6;
    }
    static fromMs(ms: number): Datetime {
        const whole = Math.floor(ms);
        return new Datetime(BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6)));
    }
    toString(): string {
        return formatDatetime(this.ns);
    }
    toJSON(): string {
        return formatDatetime(this.ns);
    }
}

export class Timespan {
    constructor(readonly ns: bigint) {}
    toString(): string {
        return formatGoDuration(this.ns);
    }
    toJSON(): string {
        return formatGoDuration(this.ns);
    }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type AplValue = null | boolean | number | string | Datetime | Timespan | JsonValue[] | { [key: string]: JsonValue };

export const NS_PER_TICK = 100n;
export const NS_PER_MS = 1_000_000n;
export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_MINUTE = 60n * NS_PER_SECOND;
export const NS_PER_HOUR = 60n * NS_PER_MINUTE;
export const NS_PER_DAY = 24n * NS_PER_HOUR;

/** RFC 3339 with up to nine fractional digits, trailing zeros trimmed, always `Z`. */
export function formatDatetime(ns: bigint): string {
    let secs = ns / NS_PER_SECOND;
    let frac = ns % NS_PER_SECOND;
    if (frac < 0n) {
        frac += NS_PER_SECOND;
        secs -= 1n;
    }
    const d = new Date(Number(secs) * 1000);
    if (Number.isNaN(d.getTime())) return 'invalid datetime';
    const iso = d.toISOString(); // yyyy-mm-ddThh:mm:ss.000Z
    const base = iso.slice(0, 19);
    if (frac === 0n) return `${base}Z`;
    const digits = frac.toString().padStart(9, '0').replace(/0+$/, '');
    return `${base}.${digits}Z`;
}

/** Go's time.Duration.String(): `1h2m3.5s`, `500ms`, `190ns`, `0s`. */
export function formatGoDuration(ns: bigint): string {
    if (ns === 0n) return '0s';
    const neg = ns < 0n;
    let u = neg ? -ns : ns;
    let out: string;
    if (u < NS_PER_SECOND) {
        // Sub-second: use the largest unit that keeps the integer part non-zero.
        if (u < 1000n) out = `${u}ns`;
        else if (u < 1_000_000n) out = `${fraction(u, 1000n)}µs`;
        else out = `${fraction(u, 1_000_000n)}ms`;
    } else {
        const h = u / NS_PER_HOUR;
        u -= h * NS_PER_HOUR;
        const m = u / NS_PER_MINUTE;
        u -= m * NS_PER_MINUTE;
        out = '';
        if (h > 0n) out += `${h}h`;
        if (h > 0n || m > 0n) out += `${m}m`;
        out += `${fraction(u, NS_PER_SECOND)}s`;
    }
    return neg ? `-${out}` : out;
}

function fraction(v: bigint, unit: bigint): string {
    const whole = v / unit;
    const rest = v % unit;
    if (rest === 0n) return whole.toString();
    const width = unit.toString().length - 1;
    return `${whole}.${rest.toString().padStart(width, '0').replace(/0+$/, '')}`;
}

/** KQL's `[-]d.hh:mm:ss.fffffff` form, used by some doc outputs. */
export function formatKqlTimespan(ns: bigint): string {
    const neg = ns < 0n;
    let ticks = (neg ? -ns : ns) / NS_PER_TICK;
    const days = ticks / 864_000_000_000n;
    ticks -= days * 864_000_000_000n;
    const h = ticks / 36_000_000_000n;
    ticks -= h * 36_000_000_000n;
    const m = ticks / 600_000_000n;
    ticks -= m * 600_000_000n;
    const s = ticks / 10_000_000n;
    ticks -= s * 10_000_000n;
    const pad = (x: bigint, n = 2) => x.toString().padStart(n, '0');
    const body = `${pad(h)}:${pad(m)}:${pad(s)}${ticks > 0n ? '.' + pad(ticks, 7) : ''}`;
    return `${neg ? '-' : ''}${days > 0n ? `${days}.` : ''}${body}`;
}

const TIMESPAN_UNITS: ReadonlyArray<[RegExp, bigint]> = [
    [/^(d|day|days)$/, NS_PER_DAY],
    [/^(h|hr|hrs|hour|hours)$/, NS_PER_HOUR],
    [/^(m|min|minute|minutes)$/, NS_PER_MINUTE],
    [/^(s|sec|second|seconds)$/, NS_PER_SECOND],
    [/^(ms|milli|millis|millisec|millisecond|milliseconds)$/, NS_PER_MS],
    [/^(micro|micros|microsec|microsecond|microseconds)$/, 1000n],
    [/^(nano|nanos|nanosec|nanosecond|nanoseconds)$/, 1n],
    [/^(tick|ticks)$/, NS_PER_TICK],
    // Axiom docs use `1w` once; KQL has no week suffix, we accept it (the validator warns).
    [/^(w|week|weeks)$/, 7n * NS_PER_DAY],
];

/** The unit suffixes a timespan literal may carry (for the lexer and completion). */
export const TIMESPAN_SUFFIX_PATTERN =
    'days|day|d|hours|hour|hrs|hr|h|minutes|minute|min|m|seconds|second|sec|s|milliseconds|millisecond|millisec|millis|milli|ms|microseconds|microsecond|microsec|micros|micro|nanoseconds|nanosecond|nanosec|nanos|nano|ticks|tick|weeks|week|w';

/** Parses a KQL timespan literal body such as `1.5h`, `100ms`, `10min`, `1tick`. */
export function parseTimespanLiteral(text: string): bigint | undefined {
    const m = /^([0-9]+(?:\.[0-9]+)?)([a-zA-Z]+)$/.exec(text.trim());
    if (!m) return undefined;
    const unit = TIMESPAN_UNITS.find(([re]) => re.test(m[2]));
    if (!unit) return undefined;
    return scaleDecimal(m[1], unit[1]);
}

/** Exact decimal * unit, rounding to the nearest nanosecond. */
function scaleDecimal(decimal: string, unit: bigint): bigint {
    const [intPart, fracPart = ''] = decimal.split('.');
    const scale = 10n ** BigInt(fracPart.length);
    const numerator = BigInt(intPart + fracPart) * unit;
    return (numerator + scale / 2n) / scale;
}

/** Go's time.ParseDuration: `300ms`, `-1.5h`, `2h45m`, units ns, us, µs, ms, s, m, h. */
export function parseGoDuration(text: string): bigint | undefined {
    let s = text.trim();
    if (s === '') return undefined;
    let neg = false;
    if (s[0] === '-' || s[0] === '+') {
        neg = s[0] === '-';
        s = s.slice(1);
    }
    if (s === '0') return 0n;
    const units: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: NS_PER_MS, s: NS_PER_SECOND, m: NS_PER_MINUTE, h: NS_PER_HOUR };
    const re = /([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;
    let total = 0n;
    let pos = 0;
    while (pos < s.length) {
        re.lastIndex = pos;
        const m = re.exec(s);
        if (!m || m[1] === '' || m[1] === '.') return undefined;
        total += scaleDecimal(m[1].endsWith('.') ? m[1] + '0' : m[1].startsWith('.') ? '0' + m[1] : m[1], units[m[2]]);
        pos = re.lastIndex;
    }
    return neg ? -total : total;
}

/**
 * Parses the datetime forms APL accepts in `datetime(...)` and `todatetime("...")`: ISO 8601 / RFC 3339
 * with `T` or a space, optional seconds, fraction (to 1 ns) and zone; a bare date. Returns ns since epoch.
 */
/**
 * The `_time` an ingested event can have: stored times are signed 64-bit nanoseconds since the
 * Unix epoch, 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z. An event whose
 * time falls outside fails instead of being stored wrapped around.
 */
export const EVENT_TIME_MIN_NS = -(2n ** 63n);
export const EVENT_TIME_MAX_NS = 2n ** 63n - 1n;

/** 400 Gregorian years, in ms: the calendar repeats exactly after it. */
const MS_PER_400_YEARS = 146_097 * 86_400_000;

/** Date.UTC for every year: Date.UTC itself reads years 0–99 as 1900–1999. */
export function utcMs(year: number, month0: number, day: number, h = 0, mi = 0, s = 0): number {
    return year >= 0 && year < 100 ? Date.UTC(year + 400, month0, day, h, mi, s) - MS_PER_400_YEARS : Date.UTC(year, month0, day, h, mi, s);
}

/** Days in `month1` (1–12) of the proleptic Gregorian `year`. */
export function daysInMonth(year: number, month1: number): number {
    if (month1 === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
    return month1 === 4 || month1 === 6 || month1 === 9 || month1 === 11 ? 30 : 31;
}

export function parseDatetime(text: string): bigint | undefined {
    const s = text.trim();
    const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9})\d*)?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}:?\d{2})?$/.exec(s);
    if (m) {
        const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone] = m;
        const ms = utcMs(+y, +mo - 1, +d, +h, +mi, +sec);
        if (Number.isNaN(ms) || +mo < 1 || +mo > 12 || +d < 1 || +d > daysInMonth(+y, +mo) || +h > 23 || +mi > 59 || +sec > 60) return undefined;
        let ns = BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, '0') || '0');
        if (zone && zone !== 'Z' && zone !== 'z' && zone !== 'UTC' && zone !== 'GMT') {
            const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
            const offset = (BigInt(zm[2]) * 60n + BigInt(zm[3])) * NS_PER_MINUTE;
            ns = zm[1] === '+' ? ns - offset : ns + offset;
        }
        return ns;
    }
    // Fallback for the looser forms that Go's dateparse accepts (RFC 1123, "Jan 2 2006", ...).
    if (/[a-zA-Z]{3}/.test(s)) {
        const ms = Date.parse(s.includes('UTC') || /[+-]\d{4}$/.test(s) || / GMT/.test(s) ? s : `${s} UTC`);
        if (!Number.isNaN(ms)) return BigInt(ms) * NS_PER_MS;
    }
    return undefined;
}

/** Wraps an integer result to signed 64 bits, as KQL's long arithmetic does on overflow. */
export function wrapLong(v: number): number {
    if (Number.isSafeInteger(v)) return v;
    if (!Number.isFinite(v)) return v;
    return Number(BigInt.asIntN(64, BigInt(Math.trunc(v))));
}

export function isDatetime(v: unknown): v is Datetime {
    return v instanceof Datetime;
}

export function isTimespan(v: unknown): v is Timespan {
    return v instanceof Timespan;
}

const RELATIVE_UNITS: Record<string, bigint> = { d: NS_PER_DAY, w: 7n * NS_PER_DAY, y: 365n * NS_PER_DAY };

/** A duration in Go syntax plus `d`, `w` and `y` (365 days), possibly combined: `1h30m`, `7d`, `1d12h`. */
export function parseRelativeDuration(text: string): bigint | undefined {
    const go = parseGoDuration(text);
    if (go !== undefined) return go;
    const re = /([0-9]+(?:\.[0-9]+)?)(d|w|y)/y;
    let pos = 0;
    let total = 0n;
    while (pos < text.length) {
        re.lastIndex = pos;
        const m = re.exec(text);
        if (!m) {
            const rest = parseGoDuration(text.slice(pos));
            return rest === undefined ? undefined : total + rest;
        }
        total += BigInt(Math.round(Number(m[1]) * 1e6)) * (RELATIVE_UNITS[m[2]] / 1_000_000n);
        pos = re.lastIndex;
    }
    return total;
}

export type TimeExpressionResult = { ok: true; ns: bigint } | { ok: false; problem: string };

/**
 * A time as requests and the CLI give it (API.md §4.2): RFC 3339 with any offset (or a bare date),
 * `now`, or `now` followed by signed durations (`now-1h`, `now-1h30m`, `now - 7d`, `now+5m`).
 * One parser for the engine, the service and the command line; each wraps `problem` in its own error.
 */
export function parseTimeExpression(text: string, nowNs: bigint): TimeExpressionResult {
    const s = text.trim();
    const rel = /^now((?:\s*[-+]\s*(?:[0-9.]+[a-z\u00b5\u03bc]+)+)*)\s*$/i.exec(s);
    if (rel) {
        let t = nowNs;
        for (const term of rel[1].match(/[-+]\s*[0-9.]+[a-z\u00b5\u03bc]+(?:[0-9.]+[a-z\u00b5\u03bc]+)*/gi) ?? []) {
            const duration = term.slice(1).trim();
            const ns = parseRelativeDuration(duration.toLowerCase());
            if (ns === undefined) return { ok: false, problem: `unknown duration "${duration}" (use e.g. 30s, 15m, 1h, 7d, 2w)` };
            t += term[0] === '-' ? -ns : ns;
        }
        return { ok: true, ns: t };
    }
    if (!/^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?)?\s*([Zz]|[+-]\d{2}:?\d{2})?$/.test(s)) {
        return { ok: false, problem: 'expected an RFC 3339 timestamp (2024-01-02T15:04:05Z), a date (2024-01-02) or a relative time such as now-1h' };
    }
    const ns = parseDatetime(s);
    return ns === undefined ? { ok: false, problem: 'not a valid date and time' } : { ok: true, ns };
}
