import { describe, expect, it } from 'vitest';
import { parseScale } from '../../scripts/bench/volume-scale.js';

describe('npm run bench -- --scale', () => {
    it('reads counts with k, m and g suffixes', () => {
        expect(parseScale('100m')).toBe(100_000_000);
        expect(parseScale('10M')).toBe(10_000_000);
        expect(parseScale('2.5m')).toBe(2_500_000);
        expect(parseScale('500k')).toBe(500_000);
        expect(parseScale('250000')).toBe(250_000);
    });

    it('refuses what is not a count, naming it', () => {
        expect(() => parseScale('lots')).toThrow(/'lots'/);
        expect(() => parseScale('-5m')).toThrow(/'-5m'/);
        expect(() => parseScale('10mb')).toThrow(/'10mb'/);
    });

    it('refuses fewer events than one body', () => {
        expect(() => parseScale('5k')).toThrow(/at least 10000/);
    });
});
