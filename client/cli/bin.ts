/**
 * The `apl` bin (out/apl.cjs): runs the command-line bundle (out/apl-cli.cjs, built from ./main.ts)
 * with a V8 code cache made at build time (see ../../bin/code-cache.ts): for `apl serve` one made
 * from a service session (start, ingest, query, stop), for every other command one made from an
 * `apl check` run. A cache holds the functions its run compiled, and the two runs share little.
 */
import { join } from 'node:path';
import { runWithCodeCache } from '../../bin/code-cache.js';

// This file only ever runs as the CommonJS bundle in out/, where the module wrapper defines `__dirname`.
runWithCodeCache(join(__dirname, 'apl-cli.cjs'), join(__dirname, process.argv[2] === 'serve' ? 'apl-cli.serve.v8-cache' : 'apl-cli.v8-cache'));
