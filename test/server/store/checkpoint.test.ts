/**
 * The shutdown checkpoint (FORMAT.md, "Compaction and the crash argument"): a store closed with a
 * WAL tail of at least `checkpointEvents` events writes it into a block, so the next open parses
 * no tail; a process killed without closing leaves the tail, which is replayed as before.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store, type StoredEvent } from '../../../server/store/store.js';
import { ndjson, tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./checkpoint-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
});

const T0 = Date.UTC(2024, 0, 1);
const ev = (i: number): object => ({ _time: new Date(T0 + i * 1000).toISOString(), i, s: `v${i % 7}` });

async function ingestN(store: Store, from: number, n: number): Promise<void> {
    for (let b = from; b < from + n; b += 100) await store.ingest('cp', { body: ndjson(Array.from({ length: Math.min(100, from + n - b) }, (_, k) => ev(b + k))), contentType: 'application/x-ndjson' });
}

/** The bytes of the dataset's WAL segments (0: every record is covered by a block). */
function walBytes(dir: string): number {
    const wal = path.join(dir, 'datasets', 'cp', 'wal');
    return readdirSync(wal).reduce((n, f) => n + statSync(path.join(wal, f)).size, 0);
}

function blockFiles(dir: string): string[] {
    return readdirSync(path.join(dir, 'datasets', 'cp', 'blocks')).filter((f) => f.endsWith('.blk'));
}

const byRowId = (rows: StoredEvent[]): StoredEvent[] => [...rows].sort((a, b) => (a._rowId < b._rowId ? -1 : 1));

describe('the shutdown checkpoint', () => {
    it('a store closed with a WAL tail writes it into a block: the reopened store reads the same events from the block, none lost, no tail left', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const logged: string[] = [];
        const opts = { compactEvents: 1_000_000, checkpointEvents: 300, log: (m: string) => logged.push(m) };
        const store = await openStore(t.dir, opts);
        cleanups.push(() => store.close());
        await store.createDataset({ name: 'cp' });
        await ingestN(store, 0, 500);
        expect(await store.stats('cp')).toMatchObject({ blocks: 0, walLength: 500 });
        const before = byRowId(await store.scan('cp'));
        await store.close();
        expect(blockFiles(t.dir)).toHaveLength(1);
        expect(walBytes(t.dir)).toBe(0);
        expect(logged.join('\n')).toMatch(/cp: wrote its write-ahead log tail of 500 events into a block at shutdown/);

        const again = await openStore(t.dir, opts);
        cleanups.push(() => again.close());
        expect(await again.stats('cp')).toMatchObject({ blocks: 1, walLength: 0, events: 500 });
        expect(byRowId(await again.scan('cp'))).toEqual(before);
        // Ingest goes on above the checkpoint's seqs.
        await ingestN(again, 500, 100);
        const rows = await again.scan('cp');
        expect(rows.map((r) => r.fields.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 600 }, (_, i) => i));
        expect(new Set(rows.map((r) => r._rowId)).size).toBe(600);
    });

    it('a tail below checkpointEvents stays in the write-ahead log', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const opts = { compactEvents: 1_000_000, checkpointEvents: 300, log: () => undefined };
        const store = await openStore(t.dir, opts);
        cleanups.push(() => store.close());
        await store.createDataset({ name: 'cp' });
        await ingestN(store, 0, 200);
        await store.close();
        expect(blockFiles(t.dir)).toHaveLength(0);
        const again = await openStore(t.dir, opts);
        cleanups.push(() => again.close());
        expect(await again.stats('cp')).toMatchObject({ blocks: 0, walLength: 200, events: 200 });
    });

    it('a process killed (SIGKILL) leaves its tail, which the next open replays; closing that store then checkpoints it', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        await new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', CHILD, t.dir, '700'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => {
                out += d.toString();
                if (out.includes('DONE\n')) child.kill('SIGKILL');
            });
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            child.on('error', reject);
            child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited with ${code}/${signal}: ${err}`))));
        });
        expect(blockFiles(t.dir)).toHaveLength(0);
        expect(walBytes(t.dir)).toBeGreaterThan(0);
        const opts = { compactEvents: 1_000_000, checkpointEvents: 100, log: () => undefined };
        const store = await openStore(t.dir, opts);
        cleanups.push(() => store.close());
        expect(await store.stats('cp')).toMatchObject({ blocks: 0, walLength: 700, events: 700 });
        const before = byRowId(await store.scan('cp'));
        expect(before.map((r) => r.fields.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 700 }, (_, i) => i));
        await store.close();
        expect(blockFiles(t.dir)).toHaveLength(1);
        const again = await openStore(t.dir, opts);
        cleanups.push(() => again.close());
        expect(await again.stats('cp')).toMatchObject({ blocks: 1, walLength: 0 });
        expect(byRowId(await again.scan('cp'))).toEqual(before);
    }, 60_000);

    it('a deleted dataset is not checkpointed (its files go)', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const logged: string[] = [];
        const store = await openStore(t.dir, { compactEvents: 1_000_000, checkpointEvents: 100, log: (m: string) => logged.push(m) });
        cleanups.push(() => store.close());
        await store.createDataset({ name: 'cp' });
        await ingestN(store, 0, 300);
        await store.deleteDataset('cp');
        expect(logged.filter((m) => m.includes('at shutdown'))).toEqual([]);
    });
});
