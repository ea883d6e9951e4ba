/**
 * The durable keyed collection behind annotations.json and monitors.json: real files in a temp
 * directory, reopened to see what a restart sees.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonCollection } from '../../../server/store/json-collection.js';

interface Item {
    id: string;
    n: number;
}

let dir: string;
const logs: string[] = [];
const open = () => JsonCollection.open<Item>(dir, 'things', { log: (m) => logs.push(m) });

beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'apl-collection-'));
    logs.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('JsonCollection', () => {
    it('put, update, delete: each change is on disk when it resolves (a reopen sees it)', async () => {
        const c = await open();
        await c.put({ id: 'a', n: 1 });
        await c.put({ id: 'b', n: 2 });
        expect((await open()).list()).toEqual([
            { id: 'a', n: 1 },
            { id: 'b', n: 2 },
        ]);
        expect(await c.update('a', (x) => ({ ...x, n: 10 }))).toEqual({ id: 'a', n: 10 });
        expect(await c.delete('b')).toBe(true);
        expect(await c.delete('b')).toBe(false);
        expect((await open()).list()).toEqual([{ id: 'a', n: 10 }]);
        expect(JSON.parse(readFileSync(path.join(dir, 'things.json'), 'utf8'))).toEqual({ v: 1, items: [{ id: 'a', n: 10 }] });
    });

    it('the file is 0600 whatever the umask', async () => {
        const old = process.umask(0);
        try {
            const c = await open();
            await c.put({ id: 'a', n: 1 });
        } finally {
            process.umask(old);
        }
        expect(statSync(path.join(dir, 'things.json')).mode & 0o777).toBe(0o600);
    });

    it('changes run one at a time: an update queued behind a delete finds nothing and re-creates nothing', async () => {
        const c = await open();
        await c.put({ id: 'a', n: 1 });
        const [deleted, updated] = await Promise.all([c.delete('a'), c.update('a', (x) => ({ ...x, n: 2 }))]);
        expect(deleted).toBe(true);
        expect(updated).toBeUndefined();
        expect((await open()).list()).toEqual([]);
    });

    it('a change whose function throws changes nothing', async () => {
        const c = await open();
        await c.put({ id: 'a', n: 1 });
        await expect(
            c.update('a', () => {
                throw new Error('invalid n');
            }),
        ).rejects.toThrow('invalid n');
        expect(c.list()).toEqual([{ id: 'a', n: 1 }]);
        await c.put({ id: 'b', n: 2 }); // the queue still runs
        expect((await open()).list()).toHaveLength(2);
    });

    it('a failed write leaves the records as they were', async () => {
        const c = await open();
        await c.put({ id: 'a', n: 1 });
        rmSync(dir, { recursive: true, force: true }); // the data directory vanished: the write fails
        await expect(c.put({ id: 'b', n: 2 })).rejects.toThrow();
        expect(c.list()).toEqual([{ id: 'a', n: 1 }]);
    });

    it('updateWhere rewrites the matching records in one write', async () => {
        const c = await open();
        for (const id of ['a', 'b', 'c']) await c.put({ id, n: id === 'b' ? 0 : 1 });
        expect(await c.updateWhere((x) => (x.n === 1 ? { ...x, n: 5 } : undefined))).toBe(2);
        expect(await c.updateWhere(() => undefined)).toBe(0);
        expect((await open()).list().map((x) => x.n)).toEqual([5, 0, 5]);
    });

    it('returns copies: changing a returned record changes nothing stored', async () => {
        const c = await open();
        await c.put({ id: 'a', n: 1 });
        c.get('a')!.n = 99;
        c.list()[0].n = 99;
        expect(c.get('a')).toEqual({ id: 'a', n: 1 });
    });

    for (const [what, text] of [
        ['not JSON', '{"v":1,"items":[{"id":"a"'],
        ['the wrong shape', '{"items":{}}'],
        ['an item without an id', '{"v":1,"items":[{"n":1}]}'],
    ] as const) {
        it(`a damaged file (${what}) is moved aside and reported; the collection starts empty`, async () => {
            writeFileSync(path.join(dir, 'things.json'), text);
            const c = await open();
            expect(c.list()).toEqual([]);
            const aside = readdirSync(dir).filter((f) => f.startsWith('things.json.damaged-'));
            expect(aside).toHaveLength(1);
            expect(readFileSync(path.join(dir, aside[0]), 'utf8')).toBe(text);
            expect(logs.join('\n')).toContain(aside[0]);
            await c.put({ id: 'x', n: 1 });
            expect(readFileSync(path.join(dir, aside[0]), 'utf8')).toBe(text);
        });
    }
});
