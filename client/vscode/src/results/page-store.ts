/**
 * The pages of one run, kept in the extension host: a bounded LRU of page contents, and the anchor
 * of every page reached so far (a few bytes each, never evicted). An evicted page is fetched again
 * from its anchor; a page past the furthest one reached is fetched by walking on from there, since
 * each anchor comes from the page before it.
 */
import type { PageAnchor } from '../../../api/paging.js';

export class PageStore<P> {
    private readonly pages = new Map<number, P>();
    /** anchors[i] is where page i starts; the array grows as pages are fetched. */
    private readonly anchors: PageAnchor[] = [];
    /** The number of pages, once the last one was fetched. */
    private lastPage: number | undefined;

    constructor(
        first: PageAnchor,
        /** Pages kept in memory (at least 1). */
        readonly capacity: number,
    ) {
        if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
        this.anchors.push(first);
    }

    /** The cached page `i`, marking it most recently used. */
    get(i: number): P | undefined {
        const page = this.pages.get(i);
        if (page !== undefined) {
            this.pages.delete(i);
            this.pages.set(i, page);
        }
        return page;
    }

    /** The cached page `i` without marking it used (a reader that walks every page, like export). */
    peek(i: number): P | undefined {
        return this.pages.get(i);
    }

    has(i: number): boolean {
        return this.pages.has(i);
    }

    /** Stores page `i` fetched from `anchorOf(i)`, with where the next page starts (undefined: `i` is the last page). */
    put(i: number, page: P, next: PageAnchor | undefined): void {
        if (i >= this.anchors.length) throw new RangeError(`page ${i} has no anchor yet: fetch page ${this.anchors.length - 1} first`);
        this.pages.delete(i);
        this.pages.set(i, page);
        this.recordNext(i, next);
        while (this.pages.size > this.capacity) {
            const oldest = this.pages.keys().next().value as number;
            this.pages.delete(oldest);
        }
    }

    /** Records where the page after `i` starts (undefined: `i` is the last page), without caching page `i`. */
    recordNext(i: number, next: PageAnchor | undefined): void {
        if (i >= this.anchors.length) throw new RangeError(`page ${i} has no anchor yet: fetch page ${this.anchors.length - 1} first`);
        if (next) {
            if (i + 1 === this.anchors.length) this.anchors.push(next);
        } else {
            this.lastPage = i;
            this.anchors.length = i + 1;
        }
    }

    anchorOf(i: number): PageAnchor | undefined {
        return this.anchors[i];
    }

    /** Pages whose anchor is known: 0 .. reachable-1 can be fetched directly. */
    get reachable(): number {
        return this.anchors.length;
    }

    /** The number of pages, once known. */
    get pageCount(): number | undefined {
        return this.lastPage === undefined ? undefined : this.lastPage + 1;
    }

    /** Page numbers held in memory, least recently used first. */
    cachedPages(): number[] {
        return [...this.pages.keys()];
    }
}
