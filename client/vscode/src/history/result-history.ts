/**
 * The results of the last runs, kept so that the history reopens them without running the query
 * again: each run's first page (up to `maxRows` rows) as a `.aplr` file (results/saved-result.ts)
 * in a folder under the extension's global storage. Bounded twice: at most `maxResults` files and
 * `maxBytes` in all; the oldest go first, and a result larger than the whole budget is not kept.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Run } from '../query/query-runner.js';
import { APLR_EXTENSION, parseSavedResult, savedResultOf, serializeSavedResult, type SavedResult } from '../results/saved-result.js';

export interface ResultHistoryLimits {
    maxResults: number;
    maxBytes: number;
    /** Rows kept of each result (its first page, up to this many). */
    maxRows: number;
}

export const DEFAULT_RESULT_HISTORY_LIMITS: ResultHistoryLimits = { maxResults: 50, maxBytes: 50 * 1024 * 1024, maxRows: 1000 };

/** The names this store writes: a time, a random part, the extension (a hand-edited history cannot point elsewhere). */
const ID = /^\d{13}-[0-9a-f]{8}\.aplr$/;

export class ResultHistory {
    private writing: Promise<unknown> = Promise.resolve();

    constructor(
        readonly dir: string,
        private readonly limits: () => ResultHistoryLimits = () => DEFAULT_RESULT_HISTORY_LIMITS,
        private readonly clock: () => number = Date.now,
    ) {}

    /** Keeps `run`'s first page; its id, or undefined when it has no rows to keep or does not fit the budget. */
    keep(run: Run): Promise<string | undefined> {
        const limits = this.limits();
        const saved = savedResultOf(run, Math.max(0, limits.maxRows), new Date(this.clock()));
        if (!saved || run.state !== 'done' || limits.maxResults < 1) return Promise.resolve(undefined);
        const next = this.writing.then(() => this.write(saved, limits));
        this.writing = next.catch(() => undefined);
        return next;
    }

    private async write(saved: SavedResult, limits: ResultHistoryLimits): Promise<string | undefined> {
        const text = serializeSavedResult(saved);
        const size = Buffer.byteLength(text);
        if (size > limits.maxBytes) return undefined;
        await mkdir(this.dir, { recursive: true });
        const id = `${String(this.clock()).padStart(13, '0')}-${randomBytes(4).toString('hex')}${APLR_EXTENSION}`;
        await writeFile(join(this.dir, id), text, { mode: 0o600 });
        await this.prune(limits);
        return id;
    }

    /** The oldest files go until both limits hold. */
    private async prune(limits: ResultHistoryLimits): Promise<void> {
        const names = (await readdir(this.dir)).filter(n => ID.test(n)).sort().reverse();
        let bytes = 0;
        for (let i = 0; i < names.length; i++) {
            const file = join(this.dir, names[i]);
            const size = (await stat(file).catch(() => undefined))?.size ?? 0;
            bytes += size;
            if (i >= limits.maxResults || bytes > limits.maxBytes) await rm(file, { force: true });
        }
    }

    /** A kept result, or undefined when it was pruned (or the id is not one of ours). */
    async load(id: string): Promise<SavedResult | undefined> {
        if (!ID.test(id)) return undefined;
        await this.writing;
        let text: string;
        try {
            text = await readFile(join(this.dir, id), 'utf8');
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
            throw e;
        }
        return parseSavedResult(text, id);
    }
}
