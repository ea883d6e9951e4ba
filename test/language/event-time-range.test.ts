/**
 * Event times the way `apl run` ingests them (language/eval/tables.ts) and the way datetime text is
 * read (language/values.ts): years 0–99 are those years, not 1900–1999, and a time a stored `_time`
 * (int64 ns) cannot hold fails the event instead of being rewritten.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../language/eval/engine.js';
import { formatDatetime, parseDatetime, utcMs } from '../../language/values.js';
import { rows } from './eval/helpers.js';

describe('parseDatetime reads years 0-99 as such', () => {
    it.each([
        ['0001-01-01', '0001-01-01T00:00:00Z'],
        ['0099-06-01T12:00:00Z', '0099-06-01T12:00:00Z'],
        ['0050-02-29', undefined], // 50 is not a leap year: no Feb 29 (an impossible date is no date, not March 1)
    ])('%s', (text, want) => {
        const ns = parseDatetime(text);
        if (want === undefined) expect(ns).toBeUndefined();
        else expect(formatDatetime(ns!)).toBe(want);
    });

    it('utcMs agrees with Date.UTC from year 100 on and continues it below', () => {
        expect(utcMs(2024, 7, 14, 1, 2, 3)).toBe(Date.UTC(2024, 7, 14, 1, 2, 3));
        expect(utcMs(100, 0, 1)).toBe(Date.UTC(100, 0, 1));
        expect(utcMs(100, 0, 1) - utcMs(99, 0, 1)).toBe(365 * 86_400_000);
        expect(new Date(utcMs(1, 0, 1)).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    });
});

describe('apl run ingest: out-of-range times fail the event', () => {
    it.each(['0001-01-01', '9999-12-31T23:59:59Z', '2262-04-12', 1e30, -1e30])('_time %j', (t) => {
        const engine = createEngine();
        const res = engine.ingest('d', [{ _time: t, a: 1 }, { _time: '2024-01-01T00:00:00Z', a: 2 }], { now: 1_700_000_000_000_000_000n });
        expect(res.ingested).toBe(1);
        expect(res.failed).toBe(1);
        expect(res.failures[0].error).toMatch(/timestamp field "_time" is out of range/);
    });

    it('the ends of the range are kept', async () => {
        const engine = createEngine();
        const res = engine.ingest('d', [{ _time: '1677-09-21T00:12:43.145224192Z' }, { _time: '2262-04-11T23:47:16.854775807Z' }]);
        expect(res).toMatchObject({ ingested: 2, failed: 0 });
        // The end of a query's time range is exclusive: one past the last instant.
        const out = await rows(engine, "['d'] | project _time | order by _time asc", { startTime: -(2n ** 63n), endTime: 2n ** 63n });
        expect(out.map((r) => r._time)).toEqual(['1677-09-21T00:12:43.145224192Z', '2262-04-11T23:47:16.854775807Z']);
    });
});
