/**
 * One process per data directory, by a lock the kernel releases with the process (not a pid check),
 * and data files private to their owner whatever the umask.
 */
import { spawn } from 'node:child_process';
import { promises as fsp, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DirLockedError, openStore } from '../../../server/store/store.js';
import { createService } from '../../../server/http/app.js';
import { ndjson, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
});

const quiet = { log: () => undefined, compactInWorker: false };

describe('the data directory lock', () => {
    it('a second store on the same directory is refused while the first is open, and allowed after', async () => {
        const t = tempDir('apl-lock-');
        cleanups.push(t.cleanup);
        const a = await openStore(t.dir, quiet);
        await expect(openStore(t.dir, quiet)).rejects.toThrow(DirLockedError);
        await expect(openStore(t.dir, quiet)).rejects.toThrow(/in use by another running apl server/);
        await a.close();
        const b = await openStore(t.dir, quiet);
        await b.close();
    });

    it('a LOCK file naming a live but unrelated pid (a reused pid) does not block a start', async () => {
        const t = tempDir('apl-lock-');
        cleanups.push(t.cleanup);
        writeFileSync(path.join(t.dir, 'LOCK'), '1\n'); // pid 1 is always alive
        const s = await openStore(t.dir, quiet);
        await s.close();
    });

    it('the lock of a process that died (still a zombie, its pid alive) is released', async () => {
        const t = tempDir('apl-lock-');
        cleanups.push(t.cleanup);
        // `sh` starts the holder in the background and replaces itself with `sleep`, which never
        // reaps it: when the holder exits it stays a zombie, and its pid stays in use.
        const holder = `import { openStore } from ${JSON.stringify(path.join(ROOT, 'server/store/store.ts'))}; const s = await openStore(${JSON.stringify(t.dir)}, { log: () => undefined, compactInWorker: false }); console.log('LOCKED ' + process.pid); setTimeout(() => process.exit(0), 300);`;
        const script = path.join(t.dir, '..', `${path.basename(t.dir)}-holder.mts`);
        await fsp.writeFile(script, holder);
        cleanups.push(() => fsp.rm(script, { force: true }));
        const sh = spawn('sh', ['-c', `"${process.execPath}" --import tsx "${script}" & exec sleep 30`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
        cleanups.push(() => {
            sh.kill('SIGKILL');
        });
        const pid = await new Promise<number>((resolve, reject) => {
            let out = '';
            sh.stdout!.on('data', (d: Buffer) => {
                out += d.toString();
                const m = /LOCKED (\d+)/.exec(out);
                if (m) resolve(Number(m[1]));
            });
            sh.once('exit', () => reject(new Error(`holder did not start: ${out}`)));
        });
        // Wait (by polling /proc, not by time) until the holder has exited and is a zombie. The
        // leader of a multi-threaded process shows Z while its other threads (which share its open
        // files, the lock's socket among them) are still exiting: wait until it is the only task left.
        for (;;) {
            const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
            const tasks = await fsp.readdir(`/proc/${pid}/task`).catch(() => []);
            if (/^\d+ \(.*\) Z /.test(stat) && tasks.length <= 1) break;
            expect(stat, 'the holder disappeared instead of staying a zombie').not.toBe('');
            await new Promise((r) => setTimeout(r, 20));
        }
        expect(() => process.kill(pid, 0)).not.toThrow(); // a pid check would call it alive
        const s = await openStore(t.dir, quiet);
        await s.close();
    });
});

describe('file modes', () => {
    it('every file the store and the service create is 0600 and every directory 0700, even with umask 000', async () => {
        const t = tempDir('apl-modes-');
        cleanups.push(t.cleanup);
        const dataDir = path.join(t.dir, 'data');
        const old = process.umask(0o000);
        try {
            const svc = await createService({ dataDir, port: 0, tokens: ['xaat-modes'], samples: false, log: () => undefined, store: { compactEvents: 5, compactInWorker: false }, ingestWorkers: 0 });
            try {
                await svc.data.createDataset({ name: 'm' });
                await svc.data.ingest('m', { body: ndjson(Array.from({ length: 12 }, (_, i) => ({ i }))), contentType: 'application/x-ndjson' });
                await svc.data.store.compact('m');
                await svc.data.store.tokens.createToken('t');
            } finally {
                await svc.close();
            }
        } finally {
            process.umask(old);
        }
        const seen: string[] = [];
        const walk = (p: string): void => {
            const st = statSync(p);
            const mode = st.mode & 0o777;
            seen.push(path.relative(dataDir, p) || '.');
            if (st.isDirectory()) {
                expect(mode.toString(8), `${p}`).toBe('700');
                for (const e of readdirSync(p)) walk(path.join(p, e));
            } else {
                expect(mode.toString(8), `${p}`).toBe('600');
            }
        };
        walk(dataDir);
        expect(seen).toEqual(expect.arrayContaining(['tokens.json', 'service.json', 'datasets/m/meta.json', 'datasets/m/manifest.json']));
        expect(seen.some((f) => f.startsWith('datasets/m/blocks/'))).toBe(true);
        expect(seen.some((f) => f.startsWith('datasets/m/wal/'))).toBe(true);
    });
});
