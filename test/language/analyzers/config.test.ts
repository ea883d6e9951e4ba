/**
 * The analyzers' configuration: the `.aplrc.json` / `apl.analyzers` value checked field by field, the
 * settings merged with the project file (found and read by server/config/aplrc.ts, tested in
 * test/server/config/aplrc.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mergeAnalyzerConfigs, parseAnalyzerConfig } from '../../../language/analyzers/analyzer-config.js';
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
