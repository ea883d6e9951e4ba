/**
 * `parseRfc3339Bytes` (the byte scanner's `_time` reader) computes the seconds itself instead of
 * calling `Date.UTC`: it must give what `Date.UTC` gives (`utcMs`, which also reads years 0-99 as
 * themselves) for every date, leap days, second 60 and zone offsets included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRfc3339Bytes } from '../../../language/ingest/normalize-event.js';
import { daysInMonth, utcMs } from '../../../language/values.js';

const NS = 1_000_000_000n;
const p2 = (n: number, w = 2) => String(n).padStart(w, '0');

/** The reference: Date.UTC's seconds, the offset and the fraction, as bigint nanoseconds. */
function viaDateUtc(y: number, mo: number, d: number, h: number, mi: number, s: number, frac: string, offsetMin: number): bigint {
    const secs = utcMs(y, mo - 1, d, h, mi, s) / 1000 - offsetMin * 60;
    return BigInt(secs) * NS + BigInt(frac.padEnd(9, '0').slice(0, 9) || '0');
}

function parse(text: string): bigint | undefined {
    const b = Buffer.from(`xx${text}yy`, 'latin1');
    return parseRfc3339Bytes(b, 2, 2 + text.length);
}

describe('parseRfc3339Bytes gives what Date.UTC gives', () => {
    const cases: [string, bigint][] = [
        ['1970-01-01T00:00:00Z', 0n],
        ['1969-12-31T23:59:59.999999999Z', -1n],
        ['2024-02-29T12:00:00Z', BigInt(Date.UTC(2024, 1, 29, 12)) * 1_000_000n],
        ['2016-12-31T23:59:60Z', BigInt(Date.UTC(2017, 0, 1)) * 1_000_000n],
        ['2024-12-05T09:09:03.814901577Z', BigInt(Date.UTC(2024, 11, 5, 9, 9, 3)) * 1_000_000n + 814_901_577n],
        ['2024-12-05T09:09:03+05:30', BigInt(Date.UTC(2024, 11, 5, 3, 39, 3)) * 1_000_000n],
        ['0001-01-01T00:00:00Z', -62_135_596_800n * NS],
        ['0099-03-01T00:00:00-01:00', BigInt(utcMs(99, 2, 1, 1)) * 1_000_000n],
        ['9999-12-31T23:59:59Z', 253_402_300_799n * NS],
    ];
    for (const [text, want] of cases) it(text, () => expect(parse(text)).toBe(want));

    it('2001-02-29T00:00:00Z (no such day) is not read', () => expect(parse('2001-02-29T00:00:00Z')).toBeUndefined());

    it('random dates, times, fractions and offsets', () => {
        fc.assert(
            fc.property(
                fc.integer({ min: 0, max: 9999 }),
                fc.integer({ min: 1, max: 12 }),
                fc.integer({ min: 1, max: 31 }),
                fc.integer({ min: 0, max: 23 }),
                fc.integer({ min: 0, max: 59 }),
                fc.integer({ min: 0, max: 60 }),
                fc.stringMatching(/^[0-9]{0,12}$/),
                fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
                (y, mo, dRaw, h, mi, s, frac, off) => {
                    const d = Math.min(dRaw, daysInMonth(y, mo));
                    const zone = off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${p2(Math.floor(Math.abs(off) / 60))}:${p2(Math.abs(off) % 60)}`;
                    const text = `${p2(y, 4)}-${p2(mo)}-${p2(d)}T${p2(h)}:${p2(mi)}:${p2(s)}${frac === '' ? '' : `.${frac}`}${zone}`;
                    expect(parse(text)).toBe(viaDateUtc(y, mo, d, h, mi, s, frac, off));
                },
            ),
            { numRuns: 5000 },
        );
    });
});
