import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './support/cli.js';

/** The README's library example, run as written against the built package (`apl-tools` → out/index.mjs). */
it('README: the library example runs and prints what it says', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The library'));
    const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    // Inside the package directory, `apl-tools` resolves to the package itself through its exports map.
    const file = join(REPO_ROOT, 'out', `readme-example-${process.pid}.mjs`);
    writeFileSync(file, code!);
    try {
        const run = spawnSync(process.execPath, [file], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        const printed = run.stdout.replace(/\s+/g, ' ');
        expect(printed).toContain("[ 'geo.city', 'n', 'avg_ms' ] [ [ 'Berlin', 'Paris' ], [ 2, 1 ], [ 9.75, 80 ] ]");
        expect(printed).toContain("{ op: 'count', value: 1 }");
    } finally {
        rmSync(file, { force: true });
    }
});
