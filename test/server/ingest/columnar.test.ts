/**
 * toColumns turns one request's flat events into columns in one pass, each written in its final
 * encoding from its first value on. Whatever the events, the columns must give back every event's
 * values, with the encoding their kinds call for and the fields in order of first appearance.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteDict, ColumnSet, columnValue, fromColumns, toColumns, type BatchColumn } from '../../../server/ingest/columnar.js';
import { MAX_PROBES, stringHash } from '../../../language/eval/string-index.js';
import type { FlatFields } from '../../../language/ingest/normalize-event.js';
import type { JsonValue } from '../../../language/values.js';

function valueAt(c: BatchColumn, r: number): JsonValue | undefined {
    switch (c.kind) {
        case 'f64': return c.present === null || (c.present[r >> 3] >> (r & 7)) & 1 ? c.values[r] : undefined;
        case 'str': return c.codes[r] === 0 ? undefined : c.dict[c.codes[r] - 1];
        case 'bool': return c.values[r] === 2 ? undefined : c.values[r] === 1;
        case 'json': return c.values[r] ?? undefined;
    }
}

/** What the columns must be, worked out field by field from the events. */
function expectColumnsHold(events: FlatFields[]): void {
    const present = (v: unknown) => v !== null && v !== undefined;
    const names = [...new Set(events.flatMap(e => Object.keys(e).filter(k => present(e[k]))))];
    const columns = toColumns(events);
    expect(columns.map(c => c.name)).toEqual(names);
    for (const c of columns) {
        const values = events.map(e => (present(e[c.name]) ? e[c.name] : undefined));
        const kinds = new Set(values.filter(present).map(v => (typeof v === 'object' ? 'other' : typeof v)));
        const kind = kinds.size > 1 || kinds.has('other') ? 'json' : kinds.has('number') ? 'f64' : kinds.has('string') ? 'str' : 'bool';
        expect([c.name, c.kind]).toEqual([c.name, kind]);
        expect(events.map((_, r) => valueAt(c, r))).toEqual(values);
        if (c.kind === 'str') expect(new Set(c.dict).size).toBe(c.dict.length);
        if (c.kind === 'f64') expect(c.present === null).toBe(values.every(present));
    }
}

const value: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer({ min: -3, max: 3 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom('GET', 'POST', ''),
    fc.string({ maxLength: 3 }),
    fc.boolean(),
    fc.constant<JsonValue>([1, 'a']),
);
const event = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'geo.city'), value, { maxKeys: 4 }) as fc.Arbitrary<FlatFields>;

describe('toColumns', () => {
    it('[{a:1,b:"x"}, {b:"y"}, {b:2}, {x:1,b:"z"}]: b turns json at another position than it was first seen', () => {
        expectColumnsHold([{ a: 1, b: 'x' }, { b: 'y' }, { b: 2 }, { x: 1, b: 'z' }, { a: 2, b: 'w' }]);
    });

    it('[{n:1}, {n:null}, {n:2.5}, {}]: numbers with absent rows keep a presence bitmap', () => {
        const [n] = toColumns([{ n: 1 }, { n: null }, { n: 2.5 }, {}]);
        expect(n).toMatchObject({ kind: 'f64' });
        expectColumnsHold([{ n: 1 }, { n: null }, { n: 2.5 }, {}]);
    });

    it('[{s:"a"}, {s:true}, {s:[1]}]: string, then boolean, then array', () => {
        expectColumnsHold([{ s: 'a' }, { s: true }, { s: [1] }]);
    });

    it('any events (property)', () => {
        fc.assert(fc.property(fc.array(event, { maxLength: 40 }), events => expectColumnsHold(events)), { numRuns: 500 });
    });
});

describe('fromColumns', () => {
    it('[{b:1,a:"x"}, {a:"y",c:[1]}, {}, {b:true}]: the events back, absent fields left out', () => {
        const events: FlatFields[] = [{ b: 1, a: 'x' }, { a: 'y', c: [1] }, {}, { b: true }];
        const times = new BigInt64Array(events.length);
        expect(fromColumns({ times, columns: toColumns(events) })).toEqual(events);
    });

    it('any events, nulls dropped (property)', () => {
        fc.assert(
            fc.property(fc.array(event, { maxLength: 40 }), events => {
                const present = events.map(e => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null && v !== undefined)));
                const back = fromColumns({ times: new BigInt64Array(events.length), columns: toColumns(events) });
                expect(back).toEqual(present);
                // Each event's fields in first-appearance order, so flat readers create fields in the same order.
                const order = toColumns(events).map(c => c.name);
                for (const e of back) expect(Object.keys(e)).toEqual(order.filter(k => k in e));
            }),
            { numRuns: 300 },
        );
    });
});

/**
 * The byte dictionary's hash is not keyed, so a body can be made of strings that all share one:
 * lookups then stop after MAX_PROBES slots and the column goes by string, with the same result.
 */
describe('strings that all share one hash', () => {
    const strings = Array.from({ length: 300 }, (_, i) => `s${i}`);
    const bytes = Buffer.from(`${strings.join('')}\n${'\0'.repeat(8)}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at: [number, number][] = [];
    for (let i = 0, o = 0; i < strings.length; o += strings[i].length, i++) at.push([o, o + strings[i].length]);
    const SAME = 7;

    it('s0 … s299, all with hash 7: a lookup gives up after MAX_PROBES slots instead of walking them all', () => {
        const dict = new ByteDict(bytes, view);
        let gaveUp = -1;
        for (let i = 0; i < strings.length && gaveUp < 0; i++) {
            const c = dict.find(at[i][0], at[i][1], SAME);
            if (c < 0) gaveUp = i;
            else dict.add(at[i][0], at[i][1], SAME, i + 1);
        }
        expect(gaveUp).toBe(MAX_PROBES);
        expect(dict.find(at[3][0], at[3][1], SAME)).toBe(4);
    });

    it('s0 … s299 twice, all with hash 7: the column holds every value, each string once in its dictionary', () => {
        const set = new ColumnSet(600);
        const col = set.column('s', '');
        for (let row = 0; row < 600; row++) {
            const [a, b] = at[row % 300];
            set.putAscii(col, bytes, view, a, b, SAME, row);
        }
        const [c] = set.finish(600);
        expect(Array.from({ length: 600 }, (_, r) => columnValue(c, r))).toEqual([...strings, ...strings]);
        expect(c).toMatchObject({ kind: 'str', dict: strings });
    });
});

describe('strings whose words differ only above their low bits', () => {
    // "/users/1000/x" … : the varying digit is the third byte of a word, which FNV's low bits never
    // see; a slot taken from the low bits alone put them all in one run of slots.
    const strings = Array.from({ length: 2000 }, (_, i) => `/users/1${String(i).padStart(3, '0')}/x`);
    const bytes = Buffer.from(`${strings.join('')}\n${'\0'.repeat(8)}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

    it('"/users/1000/x" … "/users/1999/x" by their bytes: the column keeps its byte dictionary', () => {
        const set = new ColumnSet(strings.length);
        const col = set.column('uri', '');
        for (let i = 0, o = 0; i < strings.length; o += strings[i].length, i++) set.putAscii(col, bytes, view, o, o + strings[i].length, stringHash(strings[i]), i);
        expect((col.b as { bytes: unknown }).bytes).toBeInstanceOf(ByteDict);
        const [c] = set.finish(strings.length);
        expect(Array.from({ length: strings.length }, (_, r) => columnValue(c, r))).toEqual(strings);
    });
});
