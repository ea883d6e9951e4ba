/**
 * One run's result, held in the extension host. A pageable query (the language server said so) is
 * read page by page from the service, by cursor or by time, into a `PageStore`; anything else is
 * one request whose whole table is kept. The results view asks for rows by index; export walks
 * every page. Rows never go to the webview except the blocks it asks for.
 */
import type { AplClient } from '../../../api/client.js';
import { fetchPage, firstAnchor, type PageAnchor, type PagingKind } from '../../../api/paging.js';
import { rowCount } from '../../../api/rows.js';
import type { QueryStatus, Table, TableField, TabularResult } from '../../../api/types.js';
import { PageStore } from './page-store.js';

export type ResultMode = PagingKind | 'once';

export interface ResultPage {
    fields: TableField[];
    /** Column-major, aligned with `fields`. */
    columns: unknown[][];
    rows: number;
}

export interface ResultSetOptions {
    client: AplClient;
    apl: string;
    mode: ResultMode;
    pageSize: number;
    order: 'asc' | 'desc';
    startTime: string;
    endTime: string;
    /** Pages kept in memory. */
    cachedPages: number;
    signal: AbortSignal;
}

function toPage(table: Table): ResultPage {
    return { fields: table.fields, columns: table.columns ?? table.fields.map(() => []), rows: rowCount(table) };
}

export class ResultSet {
    /** Every field seen so far, in first-seen order (later pages may bring new ones). */
    readonly fields: TableField[] = [];
    private readonly fieldIndex = new Map<string, number>();
    /** Requests sent to the service for this run. */
    requests = 0;
    private loaded = 0;
    private readonly pagesRead = new Set<number>();
    private lastPageRows = 0;
    readonly store: PageStore<ResultPage>;
    private readonly inFlight = new Map<number, Promise<ResultPage>>();
    /** Serialises walks past the furthest page reached (each anchor needs the page before it). */
    private frontier: Promise<unknown> = Promise.resolve();
    private constructor(
        private readonly options: ResultSetOptions,
        /** The first page's whole response. */
        readonly first: TabularResult,
        firstPage: ResultPage,
        next: PageAnchor | undefined,
    ) {
        const anchor = options.mode === 'once' ? firstAnchor('cursor') : firstAnchor(options.mode, options);
        this.store = new PageStore<ResultPage>(anchor, Math.max(1, options.cachedPages));
        this.addFields(firstPage.fields);
        this.store.put(0, firstPage, next);
        this.noteRead(0, firstPage, next);
    }

    private noteRead(i: number, page: ResultPage, next: PageAnchor | undefined): void {
        if (!this.pagesRead.has(i)) {
            this.pagesRead.add(i);
            this.loaded += page.rows;
        }
        if (!next) this.lastPageRows = page.rows;
    }

    /** A result whose rows are all in `page` (a saved result, reopened): it never sends a request. */
    static fromSaved(first: TabularResult, page: ResultPage): ResultSet {
        const never = new Proxy({} as AplClient, {
            get() {
                throw new Error('a saved result sends no request: run the query again');
            },
        });
        const options: ResultSetOptions = { client: never, apl: '', mode: 'once', pageSize: Math.max(1, page.rows), order: 'desc', startTime: '', endTime: '', cachedPages: 1, signal: new AbortController().signal };
        return new ResultSet(options, first, page, undefined);
    }

    /** Runs the query and reads its first page. */
    static async open(options: ResultSetOptions): Promise<ResultSet> {
        if (options.mode === 'once') {
            const result = await options.client.query(options.apl, { format: 'tabular', startTime: options.startTime, endTime: options.endTime, signal: options.signal });
            const set = new ResultSet(options, result, toPage(result.tables?.[0] ?? { name: '0', fields: [], columns: [] }), undefined);
            set.requests = 1;
            return set;
        }
        const step = await fetchPage(options.client, options.apl, firstAnchor(options.mode, options), ResultSet.pagingOptions(options));
        const set = new ResultSet(options, step.result, toPage(step.table), step.next);
        set.requests = 1;
        return set;
    }

    private static pagingOptions(o: ResultSetOptions) {
        return { pageSize: o.pageSize, order: o.order, startTime: o.startTime, endTime: o.endTime, signal: o.signal };
    }

    get mode(): ResultMode {
        return this.options.mode;
    }

    get pageSize(): number {
        return this.options.mode === 'once' ? Math.max(1, this.store.peek(0)?.rows ?? 1) : this.options.pageSize;
    }

    get status(): QueryStatus {
        return this.first.status;
    }

    /** What the service says matched (the whole result, not the first page). */
    get rowsMatched(): number {
        return this.first.status?.rowsMatched ?? 0;
    }

    /**
     * The rows the view scrolls over: every row of a one-request result; for a paged one, the exact
     * count once the last page was read, else `rowsMatched` (or more, if more was read).
     */
    get rowCount(): number {
        if (this.options.mode === 'once') return this.store.peek(0)?.rows ?? 0;
        const pages = this.store.pageCount;
        if (pages !== undefined) return (pages - 1) * this.options.pageSize + this.lastPageRows;
        // Every page before the furthest anchor was full.
        return Math.max(this.rowsMatched, (this.store.reachable - 1) * this.options.pageSize);
    }

    /** Rows read from the service so far (each page counted once, whether still in memory or not). */
    get rowsLoaded(): number {
        return this.loaded;
    }

    /** The service caps a one-request result (its default limit) or marks it partial. */
    get truncated(): boolean {
        const s = this.first.status;
        return s?.isPartial === true || (s?.messages ?? []).some(m => m.code === 'default_limit_warning');
    }

    private addFields(fields: readonly TableField[]): boolean {
        let added = false;
        for (const f of fields) {
            if (this.fieldIndex.has(f.name)) continue;
            this.fieldIndex.set(f.name, this.fields.length);
            this.fields.push(f);
            added = true;
        }
        return added;
    }

    /** Page `i`, from memory or from the service (walking on from the furthest page reached). */
    page(i: number): Promise<ResultPage> {
        const cached = this.store.get(i);
        if (cached) return Promise.resolve(cached);
        const pending = this.inFlight.get(i);
        if (pending) return pending;
        const promise = (async () => {
            if (i >= this.store.reachable) {
                // Walk on, one page at a time, in order.
                const walk = this.frontier.then(async () => {
                    while (this.store.reachable <= i && this.store.pageCount === undefined) await this.fetch(this.store.reachable - 1);
                });
                this.frontier = walk.catch(() => undefined);
                await walk;
            }
            if (this.store.pageCount !== undefined && i >= this.store.pageCount) return { fields: this.fields, columns: this.fields.map(() => []), rows: 0 };
            return this.store.get(i) ?? (await this.fetch(i));
        })();
        this.inFlight.set(i, promise);
        return promise.finally(() => this.inFlight.delete(i));
    }

    /** Fetches page `i` from its anchor (the page past the furthest reached is never cached: its next anchor would be known). */
    private async fetch(i: number): Promise<ResultPage> {
        const anchor = this.store.anchorOf(i);
        if (!anchor) throw new RangeError(`page ${i} cannot be reached`);
        this.options.signal.throwIfAborted();
        this.requests++;
        const step = await fetchPage(this.options.client, this.options.apl, anchor, ResultSet.pagingOptions(this.options));
        const page = toPage(step.table);
        this.addFields(page.fields);
        this.store.put(i, page, step.next);
        this.noteRead(i, page, step.next);
        return page;
    }

    /** The pages held in memory now, each with the index of its first row, in order (what a search reads without asking the service). */
    heldPages(): { start: number; page: ResultPage }[] {
        const size = this.pageSize;
        return this.store
            .cachedPages()
            .sort((a, b) => a - b)
            .map(i => ({ start: i * size, page: this.store.peek(i)! }))
            .filter(p => p.page !== undefined);
    }

    /** Whether every page of the result is in memory (a search of the held pages is then a search of all of it). */
    get allHeld(): boolean {
        if (this.options.mode === 'once') return true;
        const count = this.store.pageCount;
        return count !== undefined && this.store.cachedPages().length >= count;
    }

    /** Rows `start` .. `end`-1 as arrays aligned with `fields` (fewer at the end of the result). */
    async rows(start: number, end: number): Promise<unknown[][]> {
        const out: unknown[][] = [];
        const size = this.pageSize;
        for (let p = Math.floor(start / size); p * size < end; p++) {
            const page = await this.page(p);
            if (page.rows === 0) break;
            const map = page.fields.map(f => this.fieldIndex.get(f.name)!);
            const from = Math.max(0, start - p * size);
            const to = Math.min(page.rows, end - p * size);
            for (let r = from; r < to; r++) {
                const row: unknown[] = new Array(this.fields.length).fill(null);
                for (let c = 0; c < map.length; c++) row[map[c]] = page.columns[c][r] ?? null;
                out.push(row);
            }
            if (page.rows < size) break;
        }
        return out;
    }

    /**
     * Every page in order, for export: pages in memory are used as they are, the others fetched from
     * their anchors, without disturbing what the view keeps (a separate walk, nothing evicted).
     */
    async *allPages(signal: AbortSignal): AsyncGenerator<ResultPage, void, undefined> {
        if (this.options.mode === 'once') {
            yield this.store.peek(0)!;
            return;
        }
        let anchor: PageAnchor | undefined = this.store.anchorOf(0);
        for (let i = 0; anchor; i++) {
            signal.throwIfAborted();
            const cached = this.store.peek(i);
            const nextKnown = this.store.anchorOf(i + 1);
            if (cached && (nextKnown || this.store.pageCount === i + 1)) {
                yield cached;
                anchor = nextKnown;
                continue;
            }
            this.requests++;
            const step = await fetchPage(this.options.client, this.options.apl, anchor, { ...ResultSet.pagingOptions(this.options), signal });
            const page = toPage(step.table);
            this.addFields(page.fields);
            // Record the anchor (the view can jump here later) without caching the rows.
            if (i < this.store.reachable) this.store.recordNext(i, step.next);
            this.noteRead(i, page, step.next);
            yield page;
            anchor = step.next;
        }
    }
}
