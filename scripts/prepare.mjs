// `npm run prepare` (npm runs it after `npm ci`/`npm install` in a clone, and when npx or
// `npm install -g .` installs from a folder): builds out/ and dist/ only when an input changed since
// the last build. Before, every `npx apl` in a fresh clone rebuilt everything (about 20 s, silent).
//
// The inputs are hashed (file paths and contents, the Node version, build-affecting variables);
// the hash is kept in out/.build-inputs.sha256 and written only after a build succeeds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads. Folders are walked; generated files inside them are outputs, not inputs. */
const INPUTS = ['language', 'bin', 'server', 'client', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.lib.json',
    'langium-config.json', 'esbuild.mjs', 'language-configuration.json'];
const GENERATED = [/^language\/generated\//, /\.generated\.ts$/];
/** What a build leaves behind; if any is missing the build runs whatever the hash says. */
export const OUTPUTS = ['out/apl.cjs', 'out/apl-cli.cjs', 'out/apl-language-server.cjs', 'out/language-server.cjs', 'out/index.mjs', 'dist/language/index.d.ts'];
export const STAMP = 'out/.build-inputs.sha256';

function walk(root, path, files) {
    const full = join(root, path);
    if (!existsSync(full)) return;
    for (const e of readdirSync(full, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const rel = path === '' ? e.name : `${path}/${e.name}`;
        if (e.isDirectory()) walk(root, rel, files);
        else if (e.isFile() && !GENERATED.some(g => g.test(rel))) files.push(rel);
    }
}

export function inputHash(root) {
    const hash = createHash('sha256');
    hash.update(`node ${process.version}\nAPL_NO_MINIFY=${process.env.APL_NO_MINIFY ?? ''}\n`);
    for (const input of INPUTS) {
        const full = join(root, input);
        if (!existsSync(full)) continue;
        const files = [];
        if (statSync(full).isDirectory()) walk(root, input, files);
        else files.push(input);
        for (const f of files) {
            hash.update(`${f}\0`);
            hash.update(readFileSync(join(root, f)));
            hash.update('\0');
        }
    }
    return hash.digest('hex');
}

export function upToDate(root) {
    const stamp = join(root, STAMP);
    if (!existsSync(stamp) || OUTPUTS.some(o => !existsSync(join(root, o)))) return false;
    return readFileSync(stamp, 'utf8').trim() === inputHash(root);
}

/** Builds unless up to date; `build` runs the real build and returns whether it succeeded. */
export function prepare(root, build, log = message => process.stderr.write(`${message}\n`)) {
    if (upToDate(root)) {
        log('apl-tools: out/ and dist/ are up to date (no input changed since the last build); skipping the build');
        return true;
    }
    const hash = inputHash(root);
    if (!build()) return false;
    mkdirSync(join(root, 'out'), { recursive: true });
    writeFileSync(join(root, STAMP), `${hash}\n`);
    return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    const ok = prepare(root, () => spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' }).status === 0);
    process.exitCode = ok ? 0 : 1;
}

