// `npm run package [-- <npm pack options>]`: makes apl-tools-<version>.tgz from what the clone has built,
// for `npm install -g ./apl-tools-<version>.tgz` on a machine without the clone. It builds nothing.
//
// Why not plain `npm pack`: it packs package.json as it is, and the clone's has a `prepare` script
// (it builds out/ after `npm ci`). npm never runs `prepare` for a tarball, but npm 11 lists it as an
// install script "not yet covered by allowScripts" on every install of the tarball, which a user
// could approve only by the tarball's exact path. So the tarball's package.json
// here has no scripts (and no devDependencies). The files are the ones `npm pack` would take, by
// the `files` of package.json (no test output, no build stamp; source maps only when the build made
// them: APL_SOURCEMAPS=1).
//
// `node scripts/pack.mjs --refuse` is the clone's `prepack`: plain `npm pack` stops with a pointer here.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (args[0] === '--refuse') {
    process.stderr.write('apl-tools: make the package with `npm run package` (plain `npm pack` would put the build scripts of the clone in it; see scripts/pack.mjs)\n');
    process.exit(1);
}

const npm = (npmArgs, cwd, stdio) =>
    spawnSync('npm', npmArgs, { cwd, stdio, encoding: 'utf8', shell: process.platform === 'win32', env: { ...process.env, npm_config_update_notifier: 'false' } });

/** The files `npm pack` takes from the clone (package.json's `files`, README, package.json). */
function packedFiles() {
    const r = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root, ['ignore', 'pipe', 'pipe']);
    if (r.status !== 0) throw new Error(`npm pack --dry-run failed: ${r.stderr}`);
    return JSON.parse(r.stdout)[0].files.map(f => f.path);
}

/** package.json as a user of the package needs it: no scripts, and nothing about installing the clone (devDependencies, overrides, allowScripts). */
function userManifest() {
    const { scripts: _scripts, devDependencies: _devDependencies, overrides: _overrides, allowScripts: _allowScripts, ...manifest } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    return manifest;
}

const stage = mkdtempSync(join(tmpdir(), 'apl-tools-pack-'));
try {
    for (const file of packedFiles()) {
        if (file === 'package.json') continue;
        mkdirSync(dirname(join(stage, file)), { recursive: true });
        cpSync(join(root, file), join(stage, file));
    }
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(userManifest(), null, 2)}\n`);
    // The tarball lands where plain `npm pack` puts it (the clone) unless --pack-destination says otherwise.
    const destination = args.includes('--pack-destination') ? [] : ['--pack-destination', root];
    const r = npm(['pack', stage, ...destination, ...args], root, 'inherit');
    process.exitCode = r.status ?? 1;
} finally {
    rmSync(stage, { recursive: true, force: true });
}
