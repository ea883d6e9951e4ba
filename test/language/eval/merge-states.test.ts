/**
 * dcount's mergeable states (language/eval/merge-states.ts): a part's strings are kept as they are,
 * its other values by canonical key, and merging parts counts each value once, whatever its type.
 */
import { describe, expect, it } from 'vitest';
import { DistinctState } from '../../../language/eval/merge-states.js';
import { canonicalKey } from '../../../language/runtime-values.js';

const P = 14;

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

    it('the bytes a state counts grow by the strings a merge adds, not by those it had', () => {
        const a = DistinctState.exactList(['aaaa', 'bbbb'], P);
        const m = a.share();
        const before = m.bytes;
        expect(m.mergeFrom(DistinctState.exactList(['aaaa'], P))).toBe(0);
        expect(m.mergeFrom(DistinctState.exactList(['cccc'], P))).toBeGreaterThan(0);
        expect(m.bytes).toBeGreaterThan(before);
    });
});
