/**
 * The string dictionaries' index (StringIndex) and its hash: codes like a Map's, a worker's byte
 * hash of ASCII text equal to `stringHash`, and a hash-flooded index that still answers right.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine, type ColumnChunk } from '../../../language/eval/engine.js';
import { StrColumn } from '../../../language/eval/columns.js';
import { MAX_PROBES, StringIndex, stringHash } from '../../../language/eval/string-index.js';

const BASE = 1_714_521_600_000_000_000n;

/** FNV-1a over bytes, four at a time while four are left (little-endian words), as the scanner does. */
function byteHash(bytes: Uint8Array): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let h = 0x811c9dc5 | 0;
    let k = 0;
    for (; k + 4 <= bytes.length; k += 4) h = Math.imul(h ^ view.getInt32(k, true), 0x01000193);
    for (; k < bytes.length; k++) h = Math.imul(h ^ bytes[k], 0x01000193);
    return h;
}

/**
 * A dictionary with its index, as a column keeps them (base 0: entry 0 is the null placeholder).
 * `way`: new codes found by `get` then noted by `add`, or both at once with `getOrAdd`.
 */
function column(base: 0 | 1, way: 'get+add' | 'getOrAdd' = 'get+add', expected = 0): { dict: string[]; index: StringIndex; code(s: string, h?: number): number } {
    const dict: string[] = base === 0 ? [''] : [];
    const index = new StringIndex(dict, base, expected);
    return {
        dict,
        index,
        code(s, h = stringHash(s)) {
            if (way === 'getOrAdd') {
                const next = dict.length + base;
                const c = index.getOrAdd(s, h, next);
                if (c === next) dict.push(s);
                return c;
            }
            let c = index.get(s, h);
            if (c === undefined) {
                dict.push(s);
                c = dict.length - 1 + base;
                index.add(s, c, h);
            }
            return c;
        },
    };
}

describe('stringHash', () => {
    it('ASCII text: the FNV of its bytes, word by word', () => {
        fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map(c => String.fromCharCode(c)), maxLength: 40 }), s => {
            expect(stringHash(s)).toBe(byteHash(Buffer.from(s, 'latin1')));
        }), { numRuns: 2000 });
    });

    it('"" is the FNV offset basis', () => {
        expect(stringHash('')).toBe(0x811c9dc5 | 0);
    });
});

describe('StringIndex', () => {
    for (const [base, way, expected] of [[0, 'get+add', 0], [1, 'get+add', 0], [0, 'getOrAdd', 0], [1, 'getOrAdd', 0], [1, 'getOrAdd', 400]] as const) {
        it(`codes as a Map gives them, base ${base}, ${way}${expected ? `, ${expected} expected` : ''} (random strings, repeats, unicode, "")`, () => {
            fc.assert(fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 3 }), fc.constantFrom('', 'GET', 'é')), { maxLength: 400 }), values => {
                const col = column(base, way, expected);
                const map = new Map<string, number>();
                for (const v of values) {
                    const c = col.code(v);
                    if (!map.has(v)) map.set(v, c);
                    expect(c).toBe(map.get(v));
                    expect(col.dict[c - base]).toBe(v);
                }
                for (const [v, c] of map) expect(col.index.get(v)).toBe(c);
                expect(col.index.get('\u0000not-there')).toBeUndefined();
            }), { numRuns: 300 });
        });
    }

    for (const way of ['get+add', 'getOrAdd'] as const) {
        it(`100,000 distinct ids, then each again (${way}): one code each, found again`, () => {
            const col = column(0, way);
            const ids = Array.from({ length: 100_000 }, (_, i) => `id-${i.toString(36)}-${(i * 2654435761) >>> 0}`);
            ids.forEach((s, i) => expect(col.code(s)).toBe(i + 1));
            ids.forEach((s, i) => expect(col.code(s)).toBe(i + 1));
            expect(col.dict.length).toBe(ids.length + 1);
        });
    }

    it('100,000 expected: the table is made that large at once and grows no more', () => {
        const col = column(1, 'getOrAdd', 100_000);
        const slots = () => (col.index as unknown as { table: { slots: Int32Array } }).table.slots;
        const first = slots();
        for (let i = 0; i < 100_000; i++) col.code(`v${i}`);
        expect(slots()).toBe(first);
        for (let i = 0; i < 100_000; i++) expect(col.index.get(`v${i}`)).toBe(i + 1);
    });

    it('2,000 of "abc?def?", only the high byte of each word differing: the index keeps its hash (the slot folds the high bits in)', () => {
        // FNV's low bits ignore a word's high byte: without folding, all of these share a first slot.
        const strings = Array.from({ length: 2000 }, (_, i) => `abc${String.fromCharCode(0x20 + (i % 90))}def${String.fromCharCode(0x20 + Math.floor(i / 90))}`);
        const col = column(1);
        strings.forEach(s => col.code(s));
        expect((col.index as unknown as { map: unknown }).map).toBeNull();
        strings.forEach((s, i) => expect(col.index.get(s)).toBe(i + 1));
    });

    for (const way of ['get+add', 'getOrAdd'] as const) {
        it(`s0 … s299, all with hash 7 (${way}): the index gives up on the hash and still answers every string`, () => {
            const col = column(0, way);
            const strings = Array.from({ length: 300 }, (_, i) => `s${i}`);
            strings.forEach((s, i) => expect(col.code(s, 7)).toBe(i + 1));
            strings.forEach((s, i) => expect(col.code(s, 7)).toBe(i + 1));
            expect((col.index as unknown as { map: unknown }).map).not.toBeNull();
            strings.forEach((s, i) => {
                expect(col.index.get(s, 7)).toBe(i + 1);
                expect(col.index.get(s)).toBe(i + 1);
            });
            expect(col.code('s300')).toBe(301);
            expect(col.index.get('s-1')).toBeUndefined();
            expect(MAX_PROBES).toBeLessThan(300);
        });
    }
});

describe('a str chunk with the hashes of its entries', () => {
    const chunk = (dict: string[], codes: number[], hashes?: Int32Array): ColumnChunk => ({ name: 's', kind: 'str', dict, codes: Uint32Array.from(codes), ...(hashes ? { hashes } : {}) });
    const append = (hashed: boolean) => {
        const engine = createEngine();
        engine.ingest('t', [{ _time: '2024-05-01T00:00:00Z', s: 'GET' }, { _time: '2024-05-01T00:00:00Z', s: 'x-1' }]);
        const parts = [['x-2', 'GET', 'x-1'], ['x-3', 'x-2']];
        for (const dict of parts) {
            const n = dict.length + 1;
            engine.appendColumns('t', {
                rows: n, times: new BigInt64Array(n).fill(BASE), batchOf: new Uint32Array(n), rowInBatch: Uint32Array.from({ length: n }, (_, i) => i), batches: [{ seq: 9, sysTime: BASE }],
                columns: [chunk(dict, [...dict.map((_, i) => i + 1), 0], hashed ? Int32Array.from(dict, stringHash) : undefined)],
            });
        }
        // One by one again: the values the chunks added are known, a new one is added once.
        engine.ingest('t', [{ _time: '2024-05-01T00:00:00Z', s: 'x-3' }, { _time: '2024-05-01T00:00:00Z', s: 'x-4' }, { _time: '2024-05-01T00:00:00Z', s: 'x-4' }]);
        return engine.snapshot('t')!.column('s') as StrColumn;
    };

    it('appended with hashes and without, between values appended one by one: the same dictionary and codes, each value once', () => {
        const withHashes = append(true);
        const without = append(false);
        expect(withHashes.dict).toEqual(['', 'GET', 'x-1', 'x-2', 'x-3', 'x-4']);
        expect([...withHashes.codes].slice(-3)).toEqual([4, 5, 5]);
        expect(without.dict).toEqual(withHashes.dict);
        expect([...withHashes.codes]).toEqual([...without.codes]);
        expect(withHashes.codeOf('x-2')).toBe(3);
        expect(withHashes.codeOf('nope')).toBe(-1);
    });
});
