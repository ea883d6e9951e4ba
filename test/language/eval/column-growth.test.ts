/**
 * Columns that grow past the in-place size (language/eval/column-buffers.ts): rows a snapshot or a
 * replica already reads never change, and answers match a store that never grew in place.
 */
import { describe, expect, it } from 'vitest';
import { throughPort } from './helpers.js';
import { allocColumn, growColumn } from '../../../language/eval/column-buffers.js';
import { createEngine, type Engine } from '../../../language/eval/engine.js';
import { newSyncState } from '../../../language/eval/replica.js';

const BASE = 1_714_521_600_000_000_000n; // 2024-05-01T00:00:00Z in ns
/** 6 × 50k rows: the 8-byte columns pass 1 MiB at 200k rows and grow in place at 400k. */
const BATCH = 50_000;
const BATCHES = 6;

/** Rows [from, from + n) of a dataset with one column of each stored kind. */
function batch(from: number, n: number) {
    const times = new BigInt64Array(n);
    const fields: Record<string, unknown>[] = [];
    for (let k = 0; k < n; k++) {
        const i = from + k;
        times[k] = BASE + BigInt(i) * 1_000_123n;
        // Dictionary values built by concatenation (cons strings in V8), some repeated.
        fields.push({ s: 'value-' + String(i % 5000) + '-' + 'x'.repeat(i % 3), n: i % 7 === 0 ? null : i * 0.5, l: i, b: i % 3 === 0, t: i % 11 === 0 ? undefined : 'k' + String(i % 4) });
    }
    return { times, fields, sysTime: BASE, batchSeq: from + 1 };
}

const QUERIES = [
    "['d'] | count",
    "['d'] | summarize c = count(), sn = sum(n), sl = sum(l), tb = countif(b), ds = dcount(s) by t | order by t asc",
    "['d'] | where s == 'value-4321-' or s == 'value-17-xx' | project _time, s, n, l, b, t | order by _time asc",
    "['d'] | summarize count() by bin(_time, 1m) | order by _time asc | take 5",
    "['d'] | order by _time desc | take 3",
];

async function answers(engine: Engine): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const apl of QUERIES) {
        const t = (await engine.query(apl)).tables[0];
        out.push({ fields: t.fields, columns: t.columns });
    }
    return out;
}

describe('growColumn', () => {
    it('grows a big column in place: same memory, earlier views and values unchanged', () => {
        const a = allocColumn(Float64Array, 1 << 18, false); // 2 MiB
        a[5] = 1.5;
        const view = a.subarray(0, 10);
        const b = growColumn(Float64Array, a, 10, 1 << 20, false);
        expect(b.buffer).toBe(a.buffer);
        expect(b.length).toBe(1 << 20);
        expect(b[5]).toBe(1.5);
        b[9] = 2;
        b[(1 << 20) - 1] = 3;
        expect(view.length).toBe(10);
        expect(view[9]).toBe(2);
    });

    it('grows a big column to 128× its first size on the same buffer: no copy, whose old and new buffers would both be resident', () => {
        const a = allocColumn(Float64Array, 1 << 17, true); // 1 MiB: the first growable size
        let b = a;
        for (let n = 1 << 18; n <= 1 << 24; n *= 2) b = growColumn(Float64Array, b, n / 2, n, true); // to 128 MiB
        expect(b.buffer).toBe(a.buffer);
        expect(b.length).toBe(1 << 24);
    });

    it('replaces a small column by a copy on a new buffer', () => {
        const a = allocColumn(Uint32Array, 16, true);
        a.set([1, 2, 3]);
        const b = growColumn(Uint32Array, a, 3, 64, true);
        expect(b.buffer).not.toBe(a.buffer);
        expect(b.buffer).toBeInstanceOf(SharedArrayBuffer);
        expect([...b.subarray(0, 4)]).toEqual([1, 2, 3, 0]);
    });
});

describe('a store whose columns grow in place', () => {
    for (const shared of [false, true]) {
        it(`keeps earlier snapshots exact and answers as expected (shared memory: ${shared})`, async () => {
            const engine = createEngine({ sharedMemory: shared });
            engine.ingestBatch('d', batch(0, BATCH));
            const early = engine.snapshot('d')!;
            const earlyValues = (name: string) => Array.from({ length: early.rows }, (_, i) => early.column(name)!.get(i));
            const before = { l: earlyValues('l'), s: earlyValues('s'), n: earlyValues('n'), b: earlyValues('b'), t: earlyValues('t') };
            for (let k = 1; k < BATCHES; k++) engine.ingestBatch('d', batch(k * BATCH, BATCH));
            expect(early.rows).toBe(BATCH);
            expect({ l: earlyValues('l'), s: earlyValues('s'), n: earlyValues('n'), b: earlyValues('b'), t: earlyValues('t') }).toEqual(before);

            const all = engine.snapshot('d')!;
            expect(all.rows).toBe(BATCH * BATCHES);
            // The case under test: the columns did move to growable memory.
            expect((all.time.ms.buffer as { growable?: boolean }).growable).toBe(true);
            const last = BATCH * BATCHES - 1;
            expect(all.column('l')!.get(last)).toBe(last);
            expect(all.column('n')!.get(last)).toBe(last % 7 === 0 ? null : last * 0.5);
            expect(all.column('s')!.get(last)).toBe('value-' + String(last % 5000) + '-' + 'x'.repeat(last % 3));
            expect(all.time.ns(last)).toBe(BASE + BigInt(last) * 1_000_123n);
            expect(await engine.query("['d'] | summarize sum(l), countif(isnull(n)), countif(b)").then(r => r.tables[0].columns.map(c => c[0]))).toEqual([
                (last * (last + 1)) / 2,
                Math.floor(last / 7) + 1,
                Math.floor(last / 3) + 1,
            ]);
        });
    }

    it("a dataset's memory grows with its rows, not with the room its columns made for more", () => {
        const engine = createEngine({ sharedMemory: true });
        const sizes: number[] = [];
        for (let k = 0; k < BATCHES; k++) {
            engine.ingestBatch('d', batch(k * BATCH, BATCH));
            sizes.push(engine.memoryBytes('d'));
        }
        // The dictionary of \`s\` is full after the first batch: each later batch adds the same bytes,
        // across the doublings at 65,536, 131,072 and 262,144 rows.
        const steps = sizes.slice(2).map((x, i) => x - sizes[i + 1]);
        for (const step of steps) expect(step).toBe(steps[0]);
    });

    it('a replica fed deltas through a message port answers like its source after every growth', async () => {
        const source = createEngine({ sharedMemory: true });
        const replica = createEngine({ sampleSchemas: false });
        const sync = newSyncState();
        for (let k = 0; k < BATCHES; k++) {
            source.ingestBatch('d', batch(k * BATCH, BATCH));
            replica.applyChanges(throughPort(source.exportChanges(sync)));
            expect(await answers(replica)).toEqual(await answers(source));
        }
    });
});

describe('sub-millisecond parts', () => {
    it('read back exactly when zero parts are not written: after non-zero ones, and after a batch that failed midway', () => {
        const engine = createEngine();
        engine.ingestBatch('z', { times: [BASE + 5n, BASE + 1_000_000n], fields: [{ i: 0 }, { i: 1 }], sysTime: BASE + 7n });
        engine.ingestBatch('z', { times: new BigInt64Array([BASE, BASE + 2_000_000n]), fields: [{ i: 2 }, { i: 3 }], sysTime: BASE });
        // A time that is not a bigint throws after the first row's parts are written; the row is not kept.
        expect(() => engine.ingestBatch('z', { times: [BASE + 3n, 'x' as unknown as bigint], fields: [{ i: -1 }, { i: -2 }], sysTime: BASE + 9n })).toThrow();
        engine.ingestBatch('z', { times: new BigInt64Array([BASE + 4_000_000n, BASE + 4_000_001n]), fields: [{ i: 4 }, { i: 5 }], sysTime: BASE });
        const snap = engine.snapshot('z')!;
        expect(snap.rows).toBe(6);
        expect(Array.from({ length: 6 }, (_, r) => snap.time.ns(r) - BASE)).toEqual([5n, 1_000_000n, 0n, 2_000_000n, 4_000_000n, 4_000_001n]);
        expect(Array.from({ length: 6 }, (_, r) => snap.sysTime.ns(r) - BASE)).toEqual([7n, 7n, 0n, 0n, 0n, 0n]);
    });
});
