/**
 * The evaluator's typed-array kernels (language/eval/kernels/) against plain reference code on
 * data shaped to reach their special cases: time-ordered and shuffled rows, selections, nulls,
 * NaN, ties, bins far apart (the growing bin table) and out-of-range bins.
 */
import { describe, expect, it } from 'vitest';
import { prng as rng } from '../../support/prng.js';
import { type BinGrouping, binnedNsGroupIds, binnedTimeGroupIds, codeGroupIds } from '../../../language/eval/kernels/group.js';
import { countByGroup, extremeByGroup, sumCountByGroup } from '../../../language/eval/kernels/aggregate.js';
import { tableCountRows, tableMatchRows, trueIndexes } from '../../../language/eval/kernels/select.js';
import { lastWalk, markPermutedRun, markReverseRun, physicalWalk, topNumeric } from '../../../language/eval/kernels/topn.js';
import { ascendingPerm, timeOrder } from '../../../language/eval/kernels/sort.js';
import { splitTimes } from '../../../language/eval/kernels/time.js';
import { splitNs } from '../../../language/eval/columns.js';

/** Group ids in order of first appearance, and each group's first row, by a Map. */
function refGroups(keys: number[]): { ids: number[]; first: number[] } {
    const map = new Map<number, number>();
    const ids: number[] = [];
    const first: number[] = [];
    keys.forEach((k, i) => {
        let g = map.get(k);
        if (g === undefined) {
            map.set(k, (g = map.size));
            first.push(i);
        }
        ids.push(g);
    });
    return { ids, first };
}

function everyOther(n: number): Uint32Array {
    return Uint32Array.from({ length: Math.ceil(n / 2) }, (_, i) => 2 * i);
}

/** A bin kernel over N rows (every other one, through a selection) against refGroups of each row's bin. */
function expectBinGroups(N: number, withSel: boolean, kernel: (sel: Uint32Array | null, n: number, ids: Uint32Array) => BinGrouping | undefined, binOf: (row: number) => number): void {
    const sel = withSel ? everyOther(N) : null;
    const n = sel ? sel.length : N;
    const ids = new Uint32Array(n);
    const bins = kernel(sel, n, ids);
    const ref = refGroups(Array.from({ length: n }, (_, i) => binOf(sel ? sel[i] : i)));
    expect(bins?.card).toBe(ref.first.length);
    expect([...ids]).toEqual(ref.ids);
    expect([...bins!.first]).toEqual(ref.first);
}

describe('group-id kernels', () => {
    const HOUR = 3_600_000;
    const cases: [string, (r: () => number, i: number) => number][] = [
        ['time-ordered, descending', (_r, i) => 1_735_689_600_000 - i * 61_000],
        ['shuffled', r => 1_735_689_600_000 - Math.floor(r() * 30 * 24) * HOUR - Math.floor(r() * HOUR)],
        ['before 1970', (_r, i) => -5 * HOUR + i * 7_777],
        ['far apart (the table grows both ways)', r => (r() < 0.5 ? 1 : -1) * Math.floor(r() * 40_000) * HOUR],
    ];
    for (const [name, gen] of cases) {
        for (const withSel of [false, true]) {
            it(`binnedTimeGroupIds: ${name}${withSel ? ', through a selection' : ''}`, () => {
                const r = rng(7);
                const ms = Float64Array.from({ length: 5000 }, (_, i) => gen(r, i));
                expectBinGroups(ms.length, withSel, (sel, n, ids) => binnedTimeGroupIds(ms, sel, n, HOUR, (1 << 20) + 1, ids), j => Math.floor(ms[j] / HOUR));
            });
        }
    }

    // Times as stored (int64 ns): the same groups as flooring each time's ns by the step.
    const nsCases: [string, (r: () => number, i: number) => bigint][] = [
        ['time-ordered, as a block keeps them', (r, i) => 1_735_689_600_000_000_000n + BigInt(i) * 7_919_000_123n + BigInt(Math.floor(r() * 1000))],
        ['rows on the bins\' edges (to the ns)', (_r, i) => 1_735_689_600_000_000_000n + BigInt(i >> 1) * 3_600_000_000_000n - BigInt(i & 1)],
        ['shuffled', r => 1_735_689_600_000_000_000n - BigInt(Math.floor(r() * 30 * 24 * 3_600_000)) * 1_000_000n - BigInt(Math.floor(r() * 1e6))],
        ['before 1970, time-ordered', (_r, i) => -18_000_000_000_000n + BigInt(i) * 7_777_000_001n],
        ['past 2255 (no bounds kept)', (_r, i) => 9_100_000_000_000_000_000n + BigInt(i) * 1_000_000_000n],
    ];
    for (const [name, gen] of nsCases) {
        for (const withSel of [false, true]) {
            it(`binnedNsGroupIds: ${name}${withSel ? ', through a selection' : ''}`, () => {
                const r = rng(11);
                const times = BigInt64Array.from({ length: 5000 }, (_, i) => gen(r, i));
                const words = new Int32Array(times.buffer);
                const step = BigInt(HOUR) * 1_000_000n;
                // Floor division of bigints (BigInt division truncates towards zero).
                const floorBin = (t: bigint) => (t >= 0n ? t / step : -((-t + step - 1n) / step));
                expectBinGroups(times.length, withSel, (sel, n, ids) => binnedNsGroupIds(words, sel, n, HOUR, (1 << 20) + 1, ids), j => Number(floorBin(times[j])));
            });
        }
    }

    it('binnedNsGroupIds declines bins beyond maxBins', () => {
        const ids = new Uint32Array(3);
        const words = (...ms: number[]) => new Int32Array(BigInt64Array.from(ms, m => BigInt(m) * 1_000_000n).buffer);
        expect(binnedNsGroupIds(words(0, 2000, 5), null, 3, 10, 100, ids)).toBeUndefined();
        expect(binnedNsGroupIds(words(0, 990, 5), null, 3, 10, 100, ids)?.card).toBe(2);
    });

    it('binnedTimeGroupIds declines a null time and bins beyond maxBins', () => {
        const ids = new Uint32Array(3);
        expect(binnedTimeGroupIds(Float64Array.of(0, NaN, 5), null, 3, 10, 100, ids)).toBeUndefined();
        expect(binnedTimeGroupIds(Float64Array.of(0, 2000, 5), null, 3, 10, 100, ids)).toBeUndefined();
        expect(binnedTimeGroupIds(Float64Array.of(0, 990, 5), null, 3, 10, 100, ids)?.card).toBe(2);
    });

    it('bin kernels note the first rows of more groups than they first make room for', () => {
        const ms = Float64Array.from({ length: 1000 }, (_, i) => i * 10);
        const bins = binnedTimeGroupIds(ms, null, 1000, 10, 2000, new Uint32Array(1000));
        expect(bins?.card).toBe(1000);
        expect([...bins!.first]).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    });

    it('codeGroupIds numbers codes by first appearance and notes first rows', () => {
        const r = rng(3);
        const codes = Uint32Array.from({ length: 1000 }, () => Math.floor(r() * 9));
        const sel = everyOther(1000);
        const ids = new Uint32Array(sel.length);
        const first = new Uint32Array(9);
        const card = codeGroupIds(codes, sel, sel.length, 9, ids, first);
        const ref = refGroups(Array.from(sel, j => codes[j]));
        expect([...ids]).toEqual(ref.ids);
        expect([...first.subarray(0, card)]).toEqual(ref.first);
    });
});

describe('aggregation kernels', () => {
    // Long runs of one group (time-ordered keys) and short ones take different loops.
    const layouts: [string, (i: number, r: () => number) => number][] = [
        ['long runs', i => Math.floor(i / 97) % 13],
        ['short runs', (_i, r) => Math.floor(r() * 13)],
        ['one group', () => 0],
    ];
    for (const [name, groupOf] of layouts) {
        it(`sum, count, min and max per group: ${name}`, () => {
            const r = rng(11);
            const N = 4000;
            const vals = Float64Array.from({ length: N }, () => (r() < 0.05 ? NaN : (r() - 0.5) * 1e6));
            const nulls = Uint8Array.from({ length: N }, () => (r() < 0.05 ? 1 : 0));
            const sel = everyOther(N);
            const n = sel.length;
            const gids = Uint32Array.from({ length: n }, (_, i) => groupOf(i, r));
            const G = Math.max(...gids) + 1;
            const sums = new Float64Array(G);
            const counts = new Float64Array(G);
            sumCountByGroup(vals, nulls, sel, gids, n, sums, counts);
            const refSums = new Array<number>(G).fill(0);
            const refCounts = new Array<number>(G).fill(0);
            const refMax = new Array<number | null>(G).fill(null);
            const refMin = new Array<number | null>(G).fill(null);
            const refRows = new Array<number>(G).fill(0);
            for (let i = 0; i < n; i++) {
                const j = sel[i];
                const g = gids[i];
                refRows[g]++;
                if (nulls[j] === 1) continue;
                refSums[g] += vals[j]; // row order: the kernels must add in the same order
                refCounts[g]++;
                const x = vals[j];
                if (x !== x) continue;
                if (refMax[g] === null || x > refMax[g]!) refMax[g] = x;
                if (refMin[g] === null || x < refMin[g]!) refMin[g] = x;
            }
            expect([...sums]).toEqual(refSums);
            expect([...counts]).toEqual(refCounts);
            expect([...countByGroup(gids, n, G)]).toEqual(refRows);
            for (const [sign, ref] of [[1, refMax], [-1, refMin]] as const) {
                const best = new Float64Array(G);
                const seen = new Uint8Array(G);
                extremeByGroup(vals, nulls, sel, gids, n, sign, best, seen);
                expect(Array.from(best, (b, g) => (seen[g] ? b : null))).toEqual(ref);
            }
        });
    }
});

describe('selection kernels', () => {
    it('tableMatchRows, tableCountRows and trueIndexes give the rows (and their number) a per-row test gives', () => {
        const r = rng(5);
        const codes = Uint32Array.from({ length: 3000 }, () => Math.floor(r() * 6));
        const table = Uint8Array.of(0, 1, 0, 1, 1, 0);
        for (const sel of [null, everyOther(3000)]) {
            const n = sel ? sel.length : codes.length;
            const want = Array.from({ length: n }, (_, i) => i).filter(i => table[codes[sel ? sel[i] : i]] === 1);
            expect([...tableMatchRows(codes, sel, n, table)]).toEqual(want);
            expect(tableCountRows(codes, sel, n, table)).toBe(want.length);
        }
        const tri = Uint8Array.from({ length: 3000 }, () => Math.floor(r() * 3));
        const want = [...tri.keys()].filter(i => tri[i] === 1);
        expect([...trueIndexes(tri, tri.length, want.length)]).toEqual(want);
    });
});

describe('ordering kernels', () => {
    /** The stable sort's order: value (NaN after numbers ascending, before them descending), then row. */
    function refTop(vals: Float64Array, sel: Uint32Array | null, n: number, k: number, sgn: number): number[] {
        const key = (i: number) => vals[sel ? sel[i] : i];
        const rows = Array.from({ length: n }, (_, i) => i);
        rows.sort((a, b) => {
            const x = key(a);
            const y = key(b);
            if (x === y || (x !== x && y !== y)) return a - b;
            if (x !== x) return sgn;
            if (y !== y) return -sgn;
            return x < y ? -sgn : sgn;
        });
        return rows.slice(0, k);
    }

    for (const sgn of [1, -1]) {
        it(`topNumeric ${sgn > 0 ? 'ascending' : 'descending'} with ties and NaN`, () => {
            const r = rng(sgn > 0 ? 1 : 2);
            const vals = Float64Array.from({ length: 5000 }, () => (r() < 0.01 ? NaN : Math.floor(r() * 300)));
            // A marked reverse run (rows 4899 down to 100, as a newest-first scan of a time-ordered table selects them).
            const reverse = Uint32Array.from({ length: 4800 }, (_, i) => 4899 - i);
            markReverseRun(reverse, 4899);
            // A marked permuted run: positions 300..4499 of a shuffled order of the 5000 rows.
            const order = Uint32Array.from({ length: 5000 }, (_, i) => i);
            for (let i = order.length - 1; i > 0; i--) {
                const j = Math.floor(r() * (i + 1));
                [order[i], order[j]] = [order[j], order[i]];
            }
            const inverse = new Uint32Array(5000);
            order.forEach((row, pos) => (inverse[row] = pos));
            const permuted = order.subarray(300, 4500);
            markPermutedRun(permuted, () => inverse, 300, 5000);
            for (const sel of [null, everyOther(5000), reverse, permuted]) {
                const n = sel ? sel.length : vals.length;
                for (const k of [0, 1, 10, 57]) expect([...topNumeric(vals, sel, n, k, sgn)]).toEqual(refTop(vals, sel, n, k, sgn));
            }
        });
    }

    /**
     * A newest-first order of rows stored nearly in time order (neighbours swapped: events that share
     * a millisecond and arrived out of order) and the parts of a parallel scan over it: each part is
     * a run of the order whose rows lie within `spread` of its own physical range.
     */
    function nearlyOrderedParts(rows: number, parts: number, r: () => number): { order: Uint32Array; rank: Uint32Array; runs: Uint32Array[] } {
        const asc = Uint32Array.from({ length: rows }, (_, i) => i);
        for (let i = 0; i + 1 < rows; i++) if (r() < 0.2) [asc[i], asc[i + 1]] = [asc[i + 1], asc[i]];
        const spread = asc.reduce((m, row, i) => Math.max(m, Math.abs(row - i)), 0);
        const order = asc.slice().reverse();
        const rank = new Uint32Array(rows);
        order.forEach((row, pos) => (rank[row] = pos));
        const runs = Array.from({ length: parts }, (_, k) => {
            // Part k covers time positions [lo, hi) (parallel.ts partitionRange), newest first.
            const lo = Math.floor((rows * k) / parts);
            const hi = Math.floor((rows * (k + 1)) / parts);
            const run = order.subarray(rows - hi, rows - lo);
            markPermutedRun(run, () => rank, rows - hi, rows, () => [Math.max(0, lo - spread), Math.min(rows, hi + spread)]);
            return run;
        });
        return { order, rank, runs };
    }

    for (const sgn of [1, -1]) {
        it(`topNumeric ${sgn > 0 ? 'ascending' : 'descending'} over the parts of a nearly time-ordered scan, walked physically (ties, NaN)`, () => {
            const r = rng(sgn > 0 ? 3 : 4);
            // Few distinct values: many ties, some of them across a part's edges.
            const vals = Float64Array.from({ length: 6000 }, () => (r() < 0.01 ? NaN : Math.floor(r() * 40)));
            for (const parts of [1, 2, 3, 7]) {
                const { runs } = nearlyOrderedParts(6000, parts, r);
                for (const run of runs) {
                    for (const k of [1, 10, 57]) expect([...topNumeric(vals, run, run.length, k, sgn)], `${parts} parts`).toEqual(refTop(vals, run, run.length, k, sgn));
                }
            }
        });
    }

    it('a part of a nearly time-ordered scan walks its own physical rows, not the whole table', () => {
        const { runs } = nearlyOrderedParts(6000, 2, rng(5));
        const [oldest, newest] = runs.map(run => physicalWalk(run, run.length, 6000));
        expect(newest && [newest.lo, newest.hi]).toEqual([expect.any(Number), 6000]);
        expect(oldest && [oldest.lo, oldest.hi]).toEqual([0, expect.any(Number)]);
        for (const w of [newest!, oldest!]) expect(w.hi - w.lo).toBeLessThan(3010);
        // A part of a shuffled order has no narrow span: it is gathered.
        const shuffled = Uint32Array.from({ length: 6000 }, (_, i) => (i * 7919) % 6000);
        const part = shuffled.subarray(0, 3000);
        markPermutedRun(part, () => new Uint32Array(6000), 0, 6000);
        expect(physicalWalk(part, 3000, 6000)).toBeUndefined();
    });

    /** A shuffled order of `rows` rows, its inverse, and its runs for `parts` parts of a parallel scan, newest first. */
    function shuffledParts(rows: number, parts: number, r: () => number): Uint32Array[] {
        const order = Uint32Array.from({ length: rows }, (_, i) => i);
        for (let i = rows - 1; i > 0; i--) {
            const j = Math.floor(r() * (i + 1));
            [order[i], order[j]] = [order[j], order[i]];
        }
        const rank = new Uint32Array(rows);
        order.forEach((row, pos) => (rank[row] = pos));
        return Array.from({ length: parts }, (_, k) => {
            const lo = Math.floor((rows * k) / parts);
            const hi = Math.floor((rows * (k + 1)) / parts);
            const run = order.subarray(lo, hi);
            markPermutedRun(run, () => rank, lo, rows);
            return run;
        });
    }

    for (const sgn of [1, -1]) {
        it(`topNumeric ${sgn > 0 ? 'ascending' : 'descending'} walks zones best first: sorted, nearly sorted and shuffled rows, 1-7 parts (ties, NaN)`, () => {
            const r = rng(sgn > 0 ? 11 : 12);
            const ROWS = 6000;
            const datasets: [string, Float64Array][] = [
                ['few values (ties)', Float64Array.from({ length: ROWS }, () => (r() < 0.01 ? NaN : Math.floor(r() * 40)))],
                ['spread values', Float64Array.from({ length: ROWS }, () => (r() < 0.002 ? NaN : r() * 1e6))],
                ['NaN in one zone only', Float64Array.from({ length: ROWS }, (_, i) => (i >= 4000 && i < 4003 ? NaN : Math.floor(r() * 1000)))],
                ['rising values', Float64Array.from({ length: ROWS }, (_, i) => i % 997)],
                ['all NaN but a few', Float64Array.from({ length: ROWS }, (_, i) => (i % 1500 === 7 ? i : NaN))],
            ];
            for (const [name, vals] of datasets) {
                for (const zoneRows of [64, 500, 7]) {
                    // A newest-first scan of rows in time order (a reverse run), whole and cut by a time range.
                    for (const [top, n] of [[ROWS - 1, ROWS], [4321, 3000]]) {
                        const reverse = Uint32Array.from({ length: n }, (_, i) => top - i);
                        markReverseRun(reverse, top);
                        for (const k of [1, 10, 57]) expect([...topNumeric(vals, reverse, n, k, sgn, zoneRows)], `${name}, reverse run, zones of ${zoneRows}`).toEqual(refTop(vals, reverse, n, k, sgn));
                    }
                    for (const parts of [1, 2, 3, 7]) {
                        const runs = [...nearlyOrderedParts(ROWS, parts, r).runs, ...shuffledParts(ROWS, parts, r)];
                        for (const run of runs) {
                            for (const k of [1, 10, 57]) expect([...topNumeric(vals, run, run.length, k, sgn, zoneRows)], `${name}, ${parts} parts, zones of ${zoneRows}`).toEqual(refTop(vals, run, run.length, k, sgn));
                        }
                    }
                }
            }
        });
    }

    it('a top 10 of a newest-first scan reads the zones that hold a winner, not all of them', () => {
        const r = rng(21);
        // 100 zones of 64 rows; the values of a skewed distribution (durations, say).
        const vals = Float64Array.from({ length: 6400 }, () => Math.exp(3 * r()) * 10);
        const reverse = Uint32Array.from({ length: 6400 }, (_, i) => 6399 - i);
        markReverseRun(reverse, 6399);
        expect([...topNumeric(vals, reverse, 6400, 10, -1, 64)]).toEqual(refTop(vals, reverse, 6400, 10, -1));
        expect(lastWalk.zones).toBeLessThanOrEqual(10);
        expect([...topNumeric(vals, reverse, 6400, 10, 1, 64)]).toEqual(refTop(vals, reverse, 6400, 10, 1));
        expect(lastWalk.zones).toBeLessThanOrEqual(10);
        // A part of a shuffled order (its rows anywhere in the table) walks zones too when its top is small.
        const [part] = shuffledParts(6400, 2, r);
        expect(physicalWalk(part, part.length, 6400, 10, 64)).toBeDefined();
        expect(physicalWalk(part, part.length, 6400, 57, 64)).toBeUndefined();
        expect([...topNumeric(vals, part, part.length, 10, -1, 64)]).toEqual(refTop(vals, part, part.length, 10, -1));
        expect(lastWalk.zones).toBeLessThanOrEqual(20);
    });

    it('ascendingPerm orders distinct values, and declines NaN and duplicates', () => {
        expect([...ascendingPerm(Float64Array.of(1, 2, 3), 3)!]).toEqual([0, 1, 2]);
        expect([...ascendingPerm(Float64Array.of(3, 2, 1), 3)!]).toEqual([2, 1, 0]);
        expect([...ascendingPerm(Float64Array.of(5, -1, 7, 0), 4)!]).toEqual([1, 3, 0, 2]);
        expect(ascendingPerm(Float64Array.of(1, NaN, 0), 3)).toBeUndefined();
        expect(ascendingPerm(Float64Array.of(1, 0, 1), 3)).toBeUndefined();
    });
});

describe('timeOrder', () => {
    /** Rows by millisecond, then by a finer key (as a snapshot's comparator: sub-millisecond, batch, row). */
    function cases(): { name: string; ms: Float64Array; fine: Int32Array }[] {
        const r = rng(31);
        const out: { name: string; ms: Float64Array; fine: Int32Array }[] = [];
        const make = (name: string, n: number, ms: (i: number) => number) =>
            out.push({ name, ms: Float64Array.from({ length: n }, (_, i) => ms(i)), fine: Int32Array.from({ length: n }, () => Math.floor(r() * 5)) });
        const t0 = Date.parse('2024-12-01T00:00:00Z');
        make('in order', 5000, i => t0 + i);
        make('shuffled over an hour, many rows a millisecond', 5000, () => t0 + Math.floor(r() * 300));
        make('shuffled over 30 days', 70_000, () => t0 + Math.floor(r() * 30 * 86_400_000));
        make('batches out of order', 6000, i => t0 + ((i + 2000) % 6000) * 3);
        make('7 batches out of order, sharing milliseconds at their edges', 7000, i => t0 + [3, 0, 6, 1, 5, 2, 4][Math.floor(i / 1000)] * 500 + Math.floor((i % 1000) / 2));
        make('100 runs (sorted whole)', 10_000, i => t0 + ((i * 37) % 100) * 1000 + Math.floor(i / 100));
        make('runs of fractions', 3000, i => t0 + ((i + 1000) % 3000) / 7);
        make('a span too wide to pack (before 1970 and after)', 3000, () => Math.floor((r() - 0.5) * 2 ** 50));
        make('fractions', 1000, () => t0 + r() * 100);
        make('one row', 1, () => t0);
        make('none', 0, () => t0);
        return out;
    }

    for (const c of cases()) {
        it(`${c.name}: the comparator's order`, () => {
            const { ms, fine } = c;
            const cmp = (a: number, b: number) => (ms[a] !== ms[b] ? (ms[a] < ms[b] ? -1 : 1) : fine[a] !== fine[b] ? fine[a] - fine[b] : a - b);
            const want = Uint32Array.from({ length: ms.length }, (_, i) => i).sort(cmp);
            expect([...timeOrder(ms, ms.length, cmp)]).toEqual([...want]);
        });
    }
});

describe('time kernels', () => {
    it('splitTimes splits int64 ns into ms and ns within the ms as BigInt floor division does: both signs, the words\' edges, through a selection', () => {
        const r = rng(5);
        const edges = [0n, 1n, -1n, 999_999n, 1_000_000n, -1_000_000n, -1_000_001n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 63n - 1n, -(2n ** 63n)];
        const random = Array.from({ length: 2000 }, () => BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * BigInt(Math.floor(r() * 4096) + 1) + BigInt(Math.floor(r() * 1e6)));
        const times = BigInt64Array.from([...edges, ...random]);
        for (const sel of [null, everyOther(times.length)]) {
            const n = sel ? sel.length : times.length;
            const ms = new Float64Array(n);
            const sub = new Int32Array(n);
            splitTimes(times, sel, n, ms, sub, 0, 0);
            for (let i = 0; i < n; i++) {
                const t = times[sel ? sel[i] : i];
                expect([ms[i], sub[i]]).toEqual(splitNs(t));
                expect(BigInt(ms[i]) * 1_000_000n + BigInt(sub[i])).toBe(t);
            }
        }
    });
});
