/**
 * A rebuild never rewrites out/ under a running service: esbuild.mjs builds into a staging folder
 * and scripts/install-build.mjs moves each file into place by a rename. And a service that keeps
 * running over a rebuilt out/ starts its worker threads from the new files: those are of another
 * build, refuse to start, and the service says so (and goes on, on its main thread).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without type declarations
import { installBuild } from '../../scripts/install-build.mjs';
import { startAplServe } from '../support/apl-serve.js';
import { REPO_ROOT } from '../support/cli.js';

const install = installBuild as (stage: string, root: string, folders: string[]) => void;
let dir: string;

afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
}

describe('installBuild', () => {
    it('moves each built file over the old one: an open old file still reads whole, the path reads the new build, bundles, maps and snapshots of the old build go, other files (stamp, .vsix, screenshots) stay', () => {
        dir = mkdtempSync(join(tmpdir(), 'apl-install-build-'));
        const root = join(dir, 'clone');
        const stage = join(dir, 'stage');
        const old = 'old bundle '.repeat(1000);
        write(join(root, 'out/apl-cli.cjs'), old);
        write(join(root, 'out/apl-cli.cjs.map'), 'a source map of the old build');
        write(join(root, 'out/vscode-test/suite.cjs'), 'old suite');
        write(join(root, 'out/.build-inputs.sha256'), 'stamp');
        write(join(root, 'out/language-server.snapshot.blob'), 'a snapshot of the old build');
        write(join(root, 'out/apl-tools-0.1.0.vsix'), 'the extension package');
        write(join(root, 'out/vscode-test/screenshots/failed.png'), 'a screenshot');
        write(join(stage, 'out/apl-cli.cjs'), 'new bundle');
        write(join(stage, 'out/apl.cjs'), 'new launcher');
        write(join(stage, 'out/vscode-test/suite.cjs'), 'new suite');
        write(join(stage, 'client/vscode/dist/extension.cjs'), 'new extension');

        // A running process that has the bundle open, as `apl serve` has.
        const fd = openSync(join(root, 'out/apl-cli.cjs'), 'r');
        try {
            install(stage, root, ['out', 'client/vscode/dist']);
            const buffer = Buffer.alloc(old.length + 10);
            const n = readSync(fd, buffer, 0, buffer.length, 0);
            expect(buffer.subarray(0, n).toString()).toBe(old);
        } finally {
            closeSync(fd);
        }
        expect(readFileSync(join(root, 'out/apl-cli.cjs'), 'utf8')).toBe('new bundle');
        expect(readFileSync(join(root, 'out/apl.cjs'), 'utf8')).toBe('new launcher');
        expect(readFileSync(join(root, 'out/vscode-test/suite.cjs'), 'utf8')).toBe('new suite');
        expect(readFileSync(join(root, 'client/vscode/dist/extension.cjs'), 'utf8')).toBe('new extension');
        expect(existsSync(join(root, 'out/apl-cli.cjs.map'))).toBe(false);
        expect(existsSync(join(root, 'out/language-server.snapshot.blob'))).toBe(false);
        expect(readFileSync(join(root, 'out/.build-inputs.sha256'), 'utf8')).toBe('stamp');
        expect(readFileSync(join(root, 'out/apl-tools-0.1.0.vsix'), 'utf8')).toBe('the extension package');
        expect(readFileSync(join(root, 'out/vscode-test/screenshots/failed.png'), 'utf8')).toBe('a screenshot');
        expect(existsSync(join(stage, 'out/apl-cli.cjs'))).toBe(false);
    });
});

describe('a service over a rebuilt out/', () => {
    it("its worker files are of another build: the workers refuse to start, the log says to restart, and queries still answer", async () => {
        dir = mkdtempSync(join(tmpdir(), 'apl-rebuilt-'));
        const out = join(dir, 'out');
        cpSync(join(REPO_ROOT, 'out'), out, { recursive: true });
        // What a rebuild leaves: the same worker files, of another build.
        for (const worker of ['query-worker.cjs', 'ingest-worker.cjs', 'compact-worker.cjs']) {
            const file = join(out, worker);
            const text = readFileSync(file, 'latin1');
            const id = /process\.argv\[i\+1\]!=="([0-9a-f-]{36})"/.exec(text)?.[1];
            expect(id, `${worker} carries its build id`).toBeDefined();
            writeFileSync(file, text.replaceAll(id!, '00000000-0000-4000-8000-000000000000'), 'latin1');
        }
        const token = 'xaat-rebuilt';
        const service = await startAplServe(['--data', join(dir, 'data'), '--no-samples', '--query-workers', '1'], { APL_TOKEN: token }, join(out, 'apl.cjs'));
        const log = () => service.stdout() + service.stderr();
        try {
            const post = (path: string, body: string, type = 'application/json') =>
                fetch(service.url + path, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
            expect((await post('/v2/datasets', JSON.stringify({ name: 'logs' }))).status).toBe(200);
            expect((await post('/v1/datasets/logs/ingest', '{"status":"500"}\n{"status":"200"}\n', 'application/x-ndjson')).status).toBe(200);
            // The query that finds the worker of another build fails, saying why; once the pool
            // has given up on its workers, queries run on the main thread.
            const failures: string[] = [];
            let result: { tables: { columns: unknown[][] }[] } | undefined;
            for (let attempt = 0; attempt < 5 && result === undefined; attempt++) {
                const res = await post('/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: "['logs'] | where status == '500' | count" }));
                if (res.status === 200) result = (await res.json()) as typeof result;
                else failures.push(`${res.status} ${await res.text()}`);
            }
            for (const f of failures) expect(f).toMatch(/^500 .*apl-tools was rebuilt while this process ran: .*restart it/);
            expect(result?.tables[0].columns[0][0]).toBe(1);
            // The first queries may answer on the main thread before the workers have said they refuse.
            await expect.poll(log, { timeout: 30_000 }).toMatch(/query workers cannot start \(apl-tools was rebuilt while this process ran: .*restart it/);
            await expect.poll(log, { timeout: 30_000 }).toMatch(/ingest worker unavailable \(apl-tools was rebuilt while this process ran/);
        } finally {
            await service.stop();
        }
    });
});
