/**
 * The entry of the service's worker threads in out/ (out/worker-launcher.cjs): runs the worker
 * bundle named after `--apl-worker` (query-worker, ingest-worker, compact-worker, beside this file)
 * with the V8 code cache the build made for it (../bin/code-cache.ts).
 *
 * Why: without one, each query worker spent 230-360 ms of CPU compiling its 1 MB bundle before it
 * could take a query, on the same two cores as the main thread's own start-up (issue 31). The
 * caches are made by the build's warm-up `apl serve` session (scripts/warm-code-cache.mjs); the
 * workers save theirs after their work there (saveCodeCacheNow), since a terminated worker sees no
 * 'exit'. The bundle's own first lines still check that it is of the running process's build.
 */
import { join } from 'node:path';
import { runWithCodeCache } from '../bin/code-cache.js';

const at = process.argv.indexOf('--apl-worker');
const name = at >= 0 ? process.argv[at + 1] : undefined;
if (name === undefined || !/^[a-z-]+$/.test(name)) throw new Error(`worker-launcher: no worker named (--apl-worker), got ${String(name)}`);
// This file only ever runs as the CommonJS bundle in out/, where the module wrapper defines `__dirname`.
runWithCodeCache(join(__dirname, `${name}.cjs`), join(__dirname, `${name}.v8-cache`));
