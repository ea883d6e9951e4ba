/**
 * Datetimes rendered from a time column's parts (eval/time-text.ts) read exactly as
 * `formatDatetime` of the same instant: every ns, before the epoch, at the ends of the years it
 * covers, and outside them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDatetime } from '../../../language/values.js';
import { formatTimeParts } from '../../../language/eval/time-text.js';

const split = (ns: bigint): [number, number] => {
    let ms = ns / 1_000_000n;
    let sub = ns % 1_000_000n;
    if (sub < 0n) {
        sub += 1_000_000n;
        ms -= 1n;
    }
    return [Number(ms), Number(sub)];
};

describe('formatTimeParts', () => {
    it('is formatDatetime for any instant from year 1 to 9999', () => {
        fc.assert(
            fc.property(fc.bigInt({ min: -62_135_596_800_000_000_000n, max: 253_402_300_799_999_999_999n }), ns => {
                const [ms, sub] = split(ns);
                expect(formatTimeParts(ms, sub)).toBe(formatDatetime(ns));
            }),
            { numRuns: 2000 },
        );
    });

    it('is formatDatetime for whole ms, whole seconds and days in a row (the day text kept between calls)', () => {
        fc.assert(
            fc.property(fc.array(fc.integer({ min: -2_000_000_000_000, max: 4_000_000_000_000 }), { maxLength: 20 }), fc.constantFrom(1, 1000, 86_400_000), (ms, unit) => {
                for (const m of ms) {
                    const t = Math.floor(m / unit) * unit;
                    expect(formatTimeParts(t, 0)).toBe(formatDatetime(BigInt(t) * 1_000_000n));
                }
            }),
        );
    });

    it.each([
        ['the epoch', 0n],
        ['1 ns before the epoch', -1n],
        ['1 ns', 1n],
        ['the last ns of 9999', 253_402_300_799_999_999_999n],
        ['year 10000', 253_402_300_800_000_000_000n],
        ['before year 1', -62_135_596_800_000_000_001n],
        ['1 ms and 500 ns', 1_000_500n],
    ])('%s', (_name, ns) => {
        const [ms, sub] = split(ns);
        expect(formatTimeParts(ms, sub)).toBe(formatDatetime(ns));
    });

    it('takes parts that are not split the usual way (sub-ms parts of -1 or 1e6) as their sum', () => {
        expect(formatTimeParts(1000, -1)).toBe(formatDatetime(999_999_999n));
        expect(formatTimeParts(1000, 1_000_000)).toBe(formatDatetime(1_001_000_000n));
    });
});
