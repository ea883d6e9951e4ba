/**
 * The query threads' reader of block files (server/query/cold-reader.ts): it reads only
 * `<datasets>/<dataset name>/blocks/<8 hex>.blk`, answers "gone" for a removed or replaced block,
 * and 423 naming the file for a damaged one.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { coldBlockReader } from '../../../server/query/cold-reader.js';
import { encodeBlock } from '../../../server/store/block.js';
import { HttpError } from '../../../server/http/errors.js';
import { StoreError } from '../../../server/store/errors.js';
import type { ColdBlock } from '../../../language/index.js';

async function setup(): Promise<{ dir: string; block: ColdBlock }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'apl-cold-'));
    mkdirSync(path.join(dir, 'logs', 'blocks'), { recursive: true });
    const times = BigInt64Array.from([1n, 2n, 3n]);
    const enc = await encodeBlock([{ seq: 1, sysTime: 5n, times, fields: [{ a: 1 }, { a: 2.5 }, { b: 'x' }] }], { compress: true });
    writeFileSync(path.join(dir, 'logs', 'blocks', '00000001.blk'), enc!.bytes);
    return { dir, block: { id: '00000001.blk', rows: 3, minTime: 1n, maxTime: 3n, fields: [] } };
}

describe('cold block reader', () => {
    it('reads a block as columns', async () => {
        const { dir, block } = await setup();
        const chunk = coldBlockReader(dir).read('logs', block)!;
        expect(chunk.rows).toBe(3);
        expect([...chunk.times]).toEqual([1n, 2n, 3n]);
        expect(chunk.columns.map((c) => c.name)).toEqual(['a', 'b']);
    });

    it('a removed block, or another block of that name, is gone', async () => {
        const { dir, block } = await setup();
        expect(coldBlockReader(dir).read('logs', { ...block, id: '00000002.blk' })).toBeUndefined();
        expect(coldBlockReader(dir).read('logs', { ...block, rows: 4 })).toBeUndefined();
    });

    it('a damaged block is 423, naming the file', async () => {
        const { dir, block } = await setup();
        writeFileSync(path.join(dir, 'logs', 'blocks', '00000003.blk'), 'APLBLK01 not really');
        let err: unknown;
        try {
            coldBlockReader(dir).read('logs', { ...block, id: '00000003.blk' });
        } catch (e) {
            err = e;
        }
        expect(err).toBeInstanceOf(HttpError);
        expect((err as HttpError).status).toBe(423);
        expect((err as HttpError).message).toContain('blocks/00000003.blk');
    });

    it('checks a file once, and again once it changed', async () => {
        const { dir, block } = await setup();
        const reader = coldBlockReader(dir);
        expect(reader.read('logs', block)!.rows).toBe(3);
        expect(reader.read('logs', block)!.rows).toBe(3);
        // Flip a byte of the data in place: a new change time, so it is checked again.
        const file = path.join(dir, 'logs', 'blocks', '00000001.blk');
        const bytes = readFileSync(file);
        bytes[bytes.length - 10] ^= 0xff;
        writeFileSync(file, bytes);
        expect(() => reader.read('logs', block)).toThrow(HttpError);
    });

    it('reads a checked file again by its sections: the times when they are first read, and 409 naming the block when it was removed by then', async () => {
        const { dir, block } = await setup();
        const reader = coldBlockReader(dir);
        expect([...reader.read('logs', block)!.times]).toEqual([1n, 2n, 3n]);
        // Checked: read by its sections; the times are read when they are.
        const again = reader.read('logs', block)!;
        expect(again.columns.map((c) => c.name)).toEqual(['a', 'b']);
        expect([...again.times]).toEqual([1n, 2n, 3n]);
        const third = reader.read('logs', block, (name) => name === 'a')!;
        expect(third.columns.map((c) => c.name)).toEqual(['a']);
        rmSync(path.join(dir, 'logs', 'blocks', '00000001.blk'));
        let err: unknown;
        try {
            void third.times;
        } catch (e) {
            err = e;
        }
        expect(err).toBeInstanceOf(HttpError);
        expect((err as HttpError).status).toBe(409);
        expect((err as HttpError).message).toContain('blocks/00000001.blk');
    });

    it("reads a field's value rows from their section; a removed or replaced block has none, a damaged one is 423", async () => {
        const { dir } = await setup();
        const n = 500;
        const times = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
        const fields = Array.from({ length: n }, (_, i) => ({ uri: `/p${i % 100}`, status: 'ok' }));
        const enc = await encodeBlock([{ seq: 1, sysTime: 5n, times, fields }], { compress: true });
        const file = path.join(dir, 'logs', 'blocks', '00000002.blk');
        writeFileSync(file, enc!.bytes);
        const block: ColdBlock = { id: '00000002.blk', rows: n, minTime: 0n, maxTime: BigInt(n - 1), fields: [], valueRows: ['uri'] };
        const reader = coldBlockReader(dir);
        const got = reader.valueRows!('logs', block, 'uri')!;
        expect(got.values.length).toBe(100);
        expect([...got.rows]).toEqual(new Array(100).fill(5));
        // status has one value: its rows are in the header (counts), not in a section.
        expect(reader.valueRows!('logs', block, 'status')).toBeUndefined();
        expect(reader.valueRows!('logs', { ...block, rows: n + 1 }, 'uri')).toBeUndefined();
        expect(reader.valueRows!('logs', { ...block, id: '00000009.blk' }, 'uri')).toBeUndefined();
        writeFileSync(path.join(dir, 'logs', 'blocks', '00000003.blk'), 'APLBLK01 not really');
        expect(() => reader.valueRows!('logs', { ...block, id: '00000003.blk' }, 'uri')).toThrow(expect.objectContaining({ status: 423 }));
        expect(() => reader.valueRows!('../..', block, 'uri')).toThrow();
    });

    for (const [dataset, id] of [
        ['..', '00000001.blk'],
        ['logs/../..', '00000001.blk'],
        ['logs', '../../etc/passwd'],
        ['logs', '00000001.blk/..'],
    ]) {
        it(`reads nothing for ${JSON.stringify(dataset)} / ${JSON.stringify(id)}`, async () => {
            const { dir, block } = await setup();
            expect(() => coldBlockReader(dir).read(dataset, { ...block, id })).toThrow(dataset === 'logs' ? /not a block file name/ : StoreError);
        });
    }
});
