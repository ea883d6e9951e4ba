import { describe, expect, it } from 'vitest';
import {
    formatDatetime,
    formatGoDuration,
    formatKqlTimespan,
    parseDatetime,
    parseGoDuration,
    parseTimeExpression,
    parseTimespanLiteral,
    wrapLong,
} from '../../language/values.js';

const NOW = 1_700_000_000_000_000_000n; // 2023-11-14T22:13:20Z

describe('datetimes', () => {
    const cases: [string, string][] = [
        ['2024-01-15T14:00:00Z', '2024-01-15T14:00:00Z'],
        ['2019-11-30 23:59:59.9', '2019-11-30T23:59:59.9Z'],
        ['2024-01-15', '2024-01-15T00:00:00Z'],
        ['2024-01-15T14:00:00.123456789Z', '2024-01-15T14:00:00.123456789Z'],
        ['2024-01-15T14:00:00+02:00', '2024-01-15T12:00:00Z'],
        ['1969-12-31T23:59:59.5Z', '1969-12-31T23:59:59.5Z'],
    ];
    for (const [text, formatted] of cases) {
        it(`datetime(${text})`, () => {
            expect(formatDatetime(parseDatetime(text)!)).toBe(formatted);
        });
    }

    it('datetime(2024-13-45) is not a date', () => {
        expect(parseDatetime('2024-13-45')).toBeUndefined();
    });
});

describe('timespans', () => {
    const literals: [string, string][] = [
        ['1d', '24h0m0s'], ['1.5h', '1h30m0s'], ['30m', '30m0s'], ['100ms', '100ms'], ['10min', '10m0s'],
        ['1sec', '1s'], ['1tick', '100ns'], ['2days', '48h0m0s'], ['5microseconds', '5µs'], ['1w', '168h0m0s'],
    ];
    for (const [literal, go] of literals) {
        it(`print ${literal}`, () => {
            expect(formatGoDuration(parseTimespanLiteral(literal)!)).toBe(go);
        });
    }

    it('Go durations: 2h45m, -1.5h, 300ms', () => {
        expect(parseGoDuration('2h45m')).toBe(9_900_000_000_000n);
        expect(parseGoDuration('-1.5h')).toBe(-5_400_000_000_000n);
        expect(parseGoDuration('300ms')).toBe(300_000_000n);
        expect(parseGoDuration('1x')).toBeUndefined();
    });

    it('KQL display form: 1.02:03:04.5', () => {
        expect(formatKqlTimespan(parseGoDuration('26h3m4.5s')!)).toBe('1.02:03:04.5000000');
    });
});

describe('request times', () => {
    const ok: [string, bigint][] = [
        ['now', NOW],
        ['now-1h', NOW - 3_600_000_000_000n],
        ['now-1h30m', NOW - 5_400_000_000_000n],
        ['now - 7d', NOW - 7n * 86_400_000_000_000n],
        ['now+5m', NOW + 300_000_000_000n],
        ['now-2w', NOW - 14n * 86_400_000_000_000n],
        ['2024-01-02T15:04:05Z', 1_704_207_845_000_000_000n],
    ];
    for (const [text, ns] of ok) {
        it(text, () => {
            expect(parseTimeExpression(text, NOW)).toEqual({ ok: true, ns });
        });
    }

    it('now-1fortnight and yesterday are rejected with a reason', () => {
        for (const bad of ['now-1fortnight', 'yesterday', '2024-01-02T25:00:00Z']) {
            const r = parseTimeExpression(bad, NOW);
            expect(r.ok, bad).toBe(false);
        }
    });
});

describe('long arithmetic', () => {
    it('9223372036854775807 + 1 wraps', () => {
        // eslint-disable-next-line no-loss-of-precision -- 2^63 as a double is exactly what is tested
        expect(wrapLong(9223372036854775807 + 1)).toBe(-9223372036854775808);
        expect(wrapLong(42)).toBe(42);
    });
});
