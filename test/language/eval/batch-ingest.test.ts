import { describe, expect, it } from 'vitest';
import { batchIdHex, createEngine, type ColumnChunk, type Engine } from '../../../language/eval/engine.js';
import { DatasetStore } from '../../../language/eval/tables.js';
import { formatRowId as storeFormatRowId } from '../../../language/api/row-id.js';
import { rows } from './helpers.js';

const BASE = 1_714_521_600_000_000_000n; // 2024-05-01T00:00:00Z in ns

/** All row ids of a dataset, in (_time, row id) order. */
function rowIds(engine: Engine, name: string): string[] {
    const snap = engine.snapshot(name)!;
    return [...snap.ascOrder()].map(i => snap.rowId(i));
}

function isSorted(store: DatasetStore): boolean {
    return (store as unknown as { sortedAsc: boolean }).sortedAsc;
}

/** The order a full sort by (_time, row id string) gives, for comparison with the engine's. */
function expectedOrder(engine: Engine, name: string): string[] {
    const snap = engine.snapshot(name)!;
    const ids = Array.from({ length: snap.rows }, (_, i) => ({ t: snap.time.ns(i), id: snap.rowId(i) }));
    ids.sort((a, b) => (a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return ids.map(x => x.id);
}

describe('ingestBatch', () => {
    it('row ids equal the store formatRowId(times[r], batchSeq, r), sub-ms, zero and negative times included', () => {
        const engine = createEngine();
        const times = new BigInt64Array([BASE, BASE + 1n, BASE + 999_999n, BASE + 1_000_000n, 0n, -5n, -1_000_000_001n, 9_000_000_000_000_000_000n, 1n]);
        const fields = Array.from(times, (_, i) => ({ i }));
        engine.ingestBatch('t', { times, fields, sysTime: BASE + 42n, batchSeq: 7 });
        engine.ingestBatch('t', { times: [BASE, BASE - 1n], fields: [{ i: 100 }, { i: 101 }], sysTime: BASE, batchSeq: 0x1234abcd });
        const snap = engine.snapshot('t')!;
        expect(snap.rows).toBe(11);
        for (let r = 0; r < times.length; r++) {
            expect(snap.rowId(r)).toBe(storeFormatRowId(times[r], 7, r));
            expect(snap.time.ns(r)).toBe(times[r]);
            expect(snap.sysTime.ns(r)).toBe(BASE + 42n);
        }
        expect(snap.rowId(9)).toBe(storeFormatRowId(BASE, 0x1234abcd, 0));
        expect(snap.rowId(10)).toBe(storeFormatRowId(BASE - 1n, 0x1234abcd, 1));
        expect(batchIdHex(255)).toBe('00000000000000ff');
    });

    it('select keeps the original row indexes in the ids', () => {
        const engine = createEngine();
        const times = new BigInt64Array([BASE, BASE + 10n, BASE + 20n, BASE + 30n]);
        const res = engine.ingestBatch('t', { times, fields: times.length ? [{ a: 0 }, { a: 1 }, { a: 2 }, { a: 3 }] : [], sysTime: BASE, batchSeq: 3, select: [1, 3] });
        expect(res.ingested).toBe(2);
        expect(rowIds(engine, 't')).toEqual([storeFormatRowId(BASE + 10n, 3, 1), storeFormatRowId(BASE + 30n, 3, 3)]);
    });

    it('gives the same results and cursors as ingestFlat with the same row ids', async () => {
        const a = createEngine();
        const b = createEngine();
        const batches = [
            { seq: 1, times: [BASE + 5n, BASE + 5n, BASE + 1n], fields: [{ x: 1, s: 'a' }, { x: 2.5, s: 'b', n: { deep: 1 } }, { s: 'c' }] },
            { seq: 2, times: [BASE + 5n, BASE + 3n], fields: [{ x: 'str' }, { ok: true, arr: [1, 2] }] },
            { seq: 3, times: [BASE + 2n, BASE + 5n, BASE + 5n], fields: [{ x: 4 }, { x: 5 }, { x: 6 }] },
        ];
        for (const bt of batches) {
            a.ingestBatch('t', { times: bt.times, fields: bt.fields, sysTime: BASE + 100n, batchSeq: bt.seq });
            b.ingestFlat('t', bt.fields.map((f, r) => ({ ...f, _time: bt.times[r], _sysTime: BASE + 100n, _rowId: storeFormatRowId(bt.times[r], bt.seq, r) })));
        }
        expect(rowIds(a, 't')).toEqual(rowIds(b, 't'));
        expect(rowIds(a, 't')).toEqual(expectedOrder(a, 't'));
        expect(a.fields('t')).toEqual(b.fields('t'));
        const range = { startTime: '2024-04-01T00:00:00Z', endTime: '2024-06-01T00:00:00Z' };
        // Page through both with the same cursors.
        let cursor: string | undefined;
        const seen: unknown[] = [];
        for (let page = 0; page < 10; page++) {
            const ra = await a.query("['t'] | project x, s", { ...range, limit: 3, cursor });
            const rb = await b.query("['t'] | project x, s", { ...range, limit: 3, cursor });
            expect(ra.tables).toEqual(rb.tables);
            expect(ra.status.minCursor).toBe(rb.status.minCursor);
            const got = ra.tables[0].columns[0];
            seen.push(...got);
            if (got.length < 3) break;
            cursor = ra.status.minCursor;
        }
        expect(seen).toHaveLength(8);
        const la = await a.queryLegacyFormat("['t']", range);
        const lb = await b.queryLegacyFormat("['t']", range);
        expect(la.matches.map(m => m._rowId)).toEqual(lb.matches.map(m => m._rowId));
        expect(la.matches.map(m => m.data)).toEqual(lb.matches.map(m => m.data));
    });
});

describe('sorted flag', () => {
    const batch = (store: DatasetStore, seq: number, times: bigint[]) => store.ingestBatch({ times, fields: times.map(() => ({})), sysTime: BASE, batchSeq: seq });

    it('stays sorted for batches in time order whose first time is not before the last row', () => {
        const s = new DatasetStore('t');
        batch(s, 1, [BASE, BASE + 1n, BASE + 1n]);
        batch(s, 2, [BASE + 1n, BASE + 7n]);
        batch(s, 3, [BASE + 8n]);
        expect(isSorted(s)).toBe(true);
    });

    it('a batch in time order appended after newer data is not sorted', () => {
        const s = new DatasetStore('t');
        batch(s, 1, [BASE + 10n, BASE + 20n]);
        batch(s, 2, [BASE + 15n, BASE + 30n]);
        expect(isSorted(s)).toBe(false);
    });

    it('ties on _time are ordered by batch id, then row', () => {
        const s = new DatasetStore('t');
        batch(s, 5, [BASE]);
        batch(s, 3, [BASE]); // same time, smaller batch id: out of order
        expect(isSorted(s)).toBe(false);
        const e = createEngine();
        e.ingestBatch('t', { times: [BASE], fields: [{ i: 0 }], sysTime: BASE, batchSeq: 5 });
        e.ingestBatch('t', { times: [BASE, BASE], fields: [{ i: 1 }, { i: 2 }], sysTime: BASE, batchSeq: 3 });
        expect(rowIds(e, 't')).toEqual(expectedOrder(e, 't'));
        expect(rowIds(e, 't')[2]).toBe(storeFormatRowId(BASE, 5, 0));
    });

    it('ingestFlat with row ids in order stays sorted; out of order is found', () => {
        const s = new DatasetStore('t');
        s.ingestFlat([
            { _time: BASE, _rowId: storeFormatRowId(BASE, 1, 0) },
            { _time: BASE, _rowId: storeFormatRowId(BASE, 1, 1) },
            { _time: BASE, _rowId: storeFormatRowId(BASE, 2, 0) },
        ]);
        expect(isSorted(s)).toBe(true);
        s.ingestFlat([{ _time: BASE, _rowId: storeFormatRowId(BASE, 1, 2) }]);
        expect(isSorted(s)).toBe(false);
    });
});

describe('appendColumns', () => {
    const str = (name: string, values: (string | undefined)[]): ColumnChunk => {
        const dict = [...new Set(values.filter((v): v is string => v !== undefined))];
        return { name, kind: 'str', dict, codes: Uint32Array.from(values, v => (v === undefined ? 0 : dict.indexOf(v) + 1)) };
    };
    const f64 = (name: string, values: (number | undefined)[]): ColumnChunk => {
        const present = new Uint8Array((values.length + 7) >> 3);
        values.forEach((v, i) => {
            if (v !== undefined) present[i >> 3] |= 1 << (i & 7);
        });
        return { name, kind: 'f64', values: Float64Array.from(values, v => v ?? 0), present };
    };
    const bool = (name: string, values: (boolean | undefined)[]): ColumnChunk => ({ name, kind: 'bool', values: Uint8Array.from(values, v => (v === undefined ? 2 : v ? 1 : 0)) });
    const json = (name: string, values: unknown[]): ColumnChunk => ({ name, kind: 'json', values: values.map(v => v ?? null) });

    /** The same rows as flat records with row ids. */
    function flat(chunk: { times: bigint[]; batch: number[]; row: number[]; batches: { seq: number; sysTime: bigint }[]; cols: ColumnChunk[] }) {
        const out: Record<string, unknown>[] = [];
        for (let i = 0; i < chunk.times.length; i++) {
            const b = chunk.batches[chunk.batch[i]];
            const rec: Record<string, unknown> = { _time: chunk.times[i], _sysTime: b.sysTime, _rowId: storeFormatRowId(chunk.times[i], b.seq, chunk.row[i]) };
            for (const c of chunk.cols) {
                const v = c.kind === 'f64' ? ((c.present![i >> 3] >> (i & 7)) & 1 ? c.values[i] : undefined) : c.kind === 'bool' ? (c.values[i] === 2 ? undefined : c.values[i] === 1) : c.kind === 'str' ? (c.codes[i] ? c.dict[c.codes[i] - 1] : undefined) : c.values[i] ?? undefined;
                if (v !== undefined) rec[c.name] = v;
            }
            out.push(rec);
        }
        return out;
    }

    it('matches ingestFlat: types, widening, nulls, dictionaries, ids and order', async () => {
        const chunks = [
            {
                times: [BASE + 3n, BASE + 1n, BASE + 2n, BASE + 2n],
                batch: [0, 0, 1, 1],
                row: [0, 1, 0, 1],
                batches: [{ seq: 1, sysTime: BASE + 10n }, { seq: 2, sysTime: BASE + 20n }],
                cols: [str('s', ['a', undefined, 'b', 'a']), f64('n', [1, 2, undefined, 4]), bool('ok', [true, undefined, false, true]), json('j', [[1], null, { a: 1 }, 'x']), f64('late', [undefined, undefined, undefined, undefined])],
            },
            {
                times: [BASE + 5n, BASE + 6n],
                batch: [0, 0],
                row: [0, 1],
                batches: [{ seq: 3, sysTime: BASE + 30n }],
                cols: [str('s', ['c', 'a']), f64('n', [1.5, 7]), f64('s2', [1, 2]), str('late', ['z', undefined]), f64('ok', [1, undefined])],
            },
            {
                times: [BASE + 9n],
                batch: [0],
                row: [0],
                batches: [{ seq: 4, sysTime: BASE + 40n }],
                cols: [f64('s', [3]), str('s2', ['now a string'])],
            },
        ];
        const a = createEngine();
        const b = createEngine();
        for (const c of chunks) {
            a.appendColumns('t', { rows: c.times.length, times: BigInt64Array.from(c.times), batchOf: Uint32Array.from(c.batch), rowInBatch: Uint32Array.from(c.row), batches: c.batches, columns: c.cols });
            b.ingestFlat('t', flat(c));
        }
        expect(a.fields('t')).toEqual(b.fields('t'));
        expect(rowIds(a, 't')).toEqual(rowIds(b, 't'));
        expect(rowIds(a, 't')).toEqual(expectedOrder(a, 't'));
        const range = { startTime: '2024-04-01T00:00:00Z', endTime: '2024-06-01T00:00:00Z' };
        const la = await a.queryLegacyFormat("['t']", range);
        const lb = await b.queryLegacyFormat("['t']", range);
        expect(la.matches).toEqual(lb.matches);
        expect(await rows(a, "['t'] | summarize count() by s | order by tostring(s) asc", range)).toEqual(await rows(b, "['t'] | summarize count() by s | order by tostring(s) asc", range));
    });

    it('select takes some rows only', () => {
        const e = createEngine();
        e.appendColumns('t', {
            rows: 3,
            times: BigInt64Array.from([BASE, BASE + 1n, BASE + 2n]),
            batchOf: Uint32Array.from([0, 0, 0]),
            rowInBatch: Uint32Array.from([0, 1, 2]),
            batches: [{ seq: 9, sysTime: BASE }],
            columns: [str('s', ['a', 'b', 'c']), f64('n', [1, undefined, 3])],
            select: [0, 2],
        });
        expect(rowIds(e, 't')).toEqual([storeFormatRowId(BASE, 9, 0), storeFormatRowId(BASE + 2n, 9, 2)]);
        const snap = e.snapshot('t')!;
        expect([snap.column('s')!.get(0), snap.column('s')!.get(1), snap.column('n')!.get(1)]).toEqual(['a', 'c', 3]);
    });
});

describe('loadDataset', () => {
    it('queries see the old copy until commit, then the new one', async () => {
        const e = createEngine();
        e.ingestBatch('t', { times: [BASE], fields: [{ v: 'old' }], sysTime: BASE, batchSeq: 1 });
        const loader = e.loadDataset('t', { rows: 2 });
        loader.ingestBatch({ times: [BASE, BASE + 1n], fields: [{ v: 'new' }, { v: 'new' }], sysTime: BASE, batchSeq: 2 });
        expect(e.snapshot('t')!.rows).toBe(1);
        loader.commit();
        expect(e.snapshot('t')!.rows).toBe(2);
        expect(() => loader.ingestBatch({ times: [BASE], fields: [{}], sysTime: BASE })).toThrow(/committed/);
    });
});
