/**
 * Connections (profiles): the settings hold only what is not secret (`apl.connections`: name, URL,
 * org id, paging); each token lives in SecretStorage under a key derived from the name, and in no
 * setting, log or error message. A stored token is bound to the URL and org id it was saved with and
 * goes nowhere else: a folder's settings that redefine a connection (same name, another URL) must
 * not redirect its token. Without any configured connection, `AXIOM_URL` / `AXIOM_TOKEN` /
 * `AXIOM_ORG_ID` from the environment make one; the local service started by the extension is one
 * more, for as long as it runs.
 */
import { AplClient } from '../../../api/client.js';
import type { PagingKind } from '../../../api/paging.js';
import { normalizeServiceUrl } from '../../../api/service-url.js';

export const PAGING_SETTINGS = ['auto', 'cursor', 'timestamp'] as const;
export type PagingSetting = (typeof PAGING_SETTINGS)[number];

export interface ConnectionProfile {
    name: string;
    url: string;
    orgId?: string;
    paging?: PagingSetting;
}

export type ConnectionSource = 'settings' | 'environment' | 'local';

export interface Connection extends ConnectionProfile {
    source: ConnectionSource;
}

/** The parts of VS Code the manager needs (SecretStorage, the `apl.connections` setting, globalState). */
export interface SecretStore {
    get(key: string): PromiseLike<string | undefined>;
    store(key: string, value: string): PromiseLike<void>;
    delete(key: string): PromiseLike<void>;
}
export interface ConnectionSettings {
    /** The effective `apl.connections`. */
    read(): unknown;
    /** The user's own value (user settings only, never a folder's): the only trusted source of a URL. */
    readUser(): unknown;
    write(profiles: ConnectionProfile[]): PromiseLike<void>;
}
export interface StateStore {
    get<T>(key: string): T | undefined;
    update(key: string, value: unknown): PromiseLike<void>;
}

export const ENVIRONMENT_CONNECTION = 'environment (AXIOM_URL)';
export const LOCAL_CONNECTION = 'local service';
const ACTIVE_KEY = 'apl.activeConnection';

export function tokenKey(name: string): string {
    return `apl.connection.token:${name}`;
}

/** What SecretStorage holds per connection: the token and where it may be sent. */
export interface BoundSecret {
    token: string;
    url: string;
    orgId?: string;
}

/** The bound secret in `stored`, or undefined for a token saved before the binding (a bare string). */
export function parseBoundSecret(stored: string): BoundSecret | undefined {
    if (!stored.startsWith('{')) return undefined;
    try {
        const v = JSON.parse(stored) as Record<string, unknown>;
        if (typeof v.token !== 'string' || typeof v.url !== 'string') return undefined;
        const bound: BoundSecret = { token: v.token, url: v.url };
        if (typeof v.orgId === 'string' && v.orgId !== '') bound.orgId = v.orgId;
        return bound;
    } catch {
        return undefined;
    }
}

function serializeBoundSecret(secret: BoundSecret): string {
    const out: BoundSecret = { token: secret.token, url: secret.url };
    if (secret.orgId) out.orgId = secret.orgId;
    return JSON.stringify(out);
}

function sameUrl(a: string, b: string): boolean {
    const na = normalizeServiceUrl(a);
    const nb = normalizeServiceUrl(b);
    return na.ok && nb.ok && na.url === nb.url;
}

/** Why `profile` cannot be saved, or undefined. */
export function profileProblem(profile: ConnectionProfile): string | undefined {
    if (typeof profile.name !== 'string' || profile.name.trim() === '') return 'the connection needs a name';
    if (profile.name === ENVIRONMENT_CONNECTION || profile.name === LOCAL_CONNECTION) return `'${profile.name}' is reserved`;
    if (typeof profile.url !== 'string') return 'the connection needs a URL';
    const url = normalizeServiceUrl(profile.url);
    if (!url.ok) return url.problem;
    if (profile.orgId !== undefined && typeof profile.orgId !== 'string') return 'orgId must be a string';
    if (profile.paging !== undefined && !(PAGING_SETTINGS as readonly string[]).includes(profile.paging)) return `paging must be one of ${PAGING_SETTINGS.join(', ')}, got '${String(profile.paging)}'`;
    return undefined;
}

/** The valid profiles of the setting (anything else, e.g. a hand-written `token` key, is ignored). */
export function readProfiles(value: unknown): ConnectionProfile[] {
    if (!Array.isArray(value)) return [];
    const out: ConnectionProfile[] = [];
    for (const v of value) {
        if (!v || typeof v !== 'object') continue;
        const { name, url, orgId, paging } = v as Record<string, unknown>;
        const profile: ConnectionProfile = { name: String(name ?? ''), url: String(url ?? '') };
        if (typeof orgId === 'string' && orgId !== '') profile.orgId = orgId;
        if (typeof paging === 'string') profile.paging = paging as PagingSetting;
        if (!profileProblem(profile) && !out.some(p => p.name === profile.name)) out.push(profile);
    }
    return out;
}

function isLoopback(url: string): boolean {
    try {
        const host = new URL(url).hostname;
        return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
    } catch {
        return false;
    }
}

export class ConnectionManager {
    private local: { url: string; token: string } | undefined;
    private readonly listeners = new Set<() => void>();

    constructor(
        private readonly settings: ConnectionSettings,
        private readonly secrets: SecretStore,
        private readonly state: StateStore,
        private readonly env: Readonly<Record<string, string | undefined>>,
        /** Told (once per connection and URL) when a token is refused because the URL or org differs. */
        private readonly warn: (message: string) => void = () => undefined,
    ) {}

    private readonly warned = new Set<string>();

    onDidChange(listener: () => void): { dispose(): void } {
        this.listeners.add(listener);
        return { dispose: () => this.listeners.delete(listener) };
    }

    /** Tells listeners (status bar, schema) that the list or the active connection changed. */
    changed(): void {
        for (const l of this.listeners) l();
    }

    profiles(): ConnectionProfile[] {
        return readProfiles(this.settings.read());
    }

    /** Every usable connection: the configured ones (else the environment's), and the local service. */
    list(): Connection[] {
        const list: Connection[] = this.profiles().map(p => ({ ...p, source: 'settings' as const }));
        if (list.length === 0 && this.env.AXIOM_TOKEN) {
            list.push({ name: ENVIRONMENT_CONNECTION, url: this.env.AXIOM_URL || 'https://api.axiom.co', orgId: this.env.AXIOM_ORG_ID || undefined, source: 'environment' });
        }
        if (this.local) list.push({ name: LOCAL_CONNECTION, url: this.local.url, paging: 'cursor', source: 'local' });
        return list;
    }

    /** The selected connection, else the first one. */
    active(): Connection | undefined {
        const list = this.list();
        const name = this.state.get<string>(ACTIVE_KEY);
        return list.find(c => c.name === name) ?? list[0];
    }

    async select(name: string): Promise<Connection> {
        const found = this.list().find(c => c.name === name);
        if (!found) throw new Error(`no connection named '${name}'`);
        await this.state.update(ACTIVE_KEY, name);
        this.changed();
        return found;
    }

    async token(connection: Connection): Promise<string | undefined> {
        switch (connection.source) {
            case 'settings':
                return this.boundToken(connection);
            case 'environment':
                return this.env.AXIOM_TOKEN;
            case 'local':
                return this.local?.token;
        }
    }

    /**
     * The saved token of `connection` if it was saved for this very URL and org id; a token saved
     * before the binding is bound on first use to the URL of the user's own settings (never a
     * folder's). Any mismatch throws (and warns): the token is not sent.
     */
    private async boundToken(connection: Connection): Promise<string | undefined> {
        const key = tokenKey(connection.name);
        const stored = await this.secrets.get(key);
        if (stored === undefined) return undefined;
        let bound = parseBoundSecret(stored);
        if (!bound) {
            const user = readProfiles(this.settings.readUser()).find(p => p.name === connection.name);
            if (!user) {
                throw this.refuse(connection, `the saved token of '${connection.name}' is not bound to a URL and your user settings hold no connection of that name: it is not sent to ${connection.url}. Add the connection again with 'APL: Add Connection'`);
            }
            bound = { token: stored, url: user.url, orgId: user.orgId };
            await this.secrets.store(key, serializeBoundSecret(bound));
        }
        if (!sameUrl(bound.url, connection.url)) {
            throw this.refuse(connection, `the token of '${connection.name}' was saved for ${bound.url}, not for ${connection.url}: it is not sent there. If that address is right, add the connection again with 'APL: Add Connection'`);
        }
        if ((bound.orgId ?? '') !== (connection.orgId ?? '')) {
            throw this.refuse(connection, `the token of '${connection.name}' was saved for the org id '${bound.orgId ?? ''}', not '${connection.orgId ?? ''}': it is not sent. If that org is right, add the connection again with 'APL: Add Connection'`);
        }
        return bound.token;
    }

    private refuse(connection: Connection, message: string): Error {
        const once = `${connection.name}\n${connection.url}\n${connection.orgId ?? ''}`;
        if (!this.warned.has(once)) {
            this.warned.add(once);
            this.warn(message);
        }
        return new Error(message);
    }

    async client(connection: Connection): Promise<AplClient> {
        const token = await this.token(connection);
        if (!token) throw new Error(`the connection '${connection.name}' has no token: add it again with 'APL: Add Connection'`);
        return new AplClient({ url: connection.url, token, orgId: connection.orgId });
    }

    /** `auto` pages by cursor against the embedded service (a loopback URL) and by time elsewhere (live Axiom calls cursor paging a preview). */
    pagingOf(connection: Connection): PagingKind {
        const setting = connection.paging ?? 'auto';
        if (setting === 'cursor') return 'cursor';
        if (setting === 'timestamp') return 'time';
        return connection.source === 'local' || isLoopback(connection.url) ? 'cursor' : 'time';
    }

    /**
     * Saves a connection: `verify` (normally `GET /v2/user` with the token) must pass first. The
     * token goes to SecretStorage only; the settings get name, URL, org id and paging.
     */
    async add(profile: ConnectionProfile, token: string, verify: (client: AplClient) => Promise<unknown>): Promise<Connection> {
        const problem = profileProblem(profile);
        if (problem) throw new Error(problem);
        if (typeof token !== 'string' || token.trim() === '') throw new Error('the connection needs a token');
        const url = normalizeServiceUrl(profile.url);
        const clean: ConnectionProfile = { name: profile.name.trim(), url: url.ok ? url.url : profile.url };
        if (profile.orgId) clean.orgId = profile.orgId.trim();
        if (profile.paging) clean.paging = profile.paging;
        await verify(new AplClient({ url: clean.url, token: token.trim(), orgId: clean.orgId }));
        await this.secrets.store(tokenKey(clean.name), serializeBoundSecret({ token: token.trim(), url: clean.url, orgId: clean.orgId }));
        const others = this.profiles().filter(p => p.name !== clean.name);
        await this.settings.write([...others, clean]);
        await this.state.update(ACTIVE_KEY, clean.name);
        this.changed();
        return { ...clean, source: 'settings' };
    }

    async remove(name: string): Promise<void> {
        const profiles = this.profiles();
        if (!profiles.some(p => p.name === name)) throw new Error(`no saved connection named '${name}'`);
        await this.settings.write(profiles.filter(p => p.name !== name));
        await this.secrets.delete(tokenKey(name));
        if (this.state.get<string>(ACTIVE_KEY) === name) await this.state.update(ACTIVE_KEY, undefined);
        this.changed();
    }

    /** The local service is a connection while it runs (its token in memory only). */
    setLocal(url: string, token: string): void {
        this.local = { url, token };
        this.changed();
    }

    clearLocal(): void {
        this.local = undefined;
        this.changed();
    }
}
