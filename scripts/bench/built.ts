/**
 * The bins as users run them (out/, built by the project's own `node esbuild.mjs`, V8 code caches
 * included), rebuilt when a source is newer than the build: figures about start-up and about the
 * service as deployed must come from exactly what users get.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { type BenchContext, Skip, firstLine, projectPath } from './harness.js';

/** What the build writes last (the code caches, after the bundles): a build is as old as the oldest of them. */
const BUILD_OUTPUTS = ['out/language-server.v8-cache', 'out/apl-cli.v8-cache', 'out/apl-cli.serve.v8-cache'];
const SOURCES = ['server', 'language', 'client/cli', 'bin'];

let fresh = false;

/** The path of a file in out/, after rebuilding out/ when it is older than its sources. */
export function builtOut(ctx: BenchContext, file: string): string {
    if (!fresh) {
        const outputs = BUILD_OUTPUTS.map(projectPath);
        const built = outputs.every(existsSync) ? Math.min(...outputs.map((f) => statSync(f).mtimeMs)) : -1;
        if (built < newestMtime(SOURCES.map(projectPath))) {
            ctx.log('building out/ (node esbuild.mjs): the bins are older than their sources');
            const r = spawnSync(process.execPath, [projectPath('esbuild.mjs')], { cwd: projectPath('.'), encoding: 'utf8' });
            if (r.status !== 0) throw new Skip(`the bins do not build: ${firstLine(r.stderr)}`);
        }
        fresh = true;
    }
    const out = projectPath(path.join('out', file));
    if (!existsSync(out)) throw new Skip(`out/${file} was not built`);
    return out;
}

function newestMtime(dirs: string[]): number {
    let newest = 0;
    const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
            const p = path.join(dir, e.name);
            if (e.isDirectory()) walk(p);
            else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
        }
    };
    for (const d of dirs) if (existsSync(d)) walk(d);
    return newest;
}
