/**
 * The sketches behind dcount and percentile past their exact budget (language/eval/sketches.ts):
 * their documented bounds hold, and merging is lossless (merged parts answer as one sketch of all).
 */
import { describe, expect, it } from 'vitest';
import { HyperLogLog, QuantileSketch, QUANTILE_RELATIVE_ACCURACY, hllPrecision, hllStandardError } from '../../../language/eval/sketches.js';
import { canonicalKey } from '../../../language/runtime-values.js';

/** A deterministic stream of reals in [0, 1) (a linear congruential generator), for data with no pattern the sketches could meet by luck. */
function lcg(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s / 2 ** 32;
    };
}

describe('HyperLogLog (dcount)', () => {
    it('has the precision of Kusto accuracy levels, default 1 (2^14 registers: 0.81%)', () => {
        expect([0, 1, 2, 3, 4, undefined, 9].map(hllPrecision)).toEqual([12, 14, 16, 17, 18, 14, 14]);
        expect(hllStandardError(14)).toBeCloseTo(0.0081, 4);
    });

    it('counts nothing as 0 and a few values almost exactly', () => {
        const h = new HyperLogLog(14);
        expect(h.estimate()).toBe(0);
        for (let i = 0; i < 100; i++) h.add(canonicalKey(`id-${i}`));
        expect(Math.abs(h.estimate() - 100)).toBeLessThanOrEqual(1);
    });

    for (const n of [1_000, 20_000, 100_000, 1_000_000]) {
        it(`estimates ${n.toLocaleString('en-US')} distinct values within 3 standard errors, repeats counted once`, () => {
            const h = new HyperLogLog(14);
            for (let i = 0; i < n; i++) h.add(canonicalKey(`user-${i}@example.com`));
            for (let i = 0; i < n; i += 3) h.add(canonicalKey(`user-${i}@example.com`));
            expect(Math.abs(h.estimate() - n) / n).toBeLessThanOrEqual(3 * hllStandardError(14));
        });
    }

    it('merges losslessly: parts merged answer as one sketch of everything', () => {
        const whole = new HyperLogLog(14);
        const parts = [new HyperLogLog(14), new HyperLogLog(14), new HyperLogLog(14)];
        for (let i = 0; i < 50_000; i++) {
            const k = canonicalKey(i % 7 === 0 ? i * 1.5 : i);
            whole.add(k);
            parts[i % 3].add(k);
            parts[(i + 1) % 3].add(k);
        }
        const merged = new HyperLogLog(14);
        for (const p of parts) merged.merge(p);
        expect(merged.registers).toEqual(whole.registers);
        expect(merged.estimate()).toBe(whole.estimate());
    });
});

/** The exact nearest-rank value (the evaluator's rule): rank ⌈p·n/100⌉ of the sorted values, clamped to [1, n]. */
function nearestRank(sorted: Float64Array, p: number): number {
    const n = sorted.length;
    return sorted[Math.min(n, Math.max(1, Math.ceil((p * n) / 100))) - 1];
}

/** One sketch of all the values, and the merge of three sketches of a third of them each. */
function wholeAndMerged(values: Float64Array): [QuantileSketch, QuantileSketch] {
    const whole = new QuantileSketch();
    whole.addAll(values);
    const parts = [new QuantileSketch(), new QuantileSketch(), new QuantileSketch()];
    values.forEach((v, i) => parts[i % 3].add(v));
    const merged = new QuantileSketch();
    for (const p of parts) merged.merge(p);
    return [whole, merged];
}

describe('the quantile sketch (percentile)', () => {
    const rnd = lcg(7);
    const data: Record<string, Float64Array> = {
        'uniform 0..1000': Float64Array.from({ length: 50_000 }, () => rnd() * 1000),
        'log-spread 1e-3..1e9': Float64Array.from({ length: 50_000 }, () => 10 ** (12 * rnd() - 3)),
        'signed, with zeros': Float64Array.from({ length: 50_000 }, (_, i) => (i % 10 === 0 ? 0 : (rnd() - 0.5) * 2e6)),
        'integers 0..99 (many ties)': Float64Array.from({ length: 50_000 }, () => Math.floor(rnd() * 100)),
        'with infinities': Float64Array.from({ length: 10_000 }, (_, i) => (i % 100 === 0 ? Infinity : i % 100 === 1 ? -Infinity : rnd() * 50)),
    };

    for (const [name, values] of Object.entries(data)) {
        it(`${name}: every percentile within ${QUANTILE_RELATIVE_ACCURACY * 100}% of the exact value, the extremes exact`, () => {
            const s = new QuantileSketch();
            s.addAll(values);
            const sorted = values.slice().sort();
            const n = sorted.length;
            for (let p = 0; p <= 100; p += 0.5) {
                const r = Math.min(n, Math.max(1, Math.ceil((p * n) / 100)));
                const exact = nearestRank(sorted, p);
                const est = s.atRank(r)!;
                if (!Number.isFinite(exact)) expect(est).toBe(exact);
                else expect(Math.abs(est - exact), `p${p}: ${est} for ${exact}`).toBeLessThanOrEqual(QUANTILE_RELATIVE_ACCURACY * Math.abs(exact));
            }
            expect(s.atRank(1)).toBe(sorted[0]);
            expect(s.atRank(n)).toBe(sorted[n - 1]);
        });
    }

    it('merges losslessly: parts merged answer as one sketch of everything', () => {
        const values = data['log-spread 1e-3..1e9'];
        const [whole, merged] = wholeAndMerged(values);
        for (const r of [1, 2, 100, 25_000, 47_500, 49_999, 50_000]) expect(merged.atRank(r)).toBe(whole.atRank(r));
    });

    it('merges losslessly with negative values, zeros and infinities: parts merged answer as one sketch of everything', () => {
        // @datadog/sketches-js 2.1.1's own merge leaves the negative values out (DataDog/sketches-js#22).
        const values = Float64Array.from({ length: 30_000 }, (_, i) => (i % 10 === 0 ? 0 : i % 97 === 0 ? -Infinity : i % 89 === 0 ? Infinity : (rnd() - 0.6) * 2e4));
        const [whole, merged] = wholeAndMerged(values);
        expect(merged.count).toBe(whole.count);
        for (let r = 1; r <= values.length; r += 997) expect(merged.atRank(r), `rank ${r}`).toBe(whole.atRank(r));
        const sorted = values.slice().sort();
        const r = 9_000;
        expect(Math.abs(merged.atRank(r)! - sorted[r - 1])).toBeLessThanOrEqual(QUANTILE_RELATIVE_ACCURACY * Math.abs(sorted[r - 1]));
    });

    it('merges losslessly when a part ends at 1 and later values widen the range below', () => {
        // 1 (and every value in (1/γ, 1]) is bucket 0: @datadog/sketches-js 2.1.1's store merge takes
        // a part's top bucket 0 for "none" and drops that bucket once the range grows.
        const merged = new QuantileSketch();
        for (let i = 0; i < 10; i++) merged.add(0.5 + i * 0.01);
        const part = new QuantileSketch();
        for (const v of [0.7, 1, 1, 1, 1]) part.add(v);
        merged.merge(part);
        merged.add(0.06);
        const whole = new QuantileSketch();
        for (const v of [0.5, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.7, 1, 1, 1, 1, 0.06]) whole.add(v);
        for (let r = 1; r <= 16; r++) expect(merged.atRank(r), `rank ${r}`).toBe(whole.atRank(r));
        expect(Math.abs(merged.atRank(14)! - 1)).toBeLessThanOrEqual(0.01);
    });

    it('copies: a clone answers as the sketch, and adding to one leaves the other alone', () => {
        const s = new QuantileSketch();
        s.addAll(data['signed, with zeros']);
        const c = s.clone();
        for (const r of [1, 2, 5_000, 25_000, 49_999, 50_000]) expect(c.atRank(r)).toBe(s.atRank(r));
        c.add(-1e9);
        expect(c.count).toBe(s.count + 1);
        expect(c.atRank(1)).toBe(-1e9);
        expect(s.atRank(1)).not.toBe(-1e9);
    });

    it('crosses threads as JSON: the sketch back answers every rank as before, and merges as before', () => {
        const values = Float64Array.from([...data['signed, with zeros'].subarray(0, 20_000), Infinity, -Infinity, -Infinity, 0, 1e300, -5e-324]);
        const s = new QuantileSketch();
        s.addAll(values);
        const back = QuantileSketch.fromJSON(JSON.parse(JSON.stringify(s)) as ReturnType<QuantileSketch['toJSON']>);
        expect([back.count, back.min, back.max]).toEqual([s.count, -Infinity, Infinity]);
        for (let r = 1; r <= values.length; r += 97) expect(back.atRank(r), `rank ${r}`).toBe(s.atRank(r));
        const [viaJson, direct] = [back.clone(), s.clone()];
        viaJson.merge(QuantileSketch.fromJSON(JSON.parse(JSON.stringify(s)) as ReturnType<QuantileSketch['toJSON']>));
        direct.merge(s);
        for (const r of [1, 2, 3, 1_000, 20_000, 40_000, direct.count - 1, direct.count]) expect(viaJson.atRank(r), `rank ${r}`).toBe(direct.atRank(r));
        const empty = QuantileSketch.fromJSON(JSON.parse(JSON.stringify(new QuantileSketch())) as ReturnType<QuantileSketch['toJSON']>);
        expect([empty.count, empty.atRank(1)]).toEqual([0, null]);
        empty.add(3);
        expect([empty.atRank(1), empty.min, empty.max]).toEqual([3, 3, 3]);
    });

    it('answers null for no values or a rank out of range', () => {
        const s = new QuantileSketch();
        expect(s.atRank(1)).toBeNull();
        s.add(5);
        expect(s.atRank(0)).toBeNull();
        expect(s.atRank(2)).toBeNull();
        expect(s.atRank(1)).toBe(5);
    });
});
