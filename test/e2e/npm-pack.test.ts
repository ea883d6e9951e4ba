/**
 * The package as a user without a clone gets it: `npm pack`, then `npm install -g` of the tarball
 * into a scratch prefix, offline (nothing may have to be fetched: the bins and the library carry
 * their dependencies bundled), then both bins and the library run from outside the repository.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult } from 'vscode-languageserver-protocol';
import { runsFromSnapshot } from '../support/language-server.js';
import { REPO_ROOT } from '../support/cli.js';

let dir: string;
let prefix: string;
let installed: string;

const npm = (args: string[], cwd: string) => {
    const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
    if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    return r;
};

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apl-pack-'));
    // --ignore-scripts: package what `npm test` just built (prepare would rebuild a changed tree).
    npm(['pack', '--ignore-scripts', '--pack-destination', dir], REPO_ROOT);
    const tarball = readdirSync(dir).find(f => /^apl-tools-.*\.tgz$/.test(f));
    if (!tarball) throw new Error(`npm pack made no tarball in ${dir}`);
    prefix = join(dir, 'prefix');
    npm(['install', '-g', '--prefix', prefix, '--offline', '--ignore-scripts', join(dir, tarball)], dir);
    installed = join(prefix, 'lib', 'node_modules', 'apl-tools');
}, 180_000);

afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
});

const bin = (name: string) => join(prefix, 'bin', name);

describe('npm pack + npm install -g of the tarball (offline, no clone)', () => {
    it('apl --version and apl run work from outside the clone', () => {
        const version = spawnSync(bin('apl'), ['--version'], { cwd: dir, encoding: 'utf8' });
        expect(version.status).toBe(0);
        expect(version.stdout).toMatch(/^apl \d+\.\d+\.\d+/);
        const run = spawnSync(bin('apl'), ['run', '--format', 'json', "['sample-http-logs'] | summarize n = count()"], { cwd: dir, encoding: 'utf8' });
        expect(run.stderr).toBe('');
        expect(JSON.parse(run.stdout)).toEqual([{ n: 10000 }]);
    });

    it('apl-language-server --version', () => {
        const r = spawnSync(bin('apl-language-server'), ['--version'], { cwd: dir, encoding: 'utf8' });
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/^apl-language-server \d+\.\d+\.\d+/);
    });

    /** initialize, shutdown, exit; answers whether the process ran from the start-up snapshot. */
    async function initializeAndExit(): Promise<boolean> {
        const child = spawn(bin('apl-language-server'), ['--stdio'], { cwd: dir });
        const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
        rpc.listen();
        try {
            const init = await rpc.sendRequest<InitializeResult>('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
            expect(init.capabilities.completionProvider).toBeDefined();
            expect(init.capabilities.documentFormattingProvider).toBeTruthy();
            const snapshot = process.platform === 'linux' && runsFromSnapshot(child.pid!);
            await rpc.sendRequest('shutdown');
            const exited = new Promise<number | null>(resolve => child.once('exit', resolve));
            await rpc.sendNotification('exit');
            expect(await exited).toBe(0);
            return snapshot;
        } finally {
            rpc.dispose();
            if (child.exitCode === null) child.kill();
        }
    }

    it('apl-language-server --stdio answers initialize (as a script: the package holds no start-up snapshot)', async () => {
        expect(readdirSync(join(installed, 'out')).filter(f => f.startsWith('language-server.snapshot'))).toEqual([]);
        expect(await initializeAndExit()).toBe(false);
    });

    it.runIf(process.platform === 'linux')('apl-language-server --make-snapshot in the install; the next start runs from it', async () => {
        const made = spawnSync(bin('apl-language-server'), ['--make-snapshot'], { encoding: 'utf8' });
        expect(made.stderr).toBe('');
        expect(made.status).toBe(0);
        expect(await initializeAndExit()).toBe(true);
    });

    it("the library: import { check, createEngine } from 'apl-tools' in a project of its own", () => {
        const script = join(dir, 'use-library.mjs');
        writeFileSync(
            script,
            `import { check, createEngine } from ${JSON.stringify(join(installed, 'out', 'index.mjs'))};
const engine = createEngine();
engine.ingest('logs', [{ status: '200' }, { status: '500' }]);
const result = await engine.query("['logs'] | where status == '500' | count");
const diagnostics = await check("['logs'] | summarize sum('x')");
console.log(JSON.stringify({ count: result.tables[0].columns[0][0], codes: diagnostics.map(d => d.code) }));
`,
        );
        const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
        expect(r.stderr).toBe('');
        expect(JSON.parse(r.stdout)).toEqual({ count: 1, codes: ['APL0003'] });
    });
});
