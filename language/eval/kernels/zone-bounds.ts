/**
 * Per-zone bounds of a numeric column for top-N (topn.ts): for each zone of `zoneRows` physical
 * rows, the smallest and largest number and whether a NaN is among them. A top-N reads the zones
 * that may hold a winner first and stops at the first zone that cannot (a `top 10` of 10M rows
 * reads about 10 of 153 zones).
 *
 * Rows are appended, never changed, so a complete zone is measured once and kept with the
 * column's buffer (the pruning stats of zone-maps.ts skip NaN, which sorts first descending, so
 * they are not enough here); the growing last zone is measured per call.
 */

/** Zone bounds of one buffer: complete zones measured so far. */
interface Bounds {
    min: number[];
    max: number[];
    nan: boolean[];
}

const cache = new WeakMap<ArrayBufferLike, Map<string, Bounds>>();

function measure(vals: Float64Array, from: number, to: number): [number, number, boolean] {
    let min = Infinity;
    let max = -Infinity;
    let nan = false;
    for (let i = from; i < to; i++) {
        const x = vals[i];
        if (x < min) min = x;
        if (x > max) max = x;
        if (x !== x) nan = true;
    }
    return [min, max, nan];
}

/**
 * The bounds of zones z0..z1-1 of `vals` (every row of it is written: a column view of a
 * snapshot), into `min`, `max` and `nan` at index z - z0.
 */
export function zoneBounds(vals: Float64Array, zoneRows: number, z0: number, z1: number, min: Float64Array, max: Float64Array, nan: Uint8Array): void {
    let perBuffer = cache.get(vals.buffer);
    if (perBuffer === undefined) cache.set(vals.buffer, (perBuffer = new Map()));
    const key = `${vals.byteOffset}:${zoneRows}`;
    let b = perBuffer.get(key);
    if (b === undefined) perBuffer.set(key, (b = { min: [], max: [], nan: [] }));
    const complete = Math.floor(vals.length / zoneRows);
    for (let z = z0; z < z1; z++) {
        let lo: number;
        let hi: number;
        let n: boolean;
        if (z < complete) {
            while (b.min.length <= z) {
                const at = b.min.length * zoneRows;
                const [a, c, d] = measure(vals, at, at + zoneRows);
                b.min.push(a);
                b.max.push(c);
                b.nan.push(d);
            }
            lo = b.min[z];
            hi = b.max[z];
            n = b.nan[z];
        } else [lo, hi, n] = measure(vals, z * zoneRows, Math.min(vals.length, (z + 1) * zoneRows));
        min[z - z0] = lo;
        max[z - z0] = hi;
        nan[z - z0] = n ? 1 : 0;
    }
}
