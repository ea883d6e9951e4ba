/**
 * Blocks encoded from batches that arrived as columns (the live ingest path) take a column-to-column
 * route; they must be byte for byte the blocks that gathering the same events one by one gives, with
 * mixed kinds across batches, absent values and nested values. With a retention filter the columns
 * may come in another order (a batch's columns are ordered by first appearance among all its rows,
 * kept or not), so there the blocks must hold the same rows and values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../language/values.js';
import { toColumns } from '../../../server/ingest/columnar.js';
import type { FlatFields } from '../../../server/ingest/normalize-event.js';
import { decodeBlock, encodeBlock, type BlockInput, type EncodeOptions } from '../../../server/store/block.js';

type Batch = { seq: number; events: FlatFields[] };

function inputs(batches: Batch[], columnar: boolean): BlockInput[] {
    return batches.map(({ seq, events }) => {
        const times = BigInt64Array.from(events, (_, i) => BigInt(seq) * 1_000_000n + BigInt(i));
        const sysTime = BigInt(seq) * 7n;
        return columnar ? { seq, sysTime, times, columns: toColumns(events) } : { seq, sysTime, times, fields: events };
    });
}

/** Rows, times, batches and each column's kind and values, by column name. */
function content(bytes: Buffer) {
    const b = decodeBlock(bytes);
    const columns = Object.fromEntries(b.columns.map(c => [c.name, { kind: c.kind, values: Array.from({ length: b.rows }, (_, i) => c.get(i)) }]));
    return { rows: b.rows, times: [...b.times], batchIdx: [...b.batchIdx], rowIdx: [...b.rowIdx], batchSeqs: b.batchSeqs, columns };
}

async function expectSameContent(batches: Batch[], opts: EncodeOptions): Promise<void> {
    const fromRows = await encodeBlock(inputs(batches, false), opts);
    const fromColumns = await encodeBlock(inputs(batches, true), opts);
    if (fromRows === undefined) {
        expect(fromColumns).toBeUndefined();
        return;
    }
    expect(content(fromColumns!.bytes)).toEqual(content(fromRows.bytes));
}

async function expectSameBlock(batches: Batch[], opts: EncodeOptions): Promise<void> {
    const fromRows = await encodeBlock(inputs(batches, false), opts);
    const fromColumns = await encodeBlock(inputs(batches, true), opts);
    if (fromRows === undefined) {
        expect(fromColumns).toBeUndefined();
        return;
    }
    expect(fromColumns?.header).toEqual(fromRows.header);
    expect(fromColumns?.bytes.equals(fromRows.bytes)).toBe(true);
}

const value: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noNaN: true }),
    fc.constantFrom('GET', 'POST', 'São Paulo', ''),
    fc.string(),
    fc.boolean(),
    fc.constant<JsonValue>([1, 'a']),
    fc.constant<JsonValue>({ nested: true }),
);
const event = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'geo.city', 'status'), value, { maxKeys: 5 }) as fc.Arbitrary<FlatFields>;
const batchList = fc.array(fc.array(event, { minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 5 }).map(list => list.map((events, i) => ({ seq: i + 1, events })));

describe('blocks from columnar batches', () => {
    it('uniform kinds, low and high cardinality strings, compressed', async () => {
        const batch = (seq: number): Batch => ({
            seq,
            events: Array.from({ length: 50 }, (_, i) => ({ method: i % 3 ? 'GET' : 'POST', id: `${seq}-${i}`, ms: i * 1.5, ok: i % 2 === 0 })),
        });
        await expectSameBlock([batch(1), batch(2), batch(3)], { compress: true });
        const block = decodeBlock((await encodeBlock(inputs([batch(1), batch(2)], true), { compress: true }))!.bytes);
        expect(block.columns.map(c => [c.name, c.kind])).toEqual([['method', 'str'], ['id', 'str'], ['ms', 'f64'], ['ok', 'bool']]);
        expect(block.columns[1]!.get(50)).toBe('2-0');
    });

    it('a field that is a number in one batch and a string in another becomes a json column', async () => {
        await expectSameBlock([{ seq: 1, events: [{ status: 200 }, {}] }, { seq: 2, events: [{ status: '404' }] }], { compress: false });
    });

    it('rows and whole batches left out by retention', async () => {
        const keep = (seq: number, t: bigint) => seq !== 2 && t % 2n === 0n;
        await expectSameContent([{ seq: 1, events: [{ a: 'x' }, { b: 1 }, { a: 'y', b: 2 }] }, { seq: 2, events: [{ c: true }] }, { seq: 3, events: [{ b: 'z' }, { a: 'x' }] }], { compress: false, keep });
        expect(await encodeBlock(inputs([{ seq: 2, events: [{ c: true }] }], true), { compress: false, keep })).toBeUndefined();
    });

    it('flat events among columnar batches (a batch prepared without a worker)', async () => {
        const batches: Batch[] = [{ seq: 1, events: [{ a: 'x', n: 1 }] }, { seq: 2, events: [{ n: 2.5, b: true }] }, { seq: 3, events: [{ a: 'y' }] }];
        const mixed = inputs(batches, true).map((b, i) => (i === 1 ? inputs(batches, false)[1]! : b));
        const fromRows = await encodeBlock(inputs(batches, false), { compress: false });
        const fromMixed = await encodeBlock(mixed, { compress: false });
        expect(fromMixed!.bytes.equals(fromRows!.bytes)).toBe(true);
    });

    it('any events (property)', async () => {
        await fc.assert(
            fc.asyncProperty(batchList, async batches => expectSameBlock(batches, { compress: false })),
            { numRuns: 300 },
        );
    });

    it('any events and a retention filter (property)', async () => {
        const keep = (seq: number, t: bigint) => (BigInt(seq) + t) % 3n !== 0n;
        await fc.assert(
            fc.asyncProperty(batchList, async batches => expectSameContent(batches, { compress: false, keep })),
            { numRuns: 300 },
        );
    });
});
