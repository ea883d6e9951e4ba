// Runs `runWithCodeCache(bundle, cache)` in a fresh process (V8 keeps compiled scripts per process,
// so only a new process shows whether the cache itself was used) and prints what happened as JSON.
// Usage: node --import tsx run-with-code-cache.ts BUNDLE CACHE [--save]
import { runWithCodeCache } from '../../bin/code-cache.js';

const [bundle, cache, save] = process.argv.slice(2);
// Our own cache only: on node ≥ 22.1 a bundle without one would otherwise run with node's compile cache.
const run = runWithCodeCache(bundle!, cache!, { nodeCompileCache: false });
if (save === '--save') run.save();
process.stdout.write(JSON.stringify({ cache: run.cache, seen: (globalThis as { __codeCacheTest?: unknown }).__codeCacheTest }));
