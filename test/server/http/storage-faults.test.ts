/**
 * Storage faults seen through the service over HTTP: a damaged block, a damaged WAL record, an
 * unreadable tokens.json, a full disk, an ingest worker that dies, and tokens never echoed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, promises as fsp, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { createService } from '../../../server/http/app.js';
import { writeFaults } from '../../../server/store/fsutil.js';
import { createDataset, ndjson, rows, startService, type TestService } from './helpers.js';
import { spawnServer } from './spawn.js';

const services: TestService[] = [];
afterEach(async () => {
    for (const s of services.splice(0)) await s.stop().catch(() => undefined);
});

async function service(opts: Parameters<typeof startService>[0] = {}): Promise<TestService> {
    const t = await startService({ store: { compactInWorker: false, compactEvents: 30 }, ...opts });
    services.push(t);
    return t;
}

async function ingest(t: TestService, ds: string, n: number, from = 0): Promise<void> {
    const r = await t.raw('POST', `/v1/datasets/${ds}/ingest`, ndjson(Array.from({ length: n }, (_, i) => ({ i: from + i }))), { 'content-type': 'application/x-ndjson' });
    expect(r.json.ingested, r.text).toBe(n);
}

async function countOf(t: TestService, ds: string): Promise<{ status: number; n?: number; message?: string }> {
    const r = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: `['${ds}'] | count` });
    return r.status === 200 ? { status: 200, n: Object.values(rows(r.json)[0])[0] as number } : { status: r.status, message: r.json?.message };
}

/** Flips a bit inside the second record of the dataset's (only) WAL segment; returns the segment's name. */
async function damageSecondWalRecord(t: TestService, ds: string): Promise<string> {
    const wal = path.join(t.dir, 'datasets', ds, 'wal');
    const [seg] = readdirSync(wal);
    const data = await fsp.readFile(path.join(wal, seg));
    data[Math.floor(data.length / 2)] ^= 0x08;
    await fsp.writeFile(path.join(wal, seg), data);
    return seg;
}

describe('a damaged block', () => {
    it('takes its dataset out of service with 423 naming the file; the other datasets serve; nothing is deleted', async () => {
        const t = await service();
        await createDataset(t, 'a');
        await createDataset(t, 'b');
        await ingest(t, 'a', 40);
        await ingest(t, 'b', 7);
        expect((await t.call('GET', '/v1/datasets/a/info')).json.numBlocks).toBe(1);
        await t.svc.close();
        const blocks = path.join(t.dir, 'datasets', 'a', 'blocks');
        const [blk] = readdirSync(blocks);
        const data = await fsp.readFile(path.join(blocks, blk));
        data[Math.floor(data.length / 2)] ^= 0x20;
        await fsp.writeFile(path.join(blocks, blk), data);
        const logs: string[] = [];
        await t.restart({ log: (m) => logs.push(m) });
        for (const [method, p] of [
            ['GET', '/v2/datasets/a'],
            ['GET', '/v1/datasets/a/info'],
            ['POST', '/v1/datasets/a/ingest'],
            ['DELETE', '/v2/datasets/a'],
            ['POST', '/v1/datasets/a/query'],
        ] as const) {
            const r = await t.call(method, p, p.endsWith('ingest') ? undefined : p.endsWith('query') ? { startTime: '2000-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z' } : undefined);
            expect(r.status, `${method} ${p}: ${r.text}`).toBe(423);
            expect(r.json.message).toMatch(new RegExp(`dataset "a" is unavailable: .*blocks/${blk} is damaged`));
        }
        // Logged when the background load finds it (the requests above waited for that load).
        expect(logs.join('\n')).toMatch(new RegExp(`dataset "a" is unavailable: dataset "a": blocks/${blk} is damaged`));
        expect(await countOf(t, 'a')).toMatchObject({ status: 423, message: expect.stringMatching(/blocks\/.*is damaged/) });
        expect(await countOf(t, 'b')).toEqual({ status: 200, n: 7 });
        expect((await t.call('GET', '/v2/datasets')).json.map((d: { name: string }) => d.name)).toEqual(['a', 'b']);
        expect((await t.call('POST', '/v2/datasets', { name: 'a' })).status).toBe(409);
        expect(readdirSync(blocks)).toEqual([blk]);
        expect(await fsp.readFile(path.join(blocks, blk))).toEqual(data);
    });
});

describe('a damaged WAL record', () => {
    it('is reported on the dataset endpoints (info storage status, X-Apl-Storage-Status) and the rest is served', async () => {
        const t = await service({ store: { compactInWorker: false, compactEvents: 1000 } });
        await createDataset(t, 'w');
        for (let b = 0; b < 3; b++) await ingest(t, 'w', 5, b * 5);
        await t.svc.close();
        const seg = await damageSecondWalRecord(t, 'w');
        await t.restart();
        expect(await countOf(t, 'w')).toEqual({ status: 200, n: 10 });
        const get = await t.call('GET', '/v2/datasets/w');
        expect(get.status).toBe(200);
        expect(get.headers.get('x-apl-storage-status')).toBe('degraded');
        expect(Object.keys(get.json)).not.toContain('storage'); // the dataset object stays what go decodes
        const info = await t.call('GET', '/v1/datasets/w/info');
        expect(info.headers.get('x-apl-storage-status')).toBe('degraded');
        expect(info.json.storage.status).toBe('degraded');
        expect(info.json.storage.quarantined).toEqual([{ file: expect.stringMatching(new RegExp(`^quarantine/${seg}\\.\\d+\\.bad$`)), bytes: expect.any(Number) }]);
        expect(info.json.storage.problems[0]).toMatch(/wal\/.*record seq 2 .*damaged.*not served/);
        await createDataset(t, 'fine');
        expect((await t.call('GET', '/v1/datasets/fine/info')).json.storage).toEqual({ status: 'ok', problems: [], quarantined: [] });
    });
});

describe('an answer over quarantined data', () => {
    const QUARANTINED = 'apl_quarantined_data_warning';
    type Status = { isPartial: boolean; messages?: { priority: string; code: string; msg: string; count: number }[] | null };
    const warnings = (s: Status) => (s.messages ?? []).filter((m) => m.code === QUARANTINED);

    it("['w'] | count after a WAL record is quarantined: isPartial and one warning naming the quarantined file, after every restart", async () => {
        const t = await service({ store: { compactInWorker: false, compactEvents: 1000 } });
        await createDataset(t, 'w');
        await createDataset(t, 'fine');
        for (let b = 0; b < 3; b++) await ingest(t, 'w', 5, b * 5);
        await ingest(t, 'fine', 2);
        await t.svc.close();
        const seg = await damageSecondWalRecord(t, 'w');
        for (let open = 0; open < 2; open++) {
            await t.restart();
            for (const apl of ["['w'] | count", "['w'] | union (['w']) | union (['fine'])", "['w'] | project i"]) {
                for (const format of ['tabular', 'legacy']) {
                    const r = await t.call('POST', `/v1/datasets/_apl?format=${format}`, { apl });
                    expect(r.status, r.text).toBe(200);
                    expect(r.json.status.isPartial, `${apl} ${format}`).toBe(true);
                    const [w, ...more] = warnings(r.json.status);
                    expect(more).toEqual([]);
                    expect(w).toMatchObject({ priority: 'warn', count: 1 });
                    expect(w.msg).toMatch(new RegExp(`dataset "w".*quarantine/${seg}\\.\\d+\\.bad.*not in this answer`));
                }
            }
            const legacy = await t.call('POST', '/v1/datasets/w/query', { startTime: '2000-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z' });
            expect(legacy.status, legacy.text).toBe(200);
            expect(legacy.json.status.isPartial).toBe(true);
            expect(warnings(legacy.json.status)).toHaveLength(1);
            const fine = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['fine'] | count" });
            expect(fine.json.status.isPartial).toBe(false);
            expect(warnings(fine.json.status)).toEqual([]);
        }
    });
});

describe('a damaged zone map (a dataset kept on disk)', () => {
    // Three blocks of 2,000 events: b is 0..9 in the first, 30..39 in the second, 50..59 in the third.
    const BLOCK_B = [0, 30, 50];
    async function threeBlocks(): Promise<{ t: TestService; second: string }> {
        const t = await service({ memoryLimit: 1024 * 1024, store: { compactInWorker: false, compactEvents: 1e9 } });
        await createDataset(t, 'z');
        for (const [k, base] of BLOCK_B.entries()) {
            const events = Array.from({ length: 2000 }, (_, i) => ({ _time: new Date(Date.UTC(2026, 0, 1 + k, 0, 0, i)).toISOString(), i: k * 2000 + i, b: base + (i % 10) }));
            const r = await t.raw('POST', '/v1/datasets/z/ingest', ndjson(events), { 'content-type': 'application/x-ndjson' });
            expect(r.json.ingested, r.text).toBe(2000);
            await t.svc.data.store.compact('z');
        }
        const blocks = readdirSync(path.join(t.dir, 'datasets', 'z', 'blocks')).sort();
        expect(blocks).toHaveLength(3);
        return { t, second: blocks[1] };
    }

    it("['z'] | where b > 20 | count after one bit of a block header's max of b flips (39 → 19): the block is quarantined, the answer partial, health degraded", async () => {
        const { t, second } = await threeBlocks();
        const all = { startTime: '2025-12-01T00:00:00Z', endTime: '2026-02-01T00:00:00Z' };
        const count = async () => t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['z'] | where b > 20 | count", ...all });
        expect(rows((await count()).json)[0]).toEqual({ count: 4000 });
        await t.svc.close();
        const file = path.join(t.dir, 'datasets', 'z', 'blocks', second);
        const data = await fsp.readFile(file);
        const header = data.toString('latin1', 12, 12 + data.readUInt32LE(8));
        const maxOfB = header.indexOf('"max":39', header.indexOf('"name":"b"'));
        expect(maxOfB).toBeGreaterThan(0);
        data[12 + maxOfB + '"max":'.length] ^= 0x02; // '3' → '1'
        await fsp.writeFile(file, data);
        await t.restart({ memoryLimit: 1024 * 1024 });
        const r = await count();
        expect(r.status, r.text).toBe(200);
        expect(rows(r.json)[0]).toEqual({ count: 2000 }); // the third block's; the second's are not served
        expect(r.json.status.isPartial).toBe(true);
        const warning = (r.json.status.messages ?? []).find((m: { code: string }) => m.code === 'apl_quarantined_data_warning');
        expect(warning?.msg).toContain(`quarantine/block-${second}`);
        const info = await t.call('GET', '/v1/datasets/z/info');
        expect(info.headers.get('x-apl-storage-status')).toBe('degraded');
        expect(info.json.storage.status).toBe('degraded');
        expect(info.json.storage.problems.join('\n')).toMatch(new RegExp(`blocks/${second}.*header checksum mismatch.*quarantine/block-${second}`));
        expect(info.json.storage.quarantined.map((q: { file: string }) => q.file)).toEqual([`quarantine/block-${second}`]);
        // The other blocks answer as before, and the quarantined bytes are kept as they were.
        const fine = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['z'] | where b < 20 | count", ...all });
        expect(rows(fine.json)[0]).toEqual({ count: 2000 });
        expect(await fsp.readFile(path.join(t.dir, 'datasets', 'z', 'quarantine', `block-${second}`))).toEqual(data);
    });
});

describe('an unreadable tokens.json', () => {
    it('without --token the service refuses to start, naming the file; with one it serves and accepts no stored token', async () => {
        const t = await service();
        const stored = (await t.svc.data.store.tokens.createToken('stored')).token;
        await createDataset(t, 'k');
        await t.svc.close();
        const file = path.join(t.dir, 'tokens.json');
        const damaged = (await fsp.readFile(file, 'utf8')).replace('"tokens"', '"tokens');
        await fsp.writeFile(file, damaged);
        await expect(createService({ dataDir: t.dir, port: 0, samples: false, log: () => undefined })).rejects.toThrow(/tokens\.json: not valid JSON.*start with --token/);
        const logs: string[] = [];
        await t.restart({ log: (m) => logs.push(m) });
        expect(logs.join('\n')).toMatch(/cannot read .*tokens\.json.*serving with the --token\/AXIOM_TOKEN token\(s\) only/);
        expect((await t.call('GET', '/v2/datasets/k')).status).toBe(200);
        const withStored = await fetch(`${t.url}/v2/datasets`, { headers: { authorization: `Bearer ${stored}` } });
        expect(withStored.status).toBe(401);
        expect(await fsp.readFile(file, 'utf8')).toBe(damaged);
    });
});

/**
 * Runs `fn` with a service whose data directory is on a fresh tmpfs of `size` (a real file system
 * that can fill up or be remounted read-only); skips the test when mounting is not allowed (not root).
 */
async function onTmpfs(ctx: TestContext, size: string, skipWhy: string, fn: (mnt: string, box: { t?: TestService }) => Promise<void>): Promise<void> {
    const mnt = path.join(tmpdir(), `apl-http-fs-${process.pid}-${Date.now()}`);
    mkdirSync(mnt);
    try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
        rmSync(mnt, { recursive: true, force: true });
        ctx.skip(skipWhy);
        return;
    }
    const box: { t?: TestService } = {};
    try {
        box.t = await startService({ store: { compactInWorker: false } }, path.join(mnt, 'data'));
        await fn(mnt, box);
    } finally {
        await box.t?.svc.close().catch(() => undefined);
        try {
            execFileSync('umount', [mnt], { stdio: 'ignore' });
        } catch {
            execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
        }
        rmSync(mnt, { recursive: true, force: true });
    }
}

describe('a full disk', () => {
    it('ingest answers 507 saying the disk is full; what was accepted before is intact, and ingest works again once space is freed', async (ctx) => {
        await onTmpfs(ctx, '2m', 'not root: test/server/store/fault-injection.test.ts covers this through the fault seam', async (mnt, { t }) => {
            if (!t) return;
            await createDataset(t, 'd');
            await ingest(t, 'd', 50);
            const filler = await fsp.open(path.join(mnt, 'filler'), 'w');
            for (const size of [256 * 1024, 4096, 1]) {
                const chunk = Buffer.alloc(size, 7);
                try {
                    for (;;) await filler.write(chunk);
                } catch {
                    // full at this granularity
                }
            }
            await filler.close();
            const r = await t.raw('POST', '/v1/datasets/d/ingest', ndjson(Array.from({ length: 2000 }, (_, i) => ({ i, pad: 'x'.repeat(50) }))), { 'content-type': 'application/x-ndjson' });
            expect(r.status, r.text).toBe(507);
            expect(r.json.message).toMatch(/insufficient storage: the disk holding the data directory is full \(ENOSPC\)/);
            expect(r.json.message).not.toMatch(/internal error/);
            expect(await countOf(t, 'd')).toEqual({ status: 200, n: 50 });
            await fsp.rm(path.join(mnt, 'filler'));
            await ingest(t, 'd', 10, 50);
            await t.restart();
            expect(await countOf(t, 'd')).toEqual({ status: 200, n: 60 });
        });
    });
});

describe('a failing fdatasync of the write-ahead log', () => {
    afterEach(() => {
        writeFaults.sync = undefined;
    });

    it('the ingest it held answers 500 naming the error and is not served, before or after a restart; the ingests before and after it are', async () => {
        const logs: string[] = [];
        const t = await service({ log: (m) => logs.push(m) });
        await createDataset(t, 'd');
        await ingest(t, 'd', 12);
        let failures = 1;
        writeFaults.sync = (file) => {
            if (!file.includes(`${path.sep}d${path.sep}`) || failures === 0) return undefined;
            failures--;
            return Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
        };
        const r = await t.raw('POST', '/v1/datasets/d/ingest', ndjson(Array.from({ length: 7 }, (_, i) => ({ i: 100 + i }))), { 'content-type': 'application/x-ndjson' });
        expect(r.status, r.text).toBe(500);
        expect(r.json.message).toMatch(/EIO/);
        expect(await countOf(t, 'd')).toEqual({ status: 200, n: 12 });
        await ingest(t, 'd', 5, 12);
        expect(await countOf(t, 'd')).toEqual({ status: 200, n: 17 });
        await t.restart();
        expect(await countOf(t, 'd')).toEqual({ status: 200, n: 17 });
        const back = await t.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['d'] | where i >= 100 | count" });
        expect(Object.values(rows(back.json)[0])[0]).toBe(0);
    });
});

describe('a read-only data directory', () => {
    it('says so at start-up; creating a dataset answers 507 naming it (not a retried 500), and works once writable', async (ctx) => {
        await onTmpfs(ctx, '8m', 'not root: a read-only mount cannot be made (and chmod does not stop root)', async (mnt, { t }) => {
            if (!t) return;
            await createDataset(t, 'a');
            await ingest(t, 'a', 12);
            await t.svc.close();
            execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'ignore' });
            const logs: string[] = [];
            await t.restart({ log: (m) => logs.push(m) });
            expect(logs.join('\n')).toMatch(/warning: data directory .* is read-only \(EROFS\)/);
            const created = await t.call('POST', '/v2/datasets', { name: 'b' });
            expect(created.status, created.text).toBe(507);
            expect(created.json.message).toMatch(/the data directory is read-only \(EROFS\) while creating dataset "b"/);
            // A dataset whose write-ahead log cannot be opened for appending is out of service (423, not 5xx).
            const a = await countOf(t, 'a');
            expect(a.status).toBe(423);
            expect(a.message).toMatch(/EROFS/);
            await t.svc.close();
            execFileSync('mount', ['-o', 'remount,rw', mnt], { stdio: 'ignore' });
            await t.restart();
            expect((await t.call('POST', '/v2/datasets', { name: 'b' })).status).toBe(200);
            expect(await countOf(t, 'a')).toEqual({ status: 200, n: 12 });
        });
    });
});

describe('an ingest worker that dies', () => {
    it('fails the request it held (503, nothing stored) instead of hanging it, and is replaced', async () => {
        const logs: string[] = [];
        const t = await service({ ingestWorkers: 1, ingestWorkerHeapMb: 16, log: (m) => logs.push(m) });
        await createDataset(t, 'x');
        await ingest(t, 'x', 3);
        // ~40 MB of small events: parsing needs far more than the worker's 16 MB heap.
        const big = ndjson(Array.from({ length: 400_000 }, (_, i) => ({ i, s: `v${i}`, pad: 'y'.repeat(60) })));
        const r = await t.raw('POST', '/v1/datasets/x/ingest', big, { 'content-type': 'application/x-ndjson' });
        expect(r.status, r.text).toBe(503);
        expect(r.json.message).toMatch(/ingest worker stopped while parsing this request.*nothing of it was stored/);
        expect(await countOf(t, 'x')).toEqual({ status: 200, n: 3 });
        await ingest(t, 'x', 4, 3); // a new worker
        expect(await countOf(t, 'x')).toEqual({ status: 200, n: 7 });
        expect(logs.join('\n')).not.toMatch(/parsing on the main thread/);
    });
});

describe('tokens are never echoed', () => {
    it('not in the output of apl serve, not in any reply, whatever is sent', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'apl-echo-'));
        const secret = 'xaat-configured-5ecret-0000';
        const server = await spawnServer({ dataDir: dir, token: secret, bundled: true });
        const sent = ['xaat-wrong-5ecret-1111', 'xapt-wrong-5ecret-2222', 'not-a-5ecret-3333'];
        const replies: string[] = [];
        try {
            for (const tok of sent) {
                for (const auth of [`Bearer ${tok}`, tok, `Basic ${tok}`, `Bearer ${tok} extra`]) {
                    const r = await fetch(`${server.url}/v2/datasets`, { headers: { authorization: auth } });
                    replies.push(await r.text());
                }
                const r = await fetch(`${server.url}/v1/datasets/nope/ingest`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'x-axiom-event-labels': `{"t":"${tok}"`, 'content-type': 'application/x-ndjson' }, body: '{}' });
                replies.push(await r.text());
            }
            const r = await fetch(`${server.url}/v2/datasets`, { headers: { authorization: `Bearer ${secret}` } });
            expect(r.status).toBe(200);
        } finally {
            await server.stop();
            rmSync(dir, { recursive: true, force: true });
        }
        const everything = `${server.output()}\n${replies.join('\n')}`;
        for (const s of [secret, ...sent]) expect(everything).not.toContain(s.slice(5));
        expect(everything).toContain('invalid API token');
    });

    it('an unknown option with an inline value is reported without the value', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'apl-echo-'));
        try {
            await expect(spawnServer({ dataDir: dir, args: ['--tokn=xaat-inline-5ecret'], bundled: true, timeoutMs: 30_000 })).rejects.toThrow(/unknown option --tokn\b(?![\s\S]*5ecret)/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
