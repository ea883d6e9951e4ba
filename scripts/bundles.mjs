import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { vscodeBuilds } from './build-vscode.mjs';

// The esbuild builds of the package (used by esbuild.mjs, and by a test that checks they build
// without a warning): the bins as CommonJS, one file each, for fast start-up; the library as ESM.

/**
 * Langium's ESM modules import the CommonJS packages of vscode-languageserver by name, and esbuild
 * wraps such an import in each importing module: a copy of every export (about a thousand getters
 * for vscode-languageserver) per importer, 16 of them, ~8 ms of every language-server start. This
 * plugin routes those imports through one ESM module per resolved package that re-exports it, so
 * the copy is made once.
 */
const ESM_ONCE = /^(vscode-languageserver|vscode-languageserver-protocol|vscode-languageserver-types|vscode-jsonrpc)$/;
const cjsImportedOnce = {
    name: 'cjs-imported-once',
    setup(build) {
        build.onResolve({ filter: ESM_ONCE }, async args => {
            if (args.kind !== 'import-statement' || args.pluginData === 'cjs-imported-once') return undefined;
            const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'cjs-imported-once' });
            if (real.errors.length > 0 || !real.path.endsWith('.js')) return undefined;
            return { path: real.path, namespace: 'cjs-imported-once' };
        });
        build.onLoad({ filter: /.*/, namespace: 'cjs-imported-once' }, args => ({
            contents: `export * from ${JSON.stringify(args.path)};`,
            resolveDir: path.dirname(args.path),
            loader: 'js',
        }));
    },
};

/**
 * @datadog/sketches-js (the percentile sketch, language/eval/sketches.ts) serialises to protobuf
 * with `protobufjs`, which it does not depend on and loads only when asked to (`toProto`,
 * `fromProto`), from its generated `proto/compiled.js`. Nothing here serialises a sketch: that
 * module is left out (about 33 KB), and one that says why takes its place.
 */
export const noSketchProtobuf = {
    name: 'no-sketch-protobuf',
    setup(build) {
        build.onResolve({ filter: /\/proto\/compiled$/ }, args =>
            /[\\/]@datadog[\\/]sketches-js[\\/]/.test(args.importer) ? { path: 'proto/compiled', namespace: 'no-sketch-protobuf' } : undefined,
        );
        build.onLoad({ filter: /.*/, namespace: 'no-sketch-protobuf' }, () => ({
            contents: 'throw new Error("apl-tools bundles @datadog/sketches-js without its protobuf serialisation");',
            loader: 'js',
        }));
    },
};

/**
 * fastify's `lib/server.js` requires `node:http2` at load, for the `http2: true` option only, which
 * the service never sets; node 20 compiles that built-in module on first require (5-15 ms of every
 * `apl serve` start, on the way to its first answer: issue 31). Here it is required on first use.
 */
const FASTIFY_HTTP2 = "const http2 = require('node:http2')";
export const lazyFastifyHttp2 = {
    name: 'lazy-fastify-http2',
    setup(build) {
        build.onLoad({ filter: /[\\/]fastify[\\/]lib[\\/]server\.js$/ }, args => {
            const source = readFileSync(args.path, 'utf8');
            if (!source.includes(FASTIFY_HTTP2)) {
                return { contents: source, loader: 'js', warnings: [{ text: `${args.path} no longer has "${FASTIFY_HTTP2}": lazy-fastify-http2 does nothing (scripts/bundles.mjs)` }] };
            }
            const lazy = "const http2 = { createServer: (...a) => require('node:http2').createServer(...a), createSecureServer: (...a) => require('node:http2').createSecureServer(...a) }";
            return { contents: source.replace(FASTIFY_HTTP2, lazy), loader: 'js' };
        });
    },
};

/**
 * This build's id, written into every bundle. A rebuild replaces out/ under a running service
 * (scripts/install-build.mjs), which starts its worker threads from the files later: the service
 * passes its id to each worker (server/worker-boot.ts), and a worker bundle of another build
 * refuses to start, with an error that says to restart, instead of running against a main bundle
 * whose messages it may not understand.
 */
export const BUILD_ID = randomUUID();

/** The first lines of a worker bundle: the check above. */
export const WORKER_BUILD_CHECK = `{const i=process.argv.indexOf("--apl-build");if(i>=0&&process.argv[i+1]!==${JSON.stringify(BUILD_ID)})throw new Error("apl-tools was rebuilt while this process ran: its worker files (build ${BUILD_ID}) are not those of the running process (build "+process.argv[i+1]+"); restart it (apl serve, or the editor's language server)");}`;

const common = {
    plugins: [cjsImportedOnce, noSketchProtobuf, lazyFastifyHttp2],
    bundle: true,
    platform: 'node',
    target: 'node20',
    // Source maps only when asked for (APL_SOURCEMAPS=1): the package carries none otherwise.
    sourcemap: process.env.APL_SOURCEMAPS === '1',
    // Smaller bundles compile faster: start-up time of `apl` and the language server is a requirement.
    // APL_NO_MINIFY=1 keeps readable names, for CPU profiles.
    minify: process.env.APL_NO_MINIFY !== '1',
    keepNames: true,
    logLevel: 'warning',
    // Native or optional modules stay external; they are resolved from node_modules at run time.
    external: ['@duckdb/node-api', 'vscode'],
    define: { __APL_BUILD_ID__: JSON.stringify(BUILD_ID) },
};

/**
 * CommonJS has no `import.meta`. The sources use `import.meta.url` to find files beside them (the
 * worker threads, server/worker-boot.ts), so each CommonJS bundle gets the ESM meaning of it: the
 * URL of the bundle file itself.
 */
const MODULE_URL = 'var __aplModuleUrl = require("node:url").pathToFileURL(__filename).href;';
const cjs = (extra = {}) => ({
    ...common,
    format: 'cjs',
    define: { ...common.define, 'import.meta.url': '__aplModuleUrl' },
    ...extra,
    banner: { js: [extra.banner?.js, MODULE_URL].filter(Boolean).join('\n') },
});

/** Bundled CommonJS dependencies call require(): an ESM bundle gives them one. */
const ESM_REQUIRE = 'import { createRequire as __aplCreateRequire } from "node:module"; const require = __aplCreateRequire(import.meta.url);';

export const builds = [
    // Both bins are small launchers that run their bundle with a V8 code cache made right after the
    // build (bin/code-cache.ts, scripts/warm-code-cache.mjs): start-up time is a requirement.
    cjs({ entryPoints: ['client/cli/bin.ts'], outfile: 'out/apl.cjs', banner: { js: '#!/usr/bin/env node' } }),
    cjs({ entryPoints: ['client/cli/main.ts'], outfile: 'out/apl-cli.cjs' }),
    // Its first lines are the POSIX launcher, a shell script that is a JavaScript comment too.
    cjs({ entryPoints: ['server/lsp/bin.ts'], outfile: 'out/apl-language-server.cjs', banner: { js: readFileSync(new URL('../server/lsp/launcher.sh', import.meta.url), 'utf8').trimEnd() } }),
    // Without keepNames: nothing in the server reads function names, and esbuild's thousands of
    // `__name(...)` calls cost about 10 ms of every start.
    cjs({ entryPoints: ['server/lsp/main.ts'], outfile: 'out/language-server.cjs', keepNames: false }),
    cjs({ entryPoints: ['server/lsp/snapshot.ts'], outfile: 'out/language-server-snapshot.cjs', keepNames: false }),
    // The store compacts on a worker thread; the bundled service finds this file beside its own bundle.
    cjs({ entryPoints: ['server/store/compact-worker.ts'], outfile: 'out/compact-worker.cjs', banner: { js: WORKER_BUILD_CHECK } }),
    // Ingest bodies are parsed on a worker thread too (server/ingest/prepare-pool.ts).
    cjs({ entryPoints: ['server/ingest/prepare-worker.ts'], outfile: 'out/ingest-worker.cjs', banner: { js: WORKER_BUILD_CHECK } }),
    // Queries run on worker threads over replicas of the engine (server/query/pool.ts).
    cjs({ entryPoints: ['server/query/query-worker.ts'], outfile: 'out/query-worker.cjs', banner: { js: WORKER_BUILD_CHECK } }),
    // The service's worker threads start through this launcher, which runs their bundle with a V8
    // code cache made at build time (server/worker-launcher.ts).
    cjs({ entryPoints: ['server/worker-launcher.ts'], outfile: 'out/worker-launcher.cjs' }),
    // The library bundles its dependencies too, so the package installs with no dependency to fetch
    // (test/e2e/npm-pack.test.ts installs it offline).
    { ...common, entryPoints: ['language/index.ts'], outfile: 'out/index.mjs', format: 'esm', banner: { js: ESM_REQUIRE } },
    // `apl-tools/service`: the embedded service (createService, runServe), for programs and tests that
    // start one in-process. It starts the same worker bundles, found beside it in out/.
    { ...common, entryPoints: ['server/http/index.ts'], outfile: 'out/service.mjs', format: 'esm', banner: { js: ESM_REQUIRE } },
    // The VS Code extension (client/vscode/dist/) and its extension-host test suite (out/vscode-test/).
    ...vscodeBuilds(common, cjs, WORKER_BUILD_CHECK),
];
