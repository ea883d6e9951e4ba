/**
 * A small durable collection of JSON records keyed by `id`, kept whole in one file of the data
 * directory (`annotations.json`, `monitors.json`): `{"v":1,"items":[…]}`.
 *
 * Every change rewrites the file atomically (temp file, fsync, rename, fsync dir: writeFileAtomic)
 * before the in-memory copy changes, so a change that was acknowledged survives a crash and a
 * failed write changes nothing. Changes run one at a time. The files are 0600: they hold what users
 * typed (queries, descriptions), which is nobody else's business on a shared machine.
 *
 * The collections are small (people make them by hand), so rewriting the whole file is cheaper
 * than anything cleverer and keeps the format trivially readable.
 */
import { SerialQueue } from './serial.js';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './fsutil.js';

const FILE_MODE = 0o600;

interface CollectionFile<T> {
    v: 1;
    items: T[];
}

export interface JsonCollectionOptions {
    /** Where problems are reported: a damaged file (moved aside, never overwritten), a failed chmod. */
    log: (msg: string) => void;
}

export class JsonCollection<T extends { id: string }> {
    private items: T[];
    private readonly writing = new SerialQueue();

    private constructor(
        readonly file: string,
        items: T[],
        private readonly log: (msg: string) => void,
    ) {
        this.items = items;
    }

    /**
     * Opens `<dataDir>/<name>.json` (none yet: empty). A file that cannot be read as a collection is
     * renamed to `<name>.json.damaged-<time>` and reported, so the data stays on disk for a person to
     * look at and the service still starts.
     */
    static async open<T extends { id: string }>(dataDir: string, name: string, options: JsonCollectionOptions): Promise<JsonCollection<T>> {
        const file = path.join(dataDir, `${name}.json`);
        let text: string | undefined;
        try {
            text = await fsp.readFile(file, 'utf8');
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
        if (text === undefined) return new JsonCollection<T>(file, [], options.log);
        const items = parseCollection<T>(text);
        if (typeof items === 'string') {
            const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
            await fsp.rename(file, aside);
            options.log(`${file}: ${items}; moved to ${aside}, starting with no ${name}`);
            return new JsonCollection<T>(file, [], options.log);
        }
        return new JsonCollection<T>(file, items, options.log);
    }

    /** Every record, in the order they were created (copies). */
    list(): T[] {
        return this.items.map((x) => structuredClone(x));
    }

    get(id: string): T | undefined {
        const item = this.items.find((x) => x.id === id);
        return item && structuredClone(item);
    }

    has(id: string): boolean {
        return this.items.some((x) => x.id === id);
    }

    /** Adds a record, or replaces the one with its id. Resolves once the file is durable. */
    put(item: T): Promise<T> {
        return this.change((items) => {
            const i = items.findIndex((x) => x.id === item.id);
            const next = i < 0 ? [...items, item] : items.map((x, k) => (k === i ? item : x));
            return { items: next, result: structuredClone(item) };
        });
    }

    /**
     * Replaces the record `id` with `fn(old)`, in turn with the other changes (so a change never
     * brings back a record deleted meanwhile). Undefined when there is no such record; what `fn`
     * throws (a validation error) rejects the call and changes nothing.
     */
    update(id: string, fn: (old: T) => T): Promise<T | undefined> {
        return this.change((items) => {
            const i = items.findIndex((x) => x.id === id);
            if (i < 0) return { result: undefined };
            const item = fn(structuredClone(items[i]));
            return { items: items.map((x, k) => (k === i ? item : x)), result: structuredClone(item) };
        });
    }

    /** Removes a record; false when there was none. */
    delete(id: string): Promise<boolean> {
        return this.change((items) => {
            const next = items.filter((x) => x.id !== id);
            return next.length === items.length ? { result: false } : { items: next, result: true };
        });
    }

    /** Rewrites every record `fn` changes (returns a new record) in one durable write; the count changed. */
    updateWhere(fn: (item: T) => T | undefined): Promise<number> {
        return this.change((items) => {
            let changed = 0;
            const next = items.map((x) => {
                const y = fn(structuredClone(x));
                if (y === undefined) return x;
                changed++;
                return y;
            });
            return changed > 0 ? { items: next, result: changed } : { result: 0 };
        });
    }

    /** Runs one change at a time; the memory copy moves only after the file did. */
    private change<R>(fn: (items: readonly T[]) => { items?: T[]; result: R }): Promise<R> {
        const run = async (): Promise<R> => {
            const { items, result } = fn(this.items);
            if (items) {
                await writeFileAtomic(this.file, JSON.stringify({ v: 1, items } satisfies CollectionFile<T>, null, 1));
                this.items = items;
                // writeFileAtomic leaves the mode to the umask; the data is private to the owner. The
                // change is durable already, so a failed chmod is reported, not turned into an error.
                await fsp.chmod(this.file, FILE_MODE).catch((err: unknown) => this.log(`chmod 600 ${this.file} failed: ${String(err)}`));
            }
            return result;
        };
        return this.writing.run(run);
    }
}

/** The records of a collection file, or why it is not one. */
function parseCollection<T extends { id: string }>(text: string): T[] | string {
    let v: unknown;
    try {
        v = JSON.parse(text);
    } catch (err) {
        return `not valid JSON (${(err as Error).message})`;
    }
    const f = v as Partial<CollectionFile<T>> | null;
    if (typeof f !== 'object' || f === null || f.v !== 1 || !Array.isArray(f.items)) return 'expected {"v":1,"items":[…]}';
    const bad = f.items.findIndex((x) => typeof x !== 'object' || x === null || typeof (x as { id?: unknown }).id !== 'string');
    if (bad >= 0) return `item ${bad} has no string "id"`;
    return f.items;
}
