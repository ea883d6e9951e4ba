/**
 * `node esbuild.mjs` under a running `apl serve`, for real, on a scratch copy of the clone (so the
 * real out/ is never rebuilt under the other tests): the build replaces each file of out/ by a
 * rename (a new inode; the old esbuild.mjs wrote the files in place, under the running process),
 * leaves no staging folder, and the service, whose next ingest worker comes from the rebuilt
 * files, says that it must be restarted and goes on answering.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAplServe } from '../support/apl-serve.js';
import { REPO_ROOT } from '../support/cli.js';

/** What esbuild.mjs reads, and out/ as the build before this one. */
const COPIED = ['language', 'server', 'client', 'bin', 'scripts', 'syntaxes', 'test/vscode', 'out', 'esbuild.mjs', 'package.json', 'tsconfig.json', 'language-configuration.json', 'README.md', 'docs'];

let dir: string | undefined;

afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('node esbuild.mjs while apl serve runs from out/', () => {
    it('replaces every file by a rename, and the running service asks for a restart instead of mixing builds', async () => {
        dir = mkdtempSync(join(tmpdir(), 'apl-rebuild-'));
        const clone = join(dir, 'clone');
        for (const path of COPIED) cpSync(join(REPO_ROOT, path), join(clone, path), { recursive: true, filter: src => !src.includes('node_modules') });
        symlinkSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'));

        const token = 'xaat-rebuild';
        const service = await startAplServe(['--data', join(dir, 'data'), '--no-samples', '--query-workers', '1'], { APL_TOKEN: token }, join(clone, 'out', 'apl.cjs'));
        try {
            const inodes = new Map(['apl-cli.cjs', 'ingest-worker.cjs', 'query-worker.cjs', 'index.mjs'].map(f => [f, statSync(join(clone, 'out', f)).ino]));

            const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: clone, encoding: 'utf8', timeout: 5 * 60_000 });
            expect(build.status, build.stderr).toBe(0);
            for (const [file, ino] of inodes) expect(statSync(join(clone, 'out', file)).ino, file).not.toBe(ino);
            expect(readdirSync(clone).filter(f => f.startsWith('.build-'))).toEqual([]);

            const post = (path: string, body: string, type = 'application/json') =>
                fetch(service.url + path, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
            expect((await post('/v2/datasets', JSON.stringify({ name: 'logs' }))).status).toBe(200);
            // The first ingest starts an ingest worker: from the rebuilt files, of another build.
            expect((await post('/v1/datasets/logs/ingest', '{"status":"500"}\n{"status":"200"}\n', 'application/x-ndjson')).status).toBe(200);
            const res = await post('/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: "['logs'] | where status == '500' | count" }));
            expect(res.status).toBe(200);
            expect(((await res.json()) as { tables: { columns: unknown[][] }[] }).tables[0].columns[0][0]).toBe(1);
            expect(service.stdout() + service.stderr()).toMatch(/ingest worker unavailable \(apl-tools was rebuilt while this process ran: .*restart it/);
        } finally {
            await service.stop();
        }
    }, 6 * 60_000);
});
