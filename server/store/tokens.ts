/**
 * API tokens: only SHA-256 hashes are stored, in `<dataDir>/tokens.json` (written atomically).
 * `createToken` returns the plaintext `xaat-…` token once; it cannot be recovered later.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as path from 'node:path';
import { formatDatetime } from '../../language/values.js';
import { readJsonIfExists, writeFileAtomic } from './fsutil.js';

export interface TokenInfo {
    id: string;
    name: string;
    created: string;
}

interface TokenRecord extends TokenInfo {
    /** hex SHA-256 of the full token string */
    sha256: string;
}

interface TokenFile {
    v: 1;
    tokens: TokenRecord[];
}

function sha256(s: string): Buffer {
    return createHash('sha256').update(s, 'utf8').digest();
}

export class TokenStore {
    private tokens: TokenRecord[] = [];
    private hashes = new Map<string, TokenRecord>();
    private writing: Promise<void> = Promise.resolve();

    private constructor(private readonly file: string) {}

    static async open(dataDir: string): Promise<TokenStore> {
        const ts = new TokenStore(path.join(dataDir, 'tokens.json'));
        const f = await readJsonIfExists<TokenFile>(ts.file);
        for (const t of f?.tokens ?? []) ts.add(t);
        return ts;
    }

    private add(t: TokenRecord): void {
        this.tokens.push(t);
        this.hashes.set(t.sha256, t);
    }

    private persist(): Promise<void> {
        const data = JSON.stringify({ v: 1, tokens: this.tokens } satisfies TokenFile, null, 1);
        this.writing = this.writing.then(() => writeFileAtomic(this.file, data));
        return this.writing;
    }

    /** Creates a token; the returned `token` is shown once and only its hash is kept. */
    async createToken(name: string): Promise<{ token: string; info: TokenInfo }> {
        const token = `xaat-${randomUUID()}`;
        const rec: TokenRecord = {
            id: randomBytes(8).toString('hex'),
            name,
            created: formatDatetime(BigInt(Date.now()) * 1_000_000n),
            sha256: sha256(token).toString('hex'),
        };
        this.add(rec);
        await this.persist();
        return { token, info: { id: rec.id, name: rec.name, created: rec.created } };
    }

    /** Returns the token's info when it is valid. Constant-time on the hash comparison. */
    verify(token: string | undefined | null): TokenInfo | undefined {
        if (!token) return undefined;
        const h = sha256(token);
        const rec = this.hashes.get(h.toString('hex'));
        if (!rec || !timingSafeEqual(h, Buffer.from(rec.sha256, 'hex'))) return undefined;
        return { id: rec.id, name: rec.name, created: rec.created };
    }

    list(): TokenInfo[] {
        return this.tokens.map((t) => ({ id: t.id, name: t.name, created: t.created }));
    }

    get size(): number {
        return this.tokens.length;
    }

    async deleteToken(id: string): Promise<boolean> {
        const i = this.tokens.findIndex((t) => t.id === id);
        if (i < 0) return false;
        const [rec] = this.tokens.splice(i, 1);
        this.hashes.delete(rec.sha256);
        await this.persist();
        return true;
    }
}
