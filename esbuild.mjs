// Bundles the bins (CommonJS, one file each, for fast start-up) and the library (ESM) into out/.
import * as esbuild from 'esbuild';
import { copyVscodeAssets } from './scripts/build-vscode.mjs';
import { builds } from './scripts/bundles.mjs';
import { warmCodeCaches } from './scripts/warm-code-cache.mjs';

const watch = process.argv.includes('--watch');

if (watch) {
    for (const options of builds) await (await esbuild.context(options)).watch();
} else {
    await Promise.all([...builds.map(options => esbuild.build(options)), copyVscodeAssets()]);
    try {
        await warmCodeCaches();
    } catch (err) {
        // The caches only make start-up faster: without them the bins compile as usual. A test
        // (test/bin/code-cache.test.ts) fails when the built bins start without one.
        console.warn(`warning: no V8 code caches for the bins: ${err instanceof Error ? err.message : String(err)}`);
    }
}
