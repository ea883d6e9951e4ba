/**
 * API tokens: only SHA-256 hashes are stored, in `<dataDir>/tokens.json` (written atomically).
 * `createToken` returns the plaintext `xaat-…` token once; it cannot be recovered later.
 *
 * The file is the truth, and other processes change it while a server runs (`apl token create`).
 * `verify` therefore looks whether the file changed: always when the token is unknown, so a token
 * created a moment ago works on its first use, and at most every `recheckMs` when it is known, so a
 * token removed from the file stops working within that time. Looking is a `stat`; the file is read
 * only when its version (inode, size, times) differs from the one read last, so a flood of unknown
 * tokens costs a stat each, never a read. Writers replace the file by rename (writeFileAtomic), so a
 * read sees a whole old or a whole new file; a file that does not parse (edited by hand in place)
 * leaves the tokens read before in force until it changes again.
 */
import { SerialQueue } from './serial.js';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import * as path from 'node:path';
import { formatDatetime } from '../../language/values.js';
import { checkedJson, parseCheckedJson, writeFileAtomic } from './fsutil.js';

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

export interface TokenStoreOptions {
    /** How often (ms) `verify` looks for changes of the file when the token is known (default 1000). */
    recheckMs?: number;
    /** Clock in ms (tests override it). */
    now?: () => number;
    /** Where a token file that cannot be re-read is reported (default console.error). */
    log?: (msg: string) => void;
    /**
     * Open even when the file cannot be read (the server: see `open`). Default false: throw an
     * error naming the file (the `apl token` commands).
     */
    lenient?: boolean;
}

function sha256(s: string): Buffer {
    return createHash('sha256').update(s, 'utf8').digest();
}

/** One version of the file: a rename makes a new inode, a write in place changes size or times. */
function versionOf(st: BigIntStats | undefined): string {
    return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : 'absent';
}

function parseTokenFile(text: string, file: string): TokenRecord[] {
    const f = parseCheckedJson<Partial<TokenFile> | null>(text, file);
    if (typeof f !== 'object' || f === null || !Array.isArray(f.tokens)) throw new Error(`${file}: expected {"v":1,"tokens":[…]}`);
    for (const t of f.tokens as unknown[]) {
        const r = t as Partial<TokenRecord> | null;
        if (typeof r !== 'object' || r === null || typeof r.id !== 'string' || typeof r.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(r.sha256)) {
            throw new Error(`${file}: a token entry is not {id, name, created, sha256}`);
        }
    }
    return f.tokens;
}

export class TokenStore {
    private tokens: readonly TokenRecord[] = [];
    private hashes = new Map<string, TokenRecord>();
    /** Version of the file the tokens were read from; undefined before the first read. */
    private version: string | undefined;
    private checkedAt = -Infinity;
    /** Last problem reported by a lenient refresh, so that it is logged once, not per request. */
    private problem: string | undefined;
    /** Version of the file that could not be read, so it is not read again until it changes. */
    private badVersion: string | undefined;
    private everRead = false;
    private readonly writing = new SerialQueue();
    private readonly recheckMs: number;
    private readonly now: () => number;
    private readonly log: (msg: string) => void;

    private constructor(
        private readonly file: string,
        options: TokenStoreOptions,
    ) {
        this.recheckMs = options.recheckMs ?? 1000;
        this.now = options.now ?? Date.now;
        this.log = options.log ?? ((m) => console.error(`[apl-store] ${m}`));
    }

    /**
     * Opens the token file; throws naming the file when it cannot be read, unless `lenient`: then
     * the problem is reported (see `unreadable`), none of its tokens is accepted (fail closed: a
     * damaged file may not say what its owner meant), and it is never overwritten — writes re-read
     * it strictly and fail naming it. Once it is repaired (replaced), the next look reads it and its
     * tokens work again.
     */
    static async open(dataDir: string, options: TokenStoreOptions = {}): Promise<TokenStore> {
        const ts = new TokenStore(path.join(dataDir, 'tokens.json'), options);
        ts.refresh(options.lenient ? 'lenient' : 'strict');
        return ts;
    }

    /** Why the token file cannot be read right now, or undefined when it can. */
    get unreadable(): string | undefined {
        return this.problem;
    }

    get path(): string {
        return this.file;
    }

    /**
     * Re-reads the file if it changed since the last read. `lenient` (the request path) reports a
     * file that cannot be read and keeps the tokens in force; `strict` throws. True when re-read.
     */
    private refresh(mode: 'lenient' | 'strict' = 'lenient'): boolean {
        this.checkedAt = this.now();
        let version: string | undefined;
        let records: TokenRecord[];
        try {
            version = versionOf(statSync(this.file, { bigint: true, throwIfNoEntry: false }));
            if (version === this.version) return false;
            // The same unreadable version again: a stat, not a read (unknown tokens may flood in).
            if (mode === 'lenient' && version === this.badVersion) return false;
            records = this.read();
        } catch (err) {
            if (mode === 'strict') throw err;
            this.badVersion = version;
            const message = (err as Error).message.replace(`${this.file}: `, '');
            const problem = !this.everRead
                ? `cannot read ${this.file}: ${message}; none of its tokens is accepted until it is repaired (the file is left as it is)`
                : `cannot re-read ${this.file}: ${message}; the ${this.tokens.length} token(s) read before stay in force`;
            if (problem !== this.problem) this.log(problem);
            this.problem = problem;
            return false;
        }
        this.everRead = true;
        this.badVersion = undefined;
        // The version is taken before the read: if the file changed in between, the next look
        // reads it again.
        this.version = version;
        this.problem = undefined;
        this.replace(records);
        return true;
    }

    /** The records in the file now ([] when there is none). */
    private read(): TokenRecord[] {
        let text: string;
        try {
            text = readFileSync(this.file, 'utf8');
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
            throw err;
        }
        return parseTokenFile(text, this.file);
    }

    private replace(records: readonly TokenRecord[]): void {
        this.tokens = records;
        this.hashes = new Map(records.map((t) => [t.sha256, t]));
    }

    /**
     * Read-modify-write of the file, one at a time in this process. It starts from the file as it
     * is now, so tokens other processes added are kept. `records` undefined: nothing to write.
     */
    private update<T>(change: (records: readonly TokenRecord[]) => { records?: TokenRecord[]; result: T }): Promise<T> {
        const run = async (): Promise<T> => {
            this.refresh('strict');
            const { records, result } = change(this.tokens);
            if (!records) return result;
            await writeFileAtomic(this.file, checkedJson({ v: 1, tokens: records } satisfies TokenFile, 1));
            this.replace(records);
            // Not the version of what was just written: another process may have replaced it
            // already. Unknown, so the next look reads the file.
            this.version = undefined;
            return result;
        };
        return this.writing.run(run);
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
        await this.update((records) => ({ records: [...records, rec], result: undefined }));
        return { token, info: { id: rec.id, name: rec.name, created: rec.created } };
    }

    /** Returns the token's info when it is valid. Constant-time on the hash comparison. */
    verify(token: string | undefined | null): TokenInfo | undefined {
        if (!token) return undefined;
        const h = sha256(token);
        const key = h.toString('hex');
        let looked = false;
        if (this.now() - this.checkedAt >= this.recheckMs) {
            this.refresh();
            looked = true;
        }
        let rec = this.hashes.get(key);
        // Unknown: it may have been created since the last look (a stat; a read only if the file changed).
        if (!rec && !looked && this.refresh()) rec = this.hashes.get(key);
        if (!rec || !timingSafeEqual(h, Buffer.from(rec.sha256, 'hex'))) return undefined;
        return { id: rec.id, name: rec.name, created: rec.created };
    }

    /** The stored tokens, as the file has them now. */
    list(): TokenInfo[] {
        this.refresh();
        return this.tokens.map((t) => ({ id: t.id, name: t.name, created: t.created }));
    }

    get size(): number {
        return this.tokens.length;
    }

    async deleteToken(id: string): Promise<boolean> {
        return this.update((records) => {
            const kept = records.filter((t) => t.id !== id);
            return kept.length < records.length ? { records: kept, result: true } : { result: false };
        });
    }
}
