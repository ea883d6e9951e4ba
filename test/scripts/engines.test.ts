/**
 * `engines` in package.json tells the truth (issue 31): the oldest Node it admits, and each current
 * LTS line (22 and 24), satisfy the `engines.node` of every package that `npm ci` installs, so
 * `npm ci` prints no engine warning on a supported Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

interface LockPackage {
    engines?: { node?: string } | string[];
    optional?: boolean;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };

/** Each installed package's name and `engines.node` (old lockfiles may hold an array; npm ignores those). */
const declared = Object.entries(lock.packages).flatMap(([path, p]) => {
    const node = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
    return path !== '' && node !== undefined && !p.optional ? [{ name: path.replace(/^.*node_modules\//, ''), node }] : [];
});

describe('package.json engines.node', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;

    it.each([oldest, '22.22.0', '24.0.0'])('Node %s: every installed package accepts it', version => {
        expect(semver.satisfies(version, pkg.engines.node), `${version} is outside ${pkg.engines.node}`).toBe(true);
        expect(declared.filter(d => !semver.satisfies(version, d.node)).map(d => `${d.name}: ${d.node}`)).toEqual([]);
    });

    it('Node 20 (end of life) is not admitted', () => {
        expect(semver.satisfies('20.19.0', pkg.engines.node)).toBe(false);
    });
});
