/**
 * Calendar arithmetic on datetimes held as bigint nanoseconds since the Unix epoch, in UTC.
 *
 * The proleptic Gregorian conversions follow Howard Hinnant's `days_from_civil` /
 * `civil_from_days` algorithms, so they are exact for every year (no JS `Date` involved, no 53-bit
 * loss on the sub-millisecond part). Used by the datetime built-ins, `bin`, and anything else that
 * needs "start of month" or "ISO week" on a nanosecond value.
 */
import { NS_PER_DAY, NS_PER_HOUR, NS_PER_MINUTE, NS_PER_SECOND, NS_PER_MS, NS_PER_TICK } from '../values.js';

export interface CivilDate {
    year: number;
    /** 1..12 */
    month: number;
    /** 1..31 */
    day: number;
}

export interface DateTimeParts extends CivilDate {
    hour: number;
    minute: number;
    second: number;
    /** 0..999_999_999 */
    nanosecond: number;
}

/** Floor division for bigints (rounds towards -infinity, unlike `/`). */
export function floorDiv(a: bigint, b: bigint): bigint {
    const q = a / b;
    return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** The non-negative remainder that goes with `floorDiv`. */
export function floorMod(a: bigint, b: bigint): bigint {
    return a - floorDiv(a, b) * b;
}

/** Days since 1970-01-01 for a civil date (month 1..12). */
export function daysFromCivil(year: number, month: number, day: number): number {
    const y = month <= 2 ? year - 1 : year;
    const era = Math.floor(y / 400);
    const yoe = y - era * 400;
    const mp = (month + 9) % 12;
    const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
    const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
    return era * 146097 + doe - 719468;
}

/** The civil date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): CivilDate {
    const z = days + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeapYear(year: number): boolean {
    return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
    return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** Day number (since the epoch) of a nanosecond instant. */
export function dayNumber(ns: bigint): number {
    return Number(floorDiv(ns, NS_PER_DAY));
}

export function nsFromDays(days: number): bigint {
    return BigInt(days) * NS_PER_DAY;
}

/** Splits an instant into calendar fields. */
export function partsOf(ns: bigint): DateTimeParts {
    const days = floorDiv(ns, NS_PER_DAY);
    let rest = ns - days * NS_PER_DAY;
    const hour = Number(rest / NS_PER_HOUR);
    rest -= BigInt(hour) * NS_PER_HOUR;
    const minute = Number(rest / NS_PER_MINUTE);
    rest -= BigInt(minute) * NS_PER_MINUTE;
    const second = Number(rest / NS_PER_SECOND);
    rest -= BigInt(second) * NS_PER_SECOND;
    return { ...civilFromDays(Number(days)), hour, minute, second, nanosecond: Number(rest) };
}

/** The time of day, in ns since midnight. */
export function timeOfDay(ns: bigint): bigint {
    return floorMod(ns, NS_PER_DAY);
}

/** 0 = Sunday ... 6 = Saturday. 1970-01-01 was a Thursday. */
export function weekdayOf(ns: bigint): number {
    return (((dayNumber(ns) + 4) % 7) + 7) % 7;
}

/** 1-based day of the year. */
export function dayOfYear(ns: bigint): number {
    const { year } = civilFromDays(dayNumber(ns));
    return dayNumber(ns) - daysFromCivil(year, 1, 1) + 1;
}

/**
 * ISO 8601 week number (weeks start on Monday; week 1 holds the year's first Thursday), 1..53.
 * `isoYear` is the year the week belongs to (may differ from the calendar year in late Dec/early Jan).
 */
export function isoWeek(ns: bigint): { isoYear: number; week: number } {
    const days = dayNumber(ns);
    const isoWeekday = ((weekdayOf(ns) + 6) % 7) + 1; // Monday = 1 ... Sunday = 7
    const thursday = days - isoWeekday + 4;
    const isoYear = civilFromDays(thursday).year;
    const week = Math.floor((thursday - daysFromCivil(isoYear, 1, 1)) / 7) + 1;
    return { isoYear, week };
}

export function startOfDay(ns: bigint, offsetDays = 0): bigint {
    return nsFromDays(dayNumber(ns) + offsetDays);
}

/** Sunday 00:00 of the instant's week, moved by `offsetWeeks`. */
export function startOfWeek(ns: bigint, offsetWeeks = 0): bigint {
    return nsFromDays(dayNumber(ns) - weekdayOf(ns) + offsetWeeks * 7);
}

export function startOfMonth(ns: bigint, offsetMonths = 0): bigint {
    const { year, month } = civilFromDays(dayNumber(ns));
    const total = year * 12 + (month - 1) + offsetMonths;
    const y = Math.floor(total / 12);
    return nsFromDays(daysFromCivil(y, total - y * 12 + 1, 1));
}

export function startOfYear(ns: bigint, offsetYears = 0): bigint {
    const { year } = civilFromDays(dayNumber(ns));
    return nsFromDays(daysFromCivil(year + offsetYears, 1, 1));
}

/**
 * The last instant of a period as KQL prints it: one tick (100 ns) before the next period starts
 * (`2024-11-14T23:59:59.9999999Z`), so results match KQL/Axiom output exactly.
 */
export function endBefore(nextStart: bigint): bigint {
    return nextStart - NS_PER_TICK;
}

/**
 * Adds calendar months, clamping the day to the target month's length
 * (2024-01-31 + 1 month = 2024-02-29), keeping the time of day.
 */
export function addMonths(ns: bigint, months: number): bigint {
    const days = dayNumber(ns);
    const tod = ns - nsFromDays(days);
    const { year, month, day } = civilFromDays(days);
    const total = year * 12 + (month - 1) + months;
    const y = Math.floor(total / 12);
    const m = total - y * 12 + 1;
    const d = Math.min(day, daysInMonth(y, m));
    return nsFromDays(daysFromCivil(y, m, d)) + tod;
}

/** Fixed-length units in ns, for datetime_add/datetime_diff. */
export const FIXED_UNIT_NS: Readonly<Record<string, bigint>> = {
    week: 7n * NS_PER_DAY,
    day: NS_PER_DAY,
    hour: NS_PER_HOUR,
    minute: NS_PER_MINUTE,
    second: NS_PER_SECOND,
    millisecond: NS_PER_MS,
    microsecond: 1000n,
    nanosecond: 1n,
};
