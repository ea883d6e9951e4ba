// Bundles the bins (CommonJS, one file each, for fast start-up) and the library (ESM) into out/.
import * as esbuild from 'esbuild';
import { warmCodeCaches } from './scripts/warm-code-cache.mjs';

const watch = process.argv.includes('--watch');
const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Smaller bundles compile faster: start-up time of `apl` and the language server is a requirement.
    // APL_NO_MINIFY=1 keeps readable names, for CPU profiles.
    minify: process.env.APL_NO_MINIFY !== '1',
    keepNames: true,
    logLevel: 'warning',
    // Native or optional modules stay external; they are resolved from node_modules at run time.
    external: ['@duckdb/node-api', 'vscode'],
};

const builds = [
    // Both bins are small launchers that run their bundle with a V8 code cache made right after the
    // build (server/code-cache.ts, scripts/warm-code-cache.mjs): start-up time is a requirement.
    { ...common, entryPoints: ['client/cli/bin.ts'], outfile: 'out/apl.cjs', format: 'cjs', banner: { js: '#!/usr/bin/env node' } },
    { ...common, entryPoints: ['client/cli/main.ts'], outfile: 'out/apl-cli.cjs', format: 'cjs' },
    { ...common, entryPoints: ['server/lsp/bin.ts'], outfile: 'out/apl-language-server.cjs', format: 'cjs', banner: { js: '#!/usr/bin/env node' } },
    // Without keepNames: nothing in the server reads function names, and esbuild's thousands of
    // `__name(...)` calls cost about 10 ms of every start.
    { ...common, entryPoints: ['server/lsp/main.ts'], outfile: 'out/language-server.cjs', format: 'cjs', keepNames: false },
    // The store compacts on a worker thread; the bundled service finds this file beside out/apl.cjs.
    { ...common, entryPoints: ['server/store/compact-worker.ts'], outfile: 'out/compact-worker.cjs', format: 'cjs' },
    // Ingest bodies are parsed on a worker thread too (server/ingest/prepare-pool.ts).
    { ...common, entryPoints: ['server/ingest/prepare-worker.ts'], outfile: 'out/ingest-worker.cjs', format: 'cjs' },
    { ...common, entryPoints: ['language/index.ts'], outfile: 'out/index.mjs', format: 'esm', packages: 'external' },
];

if (watch) {
    for (const options of builds) await (await esbuild.context(options)).watch();
} else {
    await Promise.all(builds.map(options => esbuild.build(options)));
    try {
        await warmCodeCaches();
    } catch (err) {
        // The caches only make start-up faster: without them the bins compile as usual. A test
        // (test/server/code-cache.test.ts) fails when the built bins start without one.
        console.warn(`warning: no V8 code caches for the bins: ${err instanceof Error ? err.message : String(err)}`);
    }
}
