/**
 * The service's engine leaves its numbers for each batch's strings on the batch's columns
 * (`numberStrings`), and compaction merges the WAL tail's batches by those numbers instead of by
 * string. The block must be byte for byte the block merged by string, whatever the batches hold:
 * numbers from one dictionary, from two (a column that changed storage in between), from a range
 * far wider than the block's strings, and batches the engine never numbered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../language/values.js';
import type { FlatFields } from '../../../language/ingest/normalize-event.js';
import { createEngine, type Engine } from '../../../language/eval/engine.js';
import { toColumns, type BatchColumn } from '../../../server/ingest/columnar.js';
import { decodeBlock, encodeBlock, type BlockInput, type EncodeOptions } from '../../../server/store/block.js';

type Batch = { seq: number; events: FlatFields[] };
type ColumnarInput = Extract<BlockInput, { columns: readonly BatchColumn[] }>;

const timeOf = (seq: number, row: number): bigint => BigInt(seq) * 1_000_000n + BigInt(row);

/** Columnar inputs, each appended to `engine` as the service feeds an ingested batch (numbered). */
function fed(engine: Engine, batches: Batch[]): ColumnarInput[] {
    return batches.map(({ seq, events }) => {
        const times = BigInt64Array.from(events, (_, i) => timeOf(seq, i));
        const columns = toColumns(events);
        const n = events.length;
        engine.appendColumns('ds', { rows: n, times, batchOf: new Uint32Array(n), rowInBatch: Uint32Array.from({ length: n }, (_, i) => i), batches: [{ seq, sysTime: 1n }], columns, numberStrings: true });
        return { seq, sysTime: BigInt(seq) * 7n, times, columns };
    });
}

/** The same inputs without the engine's numbers (what a merge by string sees). */
function unnumbered(inputs: ColumnarInput[]): ColumnarInput[] {
    return inputs.map(b => ({ ...b, columns: b.columns.map(c => (c.kind === 'str' ? { name: c.name, kind: 'str' as const, dict: c.dict, codes: c.codes, hashes: c.hashes } : c)) }));
}

async function expectSameBlock(inputs: ColumnarInput[], opts: EncodeOptions): Promise<void> {
    const byNumber = await encodeBlock(inputs, opts);
    const byString = await encodeBlock(unnumbered(inputs), opts);
    expect(byNumber?.bytes.toString('base64')).toBe(byString?.bytes.toString('base64'));
}

const numberedColumns = (inputs: ColumnarInput[]) => inputs.flatMap(b => b.columns.filter(c => c.kind === 'str' && c.numbered !== undefined).map(c => c.name));

describe('compaction merges strings by the engine numbers', () => {
    it('the engine numbers every entry of an ingested batch with its code in the column dictionary', () => {
        const engine = createEngine();
        const [first, second] = fed(engine, [
            { seq: 1, events: [{ method: 'GET', id: 'a' }, { method: 'POST', id: 'b' }, { method: 'GET' }] },
            { seq: 2, events: [{ method: 'PUT', id: 'b' }, { method: 'GET', id: 'c' }] },
        ]);
        for (const batch of [first!, second!]) {
            for (const c of batch.columns) {
                if (c.kind !== 'str') continue;
                expect(c.numbered, c.name).toBeDefined();
                for (let k = 1; k <= c.dict.length; k++) expect(c.numbered!.dict[c.numbered!.codes[k]!]).toBe(c.dict[k - 1]);
            }
        }
        // One dictionary per column: the same string has the same number in both batches.
        const method = (b: ColumnarInput) => b.columns.find(c => c.name === 'method') as Extract<BatchColumn, { kind: 'str' }>;
        expect(method(second!).numbered!.dict).toBe(method(first!).numbered!.dict);
        expect(method(second!).numbered!.codes[method(second!).dict.indexOf('GET') + 1]).toBe(method(first!).numbered!.codes[method(first!).dict.indexOf('GET') + 1]);
    });

    it('low and high cardinality strings over many batches, with and without retention: the same block as by string', async () => {
        const engine = createEngine();
        const batches: Batch[] = Array.from({ length: 20 }, (_, b) => ({
            seq: b + 1,
            events: Array.from({ length: 50 }, (_, i) => ({ method: ['GET', 'POST', 'PUT'][(i + b) % 3]!, id: `id-${(b * 50 + i) % 700}`, ms: i, ...(i % 7 ? { city: `c${i % 5}` } : {}) })),
        }));
        const inputs = fed(engine, batches);
        expect(new Set(numberedColumns(inputs))).toEqual(new Set(['method', 'id', 'city']));
        await expectSameBlock(inputs, { compress: false });
        await expectSameBlock(inputs, { compress: true, keep: (seq, t) => seq % 4 !== 0 && t % 3n !== 0n });
        const block = decodeBlock((await encodeBlock(inputs, { compress: false }))!.bytes);
        expect(block.columns.find(c => c.name === 'id')!.get(50 * 19 + 49)).toBe(`id-${(19 * 50 + 49) % 700}`);
    });

    it('numbers spread over a dictionary far larger than the block (values recurring from long ago)', async () => {
        const engine = createEngine();
        // 20,000 values before the block: its numbers run from 1 to past 20,000 for a few strings.
        fed(engine, [{ seq: 1, events: Array.from({ length: 20_000 }, (_, i) => ({ id: `old-${i}` })) }]);
        const inputs = fed(engine, [
            { seq: 2, events: [{ id: 'old-0' }, { id: 'new-1' }, { id: 'old-19999' }, {}] },
            { seq: 3, events: [{ id: 'new-1' }, { id: 'old-0' }, { id: 'new-2' }, { id: 'old-7' }] },
        ]);
        expect(numberedColumns(inputs)).toEqual(['id', 'id']);
        await expectSameBlock(inputs, { compress: false });
        const block = decodeBlock((await encodeBlock(inputs, { compress: false }))!.bytes);
        expect(Array.from({ length: block.rows }, (_, i) => block.columns[0]!.get(i))).toEqual(['old-0', 'new-1', 'old-19999', undefined, 'new-1', 'old-0', 'new-2', 'old-7']);
    });

    it('numbers from two dictionaries (the dataset reloaded between batches), and batches the engine did not number', async () => {
        const engine = createEngine();
        const inputs = fed(engine, [{ seq: 1, events: [{ a: 'x' }, { a: 'y' }] }, { seq: 2, events: [{ b: 'x' }] }]);
        // The dataset rebuilt from the store: its columns (and their dictionaries) are new.
        inputs.push(...fed(createEngine(), [{ seq: 3, events: [{ a: 'y' }, { a: 'z' }] }]));
        // A number makes the engine's column dynamic: strings after it get no numbers.
        engine.ingest('ds', [{ a: 5 }]);
        inputs.push(...fed(engine, [{ seq: 4, events: [{ a: 'x' }, { a: 'w' }] }]));
        const a = inputs.map(b => b.columns.find(c => c.name === 'a'));
        expect(a.map(c => (c?.kind === 'str' ? c.numbered !== undefined : c))).toEqual([true, undefined, true, false]);
        const [one, , two] = a as Extract<BatchColumn, { kind: 'str' }>[];
        expect(two!.numbered!.dict).not.toBe(one!.numbered!.dict);
        await expectSameBlock(inputs, { compress: false });
        await expectSameBlock(inputs.slice(0, 3), { compress: false });
        const block = decodeBlock((await encodeBlock(inputs, { compress: false }))!.bytes);
        expect(Array.from({ length: block.rows }, (_, i) => block.columns[0]!.get(i))).toEqual(['x', 'y', undefined, 'y', 'z', 'x', 'w']);
    });

    it('an entry a row uses that has no number: merged by string', async () => {
        const engine = createEngine();
        const inputs = fed(engine, [{ seq: 1, events: [{ a: 'x' }, { a: 'y' }] }, { seq: 2, events: [{ a: 'y' }, { a: 'z' }] }]);
        const a = inputs[1]!.columns.find(c => c.name === 'a') as Extract<BatchColumn, { kind: 'str' }>;
        a.numbered = { dict: a.numbered!.dict, codes: Uint32Array.from(a.numbered!.codes, (c, k) => (k === 2 ? 0xffffffff : c)) };
        await expectSameBlock(inputs, { compress: false });
        const block = decodeBlock((await encodeBlock(inputs, { compress: false }))!.bytes);
        expect(Array.from({ length: block.rows }, (_, i) => block.columns[0]!.get(i))).toEqual(['x', 'y', 'y', 'z']);
    });

    it('any events, with and without a retention filter (property)', async () => {
        const value: fc.Arbitrary<JsonValue | undefined> = fc.oneof(fc.constant(undefined), fc.integer({ min: -3, max: 3 }), fc.constantFrom('GET', 'POST', 'São Paulo', ''), fc.string({ maxLength: 3 }), fc.boolean());
        const event = fc.dictionary(fc.constantFrom('a', 'b', 'geo.city'), value, { maxKeys: 3 }) as fc.Arbitrary<FlatFields>;
        const batchList = fc.array(fc.array(event, { maxLength: 10 }), { minLength: 1, maxLength: 6 }).map(list => list.map((events, i) => ({ seq: i + 1, events })));
        const keep = (seq: number, t: bigint) => (BigInt(seq) + t) % 3n !== 0n;
        await fc.assert(
            fc.asyncProperty(batchList, fc.boolean(), async (batches, filter) => expectSameBlock(fed(createEngine(), batches), { compress: false, keep: filter ? keep : undefined })),
            { numRuns: 200 },
        );
    });
});
