/**
 * A column sort from the results grid, done in the extension host over every row of the result.
 *
 * Why here and not on the service: the service pages only in `_time` order (cursor or timestamp
 * paging, API.md §10), so `| sort by field | limit n` would give the first n rows and lose the rest.
 * A result of at most `limit` rows (the setting `apl.results.sortLimit`) is read whole once (pages
 * already in memory are reused), then each sort is a permutation of those rows: every row stays
 * reachable, Next/Previous page keep working, and removing the sort gives back the result as it came.
 */
import type { TableField } from '../../../api/types.js';
import type { ResultPage } from './result-set.js';

export interface SortKey {
    field: string;
    desc: boolean;
}

/** What a result must give to be sorted: its fields (as the rows are aligned) and its pages in order. */
export interface SortSource {
    readonly fields: readonly TableField[];
    allPages(signal: AbortSignal): AsyncGenerator<ResultPage, void, undefined>;
}

export class SortTooLargeError extends Error {}

/** Kusto's order: in `asc` nulls come first, in `desc` last (the reverse of `asc`). */
function compareValues(a: unknown, b: unknown): number {
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an || bn) return an === bn ? 0 : an ? -1 : 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b || (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : 0);
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
    // Mixed kinds: numbers before booleans before strings before objects, each kind in its own order.
    const rank = (v: unknown) => (typeof v === 'number' ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'string' ? 2 : 3);
    const ra = rank(a);
    const rb = rank(b);
    if (ra !== rb) return ra - rb;
    const sa = JSON.stringify(a);
    const sb = JSON.stringify(b);
    return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A datetime column compares by instant (texts may differ in fractional digits). */
function sortValue(type: string, v: unknown): unknown {
    if (type === 'datetime' && typeof v === 'string') {
        const t = Date.parse(v);
        if (!Number.isFinite(t)) return v;
        const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
        // Milliseconds from Date.parse, and the digits past them for ties at the same millisecond.
        return t + Number(`0.${frac.slice(3).padEnd(1, '0')}`);
    }
    return v;
}

export class SortedRows {
    private all: Promise<unknown[][]> | undefined;
    private readonly orders = new Map<string, Promise<Uint32Array>>();
    private readonly controller = new AbortController();

    constructor(
        private readonly source: SortSource,
        /** The result's row count, checked against the limit before anything is read. */
        private readonly rowCount: number,
        readonly limit: number,
    ) {}

    /** Whether this result can be sorted here. */
    get possible(): boolean {
        return this.rowCount <= this.limit;
    }

    /** Rows `start` .. `end`-1 in the order of `key`. */
    async rows(key: SortKey, start: number, end: number): Promise<unknown[][]> {
        const all = await this.load();
        const order = await this.order(key, all);
        const out: unknown[][] = [];
        for (let i = start; i < Math.min(end, order.length); i++) out.push(all[order[i]]);
        return out;
    }

    /** Every row of the result, in its own order (read once, as for a sort). */
    allRows(): Promise<unknown[][]> {
        return this.load();
    }

    /** The number of rows once read (the exact count of a paged result). */
    async count(): Promise<number> {
        return (await this.load()).length;
    }

    /** Stops reading pages (a new run replaced this one). */
    dispose(): void {
        this.controller.abort();
    }

    private load(): Promise<unknown[][]> {
        if (!this.possible) return Promise.reject(new SortTooLargeError(`sorting by a column reads every row, and this result has ${this.rowCount.toLocaleString('en-US')} rows, more than the limit of ${this.limit.toLocaleString('en-US')} (the setting apl.results.sortLimit)`));
        this.all ??= this.readAll();
        // A failed read is tried again by the next request rather than kept.
        this.all.catch(() => (this.all = undefined));
        return this.all;
    }

    private async readAll(): Promise<unknown[][]> {
        const rows: unknown[][] = [];
        for await (const page of this.source.allPages(this.controller.signal)) {
            // Fields are aligned with the result's fields (later pages may add some).
            const index = new Map(this.source.fields.map((f, i) => [f.name, i]));
            const map = page.fields.map(f => index.get(f.name)!);
            for (let r = 0; r < page.rows; r++) {
                const row: unknown[] = new Array(this.source.fields.length).fill(null);
                for (let c = 0; c < map.length; c++) row[map[c]] = page.columns[c][r] ?? null;
                rows.push(row);
            }
            if (rows.length > this.limit) throw new SortTooLargeError(`sorting by a column reads every row, and this result has more than ${this.limit.toLocaleString('en-US')} rows (the setting apl.results.sortLimit)`);
        }
        return rows;
    }

    private order(key: SortKey, all: unknown[][]): Promise<Uint32Array> {
        const id = `${key.field}\u0000${key.desc}`;
        let order = this.orders.get(id);
        if (!order) {
            const column = this.source.fields.findIndex(f => f.name === key.field);
            if (column < 0) return Promise.reject(new RangeError(`the result has no field named ${key.field}`));
            const type = this.source.fields[column].type;
            const values = all.map(row => sortValue(type, row[column]));
            const indexes = Uint32Array.from(all.keys());
            const sign = key.desc ? -1 : 1;
            // Stable: equal values keep the result's own order.
            indexes.sort((a, b) => sign * compareValues(values[a], values[b]) || a - b);
            order = Promise.resolve(indexes);
            this.orders.set(id, order);
        }
        return order;
    }
}
