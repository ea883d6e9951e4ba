/**
 * The package as a user without a clone gets it: `npm run package` (scripts/pack.mjs), then
 * `npm install -g` of the tarball into a scratch prefix, offline (nothing may have to be fetched:
 * the bins and the library carry their dependencies bundled), with install scripts allowed as a
 * user's npm does, then both bins and the library run from outside the repository. The tarball
 * holds what a user runs and nothing else: no test output, no source maps, no lifecycle script
 * (npm 11 lists a `prepare` of a tarball as an unapproved install script on every install).
 */
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import semver from 'semver';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult } from 'vscode-languageserver-protocol';
import { runsFromSnapshot } from '../support/language-server.js';
import { REPO_ROOT } from '../support/cli.js';

let dir: string;
let prefix: string;
let installed: string;
let installOutput: string;

const npm = (args: string[], cwd: string) => {
    const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
    if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    return r;
};

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apl-pack-'));
    // `npm run package` packages what `npm test` just built; it builds nothing.
    npm(['run', 'package', '--', '--pack-destination', dir], REPO_ROOT);
    const tarball = readdirSync(dir).find(f => /^apl-tools-.*\.tgz$/.test(f));
    if (!tarball) throw new Error(`npm run package made no tarball in ${dir}`);
    prefix = join(dir, 'prefix');
    const install = npm(['install', '-g', '--prefix', prefix, '--offline', join(dir, tarball)], dir);
    installOutput = install.stdout + install.stderr;
    installed = join(prefix, 'lib', 'node_modules', 'apl-tools');
}, 180_000);

afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
});

const bin = (name: string) => join(prefix, 'bin', name);

describe('npm run package + npm install -g of the tarball (offline, no clone)', () => {
    it('the tarball holds the types of both exports, no test output, no source map, no build stamp, and no lifecycle script; installing it warns of nothing but an unsupported Node', () => {
        const files = readdirSync(join(installed, 'out'), { recursive: true }).map(String);
        expect(files).toContain('apl-cli.cjs');
        expect(files.filter(f => f.startsWith('vscode-test') || f.endsWith('.map') || f.startsWith('.build'))).toEqual([]);
        // The types of both exports (package.json's exports → types).
        expect(readdirSync(join(installed, 'dist', 'language'))).toContain('index.d.ts');
        expect(readdirSync(join(installed, 'dist', 'server', 'http'))).toContain('index.d.ts');
        const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; devDependencies?: unknown; engines?: { node?: string } };
        expect(manifest.scripts ?? {}).toEqual({});
        expect(manifest.devDependencies).toBeUndefined();
        // On a Node that `engines` does not admit (Node 20, end of life), npm says so, naming this
        // package and nothing else; on a supported Node it warns of nothing.
        const supported = semver.satisfies(process.version, manifest.engines?.node ?? '*');
        const rest = supported ? installOutput : installOutput.replace(/npm warn EBADENGINE Unsupported engine \{\n(npm warn EBADENGINE .*\n)*?npm warn EBADENGINE \}\n/, found => {
            expect(found).toContain("package: 'apl-tools@");
            return '';
        });
        if (!supported) expect(rest).not.toBe(installOutput);
        expect(rest).not.toMatch(/install-scripts|EBADENGINE|npm warn/i);
    });

    it('npm run package -- --dry-run --json lists no test output, source map or build stamp', () => {
        const r = npm(['run', '--silent', 'package', '--', '--dry-run', '--json'], REPO_ROOT);
        const listed = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map(f => f.path);
        expect(listed).toContain('out/apl.cjs');
        expect(listed.filter(f => f.startsWith('out/vscode-test') || f.endsWith('.map') || f.includes('.build-inputs'))).toEqual([]);
    });

    it('plain npm pack in the clone refuses, naming npm run package', () => {
        const r = spawnSync('npm', ['pack', '--dry-run'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
        expect(r.status).not.toBe(0);
        expect(r.stderr).toContain('npm run package');
    });

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

    it("the service: import { createService } from 'apl-tools/service' (by the package's exports), a query on its worker threads", () => {
        const project = join(dir, 'service-user');
        mkdirSync(join(project, 'node_modules'), { recursive: true });
        symlinkSync(installed, join(project, 'node_modules', 'apl-tools'));
        const script = join(project, 'use-service.mjs');
        writeFileSync(
            script,
            `import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from 'apl-tools/service';
const svc = await createService({ dataDir: mkdtempSync(join(tmpdir(), 'apl-pack-service-')), port: 0, tokens: ['xaat-pack'], samples: false, queryWorkers: 1 });
const call = (path, body, type = 'application/json') => fetch(svc.url + path, { method: 'POST', body, headers: { authorization: 'Bearer xaat-pack', 'content-type': type } });
await call('/v2/datasets', JSON.stringify({ name: 'logs' }));
await call('/v1/datasets/logs/ingest', '{"status":"500"}\\n{"status":"200"}', 'application/x-ndjson');
const res = await call('/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: "['logs'] | where status == '500' | count" }));
console.log(JSON.stringify((await res.json()).tables[0].columns[0]));
await svc.close();
`,
        );
        const r = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8' });
        // Nothing on stderr: a query worker that cannot start says so there (and the query runs on the main thread).
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe('[1]');
    });

});

describe('npm install -g . in the clone (README, "On your PATH")', () => {
    // --ignore-scripts: the clone's prepare is tested in test/scripts/prepare.test.ts; here, what npm makes of the folder.
    it('links the global package to the clone (npm 11 does not copy it), and the bin runs the clone\'s build', () => {
        const linkPrefix = join(dir, 'link-prefix');
        npm(['install', '-g', '.', '--prefix', linkPrefix, '--offline', '--ignore-scripts'], REPO_ROOT);
        const global = join(linkPrefix, 'lib', 'node_modules', 'apl-tools');
        expect(lstatSync(global).isSymbolicLink()).toBe(true);
        expect(realpathSync(global)).toBe(realpathSync(REPO_ROOT));
        const version = spawnSync(join(linkPrefix, 'bin', 'apl'), ['--version'], { cwd: dir, encoding: 'utf8' });
        expect(version.stdout).toMatch(/^apl \d+\.\d+\.\d+/);
    });
});
