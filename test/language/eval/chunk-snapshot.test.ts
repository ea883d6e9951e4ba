/**
 * A snapshot straight over a block's columns (language/eval/chunk-snapshot.ts) answers exactly as
 * the store the block used to be copied into: the same fields and types, every cell, the times,
 * the row ids and the time order. It reads the block's times and row ids only when asked for them.
 */
import { describe, expect, it } from 'vitest';
import { prng as random } from '../../support/prng.js';
import { countingChunk } from '../../support/counting-chunk.js';
import { chunkSnapshot } from '../../../language/eval/chunk-snapshot.js';
import { DatasetStore, type ColumnChunk, type ColumnarChunk, type Snapshot } from '../../../language/eval/tables.js';
import { Datetime } from '../../../language/values.js';
import { parseCursor } from '../../../language/api/row-id.js';
import { gatherColumn } from '../../../language/eval/columns.js';

const T0 = 1_790_000_000_000_000_000n;

/** A chunk of `rows` rows with every kind of column the direct path takes, absent values, and times out of order. */
function chunkOf(seed: number, rows: number): ColumnarChunk {
    const rnd = random(seed);
    const pick = (n: number) => Math.floor(rnd() * n);
    const bits = (p: number): Uint8Array => {
        const out = new Uint8Array(Math.ceil(rows / 8));
        for (let i = 0; i < rows; i++) if (rnd() >= p) out[i >> 3] |= 1 << (i & 7);
        return out;
    };
    const dict = ['GET', 'POST', 'PUT', 'ünï', 'a-much-longer-string-value'];
    const columns: ColumnChunk[] = [
        { name: 'status', kind: 'str', dict, codes: Uint32Array.from({ length: rows }, () => (rnd() < 0.1 ? 0 : 1 + pick(dict.length))) },
        { name: 'n', kind: 'f64', values: Float64Array.from({ length: rows }, () => pick(1000) - 200), present: null },
        { name: 'r', kind: 'f64', values: Float64Array.from({ length: rows }, () => rnd() * 50), present: bits(0.2) },
        { name: 'ints_some_absent', kind: 'f64', values: Float64Array.from({ length: rows }, () => pick(7)), present: bits(0.5) },
        { name: 'none_f64', kind: 'f64', values: new Float64Array(rows), present: new Uint8Array(Math.ceil(rows / 8)) },
        { name: 'ok', kind: 'bool', values: Uint8Array.from({ length: rows }, () => pick(3)) },
        { name: 'none_bool', kind: 'bool', values: new Uint8Array(rows).fill(2) },
        { name: 'none_str', kind: 'str', dict: [], codes: new Uint32Array(rows) },
        { name: 'Alpha', kind: 'str', dict: ['x'], codes: Uint32Array.from({ length: rows }, () => pick(2)) },
    ];
    // Times mostly ascending, some out of order and some sharing a millisecond (sub-ms parts too).
    const times = BigInt64Array.from({ length: rows }, (_, i) => T0 + BigInt(i * 1000 - (rnd() < 0.2 ? pick(40_000) : 0)) * 1_000_000n + BigInt(rnd() < 0.3 ? pick(999_999) : 0));
    return {
        rows,
        times,
        batchOf: Uint32Array.from({ length: rows }, (_, i) => (i < rows / 2 ? 0 : 1)),
        rowInBatch: Uint32Array.from({ length: rows }, (_, i) => (i < rows / 2 ? i : i - Math.ceil(rows / 2))),
        batches: [
            { seq: 41, sysTime: T0 + 5n },
            { seq: 42, sysTime: T0 + 1_000_000_007n },
        ],
        columns,
        flatStrings: true,
    };
}

function copied(chunk: ColumnarChunk): Snapshot {
    const s = new DatasetStore('d');
    s.reserve(chunk.rows);
    s.appendColumns(chunk);
    return s.snapshot();
}

const cell = (v: unknown): unknown => (v instanceof Datetime ? `t${v.ns}` : v);

describe('chunkSnapshot', () => {
    for (const [seed, rows] of [[1, 1], [2, 7], [3, 300], [4, 2_000], [5, 5_000]] as const) {
        it(`answers as the store would: seed ${seed}, ${rows} rows`, () => {
            const chunk = chunkOf(seed, rows);
            const direct = chunkSnapshot('d', chunk)!.snapshot;
            const store = copied(chunk);
            expect(direct.rows).toBe(store.rows);
            expect(direct.fields).toEqual(store.fields);
            for (const f of store.fields) {
                const a = direct.column(f.name)!;
                const b = store.column(f.name)!;
                expect(a.type, f.name).toBe(b.type);
                const cellsA = Array.from({ length: rows }, (_, i) => cell(a.get(i)));
                const cellsB = Array.from({ length: rows }, (_, i) => cell(b.get(i)));
                expect(cellsA, f.name).toEqual(cellsB);
            }
            expect(Array.from({ length: rows }, (_, i) => direct.rowId(i))).toEqual(Array.from({ length: rows }, (_, i) => store.rowId(i)));
            expect([...direct.ascOrder()]).toEqual([...store.ascOrder()]);
            expect([...direct.descOrder()]).toEqual([...store.descOrder()]);
            expect(direct.orderSpread()).toBe(store.orderSpread());
            expect(direct.minTime()).toBe(store.minTime());
            expect(direct.maxTime()).toBe(store.maxTime());
            expect([...direct.time.ms]).toEqual([...store.time.ms]);
            expect([...direct.time.sub]).toEqual([...store.time.sub]);
            expect([...direct.sysTime.ms]).toEqual([...store.sysTime.ms]);
            expect([...direct.descRank()]).toEqual([...store.descRank()]);
            const sign = (x: number) => Math.sign(x);
            for (let k = 0; k < Math.min(rows, 200); k++) {
                const [a, b] = [(k * 7919) % rows, (k * 104729 + 3) % rows];
                expect(sign(direct.compareRows(a, b)), `${a} ${b}`).toBe(sign(store.compareRows(a, b)));
                // A cursor at another row's id, as a page's next request sends it.
                const cursor = parseCursor(store.rowId(b))!;
                expect(sign(direct.compareWithCursor(a, cursor)), `${a} ${b}`).toBe(sign(store.compareWithCursor(a, cursor)));
            }
            // Lookups of a value's code, as `where status == …` and zone maps make them.
            const status = direct.column('status') as unknown as { codeOf(s: string): number; get(i: number): unknown };
            for (const v of ['GET', 'ünï', 'absent']) {
                const code = status.codeOf(v);
                expect(code < 0 ? 'absent' : (status as unknown as { dict: string[] }).dict[code]).toBe(v);
            }
        });
    }

    it('is a copy (undefined) for a selection of rows, a json column, a declared type or a map field', () => {
        const chunk = chunkOf(9, 50);
        expect(chunkSnapshot('d', chunk)).toBeDefined();
        expect(chunkSnapshot('d', { ...chunk, select: [1, 2, 3] })).toBeUndefined();
        expect(chunkSnapshot('d', { ...chunk, columns: [...chunk.columns, { name: 'j', kind: 'json', values: Array.from({ length: 50 }, (_, i) => (i % 2 ? 'a' : 1)) }] })).toBeUndefined();
        expect(chunkSnapshot('d', chunk, { fieldTypes: { n: 'real' } })).toBeUndefined();
        expect(chunkSnapshot('d', chunk, { mapFields: ['status'] })).toBeUndefined();
        // Hints for fields the chunk does not have change nothing.
        expect(chunkSnapshot('d', chunk, { fieldTypes: { elsewhere: 'long' }, mapFields: ['attrs'] })).toBeDefined();
    });

    it('reads the times only when a query reads them, and the row ids only for ids and order', () => {
        const chunk = chunkOf(11, 400);
        const reads: string[] = [];
        const counted = countingChunk(chunk, reads);
        const snap = chunkSnapshot('d', counted)!.snapshot;
        // What a scan of every field makes (sources.ts snapshotFrame), and a filter's reads.
        const cols = snap.fields.map(f => snap.column(f.name)!);
        expect(cols).toHaveLength(snap.fields.length);
        snap.column('status')!.get(3);
        expect((snap.column('n') as unknown as { vals: Float64Array }).vals).toHaveLength(400);
        expect(reads).toEqual([]);
        expect(snap.time.get(0)).toEqual(copied(chunk).time.get(0));
        expect(snap.time.ms.length).toBe(400);
        expect(reads).toEqual(['times']);
        expect(snap.rowId(0)).toBe(copied(chunk).rowId(0));
        snap.rowId(1);
        // Read once each, the times already split.
        expect(reads.slice(1).sort()).toEqual(['batchOf', 'rowInBatch']);
    });

    it('a chunk in time order: its order made without its times, a few rows of its times split alone, a time read from the stored words', () => {
        const base = chunkOf(12, 400);
        // Strictly ascending times: the order the chunk says it is in.
        const chunk: ColumnarChunk = { ...base, times: BigInt64Array.from({ length: 400 }, (_, i) => T0 + BigInt(i) * 1_234_567n), inTimeOrder: true };
        const reads: string[] = [];
        const snap = chunkSnapshot('d', countingChunk(chunk, reads))!.snapshot;
        const store = copied(chunk);
        expect([...snap.ascOrder()]).toEqual([...store.ascOrder()]);
        expect(snap.orderSpread()).toBe(0);
        expect(reads).toEqual([]);
        const unmade = (c: object) => typeof Object.getOwnPropertyDescriptor(c, 'ms')?.get === 'function';
        // A few rows gathered: those alone split, for _time and _sysTime.
        const rows = Uint32Array.of(5, 199, 300);
        for (const name of ['_time', '_sysTime']) {
            const got = gatherColumn(snap.column(name)!, rows, 3);
            expect([0, 1, 2].map(i => cell(got.get(i))), name).toEqual([...rows].map(r => cell(store.column(name)!.get(r))));
            expect(unmade(snap.column(name)!), name).toBe(true);
        }
        expect(snap.time.ns(7)).toBe(store.time.ns(7));
        expect(snap.minTime()).toBe(store.minTime());
        expect(unmade(snap.time)).toBe(true);
        // Many rows: the column is made.
        gatherColumn(snap.time, Uint32Array.from({ length: 100 }, (_, i) => i), 100);
        expect(unmade(snap.time)).toBe(false);
    });
});
