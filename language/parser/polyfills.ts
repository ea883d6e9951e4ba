/**
 * Node 20 lacks `Object.groupBy` (Node 21+), which chevrotain 13 (pulled in by langium 4.4) calls while
 * it builds a parser. This tiny, spec-shaped fill keeps us on Node 20 without pinning an older langium.
 * Import it before anything that builds a parser.
 */
type GroupBy = <T, K extends PropertyKey>(items: Iterable<T>, key: (item: T, index: number) => K) => Partial<Record<K, T[]>>;

const objectWithGroupBy = Object as unknown as { groupBy?: GroupBy };

/** Fills `Object.groupBy` when this runtime has none; whether it did. */
export function fillGroupBy(): boolean {
    if (typeof objectWithGroupBy.groupBy === 'function') return false;
    objectWithGroupBy.groupBy = <T, K extends PropertyKey>(items: Iterable<T>, key: (item: T, index: number) => K) => {
        const out = Object.create(null) as Partial<Record<K, T[]>>;
        let i = 0;
        for (const item of items) {
            const k = key(item, i++);
            (out[k] ??= []).push(item);
        }
        return out;
    };
    return true;
}

/** Takes the fill away again (a start-up snapshot must not hold it: server/lsp/snapshot.ts). */
export function unfillGroupBy(): void {
    delete objectWithGroupBy.groupBy;
}

/**
 * Whether the fill was needed when this module loaded. Node 22 lacks `Object.groupBy` too while it
 * builds a start-up snapshot (`--build-snapshot`), and adds it when a process starts from one.
 */
export const groupByFilled = fillGroupBy();
