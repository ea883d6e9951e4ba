/**
 * Storage for the store's growable columns (tables.ts).
 *
 * Small columns are ordinary typed arrays, replaced by one twice the size when full. A column past
 * `IN_PLACE_BYTES` moves to a growable SharedArrayBuffer that reserves address space up front and
 * grows in place: no copy, and no freed buffer left behind. Freed buffers stay with the C
 * allocator for reuse, so a million-row load used to leave tens of MB more resident than its
 * columns; the pages of a growable buffer come straight from the OS and count only once written.
 *
 * Rows a reader already sees never change: growth only adds room past every snapshot's rows.
 * Views over a growable SharedArrayBuffer are fixed-length, so V8 treats them as plain typed arrays
 * (same map, same speed), and a query worker thread reads them like any SharedArrayBuffer. V8 does
 * not count these buffers in `process.memoryUsage().external`; RSS does.
 */

export type TypedArrayCtor<T> = {
    new (n: number): T;
    new (buffer: SharedArrayBuffer, byteOffset?: number, length?: number): T;
    readonly BYTES_PER_ELEMENT: number;
};

/** The ES2024 growable SharedArrayBuffer (Node ≥ 20); the project's ES2022 lib lacks its types. */
interface GrowableBuffer extends SharedArrayBuffer {
    readonly growable: boolean;
    readonly maxByteLength: number;
    grow(byteLength: number): void;
}
/** Undefined without SharedArrayBuffer (a browser page that is not cross-origin isolated). */
const GrowableBuffer =
    typeof SharedArrayBuffer === 'function' ? (SharedArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => GrowableBuffer) : undefined;

/** Columns from this size on grow in place. */
const IN_PLACE_BYTES = 1 << 20;
/**
 * Address space (not memory) reserved for a growable column: this much, or 8× its size; past it, a
 * copy. The copy is what to avoid: the old and the new buffer are both resident until the old one
 * is collected, in every thread that holds a view of it, and every column of a table passes its
 * reservation at about the same row. A gigabyte is 134M rows of numbers; reserving it is a mapping
 * with no access, which costs no memory (2,000 such columns are 2 TB of a 128 TB address space).
 */
const MIN_RESERVE_BYTES = 1 << 30;

/**
 * A zero-filled array of `n` elements, on a SharedArrayBuffer when `shared` (query worker threads
 * then read the same memory without a copy, see replica.ts).
 */
export function allocColumn<T>(C: TypedArrayCtor<T>, n: number, shared: boolean): T {
    const bytes = n * C.BYTES_PER_ELEMENT;
    if (bytes >= IN_PLACE_BYTES && GrowableBuffer !== undefined) {
        const reserve = Math.max(MIN_RESERVE_BYTES, bytes * 8);
        try {
            return new C(new GrowableBuffer(bytes, { maxByteLength: reserve }), 0, n);
        } catch {
            // No address space to reserve (a limit on virtual memory): a fixed buffer still works.
        }
    }
    return shared ? new C(new SharedArrayBuffer(bytes)) : new C(n);
}

/** `a` (its first `used` elements kept) with room for `n` elements: grown in place when it can be. */
export function growColumn<T extends { readonly buffer: ArrayBufferLike; subarray(a: number, b: number): T; set(a: T): void }>(
    C: TypedArrayCtor<T>,
    a: T,
    used: number,
    n: number,
    shared: boolean,
): T {
    const bytes = n * C.BYTES_PER_ELEMENT;
    const buf = a.buffer as ArrayBufferLike & Partial<GrowableBuffer>;
    if (buf.growable === true && bytes <= buf.maxByteLength!) {
        if (bytes > buf.byteLength) buf.grow!(bytes);
        return new C(buf as GrowableBuffer, 0, n);
    }
    const next = allocColumn(C, n, shared);
    next.set(a.subarray(0, used));
    return next;
}
