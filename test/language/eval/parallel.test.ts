/**
 * Parallel runs (language/eval/parallel.ts): a query run as N parts plus a merge answers as one run
 * does, for 1 to 7 parts, in both result formats. The service runs the same parts on its query
 * workers (test/server/query/parallel-query.test.ts). Sums and averages of reals may differ in the
 * last bits (the additions happen in another order), so numbers compare to 1e-9 relative.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine, type QueryOptions } from '../../../language/eval/engine.js';
import { deserializePartial, partialIsUnsupported, serializePartial } from '../../../language/eval/parallel.js';
import { DistinctState } from '../../../language/eval/merge-states.js';
import { canonicalKey } from '../../../language/runtime-values.js';
import { comparable, mixedEvents } from '../../support/parallel-fixtures.js';

const OPTS: QueryOptions = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z', now: '2026-11-05T00:00:00Z' };

function loaded(): Engine {
    const e = createEngine();
    const events = mixedEvents(5000);
    e.ingest('d', events);
    return e;
}

/** Runs `apl` as `count` parts and a merge, through the same serialisation the query workers use. */
async function inParts(e: Engine, apl: string, count: number, format: 'tabular' | 'legacy'): Promise<unknown> {
    const plan = e.planParallel(apl);
    if (!plan) throw new Error(`no parallel plan for ${apl}`);
    const parts = Array.from({ length: count }, (_, index) => e.run(apl, { ...OPTS, partial: { plan, part: { index, count } } }).run.partial!);
    const merge = { plan, parts: parts.map(p => deserializePartial(serializePartial(p))) };
    return format === 'tabular' ? e.query(apl, { ...OPTS, merge }) : e.queryLegacyFormat(apl, { ...OPTS, merge });
}

const PARALLEL = [
    "['d'] | count",
    "['d'] | where status == '500' | count",
    "['d'] | summarize count() by status",
    "['d'] | summarize c = count(), s = sum(n), a = avg(r), mn = min(r), mx = max(n), ci = countif(ok), si = sumif(n, ok), ai = avgif(r, ok), mni = minif(n, ok), mxi = maxif(r, ok) by status, method",
    "['d'] | where method == 'GET' | summarize avg(r), max(r) by bin(_time, 1h)",
    "['d'] | summarize count() by bin(_time, 1d), status | order by _time asc",
    "['d'] | summarize count(), min(_time), max(_time), max(label), min(status)",
    "['d'] | extend k = n % 7 | summarize total = sum(n) by k | order by k asc | take 3",
    "['d'] | summarize count() by status | count",
    "['d'] | where status == 'nope' | summarize count(), sum(n), avg(r), max(r)",
    "['d'] | where status == 'nope' | summarize count() by status",
    "['d'] | summarize count() by label",
    "['d'] | top 10 by r",
    "['d'] | top 7 by n asc",
    "['d'] | where ok | sort by n asc | take 25",
    "['d'] | where ok | top 5 by status asc, r desc | project status, r, n",
];

describe('parallel parts answer as one run', () => {
    const e = loaded();
    for (const apl of PARALLEL) {
        it(apl, async () => {
            const one = comparable(await e.query(apl, OPTS));
            const oneLegacy = comparable(await e.queryLegacyFormat(apl, OPTS));
            for (const count of [1, 2, 3, 4, 7]) {
                expect(comparable(await inParts(e, apl, count, 'tabular')), `${count} parts`).toEqual(one);
                expect(comparable(await inParts(e, apl, count, 'legacy')), `${count} parts, legacy`).toEqual(oneLegacy);
            }
        });
    }
});

/**
 * Events stored nearly in time order, as a generator or a log shipper sends them: four per
 * millisecond, whose sub-millisecond parts are random, so neighbours are out of time order and a
 * part's rows (a run of the time order) are walked physically within its own rows (kernels/topn.ts).
 * Few distinct values: ties everywhere, across the parts' edges too; `w` has nulls.
 */
function nearlyOrdered(): Engine {
    const e = createEngine();
    let s = 11;
    const rand = (n: number) => {
        s = (s * 1103515245 + 12345) % 2 ** 31;
        return s % n;
    };
    const events = Array.from({ length: 6000 }, (_, i) => {
        const iso = new Date(Date.parse('2026-11-01T00:00:00Z') + Math.floor(i / 4)).toISOString();
        return { _time: `${iso.slice(0, -1)}${String(rand(1_000_000)).padStart(6, '0')}Z`, v: rand(30), w: i % 9 === 0 ? null : rand(20), tag: `t${i}` };
    });
    e.ingest('d', events);
    return e;
}

describe('parallel tops over rows stored nearly in time order answer as one run', () => {
    const e = nearlyOrdered();
    it('the rows are out of time order by a few rows only', () => {
        const snap = e.snapshot('d')!;
        const spread = snap.orderSpread();
        expect(spread).toBeGreaterThan(0);
        expect(spread).toBeLessThan(4);
    });
    for (const apl of [
        "['d'] | top 10 by v",
        "['d'] | top 25 by v asc",
        "['d'] | top 10 by w",
        "['d'] | top 10 by w asc nulls first",
        "['d'] | where w > 3 | top 12 by v",
        "['d'] | sort by v desc | take 40",
        "['d'] | top 5 by v, w asc",
    ]) {
        it(apl, async () => {
            const one = comparable(await e.query(apl, OPTS));
            for (const count of [1, 2, 3, 4, 7]) expect(comparable(await inParts(e, apl, count, 'tabular')), `${count} parts`).toEqual(one);
        });
    }
});

describe('queries that run as one job', () => {
    const e = loaded();
    for (const apl of [
        "['d'] | summarize dcount(status) by method",
        "['d'] | summarize percentile(n, 95)",
        "['d'] | extend x = n | top 3 by x",
        "['d'] | take 10",
        "['d'] | top 20000 by n",
        "let k = 5; ['d'] | top k by n",
        "let t = ['d']; t | count",
        "['d'] | order by n asc | count",
        "['nope'] | count",
        "print x = 1 | count",
        "['d'] | summarize c = count() * 2 by status",
    ]) {
        it(apl, () => {
            expect(e.planParallel(apl)).toBeUndefined();
        });
    }

    it("['d'] | summarize count() with a row minimum above the dataset's rows", () => {
        expect(e.planParallel("['d'] | summarize count()", 5001)).toBeUndefined();
        expect(e.planParallel("['d'] | summarize count()", 5000)?.kind).toBe('summarize');
    });

    it("['big'] | top 1 by n: one run walks the few zones that hold the winners, so it is not split", async () => {
        // 1.5M rows: 23 zones of 64k rows. A top whose rows lie in few zones runs in one thread.
        const big = createEngine();
        const t0 = Date.parse('2026-11-01T00:00:00Z');
        for (let c = 0; c < 15; c++) {
            big.ingest('big', Array.from({ length: 100_000 }, (_, j) => {
                const i = c * 100_000 + j;
                return { _time: new Date(t0 + i).toISOString(), n: (i * 7919) % 100_003, s: `s${i % 50}`, w: i % 3 === 0 ? null : i };
            }));
        }
        expect(big.planParallel("['big'] | top 1 by n")).toBeUndefined();
        // Its answer: of the rows with the largest n (one in about every 100k), the newest wins the tie.
        let newest = -1;
        for (let i = 0; i < 1_500_000; i++) if ((i * 7919) % 100_003 === 100_002) newest = i;
        const top = await big.query("['big'] | top 1 by n", { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' });
        const fields = top.tables[0].fields.map(f => f.name);
        expect(top.tables[0].columns[fields.indexOf('n')]).toEqual([100_002]);
        expect(top.tables[0].columns[fields.indexOf('_time')]).toEqual([new Date(t0 + newest).toISOString()]);
        expect(big.planParallel("['big'] | sort by n asc | take 2")).toBeUndefined();
        // More winners than zones/8, a `where` first (it reads every row), a string key or one with nulls: in parts.
        for (const apl of ["['big'] | top 10 by n", "['big'] | where n > 5 | top 1 by n", "['big'] | top 1 by s", "['big'] | top 1 by w", "['big'] | top 1 by n, s"]) {
            expect(big.planParallel(apl)?.kind, apl).toBe('top');
        }
    });

    it("['d'] | summarize sum(ok) (a part finds that a bool argument does not fit the plan)", () => {
        const apl = "['d'] | summarize sum(ok)";
        const plan = e.planParallel(apl)!;
        expect(plan.kind).toBe('summarize');
        const partial = e.run(apl, { ...OPTS, partial: { plan, part: { index: 0, count: 2 } } }).run.partial!;
        expect(partial).toEqual({ kind: 'unsupported' });
        expect(partialIsUnsupported(serializePartial(partial))).toBe(true);
    });
});

describe('serialisation between threads', () => {
    it('keeps NaN and infinities', () => {
        const p = deserializePartial(serializePartial({ kind: 'summarize', keys: [], aggs: [], groups: [[Number.NaN, Infinity, -Infinity, 1.5, null, 'x']], stats: { rowsExamined: 1, rowsMatched: 1, blocks: [0], datasets: ['d'] } }));
        expect(p.kind === 'summarize' && p.groups[0]).toEqual([Number.NaN, Infinity, -Infinity, 1.5, null, 'x']);
        expect(partialIsUnsupported(serializePartial(p))).toBe(false);
    });

    it('dcount states come back as states, exact or sketched, by their place in the row: a key shaped like a state stays a key', () => {
        const exact = DistinctState.exact(new Set(['a', 'b']), new Set([canonicalKey(5)]), 14);
        const sketched = DistinctState.exactList(['a', 'c', 'd'], 14);
        sketched.toSketch();
        const key = { $distinct: 14, strings: ['k'], others: [] };
        const stats = { rowsExamined: 2, rowsMatched: 2, blocks: [0], datasets: ['d'] };
        const aggs = [
            { name: 'avg_x', type: 'real' as const, info: { name: 'avg', fields: ['x'], args: [] }, merge: 'avg' as const },
            { name: 'dcount_s', type: 'long' as const, info: { name: 'dcount', fields: ['s'], args: [] }, merge: 'distinct' as const },
        ];
        const p = deserializePartial(serializePartial({ kind: 'summarize', keys: [{ name: 'k', type: 'dynamic' }], aggs, groups: [[key, 1, 2, exact], ['x', 3, 4, sketched]], stats, stateBudget: 1024 }));
        if (p.kind !== 'summarize') throw new Error(p.kind);
        expect(p.groups[0][0]).toEqual(key);
        const [a, b] = [p.groups[0][3], p.groups[1][3]];
        expect(a).toBeInstanceOf(DistinctState);
        expect(b).toBeInstanceOf(DistinctState);
        expect([(a as DistinctState).exact, (a as DistinctState).result()]).toEqual([true, 3]);
        expect([(b as DistinctState).exact, Math.round((b as DistinctState).result())]).toEqual([false, 3]);
        const m = (a as DistinctState).share();
        m.mergeFrom(b as DistinctState);
        expect(Math.round(m.result())).toBe(5);
        expect(p.stateBudget).toBe(1024);
    });
});
