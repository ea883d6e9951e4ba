/**
 * Data and comparison shared by the parallel-query tests (language and service): events with
 * nulls, reals, bools and a sometimes-missing field, in shuffled time order.
 */
export const T0 = Date.parse('2026-11-01T00:00:00Z');

export function mixedEvents(n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, i) => ({
        _time: new Date(T0 + ((i * 7919) % n) * 60_000).toISOString(),
        status: ['200', '200', '404', '500', '301'][i % 5],
        method: ['GET', 'POST', 'GET', 'PUT'][i % 4],
        n: i % 13 === 0 ? null : (i * 31) % 1000,
        r: i % 17 === 0 ? null : ((i * 0.37) % 91) / 3,
        ok: i % 3 === 0,
        label: i % 11 === 0 ? undefined : `l${i % 23}`,
    }));
}

/**
 * An answer without what legitimately differs: elapsed times, ingest times, and the last bits of
 * reals (parts add in another order), rounded to 9 significant digits.
 */
export function comparable(v: unknown): unknown {
    return JSON.parse(JSON.stringify(v), (k, x: unknown) =>
        k === 'elapsedTime' || k === '_sysTime' ? undefined : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(9)) : x,
    );
}
