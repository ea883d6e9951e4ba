/**
 * Source maps only when asked for: the builds of scripts/bundles.mjs make none by default (so
 * neither out/ nor the package carries any), and every one with APL_SOURCEMAPS=1.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

/** `sourcemap` of each build, as a fresh node process with `env` imports scripts/bundles.mjs. */
function sourcemapOptions(env: NodeJS.ProcessEnv): unknown[] {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "const { builds } = await import('./scripts/bundles.mjs'); console.log(JSON.stringify(builds.map(b => b.sourcemap)));"], {
        cwd: REPO_ROOT,
        env: { ...process.env, APL_SOURCEMAPS: '', ...env },
        encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as unknown[];
}

describe('source maps', () => {
    it('none by default', () => {
        const options = sourcemapOptions({});
        expect(options.length).toBeGreaterThan(10);
        expect(options.every(o => o === false)).toBe(true);
    });

    it('every bundle with APL_SOURCEMAPS=1', () => {
        expect(sourcemapOptions({ APL_SOURCEMAPS: '1' }).every(o => o === true)).toBe(true);
    });
});
