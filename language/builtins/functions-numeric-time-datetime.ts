/**
 * Datetime scalar functions. Everything is UTC and exact to the nanosecond (bigint arithmetic in
 * `time-parts.ts`). Part names are case-insensitive and underscores are ignored
 * (`dayOfYear` = `day_of_year` = `dayofyear`). An unknown part name gives null at run time; the
 * validator can check the constant against the exported name lists.
 */
import { Datetime, NS_PER_DAY, NS_PER_MS, NS_PER_SECOND, Timespan, type AplValue } from '../values.js';
import type { ScalarFunction } from './catalogue-types.js';
import { categoryBuilder, p, sig, strict, str, toInt } from './functions-numeric-time-helpers.js';
import {
    FIXED_UNIT_NS,
    addMonths,
    civilFromDays,
    dayNumber,
    dayOfYear,
    endBefore,
    floorDiv,
    isoWeek,
    partsOf,
    startOfDay,
    startOfMonth,
    startOfWeek,
    startOfYear,
    weekdayOf,
} from './time-parts.js';

const datetime = categoryBuilder('datetime');

/** Parts `datetime_part` accepts. */
export const DATETIME_PART_NAMES = [
    'year', 'quarter', 'month', 'week_of_year', 'week', 'day', 'dayOfYear', 'hour', 'minute', 'second',
    'millisecond', 'microsecond', 'nanosecond',
] as const;
/** Parts `datetime_add` accepts. */
export const DATETIME_ADD_PART_NAMES = [
    'year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond',
] as const;
/** Parts `datetime_diff` accepts. */
export const DATETIME_DIFF_PART_NAMES = DATETIME_ADD_PART_NAMES;

/** `dayOfYear` → `dayofyear`, `week_of_year` → `weekofyear`. */
function normalisePart(v: AplValue | undefined): string | undefined {
    const s = str(v);
    return s === undefined ? undefined : s.trim().toLowerCase().replace(/_/g, '');
}

function dt(v: AplValue | undefined): bigint | undefined {
    return v instanceof Datetime ? v.ns : undefined;
}

/** A long from a bigint, wrapped to 64 bits. */
function long(v: bigint): number {
    return Number(BigInt.asIntN(64, v));
}

/** `datetime_add(part, amount, datetime)`. */
export function datetimeAdd(part: string, amount: number, ns: bigint): bigint | undefined {
    switch (part) {
        case 'year': return addMonths(ns, amount * 12);
        case 'quarter': return addMonths(ns, amount * 3);
        case 'month': return addMonths(ns, amount);
        default: {
            const unit = FIXED_UNIT_NS[part];
            return unit === undefined ? undefined : ns + BigInt(amount) * unit;
        }
    }
}

/**
 * `datetime_diff(part, a, b)`: how many `part` boundaries lie between b and a (a − b), as KQL counts
 * them: `datetime_diff('year', 2017-01-01, 2016-12-31)` is 1; weeks start on Sunday.
 */
export function datetimeDiff(part: string, a: bigint, b: bigint): bigint | undefined {
    const ca = civilFromDays(dayNumber(a));
    const cb = civilFromDays(dayNumber(b));
    switch (part) {
        case 'year': return BigInt(ca.year - cb.year);
        case 'quarter': return BigInt((ca.year * 4 + Math.floor((ca.month - 1) / 3)) - (cb.year * 4 + Math.floor((cb.month - 1) / 3)));
        case 'month': return BigInt((ca.year * 12 + ca.month) - (cb.year * 12 + cb.month));
        case 'week': return (startOfWeek(a) - startOfWeek(b)) / (7n * NS_PER_DAY);
        default: {
            const unit = FIXED_UNIT_NS[part];
            return unit === undefined ? undefined : floorDiv(a, unit) - floorDiv(b, unit);
        }
    }
}

/** `datetime_part(part, datetime)`. */
export function datetimePart(part: string, ns: bigint): number | undefined {
    const d = partsOf(ns);
    switch (part) {
        case 'year': return d.year;
        case 'quarter': return Math.floor((d.month - 1) / 3) + 1;
        case 'month': return d.month;
        case 'week':
        case 'weekofyear': return isoWeek(ns).week;
        case 'day': return d.day;
        case 'dayofyear': return dayOfYear(ns);
        case 'hour': return d.hour;
        case 'minute': return d.minute;
        case 'second': return d.second;
        case 'millisecond': return Math.floor(d.nanosecond / 1_000_000);
        case 'microsecond': return Math.floor(d.nanosecond / 1000);
        case 'nanosecond': return d.nanosecond;
        default: return undefined;
    }
}

/** A datetime → long accessor (dayofmonth, getyear...). */
function accessor(name: string, description: string, part: string, example: string, aliasOf?: string): ScalarFunction {
    return datetime({
        name,
        signatures: [sig(p('date', 'datetime'))],
        returns: 'long',
        description: aliasOf ? `${description} Same as \`${aliasOf}\`.` : description,
        example,
        evaluate: strict(args => {
            const ns = dt(args[0]);
            return ns === undefined ? null : (datetimePart(part, ns) ?? null);
        }),
    });
}

type Period = 'day' | 'week' | 'month' | 'year';
const START_OF: Record<Period, (ns: bigint, offset: number) => bigint> = {
    day: startOfDay,
    week: startOfWeek,
    month: startOfMonth,
    year: startOfYear,
};

function periodFunctions(period: Period, startNote: string): ScalarFunction[] {
    const offset = p('offset', 'long', { optional: true, description: `Whole ${period}s to move the result by (may be negative).` });
    const evalWith = (end: boolean) =>
        strict(args => {
            const ns = dt(args[0]);
            const off = args[1] === undefined ? 0 : toInt(args[1]);
            if (ns === undefined || off === undefined) return null;
            return new Datetime(end ? endBefore(START_OF[period](ns, off + 1)) : START_OF[period](ns, off));
        });
    return [
        datetime({
            name: `startof${period}`,
            // Kusto names only startofday's column after its argument.
            ...(period === 'day' ? { resultName: 'firstArgument' as const } : {}),
            signatures: [sig(p('date', 'datetime'), offset)],
            returns: 'datetime',
            description: `The start of the ${period} holding the date (${startNote}), optionally moved by \`offset\` ${period}s.`,
            example: `print s = startof${period}(datetime(2025-01-15T14:30:00Z))`,
            evaluate: evalWith(false),
        }),
        datetime({
            name: `endof${period}`,
            signatures: [sig(p('date', 'datetime'), offset)],
            returns: 'datetime',
            description: `The last instant (one 100 ns tick before the next ${period}) of the ${period} holding the date, optionally moved by \`offset\` ${period}s.`,
            example: `print e = endof${period}(datetime(2025-01-15T14:30:00Z))`,
            evaluate: evalWith(true),
        }),
    ];
}

/** Seconds/ms/µs/ns since the epoch → datetime; reals keep their fraction down to 1 ns. */
function fromUnix(unitNs: bigint) {
    return strict(args => {
        const v = args[0];
        if (typeof v !== 'number' || !Number.isFinite(v)) return null;
        if (Number.isInteger(v)) return new Datetime(BigInt(v) * unitNs);
        const whole = Math.floor(v);
        return new Datetime(BigInt(whole) * unitNs + BigInt(Math.round((v - whole) * Number(unitNs))));
    });
}

export const DATETIME_FUNCTIONS: ScalarFunction[] = [
    datetime({
        name: 'ago',
        signatures: [sig(p('timespan', 'timespan'))],
        returns: 'datetime',
        volatile: true,
        description: 'The query\'s `now()` minus the timespan. All calls in one query share the same `now()`.',
        example: "['sample-http-logs'] | where _time > ago(1h)",
        evaluate: strict((args, ctx) => (args[0] instanceof Timespan ? new Datetime(ctx.now - args[0].ns) : null)),
    }),
    datetime({
        name: 'datetime_add',
        signatures: [sig(p('part', 'string', { constant: true, description: DATETIME_ADD_PART_NAMES.join(', ') }), p('value', 'long'), p('date', 'datetime'))],
        returns: 'datetime',
        description:
            'Adds `value` units of `part` (year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond) to a datetime. Adding months clamps to the month\'s last day (Jan 31 + 1 month = Feb 28/29).',
        example: "print d = datetime_add('month', 1, datetime(2024-01-31))",
        evaluate: strict(args => {
            const part = normalisePart(args[0]);
            const amount = toInt(args[1]);
            const ns = dt(args[2]);
            if (part === undefined || amount === undefined || ns === undefined) return null;
            const r = datetimeAdd(part, amount, ns);
            return r === undefined ? null : new Datetime(r);
        }),
    }),
    datetime({
        name: 'datetime_diff',
        signatures: [sig(p('part', 'string', { constant: true, description: DATETIME_DIFF_PART_NAMES.join(', ') }), p('datetime1', 'datetime'), p('datetime2', 'datetime'))],
        returns: 'long',
        description:
            'How many `part` boundaries lie between `datetime2` and `datetime1` (positive when `datetime1` is later), e.g. `datetime_diff(\'year\', 2017-01-01, 2016-12-31)` is 1. Weeks start on Sunday.',
        example: "print years = datetime_diff('year', datetime(2017-01-01), datetime(2000-12-31))",
        evaluate: strict(args => {
            const part = normalisePart(args[0]);
            const a = dt(args[1]);
            const b = dt(args[2]);
            if (part === undefined || a === undefined || b === undefined) return null;
            const r = datetimeDiff(part, a, b);
            return r === undefined ? null : long(r);
        }),
    }),
    datetime({
        name: 'datetime_part',
        signatures: [sig(p('part', 'string', { constant: true, description: DATETIME_PART_NAMES.join(', ') }), p('date', 'datetime'))],
        returns: 'long',
        description:
            'One calendar field of a datetime: year, quarter, month, week_of_year (ISO 8601), day (of the month), dayOfYear, hour, minute, second, or the sub-second millisecond/microsecond/nanosecond.',
        example: "print h = datetime_part('hour', datetime(2025-01-15T14:30:00Z))",
        evaluate: strict(args => {
            const part = normalisePart(args[0]);
            const ns = dt(args[1]);
            if (part === undefined || ns === undefined) return null;
            return datetimePart(part, ns) ?? null;
        }),
    }),
    accessor('dayofmonth', 'The day of the month, 1 to 31.', 'day', 'print d = dayofmonth(datetime(2025-01-15))'),
    datetime({
        name: 'dayofweek',
        signatures: [sig(p('date', 'datetime'))],
        returns: 'timespan',
        description: 'The whole days since the preceding Sunday, as a timespan (`0d` for Sunday, `6d` for Saturday).',
        example: 'print d = dayofweek(datetime(2025-01-15))',
        evaluate: strict(args => {
            const ns = dt(args[0]);
            return ns === undefined ? null : new Timespan(BigInt(weekdayOf(ns)) * NS_PER_DAY);
        }),
    }),
    accessor('dayofyear', 'The day of the year, 1 to 366.', 'dayofyear', 'print d = dayofyear(datetime(2024-12-31))'),
    ...periodFunctions('day', 'midnight UTC'),
    ...periodFunctions('month', 'the 1st at midnight'),
    ...periodFunctions('week', 'Sunday at midnight'),
    ...periodFunctions('year', 'January 1st at midnight'),
    accessor('getmonth', 'The month number, 1 to 12.', 'month', 'print m = getmonth(datetime(2025-07-04))', 'monthofyear'),
    accessor('getyear', 'The calendar year of the datetime (UTC).', 'year', 'print y = getyear(datetime(2025-07-04))'),
    accessor('hourofday', 'The hour of the day, 0 to 23.', 'hour', 'print h = hourofday(datetime(2025-07-04T18:30:00Z))'),
    accessor('monthofyear', 'The month number, 1 to 12.', 'month', 'print m = monthofyear(datetime(2025-07-04))', 'getmonth'),
    datetime({
        name: 'now',
        signatures: [sig(p('offset', 'timespan', { optional: true }))],
        returns: 'datetime',
        volatile: true,
        description: 'The current UTC time, fixed for the whole query, plus an optional offset (`now(-1h)` equals `ago(1h)`).',
        example: 'print t = now(), yesterday = now(-1d)',
        evaluate: (args, ctx) => {
            const off = args[0];
            if (off === undefined) return new Datetime(ctx.now);
            return off instanceof Timespan ? new Datetime(ctx.now + off.ns) : null;
        },
    }),
    datetime({
        name: 'unixtime_microseconds_todatetime',
        signatures: [sig(p('microseconds', 'number'))],
        returns: 'datetime',
        description: 'The datetime that many microseconds after 1970-01-01T00:00:00Z.',
        example: 'print d = unixtime_microseconds_todatetime(1747303762000000)',
        evaluate: fromUnix(1000n),
    }),
    datetime({
        name: 'unixtime_milliseconds_todatetime',
        signatures: [sig(p('milliseconds', 'number'))],
        returns: 'datetime',
        description: 'The datetime that many milliseconds after 1970-01-01T00:00:00Z.',
        example: 'print d = unixtime_milliseconds_todatetime(1747303762000)',
        evaluate: fromUnix(NS_PER_MS),
    }),
    datetime({
        name: 'unixtime_nanoseconds_todatetime',
        signatures: [sig(p('nanoseconds', 'number'))],
        returns: 'datetime',
        description: 'The datetime that many nanoseconds after 1970-01-01T00:00:00Z.',
        example: 'print d = unixtime_nanoseconds_todatetime(1747303762000000000)',
        evaluate: fromUnix(1n),
    }),
    datetime({
        name: 'unixtime_seconds_todatetime',
        signatures: [sig(p('seconds', 'number'))],
        returns: 'datetime',
        description: 'The datetime that many seconds (fractions allowed) after 1970-01-01T00:00:00Z.',
        example: 'print d = unixtime_seconds_todatetime(1747303762)',
        evaluate: fromUnix(NS_PER_SECOND),
    }),
    accessor('week_of_year', 'The ISO 8601 week number, 1 to 53 (weeks start on Monday; week 1 holds the first Thursday).', 'weekofyear', 'print w = week_of_year(datetime(2025-01-15))'),
];
