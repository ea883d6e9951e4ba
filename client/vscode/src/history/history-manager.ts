/**
 * The query history: every run (text, connection, resolved time range, rows matched, elapsed
 * time, outcome) as one JSON line in a file under the extension's global storage. Capped: when the
 * file holds more than `max` entries, the oldest go. Nothing of it goes into settings.
 */
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export type RunOutcome = 'done' | 'error' | 'cancelled';

export interface HistoryEntry {
    /** ISO time the run started. */
    at: string;
    text: string;
    connection: string;
    startTime: string;
    endTime: string;
    /** `last 1h`, or the custom range. */
    range: string;
    rowsMatched?: number;
    elapsedMs: number;
    outcome: RunOutcome;
    error?: string;
    /** The run's first page, kept by ResultHistory (the history reopens it without a request). */
    resultId?: string;
}

export const DEFAULT_HISTORY_MAX = 500;

export class HistoryManager {
    private cache: HistoryEntry[] | undefined;
    private writing: Promise<unknown> = Promise.resolve();

    constructor(
        readonly file: string,
        private readonly max: () => number = () => DEFAULT_HISTORY_MAX,
    ) {}

    /** Every entry, newest first. Lines that do not parse (a torn write) are skipped. */
    async entries(): Promise<HistoryEntry[]> {
        await this.writing;
        return [...(await this.load())].reverse();
    }

    /** Entries whose text, connection or error contains every word of `query` (case-insensitive), newest first. */
    async search(query: string): Promise<HistoryEntry[]> {
        const words = query.toLowerCase().split(/\s+/).filter(w => w.length > 0);
        const all = await this.entries();
        if (words.length === 0) return all;
        return all.filter(e => {
            const hay = `${e.text}\n${e.connection}\n${e.error ?? ''}\n${e.outcome}`.toLowerCase();
            return words.every(w => hay.includes(w));
        });
    }

    add(entry: HistoryEntry): Promise<void> {
        const next = this.writing.then(async () => {
            const list = await this.load();
            list.push(entry);
            const max = Math.max(1, Math.floor(this.max()));
            await mkdir(dirname(this.file), { recursive: true });
            if (list.length > max) {
                list.splice(0, list.length - max);
                const tmp = `${this.file}.tmp`;
                await writeFile(tmp, list.map(e => JSON.stringify(e)).join('\n') + '\n');
                await rename(tmp, this.file);
            } else {
                await appendFile(this.file, JSON.stringify(entry) + '\n');
            }
        });
        this.writing = next.catch(() => undefined);
        return next;
    }

    private async load(): Promise<HistoryEntry[]> {
        if (this.cache) return this.cache;
        let text = '';
        try {
            text = await readFile(this.file, 'utf8');
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
        const list: HistoryEntry[] = [];
        for (const line of text.split('\n')) {
            if (line.trim() === '') continue;
            try {
                const e = JSON.parse(line) as HistoryEntry;
                if (typeof e.text === 'string' && typeof e.at === 'string') list.push(e);
            } catch {
                // a torn last line: skip it
            }
        }
        this.cache = list;
        return list;
    }
}
