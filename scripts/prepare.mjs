// `npm run prepare` (npm 11 runs it after `npm ci`/`npm install` in a clone, and on `npm install -g .`,
// which links the clone): builds out/ and dist/ only when an input changed since the last build.
// `npx apl` in a clone does not run it. The tarball of `npm run package` has no scripts at all, so
// this never runs for its users (scripts/pack.mjs).
//
// The inputs are hashed (file paths and contents, the Node version, build-affecting variables);
// the hash is kept in out/.build-inputs.sha256 and written only after a build succeeds. What the
// build writes is not an input (NOT_INPUTS): otherwise the stamp never matched after a build.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the build reads (test/scripts/prepare.test.ts checks it against esbuild's list of what each
 * bundle is made of). Folders are walked; what a build (or a run) writes inside them is not an input.
 */
const INPUTS = ['language', 'bin', 'server', 'client', 'scripts', 'syntaxes', 'test/vscode/suite', 'package.json', 'package-lock.json', 'tsconfig.json',
    'tsconfig.lib.json', 'langium-config.json', 'esbuild.mjs', 'language-configuration.json'];
/**
 * Outputs inside the input folders: hashing one made the stamp differ right after every build (the
 * extension's bundles in client/vscode/dist/ are built beside its sources), so every later `npx apl`
 * rebuilt for ~20 s. test/scripts/prepare.test.ts checks that no file git ignores after a real build
 * is an input.
 */
const NOT_INPUTS = [
    /^client\/vscode\/dist\//, // the extension's bundles (scripts/build-vscode.mjs)
    /^language\/generated\//, // langium-cli
    /\.generated\.ts$/, // scripts/generate-parser-tables.ts
    /(^|\/)(node_modules|out|dist|coverage|scratch|\.apl-data)\//, // installs, builds, runs
    /(^|\/)\.docs-example-/, // test/docs-examples.test.ts
    /\.(log|tmp|vsix)$/,
];
/** What a build leaves behind; if any is missing the build runs whatever the hash says. */
export const OUTPUTS = ['out/apl.cjs', 'out/apl-cli.cjs', 'out/apl-language-server.cjs', 'out/language-server.cjs', 'out/index.mjs', 'out/service.mjs', 'dist/language/index.d.ts', 'dist/server/http/index.d.ts'];
export const STAMP = 'out/.build-inputs.sha256';

function walk(root, path, files) {
    const full = join(root, path);
    if (!existsSync(full)) return;
    for (const e of readdirSync(full, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const rel = path === '' ? e.name : `${path}/${e.name}`;
        if (e.isDirectory()) {
            if (!NOT_INPUTS.some(g => g.test(`${rel}/`))) walk(root, rel, files);
        } else if (e.isFile() && !NOT_INPUTS.some(g => g.test(rel))) files.push(rel);
    }
}

/** The files whose paths and contents make the stamp, relative to `root`, in a stable order. */
export function inputFiles(root) {
    const files = [];
    for (const input of INPUTS) {
        const full = join(root, input);
        if (!existsSync(full)) continue;
        if (statSync(full).isDirectory()) walk(root, input, files);
        else files.push(input);
    }
    return files;
}

export function inputHash(root) {
    const hash = createHash('sha256');
    hash.update(`node ${process.version}\nAPL_NO_MINIFY=${process.env.APL_NO_MINIFY ?? ''}\nAPL_SOURCEMAPS=${process.env.APL_SOURCEMAPS ?? ''}\n`);
    for (const f of inputFiles(root)) {
        hash.update(`${f}\0`);
        hash.update(readFileSync(join(root, f)));
        hash.update('\0');
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

