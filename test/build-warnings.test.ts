/**
 * The package's esbuild builds (scripts/bundles.mjs, what `npm run bundle` runs) print no warning.
 * A warning is a real problem more often than not: `"import.meta" is not available with the "cjs"
 * output format` meant the bundled service found its worker files only by a fallback.
 */
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without type declarations
import { builds } from '../scripts/bundles.mjs';
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
});
