/**
 * dcount's mergeable states (language/eval/merge-states.ts): the 64-bit hashes of each value's
 * canonical key, and merging parts counts each value once, whatever its type.
 */
import { describe, expect, it } from 'vitest';
import { throughPort } from './helpers.js';
import { DistinctState, QuantileState, quantileStates, type DistinctStateJson } from '../../../language/eval/merge-states.js';
import { NumColumn } from '../../../language/eval/columns.js';
import { HyperLogLog } from '../../../language/eval/sketches.js';
import { canonicalKey } from '../../../language/runtime-values.js';

const P = 14;

/** A state as a part sends it to the merge's thread (parallel.ts serializePartial): JSON text, and its shared buffers beside it. */
function acrossThreads<J, S extends { toPortable(shared: SharedArrayBuffer[]): J }>(s: S, fromPortable: (j: J, shared: readonly SharedArrayBuffer[]) => S): S {
    const shared: SharedArrayBuffer[] = [];
    const { json, buffers } = throughPort({ json: JSON.stringify(s.toPortable(shared)), buffers: shared });
    return fromPortable(JSON.parse(json) as J, buffers);
}

/** The state a merge folds parts into, as parallel.ts makes it: the first part shared, the others merged. */
function merged(...parts: DistinctState[]): DistinctState {
    const into = parts[0]!.share();
    for (const p of parts.slice(1)) into.mergeFrom(p);
    return into;
}

describe('dcount states merged part by part', () => {
    it("the string '5' and the number 5 are two values; a string in two parts is one", () => {
        const a = DistinctState.exact(new Set(['5', 'x']), new Set([canonicalKey(5)]), P);
        const b = DistinctState.exactList(['x', 'y'], P);
        expect(a.result()).toBe(3);
        expect(merged(a, b).result()).toBe(4);
        expect(merged(b, a).result()).toBe(4);
    });

    it('parts of dictionary lists: the merged set counts the strings they share once, and leaves each part as it was', () => {
        const a = DistinctState.exactList(['a', 'b'], P);
        const b = DistinctState.exactList(['b', 'c'], P);
        const m = merged(a, b, DistinctState.exactList(['c', 'd'], P));
        expect(m.result()).toBe(4);
        expect(m.exact).toBe(true);
        expect([a.result(), b.result()]).toEqual([2, 2]);
    });

    it('a string in a part made a sketch and the same string in an exact part are one value', () => {
        const sketched = DistinctState.exact(new Set(['x']), new Set([canonicalKey(7)]), P);
        sketched.toSketch();
        const m = merged(sketched, DistinctState.exactList(['x'], P), DistinctState.exact(new Set(), new Set([canonicalKey(7)]), P));
        expect(m.exact).toBe(false);
        expect(Math.round(m.result())).toBe(2);
    });

    it('the bytes a state counts are those of its hashes: 8 a value in a list, 16 to 32 in a table kept at most half full', () => {
        const list = DistinctState.exactList(['aaaa', 'bbbb'], P);
        expect(list.bytes - 64).toBe(16);
        const m = list.share();
        // The first merge makes the list a table of 16 slots (128 bytes): counted, though no value is new.
        expect(m.mergeFrom(DistinctState.exactList(['aaaa'], P))).toBe(128 - 16);
        for (let k = 0; k < 20; k++) {
            const before = m.bytes;
            const added = m.mergeFrom(DistinctState.exactList(Array.from({ length: 500 }, (_, i) => `v${k * 500 + i}`), P));
            expect(m.bytes).toBe(before + added);
            const n = m.result();
            expect(m.bytes - 64).toBeGreaterThanOrEqual(16 * n);
            expect(m.bytes - 64).toBeLessThan(32 * n);
        }
        // Values it has add nothing.
        expect(m.mergeFrom(DistinctState.exactList(['aaaa', 'v1', 'v9999'], P))).toBe(0);
        expect(list.bytes - 64).toBe(16);
    });

    it('many values: counted exactly, through tables that grow, in JSON and back, and the same sketch as the keys would make', () => {
        const ids = Array.from({ length: 20_000 }, (_, i) => `user-${i}`);
        const a = DistinctState.exactList(ids.slice(0, 12_000), P);
        const b = DistinctState.exact(new Set(ids.slice(8_000)), new Set([canonicalKey(1), canonicalKey(1.5), canonicalKey(null)]), P);
        const m = merged(a, b);
        expect([m.exact, m.result()]).toEqual([true, 20_003]);
        const back = acrossThreads(m, DistinctState.fromPortable);
        expect([back.exact, back.result()]).toEqual([true, 20_003]);
        back.toSketch();
        const hll = new HyperLogLog(P);
        for (const k of [...ids.map(s => canonicalKey(s)), canonicalKey(1), canonicalKey(1.5), canonicalKey(null)]) hll.add(k);
        expect([...(JSON.parse(JSON.stringify(back.toPortable([]))) as DistinctStateJson).registers!].map(c => c.charCodeAt(0) - 0x30)).toEqual([...hll.registers]);
        expect(acrossThreads(back, DistinctState.fromPortable).result()).toBe(back.result());
        expect(Math.abs(back.result() - 20_003) / 20_003).toBeLessThan(0.03);
    });

    it('hashes of any bits, (0, 0) included, cross threads', () => {
        const pairs = Uint32Array.of(0, 0, 0xd800dfff, 0x22005c, 0xffffffff, 1, 0x0a0d0009, 0xdc00d800);
        const s = DistinctState.exactHashes(pairs, P);
        const back = acrossThreads(s, DistinctState.fromPortable);
        expect(back.result()).toBe(4);
        expect(merged(back, DistinctState.exactHashes(pairs, P)).result()).toBe(4);
    });
});

describe('percentile states across threads', () => {
    const back = (s: QuantileState) => acrossThreads(s, QuantileState.fromPortable);

    it('exact: numbers of any bits come back the same, and merge with a part as before', () => {
        const values = Float64Array.from([0, -0, 1.5, -1e-310, Infinity, -Infinity, 2 ** 53, Number.MIN_VALUE, -1e308]);
        const raw = new Float64Array(new Uint16Array([0xd800, 0x22, 0x5c, 0x0a, 0xdfff, 0, 0x0d, 0x3ff0]).buffer);
        const all = Float64Array.from([...values, ...raw]);
        const s = QuantileState.exact(all);
        const b = back(s);
        expect(b.exact).toBe(true);
        const ranks = [0, 10, 25, 50, 75, 90, 100];
        expect(b.results(ranks)).toEqual(s.results(ranks));
        const m = b.share();
        m.mergeFrom(QuantileState.exact(Float64Array.of(7, 8)));
        const whole = QuantileState.exact(Float64Array.from([...all, 7, 8]));
        expect(m.results(ranks)).toEqual(whole.results(ranks));
        // A state of several chunks crosses as one buffer.
        expect(back(m).results(ranks)).toEqual(whole.results(ranks));
        expect(back(QuantileState.exact(new Float64Array(0))).results([50])).toEqual([null]);
    });

    it('a sketch: comes back a sketch that answers as before', () => {
        const s = QuantileState.exact(Float64Array.from({ length: 5_000 }, (_, i) => (i * 7919) % 5_003));
        s.toSketch();
        const b = back(s);
        expect(b.exact).toBe(false);
        expect(b.results([1, 50, 95, 100])).toEqual(s.results([1, 50, 95, 100]));
    });
});

describe("a part's percentile states", () => {
    /** The buffers a state's exact numbers keep alive (its chunks are protected: read here only). */
    const heldBytes = (s: QuantileState): number => [...new Set((s as unknown as { data: Float64Array[] }).data.map(c => c.buffer))].reduce((n, b) => n + b.byteLength, 0);

    it('summarize percentile(x, 50) by g: each group keeps its own numbers, not the whole part', () => {
        // A merge keeps a group's chunks after the part is gone, counting 8 bytes a number; when the
        // large groups become sketches, a small group must not keep every group's numbers alive.
        const n = 10_000;
        const vals = Float64Array.from({ length: n }, (_, i) => i);
        const gids = Uint32Array.from({ length: n }, (_, i) => (i % 100 === 0 ? 1 : 0));
        const [big, small] = quantileStates({ c: false, col: new NumColumn('real', vals, null, n), sel: null }, undefined, gids, 2, n)!;
        expect(heldBytes(small!)).toBe(8 * (n / 100));
        expect(heldBytes(big!)).toBe(8 * (n - n / 100));
        expect(small!.results([50])).toEqual([4900]);
        const one = quantileStates({ c: false, col: new NumColumn('real', vals, null, n), sel: null }, undefined, new Uint32Array(n), 1, n)!;
        expect(heldBytes(one[0]!)).toBe(8 * n);
    });
});
