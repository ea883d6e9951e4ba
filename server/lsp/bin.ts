/**
 * The `apl-language-server` bin (out/apl-language-server.cjs). On POSIX systems its first lines are
 * a shell script (launcher.sh) that starts the server from its start-up snapshot when there is a
 * current one (snapshot-file.ts); elsewhere, and when there is none, node runs this: the server
 * bundle (out/language-server.cjs, built from ./main.ts) with the V8 code cache made at build time,
 * which takes about 100 ms off every start (see ../../bin/code-cache.ts).
 *
 * `apl-language-server --make-snapshot` makes the snapshot for the node that runs it (the build
 * does, and the launcher asks for one in the background when node changed).
 */
import { join } from 'node:path';
import { runWithCodeCache } from '../../bin/code-cache.js';
import { makeSnapshot, refreshSnapshotLater } from './snapshot-file.js';

// This file only ever runs as the CommonJS bundle in out/, where the module wrapper defines `__dirname`.
if (process.argv[2] === '--make-snapshot') {
    try {
        makeSnapshot(__dirname);
    } catch (e) {
        process.stderr.write(`apl-language-server: cannot make the start-up snapshot: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exitCode = 1;
    }
} else {
    // Set by launcher.sh when it found no snapshot for this node.
    const stale = process.env.APL_LANGUAGE_SERVER_SNAPSHOT === 'stale';
    delete process.env.APL_LANGUAGE_SERVER_SNAPSHOT;
    runWithCodeCache(join(__dirname, 'language-server.cjs'), join(__dirname, 'language-server.v8-cache'));
    if (stale) refreshSnapshotLater(__dirname);
}
