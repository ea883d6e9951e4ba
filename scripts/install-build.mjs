// Moves a build made in a staging folder (esbuild.mjs) into place, so that a rebuild never rewrites
// out/ under a running `apl serve` or language server:
// - each file is renamed over the old one (an atomic step on one file system): a process that has a
//   bundle open keeps reading the old file, and one that opens it later reads the whole new one,
//   never a half-written file;
// - the launchers come last, so a process started during the move runs the new bundles;
// - the files of an earlier build that this one did not make (a source map, a snapshot that this
//   build could not make) are removed, so no bundle, map, cache or snapshot belongs to another
//   build; what else lives in out/ stays (the .vsix of `npm run package:vscode`, the screenshots
//   of the VS Code tests, the build stamp of scripts/prepare.mjs).
// A service that was running keeps its old bundles in memory but starts its worker threads from the
// files later: each bundle carries its build's id, and a worker of another build refuses to start
// (scripts/bundles.mjs, server/worker-boot.ts), so the service reports that it must be restarted.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The files under `dir`, as paths relative to it with `/`. */
function filesUnder(dir, prefix = '') {
    if (!existsSync(dir)) return [];
    const files = [];
    for (const e of readdirSync(dir, { withFileTypes: true })) {
        const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
        if (e.isDirectory()) files.push(...filesUnder(join(dir, e.name), rel));
        else files.push(rel);
    }
    return files;
}

/** What a build makes: only such files of an earlier build are removed. */
const BUILD_OUTPUT = /\.(cjs|mjs|js|css|map|v8-cache)$|(^|\/)language-server\.snapshot\.[a-z]+$/;

/** The bins' launchers: moved last. */
const LAUNCHERS = new Set(['apl.cjs', 'apl-language-server.cjs']);

/**
 * Moves `stage/<folder>` to `root/<folder>` for each folder, file by file; removes the build
 * outputs of `root/<folder>` that the stage does not have.
 */
export function installBuild(stage, root, folders) {
    for (const folder of folders) {
        const from = join(stage, folder);
        const to = join(root, folder);
        const built = filesUnder(from).sort((a, b) => Number(LAUNCHERS.has(a)) - Number(LAUNCHERS.has(b)));
        for (const file of built) {
            mkdirSync(dirname(join(to, file)), { recursive: true });
            try {
                renameSync(join(from, file), join(to, file));
            } catch (err) {
                // Windows does not replace a file that a running process has open.
                throw new Error(`cannot replace ${folder}/${file} (${err.code ?? err.message}): stop the apl serve or language server that runs from ${folder}/, then build again`, { cause: err });
            }
        }
        const made = new Set(built);
        for (const file of filesUnder(to)) {
            if (!made.has(file) && BUILD_OUTPUT.test(file)) rmSync(join(to, file), { force: true });
        }
        removeEmptyFolders(to);
    }
}

function removeEmptyFolders(dir) {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        const sub = join(dir, e.name);
        removeEmptyFolders(sub);
        if (readdirSync(sub).length === 0) rmSync(sub, { recursive: true });
    }
}
