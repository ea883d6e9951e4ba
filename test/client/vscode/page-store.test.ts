import { describe, expect, it } from 'vitest';
import { PageStore } from '../../../client/vscode/src/results/page-store.js';

const cursor = (c: string) => ({ kind: 'cursor' as const, cursor: c });

describe('PageStore', () => {
    it('keeps at most `capacity` pages, evicting the least recently used, and every anchor', () => {
        const store = new PageStore<string>({ kind: 'cursor' }, 2);
        store.put(0, 'p0', cursor('a'));
        store.put(1, 'p1', cursor('b'));
        expect(store.get(0)).toBe('p0'); // 0 is now the most recently used
        store.put(2, 'p2', cursor('c'));
        expect(store.cachedPages()).toEqual([0, 2]);
        expect(store.get(1)).toBeUndefined();
        expect(store.anchorOf(1)).toEqual(cursor('a'));
        expect(store.anchorOf(3)).toEqual(cursor('c'));
        expect(store.reachable).toBe(4);
        expect(store.pageCount).toBeUndefined();
    });

    it('a page without a next anchor is the last one', () => {
        const store = new PageStore<string>({ kind: 'time' }, 3);
        store.put(0, 'p0', { kind: 'time', endTime: '2024-01-01T00:00:01Z', cursor: '0d3fzkox77jls-0000000000000001-00000000' });
        store.put(1, 'p1', undefined);
        expect(store.pageCount).toBe(2);
        expect(store.reachable).toBe(2);
    });

    it('recordNext keeps an anchor without caching the page; peek does not touch the LRU order', () => {
        const store = new PageStore<string>({ kind: 'cursor' }, 1);
        store.put(0, 'p0', cursor('a'));
        store.recordNext(1, cursor('b'));
        expect(store.cachedPages()).toEqual([0]);
        expect(store.anchorOf(2)).toEqual(cursor('b'));
        expect(store.peek(0)).toBe('p0');
    });

    it('refuses a page whose anchor is not known yet, and a capacity below 1', () => {
        const store = new PageStore<string>({ kind: 'cursor' }, 1);
        expect(() => store.put(2, 'x', undefined)).toThrow(/fetch page 0 first/);
        expect(() => new PageStore<string>({ kind: 'cursor' }, 0)).toThrow(/capacity/);
    });
});
