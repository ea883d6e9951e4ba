/**
 * Rounding functions: `bin`, `bin_auto`, `ceiling`, `floor`, and the `bin_auto` size rule that the
 * evaluator and the legacy compiler share.
 */
import type { AplType } from '../types/apl-types.js';
import { Datetime, NS_PER_DAY, NS_PER_HOUR, NS_PER_MINUTE, NS_PER_MS, NS_PER_SECOND, Timespan, wrapLong, type AplValue } from '../values.js';
import type { EvalContext, ScalarFunction } from './catalogue-types.js';
import { categoryBuilder, isLongResult, num, p, sameAs, sig, strict } from './functions-numeric-time-helpers.js';
import { floorDiv } from './time-parts.js';

const rounding = categoryBuilder('rounding');

/** How many buckets `bin_auto` aims for over the request's time range. */
export const AUTO_BIN_TARGET_BUCKETS = 100;

/** The "nice" bin sizes `bin_auto` chooses from, smallest first. */
export const AUTO_BIN_SIZES: readonly bigint[] = [
    1n * NS_PER_MS, 2n * NS_PER_MS, 5n * NS_PER_MS, 10n * NS_PER_MS, 20n * NS_PER_MS, 50n * NS_PER_MS,
    100n * NS_PER_MS, 200n * NS_PER_MS, 500n * NS_PER_MS,
    1n * NS_PER_SECOND, 2n * NS_PER_SECOND, 5n * NS_PER_SECOND, 10n * NS_PER_SECOND, 15n * NS_PER_SECOND, 30n * NS_PER_SECOND,
    1n * NS_PER_MINUTE, 2n * NS_PER_MINUTE, 5n * NS_PER_MINUTE, 10n * NS_PER_MINUTE, 15n * NS_PER_MINUTE, 30n * NS_PER_MINUTE,
    1n * NS_PER_HOUR, 2n * NS_PER_HOUR, 3n * NS_PER_HOUR, 6n * NS_PER_HOUR, 12n * NS_PER_HOUR,
    1n * NS_PER_DAY, 2n * NS_PER_DAY, 7n * NS_PER_DAY, 14n * NS_PER_DAY, 30n * NS_PER_DAY,
];

/** The range `bin_auto` assumes when the request carries no time range: the last day. */
export const AUTO_BIN_DEFAULT_RANGE = NS_PER_DAY;

/**
 * The `bin_auto` rule: the smallest size in `AUTO_BIN_SIZES` that cuts `[startNs, endNs)` into at
 * most `AUTO_BIN_TARGET_BUCKETS` buckets. Ranges longer than 100 × 30d use a whole number of 30-day
 * bins. An empty or inverted range gives the smallest size.
 *
 * Examples: 1h → 1m (60 buckets), 1d → 15m (96), 7d → 2h (84), 30d → 12h (60), 90d → 1d (90).
 */
export function autoBinSize(startNs: bigint, endNs: bigint): bigint {
    const span = endNs - startNs;
    if (span <= 0n) return AUTO_BIN_SIZES[0];
    const target = BigInt(AUTO_BIN_TARGET_BUCKETS);
    for (const size of AUTO_BIN_SIZES) {
        if (size * target >= span) return size;
    }
    const month = 30n * NS_PER_DAY;
    const months = (span + month * target - 1n) / (month * target);
    return months * month;
}

/** `autoBinSize` for an evaluation context: the request's range, else the day before `now`. */
export function autoBinSizeFor(ctx: Pick<EvalContext, 'now' | 'startTime' | 'endTime'>): bigint {
    const end = ctx.endTime ?? ctx.now;
    const start = ctx.startTime ?? end - AUTO_BIN_DEFAULT_RANGE;
    return autoBinSize(start, end);
}

/**
 * `bin(value, size)`: the largest multiple of `size` not above `value` (floor, so negative values and
 * pre-1970 datetimes round down). Datetimes bin from the Unix epoch. A size that is zero, negative or of
 * the wrong kind gives null.
 */
export function binValue(value: AplValue, size: AplValue, asLong: boolean): AplValue {
    if (value === null || size === null) return null;
    if (value instanceof Datetime || value instanceof Timespan) {
        if (!(size instanceof Timespan) || size.ns <= 0n) return null;
        const ns = floorDiv(value.ns, size.ns) * size.ns;
        return value instanceof Datetime ? new Datetime(ns) : new Timespan(ns);
    }
    const v = num(value);
    const s = num(size);
    if (v === undefined || s === undefined || !(s > 0) || !Number.isFinite(s)) return null;
    if (!Number.isFinite(v)) return v;
    if (asLong && Number.isInteger(v) && Number.isInteger(s)) {
        if (Number.isSafeInteger(v) && Number.isSafeInteger(s)) return wrapLong(Math.floor(v / s) * s);
        const b = BigInt(v);
        const bs = BigInt(s);
        return Number(BigInt.asIntN(64, floorDiv(b, bs) * bs));
    }
    const r = Math.floor(v / s) * s;
    return asLong ? wrapLong(Math.floor(r)) : r;
}

function binReturn(argTypes: readonly AplType[]): AplType {
    const [v = 'unknown', s = 'unknown'] = argTypes;
    if (v === 'datetime' || v === 'timespan') return v;
    if (v === 'real' || s === 'real') return 'real';
    if (v === 'long') return 'long';
    return v === 'unknown' ? 'unknown' : v;
}

export const ROUNDING_FUNCTIONS: ScalarFunction[] = [
    rounding({
        name: 'bin',
        resultName: 'firstArgument',
        signatures: [
            sig(p('value', 'number'), p('bin_size', 'number', { constant: true })),
            sig(p('value', 'datetime'), p('bin_size', 'timespan', { constant: true })),
            sig(p('value', 'timespan'), p('bin_size', 'timespan', { constant: true })),
        ],
        returns: binReturn,
        description:
            'Rounds down to a multiple of `bin_size`: numbers by a number, datetimes (counted from the Unix epoch) and timespans by a timespan. The result keeps the value\'s type (real if either number is real); a size that is not positive gives null.',
        example: "['sample-http-logs'] | summarize count() by bin(_time, 1h)",
        evaluate: (args, ctx) => binValue(args[0], args[1], isLongResult(ctx)),
    }),
    rounding({
        name: 'bin_auto',
        resultName: 'firstArgument',
        signatures: [sig(p('expression', 'datetime'))],
        returns: 'datetime',
        description:
            'Bins a datetime (normally `_time`) with a size picked from the query\'s time range: the smallest of 1ms…30d that gives at most 100 buckets (1h → 1m, 1d → 15m, 7d → 2h, 30d → 12h).',
        example: "['sample-http-logs'] | summarize count() by bin_auto(_time)",
        evaluate: strict((args, ctx) => binValue(args[0], new Timespan(autoBinSizeFor(ctx)), false)),
    }),
    rounding({
        name: 'ceiling',
        resultName: 'firstArgument',
        signatures: [sig(p('number', 'number'))],
        returns: sameAs(0),
        description: 'The smallest integer not below the number; longs are returned unchanged.',
        example: 'print a = ceiling(4.2), b = ceiling(-4.2)',
        evaluate: strict((args, ctx) => {
            const x = num(args[0]);
            if (x === undefined) return null;
            return isLongResult(ctx) ? wrapLong(Math.ceil(x)) : Math.ceil(x) + 0;
        }),
    }),
    rounding({
        name: 'floor',
        resultName: 'firstArgument',
        signatures: [sig(p('number', 'number'))],
        returns: sameAs(0),
        description: 'The largest integer not above the number; longs are returned unchanged.',
        example: 'print a = floor(4.8), b = floor(-4.2)',
        evaluate: strict((args, ctx) => {
            const x = num(args[0]);
            if (x === undefined) return null;
            return isLongResult(ctx) ? wrapLong(Math.floor(x)) : Math.floor(x);
        }),
    }),
];
