/** Connections: the token only in the secret store, the settings with what is not secret, the fallbacks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAxiomConfig } from '../../../client/vscode/src/connections/axiom-config.js';
import { ConnectionManager, ENVIRONMENT_CONNECTION, LOCAL_CONNECTION, readProfiles, tokenKey, type ConnectionProfile } from '../../../client/vscode/src/connections/connection-manager.js';
import { serviceWithEvents, TOKEN, type Fixture } from './service-fixture.js';

/** In-memory stand-ins of VS Code's SecretStorage, settings and globalState (the edge the manager is given). */
function stores(initial: unknown = []) {
    const secrets = new Map<string, string>();
    const state = new Map<string, unknown>();
    let settings: unknown = initial;
    // What a folder's .vscode/settings.json would lay over the user's value (undefined: nothing).
    let workspace: unknown = undefined;
    const warnings: string[] = [];
    return {
        secrets,
        warnings,
        get settings() {
            return settings;
        },
        set settings(value: unknown) {
            settings = value;
        },
        set workspace(value: unknown) {
            workspace = value;
        },
        manager: (env: Record<string, string | undefined> = {}) =>
            new ConnectionManager(
                { read: () => workspace ?? settings, readUser: () => settings, write: async p => void (settings = JSON.parse(JSON.stringify(p))) },
                { get: async k => secrets.get(k), store: async (k, v) => void secrets.set(k, v), delete: async k => void secrets.delete(k) },
                { get: <T>(k: string) => state.get(k) as T | undefined, update: async (k, v) => void state.set(k, v) },
                env,
                message => warnings.push(message),
            ),
    };
}

let fx: Fixture;
beforeAll(async () => {
    fx = await serviceWithEvents(1);
});
afterAll(async () => fx?.close());

describe('ConnectionManager', () => {
    it('add: checks the token with GET /v2/user, then keeps it in the secret store only', async () => {
        const s = stores();
        const m = s.manager();
        const saved = await m.add({ name: 'local', url: fx.service.url + '/', paging: 'timestamp' }, TOKEN, c => c.user());
        expect(saved).toMatchObject({ name: 'local', url: fx.service.url, source: 'settings' });
        expect(s.settings).toEqual([{ name: 'local', url: fx.service.url, paging: 'timestamp' }]);
        expect(JSON.stringify(s.settings)).not.toContain(TOKEN);
        expect(JSON.parse(s.secrets.get(tokenKey('local'))!)).toEqual({ token: TOKEN, url: fx.service.url });
        expect(m.active()?.name).toBe('local');
        expect(await (await m.client(m.active()!)).user()).toHaveProperty('id');
    });

    it('a token the service refuses saves nothing, and the error does not contain it', async () => {
        const s = stores();
        const m = s.manager();
        const error = (await m.add({ name: 'bad', url: fx.service.url }, 'xaat-not-valid', c => c.user()).catch((e: unknown) => e)) as Error;
        expect(error.message).toMatch(/401|forbidden|token/i);
        expect(error.message).not.toContain('xaat-not-valid');
        expect(s.settings).toEqual([]);
        expect(s.secrets.size).toBe(0);
    });

    it('remove deletes the profile and its secret', async () => {
        const s = stores();
        const m = s.manager();
        await m.add({ name: 'a', url: fx.service.url }, TOKEN, async () => undefined);
        await m.add({ name: 'b', url: fx.service.url }, TOKEN, async () => undefined);
        await m.remove('a');
        expect(readProfiles(s.settings).map(p => p.name)).toEqual(['b']);
        expect(s.secrets.has(tokenKey('a'))).toBe(false);
        await expect(m.remove('a')).rejects.toThrow(/no saved connection/);
    });

    it('without a saved connection, AXIOM_URL / AXIOM_TOKEN / AXIOM_ORG_ID make one; a saved one replaces it', async () => {
        const s = stores();
        const m = s.manager({ AXIOM_URL: 'https://eu.example.test', AXIOM_TOKEN: 'xapt-env', AXIOM_ORG_ID: 'org-1' });
        expect(m.list()).toEqual([{ name: ENVIRONMENT_CONNECTION, url: 'https://eu.example.test', orgId: 'org-1', source: 'environment' }]);
        expect(await m.token(m.active()!)).toBe('xapt-env');
        await m.add({ name: 'saved', url: fx.service.url }, TOKEN, async () => undefined);
        expect(m.list().map(c => c.name)).toEqual(['saved']);
    });

    it('paging auto: cursor for the embedded service (loopback or local), timestamp for Axiom; a profile can override', () => {
        const m = stores().manager();
        expect(m.pagingOf({ name: 'x', url: 'https://api.axiom.co', source: 'settings' })).toBe('time');
        expect(m.pagingOf({ name: 'x', url: 'http://127.0.0.1:8686', source: 'settings' })).toBe('cursor');
        expect(m.pagingOf({ name: 'x', url: 'http://localhost:8686', source: 'settings' })).toBe('cursor');
        expect(m.pagingOf({ name: 'x', url: 'https://api.axiom.co', paging: 'cursor', source: 'settings' })).toBe('cursor');
        expect(m.pagingOf({ name: 'x', url: 'http://127.0.0.1:1', paging: 'timestamp', source: 'settings' })).toBe('time');
    });

    it('the local service is a connection while it runs, its token in memory', async () => {
        const m = stores().manager();
        m.setLocal('http://127.0.0.1:5555', 'xaat-local');
        await m.select(LOCAL_CONNECTION);
        expect(m.active()).toMatchObject({ name: LOCAL_CONNECTION, source: 'local' });
        expect(await m.token(m.active()!)).toBe('xaat-local');
        m.clearLocal();
        expect(m.active()).toBeUndefined();
    });

    it('readProfiles ignores invalid entries and any hand-written token key', () => {
        const profiles = readProfiles([{ name: 'ok', url: 'https://api.axiom.co', token: 'xaat-in-settings' }, { name: '', url: 'x' }, { name: 'bad-url', url: 'ftp://x' }, 'nope', { name: 'ok', url: 'https://dup' }]);
        expect(profiles).toEqual([{ name: 'ok', url: 'https://api.axiom.co' }] satisfies ConnectionProfile[]);
    });

    it('rejects a profile with a bad URL or paging before asking the service', async () => {
        const m = stores().manager();
        let asked = false;
        const verify = async () => void (asked = true);
        await expect(m.add({ name: 'x', url: 'ftp://api.axiom.co' }, 't', verify)).rejects.toThrow(/http/);
        await expect(m.add({ name: 'x', url: 'https://a', paging: 'sideways' as never }, 't', verify)).rejects.toThrow(/paging/);
        await expect(m.add({ name: 'x', url: 'https://a' }, ' ', verify)).rejects.toThrow(/token/);
        expect(asked).toBe(false);
    });

    it('127.0.0.1:8686 is saved as http://127.0.0.1:8686, as the CLI reads --url', async () => {
        const m = stores().manager();
        const saved = await m.add({ name: 'local', url: '127.0.0.1:8686/' }, 't', async () => undefined);
        expect(saved.url).toBe('http://127.0.0.1:8686');
        expect(m.profiles()).toEqual([{ name: 'local', url: 'http://127.0.0.1:8686' }]);
    });
});

describe('a token goes only to the URL (and org) it was saved with', () => {
    it('a folder that redefines a saved connection with another URL gets no token, and a warning', async () => {
        const s = stores();
        const m = s.manager();
        await m.add({ name: 'prod', url: 'https://api.axiom.co', orgId: 'acme' }, 'xapt-secret', async () => undefined);
        s.workspace = [{ name: 'prod', url: 'http://127.0.0.1:9/steal', orgId: 'acme' }];
        const redirected = m.active()!;
        expect(redirected.url).toBe('http://127.0.0.1:9/steal');
        await expect(m.token(redirected)).rejects.toThrow(/saved for https:\/\/api\.axiom\.co/);
        await expect(m.client(redirected)).rejects.toThrow(/not for http:\/\/127\.0\.0\.1:9\/steal/);
        expect(s.warnings.length).toBeGreaterThan(0);
        expect(s.warnings.join('\n')).not.toContain('xapt-secret');
        s.workspace = undefined;
        expect(await m.token(m.active()!)).toBe('xapt-secret');
    });

    it('another org id is refused as well; the same URL written differently is not', async () => {
        const s = stores();
        const m = s.manager();
        await m.add({ name: 'prod', url: 'https://api.axiom.co', orgId: 'acme' }, 'xapt-secret', async () => undefined);
        await expect(m.token({ name: 'prod', url: 'https://api.axiom.co', orgId: 'evil', source: 'settings' })).rejects.toThrow(/org/);
        await expect(m.token({ name: 'prod', url: 'https://api.axiom.co', source: 'settings' })).rejects.toThrow(/org/);
        expect(await m.token({ name: 'prod', url: 'https://api.axiom.co/', orgId: 'acme', source: 'settings' })).toBe('xapt-secret');
    });

    it('a token saved before the binding is bound on first use to the URL of the user settings, never of the folder', async () => {
        const s = stores([{ name: 'prod', url: 'https://api.axiom.co' }]);
        s.secrets.set(tokenKey('prod'), 'xapt-old');
        s.workspace = [{ name: 'prod', url: 'https://evil.example' }];
        const m = s.manager();
        await expect(m.token(m.active()!)).rejects.toThrow(/saved for https:\/\/api\.axiom\.co/);
        expect(JSON.parse(s.secrets.get(tokenKey('prod'))!)).toEqual({ token: 'xapt-old', url: 'https://api.axiom.co' });
        s.workspace = undefined;
        expect(await m.token(m.active()!)).toBe('xapt-old');
    });

    it('a token saved before the binding whose name the user settings do not hold is used nowhere', async () => {
        const s = stores([]);
        s.secrets.set(tokenKey('prod'), 'xapt-old');
        s.workspace = [{ name: 'prod', url: 'https://evil.example' }];
        const m = s.manager();
        await expect(m.token(m.active()!)).rejects.toThrow(/user settings/);
        expect(s.secrets.get(tokenKey('prod'))).toBe('xapt-old');
    });

    it('a URL changed in the user settings by hand needs the token again', async () => {
        const s = stores();
        const m = s.manager();
        await m.add({ name: 'prod', url: 'https://api.axiom.co' }, 'xapt-secret', async () => undefined);
        s.settings = [{ name: 'prod', url: 'https://other.example' }];
        await expect(m.client(m.active()!)).rejects.toThrow(/Add Connection/);
    });
});

describe('~/.axiom.toml', () => {
    it('reads the deployments and which one is active', () => {
        const text = 'active_deployment = "prod"\n\n[deployments.prod]\nurl = "https://api.axiom.co"\ntoken = "xapt-1"\norg_id = "acme"\n\n[deployments.dev]\nurl = "http://127.0.0.1:8686"\ntoken = "xaat-2"\n\n[deployments.broken]\nurl = "https://x"\n';
        expect(parseAxiomConfig(text)).toEqual([
            { name: 'prod', url: 'https://api.axiom.co', token: 'xapt-1', orgId: 'acme', active: true },
            { name: 'dev', url: 'http://127.0.0.1:8686', token: 'xaat-2', orgId: undefined, active: false },
        ]);
    });

    it('names the problem in a file that is not TOML', () => {
        expect(() => parseAxiomConfig('[deployments.prod\nurl = 1')).toThrow(/not valid TOML/);
    });
});
