/**
 * The `apl` bin (out/apl.cjs): runs the command-line bundle (out/apl-cli.cjs, built from ./main.ts)
 * with the V8 code cache made at build time from an `apl check` run, so that short commands start
 * faster (see ../../bin/code-cache.ts).
 */
import { join } from 'node:path';
import { runWithCodeCache } from '../../bin/code-cache.js';

// This file only ever runs as the CommonJS bundle in out/, where the module wrapper defines `__dirname`.
runWithCodeCache(join(__dirname, 'apl-cli.cjs'), join(__dirname, 'apl-cli.v8-cache'));
