import { existsSync, promises as fsp, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDatetime } from '../../../language/values.js';
import { writeFaults } from '../../../server/store/fsutil.js';
import { crc32 } from 'node:zlib';
import { frame, scanSegment } from '../../../server/store/wal.js';
import { encodeWalPayload } from '../../../server/store/wal-record.js';
import { parseCursor } from '../../../language/api/row-id.js';
import { openStore, StoreError, type Store, type StoreOptions } from '../../../server/store/store.js';
import { prepareColumns } from '../../../server/ingest/ndjson-columns.js';
import { decodeIngestRequest } from '../../../server/ingest/ingest.js';
import { ndjson, tempDir } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
});

async function fresh(opts: StoreOptions = {}): Promise<{ store: Store; dir: string; reopen: (o?: StoreOptions) => Promise<Store> }> {
    const t = tempDir();
    let store = await openStore(t.dir, { log: () => undefined, compactInWorker: false, ...opts });
    cleanups.push(t.cleanup, () => store.close());
    return {
        store,
        dir: t.dir,
        reopen: async (o?: StoreOptions) => {
            await store.close();
            store = await openStore(t.dir, { log: () => undefined, compactInWorker: false, ...opts, ...o });
            return store;
        },
    };
}

const T0 = Date.UTC(2024, 7, 14, 22, 26, 25);
const ev = (i: number, extra: object = {}): object => ({ _time: new Date(T0 + i * 1000).toISOString(), i, s: `v${i % 3}`, ...extra });

async function ingestN(store: Store, name: string, from: number, n: number, extra: object = {}) {
    return store.ingest(name, { body: ndjson(Array.from({ length: n }, (_, k) => ev(from + k, extra))), contentType: 'application/x-ndjson' });
}

describe('datasets', () => {
    it('create/get/list/update with validation and typed errors', async () => {
        const { store, dir, reopen } = await fresh();
        const meta = await store.createDataset({ name: 'my-ds', description: 'd' });
        expect(meta).toMatchObject({ name: 'my-ds', kind: 'axiom:events:v1', description: 'd', retentionDays: 0, useRetentionPeriod: false });
        expect(meta.created).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
        await expect(store.createDataset({ name: 'my-ds' })).rejects.toMatchObject({ code: 'exists', status: 409 });
        for (const bad of ['', 'a_b', 'a.b', 'a/b', '..', 'a b', 'x'.repeat(129), 'é']) {
            await expect(store.createDataset({ name: bad })).rejects.toMatchObject({ code: 'invalid_name', status: 400 });
        }
        await store.createDataset({ name: 'a'.repeat(128) });
        expect(() => store.getDataset('nope')).toThrow(StoreError);
        expect(() => store.getDataset('nope')).toThrow(/not found/);
        const up = await store.updateDataset('my-ds', { description: 'e', retentionDays: 0, useRetentionPeriod: true });
        expect(up).toMatchObject({ description: 'e', useRetentionPeriod: false });
        const s2 = await reopen();
        expect(s2.listDatasets().map((d) => d.name)).toEqual(['a'.repeat(128), 'my-ds']);
        expect(s2.getDataset('my-ds').description).toBe('e');
        expect(existsSync(path.join(dir, 'datasets', 'my-ds', 'meta.json'))).toBe(true);
    });

    it('ingest into a missing dataset is a 404 StoreError', async () => {
        const { store } = await fresh();
        await expect(store.ingest('missing', { body: Buffer.from('{}'), contentType: 'application/json' })).rejects.toMatchObject({ status: 404 });
    });

    it('delete removes every file of the dataset', async () => {
        const { store, dir } = await fresh({ compactEvents: 10 });
        await store.createDataset({ name: 'gone' });
        await ingestN(store, 'gone', 0, 25);
        await store.compact('gone');
        expect(readdirSync(path.join(dir, 'datasets', 'gone', 'blocks')).length).toBeGreaterThan(0);
        await store.deleteDataset('gone');
        expect(readdirSync(path.join(dir, 'datasets'))).toEqual([]);
        expect(store.hasDataset('gone')).toBe(false);
        await expect(store.scan('gone')).rejects.toMatchObject({ status: 404 });
        // re-creating starts empty
        await store.createDataset({ name: 'gone' });
        expect(await store.scan('gone')).toEqual([]);
    });
});

describe('dataset names and their directories', () => {
    /** Directory names as a case-insensitive file system and Windows see them. */
    const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

    it('big, BIG, Big, CON, con, nul, COM1 and lpt9 get directories that cannot collide or be reserved, and read back after a reopen', async () => {
        const { store, dir, reopen } = await fresh();
        const names = ['big', 'BIG', 'Big', 'CON', 'con', 'nul', 'COM1', 'lpt9', 'a-B-c'];
        for (const [i, name] of names.entries()) {
            await store.createDataset({ name });
            await ingestN(store, name, 0, i + 1);
        }
        const dirs = readdirSync(path.join(dir, 'datasets'));
        expect(dirs).toHaveLength(names.length);
        expect(new Set(dirs.map((d) => d.toLowerCase())).size).toBe(names.length);
        expect(dirs.filter((d) => WINDOWS_RESERVED.test(d))).toEqual([]);
        expect(dirs).toContain('big'); // names that were safe before keep their directory
        const s2 = await reopen();
        expect(s2.listDatasets().map((d) => d.name).sort()).toEqual([...names].sort());
        for (const [i, name] of names.entries()) expect((await s2.scan(name)).length, name).toBe(i + 1);
        await s2.deleteDataset('BIG');
        expect((await s2.scan('big')).length).toBe(1);
    });

    it('a directory the previous version named after the dataset (BIG, CON) is moved to its new name on open', async () => {
        const { store, dir, reopen } = await fresh();
        for (const name of ['BIG', 'CON', 'keep']) {
            await store.createDataset({ name });
            await ingestN(store, name, 0, 3);
        }
        await store.close();
        const root = path.join(dir, 'datasets');
        for (const d of readdirSync(root)) {
            const meta = JSON.parse(readFileSync(path.join(root, d, 'meta.json'), 'utf8')) as { name: string };
            if (meta.name !== d) await fsp.rename(path.join(root, d), path.join(root, meta.name)); // the old layout
        }
        expect(readdirSync(root).sort()).toEqual(['BIG', 'CON', 'keep']);
        const s2 = await reopen();
        expect(s2.listDatasets().map((d) => d.name).sort()).toEqual(['BIG', 'CON', 'keep']);
        for (const name of ['BIG', 'CON', 'keep']) expect((await s2.scan(name)).length, name).toBe(3);
        expect(readdirSync(root).filter((d) => d === 'BIG' || d === 'CON')).toEqual([]);
    });
});

describe('append and read back', () => {
    it('a batch an ingest worker prepared as columns (the byte scanner) reads back as the same events as one prepared flat, before and after a restart', async () => {
        const { store, reopen } = await fresh({ compactEvents: 1_000_000 });
        const body = ndjson([ev(0, { geo: { city: 'Oslo' } }), ev(1, { n: null, tags: ['a', 1] }), ev(2, { ok: true, s: 7 })]);
        const req = { body, contentType: 'application/x-ndjson' };
        for (const name of ['flat', 'columns']) await store.createDataset({ name });
        await store.ingest('flat', req);
        const { params, body: decoded } = await decodeIngestRequest(req, {});
        const columnar = prepareColumns(decoded, params);
        await store.append('columns', { params, body: decoded, columnar, count: columnar.times.length, failures: columnar.failures, minTime: columnar.minTime, maxTime: columnar.maxTime, processedBytes: decoded.length });
        const events = async (s: Store, name: string) => (await s.scan(name)).map(e => ({ _time: e._time, fields: e.fields }));
        const want = await events(store, 'flat');
        expect(want.map(e => Object.keys(e.fields))).toEqual([['i', 's', 'geo.city'], ['i', 's', 'tags'], ['i', 's', 'ok']]);
        expect(await events(store, 'columns')).toEqual(want);
        const again = await reopen();
        expect(await events(again, 'columns')).toEqual(want);
    });

    it('returns ingested events with _rowId, _sysTime and flat fields; survives reopen', async () => {
        const { store, reopen } = await fresh();
        await store.createDataset({ name: 'ds' });
        const st = await store.ingest('ds', {
            body: Buffer.from('{"_time":"2024-08-14T22:26:25Z","geo":{"city":"B"}}\n{"bad\n{"x":1}'),
            contentType: 'application/x-ndjson',
            eventLabels: '{"region":"eu"}',
        });
        expect(st).toMatchObject({ ingested: 2, failed: 1, blocksCreated: 0 });
        expect(st.failures[0].error).toMatch(/line 2/);
        const rows = await store.scan('ds');
        expect(rows.map((r) => r.fields)).toEqual([
            { 'geo.city': 'B', region: 'eu' },
            { x: 1, region: 'eu' },
        ]);
        expect(formatDatetime(rows[0]._time)).toBe('2024-08-14T22:26:25Z');
        expect(rows[0]._rowId).toMatch(/^0d3fzkox77jls-[0-9a-f]{16}-00000000$/); // API.md §10.1 example
        expect(rows[0]._sysTime).toBe(rows[1]._sysTime);
        const s2 = await reopen();
        expect(await s2.scan('ds')).toEqual(rows);
    });

    it('row ids sort in (_time, batch, row) order and batch ids increase across restarts', async () => {
        const { store, reopen } = await fresh({ compactEvents: 7 });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 5);
        await ingestN(store, 'ds', 0, 5); // same times, later batch
        let s = await reopen();
        await ingestN(s, 'ds', 3, 5);
        s = await reopen();
        await ingestN(s, 'ds', 0, 2);
        const rows = await s.scan('ds');
        expect(rows.length).toBe(17);
        const ids = rows.map((r) => r._rowId);
        expect(new Set(ids).size).toBe(17);
        const bySort = [...rows].sort((a, b) => (a._rowId < b._rowId ? -1 : 1));
        for (let i = 1; i < bySort.length; i++) {
            const a = parseCursor(bySort[i - 1]._rowId)!;
            const b = parseCursor(bySort[i]._rowId)!;
            expect(a.ns <= b.ns).toBe(true);
            if (a.ns === b.ns) expect(a.batch < b.batch || (a.batch === b.batch && a.seq < b.seq)).toBe(true);
            expect(bySort[i - 1]._time <= bySort[i]._time).toBe(true);
        }
        const batches = rows.map((r) => parseInt(parseCursor(r._rowId)!.batch, 16));
        expect(Math.max(...batches)).toBe(4);
        expect([...new Set(batches)].sort()).toEqual([1, 2, 3, 4]);
    });

    it('group commit: concurrent appends all land, exactly once', async () => {
        const { store, reopen } = await fresh();
        await store.createDataset({ name: 'ds' });
        const res = await Promise.all(Array.from({ length: 40 }, (_, b) => ingestN(store, 'ds', b * 10, 10)));
        expect(res.every((r) => r.ingested === 10)).toBe(true);
        expect(new Set(res.map((r) => r.batchId)).size).toBe(40);
        const s2 = await reopen();
        const is = (await s2.scan('ds')).map((r) => r.fields.i as number).sort((a, b) => a - b);
        expect(is).toEqual(Array.from({ length: 400 }, (_, i) => i));
    });
});

describe('compaction', () => {
    for (const compactInWorker of [false, true]) {
        it(`writes blocks, truncates the WAL and keeps every event exactly once (worker: ${compactInWorker})`, async () => {
            const { store, dir, reopen } = await fresh({ compactEvents: 50, compactInWorker });
            await store.createDataset({ name: 'ds' });
            const mixed = (i: number): object => ({ n: i % 2 ? i : `s${i}`, b: i % 2 === 0, arr: [i], f: i / 3, maybe: i % 5 ? undefined : 'x' });
            for (let b = 0; b < 6; b++) {
                await store.ingest('ds', { body: ndjson(Array.from({ length: 20 }, (_, k) => ev(b * 20 + k, mixed(b * 20 + k)))), contentType: 'application/x-ndjson' });
            }
            const before = await store.scan('ds');
            await store.compact('ds');
            const stats = await store.stats('ds');
            expect(stats.blocks).toBeGreaterThanOrEqual(1);
            expect(stats.walLength).toBe(0);
            expect(stats.events).toBe(120);
            expect(stats.minTime).toBe(BigInt(T0) * 1_000_000n);
            expect(stats.maxTime).toBe(BigInt(T0 + 119_000) * 1_000_000n);
            expect(stats.bytesOnDisk).toBeGreaterThan(0);
            const walFiles = readdirSync(path.join(dir, 'datasets', 'ds', 'wal'));
            expect(walFiles.length).toBe(1);
            expect(statSync(path.join(dir, 'datasets', 'ds', 'wal', walFiles[0])).size).toBe(0);
            const after = await store.scan('ds');
            const key = (r: { _rowId: string }) => r._rowId;
            expect([...after].sort((a, b) => (key(a) < key(b) ? -1 : 1))).toEqual([...before].sort((a, b) => (key(a) < key(b) ? -1 : 1)));
            const s2 = await reopen();
            expect((await s2.scan('ds')).length).toBe(120);
        });
    }

    it('a snapshot is not affected by later ingest or compaction', async () => {
        const { store } = await fresh({ compactEvents: 1_000_000, compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 30);
        const snap = await store.snapshot('ds');
        await ingestN(store, 'ds', 30, 30);
        await store.compact('ds');
        await ingestN(store, 'ds', 60, 5);
        expect((await snap.toArray()).length).toBe(30);
        await snap.release();
        expect((await store.scan('ds')).length).toBe(65);
    });

    it('an orphan block (crash before the manifest write) is removed on open, events come from the WAL once', async () => {
        const { store, dir, reopen } = await fresh({ compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 10);
        await store.compact('ds');
        await ingestN(store, 'ds', 10, 10);
        const blocks = path.join(dir, 'datasets', 'ds', 'blocks');
        const [blk] = readdirSync(blocks);
        await fsp.copyFile(path.join(blocks, blk), path.join(blocks, '000000ff.blk'));
        const s2 = await reopen();
        expect(readdirSync(blocks)).toEqual([blk]);
        expect((await s2.scan('ds')).map((r) => r.fields.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });
});

describe('recovery', () => {
    it('drops a torn final append; quarantines a damaged last record instead of cutting it off', async () => {
        const { store, dir, reopen } = await fresh({ compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 3);
        await ingestN(store, 'ds', 3, 3);
        const walDir = path.join(dir, 'datasets', 'ds', 'wal');
        const [seg] = readdirSync(walDir);
        const file = path.join(walDir, seg);
        const good = statSync(file).size;
        // 1) torn: half a record appended
        const data = await fsp.readFile(file);
        await fsp.appendFile(file, data.subarray(0, Math.floor(data.length / 3)));
        let s = await reopen();
        expect((await s.scan('ds')).length).toBe(6);
        expect(statSync(file).size).toBe(good);
        // 2) last record's payload corrupted (CRC mismatch, intact frame header): that batch is
        // kept aside in quarantine/ and reported, the segment is left as it is
        await ingestN(s, 'ds', 6, 3);
        await s.close();
        const d2 = await fsp.readFile(file);
        d2[d2.length - 5] ^= 0xff;
        await fsp.writeFile(file, d2);
        s = await reopen();
        expect((await s.scan('ds')).map((r) => r.fields.i)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(statSync(file).size).toBe(d2.length);
        const health = await s.health('ds');
        expect(health.status).toBe('degraded');
        expect(health.quarantined).toEqual([{ file: `quarantine/${seg}.${good}.bad`, bytes: d2.length - good }]);
        // 3) an absurd length field
        await s.close();
        const lenJunk = Buffer.alloc(8);
        lenJunk.writeUInt32LE(0xfffffff0, 0);
        await fsp.appendFile(file, lenJunk);
        s = await reopen();
        expect((await s.scan('ds')).length).toBe(6);
        await ingestN(s, 'ds', 100, 1);
        s = await reopen();
        expect((await s.scan('ds')).length).toBe(7);
    });
});

describe('a data directory written by the previous version', () => {
    it('opens: v1 WAL segments are replayed, metadata without checksums is read; new records go to a v2 segment', async () => {
        const { store, dir, reopen } = await fresh({ compactEvents: 12 });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 8);
        await store.compact('ds'); // a block and a manifest
        await ingestN(store, 'ds', 8, 3);
        await ingestN(store, 'ds', 11, 3);
        const { token } = await store.tokens.createToken('old');
        await store.close();
        // Rewrite what this version wrote the way the previous one did.
        const walDir = path.join(dir, 'datasets', 'ds', 'wal');
        const [seg] = readdirSync(walDir);
        const scan = await scanSegment(path.join(walDir, seg));
        const v1 = scan.records.map((r) => {
            const h = Buffer.alloc(8);
            h.writeUInt32LE(r.payload.length, 0);
            h.writeUInt32LE(crc32(r.payload) >>> 0, 4);
            return Buffer.concat([h, r.payload]);
        });
        writeFileSync(path.join(walDir, seg), Buffer.concat(v1));
        for (const f of ['tokens.json', 'datasets/ds/meta.json', 'datasets/ds/manifest.json']) {
            const { crc32: _dropped, ...rest } = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
            writeFileSync(path.join(dir, f), JSON.stringify(rest));
        }
        writeFileSync(path.join(dir, 'LOCK'), '999999\n');
        expect((await scanSegment(path.join(walDir, seg))).format).toBe(1);
        const s = await reopen();
        expect((await s.scan('ds')).map((r) => r.fields.i)).toEqual(Array.from({ length: 14 }, (_, i) => i));
        expect(s.tokens.verify(token)?.name).toBe('old');
        expect((await s.health('ds')).status).toBe('ok');
        await ingestN(s, 'ds', 14, 2);
        const segs = readdirSync(walDir).sort();
        expect(segs.length).toBe(2);
        expect((await scanSegment(path.join(walDir, segs[1]))).format).toBe(2);
        const s2 = await reopen();
        expect((await s2.scan('ds')).map((r) => r.fields.i)).toEqual(Array.from({ length: 16 }, (_, i) => i));
        await s2.compact('ds');
        expect(readdirSync(walDir).length).toBe(1);
    });
});

describe('a WAL record that no longer rebuilds', () => {
    it('is reported and skipped by reads and by compaction alike; the dataset keeps working', async () => {
        const { store, dir, reopen } = await fresh({ compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 3);
        await ingestN(store, 'ds', 3, 3);
        await store.close();
        // A checksummed record whose parameters the ingest path would refuse today (labels that are not JSON).
        const body = ndjson([{ poisoned: true }]);
        const rec = frame(3, encodeWalPayload(3, { params: { format: 'ndjson', labels: '{not json', receiveTimeNs: 1n }, body, count: 1, failures: [], minTime: 0n, maxTime: 0n, processedBytes: body.length }));
        const walDir = path.join(dir, 'datasets', 'ds', 'wal');
        await fsp.appendFile(path.join(walDir, readdirSync(walDir)[0]), Buffer.concat(rec));
        const s = await reopen();
        expect((await s.scan('ds')).map((r) => r.fields.i)).toEqual([0, 1, 2, 3, 4, 5]);
        expect((await s.health('ds')).problems.join('\n')).toMatch(/record seq 3 could not be rebuilt .*X-Axiom-Event-Labels.*not served/);
        await s.compact('ds');
        expect(await s.stats('ds')).toMatchObject({ walLength: 0, blocks: 1, events: 6 });
        await ingestN(s, 'ds', 6, 1);
        const s2 = await reopen();
        expect((await s2.scan('ds')).map((r) => r.fields.i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    });
});

describe('recovery after a crash between rotation and manifest write', () => {
    it('replays the old segment and can compact again (the empty active segment has nextSeq as its name)', async () => {
        const { store, dir, reopen } = await fresh({ compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 10);
        const walDir = path.join(dir, 'datasets', 'ds', 'wal');
        await store.close();
        // simulate: rotation created the next segment, then the process died
        await fsp.writeFile(path.join(walDir, (2).toString(16).padStart(16, '0') + '.wal'), '');
        const s = await reopen();
        expect((await s.scan('ds')).length).toBe(10);
        await s.compact('ds');
        await ingestN(s, 'ds', 10, 5);
        const s2 = await reopen();
        expect((await s2.scan('ds')).map((r) => r.fields.i)).toEqual(Array.from({ length: 15 }, (_, i) => i));
        expect((await s2.stats('ds')).blocks).toBe(1);
    });
});

describe('block files the manifest does not list (FORMAT.md, "Orphan blocks")', () => {
    const blocksOf = (dir: string): string => path.join(dir, 'datasets', 'ds', 'blocks');

    it('a compaction that wrote its block but not the manifest is committed on open (adopted), not deleted', async () => {
        const { store, dir, reopen } = await fresh({ compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 12);
        let saved: Buffer | undefined;
        let name = '';
        // The "crash": the manifest write fails; keep the block the compaction had written.
        writeFaults.inject = (file) => {
            if (!file.endsWith('manifest.json')) return undefined;
            name = readdirSync(blocksOf(dir))[0];
            saved = readFileSync(path.join(blocksOf(dir), name));
            return Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        };
        try {
            await expect(store.compact('ds')).rejects.toThrow(/EIO/);
        } finally {
            writeFaults.inject = undefined;
        }
        expect(readdirSync(blocksOf(dir))).toEqual([]); // the failed try cleaned up after itself
        await store.close();
        writeFileSync(path.join(blocksOf(dir), name), saved!);
        const s = await reopen();
        expect((await s.scan('ds')).map((r) => r.fields.i)).toEqual(Array.from({ length: 12 }, (_, i) => i));
        expect(await s.stats('ds')).toMatchObject({ blocks: 1, walLength: 0 });
        expect((await s.health('ds')).status).toBe('ok');
        await ingestN(s, 'ds', 12, 3);
        const s2 = await reopen();
        expect((await s2.scan('ds')).length).toBe(15);
    });

    it('a block a trim had dropped (crash before the unlink) is removed; one found nowhere else is kept aside and reported', async () => {
        const now = BigInt(T0 + 100_000) * 1_000_000n;
        const { store, dir, reopen } = await fresh({ now: () => now, compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 5);
        await store.compact('ds');
        const [old] = readdirSync(blocksOf(dir));
        const oldBytes = readFileSync(path.join(blocksOf(dir), old));
        await store.trim('ds', 1_000_000_000n); // everything: the block is dropped
        await ingestN(store, 'ds', 200, 4);
        // And a block from elsewhere (another dataset's): its rows are in neither the manifest nor the WAL.
        await store.createDataset({ name: 'other' });
        await ingestN(store, 'other', 300, 3);
        await store.compact('other');
        const otherDir = path.join(dir, 'datasets', 'other', 'blocks');
        const strangerBytes = readFileSync(path.join(otherDir, readdirSync(otherDir)[0]));
        await store.close();
        writeFileSync(path.join(blocksOf(dir), old), oldBytes); // as if the unlink never happened
        const stranger = '000000ff.blk';
        writeFileSync(path.join(blocksOf(dir), stranger), strangerBytes);
        const s = await reopen();
        expect((await s.scan('ds')).map((r) => r.fields.i)).toEqual([200, 201, 202, 203]);
        expect(readdirSync(blocksOf(dir))).toEqual([]);
        const health = await s.health('ds');
        expect(health.quarantined.map((q) => q.file)).toEqual([`quarantine/block-${stranger}`]);
        expect(health.problems.join('\n')).toMatch(/blocks\/000000ff\.blk .*not listed in the manifest/);
    });
});

describe('retention and trim', () => {
    it('hides events older than the retention period and drops whole old blocks on a sweep', async () => {
        let now = BigInt(T0) * 1_000_000n;
        const { store, dir } = await fresh({ now: () => now, compactInWorker: false });
        await store.createDataset({ name: 'ds', retentionDays: 1 });
        await ingestN(store, 'ds', 0, 5);
        await store.compact('ds');
        now += 3n * 86_400_000_000_000n;
        await store.ingest('ds', { body: ndjson([{ x: 1 }]), contentType: 'application/x-ndjson' }); // receive time = now
        expect((await store.scan('ds')).map((r) => r.fields)).toEqual([{ x: 1 }]);
        await store.sweepRetention();
        expect(readdirSync(path.join(dir, 'datasets', 'ds', 'blocks'))).toEqual([]);
        expect((await store.stats('ds')).blocks).toBe(0);
    });

    it('trim forgets events older than now - maxDuration', async () => {
        const now = BigInt(T0 + 10_000) * 1_000_000n;
        const { store, reopen } = await fresh({ now: () => now, compactInWorker: false });
        await store.createDataset({ name: 'ds' });
        await ingestN(store, 'ds', 0, 10); // times T0 .. T0+9s
        await store.trim('ds', 5_000_000_000n); // keep >= T0+5s
        expect((await store.scan('ds')).map((r) => r.fields.i)).toEqual([5, 6, 7, 8, 9]);
        await store.compact('ds');
        const s2 = await reopen();
        expect((await s2.scan('ds')).map((r) => r.fields.i)).toEqual([5, 6, 7, 8, 9]);
    });
});

describe('tokens', () => {
    it('stores only hashes; verify works across reopen', async () => {
        const { store, dir, reopen } = await fresh();
        const { token, info } = await store.tokens.createToken('ci');
        expect(token).toMatch(/^xaat-[0-9a-f-]{36}$/);
        expect(store.tokens.verify(token)).toEqual(info);
        expect(store.tokens.verify('xaat-nope')).toBeUndefined();
        const raw = await fsp.readFile(path.join(dir, 'tokens.json'), 'utf8');
        expect(raw).not.toContain(token);
        const s2 = await reopen();
        expect(s2.tokens.verify(token)?.name).toBe('ci');
        expect(await s2.tokens.deleteToken(info.id)).toBe(true);
        expect(s2.tokens.verify(token)).toBeUndefined();
    });
});
