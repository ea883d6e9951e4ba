// Bundles the bins (CommonJS, one file each, for fast start-up) and the library (ESM) into out/.
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { copyVscodeAssets } from './scripts/build-vscode.mjs';
import { builds } from './scripts/bundles.mjs';
import { warmCodeCaches } from './scripts/warm-code-cache.mjs';

const watch = process.argv.includes('--watch');

if (watch) {
    for (const options of builds) await (await esbuild.context(options)).watch();
} else {
    await Promise.all([...builds.map(options => esbuild.build(options)), copyVscodeAssets()]);
    // npm makes the bins executable when it installs the package; a build in a clone does it here.
    for (const bin of ['out/apl.cjs', 'out/apl-language-server.cjs']) chmodSync(bin, 0o755);
    const snapshot = spawnSync(process.execPath, ['out/apl-language-server.cjs', '--make-snapshot'], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    if (snapshot.status !== 0) {
        // Without it the language server starts as a script, as on Windows. A test
        // (test/bin/language-server-snapshot.test.ts) fails when the build made none.
        console.warn(`warning: ${snapshot.stderr.trim()}`);
    }
    try {
        await warmCodeCaches();
    } catch (err) {
        // The caches only make start-up faster: without them the bins compile as usual. A test
        // (test/bin/code-cache.test.ts) fails when the built bins start without one.
        console.warn(`warning: no V8 code caches for the bins: ${err instanceof Error ? err.message : String(err)}`);
    }
}
