/**
 * The package's esbuild builds (scripts/bundles.mjs, what `npm run bundle` runs) print no warning,
 * and the bins' bundles are Latin-1.
 * A warning is a real problem more often than not: `"import.meta" is not available with the "cjs"
 * output format` meant the bundled service found its worker files only by a fallback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without type declarations
import { builds, lazyFastifyHttp2 } from '../scripts/bundles.mjs';
import { REPO_ROOT } from './support/cli.js';

describe('npm run bundle', () => {
    it('every bundle builds without a warning', async () => {
        const warnings: string[] = [];
        for (const options of builds as esbuild.BuildOptions[]) {
            const result = await esbuild.build({ ...options, absWorkingDir: REPO_ROOT, write: false, logLevel: 'silent', sourcemap: false });
            const text = await esbuild.formatMessages(result.warnings, { kind: 'warning', color: false });
            warnings.push(...text.map(t => `${String(options.entryPoints)}: ${t}`));
        }
        expect(warnings).toEqual([]);
    });

    // One character outside Latin-1 (a μ in a regular expression, which esbuild does not escape)
    // makes V8 hold the whole bundle's source as UTF-16: twice the memory, in every process and in
    // the language server's start-up snapshot, which node then reads at every start.
    it('the CommonJS bundles are Latin-1 (one byte a character for V8)', async () => {
        const offending: string[] = [];
        for (const options of (builds as esbuild.BuildOptions[]).filter(o => o.format === 'cjs')) {
            const result = await esbuild.build({ ...options, absWorkingDir: REPO_ROOT, write: false, logLevel: 'silent', sourcemap: false });
            for (const file of result.outputFiles ?? []) {
                const at = firstWide(file.text);
                if (at >= 0) offending.push(`${String(options.entryPoints)}: ${JSON.stringify(file.text.slice(Math.max(0, at - 30), at + 10))}`);
            }
        }
        expect(offending).toEqual([]);
    });
});

/** The index of the first UTF-16 unit above 0xff, or -1. */
function firstWide(text: string): number {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return i;
    return -1;
}

describe('the lazy-fastify-http2 plugin', () => {
    // The service never serves HTTP/2; compiling node's http2 module costs every start 5-15 ms.
    it('a bundle that builds a fastify server does not load node:http2', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'apl-lazy-http2-'));
        try {
            const outfile = path.join(dir, 'probe.cjs');
            await esbuild.build({
                stdin: { contents: "import Fastify from 'fastify'; await Fastify().ready(); console.log(JSON.stringify(process.moduleLoadList.filter(m => /http2/.test(m))));", resolveDir: REPO_ROOT, loader: 'ts' },
                bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent', plugins: [lazyFastifyHttp2],
                banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
            });
            const mjs = outfile.replace(/\.cjs$/, '.mjs');
            renameSync(outfile, mjs);
            expect(JSON.parse(execFileSync(process.execPath, [mjs], { encoding: 'utf8' }))).toEqual([]);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
