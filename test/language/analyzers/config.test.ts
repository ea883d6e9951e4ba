/**
 * The analyzers' configuration: the `.aplrc.json` / `apl.analyzers` value checked field by field, the
 * project file found upward from a file (the reading injected), and settings merged with it.
 */
import { describe, expect, it } from 'vitest';
import { mergeAnalyzerConfigs, parseAnalyzerConfig } from '../../../language/analyzers/analyzer-config.js';
import { findProjectConfig, projectConfigCandidates } from '../../../language/analyzers/project-config.js';
import { checkText } from '../../../language/check.js';

describe('analyzer configuration', () => {
    it('{"rules": {"APL2001": "off", "APL2006": "error"}, "requireTimeFilter": true}', () => {
        expect(parseAnalyzerConfig({ rules: { APL2001: 'off', APL2006: 'error' }, requireTimeFilter: true, format: { pipe: 'start' } }, '.aplrc.json'))
            .toEqual({ rules: { APL2001: 'off', APL2006: 'error' }, requireTimeFilter: true });
    });

    it.each([
        [[], /must be a JSON object/],
        [{ rules: [] }, /"rules" must be an object/],
        [{ rules: { APL0001: 'off' } }, /"rules"\."APL0001": not an analyzer code/],
        [{ rules: { APL2001: 'loud' } }, /"rules"\."APL2001": "loud" is not "off", "info", "warning" or "error"/],
        [{ requireTimeFilter: 'yes' }, /"requireTimeFilter" must be true or false/],
    ])('%j is refused with the field named', (value, message) => {
        expect(() => parseAnalyzerConfig(value, '/p/.aplrc.json')).toThrow(message);
    });

    it('the project file wins over the settings rule by rule', () => {
        expect(mergeAnalyzerConfigs({ rules: { APL2001: 'off', APL2002: 'warning' }, requireTimeFilter: true }, { rules: { APL2002: 'off' } }))
            .toEqual({ rules: { APL2001: 'off', APL2002: 'off' }, requireTimeFilter: true });
    });

    it('/w/a/b/q.apl looks in /w/a/b, /w/a, /w and /', () => {
        expect(projectConfigCandidates('/w/a/b/q.apl')).toEqual(['/w/a/b/.aplrc.json', '/w/a/.aplrc.json', '/w/.aplrc.json', '/.aplrc.json']);
        expect(projectConfigCandidates('C:\\w\\q.apl')).toEqual(['C:\\w\\.aplrc.json', 'C:\\.aplrc.json']);
    });

    it('the nearest project file applies', () => {
        const files: Record<string, string> = { '/w/.aplrc.json': '{"rules": {"APL2001": "off"}}', '/w/a/.aplrc.json': '{"rules": {"APL2002": "off"}}' };
        const read = (p: string) => files[p];
        expect(findProjectConfig('/w/a/b/q.apl', read)).toEqual({ path: '/w/a/.aplrc.json', config: { rules: { APL2002: 'off' } } });
        expect(findProjectConfig('/w/q.apl', read)?.path).toBe('/w/.aplrc.json');
        expect(findProjectConfig('/v/q.apl', read)).toBeUndefined();
    });

    it('a project file that is not JSON is named in the error', () => {
        expect(() => findProjectConfig('/w/q.apl', p => (p === '/w/.aplrc.json' ? '{rules:' : undefined))).toThrow(/\/w\/\.aplrc\.json: not valid JSON/);
    });

    it("['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 1 with APL2002 off and APL2006 a warning", async () => {
        const d = await checkText("['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 1", { analyzers: { rules: { APL2002: 'off', APL2006: 'warning' } } });
        expect(d.map(x => `${x.code} ${x.severity}`)).toEqual(['APL2006 warning']);
    });
});

describe('the library', () => {
    it("['logs'] | sort by ms desc | take 3 through check and applyFixes (README example)", async () => {
        const { check, applyFixes } = await import('../../../language/index.js');
        const advice = await check("['logs'] | sort by ms desc | take 3", { analyzers: { rules: { APL2009: 'off' } } });
        expect(advice.map(d => d.code)).toEqual(['APL2006']);
        expect(applyFixes("['logs'] | sort by ms desc | take 3", advice).text).toBe("['logs'] | top 3 by ms desc");
    });
});
