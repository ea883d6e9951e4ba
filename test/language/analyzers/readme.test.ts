/** The README's table of analyzer rules lists every rule of the catalogue, with its default and fix. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allAnalyzerRules } from '../../../language/analyzers/analyzer-rules.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('README: Best-practice analyzers', () => {
    for (const rule of allAnalyzerRules()) {
        it(`${rule.code} ${rule.id}`, () => {
            const row = README.split('\n').find(l => l.startsWith(`| ${rule.code} | \`${rule.id}\` |`));
            expect(row, `no README row for ${rule.code}`).toBeDefined();
            expect(row).toContain(`| ${rule.severity} |`);
            expect(row).toContain(rule.fix === 'safe' ? 'safe (`--fix`)' : rule.fix === 'suggested' ? 'suggested (editor)' : '| — |');
        });
    }
});
