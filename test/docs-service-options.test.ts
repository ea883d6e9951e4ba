/**
 * docs/service.md documents every option of `apl serve`: each option that the command defines
 * (client/cli/commands/serve.ts) is in `apl serve --help` (the built CLI), and each has a row of its
 * own in the options table of docs/service.md, and is in its usage line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runApl } from './support/cli.js';

const doc = readFileSync(join(REPO_ROOT, 'docs/service.md'), 'utf8');
const help = runApl(['serve', '--help']);
/** The options the help describes: the lines that start with an option name. */
const options = [...help.stdout.matchAll(/^ {2}(--[a-z][a-z-]*)/gm)].map(m => m[1]);

/** The options the serve command defines (its parseArgs options: `name: { type: … }`), but --help. */
const defined = [...readFileSync(join(REPO_ROOT, 'client/cli/commands/serve.ts'), 'utf8').matchAll(/^\s*'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm)]
    .map(m => `--${m[1]}`)
    .filter(o => o !== '--help');

describe('docs/service.md and apl serve --help', () => {
    it('apl serve --help lists every option the command defines', () => {
        expect(defined.length).toBeGreaterThan(8);
        expect([...options].sort()).toEqual([...defined].sort());
    });

    it('apl serve --help lists its options', () => {
        expect(help.code).toBe(0);
        expect(options).toContain('--query-timeout');
        expect(options.length).toBeGreaterThan(8);
    });

    it.each(options)('%s has a row in the options table and is in the usage line', option => {
        expect(doc).toMatch(new RegExp(`^\\| \`${option}[ \`]`, 'm'));
        const usage = /^`apl serve [^`]*`$/m.exec(doc)?.[0] ?? '';
        expect(usage).toContain(`[${option}`);
    });
});
