/**
 * A small per-key read/write lock. Ingest requests take it shared (so the WAL can group-commit
 * concurrent appends); operations that rebuild a dataset's in-memory copy (delete, trim) take it
 * exclusive, so no acknowledged batch can fall between a store snapshot and the rebuild.
 */
interface State {
    readers: number;
    writer: boolean;
    queue: { exclusive: boolean; wake: () => void }[];
}

export class KeyedRwLock {
    private states = new Map<string, State>();

    private state(key: string): State {
        let s = this.states.get(key);
        if (!s) {
            s = { readers: 0, writer: false, queue: [] };
            this.states.set(key, s);
        }
        return s;
    }

    private pump(key: string, s: State): void {
        while (s.queue.length > 0) {
            const next = s.queue[0];
            if (next.exclusive) {
                if (s.writer || s.readers > 0) break;
                s.queue.shift();
                s.writer = true;
                next.wake();
                break;
            }
            if (s.writer) break;
            s.queue.shift();
            s.readers++;
            next.wake();
        }
        if (!s.writer && s.readers === 0 && s.queue.length === 0) this.states.delete(key);
    }

    private acquire(key: string, exclusive: boolean): Promise<() => void> {
        const s = this.state(key);
        return new Promise((resolve) => {
            let released = false;
            const release = (): void => {
                if (released) return;
                released = true;
                if (exclusive) s.writer = false;
                else s.readers--;
                this.pump(key, s);
            };
            s.queue.push({ exclusive, wake: () => resolve(release) });
            this.pump(key, s);
        });
    }

    async shared<T>(key: string, fn: () => Promise<T>): Promise<T> {
        const release = await this.acquire(key, false);
        try {
            return await fn();
        } finally {
            release();
        }
    }

    async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
        const release = await this.acquire(key, true);
        try {
            return await fn();
        } finally {
            release();
        }
    }
}
