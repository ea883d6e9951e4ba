/**
 * docs/service.md documents every option of `apl serve`: each option that `apl serve --help` (the
 * built CLI) lists has a row of its own in the options table, and the usage line names it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runApl } from './support/cli.js';

const doc = readFileSync(join(REPO_ROOT, 'docs/service.md'), 'utf8');
const help = runApl(['serve', '--help']);
/** The options the help describes: the lines that start with an option name. */
const options = [...help.stdout.matchAll(/^ {2}(--[a-z][a-z-]*)/gm)].map(m => m[1]);

describe('docs/service.md and apl serve --help', () => {
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
