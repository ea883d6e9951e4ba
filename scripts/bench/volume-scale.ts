/** The `--scale` option of `npm run bench` (the volume section), apart so the runner need not load the section. */

/** Events per NDJSON body of the volume section: the smallest scale. */
export const BODY_EVENTS = 10_000;

/** `100m`, `10M`, `2m`, `500k`, `250000` → a number of events. */
export function parseScale(text: string): number {
    const m = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(text.trim());
    if (!m) throw new Error(`--scale takes a number of events such as 100m, 10m or 500k, not '${text}'`);
    const n = Math.round(Number(m[1]) * { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g']);
    if (n < BODY_EVENTS) throw new Error(`--scale ${text}: at least ${BODY_EVENTS} events`);
    return n;
}
