// Bundles the bins (CommonJS, one file each, for fast start-up) and the library (ESM) into out/,
// and the VS Code extension into client/vscode/dist/.
//
// A build never writes into those folders while it runs: it builds, makes the start-up snapshot and
// the code caches in a staging folder beside them, then moves each file into place
// (scripts/install-build.mjs), so a running `apl serve` or language server never reads a
// half-written bundle. `--watch` writes in place (development only).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { copyVscodeAssets, DIST } from './scripts/build-vscode.mjs';
import { builds } from './scripts/bundles.mjs';
import { installBuild } from './scripts/install-build.mjs';
import { warmCodeCaches } from './scripts/warm-code-cache.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const watch = process.argv.includes('--watch');

/** The same build, writing under `stage` instead of the clone. */
function staged(options, stage) {
    const moved = path => (isAbsolute(path) ? path : join(stage, path));
    return {
        ...options,
        absWorkingDir: root,
        ...(options.outfile ? { outfile: moved(options.outfile) } : {}),
        ...(options.outdir ? { outdir: moved(options.outdir) } : {}),
    };
}

if (watch) {
    for (const options of builds) await (await esbuild.context(options)).watch();
} else {
    // Beside out/ (one file system, so the moves are renames); a crashed build leaves one behind,
    // which the next build does not mind (.gitignore: /.build-*/).
    const stage = mkdtempSync(join(root, '.build-'));
    try {
        await Promise.all([...builds.map(options => esbuild.build(staged(options, stage))), copyVscodeAssets(join(stage, DIST))]);
        const out = join(stage, 'out');
        // npm makes the bins executable when it installs the package; a build in a clone does it here.
        for (const bin of ['apl.cjs', 'apl-language-server.cjs']) chmodSync(join(out, bin), 0o755);
        const snapshot = spawnSync(process.execPath, [join(out, 'apl-language-server.cjs'), '--make-snapshot'], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
        if (snapshot.status !== 0) {
            // Without it the language server starts as a script, as on Windows. A test
            // (test/bin/language-server-snapshot.test.ts) fails when the build made none.
            console.warn(`warning: ${snapshot.stderr.trim()}`);
        }
        try {
            await warmCodeCaches(out);
        } catch (err) {
            // The caches only make start-up faster: without them the bins compile as usual. A test
            // (test/bin/code-cache.test.ts) fails when the built bins start without one.
            console.warn(`warning: no V8 code caches for the bins: ${err instanceof Error ? err.message : String(err)}`);
        }
        installBuild(stage, root, ['out', DIST]);
    } finally {
        rmSync(stage, { recursive: true, force: true });
    }
}
