/**
 * The language server's analyzer settings over real files: the `apl.analyzers` setting, the nearest
 * `.aplrc.json` above a document, and a bad project file reported once and ignored.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ServerAnalyzerSettings } from '../../../server/lsp/analyzer-settings.js';

function workspace(): { dir: string; uri: (p: string) => string } {
    const dir = mkdtempSync(join(tmpdir(), 'apl-rc-'));
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    return { dir, uri: p => pathToFileURL(join(dir, p)).toString() };
}

describe('ServerAnalyzerSettings', () => {
    it('is on with the defaults, off with {"enabled": false}', () => {
        const { uri } = workspace();
        const settings = new ServerAnalyzerSettings(() => undefined);
        expect(settings.configFor(uri('q.apl'))).toEqual({});
        settings.applySetting({ enabled: false });
        expect(settings.configFor(uri('q.apl'))).toBeUndefined();
        settings.applySetting({ rules: { APL2001: 'off' } });
        expect(settings.configFor('untitled:Untitled-1')).toEqual({ rules: { APL2001: 'off' } });
    });

    it('reads the nearest .aplrc.json above the document, over the setting', () => {
        const { dir, uri } = workspace();
        writeFileSync(join(dir, '.aplrc.json'), JSON.stringify({ rules: { APL2001: 'off' } }));
        writeFileSync(join(dir, 'a', '.aplrc.json'), JSON.stringify({ rules: { APL2002: 'error' }, requireTimeFilter: true }));
        const settings = new ServerAnalyzerSettings(() => undefined);
        settings.applySetting({ rules: { APL2003: 'off', APL2002: 'off' } });
        expect(settings.configFor(uri('a/b/q.apl'))).toEqual({ rules: { APL2003: 'off', APL2002: 'error' }, requireTimeFilter: true });
        expect(settings.configFor(uri('q.apl'))).toEqual({ rules: { APL2003: 'off', APL2002: 'off', APL2001: 'off' } });
    });

    it('a bad .aplrc.json is shown once and ignored', () => {
        const { dir, uri } = workspace();
        writeFileSync(join(dir, '.aplrc.json'), '{"rules": {"APL2001": "loud"}}');
        const shown: string[] = [];
        const settings = new ServerAnalyzerSettings(m => shown.push(m));
        expect(settings.configFor(uri('q.apl'))).toEqual({});
        expect(settings.configFor(uri('q.apl'))).toEqual({});
        expect(shown).toHaveLength(1);
        expect(shown[0]).toMatch(/\.aplrc\.json: "rules"\."APL2001": "loud" is not/);
    });
});
